// Reductions: sum/mean/prod/min/max/argmin/argmax/all/any for every dtype, over the whole array
// and every axis of 1-D, 2-D and 3-D shapes, with keepdims; NumPy's result dtypes; NaN rules;
// ties; empty extents; large sums; the same bits on every run.
#include "test_common.hpp"
#include "elementwise_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace porta_test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

enum class Op { sum, mean, prod, min, max, argmin, argmax, all, any };
constexpr Op kOps[] = {Op::sum, Op::mean, Op::prod, Op::min, Op::max, Op::argmin, Op::argmax, Op::all, Op::any};

const char* op_name(Op op) {
  switch (op) {
    case Op::sum: return "sum";
    case Op::mean: return "mean";
    case Op::prod: return "prod";
    case Op::min: return "min";
    case Op::max: return "max";
    case Op::argmin: return "argmin";
    case Op::argmax: return "argmax";
    case Op::all: return "all";
    case Op::any: return "any";
  }
  return "?";
}

Array apply(Op op, const Array& a, std::optional<int> axis, bool keepdims) {
  switch (op) {
    case Op::sum: return axis ? porta::sum(a, *axis, keepdims) : porta::sum(a);
    case Op::mean: return axis ? porta::mean(a, *axis, keepdims) : porta::mean(a);
    case Op::prod: return axis ? porta::prod(a, *axis, keepdims) : porta::prod(a);
    case Op::min: return axis ? porta::min(a, *axis, keepdims) : porta::min(a);
    case Op::max: return axis ? porta::max(a, *axis, keepdims) : porta::max(a);
    case Op::argmin: return axis ? porta::argmin(a, *axis, keepdims) : porta::argmin(a);
    case Op::argmax: return axis ? porta::argmax(a, *axis, keepdims) : porta::argmax(a);
    case Op::all: return axis ? porta::all(a, *axis, keepdims) : porta::all(a);
    case Op::any: return axis ? porta::any(a, *axis, keepdims) : porta::any(a);
  }
  return {};
}

// NumPy's result dtype (reduce.hpp).
DType result_dtype(Op op, DType t) {
  switch (op) {
    case Op::sum:
    case Op::prod:  // integers narrower than 64 bits accumulate in int64 / uint64 by their sign
      if (t == DType::boolean || (porta::is_signed_integer(t) && porta::itemsize(t) < 8)) return DType::int64;
      return porta::is_unsigned_integer(t) ? DType::uint64 : t;
    case Op::mean: return porta::is_floating(t) ? t : DType::float64;
    case Op::min:
    case Op::max: return t;
    case Op::argmin:
    case Op::argmax: return DType::int64;
    case Op::all:
    case Op::any: return DType::boolean;
  }
  return t;
}

// The elements each output element reduces, in axis order: the array viewed as
// [outer, extent, inner] around the axis (the whole array without one).
struct Groups {
  Shape shape;  // of the result
  std::vector<std::vector<double>> members;
};

Groups groups_of(const std::vector<double>& v, const Shape& s, std::optional<int> axis, bool keepdims) {
  Groups g;
  std::int64_t outer = 1, extent = porta::element_count(s), inner = 1;
  if (axis) {
    int nd = static_cast<int>(s.size());
    int ax = *axis < 0 ? *axis + nd : *axis;
    outer = inner = 1;
    for (int i = 0; i < ax; ++i) outer *= s[static_cast<std::size_t>(i)];
    for (int i = ax + 1; i < nd; ++i) inner *= s[static_cast<std::size_t>(i)];
    extent = s[static_cast<std::size_t>(ax)];
    for (int i = 0; i < nd; ++i) {
      if (i != ax) g.shape.push_back(s[static_cast<std::size_t>(i)]);
      else if (keepdims) g.shape.push_back(1);
    }
  } else if (keepdims) {
    g.shape.assign(s.size(), 1);
  }
  g.members.resize(static_cast<std::size_t>(outer * inner));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i)
      for (std::int64_t r = 0; r < extent; ++r)
        g.members[static_cast<std::size_t>(o * inner + i)].push_back(v[static_cast<std::size_t>(o * extent * inner + r * inner + i)]);
  return g;
}

double reference(Op op, const std::vector<double>& m) {
  double acc = 0;
  switch (op) {
    case Op::sum:
    case Op::mean:
      for (double x : m) acc += x;
      return op == Op::mean ? acc / static_cast<double>(m.size()) : acc;
    case Op::prod:
      acc = 1;
      for (double x : m) acc *= x;
      return acc;
    case Op::min:
    case Op::max: {
      double best = m.at(0);
      for (double x : m) {
        if (std::isnan(x)) return x;
        if (op == Op::min ? x < best : x > best) best = x;
      }
      return best;
    }
    case Op::argmin:
    case Op::argmax: {
      std::size_t best = 0;
      for (std::size_t k = 0; k < m.size(); ++k) {
        if (std::isnan(m[k])) return static_cast<double>(k);  // the first NaN
        if (op == Op::argmin ? m[k] < m[best] : m[k] > m[best]) best = k;  // ties: the first index
      }
      return static_cast<double>(best);
    }
    case Op::all:
      for (double x : m)
        if (x == 0) return 0;
      return 1;
    case Op::any:
      for (double x : m)
        if (x != 0) return 1;
      return 0;
  }
  return 0;
}

// Accumulated rounding allowed for one output element: float16/bfloat16/float32 accumulate in
// float32, float64 in float64, in an order the device chooses.
double accumulation_bound(Op op, DType t, const std::vector<double>& m, double ref) {
  if (!porta::is_floating(t)) return 0;
  double eps = accumulation_roundoff(t);
  double n = static_cast<double>(m.size());
  double mag = 0;
  for (double x : m) mag += std::fabs(x);
  switch (op) {
    case Op::sum: return 2 * n * eps * mag;
    case Op::mean: return 2 * n * eps * mag / std::max(n, 1.0) + 2 * eps * std::fabs(ref);
    case Op::prod: return 2 * n * eps * std::fabs(ref);
    default: return 0;
  }
}

// Inputs suited to each op: ties for min/max/argmin/argmax, factors near 1 for prod, mostly
// nonzero values for all/any.
std::vector<double> inputs_for(TestContext& c, Op op, DType t, std::int64_t n) {
  bool fl = porta::is_floating(t);
  std::vector<double> v;
  switch (op) {
    case Op::sum:
    case Op::mean: v = c.random_values(n, t, fl ? -4 : -50, fl ? 4 : 50); break;
    case Op::prod:
      if (t == DType::boolean) {
        v = c.random_values(n, t, 0, 1);
        for (auto& x : v) x = c.random_int(0, 9) ? 1 : 0;
      } else if (fl) {
        v = c.random_values(n, t, 0.9, 1.1);
        for (auto& x : v)
          if (c.random_int(0, 1)) x = -x;
      } else {
        v.assign(static_cast<std::size_t>(n), 1);
        for (auto& x : v) x = c.random_int(0, 1) || porta::is_unsigned_integer(t) ? 1 : -1;
        for (int k = 0; k < 12 && n > 0; ++k) v[static_cast<std::size_t>(c.random_int(0, static_cast<int>(n - 1)))] = 2;
      }
      break;
    case Op::min:
    case Op::max:
    case Op::argmin:
    case Op::argmax:
      v = c.random_values(n, t, -20, 20);
      if (fl)
        for (auto& x : v) x = std::round(x * 2) / 2;  // many ties
      break;
    case Op::all:
    case Op::any:
      v = c.random_values(n, t, fl ? 0.5 : 1, 2);
      for (auto& x : v) {
        if (c.random_int(0, 9) == 0) x = 0;
        if (t != DType::boolean && !porta::is_unsigned_integer(t) && c.random_int(0, 1)) x = -x;
      }
      break;
  }
  return v;
}

using Reductions = DeviceDTypeTest;

TEST_P(Reductions, EveryOpEveryAxisWithKeepdimsMatchesReference) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  // Every dtype: 1-D, 2-D and 3-D shapes over every axis (rows, columns, a single row or
  // column, several of each). The dtypes whose accumulators differ (float32, which float16 and
  // bfloat16 use too; float64; int64, which int32 and bool use) also get the shapes with size-1
  // axes and the large extents that take several passes. Each geometry is its own kernel per op
  // and dtype on PoCL, so the other dtypes keep to the first list to bound the compiles.
  // {2, 2500}: rows long enough for CPU devices' vector first pass (two chunks of 1024 and a tail);
  // {300, 48}: columns for its column form (chunks of 64 rows, the last one short).
  std::vector<Shape> shapes = {{7}, {5, 7}, {3, 4, 5}, {2, 2500}, {300, 48}};
  // Issue 37's integers: the small shapes (every axis of 1-D, 2-D, 3-D), to bound the compiles;
  // CPU devices' vector passes take none of them, and integer_ops_test.cpp reduces long rows
  // (several passes) and columns of every integer dtype.
  if (porta::is_integral(t) && porta::itemsize(t) != 4 && t != DType::int64) shapes.resize(3);
  if (t == DType::float32 || t == DType::float64 || t == DType::int32)
    for (Shape more : {Shape{1}, Shape{33, 1}, Shape{1, 9}, Shape{2, 1, 65}, Shape{1000}, Shape{300, 3}, Shape{3, 1000}})
      shapes.push_back(more);
  for (Op op : kOps) {
    DType out = result_dtype(op, t);
    for (const Shape& s : shapes) {
      std::vector<double> v = inputs_for(*this, op, t, porta::element_count(s));
      Array a = upload(v, t, s, dev());
      int nd = static_cast<int>(s.size());
      std::vector<std::optional<int>> axes = {std::nullopt, -1};
      for (int ax = 0; ax < nd; ++ax) axes.push_back(ax);
      for (auto axis : axes) {
        for (bool keepdims : {false, true}) {
          std::string what = std::string(op_name(op)) + " of " + std::string(porta::name(t)) + " " + shape_str(s) + " axis " +
                             (axis ? std::to_string(*axis) : "none") + (keepdims ? " keepdims" : "");
          // The whole-array overloads take no keepdims.
          if (!axis && keepdims) continue;
          if (!dev().supports(out)) {
            EXPECT_THROW(apply(op, a, axis, keepdims), porta::DTypeError) << what;
            continue;
          }
          Groups g = groups_of(v, s, axis, keepdims);
          std::vector<double> ref, bound;
          for (auto& m : g.members) {
            ref.push_back(reference(op, m));
            bound.push_back(accumulation_bound(op, t, m, ref.back()));
          }
          Array r = apply(op, a, axis, keepdims);
          ASSERT_EQ(r.dtype(), out) << what;
          ASSERT_EQ(r.shape(), g.shape) << what;
          Tolerance tol = tolerance(out, op == Op::mean || op == Op::prod || op == Op::sum ? Accuracy::simple : Accuracy::exact);
          EXPECT_TRUE(values_match(fetch(r), ref, tol, nullptr, {}, &bound)) << what;
        }
      }
    }
  }
}

// The sweep compiles a kernel per op, shape and dtype on PoCL: of issue 37's integers it takes
// int8, uint8 and uint64 (a signed and an unsigned 1-byte type, the unsigned 64-bit
// accumulator); int16, uint16 and uint32 take the same code paths, and integer_ops_test.cpp
// reduces every integer dtype at its edges.
inline constexpr DType kSweepDTypes[] = {DType::boolean, DType::int8,    DType::int32,   DType::int64,  DType::uint8,
                                         DType::uint64,  DType::float16, DType::bfloat16, DType::float32, DType::float64};
PORTA_INSTANTIATE_DEVICES_DTYPES(Reductions, kSweepDTypes);

using ReductionRules = DeviceDTypeTest;

// min/max propagate NaN; argmin/argmax give the first NaN; sum of NaN is NaN; NaN is true.
TEST_P(ReductionRules, NaNPropagatesAndArgReturnsFirstNaN) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  if (!porta::is_floating(t)) GTEST_SKIP() << "NaN rules are for floating dtypes";
  // Rows: NaN in the middle, two NaNs, NaN first, no NaN.
  std::vector<double> v = {1, 2, kNaN, -5, 3, 0,  kNaN, 4, kNaN, -1,
                           kNaN, 7, 8, -9, 0, 2,  5, -3, 5, -3};
  Array a = upload(v, t, {4, 5}, dev());
  struct Expect {
    Op op;
    std::vector<double> rows;
  };
  for (const Expect& e : {Expect{Op::min, {kNaN, kNaN, kNaN, -3}}, Expect{Op::max, {kNaN, kNaN, kNaN, 5}},
                          Expect{Op::argmin, {2, 1, 0, 2}}, Expect{Op::argmax, {2, 1, 0, 1}}, Expect{Op::sum, {kNaN, kNaN, kNaN, 6}},
                          Expect{Op::all, {1, 0, 0, 1}}, Expect{Op::any, {1, 1, 1, 1}}}) {
    Array r = apply(e.op, a, 1, false);
    EXPECT_TRUE(values_match(fetch(r), e.rows, tolerance(r.dtype(), Accuracy::simple))) << op_name(e.op) << " along axis 1";
  }
  EXPECT_TRUE(std::isnan(fetch(porta::max(a)).value(0)));
  EXPECT_EQ(fetch(porta::argmin(a)).integer(0), 2) << "the first NaN of the flattened array";
  EXPECT_EQ(fetch(porta::argmax(a)).integer(0), 2);
  // Along axis 0: column 0 is (1, 0, NaN, 2): NaN at row 2.
  EXPECT_EQ(fetch(porta::argmax(a, 0)).integer(0), 2);
  EXPECT_TRUE(std::isnan(fetch(porta::min(a, 0)).value(2))) << "column 2 holds NaN";
}

// Ties give the first index, along any axis and for every dtype.
TEST_P(ReductionRules, TiesGiveTheFirstIndex) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  if (t == DType::boolean) {
    Array b = upload({0, 1, 1, 0, 1, 0}, t, {6}, dev());
    EXPECT_EQ(fetch(porta::argmax(b)).integer(0), 1);
    EXPECT_EQ(fetch(porta::argmin(b)).integer(0), 0);
    return;
  }
  Array a = upload({3, 1, 3, 1, 3, 1, 2, 3, 1, 3, 3, 1}, t, {3, 4}, dev());
  EXPECT_EQ(fetch(porta::argmax(a)).integer(0), 0);
  EXPECT_EQ(fetch(porta::argmin(a)).integer(0), 1);
  EXPECT_TRUE(values_match(fetch(porta::argmax(a, 1)), {0, 0, 1}, {0, 0}));
  EXPECT_TRUE(values_match(fetch(porta::argmin(a, 1)), {1, 1, 0}, {0, 0}));
  EXPECT_TRUE(values_match(fetch(porta::argmax(a, 0)), {0, 2, 0, 1}, {0, 0}));
  EXPECT_TRUE(values_match(fetch(porta::argmin(a, 0, true)), {2, 0, 1, 0}, {0, 0}));
  EXPECT_EQ(porta::argmin(a, 0, true).shape(), (Shape{1, 4}));
}

// Empty extents: sum 0, prod 1, all true, any false, mean NaN; min/max/argmin/argmax throw
// ShapeError; reducing a non-empty axis of an empty array gives an empty result.
TEST_P(ReductionRules, EmptyExtents) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  Array e = porta::zeros({0}, t, dev());
  Array e2 = porta::zeros({3, 0}, t, dev());
  EXPECT_TRUE(values_match(fetch(porta::sum(e)), {0}, {0, 0}));
  EXPECT_EQ(porta::sum(e).dtype(), result_dtype(Op::sum, t));
  EXPECT_TRUE(values_match(fetch(porta::prod(e)), {1}, {0, 0}));
  EXPECT_TRUE(values_match(fetch(porta::all(e)), {1}, {0, 0}));
  EXPECT_TRUE(values_match(fetch(porta::any(e)), {0}, {0, 0}));
  if (dev().supports(result_dtype(Op::mean, t))) {
    EXPECT_TRUE(std::isnan(fetch(porta::mean(e)).value(0)));
  }
  EXPECT_TRUE(values_match(fetch(porta::sum(e2, 1)), {0, 0, 0}, {0, 0}));
  EXPECT_TRUE(values_match(fetch(porta::prod(e2, 1, true)), {1, 1, 1}, {0, 0}));
  EXPECT_EQ(porta::prod(e2, 1, true).shape(), (Shape{3, 1}));
  EXPECT_TRUE(values_match(fetch(porta::all(e2, -1)), {1, 1, 1}, {0, 0}));
  for (Op op : {Op::min, Op::max, Op::argmin, Op::argmax}) {
    EXPECT_THROW(apply(op, e, std::nullopt, false), porta::ShapeError) << op_name(op) << " of (0,)";
    EXPECT_THROW(apply(op, e2, 1, false), porta::ShapeError) << op_name(op) << " of (3, 0) along axis 1";
    Array r = apply(op, e2, 0, false);  // no outputs, each of an extent of 3
    EXPECT_EQ(r.shape(), Shape{0}) << op_name(op) << " of (3, 0) along axis 0";
  }
  EXPECT_EQ(porta::sum(e2, 0).shape(), Shape{0});
}

PORTA_INSTANTIATE_DEVICES_DTYPES(ReductionRules, kAllDTypes);

using LargeReductions = DeviceTest;

TEST_P(LargeReductions, SumOfTwoToTheTwentyFloat32WithinRelativeTolerance) {
  poison(dev(), std::size_t{8} << 20);
  const std::int64_t n = std::int64_t{1} << 20;
  std::vector<double> v;
  Array a = random_array({n}, DType::float32, 0, 1, &v);
  double ref = 0;
  for (double x : v) ref += x;
  double got = fetch(porta::sum(a)).value(0);
  EXPECT_NEAR(got, ref, 1e-5 * ref) << "float32 sum of 2^20 elements in [0, 1)";
  double mean = fetch(porta::mean(a)).value(0);
  EXPECT_NEAR(mean, ref / static_cast<double>(n), 1e-5 * ref / static_cast<double>(n));
  // Along axis 1 of (4, 2^18), and axis 0 of (2^10, 2^10).
  Array rows = a.reshape({4, n / 4});
  HostArray rs = fetch(porta::sum(rows, 1));
  for (int r = 0; r < 4; ++r) {
    double s = 0;
    for (std::int64_t k = 0; k < n / 4; ++k) s += v[static_cast<std::size_t>(r * (n / 4) + k)];
    EXPECT_NEAR(rs.value(r), s, 1e-5 * s) << "row " << r;
  }
  HostArray cs = fetch(porta::sum(a.reshape({1024, 1024}), 0));
  for (int c = 0; c < 1024; c += 97) {
    double s = 0;
    for (int k = 0; k < 1024; ++k) s += v[static_cast<std::size_t>(k * 1024 + c)];
    EXPECT_NEAR(cs.value(c), s, 1e-5 * s) << "column " << c;
  }
  // int32 sums accumulate in int64: past 2^31 exactly.
  std::vector<double> iv;
  Array ia = random_array({n}, DType::int32, 0, 5000, &iv);
  double isum = 0;
  for (double x : iv) isum += x;
  EXPECT_GT(isum, 2147483647.0);
  EXPECT_EQ(fetch(porta::sum(ia)).integer(0), static_cast<std::int64_t>(isum));
  // float16 sums accumulate in float32: 3001 ones give 3000 (the float16 nearest 3001), not 2048.
  if (dev().supports(DType::float16)) {
    HostArray h = fetch(porta::sum(porta::ones({3001}, DType::float16, dev())));
    EXPECT_EQ(h.dtype, DType::float16);
    EXPECT_EQ(h.value(0), 3000.0);
  }
}

// The same reduction of the same input gives the same bits every time (no float atomics).
TEST_P(LargeReductions, SameInputGivesIdenticalBits) {
  poison(dev(), std::size_t{2} << 20);
  const std::int64_t n = (std::int64_t{1} << 18) + 77;
  Array a = random_array({n}, DType::float32, -1, 1);
  Array m = a.slice({{0, 1023 * 256}}).reshape({1023, 256});
  for (int run = 0; run < 2; ++run) {
    HostArray s1 = fetch(porta::sum(a)), s2 = fetch(porta::sum(a));
    EXPECT_EQ(s1.bytes, s2.bytes) << "sum";
    EXPECT_EQ(fetch(porta::mean(a)).bytes, fetch(porta::mean(a)).bytes) << "mean";
    EXPECT_EQ(fetch(porta::prod(a * 0.001f + 1.0f)).bytes, fetch(porta::prod(a * 0.001f + 1.0f)).bytes) << "prod";
    EXPECT_EQ(fetch(porta::sum(m, 0)).bytes, fetch(porta::sum(m, 0)).bytes) << "sum along axis 0";
    EXPECT_EQ(fetch(porta::sum(m, 1)).bytes, fetch(porta::sum(m, 1)).bytes) << "sum along axis 1";
  }
}

// argmin/argmax over arrays large enough to take every path's several passes (chunks of a GPU
// grid, PoCL's interleaved lanes): many ties (values on a grid of 41), the first index of the
// extreme wins; the first NaN wins over every number and over a later NaN; an array of -inf
// alone gives 0; a lazy input fuses; and rows and columns of a matrix of the same data.
TEST_P(LargeReductions, ArgOfLargeArraysGivesTheFirstTieAndTheFirstNaN) {
  poison(dev(), std::size_t{8} << 20);
  const std::int64_t n = (std::int64_t{1} << 20) + 77;
  std::vector<double> v = random_values(n, DType::float32, -20, 20);
  for (auto& x : v) x = std::round(x);
  auto first = [&](const std::vector<double>& x, std::int64_t begin, std::int64_t count, std::int64_t step, bool max) {
    std::int64_t best = 0;
    for (std::int64_t k = 1; k < count; ++k) {
      double a = x[static_cast<std::size_t>(begin + k * step)], b = x[static_cast<std::size_t>(begin + best * step)];
      if (std::isnan(b)) break;
      if (std::isnan(a) || (max ? a > b : a < b)) best = k;
    }
    return best;
  };
  for (DType t : {DType::float32, DType::int32}) {
    Array a = upload(v, t, {n}, dev());
    EXPECT_EQ(fetch(porta::argmax(a)).integer(0), first(v, 0, n, 1, true)) << porta::name(t);
    EXPECT_EQ(fetch(porta::argmin(a)).integer(0), first(v, 0, n, 1, false)) << porta::name(t);
    EXPECT_EQ(fetch(porta::argmax(-a)).integer(0), first(v, 0, n, 1, false)) << "argmax of a lazy -a, " << porta::name(t);
  }
  // The extreme once, at the last position, and at the first.
  {
    std::vector<double> w = v;
    w.back() = 25;
    EXPECT_EQ(fetch(porta::argmax(upload(w, DType::float32, {n}, dev()))).integer(0), n - 1);
    w.front() = 25;
    EXPECT_EQ(fetch(porta::argmax(upload(w, DType::float32, {n}, dev()))).integer(0), 0);
  }
  std::vector<double> w = v;
  const std::int64_t nan1 = n / 3 + 5, nan2 = n - 3;
  w[static_cast<std::size_t>(nan2)] = kNaN;
  w[static_cast<std::size_t>(nan1)] = kNaN;
  Array an = upload(w, DType::float32, {n}, dev());
  EXPECT_EQ(fetch(porta::argmax(an)).integer(0), nan1) << "the first NaN";
  EXPECT_EQ(fetch(porta::argmin(an)).integer(0), nan1) << "the first NaN";
  Array inf = porta::full({n}, -std::numeric_limits<double>::infinity(), DType::float32, dev());
  EXPECT_EQ(fetch(porta::argmax(inf)).integer(0), 0) << "all -inf";
  // Rows and columns of the same data, NaNs included.
  const std::int64_t rows = 37, cols = n / rows;
  Array m = an.slice({{0, rows * cols}}).reshape({rows, cols});
  HostArray r1 = fetch(porta::argmax(m, 1)), r0 = fetch(porta::argmin(m, 0));
  for (std::int64_t r = 0; r < rows; ++r) ASSERT_EQ(r1.integer(r), first(w, r * cols, cols, 1, true)) << "argmax of row " << r;
  for (std::int64_t c = 0; c < cols; c += 97) ASSERT_EQ(r0.integer(c), first(w, c, rows, cols, false)) << "argmin of column " << c;
  const std::int64_t nan_col = nan1 % cols;
  EXPECT_EQ(r0.integer(nan_col), nan1 / cols) << "the column holding the first NaN";
}

// Whole-array argmax/argmin long enough that each GPU thread folds several unrolled iterations
// (2^24 + 3 float32: a few thousand positions a thread on the H200): the extreme planted twice in
// one thread's iterations (256 and 1024 positions apart: the same iteration and a later one), and
// at the front of one chunk after a tie in another; NaN after the extreme; a lazy input.
TEST_P(LargeReductions, ArgOfLongArraysAcrossUnrolledIterations) {
  poison(dev(), std::size_t{80} << 20);
  const std::int64_t n = (std::int64_t{1} << 24) + 3;
  std::vector<double> v = random_values(n, DType::float32, -1, 1);
  auto first_max = [&](const std::vector<double>& x, bool max) {
    std::int64_t best = 0;
    for (std::int64_t k = 1; k < static_cast<std::int64_t>(x.size()); ++k) {
      double a = x[static_cast<std::size_t>(k)], b = x[static_cast<std::size_t>(best)];
      if (std::isnan(b)) break;
      if (std::isnan(a) || (max ? a > b : a < b)) best = k;
    }
    return best;
  };
  const std::int64_t p = n / 3 + 11;
  for (const std::int64_t gap : {std::int64_t{256}, std::int64_t{1024}, std::int64_t{5000000}}) {
    std::vector<double> w = v;
    w[static_cast<std::size_t>(p + gap)] = 2;
    w[static_cast<std::size_t>(p)] = 2;
    w[static_cast<std::size_t>(p + 1)] = -2;
    w[static_cast<std::size_t>(p + gap + 1)] = -2;
    Array a = upload(w, DType::float32, {n}, dev());
    EXPECT_EQ(fetch(porta::argmax(a)).integer(0), p) << "2 at " << p << " and " << p + gap;
    EXPECT_EQ(fetch(porta::argmin(a)).integer(0), p + 1) << "-2 at " << p + 1 << " and " << p + gap + 1;
    EXPECT_EQ(fetch(porta::argmax(a * -1.0f)).integer(0), first_max(w, false)) << "argmax of a lazy -a";
    w[static_cast<std::size_t>(p + gap + 7)] = kNaN;
    Array an = upload(w, DType::float32, {n}, dev());
    EXPECT_EQ(fetch(porta::argmax(an)).integer(0), p + gap + 7) << "NaN after the extreme";
    EXPECT_EQ(fetch(porta::argmin(an)).integer(0), p + gap + 7) << "NaN after the extreme";
  }
  EXPECT_EQ(fetch(porta::argmax(upload(v, DType::float32, {n}, dev()))).integer(0), first_max(v, true)) << "no planted values";
}

// Reductions read views and fuse lazy inputs.
TEST_P(LargeReductions, StridedAndLazyInputs) {
  if (!dev().supports(DType::float64)) GTEST_SKIP() << dev().spec() << " has no float64";
  std::vector<double> v;
  Array a = random_array({6, 10}, DType::float64, -3, 3, &v);
  Array t = a.transpose();                                // (10, 6)
  Array s = a.slice({{std::nullopt, std::nullopt, -2}, {1, 9, 3}});  // rows 5, 3, 1; cols 1, 4, 7
  HostArray ts = fetch(porta::sum(t, 0));                 // sums of rows of a
  HostArray ss = fetch(porta::max(s, 1, true));
  HostArray ls = fetch(porta::sum(a * 2.0 + 1.0, 1));
  HostArray bs = fetch(porta::sum(a[2].broadcast_to({4, 10}), 0));
  for (int r = 0; r < 6; ++r) {
    double sum = 0;
    for (int c = 0; c < 10; ++c) sum += v[static_cast<std::size_t>(r * 10 + c)];
    EXPECT_NEAR(ts.value(r), sum, 1e-12) << "sum of a.T along axis 0";
    EXPECT_NEAR(ls.value(r), 2 * sum + 10, 1e-12) << "sum of a * 2 + 1 along axis 1";
  }
  EXPECT_EQ(ss.shape, (Shape{3, 1}));
  for (int k = 0; k < 3; ++k) {
    int row = 5 - 2 * k;
    double m = std::max({v[static_cast<std::size_t>(row * 10 + 1)], v[static_cast<std::size_t>(row * 10 + 4)], v[static_cast<std::size_t>(row * 10 + 7)]});
    EXPECT_EQ(ss.value(k), m) << "max of a[::-2, 1:9:3] along axis 1";
  }
  for (int c = 0; c < 10; ++c) EXPECT_NEAR(bs.value(c), 4 * v[static_cast<std::size_t>(20 + c)], 1e-12) << "sum of a broadcast row";
}

// max/min of whole arrays and of long rows (CPU devices take a vector pass over chunks of 1024
// with a tail), every dtype that pass reads: values that are exact in the dtype (int64 beyond
// int32's range), extremes at a row's end and at a chunk's, a NaN in one row, -inf everywhere
// for max and +inf for min.
TEST_P(LargeReductions, MaxAndMinOfLongRowsAndWholeArrays) {
  poison(dev(), std::size_t{8} << 20);
  for (DType t : {DType::float32, DType::float64, DType::int32, DType::int64}) {
    if (!dev().supports(t)) continue;
    const bool fl = porta::is_floating(t);
    const double range = t == DType::int64 ? 3e12 : 1e6;
    for (const Shape& shape : {Shape{(std::int64_t{1} << 20) + 77}, Shape{3, 5013}, Shape{37, 2048}}) {
      const std::int64_t rows = shape.size() == 1 ? 1 : shape[0], cols = shape.back();
      std::vector<double> v = random_values(rows * cols, t, -range, range);
      // Each row's extremes planted at its last element (the tail) and at the end of its first chunk.
      for (std::int64_t r = 0; r < rows; ++r) {
        v[static_cast<std::size_t>(r * cols + cols - 1)] = (r % 2 ? -1.5 : 1.5) * range;
        v[static_cast<std::size_t>(r * cols + 1023)] = (r % 2 ? 1.5 : -1.5) * range;
      }
      if (fl && rows > 1) v[static_cast<std::size_t>(cols + cols / 2 + 3)] = kNaN;  // row 1
      Array a = upload(v, t, shape, dev());
      HostArray mx = fetch(porta::max(a, shape.size() - 1)), mn = fetch(porta::min(a, shape.size() - 1));
      for (std::int64_t r = 0; r < rows; ++r) {
        double hi = -std::numeric_limits<double>::infinity(), lo = std::numeric_limits<double>::infinity();
        for (std::int64_t c = 0; c < cols; ++c) {
          hi = nan_max(hi, v[static_cast<std::size_t>(r * cols + c)]);
          lo = nan_min(lo, v[static_cast<std::size_t>(r * cols + c)]);
        }
        if (std::isnan(hi)) {
          EXPECT_TRUE(std::isnan(mx.value(r)) && std::isnan(mn.value(r))) << porta::name(t) << " row " << r << " holds a NaN";
        } else {
          EXPECT_EQ(mx.value(r), hi) << porta::name(t) << " max of row " << r << " of " << rows << " x " << cols;
          EXPECT_EQ(mn.value(r), lo) << porta::name(t) << " min of row " << r << " of " << rows << " x " << cols;
        }
      }
    }
    if (fl) {
      const std::int64_t n = 5000;
      const double inf = std::numeric_limits<double>::infinity();
      EXPECT_EQ(fetch(porta::max(porta::full({n}, -inf, t, dev()))).value(0), -inf) << porta::name(t);
      EXPECT_EQ(fetch(porta::min(porta::full({n}, inf, t, dev()))).value(0), inf) << porta::name(t);
    }
  }
}

// Column sums of each width the CPU column pass takes (64, 32 or 16 columns a work-item, and
// none: 40 columns), over row counts that are not multiples of its chunk of rows, and a batch.
TEST_P(LargeReductions, ColumnSumsOfEveryWidth) {
  poison(dev(), std::size_t{8} << 20);
  for (DType t : {DType::float32, DType::float64, DType::int64}) {
    if (!dev().supports(t)) continue;
    for (const Shape& shape : {Shape{517, 1024}, Shape{300, 96}, Shape{1000, 48}, Shape{257, 40}, Shape{3, 200, 64}}) {
      const std::int64_t outer = shape.size() == 3 ? shape[0] : 1, rows = shape[shape.size() - 2], cols = shape.back();
      std::vector<double> v = random_values(outer * rows * cols, t, -1000, 1000);
      HostArray got = fetch(porta::sum(upload(v, t, shape, dev()), static_cast<int>(shape.size()) - 2));
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t c = 0; c < cols; ++c) {
          double want = 0, mag = 0;
          for (std::int64_t r = 0; r < rows; ++r) {
            want += v[static_cast<std::size_t>((o * rows + r) * cols + c)];
            mag += std::abs(v[static_cast<std::size_t>((o * rows + r) * cols + c)]);
          }
          const double tol = t == DType::int64 ? 0 : (t == DType::float32 ? 1e-6 : 1e-14) * mag;
          ASSERT_NEAR(got.value(o * cols + c), want, tol) << porta::name(t) << " column " << c << " of batch " << o << " of "
                                                          << porta::to_string(shape);
        }
    }
  }
}

// NumPy's mean of float16 (and here bfloat16): summed and divided in float32, then rounded, so a
// mean whose sum passes 65504 is finite ([40000, 40000] gave inf). Rows of 301, every axis.
TEST_P(LargeReductions, HalfPrecisionMeanSumsInFloat32) {
  for (DType t : {DType::float16, DType::bfloat16}) {
    if (!dev().supports(t)) continue;
    EXPECT_EQ(porta::mean(porta::full({2}, 40000.0, t, dev())).astype(DType::float32).item<float>(),
              t == DType::float16 ? 40000.0f : static_cast<float>(porta::bfloat16(40000.0f)))
        << porta::name(t);
    std::vector<double> v;
    const Array a = random_array({5, 301}, t, 20000, 60000, &v);
    for (int axis : {0, 1}) {
      const std::int64_t rows = axis == 0 ? 301 : 5, len = axis == 0 ? 5 : 301;
      std::vector<double> ref;
      for (std::int64_t o = 0; o < rows; ++o) {
        double s = 0;
        for (std::int64_t r = 0; r < len; ++r) s += v[static_cast<std::size_t>(axis == 0 ? r * 301 + o : o * 301 + r)];
        ref.push_back(s / static_cast<double>(len));
      }
      // float32 sums: within a float16 rounding of the exact mean (one of bfloat16's).
      EXPECT_TRUE(array_matches(porta::mean(a, axis), t, {rows}, ref, {t == DType::float16 ? 1e-3 : 8e-3, 0}))
          << porta::name(t) << " axis " << axis;
    }
  }
}

// NumPy's sum/prod with dtype=: the result in that dtype, integers wrapping as NumPy's (int8 sums
// of 100s), over the whole array and one axis of 7 x 13.
TEST_P(LargeReductions, SumAndProdWithADType) {
  for (DType t : {DType::int8, DType::int32, DType::float32}) {
    if (!dev().supports(t)) continue;
    std::vector<double> v;
    const Array a = random_array({7, 13}, DType::int32, 90, 127, &v);
    double total = 0;
    for (double x : v) total += x;
    const Array s = porta::sum(a, t);
    EXPECT_EQ(s.dtype(), t);
    const double want = t == DType::int8 ? static_cast<double>(static_cast<std::int8_t>(static_cast<std::int64_t>(total))) : total;
    EXPECT_TRUE(array_matches(s, t, {}, {want}, {t == DType::float32 ? 1e-6 : 0, 0})) << porta::name(t);
    std::vector<double> rows, prods;
    for (int r = 0; r < 7; ++r) {
      double x = 0, p = 1;
      for (int c = 0; c < 13; ++c) x += v[static_cast<std::size_t>(r * 13 + c)];
      for (int c = 0; c < 2; ++c) p *= v[static_cast<std::size_t>(r * 13 + c)];
      rows.push_back(t == DType::int8 ? static_cast<std::int8_t>(static_cast<std::int64_t>(x)) : x);
      prods.push_back(t == DType::int8 ? static_cast<std::int8_t>(static_cast<std::int64_t>(p)) : p);
    }
    EXPECT_TRUE(array_matches(porta::sum(a, 1, true, t), t, {7, 1}, rows, {t == DType::float32 ? 1e-6 : 0, 0})) << porta::name(t);
    EXPECT_TRUE(array_matches(porta::prod(a.slice({porta::span, porta::upto(2)}), 1, false, t), t, {7}, prods, {0, 0}))
        << porta::name(t);
    EXPECT_EQ(porta::prod(a, t).dtype(), t);
  }
}

PORTA_INSTANTIATE_DEVICES(LargeReductions);

}  // namespace
}  // namespace porta_test
