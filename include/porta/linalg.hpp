// Matrix products: cuBLAS on CUDA; porta's tiled kernel (or CLBlast) on OpenCL GPUs; the host's
// OpenBLAS on CPU devices (PoCL, Kokkos on the host), on the device memory without a copy.
#pragma once

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

}  // namespace porta
