// matmul through cuBLAS on the calling thread's stream. porta's matrices are row-major and
// cuBLAS's column-major: a row-major X with row stride ld is the column-major X^T with leading
// dimension ld, so C = op(A) op(B) is computed as C^T = op(B)^T op(A)^T, that is, with the
// operands swapped and m and n exchanged. Complex products take cuBLAS's cgemm/zgemm (GemmEx with
// CUDA_C_32F / CUDA_C_64F; TF32 for complex64 and the 3M form only when asked); integers porta's own
// exact kernel (kernels/gemm_exact.cu), since cuBLAS has no general integer GEMM.
#include <algorithm>
#include <limits>

#include "cuda/cuda.hpp"
#include "porta_backend/services.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {
namespace {

struct GemmTypes {
  cudaDataType data;
  cublasComputeType_t compute;
  bool double_scalars;  // alpha and beta are double (else float); complex: pairs of them
};

GemmTypes gemm_types(const detail::MatmulArgs& a, const std::string& where) {
  switch (a.dtype) {
    case DType::float32:
      return {CUDA_R_32F, a.allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, false};
    case DType::float64: return {CUDA_R_64F, CUBLAS_COMPUTE_64F, true};
    case DType::float16: return {CUDA_R_16F, CUBLAS_COMPUTE_32F, false};  // accumulates in float
    case DType::bfloat16: return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, false};
    case DType::complex64:
      return {CUDA_C_32F, a.allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, false};
    case DType::complex128: return {CUDA_C_64F, CUBLAS_COMPUTE_64F, true};
    default:
      throw DTypeError(detail::cat(where, ": matmul of ", name(a.dtype),
                                   " arrays is not supported; cuBLAS multiplies float16, bfloat16, float32, float64, "
                                   "complex64 and complex128, porta's kernel the integers (convert with astype first)"));
  }
}

// The row stride of a row-major rows x cols matrix. With a single row it is never used to step,
// so a caller's 0 is fixed up to what cuBLAS insists on.
std::int64_t leading_dimension(std::int64_t ld, std::int64_t rows, std::int64_t cols, const char* which,
                               const std::string& where) {
  std::int64_t least = std::max<std::int64_t>(cols, 1);
  if (ld >= least) return ld;
  if (rows <= 1) return least;
  throw InvalidArgument(detail::cat(where, ": matmul: ", which, " is ", rows, " x ", cols, " but its row stride is ", ld,
                                    "; it must be at least ", cols));
}

}  // namespace

extern const char* const kGemmExactSource;  // kernels/gemm_exact.cu, embedded at build time

namespace {

// The exact integer product (kernels/gemm_exact.cu): 64 x 64 blocks of C, 256 threads each.
void exact_matmul(Device& dev, detail::QueueImpl& q, const detail::MatmulArgs& a, std::int64_t lda, std::int64_t ldb,
                  std::int64_t ldc) {
  if (a.m > std::numeric_limits<int>::max() || a.n > std::numeric_limits<int>::max() ||
      a.k > std::numeric_limits<int>::max() || a.batch > 65535)
    throw InvalidArgument(detail::cat(dev.label(), ": integer matmul of ", a.batch, " x ", a.m, "x", a.k, " by ", a.k, "x",
                                      a.n, ": porta's kernel takes sizes below 2^31 and at most 65535 batches"));
  const int code = static_cast<int>(a.dtype);
  auto kernel = detail::cached_kernel(dev, detail::cat("cuda-gemm-exact|", code), [&] {
    detail::KernelSource src;
    src.source = kGemmExactSource;
    src.entry = "porta_gemm_exact";
    src.options = {detail::cat("-DELEM_CODE=", code)};
    return src;
  });
  const std::size_t elem = itemsize(a.dtype);
  using I32 = std::int32_t;
  using I64 = std::int64_t;
  const detail::KernelArg args[] = {
      detail::KernelArg::scalar<I32>(static_cast<I32>(a.m)), detail::KernelArg::scalar<I32>(static_cast<I32>(a.n)),
      detail::KernelArg::scalar<I32>(static_cast<I32>(a.k)), detail::KernelArg::scalar<I32>(a.trans_a ? 1 : 0),
      detail::KernelArg::scalar<I32>(a.trans_b ? 1 : 0),
      detail::KernelArg::memory(a.a, static_cast<std::size_t>(a.a_offset) * elem), detail::KernelArg::scalar<I64>(lda),
      detail::KernelArg::scalar<I64>(a.stride_a),
      detail::KernelArg::memory(a.b, static_cast<std::size_t>(a.b_offset) * elem), detail::KernelArg::scalar<I64>(ldb),
      detail::KernelArg::scalar<I64>(a.stride_b),
      detail::KernelArg::memory(a.c, static_cast<std::size_t>(a.c_offset) * elem), detail::KernelArg::scalar<I64>(ldc),
      detail::KernelArg::scalar<I64>(a.stride_c),
  };
  detail::LaunchDims dims;
  dims.global = {static_cast<std::size_t>((a.n + 63) / 64) * 256, static_cast<std::size_t>((a.m + 63) / 64),
                 static_cast<std::size_t>(a.batch)};
  dims.local = {256, 1, 1};
  dev.launch(q, *kernel, dims, args);
}

}  // namespace

void Device::matmul(detail::QueueImpl& q, const detail::MatmulArgs& a) {
  Queue& queue = own(q);
  if (a.batch < 0 || a.m < 0 || a.n < 0 || a.k < 0)
    throw InvalidArgument(detail::cat(label(), ": matmul with negative sizes: batch ", a.batch, ", m ", a.m, ", n ", a.n,
                                      ", k ", a.k));
  const bool exact = is_integral(a.dtype);
  GemmTypes types = exact ? GemmTypes{CUDA_R_32I, CUBLAS_COMPUTE_32I, false} : gemm_types(a, label());
  if (a.batch == 0 || a.m == 0 || a.n == 0) return;
  if (a.batch > 1 && a.stride_c == 0)
    throw InvalidArgument(detail::cat(label(), ": matmul of ", a.batch, " batches into one C (stride_c 0)"));
  const std::size_t elem = itemsize(a.dtype);
  std::int64_t ldc = leading_dimension(a.ldc, a.m, a.n, "C", label());
  ctx_->make_current();

  if (a.k == 0) {  // an empty sum: C = 0, or C as it is
    if (a.subtract) return;
    for (std::int64_t i = 0; i < a.batch; ++i)
      PORTA_CU_AT(label(), cuMemsetD2D8Async(device_ptr(a.c, static_cast<std::size_t>(a.c_offset + i * a.stride_c) * elem),
                                             static_cast<std::size_t>(ldc) * elem, 0,
                                             static_cast<std::size_t>(a.n) * elem, static_cast<std::size_t>(a.m),
                                             queue.native()));
    return;
  }
  std::int64_t lda = leading_dimension(a.lda, a.trans_a ? a.k : a.m, a.trans_a ? a.m : a.k, "A", label());
  std::int64_t ldb = leading_dimension(a.ldb, a.trans_b ? a.n : a.k, a.trans_b ? a.k : a.n, "B", label());

  if (exact) {
    if (a.subtract)
      throw InvalidArgument(detail::cat(label(), ": a subtracting matmul of ", name(a.dtype),
                                        ": floating and complex products only (porta's bug)"));
    exact_matmul(*this, q, a, lda, ldb, ldc);
    return;
  }

  const void* pa = reinterpret_cast<const void*>(device_ptr(a.a, static_cast<std::size_t>(a.a_offset) * elem));
  const void* pb = reinterpret_cast<const void*>(device_ptr(a.b, static_cast<std::size_t>(a.b_offset) * elem));
  void* pc = reinterpret_cast<void*>(device_ptr(a.c, static_cast<std::size_t>(a.c_offset) * elem));
  // op(B)^T: B as stored is column-major n x k (ld ldb) when not transposed, so no transpose.
  cublasOperation_t op_b = a.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t op_a = a.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  // alpha 1 and beta 0 (subtract: -1 and 1) as real or complex numbers (cuComplex, cuDoubleComplex:
  // real part first).
  const double alpha_value = a.subtract ? -1.0 : 1.0, beta_value = a.subtract ? 1.0 : 0.0;
  alignas(16) const float alpha_f[2] = {static_cast<float>(alpha_value), 0.0f};
  alignas(16) const float beta_f[2] = {static_cast<float>(beta_value), 0.0f};
  alignas(16) const double alpha_d[2] = {alpha_value, 0.0};
  alignas(16) const double beta_d[2] = {beta_value, 0.0};
  const void* alpha = types.double_scalars ? static_cast<const void*>(alpha_d) : static_cast<const void*>(alpha_f);
  const void* beta = types.double_scalars ? static_cast<const void*>(beta_d) : static_cast<const void*>(beta_f);

  constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
  bool fits_int = a.m <= kIntMax && a.n <= kIntMax && a.k <= kIntMax && lda <= kIntMax && ldb <= kIntMax &&
                  ldc <= kIntMax && a.batch <= kIntMax;

  std::lock_guard lock(queue.blas_mutex());
  cublasHandle_t handle = queue.blas();
  if (a.allow_3m && is_complex(a.dtype)) {  // the 3M (Gauss) form, asked for by MatmulPrecision::complex_3m
    if (a.dtype == DType::complex64) {
      const auto* al = static_cast<const cuComplex*>(alpha);
      const auto* be = static_cast<const cuComplex*>(beta);
      PORTA_CUBLAS_AT(label(), cublasCgemm3mStridedBatched_64(
                                   handle, op_b, op_a, a.n, a.m, a.k, al, static_cast<const cuComplex*>(pb), ldb,
                                   a.stride_b, static_cast<const cuComplex*>(pa), lda, a.stride_a, be,
                                   static_cast<cuComplex*>(pc), ldc, a.stride_c, a.batch));
    } else {  // zgemm3m has no batched form: one call per product
      const auto* al = static_cast<const cuDoubleComplex*>(alpha);
      const auto* be = static_cast<const cuDoubleComplex*>(beta);
      for (std::int64_t i = 0; i < a.batch; ++i)
        PORTA_CUBLAS_AT(label(), cublasZgemm3m_64(handle, op_b, op_a, a.n, a.m, a.k, al,
                                                  static_cast<const cuDoubleComplex*>(pb) + i * a.stride_b, ldb,
                                                  static_cast<const cuDoubleComplex*>(pa) + i * a.stride_a, lda, be,
                                                  static_cast<cuDoubleComplex*>(pc) + i * a.stride_c, ldc));
    }
  } else if (fits_int && a.batch == 1) {  // the call PyTorch makes for one product; some shapes pick faster kernels
    PORTA_CUBLAS_AT(label(), cublasGemmEx(handle, op_b, op_a, static_cast<int>(a.n), static_cast<int>(a.m),
                                          static_cast<int>(a.k), alpha, pb, types.data, static_cast<int>(ldb), pa,
                                          types.data, static_cast<int>(lda), beta, pc, types.data,
                                          static_cast<int>(ldc), types.compute, CUBLAS_GEMM_DEFAULT));
  } else if (fits_int) {
    PORTA_CUBLAS_AT(label(), cublasGemmStridedBatchedEx(
                                 handle, op_b, op_a, static_cast<int>(a.n), static_cast<int>(a.m), static_cast<int>(a.k),
                                 alpha, pb, types.data, static_cast<int>(ldb), a.stride_b, pa, types.data,
                                 static_cast<int>(lda), a.stride_a, beta, pc, types.data, static_cast<int>(ldc),
                                 a.stride_c, static_cast<int>(a.batch), types.compute, CUBLAS_GEMM_DEFAULT));
  } else {
    PORTA_CUBLAS_AT(label(), cublasGemmStridedBatchedEx_64(handle, op_b, op_a, a.n, a.m, a.k, alpha, pb, types.data, ldb,
                                                           a.stride_b, pa, types.data, lda, a.stride_a, beta, pc,
                                                           types.data, ldc, a.stride_c, a.batch, types.compute,
                                                           CUBLAS_GEMM_DEFAULT));
  }
}

}  // namespace porta::cuda
