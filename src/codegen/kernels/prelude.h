// The part of the prelude of generated kernels that CUDA C++ and OpenCL C share, written with the
// names that prelude_cuda.cuh and prelude_opencl.cl define (PORTA_FN, PORTA_I64, porta_u32,
// porta_u64, FMODF, COPYSIGNF, FLOORF). Sections at the `//@ name` lines (codegen/text.cpp).
//@ helpers  NumPy's remainder (sign of the divisor), floor division, integer power, shifts (a count outside [0, bits): 0, or 0 / -1 by the sign for >>, where C leaves it undefined), NaN-propagating max/min
PORTA_FN int porta_mod_i32(int a, int b) { if (b == 0) return 0; if (b == -1) return 0; int r = a % b; if (r != 0 && ((r < 0) != (b < 0))) r += b; return r; }
PORTA_FN PORTA_I64 porta_mod_i64(PORTA_I64 a, PORTA_I64 b) { if (b == 0) return 0; if (b == -1) return 0; PORTA_I64 r = a % b; if (r != 0 && ((r < 0) != (b < 0))) r += b; return r; }
PORTA_FN int porta_pow_i32(int a, int b) { if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0; porta_u32 r = 1u, x = (porta_u32)a; while (b) { if (b & 1) r *= x; x *= x; b >>= 1; } return (int)r; }
PORTA_FN PORTA_I64 porta_pow_i64(PORTA_I64 a, PORTA_I64 b) { if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0; porta_u64 r = 1u, x = (porta_u64)a; while (b) { if (b & 1) r *= x; x *= x; b >>= 1; } return (PORTA_I64)r; }
PORTA_FN int porta_fdiv_i32(int a, int b) { if (b == 0) return 0; if (b == -1) return (int)(0u - (porta_u32)a); int q = a / b; if (a % b != 0 && ((a < 0) != (b < 0))) --q; return q; }
PORTA_FN PORTA_I64 porta_fdiv_i64(PORTA_I64 a, PORTA_I64 b) { if (b == 0) return 0; if (b == -1) return (PORTA_I64)((porta_u64)0 - (porta_u64)a); PORTA_I64 q = a / b; if (a % b != 0 && ((a < 0) != (b < 0))) --q; return q; }
PORTA_FN int porta_shl_i32(int a, int b) { return (porta_u32)b < 32u ? (int)((porta_u32)a << b) : 0; }
PORTA_FN PORTA_I64 porta_shl_i64(PORTA_I64 a, PORTA_I64 b) { return (porta_u64)b < 64u ? (PORTA_I64)((porta_u64)a << b) : 0; }
PORTA_FN int porta_shr_i32(int a, int b) { return (porta_u32)b < 32u ? a >> b : (a < 0 ? -1 : 0); }
PORTA_FN PORTA_I64 porta_shr_i64(PORTA_I64 a, PORTA_I64 b) { return (porta_u64)b < 64u ? a >> b : (a < 0 ? -1 : 0); }
PORTA_FN float porta_mod_f32(float a, float b) { float m = FMODF(a, b); if (b == 0.0f) return m; if (m != 0.0f) { if ((b < 0.0f) != (m < 0.0f)) m += b; } else { m = COPYSIGNF(0.0f, b); } return m; }
PORTA_FN float porta_fdiv_f32(float a, float b) { if (b == 0.0f) return a / b; float m = FMODF(a, b); float d = (a - m) / b; if (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) d -= 1.0f; if (d == 0.0f) return COPYSIGNF(0.0f, a / b); float f = FLOORF(d); return d - f > 0.5f ? f + 1.0f : f; }
PORTA_FN float porta_max_f32(float a, float b) { return (a > b || a != a) ? a : b; }
PORTA_FN float porta_min_f32(float a, float b) { return (a < b || a != a) ? a : b; }
//@ f64  (float64 kernels, and every CUDA kernel) the same for double
PORTA_FN double porta_mod_f64(double a, double b) { double m = fmod(a, b); if (b == 0.0) return m; if (m != 0.0) { if ((b < 0.0) != (m < 0.0)) m += b; } else { m = copysign(0.0, b); } return m; }
PORTA_FN double porta_fdiv_f64(double a, double b) { if (b == 0.0) return a / b; double m = fmod(a, b); double d = (a - m) / b; if (m != 0.0 && ((b < 0.0) != (m < 0.0))) d -= 1.0; if (d == 0.0) return copysign(0.0, a / b); double f = floor(d); return d - f > 0.5 ? f + 1.0 : f; }
PORTA_FN double porta_max_f64(double a, double b) { return (a > b || a != a) ? a : b; }
PORTA_FN double porta_min_f64(double a, double b) { return (a < b || a != a) ? a : b; }
