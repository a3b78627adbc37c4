// porta's own dense solvers (src/primitives/dense.hpp) on every device that compiles kernels,
// against the host: residuals of the factorizations and solves in double precision, with bounds
// of a small multiple of n eps (backward errors, which do not grow with the condition number),
// the orthogonality of Q, and LAPACKE's info on singular and non-positive-definite matrices and
// its R (the same sign convention).
//
// Sizes: 0, 1, 5, 16, 31, 32, 33, 64 (the small kernels: a matrix in local memory, up to 32 or,
// for dtypes of up to 8 bytes, 64), 65, 100 and 257 (the blocked kernels: blocks of 64, a last
// one of another width). Each dtype
// compiles its own kernels (a PoCL compile is about a second), so every dtype takes the small
// sizes and the blocked sizes run in float64 and complex64 (one real and one complex dtype, one
// of each precision); float32 and complex128 the small ones (the blocked path's kernels are the
// same text in another dtype); the warp solve's orders are spread over the dtypes. Cold PoCL
// caches: about 100 s, most of it compiles.
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <thread>

#include "lazy/node.hpp"
#include "primitives/dense.hpp"
#include "runtime/thread_queues.hpp"
#include "test_common.hpp"

namespace {

using namespace porta_test;
using C = std::complex<double>;
namespace dense = porta::detail::dense;

constexpr DType kSolverDTypes[] = {DType::float32, DType::float64, DType::complex64, DType::complex128};

double eps_of(DType t) { return (t == DType::float32 || t == DType::complex64) ? 0x1p-24 : 0x1p-53; }

// Matrix m of a solve of the row-major stacks a (n x n a matrix) and b (n x nrhs) into hx, with
// info `got`: LAPACKE's getrf info of the same matrix, and where that is 0 the residual
// ||A x - b|| within 8 n eps ||A|| ||x||.
void expect_solved(const std::vector<C>& a, const std::vector<C>& b, const std::vector<C>& hx, std::int32_t got, std::int64_t m,
                   std::int64_t n, std::int64_t nrhs, DType t) {
  std::vector<C> cm(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) cm[static_cast<std::size_t>(i + j * n)] = a[static_cast<std::size_t>((m * n + i) * n + j)];
  std::vector<lapack_int> hp(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)));
  const lapack_int want = n == 0 ? 0 : LAPACKE_zgetrf(LAPACK_COL_MAJOR, static_cast<lapack_int>(n), static_cast<lapack_int>(n),
                                                       reinterpret_cast<lapack_complex_double*>(cm.data()), static_cast<lapack_int>(n), hp.data());
  EXPECT_EQ(got, want) << "info of matrix " << m;
  if (want != 0) return;
  double r = 0, na = 0, nx = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t c = 0; c < nrhs; ++c) {
      C sum = 0;
      for (std::int64_t l = 0; l < n; ++l) sum += a[static_cast<std::size_t>((m * n + i) * n + l)] * hx[static_cast<std::size_t>((m * n + l) * nrhs + c)];
      r += std::norm(sum - b[static_cast<std::size_t>((m * n + i) * nrhs + c)]);
      nx += std::norm(hx[static_cast<std::size_t>((m * n + i) * nrhs + c)]);
    }
    for (std::int64_t j = 0; j < n; ++j) na += std::norm(a[static_cast<std::size_t>((m * n + i) * n + j)]);
  }
  EXPECT_LE(std::sqrt(r), 8 * static_cast<double>(n) * eps_of(t) * std::sqrt(na) * std::sqrt(nx)) << "||Ax - b||, matrix " << m;
}

bool cx(DType t) { return porta::is_complex(t); }

// Host values of dtype t, as complex<double> (real dtypes: imaginary parts 0).
std::vector<std::uint8_t> to_bytes(DType t, const std::vector<C>& v) {
  std::vector<std::uint8_t> b(v.size() * porta::itemsize(t));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (t == DType::float32) { float x = static_cast<float>(v[i].real()); std::memcpy(&b[4 * i], &x, 4); }
    if (t == DType::float64) { double x = v[i].real(); std::memcpy(&b[8 * i], &x, 8); }
    if (t == DType::complex64) { float x[2] = {static_cast<float>(v[i].real()), static_cast<float>(v[i].imag())}; std::memcpy(&b[8 * i], x, 8); }
    if (t == DType::complex128) { double x[2] = {v[i].real(), v[i].imag()}; std::memcpy(&b[16 * i], x, 16); }
  }
  return b;
}
std::vector<C> from_bytes(DType t, const std::vector<std::uint8_t>& b) {
  std::vector<C> v(b.size() / porta::itemsize(t));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (t == DType::float32) { float x; std::memcpy(&x, &b[4 * i], 4); v[i] = x; }
    if (t == DType::float64) { double x; std::memcpy(&x, &b[8 * i], 8); v[i] = x; }
    if (t == DType::complex64) { float x[2]; std::memcpy(x, &b[8 * i], 8); v[i] = C(x[0], x[1]); }
    if (t == DType::complex128) { double x[2]; std::memcpy(x, &b[16 * i], 16); v[i] = C(x[0], x[1]); }
  }
  return v;
}
// Rounded to t, as the device holds them.
std::vector<C> rounded(DType t, const std::vector<C>& v) { return from_bytes(t, to_bytes(t, v)); }
// count random values in [-1, 1] (complex: both parts), rounded to t.
std::vector<C> uniform_values(DType t, std::int64_t count, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<C> v(static_cast<std::size_t>(count));
  for (auto& x : v) x = cx(t) ? C(u(rng), u(rng)) : C(u(rng), 0);
  return rounded(t, v);
}

Array upload_c(const std::vector<C>& v, DType t, const Device& d) {
  auto b = to_bytes(t, v);
  return porta::from_host(b.data(), t, {static_cast<std::int64_t>(v.size())}, d);
}
std::vector<C> download(const Array& a, DType t) {
  std::vector<std::uint8_t> b(static_cast<std::size_t>(a.size()) * porta::itemsize(t));
  a.to_host(t, b.data(), b.size());
  return from_bytes(t, b);
}
std::vector<std::int32_t> download_int(const Array& a) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(a.size()));
  a.to_host(DType::int32, v.data(), v.size() * 4);
  return v;
}
const porta::detail::View& view(const Array& a) { return porta::detail::evaluate(a.node()); }

double fro(const std::vector<C>& v, std::size_t from = 0, std::size_t count = std::string::npos) {
  double s = 0;
  for (std::size_t i = from; i < std::min(v.size(), from + count); ++i) s += std::norm(v[i]);
  return std::sqrt(s);
}

// ||A X - B|| (Frobenius) of matrix m of a batch: A n x n column-major at a[m n^2], X and B its nrhs
// columns of n at [m nrhs n].
double residual(const std::vector<C>& a, const std::vector<C>& x, const std::vector<C>& b, std::int64_t m, std::int64_t n,
                std::int64_t nrhs) {
  double r = 0;
  for (std::int64_t c = 0; c < nrhs; ++c)
    for (std::int64_t i = 0; i < n; ++i) {
      C s = 0;
      for (std::int64_t l = 0; l < n; ++l) s += a[m * n * n + i + l * n] * x[(m * nrhs + c) * n + l];
      r += std::norm(s - b[(m * nrhs + c) * n + i]);
    }
  return std::sqrt(r);
}

// ||P A - L U||_F of matrix m of a batch (A n x n column-major at a[m n^2], getrf's L\U at lu[m n^2],
// its 1-based pivots at piv[m n]); each pivot must lie in [k, n) (-1 where one does not).
double plu_residual(const std::vector<C>& a, const std::vector<C>& lu, const std::vector<std::int32_t>& piv, std::int64_t m,
                    std::int64_t n) {
  const C* F = &lu[m * n * n];
  std::vector<C> pa(a.begin() + m * n * n, a.begin() + (m + 1) * n * n);
  for (std::int64_t k = 0; k < n; ++k) {
    const int p = piv[m * n + k] - 1;
    if (p < k || p >= n) return -1;
    for (std::int64_t j = 0; j < n; ++j) std::swap(pa[k + j * n], pa[p + j * n]);
  }
  double r = 0;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) {
      C s = 0;
      for (std::int64_t l = 0; l <= std::min(i, j); ++l) s += (l == i ? C(1) : F[i + l * n]) * F[l + j * n];
      r += std::norm(pa[i + j * n] - s);
    }
  return std::sqrt(r);
}

class DenseTest : public DeviceDTypeTest {
 protected:
  void SetUp() override {
    DeviceDTypeTest::SetUp();
    if (!dense::available(dev())) GTEST_SKIP() << dev().spec() << " compiles no kernels (dense::available)";
    PORTA_REQUIRE_DTYPE(dtype());
  }
  // count random values of the test's dtype (uniform_values).
  std::vector<C> random(std::int64_t count) { return uniform_values(dtype(), count, rng()); }
  std::vector<std::int64_t> sizes() const {
    if (dtype() == DType::float64 || dtype() == DType::complex64) return {0, 1, 5, 16, 31, 32, 33, 64, 65, 100, 257};
    return {0, 1, 5, 16, 31, 32};
  }
  std::int64_t batch_for(std::int64_t n) const { return n <= 64 ? 3 : n <= 100 ? 2 : 1; }
};

// LU: ||P A - L U||_F <= 8 n eps ||A||_F for each matrix, pivots in range, info 0; then the
// solve's backward error ||A x - b|| <= 8 n eps ||A|| ||x||.
TEST_P(DenseTest, LuFactorsAndSolves) {
  const DType t = dtype();
  for (std::int64_t n : sizes()) {
    const std::int64_t batch = batch_for(n), nrhs = n % 3 + 1;
    std::vector<C> a = random(batch * n * n), b = random(batch * n * nrhs);
    Array da = upload_c(a, t, dev()), db = upload_c(b, t, dev());
    Array ipiv = porta::full({batch * n}, -7, DType::int32, dev()), info = porta::full({batch}, -7, DType::int32, dev());
    dense::getrf(t, view(da), view(ipiv), view(info), batch, n);
    const std::vector<C> lu = download(da, t);
    const std::vector<std::int32_t> piv = download_int(ipiv), inf = download_int(info);
    for (std::int64_t m = 0; m < batch; ++m) {
      SCOPED_TRACE(testing::Message() << "n " << n << ", matrix " << m << " of " << batch);
      EXPECT_EQ(inf[m], 0);
      const double r = plu_residual(a, lu, piv, m, n);
      ASSERT_GE(r, 0) << "a pivot out of range";
      EXPECT_LE(r, 8 * n * eps_of(t) * fro(a, m * n * n, n * n)) << "||PA - LU||";
    }
    dense::getrs(t, view(da), view(ipiv), view(db), batch, n, nrhs);
    const std::vector<C> x = download(db, t);
    for (std::int64_t m = 0; m < batch; ++m) {
      SCOPED_TRACE(testing::Message() << "solve, n " << n << ", matrix " << m);
      EXPECT_LE(residual(a, x, b, m, n, nrhs), 8 * n * eps_of(t) * fro(a, m * n * n, n * n) * fro(x, m * nrhs * n, nrhs * n)) << "||Ax - b||";
    }
  }
}

// Pivots that must come from far down the panel (the tournament's later sets and rounds: ctest
// dense.tournament): matrix 0's rows grow a thousandfold from top to bottom, matrix 1's first 200
// rows are a thousandth of the rest, matrix 2 is random signs of one magnitude (ties everywhere).
// ||P A - L U|| as LuFactorsAndSolves (a pivot sequence that lost track of a row fails it).
TEST_P(DenseTest, LuPivotsFromFarDown) {
  const DType t = dtype();
  const std::int64_t n = 257;
  if (n > sizes().back()) GTEST_SKIP() << "the blocked sizes run in float64 and complex64";
  std::vector<C> a = random(3 * n * n);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) {
      a[i + j * n] *= std::pow(1000.0, static_cast<double>(i) / static_cast<double>(n - 1));
      if (i < 200) a[n * n + i + j * n] *= 1e-3;
      C& z = a[2 * n * n + i + j * n];
      z = C((std::real(z) < 0 ? -1.0 : 1.0), 0);
    }
  Array da = upload_c(a, t, dev());
  Array ipiv = porta::full({3 * n}, -7, DType::int32, dev()), info = porta::full({3}, -7, DType::int32, dev());
  dense::getrf(t, view(da), view(ipiv), view(info), 3, n);
  const std::vector<C> lu = download(da, t);
  const std::vector<std::int32_t> piv = download_int(ipiv), inf = download_int(info);
  for (std::int64_t m = 0; m < 3; ++m) {
    SCOPED_TRACE(testing::Message() << "matrix " << m);
    const double r = plu_residual(a, lu, piv, m, n);
    ASSERT_GE(r, 0) << "a pivot out of range";
    EXPECT_LE(r, 8 * n * eps_of(t) * fro(a, m * n * n, n * n)) << "||PA - LU||";
  }
  EXPECT_EQ(inf[0], 0);
  EXPECT_EQ(inf[1], 0);
}

// Exactly singular matrices (a zero column; a matrix of rank one, whose second pivot is an exact
// zero) give LAPACKE's info; NaNs run through without a hang.
TEST_P(DenseTest, LuReportsSingularAsLapack) {
  const DType t = dtype();
  for (std::int64_t n : {std::int64_t{5}, std::int64_t{70}}) {
    if (n > sizes().back()) continue;
    std::vector<C> a = random(3 * n * n);
    for (std::int64_t i = 0; i < n; ++i) a[i + 3 * n] = 0;                     // matrix 0: column 3 zero
    for (std::int64_t e = 0; e < n * n; ++e) a[n * n + e] = C(1.0 + (e % n == 2), 0);  // matrix 1: rank one (rows of 1 and a row of 2)
    a[2 * n * n + 7] = std::numeric_limits<double>::quiet_NaN();            // matrix 2: a NaN
    Array da = upload_c(a, t, dev());
    Array ipiv = porta::zeros({3 * n}, DType::int32, dev()), info = porta::full({3}, -7, DType::int32, dev());
    dense::getrf(t, view(da), view(ipiv), view(info), 3, n);
    const std::vector<std::int32_t> inf = download_int(info);
    for (int m = 0; m < 2; ++m) {
      std::vector<C> h(a.begin() + m * n * n, a.begin() + (m + 1) * n * n);
      std::vector<lapack_int> hp(n);
      lapack_int want = 0;
      if (cx(t)) want = LAPACKE_zgetrf(LAPACK_COL_MAJOR, n, n, reinterpret_cast<lapack_complex_double*>(h.data()), n, hp.data());
      else {
        std::vector<double> r(h.size());
        for (std::size_t i = 0; i < h.size(); ++i) r[i] = h[i].real();
        want = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, r.data(), n, hp.data());
      }
      EXPECT_EQ(inf[m], want) << "n " << n << ", matrix " << m;
      EXPECT_GT(inf[m], 0);
    }
    const std::vector<C> lu = download(da, t);
    EXPECT_TRUE(std::any_of(lu.begin() + 2 * n * n, lu.end(), [](C z) { return std::isnan(z.real()); }));
  }
}

// Cholesky of A = M M^H + n I: ||A - L L^H||_F <= 8 n eps ||A||_F over the lower triangle, the
// strict upper triangle as it was (bit for bit), potrs' backward error; a matrix made indefinite
// at row j, or with a NaN on its diagonal, gives LAPACKE's info.
TEST_P(DenseTest, CholeskyFactorsAndSolves) {
  const DType t = dtype();
  for (std::int64_t n : sizes()) {
    const std::int64_t batch = batch_for(n), nrhs = 2;
    std::vector<C> mm = random(batch * n * n), a(batch * n * n), b = random(batch * n * nrhs);
    for (std::int64_t m = 0; m < batch; ++m)
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < n; ++i) {
          C s = i == j ? C(static_cast<double>(n)) : C(0);
          for (std::int64_t l = 0; l < n; ++l) s += mm[m * n * n + i + l * n] * std::conj(mm[m * n * n + j + l * n]);
          a[m * n * n + i + j * n] = i == j ? C(s.real()) : s;
        }
    a = rounded(t, a);
    Array da = upload_c(a, t, dev()), db = upload_c(b, t, dev());
    Array info = porta::full({batch}, -7, DType::int32, dev());
    dense::potrf(t, view(da), view(info), batch, n);
    const std::vector<C> l = download(da, t);
    const std::vector<std::int32_t> inf = download_int(info);
    for (std::int64_t m = 0; m < batch; ++m) {
      SCOPED_TRACE(testing::Message() << "n " << n << ", matrix " << m);
      EXPECT_EQ(inf[m], 0);
      const C* L = &l[m * n * n];
      double r = 0;
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < n; ++i) {
          if (i < j) {
            ASSERT_EQ(L[i + j * n], a[m * n * n + i + j * n]) << "upper element (" << i << ", " << j << ") changed";
            continue;
          }
          C s = 0;
          for (std::int64_t k = 0; k <= j; ++k) s += L[i + k * n] * std::conj(L[j + k * n]);
          r += std::norm(a[m * n * n + i + j * n] - s);
        }
      EXPECT_LE(std::sqrt(r), 8 * n * eps_of(t) * fro(a, m * n * n, n * n)) << "||A - LL^H||";
    }
    dense::potrs(t, view(da), view(db), batch, n, nrhs);
    const std::vector<C> x = download(db, t);
    for (std::int64_t m = 0; m < batch; ++m) {
      EXPECT_LE(residual(a, x, b, m, n, nrhs), 8 * n * eps_of(t) * fro(a, m * n * n, n * n) * fro(x, m * nrhs * n, nrhs * n))
          << "potrs, n " << n << ", matrix " << m;
    }
    if (n < 2) continue;
    // Not positive definite from row j on (matrix 0): LAPACKE's info, j + 1. A NaN on the last
    // diagonal element (matrix 1, the batch's second): n, as reference LAPACK's potrf2 (its
    // DISNAN test); OpenBLAS's own potrf, which LAPACKE calls here, lets the NaN through with 0.
    const std::int64_t j = n / 2;
    std::vector<C> bad(a.begin(), a.begin() + n * n);
    bad.insert(bad.end(), a.begin(), a.begin() + n * n);
    bad[j + j * n] = C(-1.0);
    bad[n * n + n * n - 1] = C(std::numeric_limits<double>::quiet_NaN());
    std::vector<C> h(bad.begin(), bad.begin() + n * n);
    lapack_int want = cx(t) ? LAPACKE_zpotrf(LAPACK_COL_MAJOR, 'L', n, reinterpret_cast<lapack_complex_double*>(h.data()), n) : [&] {
      std::vector<double> r(h.size());
      for (std::size_t i = 0; i < h.size(); ++i) r[i] = h[i].real();
      return LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, r.data(), n);
    }();
    EXPECT_EQ(want, j + 1);
    Array dbad = upload_c(bad, t, dev());
    Array info2 = porta::full({2}, -7, DType::int32, dev());
    dense::potrf(t, view(dbad), view(info2), 2, n);
    const std::vector<std::int32_t> got = download_int(info2);
    EXPECT_EQ(got[0], want) << "n " << n;
    EXPECT_EQ(got[1], n) << "n " << n << ", NaN on the diagonal";
  }
}

// QR of m x n (blocked from min(m, n) > 64: 70 x 200 and 257 x 150 take one and two block
// reflectors through GEMM): R as LAPACKE's, Q (orgqr, m x min(m, n) and, for m > n, the complete
// m x m) orthogonal and ||A - Q R|| small, within 8 (max(m, n) + 4) eps (the 4: a 1 x 1 complex
// Q = alpha / |alpha| rounds in a division and a hypot, a few eps).
TEST_P(DenseTest, QrFactorsAndForms) {
  const DType t = dtype();
  std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{0, 0}, {1, 1}, {5, 3}, {3, 5}, {16, 16}, {32, 31}};
  if (sizes().back() >= 100) shapes.insert(shapes.end(), {{33, 20}, {100, 40}, {40, 100}, {70, 200}, {257, 150}});
  for (auto [m, n] : shapes) {
    SCOPED_TRACE(testing::Message() << m << " x " << n);
    const std::int64_t batch = std::max(m, n) <= 32 ? 3 : 1, k = std::min(m, n);
    std::vector<C> a = random(batch * m * n);
    Array da = upload_c(a, t, dev());
    Array dtau = upload_c(std::vector<C>(batch * k, C(-7)), t, dev());
    dense::geqrf(t, view(da), view(dtau), batch, m, n);
    const std::vector<C> f = download(da, t), tv = download(dtau, t);
    // Q's first k columns, by orgqr on the m x k leading block of each matrix.
    std::vector<C> qk(batch * m * k);
    for (std::int64_t b = 0; b < batch; ++b) std::copy(&f[b * m * n], &f[b * m * n] + m * k, &qk[b * m * k]);
    Array dq = upload_c(qk, t, dev());
    dense::orgqr(t, view(dq), view(dtau), batch, m, k, k);
    const std::vector<C> q = download(dq, t);
    for (std::int64_t b = 0; b < batch; ++b) {
      const C* A = &a[b * m * n];
      const C* F = &f[b * m * n];
      const C* Q = &q[b * m * k];
      const double na = fro(a, b * m * n, m * n), tol = 8 * (std::max(m, n) + 4) * eps_of(t);
      std::vector<C> ref(A, A + m * n), rtau(std::max<std::int64_t>(k, 1));
      if (cx(t)) LAPACKE_zgeqrf(LAPACK_COL_MAJOR, m, n, reinterpret_cast<lapack_complex_double*>(ref.data()), std::max<std::int64_t>(m, 1),
                                reinterpret_cast<lapack_complex_double*>(rtau.data()));
      else {
        std::vector<double> r(ref.size()), rt(rtau.size());
        for (std::size_t i = 0; i < r.size(); ++i) r[i] = ref[i].real();
        LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, n, r.data(), std::max<std::int64_t>(m, 1), rt.data());
        for (std::size_t i = 0; i < r.size(); ++i) ref[i] = r[i];
      }
      double dr = 0, orth = 0, rec = 0;
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i <= std::min(j, m - 1); ++i) dr += std::norm(F[i + j * m] - ref[i + j * m]);
      EXPECT_LE(std::sqrt(dr), tol * na * 4) << "R against LAPACKE's, matrix " << b;
      for (std::int64_t j = 0; j < k; ++j)
        for (std::int64_t i = 0; i < k; ++i) {
          C s = 0;
          for (std::int64_t l = 0; l < m; ++l) s += std::conj(Q[l + i * m]) * Q[l + j * m];
          orth += std::norm(s - (i == j ? C(1) : C(0)));
        }
      EXPECT_LE(std::sqrt(orth), tol * std::sqrt(static_cast<double>(k))) << "||Q^H Q - I||, matrix " << b;
      for (std::int64_t j = 0; j < n; ++j)
        for (std::int64_t i = 0; i < m; ++i) {
          C s = 0;
          for (std::int64_t l = 0; l <= std::min(j, k - 1); ++l) s += Q[i + l * m] * F[l + j * m];
          rec += std::norm(A[i + j * m] - s);
        }
      EXPECT_LE(std::sqrt(rec), tol * na) << "||A - QR||, matrix " << b;
    }
    if (m <= n) continue;
    // The complete Q (m x m) of the first matrix: orgqr over its k reflectors, the other columns
    // filled with junk that orgqr must overwrite.
    std::vector<C> full(m * m, C(-3, 2));
    std::copy(f.begin(), f.begin() + m * n, full.begin());
    Array dfull = upload_c(full, t, dev());
    dense::orgqr(t, view(dfull), view(dtau), 1, m, m, k);
    const std::vector<C> qf = download(dfull, t);
    double orth = 0;
    for (std::int64_t j = 0; j < m; ++j)
      for (std::int64_t i = 0; i < m; ++i) {
        C s = 0;
        for (std::int64_t l = 0; l < m; ++l) s += std::conj(qf[l + i * m]) * qf[l + j * m];
        orth += std::norm(s - (i == j ? C(1) : C(0)));
      }
    EXPECT_LE(std::sqrt(orth), 8 * (m + 4) * eps_of(t) * std::sqrt(static_cast<double>(m))) << "complete Q";
    for (std::int64_t e = 0; e < m * k; ++e) EXPECT_LE(std::abs(qf[e] - q[e]), 8 * (m + 4) * eps_of(t)) << "complete Q's first columns";
  }
}

// Triangular solves (trtrs) upper and lower, unit or not: the other triangle (and a unit
// diagonal) NaN, which must not be read; backward error <= 8 n eps ||T|| ||x||.
TEST_P(DenseTest, TriangularSolves) {
  const DType t = dtype();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::int64_t n : sizes()) {
    const std::int64_t batch = batch_for(n), nrhs = 2;
    for (int upper = 0; upper < 2; ++upper)
      for (int unit = 0; unit < 2; ++unit) {
        SCOPED_TRACE(testing::Message() << "n " << n << (upper ? ", upper" : ", lower") << (unit ? ", unit" : ""));
        std::vector<C> a = random(batch * n * n), b = random(batch * n * nrhs);
        std::vector<C> tri(a.size());  // the triangle as the solve sees it (the reference)
        for (std::int64_t m = 0; m < batch; ++m)
          for (std::int64_t j = 0; j < n; ++j)
            for (std::int64_t i = 0; i < n; ++i) {
              C& x = a[m * n * n + i + j * n];
              if (i == j) x = unit ? C(nan) : x + C(x.real() >= 0 ? 2.0 : -2.0);  // well conditioned
              else if ((i < j) != static_cast<bool>(upper)) x = C(nan);
              tri[m * n * n + i + j * n] = i == j && unit ? C(1) : std::isnan(x.real()) ? C(0) : x;
            }
        a = rounded(t, a);
        Array da = upload_c(a, t, dev()), db = upload_c(b, t, dev());
        dense::trtrs(t, view(da), view(db), batch, n, nrhs, upper, unit);
        const std::vector<C> x = download(db, t);
        for (std::int64_t m = 0; m < batch; ++m) {
          EXPECT_LE(residual(tri, x, b, m, n, nrhs), 8 * n * eps_of(t) * fro(tri, m * n * n, n * n) * fro(x, m * nrhs * n, nrhs * n)) << "matrix " << m;
        }
      }
  }
}

// The fused one-launch solve and Cholesky (gesv_small, potrf_small) from the layouts the core
// passes: A row-major as NumPy holds it, A through a transposed view, one A broadcast over the
// batch (stride 0); B row-major and through a transposed view; nrhs past the 16 a launch holds in
// local memory (20). Backward errors as above, X row-major, A and B unchanged, info as LAPACKE's
// for a zero column; Cholesky's strict upper triangle NaN (must not be read), L's upper zeros.
// Orders up to fused_order (64; 32 for complex128), with 17 and 33 (no bucket's size).
TEST_P(DenseTest, FusedSolveAndCholeskyFromAnyStrides) {
  const DType t = dtype();
  const std::int64_t most = dense::fused_order(t, dev());
  for (std::int64_t n : {0, 1, 5, 16, 17, 32, 33, 64}) {
    if (n > most) continue;
    const std::int64_t batch = 3, nrhs = n == 16 ? 20 : n % 3 + 1;
    for (int layout = 0; layout < 3; ++layout) {
      SCOPED_TRACE(testing::Message() << "n " << n << ", layout " << layout);
      // Logical A (b, i, j) at [(b n + i) n + j] and B (b, i, c) at [(b n + i) nrhs + c].
      std::vector<C> a = random(batch * n * n), b = random(batch * n * nrhs);
      if (layout == 2)
        for (std::int64_t e = n * n; e < batch * n * n; ++e) a[e] = a[e % (n * n)];  // one matrix for all
      if (n > 3) for (std::int64_t i = 0; i < n; ++i) a[(2 * n + i) * n + 3] = layout == 2 ? a[(2 * n + i) * n + 3] : C(0);  // matrix 2: column 3 zero
      std::vector<C> stored(a.size()), bstored(b.size());  // what is uploaded
      for (std::int64_t m = 0; m < batch; ++m)
        for (std::int64_t i = 0; i < n; ++i) {
          for (std::int64_t j = 0; j < n; ++j) stored[(m * n + (layout == 1 ? j : i)) * n + (layout == 1 ? i : j)] = a[(m * n + i) * n + j];
          for (std::int64_t c = 0; c < nrhs; ++c)
            bstored[layout == 1 ? (m * nrhs + c) * n + i : (m * n + i) * nrhs + c] = b[(m * n + i) * nrhs + c];
        }
      Array ha = upload_c(stored, t, dev()), hb = upload_c(bstored, t, dev());
      Array av = layout == 1 ? ha.reshape({batch, n, n}).transpose({0, 2, 1})
                 : layout == 2 ? ha.reshape({batch, n, n}).slice({porta::upto(1)}).broadcast_to({batch, n, n})
                               : ha.reshape({batch, n, n});
      Array bv = layout == 1 ? hb.reshape({batch, nrhs, n}).transpose({0, 2, 1}) : hb.reshape({batch, n, nrhs});
      Array x = porta::full({batch * n * nrhs}, -7, t, dev()), info = porta::full({batch}, -7, DType::int32, dev());
      dense::gesv_small(t, view(av), view(bv), view(x), view(info), batch, n, nrhs);
      const std::vector<C> hx = download(x, t);
      const std::vector<std::int32_t> inf = download_int(info);
      EXPECT_EQ(download(ha, t), stored) << "gesv changed A";
      EXPECT_EQ(download(hb, t), bstored) << "gesv changed B";
      for (std::int64_t m = 0; m < batch; ++m) {
        expect_solved(a, b, hx, inf[m], m, n, nrhs, t);
      }
      if (layout == 2) continue;
      // Cholesky of A A^H + n I (the logical matrix through the same layout), its upper part NaN.
      std::vector<C> h(batch * n * n), hs(h.size());
      for (std::int64_t m = 0; m < batch; ++m)
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t j = 0; j < n; ++j) {
            C sum = i == j ? C(static_cast<double>(n)) : C(0);
            for (std::int64_t l = 0; l < n; ++l) sum += a[(m * n + i) * n + l] * std::conj(a[(m * n + j) * n + l]);
            h[(m * n + i) * n + j] = i == j ? C(sum.real()) : i > j ? sum : C(std::numeric_limits<double>::quiet_NaN());
          }
      if (n > 2) h[(1 * n + 2) * n + 2] = C(-1.0);  // matrix 1: not positive definite at row 2 (info 3)
      h = rounded(t, h);
      for (std::int64_t m = 0; m < batch; ++m)
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t j = 0; j < n; ++j) hs[(m * n + (layout == 1 ? j : i)) * n + (layout == 1 ? i : j)] = h[(m * n + i) * n + j];
      Array hh = upload_c(hs, t, dev());
      Array hv = layout == 1 ? hh.reshape({batch, n, n}).transpose({0, 2, 1}) : hh.reshape({batch, n, n});
      Array l = porta::full({batch * n * n}, -7, t, dev()), info2 = porta::full({batch}, -7, DType::int32, dev());
      dense::potrf_small(t, view(hv), view(l), view(info2), batch, n);
      const std::vector<C> hl = download(l, t);
      const std::vector<std::int32_t> inf2 = download_int(info2);
      for (std::int64_t m = 0; m < batch; ++m) {
        EXPECT_EQ(inf2[m], m == 1 && n > 2 ? 3 : 0) << "Cholesky's info of matrix " << m;
        if (inf2[m] != 0) continue;
        double r = 0, na = 0;
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t j = 0; j < n; ++j) {
            if (i < j) {
              ASSERT_EQ(hl[(m * n + i) * n + j], C(0)) << "L(" << i << ", " << j << ") above the diagonal";
              continue;
            }
            C sum = 0;
            for (std::int64_t k = 0; k <= j; ++k) sum += hl[(m * n + i) * n + k] * std::conj(hl[(m * n + j) * n + k]);
            r += std::norm(h[(m * n + i) * n + j] - sum);
            na += std::norm(h[(m * n + i) * n + j]) * (i == j ? 1 : 2);
          }
        EXPECT_LE(std::sqrt(r), 8 * n * eps_of(t) * std::sqrt(na)) << "||A - LL^H||, matrix " << m;
      }
    }
  }
}

// gesv_small's warp kernel (PORTA_SMALL_SOLVE=warp: a sub-warp a matrix, its rows in registers; on
// PoCL the shuffles emulated in local memory), batches of 11 (the last work-group part empty):
// orders 1, 2, 3, 8, 15, 16, 17 and 32 (sub-warps of 4 to 32 lanes, filled and not), spread over
// the dtypes (each order and chunk of right-hand sides a program: about a second's compile on
// PoCL), one right-hand side or 11 (two chunks of 8, the second partial), A and B row-major,
// through transposed views, and A broadcast over the batch. Matrix 5 singular (a zero column:
// LAPACKE's info), matrix 7 with a NaN (its solution NaN, its neighbours in the same warp
// untouched); backward errors of the others as above.
TEST_P(DenseTest, WarpSolveOrdersSingularAndNaN) {
  const DType t = dtype();
  ScopedEnv warp("PORTA_SMALL_SOLVE", "warp");
  struct Case {
    std::int64_t n, nrhs;
    int layout;  // 0 row-major, 1 transposed views of A and B, 2 one A broadcast over the batch
  };
  const std::vector<Case> cases = t == DType::float32   ? std::vector<Case>{{16, 1, 0}, {32, 1, 2}}
                                  : t == DType::float64 ? std::vector<Case>{{1, 1, 0}, {8, 1, 1}, {17, 11, 1}}
                                  : t == DType::complex64 ? std::vector<Case>{{2, 1, 1}, {15, 1, 0}}
                                                          : std::vector<Case>{{3, 11, 0}, {16, 1, 2}};
  const std::int64_t batch = 11;
  for (const Case& c : cases) {
    const std::int64_t n = c.n, nrhs = c.nrhs;
    SCOPED_TRACE(testing::Message() << "n " << n << ", nrhs " << nrhs << ", layout " << c.layout);
    // Logical A (m, i, j) at [(m n + i) n + j], B (m, i, r) at [(m n + i) nrhs + r].
    std::vector<C> a = random(batch * n * n), b = random(batch * n * nrhs);
    if (c.layout == 2) {
      for (std::int64_t e = n * n; e < batch * n * n; ++e) a[e] = a[e % (n * n)];
    } else {
      for (std::int64_t i = 0; i < n; ++i) a[(5 * n + i) * n + std::min<std::int64_t>(3, n - 1)] = 0;
      a[(7 * n + n / 2) * n + n / 3] = std::numeric_limits<double>::quiet_NaN();
    }
    std::vector<C> stored(a.size()), bstored(b.size());
    for (std::int64_t m = 0; m < batch; ++m)
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = 0; j < n; ++j) stored[(m * n + (c.layout == 1 ? j : i)) * n + (c.layout == 1 ? i : j)] = a[(m * n + i) * n + j];
        for (std::int64_t r = 0; r < nrhs; ++r)
          bstored[c.layout == 1 ? (m * nrhs + r) * n + i : (m * n + i) * nrhs + r] = b[(m * n + i) * nrhs + r];
      }
    Array ha = upload_c(stored, t, dev()), hb = upload_c(bstored, t, dev());
    Array av = c.layout == 1 ? ha.reshape({batch, n, n}).transpose({0, 2, 1})
               : c.layout == 2 ? ha.reshape({batch, n, n}).slice({porta::upto(1)}).broadcast_to({batch, n, n})
                               : ha.reshape({batch, n, n});
    Array bv = c.layout == 1 ? hb.reshape({batch, nrhs, n}).transpose({0, 2, 1}) : hb.reshape({batch, n, nrhs});
    Array x = porta::full({batch * n * nrhs}, -7, t, dev()), info = porta::full({batch}, -7, DType::int32, dev());
    dense::gesv_small(t, view(av), view(bv), view(x), view(info), batch, n, nrhs);
    const std::vector<C> hx = download(x, t);
    const std::vector<std::int32_t> inf = download_int(info);
    for (std::int64_t m = 0; m < batch; ++m) {
      if (m == 7 && c.layout != 2) {
        EXPECT_TRUE(inf[m] >= 0 && inf[m] <= n) << "info of the matrix with a NaN: " << inf[m];
        EXPECT_TRUE(std::any_of(hx.begin() + m * n * nrhs, hx.begin() + (m + 1) * n * nrhs, [](C z) { return std::isnan(z.real()); }))
            << "the solution of the matrix with a NaN has none";
        continue;
      }
      expect_solved(a, b, hx, inf[m], m, n, nrhs, t);
      if (m == 5 && c.layout != 2) {
        EXPECT_GT(inf[m], 0) << "matrix 5 has a zero column";
      }
    }
  }
}

// Threads: four at once, each factoring and solving its own matrices on the device (its own queue,
// porta's ordering of the buffers between them), small and blocked; residuals as above.
TEST_P(DenseTest, ThreadsSolveAtOnce) {
  const DType t = dtype();
  if (sizes().back() < 100) GTEST_SKIP() << "the blocked sizes run in float64 and complex64";
  Failures failures;
  std::vector<std::vector<C>> as(4), bs(4);
  for (int w = 0; w < 4; ++w) {
    as[w] = random(2 * 70 * 70);
    bs[w] = random(2 * 70);
  }
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w)
    threads.emplace_back([&, w] {
      try {
        const std::int64_t n = w % 2 ? 70 : 20;
        std::vector<C> a(as[w].begin(), as[w].begin() + 2 * n * n), b(bs[w].begin(), bs[w].begin() + 2 * n);
        Array da = upload_c(a, t, dev()), db = upload_c(b, t, dev());
        Array ipiv = porta::zeros({2 * n}, DType::int32, dev()), info = porta::zeros({2}, DType::int32, dev());
        dense::getrf(t, view(da), view(ipiv), view(info), 2, n);
        dense::getrs(t, view(da), view(ipiv), view(db), 2, n, 1);
        const std::vector<C> x = download(db, t);
        for (std::int64_t m = 0; m < 2; ++m) {
          const double r = residual(a, x, b, m, n, 1);
          const double bound = 8 * n * eps_of(t) * fro(a, m * n * n, n * n) * fro(x, m * n, n);
          if (!(r <= bound))
            failures.add((testing::Message() << "thread " << w << ", n " << n << ", matrix " << m << ": ||Ax - b|| " << r
                                             << " > " << bound).GetString());
        }
      } catch (const std::exception& e) {
        failures.add(std::string("thread threw: ") + e.what());
      }
    });
  for (auto& th : threads) th.join();
  failures.report();
}

// Bad input: dtypes without a decomposition, orgqr's shapes, devices that do not compile.
TEST_P(DenseTest, RefusesBadInput) {
  const DType t = dtype();
  Array a = porta::zeros({16}, DType::int32, dev()), tau = upload_c(std::vector<C>(4, C(0)), t, dev());
  Array info = porta::zeros({1}, DType::int32, dev());
  const std::string msg = thrown_message<porta::DTypeError>([&] { dense::potrf(DType::int32, view(a), view(info), 1, 4); });
  EXPECT_NE(msg.find("int32"), std::string::npos) << msg;
  Array q = upload_c(std::vector<C>(12, C(1)), t, dev());
  const std::string shape = thrown_message<porta::InvalidArgument>([&] { dense::orgqr(t, view(q), view(tau), 1, 3, 4, 2); });
  EXPECT_NE(shape.find("3 x 4"), std::string::npos) << shape;
  for (const Device& d : porta::devices())
    if (!dense::available(d)) {
      Array h = porta::zeros({4}, t, d), hi = porta::zeros({1}, DType::int32, d);
      EXPECT_THROW(dense::potrf(t, view(h), view(hi), 1, 2), porta::BackendUnavailable);
    }
}

PORTA_INSTANTIATE_DEVICES_DTYPES(DenseTest, kSolverDTypes);

// MatmulArgs::subtract, which the blocked drivers' trailing updates use: C -= op(A) op(B) on a
// block of a larger C (an offset, a leading dimension past the block, a batch stride), the elements
// around the block untouched, on every device and, on OpenCL, every GEMM path (the host BLAS, the
// tiled kernel, the tensor-core kernels emulated where the device lacks them, and one FP64 MMA
// configuration forced) in whole-tile and edge shapes; against the host's product in double.
class GemmSubtract : public DeviceDTypeTest {
 protected:
  void SetUp() override {
    DeviceDTypeTest::SetUp();
    PORTA_REQUIRE_DTYPE(dtype());
  }
  // batch x (m x n) at row 2, column 2 of C (ldc n + 6), A m x k (or k x m with ta), B k x n (or n x k).
  void check(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k, bool ta, bool tb, const std::string& what) {
    const DType t = dtype();
    auto random = [&](std::int64_t count) { return uniform_values(t, count, rng()); };
    const std::int64_t ldc = n + 6, rows = m + 4, cstride = rows * ldc, lda = ta ? m : k, ldb = tb ? k : n;
    const std::vector<C> ha = random(batch * m * k), hb = random(batch * k * n), hc = random(batch * cstride);
    Array a = upload_c(ha, t, dev()), b = upload_c(hb, t, dev()), c = upload_c(hc, t, dev());
    porta::detail::MatmulArgs g;
    g.dtype = t;
    g.batch = batch;
    g.m = m;
    g.n = n;
    g.k = k;
    g.a = view(a).buffer->handle();
    g.b = view(b).buffer->handle();
    g.c = view(c).buffer->handle();
    g.a_offset = view(a).offset;
    g.b_offset = view(b).offset;
    g.c_offset = view(c).offset + 2 * ldc + 2;
    g.lda = lda;
    g.ldb = ldb;
    g.ldc = ldc;
    g.stride_a = m * k;
    g.stride_b = k * n;
    g.stride_c = cstride;
    g.trans_a = ta;
    g.trans_b = tb;
    g.subtract = true;
    const auto& q = porta::detail::thread_queue_shared(dev());
    view(a).buffer->before_read(q);
    view(b).buffer->before_read(q);
    view(c).buffer->before_write(q);
    dev().impl().matmul(*q, g);
    view(c).buffer->after_write(q);
    const std::vector<C> got = download(c, t);
    for (std::int64_t p = 0; p < batch; ++p)
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < ldc; ++j) {
          const std::size_t at = static_cast<std::size_t>(p * cstride + i * ldc + j);
          const bool inside = i >= 2 && i < 2 + m && j >= 2 && j < 2 + n;
          if (!inside) {
            ASSERT_EQ(got[at], hc[at]) << what << ": element (" << p << ", " << i << ", " << j << ") outside the block changed";
            continue;
          }
          C want = hc[at];
          double mag = std::abs(hc[at]);
          for (std::int64_t l = 0; l < k; ++l) {
            const C x = ha[static_cast<std::size_t>(p * m * k + (ta ? l * lda + (i - 2) : (i - 2) * lda + l))];
            const C y = hb[static_cast<std::size_t>(p * k * n + (tb ? (j - 2) * ldb + l : l * ldb + (j - 2)))];
            want -= x * y;
            mag += std::abs(x) * std::abs(y);
          }
          ASSERT_LE(std::abs(got[at] - want), 4 * static_cast<double>(k + 2) * eps_of(t) * mag)
              << what << ": C(" << p << ", " << i - 2 << ", " << j - 2 << ") " << got[at] << ", want " << want;
        }
  }
  void shapes(const std::string& path) {
    check(2, 128, 128, 64, false, false, path + ", whole tiles");
    check(1, 37, 70, 19, false, true, path + ", edges, b transposed");
    check(2, 65, 33, 16, true, false, path + ", edges, a transposed");
    check(1, 5, 7, 0, false, false, path + ", k = 0");
  }
};

TEST_P(GemmSubtract, SubtractsInPlaceOnEveryPath) {
  shapes("the default path");
  if (dev().backend() != porta::Backend::opencl) return;
  for (const char* path : {"tiled", "host", "mma"}) {
    if (std::string(path) == "host" && dev().impl().info().kind != porta::DeviceKind::cpu) continue;
    ScopedEnv env("PORTA_OPENCL_GEMM", path);
    shapes(std::string("PORTA_OPENCL_GEMM=") + path);
  }
  if (dtype() == DType::float64) {
    ScopedEnv env("PORTA_OPENCL_GEMM", "mma:mma16x8x8:64x64x16:w32x32");
    check(2, 128, 128, 64, false, false, "the FP64 MMA kernel, whole tiles");
  }
}
PORTA_INSTANTIATE_DEVICES_DTYPES(GemmSubtract, kSolverDTypes);

}  // namespace
