// LAPACKE's column-major _work routines, one matrix of the batch at a time, with one workspace
// sized by LAPACK's own query (C-order getrf, getrs and potrf through the transpose:
// host/solver.hpp); getrf, getrs, potrf, geqrf and orgqr up to 32 x 32 through
// host/small_solvers.hpp's loops, no LAPACK call. The _work forms skip LAPACKE's NaN scan of the
// inputs, which would turn a NaN into a bad-argument error where NumPy returns NaNs. gesvd runs as
// gesdd (divide and conquer, what NumPy calls): the same results, several times faster with vectors.
#include "host/solver.hpp"

#include <algorithm>
#include <complex>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

// LAPACKE's complex types as std::complex (lapack.h's documented way; its default is C99's _Complex).
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>
// openblas_set_num_threads and openblas_get_num_threads (OpenBLAS's cblas.h).
#include <cblas.h>

#include "host/small_solvers.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {
namespace {

constexpr int kCol = LAPACK_COL_MAJOR;

// The LAPACKE routines of one dtype; R is its real type.
template <class T> struct Lapack;

#define PORTA_LAPACK_COMMON(T, R, p, orgqr_name)                                                                     \
  static lapack_int getrf(lapack_int m, lapack_int n, T* a, lapack_int lda, lapack_int* ipiv) {                      \
    return LAPACKE_##p##getrf_work(kCol, m, n, a, lda, ipiv);                                                        \
  }                                                                                                                  \
  static lapack_int getrs(char trans, lapack_int n, lapack_int nrhs, const T* a, lapack_int lda,                    \
                          const lapack_int* ipiv, T* b, lapack_int ldb) {                                            \
    return LAPACKE_##p##getrs_work(kCol, trans, n, nrhs, a, lda, ipiv, b, ldb);                                      \
  }                                                                                                                  \
  static lapack_int potrf(char uplo, lapack_int n, T* a, lapack_int lda) {                                           \
    return LAPACKE_##p##potrf_work(kCol, uplo, n, a, lda);                                                           \
  }                                                                                                                  \
  static lapack_int potrs(char uplo, lapack_int n, lapack_int nrhs, const T* a, lapack_int lda, T* b,               \
                          lapack_int ldb) {                                                                          \
    return LAPACKE_##p##potrs_work(kCol, uplo, n, nrhs, a, lda, b, ldb);                                             \
  }                                                                                                                  \
  static lapack_int geqrf(lapack_int m, lapack_int n, T* a, lapack_int lda, T* tau, T* work, lapack_int lwork) {    \
    return LAPACKE_##p##geqrf_work(kCol, m, n, a, lda, tau, work, lwork);                                            \
  }                                                                                                                  \
  static lapack_int orgqr(lapack_int m, lapack_int n, lapack_int k, T* a, lapack_int lda, const T* tau, T* work,    \
                          lapack_int lwork) {                                                                        \
    return LAPACKE_##p##orgqr_name##_work(kCol, m, n, k, a, lda, tau, work, lwork);                                  \
  }

// The real dtypes' tridiagonal and bidiagonal solvers (the eigh and SVD paths of porta's kernels).
#define PORTA_LAPACK_REAL(R, p)                                                                                      \
  static lapack_int stedc(char compz, lapack_int n, R* d, R* e, R* z, lapack_int ldz, R* work, lapack_int lwork,    \
                          lapack_int* iwork, lapack_int liwork) {                                                    \
    return LAPACKE_##p##stedc_work(kCol, compz, n, d, e, z, ldz, work, lwork, iwork, liwork);                        \
  }                                                                                                                  \
  static lapack_int sterf(lapack_int n, R* d, R* e) { return LAPACKE_##p##sterf_work(n, d, e); }                    \
  static lapack_int bdsdc(char compq, lapack_int n, R* d, R* e, R* u, lapack_int ldu, R* vt, lapack_int ldvt,       \
                          R* work, lapack_int* iwork) {                                                              \
    return LAPACKE_##p##bdsdc_work(kCol, 'U', compq, n, d, e, u, ldu, vt, ldvt, nullptr, nullptr, work, iwork);      \
  }

template <> struct Lapack<float> {
  PORTA_LAPACK_COMMON(float, float, s, orgqr)
  static lapack_int syevd(char jobz, char uplo, lapack_int n, float* a, lapack_int lda, float* w, float* work,
                          lapack_int lwork, float*, lapack_int, lapack_int* iwork, lapack_int liwork) {
    return LAPACKE_ssyevd_work(kCol, jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork);
  }
  static lapack_int gesdd(char jobz, lapack_int m, lapack_int n, float* a, lapack_int lda, float* s, float* u,
                          lapack_int ldu, float* vt, lapack_int ldvt, float* work, lapack_int lwork, float*,
                          lapack_int* iwork) {
    return LAPACKE_sgesdd_work(kCol, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork);
  }
  PORTA_LAPACK_REAL(float, s)
};
template <> struct Lapack<double> {
  PORTA_LAPACK_COMMON(double, double, d, orgqr)
  static lapack_int syevd(char jobz, char uplo, lapack_int n, double* a, lapack_int lda, double* w, double* work,
                          lapack_int lwork, double*, lapack_int, lapack_int* iwork, lapack_int liwork) {
    return LAPACKE_dsyevd_work(kCol, jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork);
  }
  static lapack_int gesdd(char jobz, lapack_int m, lapack_int n, double* a, lapack_int lda, double* s, double* u,
                          lapack_int ldu, double* vt, lapack_int ldvt, double* work, lapack_int lwork, double*,
                          lapack_int* iwork) {
    return LAPACKE_dgesdd_work(kCol, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork);
  }
  PORTA_LAPACK_REAL(double, d)
};
using C64 = std::complex<float>;
using C128 = std::complex<double>;
template <> struct Lapack<C64> {
  PORTA_LAPACK_COMMON(C64, float, c, ungqr)
  static lapack_int syevd(char jobz, char uplo, lapack_int n, C64* a, lapack_int lda, float* w, C64* work,
                          lapack_int lwork, float* rwork, lapack_int lrwork, lapack_int* iwork, lapack_int liwork) {
    return LAPACKE_cheevd_work(kCol, jobz, uplo, n, a, lda, w, work, lwork, rwork, lrwork, iwork, liwork);
  }
  static lapack_int gesdd(char jobz, lapack_int m, lapack_int n, C64* a, lapack_int lda, float* s, C64* u,
                          lapack_int ldu, C64* vt, lapack_int ldvt, C64* work, lapack_int lwork, float* rwork,
                          lapack_int* iwork) {
    return LAPACKE_cgesdd_work(kCol, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork);
  }
};
template <> struct Lapack<C128> {
  PORTA_LAPACK_COMMON(C128, double, z, ungqr)
  static lapack_int syevd(char jobz, char uplo, lapack_int n, C128* a, lapack_int lda, double* w, C128* work,
                          lapack_int lwork, double* rwork, lapack_int lrwork, lapack_int* iwork, lapack_int liwork) {
    return LAPACKE_zheevd_work(kCol, jobz, uplo, n, a, lda, w, work, lwork, rwork, lrwork, iwork, liwork);
  }
  static lapack_int gesdd(char jobz, lapack_int m, lapack_int n, C128* a, lapack_int lda, double* s, C128* u,
                          lapack_int ldu, C128* vt, lapack_int ldvt, C128* work, lapack_int lwork, double* rwork,
                          lapack_int* iwork) {
    return LAPACKE_zgesdd_work(kCol, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, iwork);
  }
};
#undef PORTA_LAPACK_COMMON
#undef PORTA_LAPACK_REAL

// A workspace length LAPACK's query wrote into `w` (real part for complex), at least 1.
template <class T> lapack_int query_length(const T& w) {
  return std::max<lapack_int>(1, static_cast<lapack_int>(std::real(w)));
}

template <class T> T* at(Handle h, std::int64_t offset) { return static_cast<T*>(h) + offset; }

template <class T> class Runner {
 public:
  using R = typename small::Real<T>::type;
  using L = Lapack<T>;
  explicit Runner(const SolverArgs& g) : g_(g) {}

  // Matrices [b0, b1) of the batch.
  void run(std::int64_t b0, std::int64_t b1) {
    const std::int64_t m = g_.m, n = g_.n, mn = std::min(m, n);
    const lapack_int lm = to_int(m), ln = to_int(n), lda = std::max(1, lm);
    const bool rows = g_.row_major;  // square a only (the core's getrf, getrs, potrf): lda is n either way
    if (rows && (!(kHostRowMajorSolvers & solver_bit(g_.op)) || m != n))
      throw InvalidArgument(cat("host solver: ", to_string(g_.op), " of ", m, " x ", n,
                                " takes C-order matrices only for square getrf, getrs and potrf (porta's bug)"));
    if (g_.src && !(kHostCopyInSolvers & solver_bit(g_.op)))
      throw InvalidArgument(cat("host solver: ", to_string(g_.op), " takes no input copy (src): getrf, getrs, potrf, geqrf and orgqr only (porta's bug)"));
    for (std::int64_t i = b0; i < b1; ++i) {
      T* a = g_.a ? at<T>(g_.a, g_.a_offset + i * m * n) : nullptr;  // stedc has none
      lapack_int status = 0;
      switch (g_.op) {
        case SolverOp::getrf:
          if (g_.src) copy_matrix(i, m * n, a);
          status = getrf(lm, ln, a, lda, at<lapack_int>(g_.ipiv, g_.ipiv_offset + i * mn));
          break;
        case SolverOp::getrs:
          if (g_.nrhs == 0 || n == 0) break;
          if (g_.src) copy_matrix(i, n * g_.nrhs, at<T>(g_.b, g_.b_offset + i * n * g_.nrhs));
          status = rows ? getrs_rows(a, i) : getrs('N', ln, to_int(g_.nrhs), a, at<lapack_int>(g_.ipiv, g_.ipiv_offset + i * n),
                                                   at<T>(g_.b, g_.b_offset + i * n * g_.nrhs));
          break;
        case SolverOp::potrf:
          if (g_.src) copy_triangle(at<const T>(g_.src, g_.src_offset + i * m * n), a);
          status = potrf(rows == g_.lower ? 'U' : 'L', ln, a);
          break;
        case SolverOp::potrs:
          if (g_.nrhs == 0 || n == 0) break;
          status = L::potrs(uplo(), ln, to_int(g_.nrhs), a, lda, at<T>(g_.b, g_.b_offset + i * n * g_.nrhs),
                            std::max(1, ln));
          break;
        case SolverOp::geqrf: {
          T* tau = at<T>(g_.tau, g_.tau_offset + i * mn);
          if (g_.src) copy_transposed(i, a);
          if (small_enough(lm, ln)) {
            small::geqrf(lm, ln, a, tau);
            break;
          }
          if (work_.empty()) {
            T q{};
            check(L::geqrf(lm, ln, a, lda, tau, &q, -1), "geqrf's workspace query");
            work_.resize(static_cast<std::size_t>(query_length(q)));
          }
          status = L::geqrf(lm, ln, a, lda, tau, work_.data(), static_cast<lapack_int>(work_.size()));
          break;
        }
        case SolverOp::orgqr: {
          const lapack_int lk = to_int(g_.k);
          const T* tau = at<T>(g_.tau, g_.tau_offset + i * g_.k);
          if (g_.src) copy_matrix(i, m * n, a);
          if (small_enough(lm, ln)) {
            small::orgqr(lm, ln, lk, a, tau);
            break;
          }
          if (work_.empty()) {
            T q{};
            check(L::orgqr(lm, ln, lk, a, lda, tau, &q, -1), "orgqr's workspace query");
            work_.resize(static_cast<std::size_t>(query_length(q)));
          }
          status = L::orgqr(lm, ln, lk, a, lda, tau, work_.data(), static_cast<lapack_int>(work_.size()));
          break;
        }
        case SolverOp::syevd: {
          R* w = at<R>(g_.w, g_.w_offset + i * n);
          const char jobz = g_.vectors ? 'V' : 'N';
          if (work_.empty()) {
            T q{};
            R rq{};
            lapack_int iq = 0;
            check(L::syevd(jobz, uplo(), ln, a, lda, w, &q, -1, &rq, -1, &iq, -1), "syevd's workspace query");
            work_.resize(static_cast<std::size_t>(query_length(q)));
            rwork_.resize(static_cast<std::size_t>(query_length(rq)));
            iwork_.resize(static_cast<std::size_t>(std::max<lapack_int>(1, iq)));
          }
          status = L::syevd(jobz, uplo(), ln, a, lda, w, work_.data(), static_cast<lapack_int>(work_.size()),
                            rwork_.data(), static_cast<lapack_int>(rwork_.size()), iwork_.data(),
                            static_cast<lapack_int>(iwork_.size()));
          break;
        }
        case SolverOp::gesvd: {
          const char jobz = !g_.vectors ? 'N' : g_.full_matrices ? 'A' : 'S';
          R* s = at<R>(g_.w, g_.w_offset + i * mn);
          const std::int64_t ucols = g_.full_matrices ? m : mn, vrows = g_.full_matrices ? n : mn;
          T* u = g_.vectors ? at<T>(g_.u, g_.u_offset + i * m * ucols) : nullptr;
          T* vt = g_.vectors ? at<T>(g_.vt, g_.vt_offset + i * vrows * n) : nullptr;
          const lapack_int ldu = std::max(1, lm), ldvt = std::max<lapack_int>(1, to_int(vrows));
          if (iwork_.empty()) {
            T q{};
            check(L::gesdd(jobz, lm, ln, a, lda, s, u, ldu, vt, ldvt, &q, -1, nullptr, iwork_.data()),
                  "gesdd's workspace query");
            work_.resize(static_cast<std::size_t>(query_length(q)));
            iwork_.resize(static_cast<std::size_t>(std::max<std::int64_t>(1, 8 * mn)));
            // LAPACK's bound on cgesdd's real workspace (3.7 and later; generous for older ones).
            const std::int64_t mx = std::max(m, n);
            const std::int64_t lr = jobz == 'N' ? 7 * mn : std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn);
            rwork_.resize(static_cast<std::size_t>(std::max<std::int64_t>(1, lr)));
          }
          status = L::gesdd(jobz, lm, ln, a, lda, s, u, ldu, vt, ldvt, work_.data(),
                            static_cast<lapack_int>(work_.size()), rwork_.data(), iwork_.data());
          break;
        }
        case SolverOp::stedc: status = stedc(i); break;
        case SolverOp::bdsdc: status = bdsdc(i); break;
        default: throw InvalidArgument(cat("host solver: unknown op ", static_cast<int>(g_.op)));
      }
      if (status < 0) check(status, to_string(g_.op));
      if (g_.info) *at<std::int32_t>(g_.info, g_.info_offset + i) = status;
    }
  }

 private:
  char uplo() const { return g_.lower ? 'L' : 'U'; }
  // getrf's, getrs' and orgqr's copy-in (SolverArgs::src): batch entry i of src, `count` elements, into `to`.
  void copy_matrix(std::int64_t i, std::int64_t count, T* to) const {
    const T* from = at<const T>(g_.src, g_.src_offset + i * count);
    std::copy(from, from + count, to);
  }
  // geqrf's copy-in (SolverArgs::src): the C-order m x n matrix i of src, transposed into the
  // column-major a.
  void copy_transposed(std::int64_t i, T* a) const {
    const std::int64_t m = g_.m, n = g_.n;
    const T* from = at<const T>(g_.src, g_.src_offset + i * m * n);
    for (std::int64_t c = 0; c < n; ++c)
      for (std::int64_t r = 0; r < m; ++r) a[c * m + r] = from[r * n + c];
  }
  // potrf's copy-in (SolverArgs::src): the n x n matrix at src into a, its `lower` triangle as a's
  // layout sees it (C order: row r's columns up to r; Fortran order: column c's rows from c) and
  // zeros in the other.
  void copy_triangle(const T* src, T* a) const {
    const std::int64_t n = g_.n;
    const bool low_first = g_.row_major == g_.lower;  // each memory row keeps its first r + 1 entries
    for (std::int64_t r = 0; r < n; ++r) {
      const T* s = src + r * n;
      T* d = a + r * n;
      const std::int64_t from = low_first ? 0 : r, to = low_first ? r + 1 : n;
      std::fill(d, d + from, T{});
      std::copy(s + from, s + to, d + from);
      std::fill(d + to, d + n, T{});
    }
  }
  // bdsdc of upper bidiagonal i (real dtypes): divide and conquer, with U and VT (compq 'I') or
  // without (compq 'N'), as LAPACK's gesdd calls it.
  lapack_int bdsdc(std::int64_t i) {
    if constexpr (!std::is_same_v<T, R>) {
      (void)i;
      throw DTypeError(cat("host solver: bdsdc of ", name(g_.dtype), ": the bidiagonal is real (float32, float64)"));
    } else {
      const std::int64_t n = g_.n;
      const lapack_int ln = to_int(n), ld = std::max(1, ln);
      R* d = at<R>(g_.w, g_.w_offset + i * n);
      R* e = at<R>(g_.b, g_.b_offset + i * n);
      if (n == 0) return 0;
      R* u = g_.vectors ? at<R>(g_.u, g_.u_offset + i * n * n) : nullptr;
      R* vt = g_.vectors ? at<R>(g_.vt, g_.vt_offset + i * n * n) : nullptr;
      // LAPACK's bounds: 3 n^2 + 4 n reals with vectors, 4 n without; 8 n integers.
      work_.resize(static_cast<std::size_t>(g_.vectors ? 3 * n * n + 4 * n : 4 * n));
      iwork_.resize(static_cast<std::size_t>(8 * n));
      R dummy = 0;
      return L::bdsdc(g_.vectors ? 'I' : 'N', ln, d, e, u ? u : &dummy, ld, vt ? vt : &dummy, ld, work_.data(), iwork_.data());
    }
  }
  // stedc of tridiagonal i (real dtypes): divide and conquer with vectors (compz 'I': T's own),
  // else sterf (the root-free QR, what LAPACK's syevd takes without vectors).
  lapack_int stedc(std::int64_t i) {
    if constexpr (!std::is_same_v<T, R>) {
      (void)i;
      throw DTypeError(cat("host solver: stedc of ", name(g_.dtype), ": the tridiagonal is real (float32, float64)"));
    } else {
      const std::int64_t n = g_.n;
      const lapack_int ln = to_int(n);
      R* d = at<R>(g_.w, g_.w_offset + i * n);
      R* e = at<R>(g_.b, g_.b_offset + i * n);
      if (n == 0) return 0;
      if (!g_.vectors) return L::sterf(ln, d, e);
      R* z = at<R>(g_.u, g_.u_offset + i * n * n);
      if (work_.empty()) {
        R q{};
        lapack_int iq = 0;
        check(L::stedc('I', ln, d, e, z, ln, &q, -1, &iq, -1), "stedc's workspace query");
        work_.resize(static_cast<std::size_t>(query_length(q)));
        iwork_.resize(static_cast<std::size_t>(std::max<lapack_int>(1, iq)));
      }
      return L::stedc('I', ln, d, e, z, ln, work_.data(), static_cast<lapack_int>(work_.size()), iwork_.data(),
                      static_cast<lapack_int>(iwork_.size()));
    }
  }
  // getrs of matrix i in C order: a holds the factors of A^T (getrf saw the C-order A as Fortran's
  // A^T), so A X = B is LAPACK's transposed solve; B (n x nrhs, C order) goes through a Fortran-
  // order copy unless it is one column.
  lapack_int getrs_rows(const T* a, std::int64_t i) {
    const std::int64_t n = g_.n, nrhs = g_.nrhs;
    const lapack_int ln = to_int(n);
    const lapack_int* ipiv = at<lapack_int>(g_.ipiv, g_.ipiv_offset + i * n);
    T* b = at<T>(g_.b, g_.b_offset + i * n * nrhs);
    if (nrhs == 1) return getrs('T', ln, 1, a, ipiv, b);
    work_.resize(static_cast<std::size_t>(n * nrhs));
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t c = 0; c < nrhs; ++c) work_[static_cast<std::size_t>(c * n + r)] = b[r * nrhs + c];
    const lapack_int status = getrs('T', ln, to_int(nrhs), a, ipiv, work_.data());
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t c = 0; c < nrhs; ++c) b[r * nrhs + c] = work_[static_cast<std::size_t>(c * n + r)];
    return status;
  }
  // getrf, getrs and potrf of square n x n matrices (getrf, and geqrf and orgqr in run(): m x n)
  // with lda and ldb n: porta's loops up to small::kMaxOrder (no LAPACK call, no lock), LAPACK's above.
  static bool small_enough(lapack_int m, lapack_int n) { return m <= small::kMaxOrder && n <= small::kMaxOrder; }
  static lapack_int getrf(lapack_int m, lapack_int n, T* a, lapack_int lda, lapack_int* ipiv) {
    return small_enough(m, n) ? small::getrf(m, n, a, ipiv) : L::getrf(m, n, a, lda, ipiv);
  }
  static lapack_int getrs(char trans, lapack_int n, lapack_int nrhs, const T* a, const lapack_int* ipiv, T* b) {
    if (!small_enough(n, n)) return L::getrs(trans, n, nrhs, a, std::max(1, n), ipiv, b, std::max(1, n));
    small::getrs(trans, n, nrhs, a, ipiv, b);
    return 0;
  }
  static lapack_int potrf(char uplo, lapack_int n, T* a) {
    return small_enough(n, n) ? small::potrf(uplo, n, a) : L::potrf(uplo, n, a, std::max(1, n));
  }
  lapack_int to_int(std::int64_t v) const {
    if (v > std::numeric_limits<lapack_int>::max())
      throw InvalidArgument(cat(to_string(g_.op), " of ", g_.m, " x ", g_.n, " (nrhs ", g_.nrhs,
                                "): sizes beyond 2^31 - 1 do not fit LAPACK's 32-bit integers"));
    return static_cast<lapack_int>(v);
  }
  void check(lapack_int status, const char* what) const {
    if (status < 0)
      throw InvalidArgument(cat("LAPACK ", what, " of ", name(g_.dtype), " ", g_.m, " x ", g_.n, ": argument ", -status,
                                " is invalid (LAPACKE info ", status, ")"));
  }
  const SolverArgs& g_;
  std::vector<T> work_;
  std::vector<R> rwork_;
  std::vector<lapack_int> iwork_;
};

}  // namespace

namespace {
// The threads a batch takes: one unless it has at least two matrices of at most kThreadedOrder rows
// and columns and kThreadedWork multiply-adds' worth (m n min(m, n) a matrix) in all. Larger
// matrices go one at a time, OpenBLAS threading each call itself.
constexpr std::int64_t kThreadedOrder = 128, kThreadedWork = std::int64_t{1} << 19;
int batch_threads(const SolverArgs& g, int threads) {
  if (threads <= 1 || g.batch < 2 || std::max(g.m, g.n) > kThreadedOrder) return 1;
  if (g.batch * g.m * g.n * std::min(g.m, g.n) < kThreadedWork) return 1;
  return static_cast<int>(std::min<std::int64_t>(threads, g.batch));
}

// OpenBLAS single-threaded while any batch runs over threads of ours: its own threads, asked for by
// the calls inside syevd and gesdd even on 16 x 16 matrices, serialise two callers through one
// thread server (a perf profile of eigh of 1000 x 16 x 16 float32 on kokkos:0: 40% of the time in
// exec_blas_async, 45% in sched_yield and the scheduler; 240 ms against NumPy's 22). The first batch
// in sets one thread and the last one out puts back what it found (openblas_set_num_threads is
// global: a large matrix factored meanwhile on another thread of the program runs on one thread).
class SingleThreadedBlas {
 public:
  SingleThreadedBlas() {
    std::lock_guard lock(m_);
    if (active_++ == 0) {
      saved_ = openblas_get_num_threads();
      openblas_set_num_threads(1);
    }
  }
  ~SingleThreadedBlas() {
    std::lock_guard lock(m_);
    if (--active_ == 0) openblas_set_num_threads(saved_);
  }
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  static inline std::mutex m_;
  static inline int active_ = 0, saved_ = 1;
};

// Runs [0, batch) over `threads` threads, whole shares of the batch each (the calling thread the
// first), OpenBLAS on one thread meanwhile; the first exception a share threw is rethrown after
// every thread has ended.
template <class T> void run_batch(const SolverArgs& g, int threads) {
  if (threads == 1) return Runner<T>(g).run(0, g.batch);
  SingleThreadedBlas one;
  auto first = [&](int t) { return g.batch * t / threads; };
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  auto share = [&](int t) {
    try {
      Runner<T>(g).run(first(t), first(t + 1));
    } catch (...) {
      errors[static_cast<std::size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(static_cast<std::size_t>(threads - 1));
  try {
    for (int t = 1; t < threads; ++t) helpers.emplace_back(share, t);
  } catch (...) {
    for (auto& h : helpers) h.join();
    throw;
  }
  share(0);
  for (auto& h : helpers) h.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}
}  // namespace

void host_solver(const SolverArgs& g, int threads) {
  if (g.batch < 0 || g.m < 0 || g.n < 0 || g.nrhs < 0 || g.k < 0)
    throw InvalidArgument(cat("host solver ", to_string(g.op), ": negative size (batch ", g.batch, ", m ", g.m, ", n ",
                              g.n, ", nrhs ", g.nrhs, ", k ", g.k, ")"));
  const int t = batch_threads(g, threads);
  switch (g.dtype) {
    case DType::float32: return run_batch<float>(g, t);
    case DType::float64: return run_batch<double>(g, t);
    case DType::complex64: return run_batch<C64>(g, t);
    case DType::complex128: return run_batch<C128>(g, t);
    default:
      throw DTypeError(cat(to_string(g.op), " of ", name(g.dtype),
                           ": LAPACK takes float32, float64, complex64 and complex128; use astype(float64)"));
  }
}

const char* host_solver_name() { return "LAPACKE over OpenBLAS (LU, Cholesky and QR up to 32 x 32: porta's loops)"; }

}  // namespace porta::detail
