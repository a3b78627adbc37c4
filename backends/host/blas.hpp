// Matrix products on host memory through the host's BLAS (OpenBLAS): the matmul of CPU devices
// (PoCL's CPU device, on mapped buffers, and Kokkos on the host).
#pragma once

#include "porta_backend/backend.hpp"

namespace porta::detail {

// Runs `args` with a, b, c replaced by host pointers to the start of each buffer (offsets and
// strides as in args). float32, float64, complex64 and complex128 through the BLAS, the integers
// through loop_gemm (exact, wrapping); other dtypes throw DTypeError.
void host_matmul(const MatmulArgs& args, const void* a, const void* b, void* c);
// The BLAS library's name and configuration, for porta-info.
const char* host_blas_name();

}  // namespace porta::detail
