// The host's small-matrix LU and Cholesky (backends/host/small_solvers.hpp) against LAPACKE's getrf,
// getrs and potrf on the same matrices: every dtype, both transposes and both triangles (the core
// reaches only some of them through porta's arrays), orders around the loops' bound, zero pivots,
// matrices that are not positive definite, NaNs. Host code on host memory: no device, so these are
// TESTs, not TEST_Ps over porta::devices(); the solvers reach every CPU device through
// linalg_test and Python's linalg suites.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapacke.h>

#include "host/small_solvers.hpp"

namespace {

namespace small = porta::detail::small;
using C64 = std::complex<float>;
using C128 = std::complex<double>;

template <class T> struct Lapacke;
// LAPACKE's _work forms (the plain ones refuse a NaN), with the workspace LAPACK's query asks for.
#define PORTA_ORGQR(T, name)                                                                        \
  int orgqr_##name(int m, int n, int k, T* a, const T* tau) {                                      \
    T q{};                                                                                          \
    LAPACKE_##name##_work(LAPACK_COL_MAJOR, m, n, k, a, m > 1 ? m : 1, tau, &q, -1);                \
    std::vector<T> w(static_cast<std::size_t>(std::max(1.0, static_cast<double>(std::real(q)))));   \
    return LAPACKE_##name##_work(LAPACK_COL_MAJOR, m, n, k, a, m > 1 ? m : 1, tau, w.data(), static_cast<int>(w.size())); \
  }
PORTA_ORGQR(float, sorgqr)
PORTA_ORGQR(double, dorgqr)
PORTA_ORGQR(C64, cungqr)
PORTA_ORGQR(C128, zungqr)
#undef PORTA_ORGQR
int orgqr_of(int m, int n, int k, float* a, const float* t) { return orgqr_sorgqr(m, n, k, a, t); }
int orgqr_of(int m, int n, int k, double* a, const double* t) { return orgqr_dorgqr(m, n, k, a, t); }
int orgqr_of(int m, int n, int k, C64* a, const C64* t) { return orgqr_cungqr(m, n, k, a, t); }
int orgqr_of(int m, int n, int k, C128* a, const C128* t) { return orgqr_zungqr(m, n, k, a, t); }
#define PORTA_LAPACKE(T, p)                                                                                     \
  template <> struct Lapacke<T> {                                                                             \
    static int getrf(int m, int n, T* a, int* ipiv) {                                                         \
      return LAPACKE_##p##getrf_work(LAPACK_COL_MAJOR, m, n, a, m > 1 ? m : 1, ipiv);                         \
    }                                                                                                         \
    static int getrs(char t, int n, int nrhs, const T* a, const int* ipiv, T* b) {                           \
      return LAPACKE_##p##getrs_work(LAPACK_COL_MAJOR, t, n, nrhs, a, n > 1 ? n : 1, ipiv, b, n > 1 ? n : 1); \
    }                                                                                                         \
    static int potrf(char uplo, int n, T* a) { return LAPACKE_##p##potrf_work(LAPACK_COL_MAJOR, uplo, n, a, n > 1 ? n : 1); } \
    static int geqrf(int m, int n, T* a, T* tau) {                                                           \
      T q{};                                                                                                  \
      LAPACKE_##p##geqrf_work(LAPACK_COL_MAJOR, m, n, a, m > 1 ? m : 1, tau, &q, -1);                         \
      std::vector<T> w(static_cast<std::size_t>(std::max(1.0, static_cast<double>(std::real(q)))));            \
      return LAPACKE_##p##geqrf_work(LAPACK_COL_MAJOR, m, n, a, m > 1 ? m : 1, tau, w.data(), static_cast<int>(w.size())); \
    }                                                                                                         \
    static int orgqr(int m, int n, int k, T* a, const T* tau) { return orgqr_of(m, n, k, a, tau); }                        \
  };
PORTA_LAPACKE(float, s)
PORTA_LAPACKE(double, d)
PORTA_LAPACKE(C64, c)
PORTA_LAPACKE(C128, z)
#undef PORTA_LAPACKE

template <class T> using RealOf = typename small::Real<T>::type;

template <class T> T draw(std::mt19937_64& g) {
  std::normal_distribution<double> d;
  if constexpr (std::is_same_v<T, RealOf<T>>) {
    return static_cast<T>(d(g));
  } else {
    using R = RealOf<T>;
    return T(static_cast<R>(d(g)), static_cast<R>(d(g)));
  }
}
template <class T> std::vector<T> random_matrix(std::int64_t count, std::mt19937_64& g) {
  std::vector<T> v(static_cast<std::size_t>(count));
  for (T& x : v) x = draw<T>(g);
  return v;
}
// A Hermitian positive-definite n x n matrix (column-major): B^H B + n I.
template <class T> std::vector<T> hpd(int n, std::mt19937_64& g) {
  const std::vector<T> b = random_matrix<T>(std::int64_t{n} * n, g);
  std::vector<T> a(static_cast<std::size_t>(n * n));
  for (int c = 0; c < n; ++c)
    for (int r = 0; r < n; ++r) {
      T s = r == c ? T(static_cast<RealOf<T>>(n)) : T(0);
      for (int k = 0; k < n; ++k) s += small::conj_of(b[static_cast<std::size_t>(k + r * n)]) * b[static_cast<std::size_t>(k + c * n)];
      a[static_cast<std::size_t>(r + c * n)] = s;
    }
  return a;
}
// max |x - y| / max(1, max |y|), NaNs equal where both hold one.
template <class T> double distance(const std::vector<T>& x, const std::vector<T>& y) {
  double d = 0, scale = 1;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const bool nx = std::isnan(std::abs(x[i])), ny = std::isnan(std::abs(y[i]));
    if (nx || ny) {
      if (nx != ny) return std::numeric_limits<double>::infinity();
      continue;
    }
    d = std::max(d, static_cast<double>(std::abs(x[i] - y[i])));
    scale = std::max(scale, static_cast<double>(std::abs(y[i])));
  }
  return d / scale;
}
template <class T> double tolerance(int n) {
  return 64.0 * std::max(n, 1) * static_cast<double>(std::numeric_limits<RealOf<T>>::epsilon());
}

template <class T> class SmallSolvers : public ::testing::Test {};
using Types = ::testing::Types<float, double, C64, C128>;
TYPED_TEST_SUITE(SmallSolvers, Types);

// getrf of random m x n matrices (square and not), then getrs of both transposes of the square ones.
TYPED_TEST(SmallSolvers, LuAndSolveMatchLapack) {
  using T = TypeParam;
  std::mt19937_64 g(7);
  const int shapes[][2] = {{0, 0}, {1, 1}, {2, 2}, {5, 5}, {16, 16}, {17, 17}, {31, 31}, {32, 32}, {3, 7}, {9, 4}, {0, 3}};
  for (const auto& [m, n] : shapes) {
    std::vector<T> a = random_matrix<T>(std::int64_t{m} * n, g), want = a;
    std::vector<int> ipiv(static_cast<std::size_t>(std::min(m, n)) + 1, -1), wpiv = ipiv;
    ASSERT_EQ(small::getrf(m, n, a.data(), ipiv.data()), Lapacke<T>::getrf(m, n, want.data(), wpiv.data())) << m << " x " << n;
    EXPECT_EQ(ipiv, wpiv) << m << " x " << n;
    EXPECT_LT(distance(a, want), tolerance<T>(std::max(m, n))) << m << " x " << n;
    if (m != n) continue;
    for (char t : {'N', 'T'})
      for (int nrhs : {1, 3}) {
        std::vector<T> b = random_matrix<T>(std::int64_t{n} * nrhs, g), wb = b;
        small::getrs(t, n, nrhs, a.data(), ipiv.data(), b.data());
        ASSERT_EQ(Lapacke<T>::getrs(t, n, nrhs, want.data(), wpiv.data(), wb.data()), 0);
        EXPECT_LT(distance(b, wb), tolerance<T>(n) * std::max(n, 1)) << "getrs '" << t << "', n " << n << ", nrhs " << nrhs;
      }
  }
}

// A zero column gives LAPACK's info (its first zero pivot) and the factorization goes on past it;
// a NaN runs through to the same info and the same NaNs.
TYPED_TEST(SmallSolvers, ZeroPivotsAndNaNsAsLapack) {
  using T = TypeParam;
  std::mt19937_64 g(11);
  for (int n : {1, 4, 17}) {
    for (int zero : {0, n / 2, n - 1}) {
      std::vector<T> a = random_matrix<T>(std::int64_t{n} * n, g);
      for (int r = 0; r < n; ++r) a[static_cast<std::size_t>(r + zero * n)] = T(0);
      std::vector<T> want = a;
      std::vector<int> ipiv(static_cast<std::size_t>(n)), wpiv = ipiv;
      const int info = small::getrf(n, n, a.data(), ipiv.data());
      EXPECT_EQ(info, Lapacke<T>::getrf(n, n, want.data(), wpiv.data())) << "zero column " << zero << " of " << n;
      EXPECT_GT(info, 0);
      EXPECT_EQ(ipiv, wpiv);
      EXPECT_LT(distance(a, want), tolerance<T>(n)) << "zero column " << zero << " of " << n;
    }
    std::vector<T> a = random_matrix<T>(std::int64_t{n} * n, g);
    a[static_cast<std::size_t>(n * n / 2)] = T(std::numeric_limits<RealOf<T>>::quiet_NaN());
    std::vector<T> want = a;
    std::vector<int> ipiv(static_cast<std::size_t>(n)), wpiv = ipiv;
    EXPECT_EQ(small::getrf(n, n, a.data(), ipiv.data()), Lapacke<T>::getrf(n, n, want.data(), wpiv.data())) << "NaN, n " << n;
    bool any_nan = false;
    for (const T& x : a) any_nan = any_nan || std::isnan(std::abs(x));
    EXPECT_TRUE(any_nan) << "the NaN vanished, n " << n;
  }
}

// potrf of both triangles: the factor matches LAPACK's, the other triangle is left as it was.
TYPED_TEST(SmallSolvers, CholeskyMatchesLapackInEitherTriangle) {
  using T = TypeParam;
  std::mt19937_64 g(13);
  const T sentinel = T(RealOf<T>(123.5));
  for (int n : {0, 1, 2, 7, 16, 31, 32})
    for (char uplo : {'U', 'L'}) {
      std::vector<T> a = hpd<T>(n, g);
      for (int c = 0; c < n; ++c)  // the triangle not read holds the sentinel
        for (int r = 0; r < n; ++r)
          if (uplo == 'U' ? r > c : r < c) a[static_cast<std::size_t>(r + c * n)] = sentinel;
      std::vector<T> want = a;
      ASSERT_EQ(small::potrf(uplo, n, a.data()), 0) << uplo << ", n " << n;
      ASSERT_EQ(Lapacke<T>::potrf(uplo, n, want.data()), 0);
      EXPECT_LT(distance(a, want), tolerance<T>(n)) << uplo << ", n " << n;
      for (int c = 0; c < n; ++c)
        for (int r = 0; r < n; ++r) {
          if (uplo == 'U' ? r > c : r < c) {
            ASSERT_EQ(a[static_cast<std::size_t>(r + c * n)], sentinel) << uplo << " wrote the other triangle";
          }
        }
    }
}

// A matrix that is not positive definite at order k (its k-th leading minor) gives LAPACK's info; a
// NaN on the diagonal gives OpenBLAS's (0: NaNs out, as NumPy's cholesky answers).
TYPED_TEST(SmallSolvers, CholeskyInfoAsLapack) {
  using T = TypeParam;
  std::mt19937_64 g(17);
  for (int n : {1, 5, 20})
    for (char uplo : {'U', 'L'})
      for (int k : {0, n / 2, n - 1})
        for (bool nan : {false, true}) {
          std::vector<T> a = hpd<T>(n, g);
          a[static_cast<std::size_t>(k + k * n)] = nan ? T(std::numeric_limits<RealOf<T>>::quiet_NaN()) : T(RealOf<T>(-1));
          std::vector<T> want = a;
          const int info = small::potrf(uplo, n, a.data());
          EXPECT_EQ(info, Lapacke<T>::potrf(uplo, n, want.data())) << uplo << ", n " << n << ", k " << k << ", NaN " << nan;
          EXPECT_EQ(info > 0, !nan);
        }
}

// geqrf's R, reflectors and taus, then orgqr's Q, against LAPACK's on square, tall and wide
// matrices; a zero column (tau 0), a column of tiny numbers (larfg's rescaling below its safe
// minimum) and a NaN (NaNs out, no hang) among them.
TYPED_TEST(SmallSolvers, QrMatchesLapack) {
  using T = TypeParam;
  using R = RealOf<T>;
  std::mt19937_64 g(19);
  const int shapes[][2] = {{0, 0}, {1, 1}, {2, 2}, {7, 7}, {16, 16}, {32, 32}, {20, 9}, {9, 20}, {1, 5}, {5, 1}};
  for (const auto& [m, n] : shapes)
    for (int edge = 0; edge < 4; ++edge) {
      if (edge > 0 && n < 2) continue;
      std::vector<T> a = random_matrix<T>(std::int64_t{m} * n, g);
      const int col = n / 2;
      if (edge == 1)
        for (int r = 0; r < m; ++r) a[static_cast<std::size_t>(r + col * m)] = T(0);
      if (edge == 2)
        for (int r = 0; r < m; ++r) a[static_cast<std::size_t>(r + col * m)] *= R(16) * std::numeric_limits<R>::min();
      if (edge == 3) a[static_cast<std::size_t>(m * n / 2)] = T(std::numeric_limits<R>::quiet_NaN());
      const int k = std::min(m, n);
      std::vector<T> want = a, tau(static_cast<std::size_t>(k) + 1), wtau = tau;
      small::geqrf(m, n, a.data(), tau.data());
      ASSERT_EQ(Lapacke<T>::geqrf(m, n, want.data(), wtau.data()), 0);
      // The tiny column's reflector is exact only relative to its own scale: compare it scaled up.
      std::vector<T> sa = a, sw = want;
      if (edge == 2)
        for (int r = 0; r < std::min(m, col + 1); ++r) {
          sa[static_cast<std::size_t>(r + col * m)] /= std::numeric_limits<R>::min();
          sw[static_cast<std::size_t>(r + col * m)] /= std::numeric_limits<R>::min();
        }
      const std::string what = std::to_string(m) + " x " + std::to_string(n) + ", edge " + std::to_string(edge);
      if (edge == 3) {  // NaNs out as LAPACK's, not necessarily in the same entries (its nrm2 differs)
        bool nan = false;
        for (const T& x : a) nan = nan || std::isnan(std::abs(x));
        EXPECT_TRUE(nan) << "the NaN vanished, " << what;
        continue;
      }
      EXPECT_LT(distance(sa, sw), tolerance<T>(std::max(m, n))) << "geqrf " << what;
      EXPECT_LT(distance(tau, wtau), tolerance<T>(std::max(m, n))) << "tau " << what;
      if (edge == 1 && col < k && std::is_same_v<T, R>) {
        EXPECT_EQ(tau[static_cast<std::size_t>(col)], T(0)) << what;
      }
      // Q of the first k columns (reduced) and, for tall matrices, of fewer reflectors than columns.
      for (int kk : {k, k / 2}) {
        if (kk > n) continue;
        std::vector<T> q(want.begin(), want.begin() + std::int64_t{m} * k), wq = q;
        small::orgqr(m, k, kk, q.data(), wtau.data());
        ASSERT_EQ(Lapacke<T>::orgqr(m, k, kk, wq.data(), wtau.data()), 0);
        EXPECT_LT(distance(q, wq), tolerance<T>(std::max(m, n))) << "orgqr k " << kk << ", " << what;
      }
    }
}

}  // namespace
