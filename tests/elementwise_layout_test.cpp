// Elementwise operations over every layout: NumPy broadcasting, strided and offset views as
// inputs, non-contiguous outputs, 2-D plans (broadcast rows and columns, transposed and stepped
// views around the tile size), and sizes from 0 to past 2^16.
#include "elementwise_reference.hpp"
#include "test_common.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include <unistd.h>

namespace porta_test {
namespace {

// ---- broadcasting --------------------------------------------------------------------------

using Broadcasting = DeviceTest;

TEST_P(Broadcasting, PatternsMatchHostBroadcast) {
  const std::vector<std::pair<Shape, Shape>> patterns = {
      {{}, {5}},          {{5}, {}},           {{1, 7}, {4, 7}}, {{7}, {4, 7}},       {{4, 1}, {4, 7}},
      {{3, 1}, {1, 4}},   {{4}, {2, 3, 4}},    {{2, 1, 4}, {2, 3, 1}}, {{1, 1, 1}, {2, 3, 4}},
      {{0}, {1}},         {{3, 0}, {3, 1}},    {{1}, {1}},       {{5, 1, 1}, {1, 6}}, {{1}, {3, 1, 2}},
  };
  for (const auto& [sa, sb] : patterns) {
    std::vector<double> a, b;
    Array ad = random_array(sa, DType::float32, -4, 4, &a);
    Array bd = random_array(sb, DType::int32, -9, 9, &b);
    Shape out = broadcast_shape(sa, sb);
    std::int64_t n = porta::element_count(out);
    std::vector<double> sum(static_cast<std::size_t>(n)), prod(static_cast<std::size_t>(n)), sel(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      double x = a[static_cast<std::size_t>(broadcast_index(sa, out, i))];
      double y = b[static_cast<std::size_t>(broadcast_index(sb, out, i))];
      sum[static_cast<std::size_t>(i)] = x + y;
      prod[static_cast<std::size_t>(i)] = y * y * 2;
      sel[static_cast<std::size_t>(i)] = x > y ? x : y;
    }
    std::string what = shape_str(sa) + " with " + shape_str(sb);
    // float32 with int32 arrays is float64 (NumPy).
    EXPECT_TRUE(array_matches(ad + bd, DType::float64, out, sum, tolerance(DType::float64, Accuracy::simple))) << what;
    EXPECT_TRUE(array_matches(porta::where(ad > bd, ad.astype(DType::float64), bd), DType::float64, out, sel,
                              tolerance(DType::float64, Accuracy::exact)))
        << what;
    Array bb = bd.broadcast_to(out);
    EXPECT_EQ(bb.shape(), out) << what;
    if (sa.size() < 2) {  // a few patterns with a broadcast view as an operand
      EXPECT_TRUE(array_matches(bb * bd * 2, DType::int32, out, prod, tolerance(DType::int32, Accuracy::exact))) << what;
    }
  }
}

// A lazy operand of another shape is broadcast too (it is evaluated first, or fused).
TEST_P(Broadcasting, LazyOperandsBroadcast) {
  std::vector<double> col, row;
  Array c = random_array({6, 1}, DType::float32, -2, 2, &col);
  Array r = random_array({1, 5}, DType::float32, -2, 2, &row);
  Array lazy_c = c * 3.0f, lazy_r = porta::exp(r);
  Array z = lazy_c - lazy_r;
  std::vector<double> ref(30);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j) ref[static_cast<std::size_t>(i * 5 + j)] = col[static_cast<std::size_t>(i)] * 3 - std::exp(row[static_cast<std::size_t>(j)]);
  // c*3 - exp(r) cancels where the two are close: the error is relative to the operands (up to
  // |6| + e^2), not to the difference, so the tolerance has an absolute part of a few ulps of 8.
  Tolerance tol = tolerance(DType::float32, Accuracy::transcendental);
  tol.atol = 8.0 * 8.0 * std::ldexp(1.0, -23);
  EXPECT_TRUE(array_matches(z, DType::float32, {6, 5}, ref, tol));
}

TEST_P(Broadcasting, IncompatibleShapesThrowShapeErrorNamingBoth) {
  Array a = porta::ones({3, 4}, DType::float32, dev());
  Array b = porta::ones({5}, DType::float32, dev());
  std::string msg = thrown_message<porta::ShapeError>([&] { (void)(a + b); });
  EXPECT_NE(msg.find("(3, 4)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(5,)"), std::string::npos) << msg;
  EXPECT_THROW((void)a.broadcast_to({4, 3}), porta::ShapeError);
  EXPECT_THROW((void)porta::where(porta::ones({2}, DType::boolean, dev()), a, a), porta::ShapeError);
}

PORTA_INSTANTIATE_DEVICES(Broadcasting);

// ---- strided inputs and outputs --------------------------------------------------------------

using Strided = DeviceTest;

// The host value of a 2-D view: element (i, j) at base[offset + i*s0 + j*s1].
std::vector<double> view2(const std::vector<double>& base, std::int64_t rows, std::int64_t cols, std::int64_t offset,
                          std::int64_t s0, std::int64_t s1) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) out.push_back(base[static_cast<std::size_t>(offset + i * s0 + j * s1)]);
  return out;
}

TEST_P(Strided, TransposedSlicedAndOffsetViewsAsInputs) {
  std::vector<double> av, bv;
  Array a = random_array({6, 8}, DType::float32, -5, 5, &av);  // strides (8, 1)
  Array b = random_array({8, 6}, DType::float32, -5, 5, &bv);
  Tolerance tol = tolerance(DType::float32, Accuracy::simple);
  auto plus = [](std::vector<double> x, const std::vector<double>& y) {
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += y[i];
    return x;
  };

  // a.T + b: (8, 6)
  Array at = a.transpose();
  EXPECT_EQ(at.shape(), (Shape{8, 6}));
  EXPECT_TRUE(array_matches(at + b, DType::float32, {8, 6}, plus(view2(av, 8, 6, 0, 1, 8), bv), tol)) << "a.T + b";

  // a[1:5:2, ::-1]: (2, 8), offset 8 + 7, strides (16, -1)
  Array s = a.slice({{1, 5, 2}, {std::nullopt, std::nullopt, -1}});
  EXPECT_EQ(s.shape(), (Shape{2, 8}));
  auto sref = view2(av, 2, 8, 15, 16, -1);
  EXPECT_TRUE(array_matches(s * 2.0f, DType::float32, {2, 8}, [&] {
    auto r = sref;
    for (auto& x : r) x *= 2;
    return r;
  }(), tol)) << "a[1:5:2, ::-1] * 2";

  // a[4] + a[-1]: rows at offsets 32 and 40
  EXPECT_TRUE(array_matches(a[4] + a[-1], DType::float32, {8}, plus(view2(av, 1, 8, 32, 0, 1), view2(av, 1, 8, 40, 0, 1)), tol))
      << "a[4] + a[-1]";

  // a[::-2, 1:-1:3] (negative steps, offsets): rows 5, 3, 1; columns 1, 4
  Array s2 = a.slice({{std::nullopt, std::nullopt, -2}, {1, -1, 3}});
  EXPECT_EQ(s2.shape(), (Shape{3, 2}));
  auto s2ref = view2(av, 3, 2, 5 * 8 + 1, -16, 3);
  EXPECT_TRUE(array_matches(porta::exp(s2 * 0.25f), DType::float32, {3, 2}, [&] {
    auto r = s2ref;
    for (auto& x : r) x = std::exp(x * 0.25);
    return r;
  }(), tolerance(DType::float32, Accuracy::transcendental))) << "exp(a[::-2, 1:-1:3] / 4)";

  // A transposed view broadcast against a column: b.T (6, 8) * a[:, :1] (6, 1)
  Array col = a.slice({{}, {0, 1}});
  auto colref = view2(av, 6, 1, 0, 8, 1);
  std::vector<double> ref;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 8; ++j) ref.push_back(bv[static_cast<std::size_t>(j * 6 + i)] * colref[static_cast<std::size_t>(i)]);
  EXPECT_TRUE(array_matches(b.transpose() * col, DType::float32, {6, 8}, ref, tol)) << "b.T * a[:, :1]";

  // A 3-D permutation: (2, 3, 4) -> axes (2, 0, 1)
  std::vector<double> cv;
  Array c = random_array({2, 3, 4}, DType::int64, -100, 100, &cv);
  Array p = c.transpose({2, 0, 1});
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  std::vector<double> pref;
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) pref.push_back(cv[static_cast<std::size_t>(i * 12 + j * 4 + k)] + 1);
  EXPECT_TRUE(array_matches(p + 1, DType::int64, {4, 2, 3}, pref, tolerance(DType::int64, Accuracy::exact))) << "c.transpose(2, 0, 1) + 1";
}

// concatenate writes each part into a strided region of its output: the parts are lazy trees,
// views and other dtypes.
TEST_P(Strided, ConcatenateWritesNonContiguousRegions) {
  std::vector<double> xv, yv, zv;
  Array x = random_array({4, 3}, DType::float32, -3, 3, &xv);
  Array y = random_array({4, 5}, DType::float32, -3, 3, &yv);
  Array z = random_array({5, 4}, DType::float32, -3, 3, &zv);
  Array c = porta::concatenate({x * 2.0f, y + 1.0f, z.transpose()}, 1);
  EXPECT_EQ(c.shape(), (Shape{4, 13}));
  std::vector<double> ref;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 3; ++j) ref.push_back(xv[static_cast<std::size_t>(i * 3 + j)] * 2);
    for (int j = 0; j < 5; ++j) ref.push_back(yv[static_cast<std::size_t>(i * 5 + j)] + 1);
    for (int j = 0; j < 5; ++j) ref.push_back(zv[static_cast<std::size_t>(j * 4 + i)]);
  }
  EXPECT_TRUE(array_matches(c, DType::float32, {4, 13}, ref, tolerance(DType::float32, Accuracy::simple)));

  // Axis 1 of a 3-D result, with an int32 part promoted to float64.
  std::vector<double> av, bv;
  Array a = random_array({2, 3, 4}, DType::int32, -50, 50, &av);
  Array b = random_array({2, 1, 4}, DType::float64, -1, 1, &bv);
  Array d = porta::concatenate({a, b, a * 2}, 1);
  EXPECT_EQ(d.shape(), (Shape{2, 7, 4}));
  std::vector<double> dref;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) dref.push_back(av[static_cast<std::size_t>(i * 12 + j * 4 + k)]);
    for (int k = 0; k < 4; ++k) dref.push_back(bv[static_cast<std::size_t>(i * 4 + k)]);
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) dref.push_back(av[static_cast<std::size_t>(i * 12 + j * 4 + k)] * 2);
  }
  EXPECT_TRUE(array_matches(d, DType::float64, {2, 7, 4}, dref, tolerance(DType::float64, Accuracy::exact)));
}

PORTA_INSTANTIATE_DEVICES(Strided);

// ---- sizes -------------------------------------------------------------------------------------

using Sizes = DeviceTest;

TEST_P(Sizes, EmptyOneOddAndPast64KElements) {
  poison(dev(), std::size_t{1} << 21);
  for (std::int64_t n : {0, 1, 2, 3, 5, 17, 255, 257, 1023, 4097, 65535, 65536, 65539, 65536 * 3 + 7}) {
    std::vector<double> x, y, k;
    Array xd = random_array({n}, DType::float32, -4, 4, &x);
    Array yd = random_array({n}, DType::float32, -4, 4, &y);
    Array kd = random_array({n}, DType::int32, -1000, 1000, &k);
    std::vector<double> r1(static_cast<std::size_t>(n)), r2(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < r1.size(); ++i) {
      r1[i] = x[i] * 2.5 + y[i];
      r2[i] = k[i] * 3 - 7;
    }
    // Within an ulp of the product: the device may fuse the multiply-add.
    EXPECT_TRUE(array_matches(xd * 2.5f + yd, DType::float32, {n}, r1, {1e-6, 2e-6})) << "n = " << n;
    EXPECT_TRUE(array_matches(kd * 3 - 7, DType::int32, {n}, r2, tolerance(DType::int32, Accuracy::exact))) << "n = " << n;
  }
  // Odd 2-D shapes and a 0-d array.
  for (Shape s : {Shape{1, 1}, Shape{3, 5}, Shape{17, 31}, Shape{0, 4}, Shape{257, 3}, Shape{}}) {
    std::vector<double> x;
    Array xd = random_array(s, DType::float64, -4, 4, &x);
    for (auto& v : x) v = v * v;
    EXPECT_TRUE(array_matches(porta::square(xd), DType::float64, s, x, tolerance(DType::float64, Accuracy::simple))) << shape_str(s);
  }
}

// Outputs of 32 MiB and more: CPU devices store whole vectors past the caches (PORTA_EW_STREAM),
// with a plain store where the output is not aligned to the vector (a view one element in) and for
// the tail; a result read right back, as the next kernel does.
TEST_P(Sizes, LargeOutputsPastTheCaches) {
  const std::int64_t n = (std::int64_t{1} << 23) + 13;  // float32: just over 32 MiB
  std::vector<double> x, y;
  Array xd = random_array({n}, DType::float32, -4, 4, &x), yd = random_array({n}, DType::float32, -4, 4, &y);
  std::vector<double> r(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = x[i] * 2.5 + y[i];
  const Array sum = (xd * 2.5f + yd).eval();
  EXPECT_TRUE(array_matches(sum, DType::float32, {n}, r, {1e-6, 2e-6}));
  // Into a view one element in: out + 1 is not aligned to any vector.
  Array z = porta::zeros({n + 1}, DType::float32, dev());
  z.slice({porta::Slice{1, std::nullopt}}).assign(xd * 2.5f + yd);
  std::vector<double> rz(1, 0.0);
  rz.insert(rz.end(), r.begin(), r.end());
  EXPECT_TRUE(array_matches(z, DType::float32, {n + 1}, rz, {1e-6, 2e-6})) << "into a view at offset 1";
  // complex64: 2^22 + 3 elements, 32 MiB and a little more.
  const std::int64_t m = (std::int64_t{1} << 22) + 3;
  std::vector<double> a, b;
  Array ad = random_array({m}, DType::float32, -2, 2, &a), bd = random_array({m}, DType::float32, -2, 2, &b);
  const std::complex<double> i1(0, 1);
  const Array ac = ad.astype(DType::complex64), bc = bd.astype(DType::complex64);
  const Array c = porta::add(porta::multiply(porta::add(ac, porta::multiply(bc, i1)), porta::add(bc, porta::multiply(ac, i1))), 1.0f).eval();
  std::vector<double> re(static_cast<std::size_t>(m)), im(static_cast<std::size_t>(m));
  for (std::size_t i = 0; i < re.size(); ++i) {  // (a + bi)(b + ai) + 1 = (ab - ab + 1) + (a^2 + b^2) i
    re[i] = a[i] * b[i] - b[i] * a[i] + 1.0;
    im[i] = a[i] * a[i] + b[i] * b[i];
  }
  EXPECT_TRUE(array_matches(porta::real(c), DType::float32, {m}, re, {1e-5, 1e-5})) << "complex64, real part";
  EXPECT_TRUE(array_matches(porta::imag(c), DType::float32, {m}, im, {1e-6, 2e-6})) << "complex64, imaginary part";
}

// Integer plans as CPU devices' vector kernels (16 lanes of 1- and 2-byte integers, several
// vectors a work-item, accessed through unaligned vector types): NumPy's wrapping arithmetic and
// shifts, operands and outputs at offsets no vector is aligned to, lengths no multiple of a
// vector, and an output past 32 MiB (stored past the caches where it is aligned).
TEST_P(Sizes, IntegerVectorsAtAnyOffset) {
  const auto wrap = [](long long v, DType t) {
    const int bits = static_cast<int>(porta::itemsize(t)) * 8;
    if (bits == 64) return static_cast<double>(v);
    const long long m = 1LL << bits, r = ((v % m) + m) % m;
    return static_cast<double>(porta::is_unsigned_integer(t) || r < m / 2 ? r : r - m);
  };
  for (DType t : {DType::uint8, DType::int8, DType::int16, DType::uint32, DType::int64}) {
    const porta::IntInfo lim = porta::iinfo(t);
    const double lo = std::max<double>(static_cast<double>(lim.min), -1e6), hi = std::min<double>(static_cast<double>(lim.max), 1e6);
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{4097}, t == DType::uint8 ? (std::int64_t{1} << 25) + 7 : std::int64_t{70001}}) {
      std::vector<double> x, y;
      Array xd = random_array({n + 1}, t, lo, hi, &x), yd = random_array({n + 3}, t, lo, hi, &y);
      const Array xs = xd.slice({porta::Slice{1, std::nullopt}}), ys = yd.slice({porta::Slice{3, std::nullopt}});
      std::vector<double> r(static_cast<std::size_t>(n) + 5, 0.0), c(static_cast<std::size_t>(n));
      for (std::size_t i = 0; i < c.size(); ++i) {
        const auto a = static_cast<long long>(x[i + 1]), b = static_cast<long long>(y[i + 3]);
        r[i + 5] = wrap(wrap(wrap(a * 3, t) + b, t) - (a >> 1), t);
        c[i] = static_cast<double>(static_cast<float>(a));
      }
      Array z = porta::zeros({n + 5}, t, dev());
      z.slice({porta::Slice{5, std::nullopt}}).assign(xs * 3 + ys - (xs >> 1));
      EXPECT_TRUE(array_matches(z, t, {n + 5}, r, tolerance(t, Accuracy::exact))) << porta::name(t) << ", n = " << n;
      std::vector<double> whole(r.begin() + 5, r.end());
      EXPECT_TRUE(array_matches(xs * 3 + ys - (xs >> 1), t, {n}, whole, tolerance(t, Accuracy::exact))) << porta::name(t) << ", n = " << n;
      EXPECT_TRUE(array_matches(xs.astype(DType::float32), DType::float32, {n}, c, tolerance(DType::float32, Accuracy::exact)))
          << porta::name(t) << " -> float32, n = " << n;
    }
  }
}

PORTA_INSTANTIATE_DEVICES(Sizes);

// ---- 2-D plans: broadcast rows and columns, transposed and stepped views ---------------------

// Plans that stay 2-D after merging take their own paths (row and column indices, tiles for
// transposed views): shapes around the tile size, broadcasts along each axis, transposed views
// of either or both operands, stepped and reversed slices, several dtypes, strided outputs.
using TwoDimensional = DeviceTest;

// The host value of the (rows, cols) result of f(x(i, j), y(i, j)).
template <class F>
std::vector<double> combine2(std::int64_t rows, std::int64_t cols, const std::vector<double>& x, const std::vector<double>& y, F f) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < rows * cols; ++i) out.push_back(f(x[static_cast<std::size_t>(i)], y[static_cast<std::size_t>(i)]));
  return out;
}

TEST_P(TwoDimensional, BroadcastAndTransposedOperandsOfEveryShapeAroundTheTile) {
  poison(dev(), std::size_t{1} << 22);
  Tolerance tol = tolerance(DType::float32, Accuracy::simple);
  auto add = [](double a, double b) { return a + b; };
  auto mul = [](double a, double b) { return a * b; };
  for (Shape s : {Shape{1, 70}, Shape{70, 1}, Shape{2, 16}, Shape{31, 33}, Shape{32, 32}, Shape{33, 65}, Shape{100, 17},
                  Shape{5, 300}, Shape{64, 96}, Shape{257, 40}, Shape{40, 257}}) {
    const std::int64_t r = s[0], c = s[1];
    std::vector<double> xv, tv, rowv, colv;
    Array x = random_array({r, c}, DType::float32, -4, 4, &xv);
    Array t = random_array({c, r}, DType::float32, -4, 4, &tv);  // t.T is (r, c), strides (1, r)
    Array row = random_array({c}, DType::float32, -4, 4, &rowv);
    Array col = random_array({r, 1}, DType::float32, -4, 4, &colv);
    auto tT = view2(tv, r, c, 0, 1, r);
    auto rows_of = view2(rowv, r, c, 0, 0, 1);  // row broadcast down the rows
    auto cols_of = view2(colv, r, c, 0, 1, 0);  // column broadcast along the columns
    const std::string at = shape_str(s);
    EXPECT_TRUE(array_matches(x + row, DType::float32, s, combine2(r, c, xv, rows_of, add), tol)) << "x + row, " << at;
    EXPECT_TRUE(array_matches(x * col, DType::float32, s, combine2(r, c, xv, cols_of, mul), tol)) << "x * col, " << at;
    EXPECT_TRUE(array_matches(col - row, DType::float32, s, combine2(r, c, cols_of, rows_of, [](double a, double b) { return a - b; }), tol))
        << "col - row, " << at;
    EXPECT_TRUE(array_matches(t.transpose() + x, DType::float32, s, combine2(r, c, tT, xv, add), tol)) << "t.T + x, " << at;
    EXPECT_TRUE(array_matches(x - t.transpose(), DType::float32, s, combine2(r, c, xv, tT, [](double a, double b) { return a - b; }), tol))
        << "x - t.T, " << at;
    EXPECT_TRUE(array_matches((t.transpose() + row) * 2.0f, DType::float32, s,
                              combine2(r, c, tT, rows_of, [](double a, double b) { return (a + b) * 2; }), tol))
        << "(t.T + row) * 2, " << at;
    EXPECT_TRUE(array_matches(t.transpose() * col, DType::float32, s, combine2(r, c, tT, cols_of, mul), tol)) << "t.T * col, " << at;
    // Both operands transposed: (c, r) + (c, r), transposed.
    std::vector<double> uv;
    Array u = random_array({c, r}, DType::float32, -4, 4, &uv);
    EXPECT_TRUE(array_matches((t + u).transpose() * 2.0f, DType::float32, s,
                              combine2(r, c, tT, view2(uv, r, c, 0, 1, r), [](double a, double b) { return (a + b) * 2; }), tol))
        << "(t + u).T * 2, " << at;
    EXPECT_TRUE(array_matches(t.transpose() + u.transpose(), DType::float32, s, combine2(r, c, tT, view2(uv, r, c, 0, 1, r), add), tol))
        << "t.T + u.T, " << at;
  }
}

TEST_P(TwoDimensional, SteppedSlicesOtherDTypesAndStridedOutputs) {
  poison(dev(), std::size_t{1} << 22);
  // Slices with steps of a (2r + 1, 3c) array, forward and reversed, plus transposed views.
  const std::int64_t r = 45, c = 70;
  std::vector<double> bv, xv;
  Array big = random_array({2 * r + 1, 3 * c}, DType::float32, -4, 4, &bv);
  Array x = random_array({r, c}, DType::float32, -4, 4, &xv);
  const std::int64_t w = 3 * c;
  Array s1 = big.slice({{1, std::nullopt, 2}, {std::nullopt, std::nullopt, 3}});  // rows 1, 3, ...; cols 0, 3, ...
  Array s2 = big.slice({{2 * r, std::nullopt, -2}, {3 * c - 1, std::nullopt, -3}});  // reversed
  Array s3 = big.slice({{0, r}, {5, 5 + c}});                                     // rows with stride w, unit columns
  ASSERT_EQ(s1.shape(), (Shape{r, c}));
  ASSERT_EQ(s2.shape(), (Shape{r + 1, c}));
  Tolerance tol = tolerance(DType::float32, Accuracy::simple);
  auto v1 = view2(bv, r, c, w, 2 * w, 3), v2 = view2(bv, r, c, 2 * r * w + 3 * c - 1, -2 * w, -3), v3 = view2(bv, r, c, 5, w, 1);
  auto add = [](double a, double b) { return a + b; };
  EXPECT_TRUE(array_matches(s1 + x, DType::float32, {r, c}, combine2(r, c, v1, xv, add), tol)) << "big[1::2, ::3] + x";
  EXPECT_TRUE(array_matches(s2.slice({{0, r}}) + s3, DType::float32, {r, c}, combine2(r, c, v2, v3, add), tol))
      << "big[::-2, ::-3][:r] + big[:r, 5:5+c]";
  // A transposed stepped view: big[::2, ::3].T is (c, r + 1)... take (c, r) of it, plus x.T.
  Array s4 = big.slice({{0, 2 * r, 2}, {0, 3 * c, 3}}).transpose();  // (c, r), strides (3, 2w)
  std::vector<double> ref4;
  for (std::int64_t i = 0; i < c; ++i)
    for (std::int64_t j = 0; j < r; ++j)
      ref4.push_back(bv[static_cast<std::size_t>(j * 2 * w + i * 3)] + xv[static_cast<std::size_t>(j * c + i)]);
  EXPECT_TRUE(array_matches(s4 + x.transpose(), DType::float32, {c, r}, ref4, tol)) << "big[::2, ::3].T + x.T";

  // Other dtypes through the tiles: float64, int32, float16, bool.
  for (DType t : {DType::float64, DType::int32, DType::float16, DType::boolean}) {
    if (!dev().supports(t)) continue;
    std::vector<double> av, cv;
    Array a = random_array({c, r}, t, -8, 8, &av);
    Array b = random_array({r, c}, t, -8, 8, &cv);
    auto aT = view2(av, r, c, 0, 1, r);
    if (t == DType::boolean) {
      std::vector<double> ref = combine2(r, c, aT, cv, [](double p, double q) { return (p != 0) != (q != 0) ? 1.0 : 0.0; });
      EXPECT_TRUE(array_matches(porta::logical_xor(a.transpose(), b), DType::boolean, {r, c}, ref, tolerance(t, Accuracy::exact)))
          << "a.T xor b";
      continue;
    }
    std::vector<double> ref = combine2(r, c, aT, cv, [&](double p, double q) { return round_to(t, p * q); });
    EXPECT_TRUE(array_matches(a.transpose() * b, t, {r, c}, ref, tolerance(t, Accuracy::simple))) << "a.T * b, " << porta::name(t);
  }

  // Strided outputs: concatenate writes a transposed view and a broadcast into column ranges.
  std::vector<double> zv, rowv;
  Array z = random_array({c, r}, DType::float32, -4, 4, &zv);
  Array row = random_array({c}, DType::float32, -4, 4, &rowv);
  Array cat2 = porta::concatenate({z.transpose(), x + row}, 1);
  std::vector<double> ref;
  for (std::int64_t i = 0; i < r; ++i) {
    for (std::int64_t j = 0; j < c; ++j) ref.push_back(zv[static_cast<std::size_t>(j * r + i)]);
    for (std::int64_t j = 0; j < c; ++j) ref.push_back(xv[static_cast<std::size_t>(i * c + j)] + rowv[static_cast<std::size_t>(j)]);
  }
  EXPECT_TRUE(array_matches(cat2, DType::float32, {r, 2 * c}, ref, tol)) << "concatenate(z.T, x + row)";
}

PORTA_INSTANTIATE_DEVICES(TwoDimensional);

}  // namespace
}  // namespace porta_test
