// Dense solvers through cuSOLVER on the calling thread's stream: its 32-bit routines one matrix of
// the batch at a time (their pivots are int32, as SolverArgs' are); for a batch of more than one
// matrix the batched routines CuPy calls too: cuBLAS's getrfBatched/getrsBatched, cuSOLVER's
// potrfBatched (and potrsBatched for one right-hand side), and syevjBatched (Jacobi) for Hermitian
// matrices up to 32 x 32. The SVD through gesvd, or through Jacobi sweeps (gesvdj, PyTorch's default;
// gesvd where they did not converge) with PORTA_CUDA_SVD=gesvdj; stacks of SVDs up to 32 x 32
// through gesvdjBatched (CuPy's path) unless PORTA_CUDA_SVD=gesvd. The workspace (and the batched routines' arrays of matrix pointers) comes
// from the device's stream-ordered pool and goes back to it after the queued work.
#include <algorithm>
#include <limits>
#include <vector>

#include "cuda/cuda.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {
namespace {

using detail::SolverArgs;
using detail::SolverOp;

// 1 and 0 of an element type (cuBLAS's scalars).
template <class T> T one_of() { return T(1); }
template <class T> T zero_of() { return T(0); }
template <> cuComplex one_of<cuComplex>() { return make_cuComplex(1.f, 0.f); }
template <> cuComplex zero_of<cuComplex>() { return make_cuComplex(0.f, 0.f); }
template <> cuDoubleComplex one_of<cuDoubleComplex>() { return make_cuDoubleComplex(1.0, 0.0); }
template <> cuDoubleComplex zero_of<cuDoubleComplex>() { return make_cuDoubleComplex(0.0, 0.0); }

// cuSOLVER's routines of one element type, named as LAPACK's; R is its real type.
template <class T> struct Cusolver;

#define PORTA_CUSOLVER_TYPE(T, R, p, orgqr, syevd, syevj)                                                               \
  template <> struct Cusolver<T> {                                                                                    \
    using Real = R;                                                                                                   \
    static cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, T* a, int lda, int* lw) {                  \
      return cusolverDn##p##getrf_bufferSize(h, m, n, a, lda, lw);                                                    \
    }                                                                                                                 \
    static cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, T* a, int lda, T* w, int* ipiv, int* info) {    \
      return cusolverDn##p##getrf(h, m, n, a, lda, w, ipiv, info);                                                    \
    }                                                                                                                 \
    static cusolverStatus_t getrs(cusolverDnHandle_t h, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b,  \
                                  int ldb, int* info) {                                                               \
      return cusolverDn##p##getrs(h, CUBLAS_OP_N, n, nrhs, a, lda, ipiv, b, ldb, info);                               \
    }                                                                                                                 \
    static cusolverStatus_t potrf_size(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, int lda, int* lw) {     \
      return cusolverDn##p##potrf_bufferSize(h, u, n, a, lda, lw);                                                    \
    }                                                                                                                 \
    static cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, int lda, T* w, int lw,       \
                                  int* info) {                                                                        \
      return cusolverDn##p##potrf(h, u, n, a, lda, w, lw, info);                                                      \
    }                                                                                                                 \
    static cusolverStatus_t potrs(cusolverDnHandle_t h, cublasFillMode_t u, int n, int nrhs, const T* a, int lda,     \
                                  T* b, int ldb, int* info) {                                                         \
      return cusolverDn##p##potrs(h, u, n, nrhs, a, lda, b, ldb, info);                                               \
    }                                                                                                                 \
    static cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, T* a, int lda, int* lw) {                  \
      return cusolverDn##p##geqrf_bufferSize(h, m, n, a, lda, lw);                                                    \
    }                                                                                                                 \
    static cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, T* a, int lda, T* tau, T* w, int lw,            \
                                  int* info) {                                                                        \
      return cusolverDn##p##geqrf(h, m, n, a, lda, tau, w, lw, info);                                                 \
    }                                                                                                                 \
    static cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int n, int k, const T* a, int lda, const T* tau,  \
                                       int* lw) {                                                                     \
      return cusolverDn##p##orgqr##_bufferSize(h, m, n, k, a, lda, tau, lw);                                          \
    }                                                                                                                 \
    static cusolverStatus_t orgqr_run(cusolverDnHandle_t h, int m, int n, int k, T* a, int lda, const T* tau, T* w,   \
                                      int lw, int* info) {                                                            \
      return cusolverDn##p##orgqr(h, m, n, k, a, lda, tau, w, lw, info);                                              \
    }                                                                                                                 \
    static cusolverStatus_t syevd_size(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n,          \
                                       const T* a, int lda, const R* w, int* lw) {                                    \
      return cusolverDn##p##syevd##_bufferSize(h, j, u, n, a, lda, w, lw);                                            \
    }                                                                                                                 \
    static cusolverStatus_t syevd_run(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, T* a,     \
                                      int lda, R* w, T* work, int lw, int* info) {                                    \
      return cusolverDn##p##syevd(h, j, u, n, a, lda, w, work, lw, info);                                             \
    }                                                                                                                 \
    static cusolverStatus_t syevj_size(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n,          \
                                       const T* a, int lda, const R* w, int* lw, syevjInfo_t params, int batch) {     \
      return cusolverDn##p##syevj##_bufferSize(h, j, u, n, a, lda, w, lw, params, batch);                             \
    }                                                                                                                 \
    static cusolverStatus_t syevj_run(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, T* a,     \
                                      int lda, R* w, T* work, int lw, int* info, syevjInfo_t params, int batch) {     \
      return cusolverDn##p##syevj(h, j, u, n, a, lda, w, work, lw, info, params, batch);                              \
    }                                                                                                                 \
    static cublasStatus_t getrf_batched(cublasHandle_t h, int n, T* const a[], int lda, int* ipiv, int* info,        \
                                        int batch) {                                                                  \
      return cublas##p##getrfBatched(h, n, a, lda, ipiv, info, batch);                                                \
    }                                                                                                                 \
    static cublasStatus_t getrs_batched(cublasHandle_t h, int n, int nrhs, const T* const a[], int lda,               \
                                        const int* ipiv, T* const b[], int ldb, int* host_info, int batch) {          \
      return cublas##p##getrsBatched(h, CUBLAS_OP_N, n, nrhs, a, lda, ipiv, b, ldb, host_info, batch);                \
    }                                                                                                                 \
    static cusolverStatus_t potrf_batched(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a[], int lda,           \
                                          int* info, int batch) {                                                     \
      return cusolverDn##p##potrfBatched(h, u, n, a, lda, info, batch);                                               \
    }                                                                                                                 \
    static cusolverStatus_t potrs_batched(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a[], int lda, T* b[],   \
                                          int ldb, int* info, int batch) {                                            \
      return cusolverDn##p##potrsBatched(h, u, n, 1, a, lda, b, ldb, info, batch);                                    \
    }                                                                                                                 \
    static cusolverStatus_t gesvd_size(cusolverDnHandle_t h, int m, int n, int* lw) {                                 \
      return cusolverDn##p##gesvd_bufferSize(h, m, n, lw);                                                            \
    }                                                                                                                 \
    static cusolverStatus_t gesvd(cusolverDnHandle_t h, signed char ju, signed char jv, int m, int n, T* a, int lda,  \
                                  R* s, T* u, int ldu, T* vt, int ldvt, T* w, int lw, int* info) {                    \
      return cusolverDn##p##gesvd(h, ju, jv, m, n, a, lda, s, u, ldu, vt, ldvt, w, lw, nullptr, info);                \
    }                                                                                                                 \
    static cusolverStatus_t gesvdj_size(cusolverDnHandle_t h, cusolverEigMode_t j, int econ, int m, int n,           \
                                        const T* a, int lda, const R* s, const T* u, int ldu, const T* v, int ldv,    \
                                        int* lw, gesvdjInfo_t params) {                                               \
      return cusolverDn##p##gesvdj_bufferSize(h, j, econ, m, n, a, lda, s, u, ldu, v, ldv, lw, params);               \
    }                                                                                                                 \
    static cusolverStatus_t gesvdj(cusolverDnHandle_t h, cusolverEigMode_t j, int econ, int m, int n, T* a, int lda, \
                                   R* s, T* u, int ldu, T* v, int ldv, T* w, int lw, int* info, gesvdjInfo_t params) { \
      return cusolverDn##p##gesvdj(h, j, econ, m, n, a, lda, s, u, ldu, v, ldv, w, lw, info, params);                 \
    }                                                                                                                 \
    static cusolverStatus_t gesvdj_batched_size(cusolverDnHandle_t h, cusolverEigMode_t j, int m, int n, const T* a,  \
                                                int lda, const R* s, const T* u, int ldu, const T* v, int ldv, int* lw,  \
                                                gesvdjInfo_t params, int batch) {                                        \
      return cusolverDn##p##gesvdjBatched_bufferSize(h, j, m, n, a, lda, s, u, ldu, v, ldv, lw, params, batch);       \
    }                                                                                                                 \
    static cusolverStatus_t gesvdj_batched(cusolverDnHandle_t h, cusolverEigMode_t j, int m, int n, T* a, int lda,   \
                                           R* s, T* u, int ldu, T* v, int ldv, T* w, int lw, int* info,              \
                                           gesvdjInfo_t params, int batch) {                                          \
      return cusolverDn##p##gesvdjBatched(h, j, m, n, a, lda, s, u, ldu, v, ldv, w, lw, info, params, batch);         \
    }                                                                                                                 \
    /* c_i := a_i^H eye for the batch's n x n matrices: every V into V^H in one launch (products by 1 and 0 only,  \
       exact; the handle's default math mode, no TF32) */                                                             \
    static cublasStatus_t adjoint_batched(cublasHandle_t h, int n, const T* a, const T* eye, T* c, int batch) {      \
      const T one = one_of<T>(), zero = zero_of<T>();                                                                 \
      const long long nn = static_cast<long long>(n) * n;                                                             \
      return cublas##p##gemmStridedBatched(h, CUBLAS_OP_C, CUBLAS_OP_N, n, n, n, &one, a, n, nn, eye, n, 0, &zero, c, \
                                           n, nn, batch);                                                             \
    }                                                                                                                 \
    /* c := a^H (n x n, column-major): the Jacobi SVD's V into LAPACK's V^H */                                         \
    static cublasStatus_t adjoint(cublasHandle_t h, int n, const T* a, T* c) {                                        \
      const T one = one_of<T>(), zero = zero_of<T>();                                                                 \
      return cublas##p##geam(h, CUBLAS_OP_C, CUBLAS_OP_N, n, n, &one, a, n, &zero, c, n, c, n);                       \
    }                                                                                                                 \
  };
PORTA_CUSOLVER_TYPE(float, float, S, orgqr, syevd, syevjBatched)
PORTA_CUSOLVER_TYPE(double, double, D, orgqr, syevd, syevjBatched)
PORTA_CUSOLVER_TYPE(cuComplex, float, C, ungqr, heevd, heevjBatched)
PORTA_CUSOLVER_TYPE(cuDoubleComplex, double, Z, ungqr, heevd, heevjBatched)
#undef PORTA_CUSOLVER_TYPE

// syevjBatched's limit on the order (cuSOLVER's documentation: n <= 32).
constexpr std::int64_t kJacobiBatchedMaxOrder = 32;

// Device memory from the pool for the queued work, given back (stream-ordered) at scope exit.
class Scratch {
 public:
  Scratch(Device& dev, detail::QueueImpl& q, std::size_t bytes) : dev_(dev), q_(q), bytes_(bytes) {
    if (bytes_) handle_ = dev_.allocate(bytes_, q_);
  }
  ~Scratch() {
    if (handle_) dev_.deallocate(handle_, bytes_, &q_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <class P> P* ptr(std::size_t offset_bytes = 0) const {
    return reinterpret_cast<P*>(device_ptr(handle_, offset_bytes));
  }

 private:
  Device& dev_;
  detail::QueueImpl& q_;
  std::size_t bytes_;
  detail::Handle handle_ = nullptr;
};

template <class T> class Runner {
 public:
  using C = Cusolver<T>;
  using R = typename C::Real;
  Runner(Device& dev, detail::QueueImpl& q, cusolverDnHandle_t h, cublasHandle_t blas, const SolverArgs& g, CUstream stream,
         bool capturing)
      : dev_(dev), q_(q), h_(h), blas_(blas), g_(g), stream_(stream), capturing_(capturing) {}

  void run() {
    if (g_.batch > 1 && run_batched()) return;
    if (g_.op == SolverOp::gesvd && jacobi_batched_svd()) return svd_batched();
    const std::int64_t m = g_.m, n = g_.n, mn = std::min(m, n);
    const int im = to_int(m), in = to_int(n), lda = std::max(1, im), ldb = std::max(1, in);
    const cublasFillMode_t uplo = g_.lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    const cusolverEigMode_t jobz = g_.vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    const int k = to_int(g_.k);
    to_int(g_.nrhs);
    to_int(g_.batch);
    T* a0 = at<T>(g_.a, g_.a_offset);
    const std::string& where = dev_.label();
    // Workspace elements (T) from the routine's query, then room for getrs/potrs' info.
    int lwork = 0;
    switch (g_.op) {
      case SolverOp::getrf: PORTA_CUSOLVER_AT(where, C::getrf_size(h_, im, in, a0, lda, &lwork)); break;
      case SolverOp::potrf: PORTA_CUSOLVER_AT(where, C::potrf_size(h_, uplo, in, a0, lda, &lwork)); break;
      case SolverOp::geqrf: PORTA_CUSOLVER_AT(where, C::geqrf_size(h_, im, in, a0, lda, &lwork)); break;
      case SolverOp::orgqr:
        PORTA_CUSOLVER_AT(where, C::orgqr_size(h_, im, in, k, a0, lda, at<T>(g_.tau, g_.tau_offset), &lwork));
        break;
      case SolverOp::syevd:
        if (jacobi_batched())
          PORTA_CUSOLVER_AT(where, C::syevj_size(h_, jobz, uplo, in, a0, lda, at<R>(g_.w, g_.w_offset), &lwork,
                                                 params(), static_cast<int>(g_.batch)));
        else
          PORTA_CUSOLVER_AT(where, C::syevd_size(h_, jobz, uplo, in, a0, lda, at<R>(g_.w, g_.w_offset), &lwork));
        break;
      case SolverOp::gesvd:
        if (m < n)
          throw InvalidArgument(detail::cat(where, ": gesvd of ", m, " x ", n, ": cuSOLVER needs m >= n (the core "
                                            "passes the conjugate transpose of a wide matrix)"));
        PORTA_CUSOLVER_AT(where, C::gesvd_size(h_, im, in, &lwork));
        break;
      default: break;
    }
    // The Jacobi SVD (gesvdj): V into `jac`'s first n x n elements, then its adjoint into vt; without
    // vectors a U of its own after it (gesvdj writes V, and may write U, under NOVECTOR too: on an
    // H100 on 2026-12-07, svdvals of float64 with null U and V faulted in cuSOLVER's batch_eye_kernel,
    // writing near address 0); the whole stack's copy after them, for gesvd's retry of the matrices
    // whose sweeps did not converge (gesvdj overwrites A).
    const bool jacobi = g_.op == SolverOp::gesvd && jacobi_svd();
    const std::int64_t ucols = g_.full_matrices ? m : mn;
    const std::size_t v_bytes = jacobi ? round256(static_cast<std::size_t>(n * n) * sizeof(T)) : 0;
    const std::size_t u_bytes = jacobi && !g_.vectors ? round256(static_cast<std::size_t>(m * ucols) * sizeof(T)) : 0;
    const std::size_t stack_bytes = static_cast<std::size_t>(g_.batch * m * n) * sizeof(T);
    Scratch jac(dev_, q_, jacobi ? v_bytes + u_bytes + stack_bytes : 0);
    T* v = jacobi ? jac.ptr<T>() : nullptr;
    T* u_spare = u_bytes ? jac.ptr<T>(v_bytes) : nullptr;
    T* keep = jacobi ? jac.ptr<T>(v_bytes + u_bytes) : nullptr;
    const int econ = g_.full_matrices ? 0 : 1;
    if (jacobi) {
      int jwork = 0;
      T* u0 = g_.vectors ? at<T>(g_.u, g_.u_offset) : u_spare;
      PORTA_CUSOLVER_AT(where, C::gesvdj_size(h_, jobz, econ, im, in, a0, lda, at<R>(g_.w, g_.w_offset), u0, lda, v, ldb,
                                              &jwork, svd_params()));
      lwork = std::max(lwork, jwork);
      PORTA_CU_AT(where, cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(keep), reinterpret_cast<CUdeviceptr>(a0),
                                           stack_bytes, stream_));
    }
    const std::size_t work_bytes = (static_cast<std::size_t>(std::max(lwork, 1)) * sizeof(T) + 255) / 256 * 256;
    Scratch scratch(dev_, q_, work_bytes + 256);
    T* work = scratch.ptr<T>();
    int* spare_info = scratch.ptr<int>(work_bytes);  // getrs/potrs report only bad arguments
    auto info_of = [&](std::int64_t i) { return g_.info ? at<int>(g_.info, g_.info_offset + i) : spare_info; };

    if (g_.op == SolverOp::syevd && jacobi_batched()) {
      PORTA_CUSOLVER_AT(where, C::syevj_run(h_, jobz, uplo, in, a0, lda, at<R>(g_.w, g_.w_offset), work, lwork,
                                            info_of(0), params(), static_cast<int>(g_.batch)));
      return;
    }
    // After the Jacobi sweeps, the matrices to retry with gesvd: info > 0 (one read of every info).
    if (jacobi && g_.info) {
      std::vector<int> infos(static_cast<std::size_t>(g_.batch));
      for (std::int64_t i = 0; i < g_.batch; ++i) factor(i, false, a0, work, lwork, info_of(i), v, u_spare, keep, econ, ucols);
      dev_.read(q_, g_.info, static_cast<std::size_t>(g_.info_offset) * sizeof(int), infos.data(), infos.size() * sizeof(int));
      for (std::int64_t i = 0; i < g_.batch; ++i)
        if (infos[static_cast<std::size_t>(i)] > 0) factor(i, true, a0, work, lwork, info_of(i), v, u_spare, keep, econ, ucols);
      return;
    }
    for (std::int64_t i = 0; i < g_.batch; ++i) factor(i, false, a0, work, lwork, info_of(i), v, u_spare, keep, econ, ucols);
  }

  // Matrix i's op (retry: gesvd after gesvdj did not converge; u_spare: gesvdj's U without vectors).
  void factor(std::int64_t i, bool retry, T* a0, T* work, int lwork, int* info, T* v, T* u_spare, T* keep, int econ,
              std::int64_t ucols) {
    const std::int64_t m = g_.m, n = g_.n, mn = std::min(m, n);
    const int im = to_int(m), in = to_int(n), lda = std::max(1, im), ldb = std::max(1, in);
    const cublasFillMode_t uplo = g_.lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    const cusolverEigMode_t jobz = g_.vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    const int nrhs = to_int(g_.nrhs), k = to_int(g_.k);
    const bool jacobi = keep != nullptr;
    const std::string& where = dev_.label();
    T* a = a0 + i * m * n;
    switch (g_.op) {
      case SolverOp::getrf:
        PORTA_CUSOLVER_AT(where, C::getrf(h_, im, in, a, lda, work, at<int>(g_.ipiv, g_.ipiv_offset + i * mn), info));
        break;
      case SolverOp::getrs:
        PORTA_CUSOLVER_AT(where, C::getrs(h_, in, nrhs, a, lda, at<int>(g_.ipiv, g_.ipiv_offset + i * n),
                                          at<T>(g_.b, g_.b_offset + i * n * g_.nrhs), ldb, info));
        break;
      case SolverOp::potrf: PORTA_CUSOLVER_AT(where, C::potrf(h_, uplo, in, a, lda, work, lwork, info)); break;
      case SolverOp::potrs:
        PORTA_CUSOLVER_AT(where,
                          C::potrs(h_, uplo, in, nrhs, a, lda, at<T>(g_.b, g_.b_offset + i * n * g_.nrhs), ldb, info));
        break;
      case SolverOp::geqrf:
        PORTA_CUSOLVER_AT(where, C::geqrf(h_, im, in, a, lda, at<T>(g_.tau, g_.tau_offset + i * mn), work, lwork, info));
        break;
      case SolverOp::orgqr:
        PORTA_CUSOLVER_AT(where,
                          C::orgqr_run(h_, im, in, k, a, lda, at<T>(g_.tau, g_.tau_offset + i * g_.k), work, lwork, info));
        break;
      case SolverOp::syevd:
        PORTA_CUSOLVER_AT(where, C::syevd_run(h_, jobz, uplo, in, a, lda, at<R>(g_.w, g_.w_offset + i * n), work, lwork,
                                              info));
        break;
      case SolverOp::gesvd: {
        const signed char ju = !g_.vectors ? 'N' : g_.full_matrices ? 'A' : 'S';
        const signed char jv = g_.vectors ? 'A' : 'N';  // m >= n: V^H is n x n either way
        T* u = g_.vectors ? at<T>(g_.u, g_.u_offset + i * m * ucols) : nullptr;
        T* vt = g_.vectors ? at<T>(g_.vt, g_.vt_offset + i * n * n) : nullptr;
        R* s = at<R>(g_.w, g_.w_offset + i * mn);
        if (jacobi && !retry) {
          PORTA_CUSOLVER_AT(where, C::gesvdj(h_, jobz, econ, im, in, a, lda, s, g_.vectors ? u : u_spare, lda, v, ldb, work,
                                             lwork, info, svd_params()));
          if (g_.vectors) PORTA_CUBLAS_AT(where, C::adjoint(blas_, in, v, vt));
          break;
        }
        if (retry)  // gesvdj's sweeps did not converge: LAPACK's gesvd from A again (PyTorch's rule)
          PORTA_CU_AT(where, cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(a), reinterpret_cast<CUdeviceptr>(keep + i * m * n),
                                               static_cast<std::size_t>(m * n) * sizeof(T), stream_));
        PORTA_CUSOLVER_AT(where, C::gesvd(h_, ju, jv, im, in, a, lda, s, u, lda, vt, ldb, work, lwork, info));
        break;
      }
      default: throw InvalidArgument(detail::cat(where, ": unknown solver op ", static_cast<int>(g_.op)));
    }
  }

  ~Runner() {
    if (params_) cusolverDnDestroySyevjInfo(params_);
    if (svd_params_) cusolverDnDestroyGesvdjInfo(svd_params_);
  }

 private:
  // The batched routines where one takes the op: true when it ran.
  bool run_batched() {
    const SolverOp op = g_.op;
    const bool one_rhs = op == SolverOp::potrs && g_.nrhs == 1;
    if (!(op == SolverOp::getrf && g_.m == g_.n) && op != SolverOp::getrs && op != SolverOp::potrf && !one_rhs)
      return false;
    const std::int64_t n = g_.n, nrhs = g_.nrhs;
    const int in = to_int(n), ld = std::max(1, in), batch = to_int(g_.batch);
    const std::string& where = dev_.label();
    const bool with_b = op == SolverOp::getrs || op == SolverOp::potrs;
    // The arrays of matrix pointers, written from the host (write() returns once the source may go).
    std::vector<T*> pointers(static_cast<std::size_t>(g_.batch) * (with_b ? 2 : 1));
    for (std::int64_t i = 0; i < g_.batch; ++i) {
      pointers[static_cast<std::size_t>(i)] = at<T>(g_.a, g_.a_offset + i * n * n);
      if (with_b) pointers[static_cast<std::size_t>(g_.batch + i)] = at<T>(g_.b, g_.b_offset + i * n * nrhs);
    }
    const std::size_t bytes = pointers.size() * sizeof(T*);
    Scratch scratch(dev_, q_, bytes + 256);
    dev_.write(q_, reinterpret_cast<detail::Handle>(scratch.ptr<char>()), 0, pointers.data(), bytes);
    T** a_array = scratch.ptr<T*>();
    T** b_array = a_array + g_.batch;
    int* info = g_.info ? at<int>(g_.info, g_.info_offset) : scratch.ptr<int>((bytes + 255) / 256 * 256);
    const cublasFillMode_t uplo = g_.lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    switch (op) {
      case SolverOp::getrf:
        PORTA_CUBLAS_AT(where, C::getrf_batched(blas_, in, a_array, ld, at<int>(g_.ipiv, g_.ipiv_offset), info, batch));
        break;
      case SolverOp::getrs: {
        int host_info = 0;  // getrsBatched checks its arguments on the host
        PORTA_CUBLAS_AT(where, C::getrs_batched(blas_, in, to_int(nrhs), a_array, ld, at<int>(g_.ipiv, g_.ipiv_offset),
                                                b_array, ld, &host_info, batch));
        if (host_info != 0)
          throw InvalidArgument(detail::cat(where, ": cublasgetrsBatched rejected argument ", -host_info, " (n ", n,
                                            ", nrhs ", nrhs, ", batch ", g_.batch, ")"));
        break;
      }
      case SolverOp::potrf: PORTA_CUSOLVER_AT(where, C::potrf_batched(h_, uplo, in, a_array, ld, info, batch)); break;
      default:  // potrs of one right-hand side; its info is one int for the whole batch
        PORTA_CUSOLVER_AT(where, C::potrs_batched(h_, uplo, in, a_array, ld, b_array, ld, info, batch));
        break;
    }
    return true;
  }

  bool jacobi_batched() const { return g_.batch > 1 && g_.n <= kJacobiBatchedMaxOrder; }
  // A stack of SVDs up to 32 x 32 through gesvdjBatched (CuPy's path for them), unless
  // PORTA_CUDA_SVD=gesvd.
  bool jacobi_batched_svd() const {
    return g_.batch > 1 && g_.m <= kJacobiBatchedMaxOrder && g_.n <= kJacobiBatchedMaxOrder &&
           setting_choice("PORTA_CUDA_SVD") != "gesvd";
  }
  // gesvdjBatched over the stack: U (m x m a matrix) straight into u where that is its shape, else
  // into scratch and its first n columns copied out; V into scratch and V^H into vt by one batched
  // product with the identity. A matrix whose sweeps did not converge (info > 0) is factored again
  // by gesvd from a copy of the stack (PyTorch's rule), except while a graph is recorded.
  void svd_batched() {
    const std::int64_t m = g_.m, n = g_.n, batch = g_.batch, mn = std::min(m, n);
    if (m < n)
      throw InvalidArgument(detail::cat(dev_.label(), ": gesvd of ", m, " x ", n, ": cuSOLVER needs m >= n (the core "
                                        "passes the conjugate transpose of a wide matrix)"));
    const int im = to_int(m), in = to_int(n), ib = to_int(batch);
    const std::string& where = dev_.label();
    const cusolverEigMode_t jobz = g_.vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
    const std::int64_t ucols = g_.full_matrices ? m : mn;
    const bool u_direct = g_.vectors && ucols == m, retry = !capturing_ && g_.info;
    const auto bytes = [&](std::int64_t elements) { return round256(static_cast<std::size_t>(elements) * sizeof(T)); };
    const std::size_t u_bytes = u_direct ? 0 : bytes(batch * m * m), v_bytes = bytes(batch * n * n), eye_bytes = bytes(n * n);
    const std::size_t keep_bytes = retry ? bytes(batch * m * n) : 0;
    Scratch buf(dev_, q_, u_bytes + v_bytes + eye_bytes + keep_bytes + round256(static_cast<std::size_t>(batch) * sizeof(int)));
    T* a0 = at<T>(g_.a, g_.a_offset);
    R* s = at<R>(g_.w, g_.w_offset);
    T* u = u_direct ? at<T>(g_.u, g_.u_offset) : buf.ptr<T>();
    T* v = buf.ptr<T>(u_bytes);
    T* eye = buf.ptr<T>(u_bytes + v_bytes);
    T* keep = retry ? buf.ptr<T>(u_bytes + v_bytes + eye_bytes) : nullptr;
    int* info = g_.info ? at<int>(g_.info, g_.info_offset) : buf.ptr<int>(u_bytes + v_bytes + eye_bytes + keep_bytes);
    int lwork = 0, glwork = 0;
    PORTA_CUSOLVER_AT(where, C::gesvdj_batched_size(h_, jobz, im, in, a0, im, s, u, im, v, in, &lwork, svd_params(), ib));
    if (retry) PORTA_CUSOLVER_AT(where, C::gesvd_size(h_, im, in, &glwork));
    Scratch scratch(dev_, q_, round256(static_cast<std::size_t>(std::max({lwork, glwork, 1})) * sizeof(T)));
    T* work = scratch.ptr<T>();
    if (retry)
      PORTA_CU_AT(where, cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(keep), reinterpret_cast<CUdeviceptr>(a0),
                                           static_cast<std::size_t>(batch * m * n) * sizeof(T), stream_));
    PORTA_CUSOLVER_AT(where, C::gesvdj_batched(h_, jobz, im, in, a0, im, s, u, im, v, in, work, lwork, info, svd_params(), ib));
    if (g_.vectors) {
      if (!u_direct) {  // the reduced U: each full U's first n columns, contiguous in column-major order
        CUDA_MEMCPY2D c{};
        c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        c.srcDevice = reinterpret_cast<CUdeviceptr>(u);
        c.srcPitch = static_cast<std::size_t>(m * m) * sizeof(T);
        c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        c.dstDevice = reinterpret_cast<CUdeviceptr>(at<T>(g_.u, g_.u_offset));
        c.dstPitch = static_cast<std::size_t>(m * ucols) * sizeof(T);
        c.WidthInBytes = c.dstPitch;
        c.Height = static_cast<std::size_t>(batch);
        PORTA_CU_AT(where, cuMemcpy2DAsync(&c, stream_));
      }
      std::vector<T> host_eye(static_cast<std::size_t>(n * n), zero_of<T>());
      for (std::int64_t d = 0; d < n; ++d) host_eye[static_cast<std::size_t>(d * n + d)] = one_of<T>();
      dev_.write(q_, reinterpret_cast<detail::Handle>(eye), 0, host_eye.data(), host_eye.size() * sizeof(T));
      PORTA_CUBLAS_AT(where, C::adjoint_batched(blas_, in, v, eye, at<T>(g_.vt, g_.vt_offset), ib));
    }
    if (!retry) return;
    std::vector<int> infos(static_cast<std::size_t>(batch));
    dev_.read(q_, g_.info, static_cast<std::size_t>(g_.info_offset) * sizeof(int), infos.data(), infos.size() * sizeof(int));
    for (std::int64_t i = 0; i < batch; ++i)
      if (infos[static_cast<std::size_t>(i)] > 0)
        factor(i, true, a0, work, glwork, info + i, nullptr, nullptr, keep, g_.full_matrices ? 0 : 1, ucols);
  }
  // The SVD through Jacobi sweeps (gesvdj, PyTorch's default driver) with PORTA_CUDA_SVD=gesvdj, not
  // while a graph is being recorded (the retry reads info on the host).
  bool jacobi_svd() const { return !capturing_ && setting_choice("PORTA_CUDA_SVD") == "gesvdj"; }
  gesvdjInfo_t svd_params() {
    if (!svd_params_) PORTA_CUSOLVER_AT(dev_.label(), cusolverDnCreateGesvdjInfo(&svd_params_));
    return svd_params_;
  }
  // Whether matrix i's gesvdj converged: its info read on the host (a wait for the stream).
  bool jacobi_converged(std::int64_t i) {
    int host = 0;
    dev_.read(q_, g_.info, static_cast<std::size_t>(g_.info_offset + i) * sizeof(int), &host, sizeof(int));
    return host <= 0;
  }
  static std::size_t round256(std::size_t b) { return (b + 255) / 256 * 256; }
  syevjInfo_t params() {
    if (!params_) PORTA_CUSOLVER_AT(dev_.label(), cusolverDnCreateSyevjInfo(&params_));
    return params_;
  }
  template <class P> P* at(detail::Handle h, std::int64_t offset) const {
    return reinterpret_cast<P*>(device_ptr(h, static_cast<std::size_t>(offset) * sizeof(P)));
  }
  int to_int(std::int64_t v) const {
    if (v > std::numeric_limits<int>::max())
      throw InvalidArgument(detail::cat(dev_.label(), ": ", to_string(g_.op), " of ", g_.batch, " x ", g_.m, " x ", g_.n,
                                        " (nrhs ", g_.nrhs, "): cuSOLVER's routines take sizes below 2^31"));
    return static_cast<int>(v);
  }
  Device& dev_;
  detail::QueueImpl& q_;
  cusolverDnHandle_t h_;
  cublasHandle_t blas_;
  const SolverArgs& g_;
  CUstream stream_;
  bool capturing_;
  syevjInfo_t params_ = nullptr;
  gesvdjInfo_t svd_params_ = nullptr;
};

}  // namespace

void Device::solver(detail::QueueImpl& q, const SolverArgs& g) {
  Queue& queue = own(q);
  if (g.batch < 0 || g.m < 0 || g.n < 0 || g.nrhs < 0 || g.k < 0)
    throw InvalidArgument(detail::cat(label(), ": ", to_string(g.op), " with a negative size (batch ", g.batch, ", m ",
                                      g.m, ", n ", g.n, ", nrhs ", g.nrhs, ", k ", g.k, ")"));
  ctx_->make_current();
  std::lock_guard lock(queue.blas_mutex());
  cusolverDnHandle_t handle = queue.solver();
  cublasHandle_t blas = queue.blas();
  if (g.batch == 0) return;
  if (g.m == 0 || g.n == 0 || ((g.op == SolverOp::getrs || g.op == SolverOp::potrs) && g.nrhs == 0)) {
    // Nothing to factor: every info is 0 (cuSOLVER rejects leading dimensions of empty matrices).
    if (g.info)
      PORTA_CU_AT(label(), cuMemsetD32Async(device_ptr(g.info, static_cast<std::size_t>(g.info_offset) * 4), 0,
                                            static_cast<std::size_t>(g.batch), queue.native()));
    return;
  }
  switch (g.dtype) {
    case DType::float32: Runner<float>(*this, q, handle, blas, g, queue.native(), queue.capturing()).run(); return;
    case DType::float64: Runner<double>(*this, q, handle, blas, g, queue.native(), queue.capturing()).run(); return;
    case DType::complex64: Runner<cuComplex>(*this, q, handle, blas, g, queue.native(), queue.capturing()).run(); return;
    case DType::complex128: Runner<cuDoubleComplex>(*this, q, handle, blas, g, queue.native(), queue.capturing()).run(); return;
    default:
      throw DTypeError(detail::cat(label(), ": ", to_string(g.op), " of ", name(g.dtype),
                                   ": cuSOLVER takes float32, float64, complex64 and complex128; use astype(float64)"));
  }
}

}  // namespace porta::cuda
