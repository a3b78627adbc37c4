// Matrix products: cuBLAS on CUDA; porta's tiled kernel (or CLBlast) on OpenCL GPUs; the host's
// OpenBLAS on CPU devices (PoCL, Kokkos on the host), on the device memory without a copy.
#pragma once

#include <vector>

#include <porta/array.hpp>

namespace porta {

enum class MatmulPrecision {
  exact,    // float32 is computed in float32 (the default)
  tf32,     // float32 may use TF32 tensor cores (CUDA); same as exact elsewhere
  from_env, // PORTA_MATMUL=exact|tf32, exact when unset
  // complex64 and complex128 may use the 3M (Gauss) form, 3 real products in place of 4 (cuBLAS's
  // cgemm3m, zgemm3m: faster, with errors relative to the operands' norms rather than to each
  // part); the same as exact elsewhere and for real dtypes.
  complex_3m,
};

// NumPy's matmul: 2-D x 2-D; 1-D operands become a row (left) or a column (right) and that
// axis is dropped; 3-D and higher operands are stacks of matrices whose leading dimensions
// broadcast ((2, 1, m, k) with (3, k, n) is (2, 3, m, n)). Operands are promoted to
// a common dtype (NumPy's) and the result has it: float32, float64, and float16/bfloat16 where the
// device has them (accumulated in float32); complex64 and complex128 (no conjugation; tf32 lets
// complex64 use TF32 as float32 does); integers exact, wrapping modulo 2^bits as NumPy's (int8 @
// int8 is int8); bool: whether any pair is true in both.
Array matmul(const Array& a, const Array& b, MatmulPrecision precision = MatmulPrecision::from_env);
// Inner product of two 1-D arrays: a 0-d array.
Array dot(const Array& a, const Array& b);
// The array API's vecdot: sums of conj(a) * b along `axis` of each (of one length), the other
// dimensions broadcast, in their promoted dtype (bool: whether any pair is true in both, as NumPy's).
Array vecdot(const Array& a, const Array& b, int axis = -1);
// NumPy's tensordot: sums of products over a's last `axes` axes and b's first `axes` (or over the
// axes a_axes of a and b_axes of b, matched in order); the result has a's other axes, then b's.
// Every dtype goes through matmul.
Array tensordot(const Array& a, const Array& b, int axes = 2);
Array tensordot(const Array& a, const Array& b, const std::vector<int>& a_axes, const std::vector<int>& b_axes);

}  // namespace porta
