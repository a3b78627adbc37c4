// moveaxis, broadcast_arrays, meshgrid, the standard's concat, permute_dims, matrix_transpose and
// astype (manip.hpp), vecdot and tensordot (linalg.hpp): every device and dtype, against host references computed here on random values; their errors.
#include "test_common.hpp"

#include <porta/linalg.hpp>
#include <porta/manip.hpp>

#include <cmath>
#include <numeric>

namespace porta_test {
namespace {

// Row-major strides of `shape`, in elements.
std::vector<std::int64_t> strides_of(const Shape& shape) {
  std::vector<std::int64_t> s(shape.size(), 1);
  for (std::size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// The host values of `v` (shape `shape`) with its axes in `order`, as Array::transpose gives them.
std::vector<double> transposed(const std::vector<double>& v, const Shape& shape, const std::vector<int>& order) {
  Shape out_shape;
  for (int ax : order) out_shape.push_back(shape[static_cast<std::size_t>(ax)]);
  const auto in_strides = strides_of(shape), out_strides = strides_of(out_shape);
  std::vector<double> out(v.size());
  for (std::size_t e = 0; e < v.size(); ++e) {
    std::int64_t src = 0, rest = static_cast<std::int64_t>(e);
    for (std::size_t d = 0; d < order.size(); ++d) {
      const std::int64_t idx = rest / out_strides[d];
      rest %= out_strides[d];
      src += idx * in_strides[static_cast<std::size_t>(order[d])];
    }
    out[e] = v[static_cast<std::size_t>(src)];
  }
  return out;
}

using Compose = DeviceDTypeTest;

TEST_P(Compose, MoveaxisBroadcastArraysAndMeshgrid) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  std::vector<double> v;
  const Shape shape{2, 3, 4};
  Array a = random_array(shape, t, -9, 9, &v);
  EXPECT_TRUE(array_matches(porta::moveaxis(a, {0}, {-1}), t, {3, 4, 2}, transposed(v, shape, {1, 2, 0}), {0, 0}));
  EXPECT_TRUE(array_matches(porta::moveaxis(a, {0, 1}, {2, 0}), t, {3, 4, 2}, transposed(v, shape, {1, 2, 0}), {0, 0}));
  EXPECT_TRUE(array_matches(porta::moveaxis(a, {2, 0}, {0, 1}), t, {4, 2, 3}, transposed(v, shape, {2, 0, 1}), {0, 0}));

  std::vector<double> x, y;
  Array xd = random_array({3, 1}, t, -9, 9, &x), yd = random_array({4}, t, -9, 9, &y);
  auto both = porta::broadcast_arrays({xd, yd});
  ASSERT_EQ(both.size(), 2u);
  std::vector<double> rx, ry;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      rx.push_back(x[static_cast<std::size_t>(i)]);
      ry.push_back(y[static_cast<std::size_t>(j)]);
    }
  EXPECT_TRUE(array_matches(both[0], t, {3, 4}, rx, {0, 0}));
  EXPECT_TRUE(array_matches(both[1], t, {3, 4}, ry, {0, 0}));

  // meshgrid of x (3 values, given as 3x1: flattened) and y (4): xy puts y's length first.
  auto xy = porta::meshgrid({xd, yd});
  auto ij = porta::meshgrid({xd, yd}, porta::MeshIndexing::ij);
  EXPECT_TRUE(array_matches(xy[0], t, {4, 3}, transposed(rx, {3, 4}, {1, 0}), {0, 0}));
  EXPECT_TRUE(array_matches(xy[1], t, {4, 3}, transposed(ry, {3, 4}, {1, 0}), {0, 0}));
  EXPECT_TRUE(array_matches(ij[0], t, {3, 4}, rx, {0, 0}));
  EXPECT_TRUE(array_matches(ij[1], t, {3, 4}, ry, {0, 0}));
  auto sparse = porta::meshgrid({xd, yd}, porta::MeshIndexing::xy, true);
  EXPECT_EQ(sparse[0].shape(), (Shape{1, 3}));
  EXPECT_EQ(sparse[1].shape(), (Shape{4, 1}));
}

TEST_P(Compose, TheStandardsNamesConcatPermuteDimsMatrixTransposeAstype) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  std::vector<double> v, w;
  const Shape shape{2, 3, 5};  // (5: no multiple of any block)
  Array a = random_array(shape, t, -9, 9, &v);
  // A strided view (every other element of the last axis of a (2, 3, 10) array) as the second operand.
  Array wide = random_array({2, 3, 10}, t, -9, 9, &w);
  Array b = wide.slice({porta::span, porta::span, porta::every(2)});
  std::vector<double> bv;
  for (std::size_t i = 0; i < 30; ++i) bv.push_back(w[i * 2]);
  EXPECT_TRUE(array_matches(porta::permute_dims(a, {2, 0, 1}), t, {5, 2, 3}, transposed(v, shape, {2, 0, 1}), {0, 0}));
  EXPECT_TRUE(array_matches(porta::permute_dims(a, {-1, 1, 0}), t, {5, 3, 2}, transposed(v, shape, {2, 1, 0}), {0, 0}));
  EXPECT_TRUE(array_matches(porta::matrix_transpose(b), t, {2, 5, 3}, transposed(bv, shape, {0, 2, 1}), {0, 0}));
  // concat along axis 2 (rows of a then of b), and flattened (axis nullopt): a's elements then b's.
  std::vector<double> along, flat = v;
  for (std::size_t r = 0; r < 6; ++r) {
    along.insert(along.end(), v.begin() + static_cast<std::ptrdiff_t>(r * 5), v.begin() + static_cast<std::ptrdiff_t>(r * 5 + 5));
    along.insert(along.end(), bv.begin() + static_cast<std::ptrdiff_t>(r * 5), bv.begin() + static_cast<std::ptrdiff_t>(r * 5 + 5));
  }
  flat.insert(flat.end(), bv.begin(), bv.end());
  EXPECT_TRUE(array_matches(porta::concat({a, b}, 2), t, {2, 3, 10}, along, {0, 0}));
  EXPECT_TRUE(array_matches(porta::concat({a, b}, std::nullopt), t, {60}, flat, {0, 0}));
  EXPECT_TRUE(array_matches(porta::concat({a.slice({porta::range(0, 0)})}, std::nullopt), t, {0}, {}, {0, 0}));
  // astype to float64 holds every value random_array gives (small integers, or floats of t).
  EXPECT_TRUE(array_matches(porta::astype(b, DType::float64), DType::float64, shape, bv, {0, 0}));
}

// Sums of products on the host: ref[o] (or, for bool, any(p && q)) and bound[o], the rounding a
// device may add over the n terms: 2 (n + 2) eps sum |p q|, eps the accumulator's unit roundoff
// (float32 for the 16-bit types), as for any dot product, and where the dtype is narrower than
// that, each product's rounding to it, (u - eps) sum |p q|. A relative tolerance alone fails where
// the terms cancel (a 0.012 sum of terms of size 4 lost 2e-5 of itself in float32 on PoCL and
// Kokkos, seed 4823230271781489101).
struct HostDots {
  DType t;
  std::vector<double> ref, bound;
  std::vector<int> terms;
  HostDots(DType dtype, std::size_t n) : t(dtype), ref(n, 0.0), bound(n, 0.0), terms(n, 0) {}
  void add(std::size_t o, double p, double q) {
    if (t == DType::boolean) {
      ref[o] = ref[o] != 0 || (p != 0 && q != 0) ? 1.0 : 0.0;
      return;
    }
    ref[o] += p * q;
    bound[o] += std::fabs(p * q);
    ++terms[o];
  }
  ::testing::AssertionResult matches(const Array& got, const Shape& shape) const {
    if (got.dtype() != t || got.shape() != shape) return array_matches(got, t, shape, ref, {0, 0});
    const double eps = accumulation_roundoff(t), narrower = unit_roundoff(t) - eps;
    std::vector<double> extra(bound.size());
    for (std::size_t o = 0; o < bound.size(); ++o) extra[o] = (2.0 * (terms[o] + 2) * eps + narrower) * bound[o];
    return values_match(fetch(got), ref, tolerance(t, Accuracy::simple), nullptr, {}, &extra);
  }
};

TEST_P(Compose, VecdotAndTensordotMatchHostSums) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  std::vector<double> a, b;
  Array ad = random_array({3, 5}, t, -3, 3, &a), bd = random_array({5}, t, -3, 3, &b);
  HostDots rows(t, 3);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t k = 0; k < 5; ++k) rows.add(i, a[i * 5 + k], b[k]);
  EXPECT_TRUE(rows.matches(porta::vecdot(ad, bd), {3})) << "vecdot along the last axis";
  // Along axis 0 of a (5 x 3) and of b (5 x 1, broadcast).
  Array at = porta::moveaxis(ad, {0}, {1}).copy();
  EXPECT_TRUE(rows.matches(porta::vecdot(at, bd.reshape({5, 1}), 0), {3})) << "vecdot along axis 0";

  // tensordot over a's axes (1, 2) of (2, 3, 4) and b's axes (1, 0) of (4, 3, 5): a (2, 5) result.
  std::vector<double> p, q;
  Array pd = random_array({2, 3, 4}, t, -2, 2, &p), qd = random_array({4, 3, 5}, t, -2, 2, &q);
  HostDots r2(t, 10);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t n = 0; n < 5; ++n)
      for (std::size_t j = 0; j < 3; ++j)
        for (std::size_t k = 0; k < 4; ++k) r2.add(i * 5 + n, p[(i * 3 + j) * 4 + k], q[(k * 3 + j) * 5 + n]);
  EXPECT_TRUE(r2.matches(porta::tensordot(pd, qd, {1, 2}, {1, 0}), {2, 5})) << "tensordot over two axis pairs";
  // axes = 1: a matrix product; axes = 0: the outer product.
  HostDots r1(t, 9);  // ad (3 x 5) by at (5 x 3, ad's transpose)
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t n = 0; n < 3; ++n)
      for (std::size_t k = 0; k < 5; ++k) r1.add(i * 3 + n, a[i * 5 + k], a[n * 5 + k]);
  EXPECT_TRUE(r1.matches(porta::tensordot(ad, at, 1), {3, 3})) << "tensordot, axes = 1";
  HostDots outer(t, 25);
  for (std::size_t s = 0; s < 5; ++s)
    for (std::size_t u = 0; u < 5; ++u) outer.add(s * 5 + u, b[s], b[u]);
  EXPECT_TRUE(outer.matches(porta::tensordot(bd, bd, 0), {5, 5})) << "tensordot, axes = 0";
}

using ComposeRules = DeviceTest;

TEST_P(ComposeRules, BadArgumentsAreTypedErrorsNamingTheValues) {
  Array x = porta::zeros({2, 3, 4}, DType::float32, dev()), y = porta::zeros({4, 5}, DType::float64, dev());
  auto message = [](auto&& call) {
    try {
      call();
    } catch (const porta::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THROW((void)porta::moveaxis(x, {3}, {0}), porta::InvalidArgument);
  EXPECT_NE(message([&] { (void)porta::moveaxis(x, {1, -2}, {0, 2}); }).find("[1, -2] name an axis more than once"), std::string::npos);
  EXPECT_NE(message([&] { (void)porta::moveaxis(x, {0, 1}, {2}); }).find("2 source axes [0, 1] and 1 destination axes [2]"), std::string::npos);
  EXPECT_THROW((void)porta::broadcast_arrays({x, y}), porta::ShapeError);
  EXPECT_NE(message([&] { (void)porta::vecdot(x, y); }).find("4 elements in x1 of shape (2, 3, 4) and 5 in x2"), std::string::npos);
  EXPECT_THROW((void)porta::vecdot(x, x, 3), porta::InvalidArgument);
  EXPECT_THROW((void)porta::vecdot(x[0][0][0], x[0][0][0]), porta::InvalidArgument);
  EXPECT_NE(message([&] { (void)porta::tensordot(x, y, 2); }).find("axis 1 of a (shape (2, 3, 4)) has 3 elements and axis 0 of b"), std::string::npos);
  EXPECT_NE(message([&] { (void)porta::tensordot(x, y, 3); }).find("axes=3"), std::string::npos);
  EXPECT_THROW((void)porta::tensordot(x, y, -1), porta::InvalidArgument);
  EXPECT_THROW((void)porta::tensordot(x, y, {2}, {0, 1}), porta::InvalidArgument);
  EXPECT_NE(message([&] { (void)porta::permute_dims(x, {0, 1}); }).find("axes [0, 1] for an array of 3 dimensions (2, 3, 4)"), std::string::npos);
  EXPECT_NE(message([&] { (void)porta::permute_dims(x, {0, 1, -2}); }).find("[0, 1, -2] name an axis more than once"), std::string::npos);
  EXPECT_THROW((void)porta::permute_dims(x, {0, 1, 3}), porta::InvalidArgument);
  EXPECT_NE(message([&] { (void)porta::matrix_transpose(x[0][0]); }).find("matrix_transpose: an array of 1 dimensions (4,)"), std::string::npos);
  EXPECT_THROW((void)porta::concat({x, y}, 0), porta::ShapeError);
  EXPECT_THROW((void)porta::concat({x, y}, 5), porta::InvalidArgument);
}

PORTA_INSTANTIATE_DEVICES_DTYPES(Compose, kAllDTypes);
PORTA_INSTANTIATE_DEVICES(ComposeRules);

}  // namespace
}  // namespace porta_test
