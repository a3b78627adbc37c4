// Complex numbers on the host: base/complex.h (the one definition of the numerics that the
// generated kernels embed too) for float and double, in namespace porta::detail. The interpreter
// (src/interpreter/) computes complex64/complex128 registers with these functions, so that it
// gives what the CUDA and OpenCL kernels give.
#pragma once

#include <cmath>
#include <complex>

namespace porta::detail {

// Real part first, as std::complex (and NumPy's storage): a register's bytes are an element's.
struct porta_c64 {
  float re, im;
};
struct porta_c128 {
  double re, im;
};
static_assert(sizeof(porta_c64) == sizeof(std::complex<float>) && sizeof(porta_c128) == sizeof(std::complex<double>));

#define CX_FN inline
#define CX_MUL(a, b) ((a) * (b))  // the interpreter is built with -ffp-contract=off

#define CX_T float
#define CX_C porta_c64
#define CX_F(name) porta_##name##_c64
#define CX_M(fn) std::fn
#define CX_K(lit) lit##f
#define CX_EXP_OVER 88.7f
#define CX_SQRT_BIG 0x1p125f
#define CX_SQRT_SMALL 0x1p-100f
#define CX_SQRT_UP 0x1p100f
#define CX_SQRT_DOWN 0x1p-50f
#define CX_TANH_BIG 9.0f
#define CX_ATANH_BIG 0x1p24f
#include "base/complex.h"
#undef CX_T
#undef CX_C
#undef CX_F
#undef CX_K
#undef CX_EXP_OVER
#undef CX_SQRT_BIG
#undef CX_SQRT_SMALL
#undef CX_SQRT_UP
#undef CX_SQRT_DOWN
#undef CX_TANH_BIG
#undef CX_ATANH_BIG

#define CX_T double
#define CX_C porta_c128
#define CX_F(name) porta_##name##_c128
#define CX_K(lit) lit
#define CX_EXP_OVER 709.7
#define CX_SQRT_BIG 0x1p1021
#define CX_SQRT_SMALL 0x1p-1000
#define CX_SQRT_UP 0x1p1000
#define CX_SQRT_DOWN 0x1p-500
#define CX_TANH_BIG 22.0
#define CX_ATANH_BIG 0x1p53
#include "base/complex.h"
#undef CX_T
#undef CX_C
#undef CX_F
#undef CX_M
#undef CX_K
#undef CX_EXP_OVER
#undef CX_SQRT_BIG
#undef CX_SQRT_SMALL
#undef CX_SQRT_UP
#undef CX_SQRT_DOWN
#undef CX_TANH_BIG
#undef CX_ATANH_BIG
#undef CX_FN
#undef CX_MUL

// The host's operators on them (the interpreter's generic loops: sums, products, the order of
// max/min), with base/complex.h's meaning: NumPy's multiplication and lexicographic order.
#define PORTA_CX_OPERATORS(C, S)                                                             \
  inline C operator+(C a, C b) { return porta_add_##S(a, b); }                               \
  inline C operator*(C a, C b) { return porta_mul_##S(a, b); }                               \
  inline C& operator+=(C& a, C b) { return a = porta_add_##S(a, b); }                        \
  inline bool operator==(C a, C b) { return porta_eq_##S(a, b); }                            \
  inline bool operator!=(C a, C b) { return porta_ne_##S(a, b); }                            \
  inline bool operator<(C a, C b) { return porta_lt_##S(a, b); }                             \
  inline bool operator>(C a, C b) { return porta_gt_##S(a, b); }                             \
  inline bool cx_isnan(C a) { return porta_isnan_##S(a); }                                   \
  inline C cx_max(C a, C b) { return porta_max_##S(a, b); }                                  \
  inline C cx_min(C a, C b) { return porta_min_##S(a, b); }
PORTA_CX_OPERATORS(porta_c64, c64)
PORTA_CX_OPERATORS(porta_c128, c128)
#undef PORTA_CX_OPERATORS

}  // namespace porta::detail
