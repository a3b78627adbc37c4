/* Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy as 1, 2, 3",
   SC 2011; Random123): the one definition of the random numbers of plan.hpp's Op::uniform and
   Op::normal, in the common subset of C++, CUDA C++ and OpenCL C. The host reference
   (base/philox.hpp) includes it; generated kernels that draw random numbers start with its text,
   embedded at build time (codegen/text.cpp); OpenCL's vector blocks (codegen/kernels/prelude_opencl.cl)
   expand PORTA_PHILOX_ROUNDS on uintN; the interpreter's SIMD lanes (interpreter/ops.cpp) take
   its constants and run the same round on 64-bit lanes.
   The includer provides porta_u32 and porta_u64 (unsigned 32- and 64-bit integers), porta_mulhi(a, b)
   (the high 32 bits of the 64-bit product of two porta_u32), PORTA_PHILOX_FN (the functions'
   qualifiers: inline, or __device__ __forceinline__), and defines PORTA_PHILOX_NO_F64 where there
   is no double (OpenCL C without cl_khr_fp64). */
#ifndef PORTA_PHILOX_H
#define PORTA_PHILOX_H

/* The multipliers and the key's Weyl increments. */
#define PORTA_PHILOX_M0 0xD2511F53u
#define PORTA_PHILOX_M1 0xCD9E8D57u
#define PORTA_PHILOX_W0 0x9E3779B9u
#define PORTA_PHILOX_W1 0xBB67AE85u

/* One round on the counter words c0..c3 (of type T: a 32-bit unsigned integer, or an OpenCL
   vector of them) and the key k0, k1; HI(m, c) is the high half of the 64-bit product m * c. The
   rounds are written out and the state kept in scalars: PoCL vectorises that, not a loop over a
   private array (15x faster there). */
#define PORTA_PHILOX_ROUND(T, HI, c0, c1, c2, c3, k0, k1)                                         \
  {                                                                                              \
    T h0_ = HI(PORTA_PHILOX_M0, c0), l0_ = PORTA_PHILOX_M0 * (c0);                               \
    T h1_ = HI(PORTA_PHILOX_M1, c2), l1_ = PORTA_PHILOX_M1 * (c2);                               \
    c0 = h1_ ^ (c1) ^ (k0);                                                                      \
    c1 = l1_;                                                                                    \
    c2 = h0_ ^ (c3) ^ (k1);                                                                      \
    c3 = l0_;                                                                                    \
    k0 += PORTA_PHILOX_W0;                                                                       \
    k1 += PORTA_PHILOX_W1;                                                                       \
  }
#define PORTA_PHILOX_ROUNDS(T, HI, c0, c1, c2, c3, k0, k1)                                        \
  PORTA_PHILOX_ROUND(T, HI, c0, c1, c2, c3, k0, k1) PORTA_PHILOX_ROUND(T, HI, c0, c1, c2, c3, k0, k1) \
  PORTA_PHILOX_ROUND(T, HI, c0, c1, c2, c3, k0, k1) PORTA_PHILOX_ROUND(T, HI, c0, c1, c2, c3, k0, k1) \
  PORTA_PHILOX_ROUND(T, HI, c0, c1, c2, c3, k0, k1) PORTA_PHILOX_ROUND(T, HI, c0, c1, c2, c3, k0, k1) \
  PORTA_PHILOX_ROUND(T, HI, c0, c1, c2, c3, k0, k1) PORTA_PHILOX_ROUND(T, HI, c0, c1, c2, c3, k0, k1) \
  PORTA_PHILOX_ROUND(T, HI, c0, c1, c2, c3, k0, k1) PORTA_PHILOX_ROUND(T, HI, c0, c1, c2, c3, k0, k1)

typedef struct { porta_u32 x0, x1, x2, x3; } porta_u32x4;

/* The four words of counter (index, stream) under key seed. */
PORTA_PHILOX_FN porta_u32x4 porta_philox(porta_u64 index, porta_u64 stream, porta_u64 seed) {
  porta_u32 c0 = (porta_u32)index, c1 = (porta_u32)(index >> 32), c2 = (porta_u32)stream, c3 = (porta_u32)(stream >> 32);
  porta_u32 k0 = (porta_u32)seed, k1 = (porta_u32)(seed >> 32);
  PORTA_PHILOX_ROUNDS(porta_u32, porta_mulhi, c0, c1, c2, c3, k0, k1)
  porta_u32x4 x; x.x0 = c0; x.x1 = c1; x.x2 = c2; x.x3 = c3;
  return x;
}
PORTA_PHILOX_FN porta_u32 porta_word(porta_u32x4 x, porta_u32 w) { return w == 0u ? x.x0 : w == 1u ? x.x1 : w == 2u ? x.x2 : x.x3; }

/* Uniform [0, 1): float32 from a word's high 24 bits, float64 from 27 + 26 bits of two words. */
PORTA_PHILOX_FN float porta_u01_f32(porta_u32 x) { return (float)(x >> 8) * 5.9604644775390625e-08f; }

/* Element index i -> (counter, word): one Philox call's four words serve consecutive elements,
   so a kernel writing consecutive elements runs one Philox per four float32 values (two float64).
   float32 (and float16/bfloat16, rounded from it): counter i / 4, word i % 4. float64: counter
   i / 2, words 2 (i % 2) and 2 (i % 2) + 1. normal (Box-Muller, base/philox.hpp and the
   kernels' prelude): float32 takes its pair of uniforms from words (0, 1) or (2, 3) of counter
   i / 4, float64 from words (0, 1) and (2, 3) of counter i / 2; r cos(theta) to the even element,
   r sin(theta) to the odd one. A value depends only on (seed, stream, i). */
PORTA_PHILOX_FN float porta_uniform_f32(porta_u64 i, porta_u64 s, porta_u64 k) { return porta_u01_f32(porta_word(porta_philox(i >> 2, s, k), (porta_u32)i & 3u)); }

#ifndef PORTA_PHILOX_NO_F64
PORTA_PHILOX_FN double porta_u01_f64(porta_u32 a, porta_u32 b) { return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6)) * 1.1102230246251565e-16; }
PORTA_PHILOX_FN double porta_uniform_f64(porta_u64 i, porta_u64 s, porta_u64 k) {
  porta_u32x4 x = porta_philox(i >> 1, s, k);
  return (i & 1u) ? porta_u01_f64(x.x2, x.x3) : porta_u01_f64(x.x0, x.x1);
}
#endif
#endif
