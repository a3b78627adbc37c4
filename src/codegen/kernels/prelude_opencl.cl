// The prelude of generated OpenCL C kernels: the dialect's half of it (prelude.h holds what both
// dialects share, random.h the random numbers'). Embedded at build time (src/CMakeLists.txt) and
// cut into sections at the `//@ name` lines, which DialectText::prelude (codegen/text.cpp) puts
// together as a kernel needs them; a section is the text between its line and the next one.
// porta_mulhi: NVIDIA's OpenCL (its extension macros) takes mul_hi, as CUDA takes __umulhi (the
// shorter code there: ptxas made 3840 bytes of sm_90 code for a Philox uniform kernel with
// __umulhi and a 32-bit low product, 4480 with one 64-bit product giving both; opencl:1's uniform
// wrote 0.88x of fill with the 64-bit form); PoCL's mul_hi is slower than a 64-bit product.
// philox_vectors: PoCL runs these as SIMD code, 2x the blocks a second of the scalar rounds in one
// work-item (2^24 float32, 2-core build machine); the CPU vector path uses them
// (emit_random_blocks). 16 blocks (uint16, one AVX-512 register) took 20 ms of CPU time for 2^24
// float32 against 44 ms for uint4 and 25 for uint8 on the build machine's PoCL (a probe kernel,
// medians of 7). The low word as the 64-bit product's low half, or mul_hi for the high word, cost
// more (25 and 39 ms).
//@ math_names  (kernels with random numbers) Box-Muller's math
#define SQRTF sqrt
#define LOGF log
#define COSF cos
#define SINF sin
#define SINCOSF(x, s, c) ((s) = sincos((x), &(c)))
//@ names  FMODF, COPYSIGNF and FLOORF (OpenCL's are overloaded)
#define FMODF fmod
#define COPYSIGNF copysign
#define FLOORF floor
//@ fp64  (kernels with float64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
//@ types  integer types, bfloat16 conversions (round to nearest even, NaN kept quiet), float16 rounding, mulhi, qualifiers
typedef uint porta_u32;
typedef ulong porta_u64;
typedef char porta_i8;
typedef uchar porta_u8;
typedef short porta_i16;
typedef ushort porta_u16;
inline float porta_bf2f(ushort b) { return as_float(((uint)b) << 16); }
inline ushort porta_f2bf(float f) {
  uint u = as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (ushort)(u >> 16);
}
// float32 rounded to the nearest float16 (ties to even), as a float: the mantissa rounded to 10 bits
// in the integer (a carry runs into the exponent), float16's subnormals as multiples of 2^-24 by
// adding and taking away 0.5 (whose float32 ulp is 2^-24), 65520 and up to inf. Every arithmetic
// float16 result passes here (plan.hpp), and a store and load through private memory (vstore_half)
// made fused float16 arithmetic several times slower on PoCL.
inline float porta_round_h(float f) {
  const uint u = as_uint(f), a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return f;
  if (a < 0x38800000u) return copysign((fabs(f) + 0.5f) - 0.5f, f);
  uint r = (a + 0x0fffu + ((a >> 13) & 1u)) & ~0x1fffu;
  if (r >= 0x47800000u) r = 0x7f800000u;
  return as_float(r | (u & 0x80000000u));
}
inline float porta_round_bf(float f) { return porta_bf2f(porta_f2bf(f)); }
#if defined(cl_nv_pragma_unroll) || defined(cl_nv_device_attribute_query) || defined(__NV_CL_C_VERSION)
inline uint porta_mulhi(uint a, uint b) { return mul_hi(a, b); }
#else
inline uint porta_mulhi(uint a, uint b) { return (uint)(((ulong)a * b) >> 32); }
#endif
#define PORTA_FN inline
#define PORTA_I64 long
//@ odd_f32  float64 -> float32 rounded to odd (truncate, then set the last bit when inexact): a later rounding to float16/bfloat16 is then the correctly rounded one
PORTA_FN float porta_odd_f32(double d) { float f = convert_float_rtz(d); if ((double)f != d && f == f) f = as_float(as_uint(f) | 1u); return f; }
//@ philox_vectors  (kernels with random numbers) B consecutive Philox blocks from counter `first` (a multiple of B, so the low words do not carry) on OpenCL vectors, B = 2, 4, 8, 16: word w of block b is x<w>.s<b>
#define PORTA_MULHI_2(m, c) convert_uint2((convert_ulong2(c) * (ulong)(m)) >> 32)
#define PORTA_MULHI_4(m, c) convert_uint4((convert_ulong4(c) * (ulong)(m)) >> 32)
#define PORTA_MULHI_8(m, c) convert_uint8((convert_ulong8(c) * (ulong)(m)) >> 32)
#define PORTA_MULHI_16(m, c) convert_uint16((convert_ulong16(c) * (ulong)(m)) >> 32)
#define PORTA_PHILOX_VECTOR(B, IOTA)                                                                    \
  typedef struct { uint##B x0, x1, x2, x3; } porta_u32x4_##B;                                          \
  PORTA_FN porta_u32x4_##B porta_philox_##B(porta_u64 first, porta_u64 stream, porta_u64 seed) {        \
    uint##B c0 = (uint##B)((porta_u32)first) + (uint##B)IOTA, c1 = (uint##B)((porta_u32)(first >> 32)); \
    uint##B c2 = (uint##B)((porta_u32)stream), c3 = (uint##B)((porta_u32)(stream >> 32));               \
    porta_u32 k0 = (porta_u32)seed, k1 = (porta_u32)(seed >> 32);                                       \
    PORTA_PHILOX_ROUNDS(uint##B, PORTA_MULHI_##B, c0, c1, c2, c3, k0, k1)                              \
    porta_u32x4_##B x; x.x0 = c0; x.x1 = c1; x.x2 = c2; x.x3 = c3;                                     \
    return x;                                                                                          \
  }
PORTA_PHILOX_VECTOR(2, (0, 1))
PORTA_PHILOX_VECTOR(4, (0, 1, 2, 3))
PORTA_PHILOX_VECTOR(8, (0, 1, 2, 3, 4, 5, 6, 7))
PORTA_PHILOX_VECTOR(16, (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
//@ complex_f32  (kernels with complex values) base/complex.h's names for complex64, its text follows (codegen/text.cpp); 8-byte aligned: OpenCL C has no complex type: this struct is the same text on every OpenCL device; math functions are overloaded
typedef struct __attribute__((aligned(8))) { float re, im; } porta_c64;
#define CX_DOUBLE 0
#define CX_FN static inline
#define CX_MUL(a, b) ((a) * (b))
#pragma OPENCL FP_CONTRACT OFF
#define CX_M(fn) fn
//@ complex_f64  (kernels with complex128) the same for complex128; 16-byte aligned
typedef struct __attribute__((aligned(16))) { double re, im; } porta_c128;
#define CX_DOUBLE 1
#define CX_FN static inline
#define CX_MUL(a, b) ((a) * (b))
#pragma OPENCL FP_CONTRACT OFF
#define CX_M(fn) fn
#define CX_OWN_HYPOT 1
//@ complex_end  after base/complex.h's text: its names undefined
#pragma OPENCL FP_CONTRACT ON
#undef CX_DOUBLE
#undef CX_FN
#undef CX_MUL
#undef CX_M
#undef CX_OWN_HYPOT
//@ prefetch  (CPU devices' vector kernels, before the prelude) PORTA_PREFETCH: __builtin_prefetch where the OpenCL compiler is clang (PoCL), else nothing; PORTA_STORE_NT(v, p): a non-temporal store of the vector v at p (aligned to v) where clang has one, else a plain one
#if defined(__clang__) && defined(__has_builtin)
#if __has_builtin(__builtin_prefetch)
#define PORTA_PREFETCH(p, w) __builtin_prefetch((p), (w))
#endif
#if __has_builtin(__builtin_nontemporal_store)
#define PORTA_STORE_NT(v, p) __builtin_nontemporal_store((v), (p))
#endif
#endif
#ifndef PORTA_PREFETCH
#define PORTA_PREFETCH(p, w)
#endif
#ifndef PORTA_STORE_NT
#define PORTA_STORE_NT(v, p) (*(p) = (v))
#endif
