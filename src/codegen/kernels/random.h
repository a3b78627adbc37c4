// Random numbers in generated kernels, CUDA C++ and OpenCL C: Philox4x32-10 and the element ->
// (counter, word) map of src/base/philox.hpp, the uniforms and Box-Muller. porta_uniform_* and
// porta_normal_* draw one element (the scalar paths); the vector paths call porta_philox once per
// block of lanes and pick words themselves (codegen/random.cpp's emit_random_blocks). Rounds
// written out and the state in scalars: PoCL vectorises this, not a loop over a private array
// (15x faster there). Sections at the `//@ name` lines (codegen/text.cpp).
//@ f32
typedef struct { porta_u32 x0, x1, x2, x3; } porta_u32x4;
#define PORTA_PHILOX_ROUND { porta_u32 h0 = porta_mulhi(0xD2511F53u, c0), l0 = 0xD2511F53u * c0; porta_u32 h1 = porta_mulhi(0xCD9E8D57u, c2), l1 = 0xCD9E8D57u * c2; c0 = h1 ^ c1 ^ k0; c1 = l1; c2 = h0 ^ c3 ^ k1; c3 = l0; k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
PORTA_FN porta_u32x4 porta_philox(porta_u64 index, porta_u64 stream, porta_u64 seed) {
  porta_u32 c0 = (porta_u32)index, c1 = (porta_u32)(index >> 32), c2 = (porta_u32)stream, c3 = (porta_u32)(stream >> 32);
  porta_u32 k0 = (porta_u32)seed, k1 = (porta_u32)(seed >> 32);
  PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND
  PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND
  porta_u32x4 x; x.x0 = c0; x.x1 = c1; x.x2 = c2; x.x3 = c3;
  return x;
}
PORTA_FN float porta_u01_f32(porta_u32 x) { return (float)(x >> 8) * 5.9604644775390625e-08f; }
PORTA_FN porta_u32 porta_word(porta_u32x4 x, porta_u32 w) { return w == 0u ? x.x0 : w == 1u ? x.x1 : w == 2u ? x.x2 : x.x3; }
PORTA_FN float porta_bm_f32(porta_u32 a, porta_u32 b, int odd) {
  float u1 = porta_u01_f32(a), u2 = porta_u01_f32(b);
  float r = SQRTF(-2.0f * LOGF(1.0f - u1)), theta = 6.2831853071795864769f * u2;
  return r * (odd ? SINF(theta) : COSF(theta));
}
PORTA_FN void porta_bm_pair_f32(porta_u32 a, porta_u32 b, float* c, float* s) {
  float r = SQRTF(-2.0f * LOGF(1.0f - porta_u01_f32(a))), sn, cs;
  SINCOSF(6.2831853071795864769f * porta_u01_f32(b), sn, cs);
  *c = r * cs; *s = r * sn;
}
PORTA_FN float porta_uniform_f32(porta_u64 i, porta_u64 s, porta_u64 k) { return porta_u01_f32(porta_word(porta_philox(i >> 2, s, k), (porta_u32)i & 3u)); }
PORTA_FN float porta_normal_f32(porta_u64 i, porta_u64 s, porta_u64 k) {
  porta_u32x4 x = porta_philox(i >> 2, s, k);
  porta_u32 w = (porta_u32)i & 2u;
  return porta_bm_f32(porta_word(x, w), porta_word(x, w + 1u), (int)(i & 1u));
}
//@ f64  (float64 kernels, and every CUDA kernel)
PORTA_FN double porta_u01_f64(porta_u32 a, porta_u32 b) { return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6)) * 1.1102230246251565e-16; }
PORTA_FN double porta_bm_f64(porta_u32x4 x, int odd) {
  double u1 = porta_u01_f64(x.x0, x.x1), u2 = porta_u01_f64(x.x2, x.x3);
  double r = sqrt(-2.0 * log(1.0 - u1)), theta = 6.283185307179586476925286766559 * u2;
  return r * (odd ? sin(theta) : cos(theta));
}
PORTA_FN double porta_uniform_f64(porta_u64 i, porta_u64 s, porta_u64 k) {
  porta_u32x4 x = porta_philox(i >> 1, s, k);
  return (i & 1u) ? porta_u01_f64(x.x2, x.x3) : porta_u01_f64(x.x0, x.x1);
}
PORTA_FN double porta_normal_f64(porta_u64 i, porta_u64 s, porta_u64 k) { return porta_bm_f64(porta_philox(i >> 1, s, k), (int)(i & 1u)); }
