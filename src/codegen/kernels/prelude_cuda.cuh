// The prelude of generated CUDA C++ kernels: the dialect's half of it (prelude.h holds what both
// dialects share, random.h the random numbers'). Embedded at build time (src/CMakeLists.txt) and
// cut into sections at the `//@ name` lines, which DialectText::prelude (codegen/text.cpp) puts
// together as a kernel needs them; a section is the text between its line and the next one.
//@ math_names  (kernels with random numbers) Box-Muller's float32 math
#define SQRTF sqrtf
#define LOGF logf
#define COSF cosf
#define SINF sinf
#define SINCOSF(x, s, c) sincosf((x), &(s), &(c))
//@ names  FMODF, COPYSIGNF and FLOORF name the float versions
#define FMODF fmodf
#define COPYSIGNF copysignf
#define FLOORF floorf
//@ types  integer types, float16/bfloat16 conversions (bfloat16: round to nearest even, NaN kept quiet), mulhi, qualifiers
typedef unsigned int porta_u32;
typedef unsigned long long porta_u64;
typedef signed char porta_i8;
typedef unsigned char porta_u8;
typedef short porta_i16;
typedef unsigned short porta_u16;
__device__ __forceinline__ float porta_h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ unsigned short porta_f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ float porta_bf2f(unsigned short b) { return __uint_as_float(((porta_u32)b) << 16); }
__device__ __forceinline__ unsigned short porta_f2bf(float f) {
  porta_u32 u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
__device__ __forceinline__ float porta_round_h(float f) { return porta_h2f(porta_f2h(f)); }
__device__ __forceinline__ float porta_round_bf(float f) { return porta_bf2f(porta_f2bf(f)); }
__device__ __forceinline__ porta_u32 porta_mulhi(porta_u32 a, porta_u32 b) { return __umulhi(a, b); }
#define PORTA_FN __device__ __forceinline__
#define PORTA_I64 long long
//@ odd_f32  float64 -> float32 rounded to odd (truncate, then set the last bit when inexact): a later rounding to float16/bfloat16 is then the correctly rounded one
PORTA_FN float porta_odd_f32(double d) { float f = __double2float_rz(d); if ((double)f != d && f == f) f = __uint_as_float(__float_as_uint(f) | 1u); return f; }
//@ complex_f32  (kernels with complex values) base/complex.h's names for complex64, its text follows (codegen/text.cpp); 8-byte aligned: one 64-bit access an element
typedef struct __align__(8) { float re, im; } porta_c64;
#define CX_DOUBLE 0
#define CX_FN __device__ inline
#define CX_MUL(a, b) __fmul_rn((a), (b))
#define CX_M(fn) fn##f
//@ complex_f64  (kernels with complex128) the same for complex128; 16-byte aligned
typedef struct __align__(16) { double re, im; } porta_c128;
#define CX_DOUBLE 1
#define CX_FN __device__ inline
#define CX_MUL(a, b) __dmul_rn((a), (b))
#define CX_M(fn) fn
//@ complex_end  after base/complex.h's text: its names undefined
#undef CX_DOUBLE
#undef CX_FN
#undef CX_MUL
#undef CX_M
