// cblas_{s,d,c,z}gemm per batch, row-major, with the transposes and leading dimensions of
// MatmulArgs (cgemm3m/zgemm3m when the 3M form is allowed; alpha -1 and beta 1 where it
// subtracts); integers through loop_gemm.
#include "host/blas.hpp"

#include <cblas.h>

#include <complex>

#include "host/loop_gemm.hpp"

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
         static_cast<blasint>(g.m), static_cast<blasint>(g.n), static_cast<blasint>(g.k), T(g.subtract ? -1 : 1),
         pa + i * g.stride_a, static_cast<blasint>(g.lda), pb + i * g.stride_b, static_cast<blasint>(g.ldb),
         T(g.subtract ? 1 : 0), pc + i * g.stride_c,
         static_cast<blasint>(g.ldc));
  }
}

// The complex gemm's alpha and beta are pointers to complex numbers.
template <class T, class Gemm>
void run_complex(const MatmulArgs& g, const void* a, const void* b, void* c, Gemm gemm) {
  const T* pa = static_cast<const T*>(a) + g.a_offset;
  const T* pb = static_cast<const T*>(b) + g.b_offset;
  T* pc = static_cast<T*>(c) + g.c_offset;
  const T alpha(g.subtract ? -1 : 1), beta(g.subtract ? 1 : 0);
  for (std::int64_t i = 0; i < g.batch; ++i) {
    gemm(CblasRowMajor, g.trans_a ? CblasTrans : CblasNoTrans, g.trans_b ? CblasTrans : CblasNoTrans,
         static_cast<blasint>(g.m), static_cast<blasint>(g.n), static_cast<blasint>(g.k), &alpha, pa + i * g.stride_a,
         static_cast<blasint>(g.lda), pb + i * g.stride_b, static_cast<blasint>(g.ldb), &beta, pc + i * g.stride_c,
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
    case DType::complex64:
      run_complex<std::complex<float>>(g, a, b, c, g.allow_3m ? cblas_cgemm3m : cblas_cgemm);
      return;
    case DType::complex128:
      run_complex<std::complex<double>>(g, a, b, c, g.allow_3m ? cblas_zgemm3m : cblas_zgemm);
      return;
    default:
      if (loop_gemm_of(g, a, b, c)) return;  // integers
      throw DTypeError(cat("matmul of ", name(g.dtype),
                           " is not supported by the host BLAS (float32, float64, complex64, complex128 and the "
                           "integers are); use astype(float32)"));
  }
}

const char* host_blas_name() { return "OpenBLAS"; }

}  // namespace porta::detail
