// Shapes and views: reshape, flatten, transpose, slice, operator[], broadcast_to, expand_dims,
// squeeze, copy, contiguous, concatenate, stack, and the accessors.
#include "test_common.hpp"

#include <limits>
#include <optional>
#include <string>

namespace porta_test {
namespace {

// The elements of a strided view of a row-major host array, in the view's row-major order.
std::vector<double> take(const std::vector<double>& base, const Shape& shape, const std::vector<std::int64_t>& strides,
                         std::int64_t offset) {
  std::vector<double> out;
  for (std::int64_t pos : view_positions(shape, strides, offset)) out.push_back(base[static_cast<std::size_t>(pos)]);
  return out;
}

using Shapes = DeviceTest;

TEST_P(Shapes, Accessors) {
  Array a = porta::zeros({2, 3, 4}, DType::int32, dev());
  EXPECT_EQ(a.ndim(), 3);
  EXPECT_EQ(a.size(), 24);
  EXPECT_EQ(a.dim(0), 2);
  EXPECT_EQ(a.dim(-1), 4);
  EXPECT_EQ(a.dtype(), DType::int32);
  EXPECT_EQ(a.device(), dev());
  EXPECT_EQ(a.nbytes(), 96u);
  EXPECT_TRUE(a.valid());
  EXPECT_THROW((void)a.dim(3), porta::InvalidArgument);
  EXPECT_THROW((void)a.dim(-4), porta::InvalidArgument);
  Array s = porta::zeros({}, DType::float32, dev());
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_EQ(s.size(), 1);
  EXPECT_EQ(porta::element_count({3, 0, 2}), 0);
  EXPECT_EQ(porta::to_string(Shape{3, 4}), "(3, 4)");
  EXPECT_EQ(porta::to_string(Shape{3}), "(3,)");
  EXPECT_EQ(porta::to_string(Shape{}), "()");
}

TEST_P(Shapes, ReshapeAndFlatten) {
  std::vector<double> v;
  Array a = random_array({2, 3, 4}, DType::float32, -9, 9, &v);
  const Tolerance ex{0, 0};
  for (Shape s : {Shape{4, 6}, Shape{24}, Shape{2, 12}, Shape{1, 24, 1}, Shape{3, 2, 2, 2}}) {
    EXPECT_TRUE(array_matches(a.reshape(s), DType::float32, s, v, ex)) << shape_str(s);
  }
  EXPECT_EQ(a.reshape({-1, 2}).shape(), (Shape{12, 2}));
  EXPECT_EQ(a.reshape({3, -1}).shape(), (Shape{3, 8}));
  EXPECT_TRUE(array_matches(a.flatten(), DType::float32, {24}, v, ex));
  // A non-contiguous view reshapes (copying when it must) in its own row-major order.
  Array t = a.transpose();  // (4, 3, 2)
  auto tv = take(v, {4, 3, 2}, {1, 4, 12}, 0);
  EXPECT_TRUE(array_matches(t.reshape({12, 2}), DType::float32, {12, 2}, tv, ex));
  EXPECT_TRUE(array_matches(t.flatten(), DType::float32, {24}, tv, ex));
  // A lazy tree reshapes as its values.
  auto twice = v;
  for (auto& x : twice) x *= 2;
  EXPECT_TRUE(array_matches((a * 2.0f).reshape({6, 4}), DType::float32, {6, 4}, twice, ex));
  // Empty arrays reshape among empty shapes.
  EXPECT_EQ(porta::zeros({0, 3}, DType::float32, dev()).reshape({3, 0, 5}).shape(), (Shape{3, 0, 5}));
  EXPECT_THROW((void)a.reshape({5, 5}), porta::ShapeError);
  EXPECT_THROW((void)a.reshape({-1, -1}), porta::ShapeError);
  EXPECT_THROW((void)a.reshape({-1, 5}), porta::ShapeError);
  EXPECT_THROW((void)a.reshape({-2, 12}), porta::ShapeError);
}

TEST_P(Shapes, TransposeWithAndWithoutAxes) {
  std::vector<double> v;
  Array a = random_array({2, 3, 4}, DType::int64, -1000, 1000, &v);
  const Tolerance ex{0, 0};
  EXPECT_TRUE(array_matches(a.transpose(), DType::int64, {4, 3, 2}, take(v, {4, 3, 2}, {1, 4, 12}, 0), ex));
  EXPECT_TRUE(array_matches(a.transpose({1, 0, 2}), DType::int64, {3, 2, 4}, take(v, {3, 2, 4}, {4, 12, 1}, 0), ex));
  EXPECT_TRUE(array_matches(a.transpose({-1, 0, 1}), DType::int64, {4, 2, 3}, take(v, {4, 2, 3}, {1, 12, 4}, 0), ex));
  EXPECT_TRUE(array_matches(a.transpose().transpose(), DType::int64, {2, 3, 4}, v, ex));
  Array one = porta::arange(5, DType::int64, dev());
  EXPECT_EQ(one.transpose().shape(), Shape{5});
  EXPECT_THROW((void)a.transpose({0, 0, 1}), porta::InvalidArgument) << "repeated axis";
  EXPECT_THROW((void)a.transpose({0, 1}), porta::InvalidArgument) << "too few axes";
  EXPECT_THROW((void)a.transpose({0, 1, 3}), porta::InvalidArgument) << "axis out of range";
}

TEST_P(Shapes, SlicesAndIndexing) {
  std::vector<double> v;
  Array a = random_array({5, 6}, DType::float32, -9, 9, &v);
  const Tolerance ex{0, 0};
  struct Case {
    std::vector<porta::Slice> slices;
    Shape shape;
    std::vector<std::int64_t> strides;
    std::int64_t offset;
  };
  using S = porta::Slice;
  const std::vector<Case> cases = {
      {{S{1, 4}}, {3, 6}, {6, 1}, 6},
      {{S{}, S{1, 5, 2}}, {5, 2}, {6, 2}, 1},
      {{S{std::nullopt, std::nullopt, -1}}, {5, 6}, {-6, 1}, 24},
      {{S{-2}, S{std::nullopt, -1, 2}}, {2, 3}, {6, 2}, 18},
      {{S{4, 0, -2}, S{5, std::nullopt, -3}}, {2, 2}, {-12, -3}, 29},
      {{S{100}}, {0, 6}, {6, 1}, 0},
      {{S{-100, 2}}, {2, 6}, {6, 1}, 0},
      {{S{3, 1}}, {0, 6}, {6, 1}, 0},
      {{S{1, 2}, S{2, 3}}, {1, 1}, {6, 1}, 8},
  };
  for (const auto& c : cases) {
    Array s = a.slice(c.slices);
    EXPECT_TRUE(array_matches(s, DType::float32, c.shape, take(v, c.shape, c.strides, c.offset), ex))
        << "slice to " << shape_str(c.shape);
    EXPECT_TRUE(array_matches(s + 0.0f, DType::float32, c.shape, take(v, c.shape, c.strides, c.offset), ex))
        << "slice to " << shape_str(c.shape) << " as an operand";
  }
  // A slice of a slice.
  Array ss = a.slice({{1, 5}, {std::nullopt, std::nullopt, -1}}).slice({{std::nullopt, std::nullopt, 2}, {1, 4}});
  EXPECT_TRUE(array_matches(ss, DType::float32, {2, 3}, take(v, {2, 3}, {12, -1}, 6 + 4), ex));
  // operator[]
  EXPECT_TRUE(array_matches(a[2], DType::float32, {6}, take(v, {6}, {1}, 12), ex));
  EXPECT_TRUE(array_matches(a[-1], DType::float32, {6}, take(v, {6}, {1}, 24), ex));
  EXPECT_TRUE(array_matches(a[1][4], DType::float32, {}, {v[10]}, ex));
  EXPECT_TRUE(array_matches(a.transpose()[3], DType::float32, {5}, take(v, {5}, {6}, 3), ex));
  EXPECT_EQ(a[0][0].item<float>(), static_cast<float>(v[0]));
  EXPECT_THROW((void)a[5], porta::InvalidArgument);
  EXPECT_THROW((void)a[-6], porta::InvalidArgument);
  EXPECT_THROW((void)a[0][0][0], porta::InvalidArgument) << "indexing a 0-d array";
  EXPECT_THROW((void)a.slice({S{0, 1, 0}}), porta::InvalidArgument) << "step 0";
  EXPECT_THROW((void)a.slice({S{}, S{}, S{}}), porta::InvalidArgument) << "three slices for two axes";
}

// Python's slice(start, stop, step).indices(length) and the elements it selects, written as the
// CPython source reads (PySlice_AdjustIndices). Nothing here can overflow at int64's limits: a
// negative bound gains length only while below 0, the bounds then lie in [-1, length], and the
// loop takes a step only when it stays short of the stop.
std::vector<std::int64_t> python_slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                                       std::int64_t step, std::int64_t length) {
  const std::int64_t lower = step < 0 ? -1 : 0, upper = step < 0 ? length - 1 : length;
  auto adjust = [&](std::optional<std::int64_t> x, std::int64_t dflt) {
    if (!x) return dflt;
    std::int64_t y = *x;
    if (y < 0) {
      y += length;
      if (y < lower) y = lower;
    } else if (y > upper) {
      y = upper;
    }
    return y;
  };
  const std::int64_t b = adjust(start, step < 0 ? upper : lower), e = adjust(stop, step < 0 ? lower : upper);
  std::vector<std::int64_t> out;
  for (std::int64_t i = b; step > 0 ? i < e : i > e;) {
    out.push_back(i);
    const std::int64_t left = step > 0 ? e - i : i - e;  // > 0, and at most length + 1
    if (step > 0 ? step >= left : step <= -left) break;
    i += step;
  }
  return out;
}

// Slices at the limits of int64 (steps of INT64_MIN, +-2^62, starts and stops of +-INT64_MAX and
// INT64_MIN) and random ones pick the elements Python's slice.indices picks.
TEST_P(Shapes, SlicesAtTheLimitsOfInt64MatchPythonSliceIndices) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max(), kMin = std::numeric_limits<std::int64_t>::min();
  const std::int64_t len = 9;
  std::vector<double> v;
  Array a = random_array({len}, DType::int32, -1000, 1000, &v);
  using Bound = std::optional<std::int64_t>;
  const std::vector<Bound> bounds = {std::nullopt, 0, 1, -1, 4, -4, len, -len, len + 1, -len - 1, kMax, kMin, kMax - 1, kMin + 1};
  const std::vector<std::int64_t> steps = {1, -1, 2, -2, 3, -5, len - 1, -len + 1, len, -len, kMax, kMin, kMin + 1,
                                           std::int64_t{1} << 62, -(std::int64_t{1} << 62)};
  struct Triple {
    Bound start, stop;
    std::int64_t step;
  };
  std::vector<Triple> triples;
  for (std::int64_t st : steps)
    for (const Bound& b : bounds)
      for (const Bound& e : {Bound{}, Bound{-1}, Bound{kMin}, Bound{kMax}, Bound{3}}) triples.push_back({b, e, st});
  for (int k = 0; k < 200; ++k) {
    auto pick = [&]() -> Bound {
      int r = random_int(0, 9);
      if (r == 0) return std::nullopt;
      if (r < 7) return random_int(-12, 12);
      return static_cast<std::int64_t>(rng()());  // anywhere in int64
    };
    std::int64_t st = random_int(0, 1) ? random_int(-12, 12) : static_cast<std::int64_t>(rng()());
    if (st == 0) st = kMin;
    triples.push_back({pick(), pick(), st});
  }
  auto show = [](const Bound& b) { return b ? std::to_string(*b) : std::string("None"); };
  int failures = 0;
  for (const Triple& t : triples) {
    const std::vector<std::int64_t> idx = python_slice(t.start, t.stop, t.step, len);
    std::vector<double> ref;
    for (std::int64_t i : idx) ref.push_back(v[static_cast<std::size_t>(i)]);
    Array s = a.slice({porta::Slice{t.start, t.stop, t.step}});
    auto r = array_matches(s, DType::int32, {static_cast<std::int64_t>(idx.size())}, ref, {0, 0});
    if (!r && ++failures <= 10)
      ADD_FAILURE() << "a[" << show(t.start) << ":" << show(t.stop) << ":" << t.step << "] of " << len << " elements: " << r.message();
  }
  EXPECT_EQ(failures, 0) << "of " << triples.size() << " slices";
  // A step of 0 names itself and the axis.
  std::string msg = thrown_message<porta::InvalidArgument>([&] { (void)a.slice({porta::Slice{1, 5, 0}}); });
  EXPECT_NE(msg.find("step of axis 0 is 0"), std::string::npos) << msg;
}

TEST_P(Shapes, BroadcastToExpandDimsSqueeze) {
  std::vector<double> v;
  Array a = random_array({3}, DType::int32, -99, 99, &v);
  const Tolerance ex{0, 0};
  std::vector<double> rows;
  for (int r = 0; r < 4; ++r) rows.insert(rows.end(), v.begin(), v.end());
  EXPECT_TRUE(array_matches(a.broadcast_to({4, 3}), DType::int32, {4, 3}, rows, ex));
  std::vector<double> cols;
  for (double x : v)
    for (int c = 0; c < 5; ++c) cols.push_back(x);
  EXPECT_TRUE(array_matches(a.reshape({3, 1}).broadcast_to({3, 5}), DType::int32, {3, 5}, cols, ex));
  EXPECT_TRUE(array_matches(a.broadcast_to({2, 1, 3}), DType::int32, {2, 1, 3}, [&] {
    auto r = v;
    r.insert(r.end(), v.begin(), v.end());
    return r;
  }(), ex));
  EXPECT_TRUE(array_matches(a.broadcast_to({0, 3}), DType::int32, {0, 3}, {}, ex));
  EXPECT_THROW((void)a.broadcast_to({4}), porta::ShapeError);
  EXPECT_THROW((void)a.broadcast_to({3, 2}), porta::ShapeError);

  EXPECT_EQ(a.expand_dims(0).shape(), (Shape{1, 3}));
  EXPECT_EQ(a.expand_dims(1).shape(), (Shape{3, 1}));
  EXPECT_EQ(a.expand_dims(-1).shape(), (Shape{3, 1}));
  EXPECT_TRUE(array_matches(a.expand_dims(0), DType::int32, {1, 3}, v, ex));
  EXPECT_THROW((void)a.expand_dims(3), porta::InvalidArgument);
  Array b = a.reshape({1, 3, 1, 1});
  EXPECT_EQ(b.squeeze().shape(), Shape{3});
  EXPECT_TRUE(array_matches(b.squeeze(), DType::int32, {3}, v, ex));
  EXPECT_EQ(porta::zeros({1, 1}, DType::int32, dev()).squeeze().shape(), Shape{});
}

TEST_P(Shapes, CopyAndContiguous) {
  if (!dev().supports(DType::float64)) GTEST_SKIP() << dev().spec() << " has no float64";
  std::vector<double> v;
  Array a = random_array({4, 5}, DType::float64, -9, 9, &v);
  const Tolerance ex{0, 0};
  EXPECT_TRUE(a.is_contiguous());
  Array c = a.copy();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_TRUE(array_matches(c, DType::float64, {4, 5}, v, ex));
  EXPECT_EQ(a.contiguous().node(), a.node()) << "contiguous() of a contiguous array is the array";
  Array t = a.transpose();
  EXPECT_FALSE(t.is_contiguous());
  Array tc = t.contiguous();
  EXPECT_TRUE(tc.is_contiguous());
  EXPECT_TRUE(array_matches(tc, DType::float64, {5, 4}, take(v, {5, 4}, {1, 5}, 0), ex));
  Array s = a.slice({{std::nullopt, std::nullopt, 2}, {1, 4}});
  EXPECT_FALSE(s.is_contiguous());
  EXPECT_TRUE(array_matches(s.copy(), DType::float64, {2, 3}, take(v, {2, 3}, {10, 1}, 1), ex));
  Array lazy = a * 3.0;
  EXPECT_FALSE(lazy.is_contiguous()) << "a lazy array is not evaluated";
  EXPECT_TRUE(lazy.contiguous().is_contiguous());
  // A row of a 2-D array is contiguous; a column is not.
  EXPECT_TRUE(a[1].is_contiguous());
  EXPECT_FALSE(a.transpose()[1].is_contiguous());
}

TEST_P(Shapes, ConcatenateAndStack) {
  std::vector<double> xv, yv;
  Array x = random_array({2, 3}, DType::int32, -99, 99, &xv);
  Array y = random_array({4, 3}, DType::int32, -99, 99, &yv);
  const Tolerance ex{0, 0};
  auto xy = xv;
  xy.insert(xy.end(), yv.begin(), yv.end());
  EXPECT_TRUE(array_matches(porta::concatenate({x, y}, 0), DType::int32, {6, 3}, xy, ex));
  EXPECT_TRUE(array_matches(porta::concatenate({x, porta::zeros({0, 3}, DType::int32, dev()), y}), DType::int32, {6, 3}, xy, ex))
      << "with an empty part";
  // Along the last axis, by a negative axis.
  Array z = y.slice({{0, 2}});
  std::vector<double> xz;
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) xz.push_back(xv[static_cast<std::size_t>(r * 3 + c)]);
    for (int c = 0; c < 3; ++c) xz.push_back(yv[static_cast<std::size_t>(r * 3 + c)]);
  }
  EXPECT_TRUE(array_matches(porta::concatenate({x, z}, -1), DType::int32, {2, 6}, xz, ex));
  // stack: a new axis.
  EXPECT_TRUE(array_matches(porta::stack({x, z}, 0), DType::int32, {2, 2, 3}, [&] {
    auto r = xv;
    r.insert(r.end(), yv.begin(), yv.begin() + 6);
    return r;
  }(), ex));
  std::vector<double> s1;
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) s1.push_back(xv[static_cast<std::size_t>(r * 3 + c)]);
    for (int c = 0; c < 3; ++c) s1.push_back(yv[static_cast<std::size_t>(r * 3 + c)]);
  }
  EXPECT_TRUE(array_matches(porta::stack({x, z}, 1), DType::int32, {2, 2, 3}, s1, ex));
  std::vector<double> s2;
  for (int k = 0; k < 6; ++k) {
    s2.push_back(xv[static_cast<std::size_t>(k)]);
    s2.push_back(yv[static_cast<std::size_t>(k)]);
  }
  EXPECT_TRUE(array_matches(porta::stack({x, z}, -1), DType::int32, {2, 3, 2}, s2, ex));
  // Errors.
  EXPECT_THROW((void)porta::concatenate({x, y}, 1), porta::ShapeError) << "rows differ";
  EXPECT_THROW((void)porta::concatenate({x, y.flatten()}, 0), porta::ShapeError) << "dimensions differ";
  EXPECT_THROW((void)porta::concatenate({}, 0), porta::InvalidArgument);
  EXPECT_THROW((void)porta::concatenate({x, y}, 2), porta::InvalidArgument);
  EXPECT_THROW((void)porta::concatenate({x[0][0], x[0][1]}, 0), porta::ShapeError) << "0-d arrays";
  EXPECT_THROW((void)porta::stack({x, y}, 0), porta::ShapeError);
}

PORTA_INSTANTIATE_DEVICES(Shapes);

}  // namespace
}  // namespace porta_test
