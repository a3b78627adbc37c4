// LU, Cholesky and QR of small matrices on the host, without a LAPACK call: LAPACK's unblocked
// algorithms (getf2, getrs, potf2, geqr2, org2r) written out for column-major matrices with lda = m.
// A batch of 16 x 16 matrices spends most of each OpenBLAS call outside the arithmetic (the buffer
// lock that every getrf and potrf takes, which two threads then contend for; geqr2's dozens of BLAS
// calls a matrix); these loops take none, so a batch spreads over the device's cores. Same pivots as
// LAPACK's (its i?amax: the first largest |re| + |im|, a NaN only where it comes first), the same
// info (OpenBLAS's, where a NaN reaches potrf's diagonal), the same reflectors (larfg's beta and
// tau), the same triangles written.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

namespace porta::detail::small {

// The largest order the host solvers take through these loops rather than LAPACK.
inline constexpr std::int64_t kMaxOrder = 32;

template <class T> struct Real { using type = T; };
template <class R> struct Real<std::complex<R>> { using type = R; };

template <class R> R abs1(R x) { return std::abs(x); }
template <class R> R abs1(const std::complex<R>& x) { return std::abs(x.real()) + std::abs(x.imag()); }
template <class R> R abs2(R x) { return x * x; }
template <class R> R abs2(const std::complex<R>& x) { return x.real() * x.real() + x.imag() * x.imag(); }
template <class R> R conj_of(R x) { return x; }
template <class R> std::complex<R> conj_of(const std::complex<R>& x) { return std::conj(x); }
template <class R> R real_of(R x) { return x; }
template <class R> R real_of(const std::complex<R>& x) { return x.real(); }
template <class R> R imag_of(R) { return R(0); }
template <class R> R imag_of(const std::complex<R>& x) { return x.imag(); }
// a * b written out for complex: std::complex's operator* checks for NaN and infinite parts at
// every product (C's Annex G, through a libgcc call), several times the arithmetic of these loops.
template <class R> R mul(R a, R b) { return a * b; }
template <class R> std::complex<R> mul(const std::complex<R>& a, const std::complex<R>& b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

// x[i] / p for the count entries of x: by the reciprocal where p is a normal number, as LAPACK's
// getf2 (a subnormal pivot's reciprocal would overflow).
template <class T> void scale_column(T* x, std::int64_t count, T p) {
  using R = typename Real<T>::type;
  if (abs1(p) >= std::numeric_limits<R>::min()) {
    const T r = T(1) / p;
    for (std::int64_t i = 0; i < count; ++i) x[i] = mul(x[i], r);
  } else {
    for (std::int64_t i = 0; i < count; ++i) x[i] /= p;
  }
}

// LU with partial pivoting of the m x n column-major a (lda m): L's multipliers below the
// diagonal, U on and above, ipiv 1-based as LAPACK's. Returns the 1-based index of the first zero
// pivot (the factorization goes on past it, as LAPACK's does), 0 if none.
template <class T, class I> int getrf(int m, int n, T* a, I* ipiv) {
  using R = typename Real<T>::type;
  const int mn = m < n ? m : n;
  int info = 0;
  for (int j = 0; j < mn; ++j) {
    T* cj = a + static_cast<std::int64_t>(j) * m;
    int p = j;
    R best = abs1(cj[j]);
    for (int i = j + 1; i < m; ++i) {
      const R v = abs1(cj[i]);
      if (v > best) best = v, p = i;
    }
    ipiv[j] = static_cast<I>(p + 1);
    if (cj[p] != T(0)) {
      if (p != j)
        for (int c = 0; c < n; ++c) std::swap(a[j + static_cast<std::int64_t>(c) * m], a[p + static_cast<std::int64_t>(c) * m]);
      scale_column(cj + j + 1, m - j - 1, cj[j]);
    } else if (info == 0) {
      info = j + 1;
    }
    for (int c = j + 1; c < n; ++c) {
      T* cc = a + static_cast<std::int64_t>(c) * m;
      const T u = cc[j];
      for (int i = j + 1; i < m; ++i) cc[i] -= mul(cj[i], u);
    }
  }
  return info;
}

// Solves A X = B ('N') or A^T X = B ('T', no conjugate) for the n x nrhs column-major b (ldb n)
// with getrf's factors of the n x n A.
template <class T, class I> void getrs(char trans, int n, int nrhs, const T* lu, const I* ipiv, T* b) {
  const auto at = [&](int r, int c) { return lu[r + static_cast<std::int64_t>(c) * n]; };
  for (int k = 0; k < nrhs; ++k) {
    T* x = b + static_cast<std::int64_t>(k) * n;
    if (trans == 'N') {
      for (int j = 0; j < n; ++j)
        if (ipiv[j] - 1 != j) std::swap(x[j], x[ipiv[j] - 1]);
      for (int c = 0; c < n; ++c) {  // L y = P b, unit diagonal, by columns
        const T* col = lu + static_cast<std::int64_t>(c) * n;
        for (int r = c + 1; r < n; ++r) x[r] -= mul(col[r], x[c]);
      }
      for (int c = n - 1; c >= 0; --c) {  // U x = y, by columns
        const T* col = lu + static_cast<std::int64_t>(c) * n;
        x[c] /= col[c];
        for (int r = 0; r < c; ++r) x[r] -= mul(col[r], x[c]);
      }
    } else {
      for (int r = 0; r < n; ++r) {  // U^T y = b: row r of U^T is U's column r, contiguous
        const T* col = lu + static_cast<std::int64_t>(r) * n;
        T s = x[r];
        for (int c = 0; c < r; ++c) s -= mul(col[c], x[c]);
        x[r] = s / at(r, r);
      }
      for (int r = n - 1; r >= 0; --r) {  // L^T z = y, unit diagonal
        const T* col = lu + static_cast<std::int64_t>(r) * n;
        T s = x[r];
        for (int c = r + 1; c < n; ++c) s -= mul(col[c], x[c]);
        x[r] = s;
      }
      for (int j = n - 1; j >= 0; --j)
        if (ipiv[j] - 1 != j) std::swap(x[j], x[ipiv[j] - 1]);
    }
  }
}

// Cholesky of the n x n column-major Hermitian a (lda n) from its uplo triangle: A = U^H U ('U')
// or L L^H ('L') in that triangle, the other untouched. Returns the 1-based order of the first
// leading minor that is not positive definite, 0 if none. A NaN on the diagonal runs through as
// NaNs, as OpenBLAS's potrf (and so NumPy's cholesky) gives it; reference LAPACK's potf2 stops there.
template <class T> int potrf(char uplo, int n, T* a) {
  using R = typename Real<T>::type;
  const auto col = [&](int c) { return a + static_cast<std::int64_t>(c) * n; };
  if (uplo == 'U') {  // left-looking by columns: every sum runs down contiguous columns
    for (int j = 0; j < n; ++j) {
      T* cj = col(j);
      R d = real_of(cj[j]);
      for (int k = 0; k < j; ++k) d -= abs2(cj[k]);
      if (d <= R(0)) {
        cj[j] = T(d);
        return j + 1;
      }
      d = std::sqrt(d);
      cj[j] = T(d);
      const R inv = R(1) / d;
      for (int c = j + 1; c < n; ++c) {
        T* cc = col(c);
        T s = cc[j];
        for (int k = 0; k < j; ++k) s -= mul(conj_of(cj[k]), cc[k]);
        cc[j] = s * inv;
      }
    }
    return 0;
  }
  for (int j = 0; j < n; ++j) {  // right-looking: column j scaled, then the trailing lower triangle
    T* cj = col(j);
    const R d = real_of(cj[j]);
    if (d <= R(0)) {
      cj[j] = T(d);
      return j + 1;
    }
    const R s = std::sqrt(d);
    cj[j] = T(s);
    const R inv = R(1) / s;
    for (int i = j + 1; i < n; ++i) cj[i] *= inv;
    for (int c = j + 1; c < n; ++c) {
      T* cc = col(c);
      const T u = conj_of(cj[c]);
      for (int i = c; i < n; ++i) cc[i] -= mul(cj[i], u);
    }
  }
  return 0;
}

// The 2-norm of x's count entries, as LAPACK's nrm2: the plain sum of squares where it neither
// overflows nor underflows, else scaled by the largest magnitude.
template <class T> typename Real<T>::type norm2(const T* x, int count) {
  using R = typename Real<T>::type;
  R ssq = 0;
  for (int i = 0; i < count; ++i) ssq += abs2(x[i]);
  if (ssq >= std::numeric_limits<R>::min() && ssq <= std::numeric_limits<R>::max()) return std::sqrt(ssq);
  R big = 0;
  for (int i = 0; i < count; ++i) big = std::max({big, std::abs(real_of(x[i])), std::abs(imag_of(x[i]))});
  if (big == R(0) || !(big <= std::numeric_limits<R>::max())) return big;  // zeros, or an infinity or NaN
  ssq = 0;
  for (int i = 0; i < count; ++i) ssq += abs2(x[i] / big);
  return big * std::sqrt(ssq);
}

// sqrt(x^2 + y^2 + z^2) without overflow or harmful underflow, as LAPACK's lapy3 (std::hypot is
// several times slower: it rounds correctly).
template <class R> R lapy3(R x, R y, R z) {
  const R w = std::max({std::abs(x), std::abs(y), std::abs(z)});
  if (w == R(0) || !(w <= std::numeric_limits<R>::max())) return std::abs(x) + std::abs(y) + std::abs(z);
  const R a = x / w, b = y / w, c = z / w;
  return w * std::sqrt(a * a + b * b + c * c);
}

// LAPACK's larfg: the reflector H = I - tau v v^H with H^H (alpha, x) = (beta, 0), v = (1, x / (alpha
// - beta)) written over x and beta over alpha; beta real, of the sign opposite to alpha's real part.
// Returns tau (0, H = I, where x is zero and alpha real).
template <class T> T larfg(int n, T& alpha, T* x) {
  using R = typename Real<T>::type;
  // A complex alpha alone still gets a reflector, one that makes beta real (LAPACK's clarfg).
  if (n <= 0 || (n == 1 && std::is_same_v<T, R>)) return T(0);
  R xnorm = norm2(x, n - 1);
  if (xnorm == R(0) && imag_of(alpha) == R(0)) return T(0);
  R beta = -std::copysign(lapy3(real_of(alpha), imag_of(alpha), xnorm), real_of(alpha));
  // LAPACK's safmin = lamch('S') / lamch('E'): below it beta and x are scaled up until it is not.
  const R safmin = std::numeric_limits<R>::min() / (std::numeric_limits<R>::epsilon() / 2), rsafmn = R(1) / safmin;
  int knt = 0;
  if (std::abs(beta) < safmin) {
    do {
      ++knt;
      for (int i = 0; i < n - 1; ++i) x[i] *= rsafmn;
      beta *= rsafmn;
      alpha *= rsafmn;
    } while (std::abs(beta) < safmin && knt < 20);
    xnorm = norm2(x, n - 1);
    beta = -std::copysign(lapy3(real_of(alpha), imag_of(alpha), xnorm), real_of(alpha));
  }
  T tau;
  if constexpr (std::is_same_v<T, R>) {
    tau = (beta - alpha) / beta;
  } else {
    tau = T((beta - alpha.real()) / beta, -alpha.imag() / beta);
  }
  const T scale = T(1) / (alpha - T(beta));
  for (int i = 0; i < n - 1; ++i) x[i] = mul(x[i], scale);
  for (int j = 0; j < knt; ++j) beta *= safmin;
  alpha = T(beta);
  return tau;
}

// C -= tau v (v^H C) for the rows x cols column-major c (ldc ld): H = I - tau v v^H applied from
// the left, as LAPACK's larf('Left').
template <class T> void larf_left(int rows, int cols, const T* v, T tau, T* c, int ld) {
  if (tau == T(0)) return;
  for (int j = 0; j < cols; ++j) {
    T* cj = c + static_cast<std::int64_t>(j) * ld;
    T s(0);
    for (int r = 0; r < rows; ++r) s += mul(conj_of(v[r]), cj[r]);
    const T f = mul(tau, s);
    for (int r = 0; r < rows; ++r) cj[r] -= mul(v[r], f);
  }
}

// Householder QR of the m x n column-major a (lda m), as LAPACK's geqr2: R on and above the
// diagonal, the reflectors' v below it, tau min(m, n) scalars.
template <class T> void geqrf(int m, int n, T* a, T* tau) {
  const int k = m < n ? m : n;
  for (int i = 0; i < k; ++i) {
    T* ci = a + static_cast<std::int64_t>(i) * m;
    tau[i] = larfg(m - i, ci[i], ci + i + 1);
    if (i + 1 < n) {
      const T aii = ci[i];
      ci[i] = T(1);
      larf_left(m - i, n - i - 1, ci + i, conj_of(tau[i]), ci + m + i, m);
      ci[i] = aii;
    }
  }
}

// The m x n Q with orthonormal columns from k of geqrf's reflectors in the m x n column-major a
// (lda m), as LAPACK's org2r / ung2r.
template <class T> void orgqr(int m, int n, int k, T* a, const T* tau) {
  const auto col = [&](int c) { return a + static_cast<std::int64_t>(c) * m; };
  for (int j = k; j < n; ++j) {
    T* cj = col(j);
    for (int r = 0; r < m; ++r) cj[r] = T(0);
    if (j < m) cj[j] = T(1);
  }
  for (int i = k - 1; i >= 0; --i) {
    T* ci = col(i);
    if (i + 1 < n) {
      ci[i] = T(1);
      larf_left(m - i, n - i - 1, ci + i, tau[i], col(i + 1) + i, m);
    }
    for (int r = i + 1; r < m; ++r) ci[r] = mul(-tau[i], ci[r]);
    ci[i] = T(1) - tau[i];
    for (int r = 0; r < i; ++r) ci[r] = T(0);
  }
}

}  // namespace porta::detail::small
