// Random numbers in generated kernels, CUDA C++ and OpenCL C: Box-Muller's normal values on the
// Philox words of src/base/philox.h (Philox4x32-10, the element -> (counter, word) map and the
// uniforms, whose text DialectText::prelude puts after the philox_fn section and before f32).
// porta_uniform_* and porta_normal_* draw one element (the scalar paths); the vector paths call
// porta_philox once per block of lanes and pick words themselves (codegen/random.cpp's
// emit_random_blocks). The same expressions as the host's Box-Muller (base/philox.hpp).
// Sections at the `//@ name` lines (codegen/text.cpp).
//@ philox_fn  base/philox.h's qualifiers: the prelude's
#define PORTA_PHILOX_FN PORTA_FN
//@ no_f64  (OpenCL C kernels without float64) base/philox.h without its double functions
#define PORTA_PHILOX_NO_F64
//@ f32
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
PORTA_FN float porta_normal_f32(porta_u64 i, porta_u64 s, porta_u64 k) {
  porta_u32x4 x = porta_philox(i >> 2, s, k);
  porta_u32 w = (porta_u32)i & 2u;
  return porta_bm_f32(porta_word(x, w), porta_word(x, w + 1u), (int)(i & 1u));
}
//@ f64  (float64 kernels, and every CUDA kernel)
PORTA_FN double porta_bm_f64(porta_u32x4 x, int odd) {
  double u1 = porta_u01_f64(x.x0, x.x1), u2 = porta_u01_f64(x.x2, x.x3);
  double r = sqrt(-2.0 * log(1.0 - u1)), theta = 6.283185307179586476925286766559 * u2;
  return r * (odd ? sin(theta) : cos(theta));
}
PORTA_FN double porta_normal_f64(porta_u64 i, porta_u64 s, porta_u64 k) { return porta_bm_f64(porta_philox(i >> 1, s, k), (int)(i & 1u)); }
