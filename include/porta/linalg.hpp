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
};

// NumPy's matmul: 2-D x 2-D; 1-D operands become a row (left) or a column (right) and that
// axis is dropped; 3-D operands are batches (a batch of 1 broadcasts). float32, float64, and
// float16/bfloat16 where the device has them (accumulated in float32). Operands are promoted
// to a common dtype; integer operands are rejected with DTypeError.
Array matmul(const Array& a, const Array& b, MatmulPrecision precision = MatmulPrecision::from_env);
// Inner product of two 1-D arrays: a 0-d array.
Array dot(const Array& a, const Array& b);
// The array API's vecdot: sums of a * b along `axis` of each (of one length), the other dimensions
// broadcast, in their promoted dtype (bool: whether any pair is true in both, as NumPy's).
Array vecdot(const Array& a, const Array& b, int axis = -1);
// NumPy's tensordot: sums of products over a's last `axes` axes and b's first `axes` (or over the
// axes a_axes of a and b_axes of b, matched in order); the result has a's other axes, then b's.
// Floating dtypes go through matmul; integers and bool are summed as products (m x k x n work).
Array tensordot(const Array& a, const Array& b, int axes = 2);
Array tensordot(const Array& a, const Array& b, const std::vector<int>& a_axes, const std::vector<int>& b_axes);

}  // namespace porta
