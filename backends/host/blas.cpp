// cblas_{s,d}gemm per batch, row-major, with the transposes and leading dimensions of MatmulArgs.
#include "host/blas.hpp"

#include <cblas.h>

#include "porta_backend/strings.hpp"

namespace porta::detail {
namespace {

template <class T, class Gemm>
void run(const MatmulArgs& g, const void* a, const void* b, void* c, Gemm gemm) {
  const T* pa = static_cast<const T*>(a) + g.a_offset;
  const T* pb = static_cast<const T*>(b) + g.b_offset;
  T* pc = static_cast<T*>(c) + g.c_offset;
  for (std::int64_t i = 0; i < g.batch; ++i) {
    gemm(CblasRowMajor, g.trans_a ? CblasTrans : CblasNoTrans, g.trans_b ? CblasTrans : CblasNoTrans,
         static_cast<blasint>(g.m), static_cast<blasint>(g.n), static_cast<blasint>(g.k), T(1), pa + i * g.stride_a,
         static_cast<blasint>(g.lda), pb + i * g.stride_b, static_cast<blasint>(g.ldb), T(0), pc + i * g.stride_c,
         static_cast<blasint>(g.ldc));
  }
}

}  // namespace

void host_matmul(const MatmulArgs& g, const void* a, const void* b, void* c) {
  constexpr std::int64_t kMax = 0x7fffffff;
  if (g.m > kMax || g.n > kMax || g.k > kMax || g.lda > kMax || g.ldb > kMax || g.ldc > kMax)
    throw InvalidArgument(cat("matmul of ", g.m, "x", g.k, " by ", g.k, "x", g.n,
                              " is too large for the host BLAS (32-bit sizes)"));
  if (g.m == 0 || g.n == 0) return;
  switch (g.dtype) {
    case DType::float32: run<float>(g, a, b, c, cblas_sgemm); return;
    case DType::float64: run<double>(g, a, b, c, cblas_dgemm); return;
    default:
      throw DTypeError(cat("matmul of ", name(g.dtype),
                           " is not supported on CPU devices (host BLAS does float32 and float64); use astype(float32)"));
  }
}

const char* host_blas_name() { return "OpenBLAS"; }

}  // namespace porta::detail
