// The part of the prelude of generated kernels that CUDA C++ and OpenCL C share, written with the
// names that prelude_cuda.cuh and prelude_opencl.cl define (PORTA_FN, PORTA_I64, porta_u32,
// porta_u64, porta_i8, porta_u8, porta_i16, porta_u16, FMODF, COPYSIGNF, FLOORF). Sections at the `//@ name` lines (codegen/text.cpp).
//@ helpers  NumPy's remainder (sign of the divisor), floor division, integer power, shifts (a count outside [0, bits): 0, or 0 / -1 by the sign for >>, where C leaves it undefined), NaN-propagating max/min
// The integer helpers for every width, T the type and W the unsigned type of at least 32 bits in
// which pow and << compute (its wrap-around is defined; a narrower T takes W's low bits). A
// narrow operand is promoted to int by C's rules, so every result is converted back to T.
#define PORTA_SIGNED_HELPERS(S, T, W, BITS)                                                                          \
  PORTA_FN T porta_mod_##S(T a, T b) { if (b == 0 || b == -1) return 0; T r = (T)(a % b); if (r != 0 && ((r < 0) != (b < 0))) r = (T)(r + b); return r; } \
  PORTA_FN T porta_fdiv_##S(T a, T b) { if (b == 0) return 0; if (b == -1) return (T)((W)0 - (W)a); T q = (T)(a / b); if (a % b != 0 && ((a < 0) != (b < 0))) q = (T)(q - 1); return q; } \
  PORTA_FN T porta_pow_##S(T a, T b) { if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0; W r = 1u, x = (W)a; while (b) { if (b & 1) r *= x; x *= x; b = (T)(b >> 1); } return (T)r; } \
  PORTA_FN T porta_shl_##S(T a, T b) { return (W)b < BITS ? (T)((W)a << b) : (T)0; }                                  \
  PORTA_FN T porta_shr_##S(T a, T b) { return (W)b < BITS ? (T)(a >> b) : (T)(a < 0 ? -1 : 0); }
#define PORTA_UNSIGNED_HELPERS(S, T, W, BITS)                                                                        \
  PORTA_FN T porta_mod_##S(T a, T b) { return b == 0 ? (T)0 : (T)(a % b); }                                            \
  PORTA_FN T porta_fdiv_##S(T a, T b) { return b == 0 ? (T)0 : (T)(a / b); }                                           \
  PORTA_FN T porta_pow_##S(T a, T b) { W r = 1u, x = (W)a; while (b) { if (b & 1u) r *= x; x *= x; b = (T)(b >> 1); } return (T)r; } \
  PORTA_FN T porta_shl_##S(T a, T b) { return b < BITS ? (T)((W)a << b) : (T)0; }                                     \
  PORTA_FN T porta_shr_##S(T a, T b) { return b < BITS ? (T)(a >> b) : (T)0; }
PORTA_SIGNED_HELPERS(i8, porta_i8, porta_u32, 8u)
PORTA_SIGNED_HELPERS(i16, porta_i16, porta_u32, 16u)
PORTA_SIGNED_HELPERS(i32, int, porta_u32, 32u)
PORTA_SIGNED_HELPERS(i64, PORTA_I64, porta_u64, 64u)
PORTA_UNSIGNED_HELPERS(u8, porta_u8, porta_u32, 8u)
PORTA_UNSIGNED_HELPERS(u16, porta_u16, porta_u32, 16u)
PORTA_UNSIGNED_HELPERS(u32, porta_u32, porta_u32, 32u)
PORTA_UNSIGNED_HELPERS(u64, porta_u64, porta_u64, 64u)
PORTA_FN float porta_mod_f32(float a, float b) { float m = FMODF(a, b); if (b == 0.0f) return m; if (m != 0.0f) { if ((b < 0.0f) != (m < 0.0f)) m += b; } else { m = COPYSIGNF(0.0f, b); } return m; }
PORTA_FN float porta_fdiv_f32(float a, float b) { if (b == 0.0f) return a / b; float m = FMODF(a, b); float d = (a - m) / b; if (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) d -= 1.0f; if (d == 0.0f) return COPYSIGNF(0.0f, a / b); float f = FLOORF(d); return d - f > 0.5f ? f + 1.0f : f; }
PORTA_FN int porta_clamp_i32(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }  // float -> int8/int16/uint8/uint16 (CUDA)
PORTA_FN float porta_max_f32(float a, float b) { return (a > b || a != a) ? a : b; }
PORTA_FN float porta_min_f32(float a, float b) { return (a < b || a != a) ? a : b; }
//@ f64  (float64 kernels, and every CUDA kernel) the same for double
PORTA_FN double porta_mod_f64(double a, double b) { double m = fmod(a, b); if (b == 0.0) return m; if (m != 0.0) { if ((b < 0.0) != (m < 0.0)) m += b; } else { m = copysign(0.0, b); } return m; }
PORTA_FN double porta_fdiv_f64(double a, double b) { if (b == 0.0) return a / b; double m = fmod(a, b); double d = (a - m) / b; if (m != 0.0 && ((b < 0.0) != (m < 0.0))) d -= 1.0; if (d == 0.0) return copysign(0.0, a / b); double f = floor(d); return d - f > 0.5 ? f + 1.0 : f; }
PORTA_FN double porta_max_f64(double a, double b) { return (a > b || a != a) ? a : b; }
PORTA_FN double porta_min_f64(double a, double b) { return (a < b || a != a) ? a : b; }
