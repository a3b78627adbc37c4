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
#define CX_M(fn) std::fn
#define CX_DOUBLE 0
#include "base/complex.h"
#undef CX_DOUBLE
#define CX_DOUBLE 1
#include "base/complex.h"
#undef CX_DOUBLE
#undef CX_M
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
