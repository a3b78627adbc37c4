// flip, roll, tile, repeat, pad, split, tril/triu, var/std, reductions over axis lists and with
// keepdims over every axis, the slice helpers and to_vector<bool>; every device and dtype.
#include "test_common.hpp"

#include <porta/manip.hpp>

#include <cmath>

namespace porta_test {
namespace {

using porta::Slice;

// Host array of shape (r, c) in row-major order.
struct Host2 {
  std::int64_t r, c;
  std::vector<double> v;
  double at(std::int64_t i, std::int64_t j) const { return v[static_cast<std::size_t>(i * c + j)]; }
};

using Manip = DeviceDTypeTest;

TEST_P(Manip, FlipRollTileRepeatMatchNumPy) {
  PORTA_REQUIRE_DTYPE(dtype());
  Host2 h{5, 7, {}};
  Array a = random_array({5, 7}, dtype(), -30, 30, &h.v);
  auto build = [&](std::int64_t r, std::int64_t c, auto f) {
    std::vector<double> out;
    for (std::int64_t i = 0; i < r; ++i)
      for (std::int64_t j = 0; j < c; ++j) out.push_back(f(i, j));
    return out;
  };
  EXPECT_TRUE(array_matches(porta::flip(a, 1), dtype(), {5, 7}, build(5, 7, [&](auto i, auto j) { return h.at(i, 6 - j); }), {0, 0}));
  EXPECT_TRUE(array_matches(porta::flip(a), dtype(), {5, 7}, build(5, 7, [&](auto i, auto j) { return h.at(4 - i, 6 - j); }), {0, 0}));
  EXPECT_TRUE(array_matches(porta::roll(a, 3, 1), dtype(), {5, 7}, build(5, 7, [&](auto i, auto j) { return h.at(i, (j + 4) % 7); }), {0, 0}));
  EXPECT_TRUE(array_matches(porta::roll(a, -2, 0), dtype(), {5, 7}, build(5, 7, [&](auto i, auto j) { return h.at((i + 2) % 5, j); }), {0, 0}));
  EXPECT_TRUE(array_matches(porta::roll(a, 36), dtype(), {5, 7},
                            build(5, 7, [&](auto i, auto j) { std::int64_t f = (((i * 7 + j) - 36) % 35 + 35) % 35; return h.at(f / 7, f % 7); }), {0, 0}));
  Array t = a.transpose();  // (7, 5), non-contiguous
  EXPECT_TRUE(array_matches(porta::tile(t, {2, 3}), dtype(), {14, 15}, build(14, 15, [&](auto i, auto j) { return h.at(j % 5, i % 7); }), {0, 0}));
  EXPECT_TRUE(array_matches(porta::repeat(t, 3, 1), dtype(), {7, 15}, build(7, 15, [&](auto i, auto j) { return h.at(j / 3, i); }), {0, 0}));
  std::vector<std::int64_t> reps = {2, 0, 1, 3, 1};
  std::vector<std::int64_t> src;
  for (std::size_t i = 0; i < reps.size(); ++i)
    for (std::int64_t k = 0; k < reps[i]; ++k) src.push_back(static_cast<std::int64_t>(i));
  Array rp = porta::repeat(a, porta::from_host(reps, {5}, dev()), 0);
  EXPECT_TRUE(array_matches(rp, dtype(), {7, 7}, build(7, 7, [&](auto i, auto j) { return h.at(src[static_cast<std::size_t>(i)], j); }), {0, 0}));
}

TEST_P(Manip, PadSplitAndTriangles) {
  PORTA_REQUIRE_DTYPE(dtype());
  Host2 h{4, 9, {}};
  Array a = random_array({4, 9}, dtype(), -30, 30, &h.v);
  const double fill = dtype() == DType::boolean ? 1 : 5;
  std::vector<double> ref;
  for (std::int64_t i = 0; i < 4 + 1 + 2; ++i)
    for (std::int64_t j = 0; j < 9 + 3; ++j) {
      bool in = i >= 1 && i < 5 && j >= 3;
      ref.push_back(in ? h.at(i - 1, j - 3) : fill);
    }
  EXPECT_TRUE(array_matches(porta::pad(a, {{1, 2}, {3, 0}}, fill), dtype(), {7, 12}, ref, {0, 0}));
  auto parts = porta::split(a, 3, 1);
  ASSERT_EQ(parts.size(), 3u);
  for (int p = 0; p < 3; ++p) {
    std::vector<double> r;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j) r.push_back(h.at(i, p * 3 + j));
    EXPECT_TRUE(array_matches(parts[static_cast<std::size_t>(p)], dtype(), {4, 3}, r, {0, 0}));
  }
  for (int axis : {1, -2}) {  // unstack: views of each slice, the axis dropped
    auto slices = porta::unstack(a, axis);
    const bool rows = axis == -2;
    ASSERT_EQ(slices.size(), rows ? 4u : 9u);
    for (std::size_t p = 0; p < slices.size(); ++p) {
      std::vector<double> r;
      for (std::int64_t q = 0; q < (rows ? 9 : 4); ++q) r.push_back(rows ? h.at(static_cast<std::int64_t>(p), q) : h.at(q, static_cast<std::int64_t>(p)));
      EXPECT_TRUE(array_matches(slices[p], dtype(), {rows ? 9 : 4}, r, {0, 0})) << "unstack axis " << axis << ", slice " << p;
    }
  }
  auto uneven = porta::split(a, std::vector<std::int64_t>{1, 3, 10}, 0);
  ASSERT_EQ(uneven.size(), 4u);
  EXPECT_EQ(uneven[0].shape(), (Shape{1, 9}));
  EXPECT_EQ(uneven[1].shape(), (Shape{2, 9}));
  EXPECT_EQ(uneven[2].shape(), (Shape{1, 9}));
  EXPECT_EQ(uneven[3].shape(), (Shape{0, 9}));
  // NumPy's bounds: negative points count from the end, a part runs a[points[i-1]:points[i]] (empty
  // when backwards) and the next starts at the point itself (np.split(x, [-3, 1, 9, -20], axis=1)).
  auto negative = porta::split(a, std::vector<std::int64_t>{-3, 1, 9, -20}, 1);
  ASSERT_EQ(negative.size(), 5u);
  const std::int64_t from[] = {0, 6, 1, 9, 0}, count[] = {6, 0, 8, 0, 9};
  for (std::size_t p = 0; p < 5; ++p) {
    std::vector<double> r;
    for (std::int64_t i = 0; i < 4; ++i)
      for (std::int64_t j = 0; j < count[p]; ++j) r.push_back(h.at(i, from[p] + j));
    EXPECT_TRUE(array_matches(negative[p], dtype(), {4, count[p]}, r, {0, 0})) << "part " << p;
  }
  for (std::int64_t k : {-2, 0, 3}) {
    std::vector<double> lo, up;
    for (std::int64_t i = 0; i < 4; ++i)
      for (std::int64_t j = 0; j < 9; ++j) {
        lo.push_back(j - i <= k ? h.at(i, j) : 0);
        up.push_back(j - i >= k ? h.at(i, j) : 0);
      }
    EXPECT_TRUE(array_matches(porta::tril(a, k), dtype(), {4, 9}, lo, {0, 0})) << k;
    EXPECT_TRUE(array_matches(porta::triu(a, k), dtype(), {4, 9}, up, {0, 0})) << k;
  }
}

TEST_P(Manip, VarStdAndAxisListReductions) {
  PORTA_REQUIRE_DTYPE(dtype());
  std::vector<double> v;
  const Shape shape{3, 4, 5};
  Array a = random_array(shape, dtype(), -10, 10, &v);
  auto at = [&](int i, int j, int k) { return v[static_cast<std::size_t>((i * 4 + j) * 5 + k)]; };
  // Over axes {0, 2}: one value per j.
  std::vector<double> sums, vars, stds;
  for (int j = 0; j < 4; ++j) {
    double s = 0;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 5; ++k) s += at(i, j, k);
    double m = s / 15, ss = 0;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 5; ++k) ss += (at(i, j, k) - m) * (at(i, j, k) - m);
    sums.push_back(s);
    vars.push_back(ss / 14);
    stds.push_back(std::sqrt(ss / 14));
  }
  const bool small = dtype() == DType::float16 || dtype() == DType::bfloat16;
  // NumPy's: integers sum in int64, unsigned ones in uint64.
  const DType sum_t = porta::is_floating(dtype()) ? dtype() : porta::is_unsigned_integer(dtype()) ? DType::uint64 : DType::int64;
  const DType var_t = small ? dtype() : porta::is_floating(dtype()) ? dtype() : DType::float64;
  Tolerance tol = porta::is_floating(dtype()) ? tolerance(dtype(), Accuracy::simple) : Tolerance{0, 0};
  if (porta::is_floating(dtype())) tol.atol = small ? 0.5 : 1e-4;
  EXPECT_TRUE(array_matches(porta::sum(a, std::vector<int>{0, 2}), sum_t, {4}, sums, tol));
  EXPECT_TRUE(array_matches(porta::sum(a, std::vector<int>{2, -3}, true), sum_t, {1, 4, 1}, sums, tol));
  Tolerance vt{small ? 0.02 : 1e-5, small ? 0.2 : 1e-5};
  EXPECT_TRUE(array_matches(porta::var(a, {0, 2}, 1), var_t, {4}, vars, vt));
  EXPECT_TRUE(array_matches(porta::std(a, {0, 2}, 1, true), var_t, {1, 4, 1}, stds, vt));
  double total = 0, mx = -1e300;
  for (double x : v) {
    total += x;
    mx = std::max(mx, x);
  }
  EXPECT_TRUE(array_matches(porta::sum(a, porta::all_axes, true), sum_t, {1, 1, 1}, {total}, tol));
  EXPECT_TRUE(array_matches(porta::max(a, porta::all_axes, true), dtype(), {1, 1, 1}, {mx}, {0, 0}));
  double m = total / 60, ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  EXPECT_TRUE(array_matches(porta::var(a), var_t, {}, {ss / 60}, vt));
}

PORTA_INSTANTIATE_DEVICES_DTYPES(Manip, kAllDTypes);

using ManipRules = DeviceTest;

TEST_P(ManipRules, SliceHelpersAndBoolVectors) {
  std::vector<double> v;
  Array a = random_array({3, 4, 6}, DType::int32, -50, 50, &v);
  // a[..., 1::2] and a[::-1] through the helpers.
  Array last = a.slice({porta::ellipsis, porta::from(1, 2)});
  EXPECT_EQ(last.shape(), (Shape{3, 4, 3}));
  std::vector<double> ref;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 1; k < 6; k += 2) ref.push_back(v[static_cast<std::size_t>((i * 4 + j) * 6 + k)]);
  EXPECT_TRUE(array_matches(last, DType::int32, {3, 4, 3}, ref, {0, 0}));
  Array rev = a.slice({porta::reversed});
  EXPECT_EQ(rev[0].to_vector<std::int32_t>(), a[2].to_vector<std::int32_t>());
  EXPECT_EQ(a.slice({porta::span, porta::ellipsis, porta::upto(2)}).shape(), (Shape{3, 4, 2}));
  EXPECT_EQ(a.slice({porta::ellipsis}).shape(), (Shape{3, 4, 6}));
  EXPECT_EQ(a.slice({porta::range(1, 3), porta::every(3)}).shape(), (Shape{2, 2, 6}));
  // A negative step whose start lies before the beginning selects nothing, as Python's
  // range(3)[-5::-1]; one that starts at -len selects element 0 (a[..., -3:-4:-1, :] of NumPy).
  EXPECT_EQ(a.slice({porta::Slice{-5, std::nullopt, -1}}).shape(), (Shape{0, 4, 6}));
  EXPECT_EQ(a.slice({porta::span, porta::Slice{-7, -9, -1}}).shape(), (Shape{3, 0, 6}));
  Array first = a.slice({porta::ellipsis, porta::Slice{-6, -7, -1}});
  EXPECT_EQ(first.shape(), (Shape{3, 4, 1}));
  EXPECT_EQ(first.reshape({12}).to_vector<std::int32_t>(),
            a.slice({porta::ellipsis, porta::upto(1)}).reshape({12}).to_vector<std::int32_t>());
  a.slice({porta::Slice{-5, std::nullopt, -1}}).fill(7);  // an empty write changes nothing
  EXPECT_TRUE(array_matches(a, DType::int32, {3, 4, 6}, v, {0, 0}));
  EXPECT_THROW((void)a.slice({porta::ellipsis, porta::ellipsis}), porta::InvalidArgument);
  EXPECT_THROW((void)a.slice({porta::span, porta::span, porta::span, porta::ellipsis, porta::span}), porta::InvalidArgument);
  std::vector<bool> got = (a > 0).to_vector<bool>();
  ASSERT_EQ(got.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(got[i], v[i] > 0) << i;
}

TEST_P(ManipRules, EdgeCasesAndErrors) {
  Array e = porta::zeros({0, 3}, DType::float32, dev());
  EXPECT_EQ(porta::roll(e, 2, 0).shape(), (Shape{0, 3}));
  EXPECT_EQ(porta::tile(e, {2, 2}).shape(), (Shape{0, 6}));
  EXPECT_EQ(porta::repeat(e, 2, 1).shape(), (Shape{0, 6}));
  EXPECT_EQ(porta::pad(e, {{1, 1}}).shape(), (Shape{2, 5}));
  Array one = porta::full({1}, 3, DType::float64, dev());
  EXPECT_EQ(porta::flip(one).item<double>(), 3);
  EXPECT_TRUE(std::isnan(porta::var(one, 1).item<double>()));
  EXPECT_EQ(porta::var(one).item<double>(), 0);
  Array a = porta::zeros({4, 6}, DType::float32, dev());
  EXPECT_THROW((void)porta::split(a, 4, 1), porta::InvalidArgument);
  EXPECT_THROW((void)porta::flip(a, 2), porta::InvalidArgument);
  EXPECT_THROW((void)porta::tril(porta::zeros({3}, DType::float32, dev())), porta::InvalidArgument);
  EXPECT_THROW((void)porta::pad(a, {{1, 1}, {1, 1}, {1, 1}}), porta::InvalidArgument);
  EXPECT_THROW((void)porta::sum(a, std::vector<int>{1, -1}), porta::InvalidArgument);
  EXPECT_THROW((void)porta::tile(a, {-1}), porta::InvalidArgument);
  EXPECT_THROW((void)porta::repeat(a, porta::ones({3}, DType::int64, dev()), 0), porta::ShapeError);
}

PORTA_INSTANTIATE_DEVICES(ManipRules);

}  // namespace
}  // namespace porta_test
