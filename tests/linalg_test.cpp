// porta::linalg's decompositions on every device against properties checked on the host in
// double precision: residuals ||A x - b|| / (||A|| ||x||), reconstructions (L L^H, Q R, V diag(w)
// V^H, U diag(s) Vh) and orthogonality, with bounds of a few n * eps (times the condition number
// where it enters); determinants against the host's LU. Random matrices in all four dtypes with
// orders 1 (solve), 5 and 37 (no multiple of any block), stacks of 2 x 3, 0 x 0, transposed and sliced
// views, singular and not-positive-definite inputs (LinAlgError naming the matrix), bad shapes and
// dtypes. The sizes stay small: every case is a few LAPACK calls and a handful of kernels.
#include "test_common.hpp"

#include <porta/linalg.hpp>
#include <porta/manip.hpp>

#include <cmath>
#include <complex>
#include <limits>
#include <thread>

namespace porta_test {
namespace {

namespace la = porta::linalg;
using C = std::complex<double>;

constexpr DType kSolverDTypes[] = {DType::float32, DType::float64, DType::complex64, DType::complex128};

// A stack of matrices on the host: (batch, rows, cols), row-major.
struct HostStack {
  std::int64_t batch = 0, rows = 0, cols = 0;
  std::vector<C> v;
  C& at(std::int64_t b, std::int64_t i, std::int64_t j) { return v[static_cast<std::size_t>((b * rows + i) * cols + j)]; }
  C at(std::int64_t b, std::int64_t i, std::int64_t j) const {
    return v[static_cast<std::size_t>((b * rows + i) * cols + j)];
  }
};

HostStack to_host(const Array& a) {
  HostStack h;
  h.rows = a.ndim() >= 2 ? a.dim(-2) : 1;
  h.cols = a.ndim() >= 1 ? a.dim(-1) : 1;
  h.batch = h.rows * h.cols == 0 ? 0 : a.size() / (h.rows * h.cols);
  if (a.ndim() >= 2 && h.rows * h.cols == 0) {
    h.batch = 1;
    for (int i = 0; i < a.ndim() - 2; ++i) h.batch *= a.dim(i);
  }
  // Read in the array's own dtype: a cast on the device would be a kernel of its own per layout
  // (PoCL compiles each in about a second), where the plain copy of a view is the one the solvers'
  // transposing copies already compiled.
  switch (a.dtype()) {
    case DType::float32: for (float x : a.to_vector<float>()) h.v.emplace_back(x); break;
    case DType::float64: for (double x : a.to_vector<double>()) h.v.emplace_back(x); break;
    case DType::complex64: for (auto x : a.to_vector<std::complex<float>>()) h.v.emplace_back(x); break;
    case DType::complex128: h.v = a.to_vector<C>(); break;
    default: h.v = a.astype(DType::complex128).to_vector<C>(); break;
  }
  return h;
}

std::vector<double> reals(const Array& a) {
  std::vector<double> r;
  for (C x : to_host(a).v) r.push_back(x.real());
  return r;
}

HostStack product(const HostStack& a, const HostStack& b) {
  HostStack c{std::max(a.batch, b.batch), a.rows, b.cols, {}};
  c.v.assign(static_cast<std::size_t>(c.batch * c.rows * c.cols), 0);
  for (std::int64_t p = 0; p < c.batch; ++p)
    for (std::int64_t i = 0; i < a.rows; ++i)
      for (std::int64_t k = 0; k < a.cols; ++k)
        for (std::int64_t j = 0; j < b.cols; ++j)
          c.at(p, i, j) += a.at(a.batch == 1 ? 0 : p, i, k) * b.at(b.batch == 1 ? 0 : p, k, j);
  return c;
}

HostStack adjoint(const HostStack& a) {
  HostStack t{a.batch, a.cols, a.rows, {}};
  t.v.resize(a.v.size());
  for (std::int64_t p = 0; p < a.batch; ++p)
    for (std::int64_t i = 0; i < a.rows; ++i)
      for (std::int64_t j = 0; j < a.cols; ++j) t.at(p, j, i) = std::conj(a.at(p, i, j));
  return t;
}

// The Frobenius norm of matrix p of a stack, and of the difference of two stacks' matrices.
double norm(const HostStack& a, std::int64_t p) {
  double s = 0;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < a.cols; ++j) s += std::norm(a.at(p, i, j));
  return std::sqrt(s);
}
double distance(const HostStack& a, const HostStack& b, std::int64_t p) {
  double s = 0;
  for (std::int64_t i = 0; i < a.rows; ++i)
    for (std::int64_t j = 0; j < a.cols; ++j) s += std::norm(a.at(p, i, j) - b.at(p, i, j));
  return std::sqrt(s);
}
HostStack identity(std::int64_t batch, std::int64_t n) {
  HostStack e{batch, n, n, std::vector<C>(static_cast<std::size_t>(batch * n * n), 0)};
  for (std::int64_t p = 0; p < batch; ++p)
    for (std::int64_t i = 0; i < n; ++i) e.at(p, i, i) = 1;
  return e;
}

double eps(DType t) { return porta::finfo(t).eps; }

class Linalg : public DeviceDTypeTest {
 protected:
  void SetUp() override {
    DeviceDTypeTest::SetUp();
    if (!dev().supports(dtype())) GTEST_SKIP() << dev().spec() << " has no " << porta::name(dtype());
  }
  // Random entries in [-1, 1] (both parts for complex), plus `diagonal` on the diagonal.
  Array random(const Shape& shape, double diagonal = 0) {
    const std::int64_t n = porta::element_count(shape);
    const std::int64_t rows = shape.size() >= 2 ? shape[shape.size() - 2] : 1, cols = shape.back();
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<C> v(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      v[static_cast<std::size_t>(i)] = C(u(rng()), is_complex(dtype()) ? u(rng()) : 0);
      const std::int64_t r = (i / cols) % rows, c = i % cols;
      if (r == c) v[static_cast<std::size_t>(i)] += diagonal;
    }
    return porta::from_host(v, shape, dev()).astype(dtype());
  }
  // Hermitian positive definite: B B^H + n I.
  Array spd(const Shape& shape) {
    Array b = random(shape);
    return porta::add(la::matmul(b.reshape({-1, shape[shape.size() - 2], shape.back()}),
                                 porta::conj(la::matrix_transpose(b.reshape({-1, shape[shape.size() - 2], shape.back()})))),
                      porta::multiply(porta::eye(shape.back(), dtype(), dev()), static_cast<double>(shape.back())))
        .reshape(shape);
  }
  // PoCL compiles each kernel of a dtype once a process (about a second each), so the tests that
  // need the most distinct kernels sample the dtypes: every test runs in float64 and complex64
  // (both kinds, both precisions' storage); solve and cholesky in all four.
  // True when skipped: GTEST_SKIP in a helper returns from the helper only, so the test returns.
  bool sample() {
    if (dtype() == DType::float32 || dtype() == DType::complex128)
      [&] { GTEST_SKIP() << "sampled on float64 and complex64 (solve and cholesky take every dtype)"; }();
    return IsSkipped();
  }
  double tol(std::int64_t n, double factor = 30) const { return factor * static_cast<double>(std::max<std::int64_t>(n, 1)) * eps(real_dtype(dtype())); }
};

TEST_P(Linalg, SolveResidualIsSmall) {
  for (std::int64_t n : {1, 5, 37}) {
    Array a = random({2, 3, n, n}, 2.0), b = random({2, 3, n, 4});
    const std::vector<C> before = to_host(a).v;
    Array x = la::solve(a, b);
    ASSERT_EQ(x.shape(), (Shape{2, 3, n, 4}));
    EXPECT_EQ(x.dtype(), dtype());
    HostStack ha = to_host(a), hx = to_host(x), hb = to_host(b), r = product(ha, hx);
    for (std::int64_t p = 0; p < ha.batch; ++p)
      EXPECT_LT(distance(r, hb, p) / (norm(ha, p) * norm(hx, p)), tol(n)) << "n " << n << " matrix " << p;
    EXPECT_EQ(to_host(a).v, before) << "solve changed its input";
  }
}

// porta's one-launch solve through its warp kernel (PORTA_SOLVER=porta, PORTA_SMALL_SOLVE=warp; on
// PoCL the shuffles emulated in local memory; Kokkos solves through LAPACK whatever they say): a
// batch of seven 16 x 16 matrices through a transposed view, then the same with matrix 3
// singular, a LinAlgError naming it. (Not named Solve*: linalg.porta_solver runs those again.)
TEST_P(Linalg, WarpKernelResidualsAndSingularIndex) {
  ScopedEnv porta_solver("PORTA_SOLVER", "porta"), warp("PORTA_SMALL_SOLVE", "warp");
  const std::int64_t n = 16;
  Array a = random({7, n, n}, 2.0), b = random({7, n, 1});
  Array at = la::matrix_transpose(a);
  Array x = la::solve(at, b);
  HostStack hat = to_host(at.copy()), hx = to_host(x), hb = to_host(b), r = product(hat, hx);
  for (std::int64_t p = 0; p < 7; ++p)
    EXPECT_LT(distance(r, hb, p) / (norm(hat, p) * norm(hx, p)), tol(n)) << "matrix " << p;
  Array s = porta::concatenate({a.slice({porta::upto(3)}), porta::zeros({1, n, n}, dtype(), dev()), a.slice({porta::from(4)})}, 0);
  try {
    la::solve(la::matrix_transpose(s), b);
    ADD_FAILURE() << "solve of a stack with a singular matrix did not throw";
  } catch (const porta::LinAlgError& err) {
    EXPECT_EQ(err.batch_index(), 3) << err.what();
  }
}

TEST_P(Linalg, SolveVectorBroadcastAndViews) {
  if (sample()) return;
  const std::int64_t n = 6;
  Array a = random({n, n}, 2.0);
  Array at = la::matrix_transpose(a);  // a transposed view
  Array b = random({3, n});            // a stack of three vectors: (3, n) is a matrix in NumPy 2, so solve a.T with b.T
  Array x = la::solve(at, la::matrix_transpose(b));
  HostStack r = product(to_host(at.copy()), to_host(x)), hb = to_host(la::matrix_transpose(b).copy());
  EXPECT_LT(distance(r, hb, 0), tol(n) * norm(to_host(at.copy()), 0) * norm(to_host(x), 0));
  Array v = random({2 * n}).slice({porta::every(2)});  // a strided vector
  Array xv = la::solve(at, v);
  ASSERT_EQ(xv.shape(), (Shape{n}));
  HostStack rv = product(to_host(at.copy()), to_host(xv.reshape({n, 1})));
  HostStack hv = to_host(v.reshape({n, 1}));
  EXPECT_LT(distance(rv, hv, 0), tol(n) * norm(to_host(at.copy()), 0) * norm(to_host(xv.reshape({n, 1})), 0));
  Array xs = la::solve(random({2, 1, n, n}, 2.0), random({3, n, 2}));  // leading dimensions broadcast
  EXPECT_EQ(xs.shape(), (Shape{2, 3, n, 2}));
  // Contiguous stacks at an offset in their buffers (what the CPU devices' solvers copy in from,
  // SolverArgs::src), left as they were.
  Array as = random({4, n, n}, 2.0).slice({porta::from(1)}), bs = random({5, n, 3}).slice({porta::from(2)});
  const HostStack has = to_host(as), hbs = to_host(bs);
  Array xo = la::solve(as, bs);
  ASSERT_EQ(xo.shape(), (Shape{3, n, 3}));
  const HostStack hxo = to_host(xo), ro = product(has, hxo), as_after = to_host(as), bs_after = to_host(bs);
  for (std::int64_t p = 0; p < 3; ++p) {
    EXPECT_LT(distance(ro, hbs, p), tol(n) * norm(has, p) * norm(hxo, p)) << "matrix " << p;
    EXPECT_EQ(distance(as_after, has, p), 0.0) << "matrix " << p;
    EXPECT_EQ(distance(bs_after, hbs, p), 0.0) << "matrix " << p;
  }
}

TEST_P(Linalg, InvDetSlogdetMatchTheHost) {
  if (sample()) return;
  const std::int64_t n = 7;
  Array a = random({3, n, n}, 1.5);
  HostStack ha = to_host(a), hi = to_host(la::inv(a)), e = identity(3, n);
  HostStack prod = product(ha, hi);
  for (std::int64_t p = 0; p < 3; ++p) EXPECT_LT(distance(prod, e, p) / (norm(ha, p) * norm(hi, p)), tol(n));
  // det by the host's own elimination with partial pivoting, in double.
  std::vector<C> dets = to_host(la::det(a)).v;
  auto slog = la::slogdet(a);
  std::vector<C> sign = to_host(slog.sign).v;
  std::vector<double> logabs = reals(slog.logabsdet);
  for (std::int64_t p = 0; p < 3; ++p) {
    std::vector<C> m(ha.v.begin() + p * n * n, ha.v.begin() + (p + 1) * n * n);
    C d = 1;
    for (std::int64_t k = 0; k < n; ++k) {
      std::int64_t piv = k;
      for (std::int64_t i = k + 1; i < n; ++i)
        if (std::abs(m[i * n + k]) > std::abs(m[piv * n + k])) piv = i;
      if (piv != k) {
        for (std::int64_t j = 0; j < n; ++j) std::swap(m[k * n + j], m[piv * n + j]);
        d = -d;
      }
      d *= m[k * n + k];
      for (std::int64_t i = k + 1; i < n; ++i) {
        C f = m[i * n + k] / m[k * n + k];
        for (std::int64_t j = k; j < n; ++j) m[i * n + j] -= f * m[k * n + j];
      }
    }
    // Relative errors of n eps times the condition number (here its Frobenius bound).
    const double cond = norm(ha, p) * norm(hi, p);
    EXPECT_LT(std::abs(dets[p] - d), tol(n, 100) * cond * std::abs(d)) << "det of matrix " << p;
    EXPECT_LT(std::abs(sign[p] - d / std::abs(d)), tol(n, 100) * cond) << "slogdet's sign of matrix " << p;
    EXPECT_NEAR(logabs[p], std::log(std::abs(d)), tol(n, 100) * cond) << "slogdet's logabsdet of matrix " << p;
  }
  // A singular matrix: det 0, slogdet (0, -inf), solve and inv a LinAlgError naming matrix 1.
  Array s = porta::concatenate({random({1, 3, 3}, 2.0), porta::zeros({1, 3, 3}, dtype(), dev())}, 0);
  EXPECT_EQ(to_host(la::det(s)).v[1], C(0));
  EXPECT_EQ(reals(la::slogdet(s).logabsdet)[1], -std::numeric_limits<double>::infinity());
  try {
    la::inv(s);
    ADD_FAILURE() << "inv of a singular matrix did not throw";
  } catch (const porta::LinAlgError& err) {
    EXPECT_EQ(err.batch_index(), 1);
    EXPECT_NE(std::string(err.what()).find("singular"), std::string::npos) << err.what();
  }
}

TEST_P(Linalg, CholeskyReconstructs) {
  for (std::int64_t n : {5, 37}) {
    Array a = spd({2, n, n});
    Array l = la::cholesky(a), u = la::cholesky(a, true);
    HostStack ha = to_host(a), hl = to_host(l), rec = product(hl, adjoint(hl));
    HostStack hu = to_host(u), recu = product(adjoint(hu), hu);
    for (std::int64_t p = 0; p < 2; ++p) {
      EXPECT_LT(distance(rec, ha, p) / norm(ha, p), tol(n)) << "n " << n;
      EXPECT_LT(distance(recu, ha, p) / norm(ha, p), tol(n)) << "upper, n " << n;
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = i + 1; j < n; ++j) ASSERT_EQ(hl.at(p, i, j), C(0)) << "L is not lower triangular";
    }
  }
  // Only the lower triangle is read (NumPy's rule): garbage above it changes nothing, from a view
  // at an offset (the solvers that copy their input in read it there) and from a transposed view
  // (a copy first); the input stays as it was.
  {
    const std::int64_t n = 6;
    Array s = spd({3, n, n});
    Array g = porta::add(porta::tril(s), porta::triu(random({3, n, n}), 1)).eval();
    const Array want = la::cholesky(s);
    const std::vector<C> before = to_host(g).v;
    const Array at_offset = la::cholesky(g.slice({porta::from(1)}));
    const Array transposed = la::cholesky(la::matrix_transpose(la::matrix_transpose(g).copy()));
    HostStack hw = to_host(want), ho = to_host(porta::concatenate({want.slice({porta::upto(1)}), at_offset}, 0)), ht = to_host(transposed);
    for (std::int64_t p = 1; p < 3; ++p) EXPECT_LT(distance(ho, hw, p), tol(n) * norm(hw, p)) << "view at an offset, matrix " << p;
    for (std::int64_t p = 0; p < 3; ++p) EXPECT_LT(distance(ht, hw, p), tol(n) * norm(hw, p)) << "transposed view, matrix " << p;
    EXPECT_EQ(to_host(g).v, before) << "cholesky changed its input";
  }
  Array bad = porta::concatenate({spd({1, 4, 4}), porta::negative(spd({1, 4, 4}))}, 0);
  try {
    la::cholesky(bad);
    ADD_FAILURE() << "cholesky of a negative definite matrix did not throw";
  } catch (const porta::LinAlgError& err) {
    EXPECT_EQ(err.batch_index(), 1);
  }
}

TEST_P(Linalg, QrIsOrthogonalAndReconstructs) {
  if (sample()) return;
  for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{9, 5}, {5, 9}, {6, 6}}) {
    Array a = random({2, m, n});
    for (la::QrMode mode : {la::QrMode::reduced, la::QrMode::complete}) {
      auto [q, r] = la::qr(a, mode);
      const std::int64_t k = mode == la::QrMode::complete ? m : std::min(m, n);
      ASSERT_EQ(q.shape(), (Shape{2, m, k}));
      ASSERT_EQ(r.shape(), (Shape{2, k, n}));
      HostStack hq = to_host(q), hr = to_host(r), ha = to_host(a);
      HostStack rec = product(hq, hr), qq = product(adjoint(hq), hq), eye_k = identity(2, k);
      for (std::int64_t p = 0; p < 2; ++p) {
        EXPECT_LT(distance(rec, ha, p) / norm(ha, p), tol(std::max(m, n))) << m << " x " << n;
        EXPECT_LT(distance(qq, eye_k, p), tol(std::max(m, n))) << m << " x " << n;
        for (std::int64_t i = 0; i < k; ++i)
          for (std::int64_t j = 0; j < std::min(i, n); ++j) ASSERT_EQ(hr.at(p, i, j), C(0)) << "R is not upper triangular";
      }
    }
    Array r_only = la::qr(a, la::QrMode::r).R;
    EXPECT_EQ(r_only.shape(), (Shape{2, std::min(m, n), n}));
    // A transposed view (no copy-in: a copy first) factors the same matrix; neither input changes
    // (the host solver reads a contiguous stack where it is).
    const std::vector<C> before = to_host(a).v;
    Array view = la::matrix_transpose(la::matrix_transpose(a).copy());
    auto [qv, rv] = la::qr(view);
    HostStack rec = product(to_host(qv), to_host(rv)), ha = to_host(a);
    for (std::int64_t p = 0; p < 2; ++p) EXPECT_LT(distance(rec, ha, p) / norm(ha, p), tol(std::max(m, n))) << "view, " << m << " x " << n;
    EXPECT_EQ(to_host(a).v, before) << "qr changed its input";
  }
}

TEST_P(Linalg, EighDiagonalises) {
  if (sample()) return;
  for (std::int64_t n : {5, 37}) {
    Array b = random({3, n, n});
    Array a = porta::add(b, porta::conj(la::matrix_transpose(b)));  // Hermitian
    auto [w, v] = la::eigh(a);
    EXPECT_EQ(w.dtype(), real_dtype(dtype()));
    HostStack ha = to_host(a), hv = to_host(v), hw = to_host(w.reshape({3, 1, n}));
    HostStack av = product(ha, hv), vv = product(adjoint(hv), hv), e = identity(3, n);
    HostStack vw = hv;
    for (std::int64_t p = 0; p < 3; ++p)
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) vw.at(p, i, j) *= hw.at(p, 0, j);
    for (std::int64_t p = 0; p < 3; ++p) {
      EXPECT_LT(distance(av, vw, p) / norm(ha, p), tol(n)) << "n " << n;
      EXPECT_LT(distance(vv, e, p), tol(n)) << "n " << n;
      for (std::int64_t j = 1; j < n; ++j) EXPECT_LE(hw.at(p, 0, j - 1).real(), hw.at(p, 0, j).real());
    }
    HostStack vals = to_host(la::eigvalsh(a).reshape({3, 1, n}));
    for (std::int64_t p = 0; p < 3; ++p) EXPECT_LT(distance(vals, hw, p), tol(n) * norm(ha, p));
  }
}

// eigh through porta's kernels (PORTA_SOLVER=porta: the tridiagonal reduction on the device, LAPACK's
// stedc on the host; OpenCL GPUs take it anyway, Kokkos and CUDA their LAPACK and cuSOLVER): a
// batch of two 70 x 70 matrices (k20 sums y = A22 v in two parts at the first steps, one at the
// last) given as a transposed view whose two triangles disagree: the triangle asked for is the
// one read, against eigh of the Hermitian matrix built from it on the host.
TEST_P(Linalg, EighReadsOneTriangleOnKernels) {
  if (sample()) return;
  ScopedEnv porta_solver("PORTA_SOLVER", "porta");
  const std::int64_t n = 70;
  Array raw = random({2, n, n});
  HostStack hr = to_host(la::matrix_transpose(raw).copy());
  for (bool upper : {false, true}) {
    auto [w, v] = la::eigh(la::matrix_transpose(raw), upper);
    HostStack h = hr;  // the Hermitian matrix that triangle names
    for (std::int64_t p = 0; p < 2; ++p)
      for (std::int64_t i = 0; i < n; ++i) {
        h.at(p, i, i) = h.at(p, i, i).real();
        for (std::int64_t j = 0; j < i; ++j) {
          if (upper) h.at(p, i, j) = std::conj(h.at(p, j, i));
          else h.at(p, j, i) = std::conj(h.at(p, i, j));
        }
      }
    HostStack hv = to_host(v), hw = to_host(w.reshape({2, 1, n}));
    HostStack av = product(h, hv), vv = product(adjoint(hv), hv), e = identity(2, n), vw = hv;
    for (std::int64_t p = 0; p < 2; ++p)
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) vw.at(p, i, j) *= hw.at(p, 0, j);
    for (std::int64_t p = 0; p < 2; ++p) {
      EXPECT_LT(distance(av, vw, p) / norm(h, p), tol(n)) << "upper " << upper << ", matrix " << p;
      EXPECT_LT(distance(vv, e, p), tol(n)) << "upper " << upper << ", matrix " << p;
      double trace = 0, sum = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        trace += h.at(p, i, i).real();
        sum += hw.at(p, 0, i).real();
        if (i > 0) {
          EXPECT_LE(hw.at(p, 0, i - 1).real(), hw.at(p, 0, i).real());
        }
      }
      EXPECT_NEAR(sum, trace, tol(n) * norm(h, p)) << "upper " << upper;
    }
  }
  // 1 x 1 and 2 x 2 (no reflector, one), eigenvalues only.
  for (std::int64_t m : {1, 2}) {
    Array a = random({m, m});
    Array s = porta::add(a, porta::conj(la::matrix_transpose(a)));
    HostStack hs = to_host(s), hw = to_host(la::eigvalsh(s).reshape({1, 1, m}));
    const double tr = m == 1 ? hs.at(0, 0, 0).real() : hs.at(0, 0, 0).real() + hs.at(0, 1, 1).real();
    EXPECT_NEAR(m == 1 ? hw.at(0, 0, 0).real() : hw.at(0, 0, 0).real() + hw.at(0, 0, 1).real(), tr, tol(m) * (1 + std::abs(tr)));
  }
}

// The SVD through porta's kernels (PORTA_SOLVER=porta: the bidiagonal reduction on the device,
// LAPACK's bdsdc on the host; OpenCL GPUs take it anyway): 2 x 80 x 70 (k26 sums C u in two parts
// at the first steps) from a sliced view, thin and full, and its 70 x 80 transpose: A = U diag(s)
// Vh, U^H U = I, Vh Vh^H = I, s descending and not negative, which make it A's SVD.
TEST_P(Linalg, SvdOnKernelsIsOrthogonalBothSides) {
  if (sample()) return;
  ScopedEnv porta_solver("PORTA_SOLVER", "porta");
  Array big = random({2, 81, 70});
  for (bool wide : {false, true})
    for (bool full : {false, true}) {
      Array a = big.slice({porta::span, porta::from(1)});  // 80 x 70, rows from the second
      if (wide) a = la::matrix_transpose(a);
      const std::int64_t m = a.dim(-2), n = a.dim(-1), k = std::min(m, n);
      auto [u, s, vh] = la::svd(a, full);
      HostStack hu = to_host(u), hvh = to_host(vh), hs = to_host(s.reshape({2, 1, k})), ha = to_host(a.copy());
      HostStack us = to_host(u.slice({porta::span, porta::span, porta::upto(k)}).copy()),
                vk = to_host(vh.slice({porta::span, porta::upto(k)}).copy());
      for (std::int64_t p = 0; p < 2; ++p)
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t j = 0; j < k; ++j) us.at(p, i, j) *= hs.at(p, 0, j);
      HostStack rec = product(us, vk), uu = product(adjoint(hu), hu), vv = product(hvh, adjoint(hvh));
      const std::string what = std::string(wide ? "70 x 80" : "80 x 70") + (full ? ", full" : ", thin");
      for (std::int64_t p = 0; p < 2; ++p) {
        EXPECT_LT(distance(rec, ha, p) / norm(ha, p), tol(80)) << what;
        EXPECT_LT(distance(uu, identity(2, hu.cols), p), tol(80)) << what;
        EXPECT_LT(distance(vv, identity(2, hvh.rows), p), tol(80)) << what;
        EXPECT_GE(hs.at(p, 0, k - 1).real(), 0.0) << what;
        for (std::int64_t j = 1; j < k; ++j) EXPECT_GE(hs.at(p, 0, j - 1).real(), hs.at(p, 0, j).real()) << what;
      }
    }
}

TEST_P(Linalg, SvdReconstructs) {
  if (sample()) return;
  for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{9, 5}, {5, 9}, {1, 1}}) {
    Array a = random({2, m, n});
    for (bool full : {false, true}) {
      auto [u, s, vh] = la::svd(a, full);
      const std::int64_t k = std::min(m, n);
      ASSERT_EQ(u.shape(), (Shape{2, m, full ? m : k}));
      ASSERT_EQ(s.shape(), (Shape{2, k}));
      ASSERT_EQ(vh.shape(), (Shape{2, full ? n : k, n}));
      HostStack hu = to_host(u.slice({porta::span, porta::span, porta::upto(k)}).copy()), hs = to_host(s.reshape({2, 1, k}));
      HostStack hvh = to_host(vh.slice({porta::span, porta::upto(k)}).copy()), ha = to_host(a);
      for (std::int64_t p = 0; p < 2; ++p)
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t j = 0; j < k; ++j) hu.at(p, i, j) *= hs.at(p, 0, j);
      HostStack rec = product(hu, hvh);
      HostStack full_u = to_host(u), uu = product(adjoint(full_u), full_u), e = identity(2, full ? m : k);
      for (std::int64_t p = 0; p < 2; ++p) {
        EXPECT_LT(distance(rec, ha, p) / norm(ha, p), tol(std::max(m, n))) << m << " x " << n;
        EXPECT_LT(distance(uu, e, p), tol(std::max(m, n))) << m << " x " << n;
        for (std::int64_t j = 1; j < k; ++j) EXPECT_GE(hs.at(p, 0, j - 1).real(), hs.at(p, 0, j).real());
      }
      HostStack vals = to_host(la::svdvals(a).reshape({2, 1, k}));
      for (std::int64_t p = 0; p < 2; ++p) EXPECT_LT(distance(vals, hs, p), tol(std::max(m, n)) * norm(ha, p));
    }
  }
}

// NumPy's answer for a NaN (LAPACK's gesdd refuses it): a LinAlgError naming the matrix, for a
// tall and a wide stack, svd and svdvals alike, with the NaN in a complex number's imaginary part
// too; an infinity gives NaNs as NumPy's does, no error; the input is unchanged.
TEST_P(Linalg, SvdRefusesNaN) {
  if (sample()) return;
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{6, 4}, {4, 6}}) {
    std::vector<C> v = to_host(random({3, m, n})).v;
    v[static_cast<std::size_t>(m * n + 5)] = is_complex(dtype()) ? C(0.5, nan) : C(nan, 0);  // matrix 1
    const Array a = porta::from_host(v, {3, m, n}, dev()).astype(dtype());
    const std::vector<C> before = to_host(a).v;
    for (bool values_only : {false, true}) {
      try {
        if (values_only) la::svdvals(a).eval();
        else la::svd(a, false).S.eval();
        ADD_FAILURE() << (values_only ? "svdvals" : "svd") << " of a stack holding a NaN did not throw";
      } catch (const porta::LinAlgError& err) {
        EXPECT_EQ(err.batch_index(), 1) << err.what();
      }
    }
    const std::vector<C> after = to_host(a).v;
    auto has_nan = [](C x) { return std::isnan(x.real()) || std::isnan(x.imag()); };
    for (std::size_t i = 0; i < before.size(); ++i)
      EXPECT_TRUE(after[i] == before[i] || (has_nan(after[i]) && has_nan(before[i]))) << "svd changed its input at " << i;
    // An infinity is not refused: NumPy's gesdd answers that matrix with NaNs, the others as they are
    // (Debian's LAPACK gesdd with vectors did not return on it, porta's bdsdc did not converge).
    v[static_cast<std::size_t>(m * n + 5)] = C(inf, 0);
    const Array with_inf = porta::from_host(v, {3, m, n}, dev()).astype(dtype());
    std::vector<C> s;
    ASSERT_NO_THROW(s = to_host(la::svdvals(with_inf)).v) << "an infinity is not refused";
    ASSERT_NO_THROW(la::svd(with_inf, false).U.eval()) << "an infinity is not refused (vectors)";
    const std::size_t k = s.size() / 3;
    for (std::size_t i = 0; i < s.size(); ++i)
      if (i / k != 1) EXPECT_TRUE(std::isfinite(s[i].real())) << "singular value " << i << " of a matrix without the infinity";
      else EXPECT_TRUE(std::isnan(s[i].real())) << "singular value " << i << " of the matrix with the infinity (NumPy: NaN)";
  }
}

// A stack large enough that CPU devices spread it over threads (host/solver.hpp: at least 2^19
// multiply-adds of matrices up to 128 x 128) answers as its matrices one at a time.
TEST_P(Linalg, BatchesMatchOneMatrixAtATime) {
  if (sample()) return;
  const std::int64_t batch = 40, n = 24;
  Array a = random({batch, n, n}, 2.0), s = spd({batch, n, n}), b = random({batch, n, 2});
  const Array x = la::solve(a, b), l = la::cholesky(s);
  const Array w = la::eigvalsh(s).reshape({batch, 1, n}), sv = la::svdvals(a).reshape({batch, 1, n});
  const HostStack hx = to_host(x), hl = to_host(l), hw = to_host(w), hs = to_host(sv);
  for (std::int64_t p = 0; p < batch; ++p) {
    const Array ap = a[p], sp = s[p];
    const HostStack x1 = to_host(la::solve(ap, b[p]).reshape({1, n, 2}));
    const HostStack l1 = to_host(la::cholesky(sp).reshape({1, n, n}));
    const HostStack w1 = to_host(la::eigvalsh(sp).reshape({1, 1, n})), s1 = to_host(la::svdvals(ap).reshape({1, 1, n}));
    auto same = [&](const HostStack& whole, const HostStack& one, const char* what) {
      HostStack slice{1, whole.rows, whole.cols, {}};
      const std::size_t size = static_cast<std::size_t>(whole.rows * whole.cols);
      slice.v.assign(whole.v.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(p) * size),
                     whole.v.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(p + 1) * size));
      EXPECT_LE(distance(slice, one, 0), tol(n) * std::max(norm(one, 0), 1.0)) << what << " of matrix " << p;
    };
    same(hx, x1, "solve");
    same(hl, l1, "cholesky");
    same(hw, w1, "eigvalsh");
    same(hs, s1, "svdvals");
  }
}

TEST_P(Linalg, EmptyMatricesAndErrors) {
  if (sample()) return;
  Array e = porta::zeros({2, 0, 0}, dtype(), dev());
  EXPECT_EQ(la::solve(e, porta::zeros({2, 0, 3}, dtype(), dev())).shape(), (Shape{2, 0, 3}));
  EXPECT_EQ(la::inv(e).shape(), (Shape{2, 0, 0}));
  EXPECT_EQ(to_host(la::det(e)).v, (std::vector<C>{1, 1}));
  EXPECT_EQ(la::cholesky(e).shape(), (Shape{2, 0, 0}));
  EXPECT_EQ(la::eigvalsh(e).shape(), (Shape{2, 0}));
  EXPECT_EQ(la::svdvals(porta::zeros({3, 0}, dtype(), dev())).shape(), (Shape{0}));
  EXPECT_THROW(la::solve(random({3, 4}), random({3})), porta::ShapeError);
  EXPECT_THROW(la::inv(random({5})), porta::ShapeError);
  EXPECT_THROW(la::cholesky(random({2, 3})), porta::ShapeError);
  EXPECT_THROW(la::solve(random({3, 3}, 2.0), random({4})), porta::ShapeError);
  if (dev().supports(DType::float16) && dtype() == DType::float64) {
    EXPECT_THROW(la::inv(random({3, 3}, 2.0).astype(DType::float16)), porta::DTypeError);
  }
}

// Solves from several threads at once, each on its own queue (the CUDA queue's cuSOLVER handle,
// PoCL's maps, Kokkos' memory), each checked against its own residual.
TEST_P(Linalg, SolvesFromThreads) {
  if (sample()) return;
  const std::int64_t n = 9;
  std::vector<Array> as, bs;
  for (int i = 0; i < 4; ++i) {
    as.push_back(random({3, n, n}, 2.0));
    bs.push_back(random({3, n, 2}));
  }
  std::vector<Array> xs(4);
  Failures failures;
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      try {
        for (int rep = 0; rep < 3; ++rep) xs[static_cast<std::size_t>(i)] = la::solve(as[static_cast<std::size_t>(i)], bs[static_cast<std::size_t>(i)]);
      } catch (const std::exception& e) {
        failures.add(e.what());
      }
    });
  for (auto& t : threads) t.join();
  failures.report();
  for (std::size_t i = 0; i < 4; ++i) {
    HostStack ha = to_host(as[i]), hx = to_host(xs[i]), r = product(ha, hx), hb = to_host(bs[i]);
    for (std::int64_t p = 0; p < 3; ++p) EXPECT_LT(distance(r, hb, p) / (norm(ha, p) * norm(hx, p)), tol(n));
  }
}

// The compositions against host arithmetic on one dtype per device (they are elementwise work and
// reductions already tested for every dtype elsewhere).
TEST_P(Linalg, Compositions) {
  if (dtype() != DType::complex64) GTEST_SKIP() << "sampled on complex64";
  Array a = random({2, 4, 6});
  HostStack h = to_host(a);
  std::vector<C> tr = to_host(la::trace(a, 1)).v;
  std::vector<C> dg = to_host(la::diagonal(a, -1)).v;
  ASSERT_EQ(la::diagonal(a, -1).shape(), (Shape{2, 3}));
  for (std::int64_t p = 0; p < 2; ++p) {
    C t = 0;
    for (std::int64_t i = 0; i < 4; ++i) t += h.at(p, i, i + 1);
    EXPECT_LT(std::abs(tr[p] - t), 1e-5);
    for (std::int64_t i = 0; i < 3; ++i) EXPECT_EQ(dg[p * 3 + i], h.at(p, i + 1, i));
  }
  std::vector<double> fro = reals(la::matrix_norm(a));
  std::vector<double> two = reals(la::matrix_norm(a, "2"));
  std::vector<double> inf = reals(la::matrix_norm(a, "inf"));
  std::vector<double> v1 = reals(la::vector_norm(a, 1, {-1}));
  for (std::int64_t p = 0; p < 2; ++p) {
    EXPECT_NEAR(fro[p], norm(h, p), 1e-5);
    EXPECT_LE(two[p], fro[p] * (1 + 1e-5));
    double row_max = 0;
    for (std::int64_t i = 0; i < 4; ++i) {
      double s = 0;
      for (std::int64_t j = 0; j < 6; ++j) s += std::abs(h.at(p, i, j));
      row_max = std::max(row_max, s);
      EXPECT_NEAR(v1[p * 4 + i], s, 1e-5);
    }
    EXPECT_NEAR(inf[p], row_max, 1e-5);
  }
  Array x = random({5, 3}), y = random({5, 3});
  HostStack hx = to_host(x), hy = to_host(y), hc = to_host(la::cross(x, y));
  for (std::int64_t i = 0; i < 5; ++i)
    EXPECT_LT(std::abs(hc.at(0, i, 0) - (hx.at(0, i, 1) * hy.at(0, i, 2) - hx.at(0, i, 2) * hy.at(0, i, 1))), 1e-5);
  Array m = random({3, 3}, 1.0);
  HostStack m3 = product(product(to_host(m), to_host(m)), to_host(m)), p3 = to_host(la::matrix_power(m, 3));
  EXPECT_LT(distance(m3, p3, 0), 1e-4 * norm(m3, 0));
  HostStack pm = product(to_host(la::matrix_power(m, -2)), product(to_host(m), to_host(m)));
  EXPECT_LT(distance(pm, identity(1, 3), 0), 1e-3);
  // einsum: a contraction of three operands (two matmuls, the cheaper pair first) and a trace.
  Array e1 = random({3, 4}), e2 = random({4, 5}), e3 = random({5, 2});
  HostStack want = product(product(to_host(e1), to_host(e2)), to_host(e3));
  EXPECT_LT(distance(to_host(porta::einsum("ij,jk,kl->il", {e1, e2, e3})), want, 0), 1e-4 * norm(want, 0));
  EXPECT_LT(std::abs(to_host(porta::einsum("ii", {m})).v[0] - to_host(la::trace(m)).v[0]), 1e-5);
  EXPECT_THROW(porta::einsum("ij,jk", {e1, e1}), porta::ShapeError);
  Array pinv = la::pinv(random({6, 4}));
  EXPECT_EQ(pinv.shape(), (Shape{4, 6}));
  EXPECT_EQ(la::matrix_rank(la::matmul(random({6, 2}), random({2, 5}))).item<std::int64_t>(), 2);
  // A tolerance per matrix: two copies of diag(1, 0.1, 0.001) (times a random orthogonal Q, so that
  // the SVD has work to do), kept to 2 and 1 values relative, 2 and 3 absolute.
  Array q = la::qr(random({3, 3}, 3.0)).Q;
  Array d = porta::multiply(porta::eye(3, dtype(), dev()), porta::from_host(std::vector<double>{1, 0.1, 0.001}, {3}, dev()).astype(dtype()));
  Array stack = porta::stack({la::matmul(q, d), la::matmul(q, d)});
  Array rtol = porta::from_host(std::vector<double>{0.05, 0.5}, {2}, dev());
  EXPECT_EQ(la::matrix_rank(stack, rtol).to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 1}));
  EXPECT_EQ(la::matrix_rank(stack, porta::from_host(std::vector<double>{0.01, 1e-4}, {2}, dev()), la::Tolerance::absolute)
                .to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2, 3}));
  // pinv(Q D) = D+ Q^H with D+ = diag(1, 10, 0) and diag(1, 0, 0).
  HostStack p2 = to_host(la::matmul(la::pinv(stack, rtol), q));
  const double kept[2][3] = {{1, 10, 0}, {1, 0, 0}};
  for (std::int64_t s = 0; s < 2; ++s)
    for (std::int64_t i = 0; i < 3; ++i)
      for (std::int64_t j = 0; j < 3; ++j) EXPECT_NEAR(std::abs(p2.at(s, i, j)), i == j ? kept[s][i] : 0.0, 1e-3) << s << i << j;
  EXPECT_THROW(la::pinv(stack, porta::from_host(std::vector<double>{0.1, 0.1, 0.1}, {3}, dev())), porta::ShapeError);
}

PORTA_INSTANTIATE_DEVICES_DTYPES(Linalg, kSolverDTypes);

}  // namespace
}  // namespace porta_test
