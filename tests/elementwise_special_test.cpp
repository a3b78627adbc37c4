// Elementwise special values: NaN, infinities, signed zeros and halves through every op as NumPy
// gives them; integer remainder, power and division by zero; float -> integer casts that
// saturate, NaN giving 0.
#include "elementwise_reference.hpp"
#include "test_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include <unistd.h>

namespace porta_test {
namespace {

using porta::Operand;

using SpecialValues = DeviceDTypeTest;

// One op's result over tiled inputs and its reference; check_on_blocks checks op k on block k.
struct Expectation {
  std::string name;
  Array result;
  std::function<double(double, double)> ref;  // (a, b)
  Accuracy accuracy;
};

// The inputs a and b repeat one block of m special values once per expectation; expectation k
// is checked on block k. Results of one dtype are fused into one evaluation.
void check_on_blocks(const Device& d, const std::vector<double>& a, const std::vector<double>& b, std::size_t m,
                     const std::vector<Expectation>& ex) {
  std::map<DType, std::vector<std::size_t>> groups;
  for (std::size_t k = 0; k < ex.size(); ++k) groups[ex[k].result.dtype()].push_back(k);
  for (auto& [t, members] : groups) {
    std::vector<Array> arrays;
    std::vector<int> sel(a.size(), 0);
    for (std::size_t j = 0; j < members.size(); ++j) {
      arrays.push_back(ex[members[j]].result);
      for (std::size_t e = members[j] * m; e < (members[j] + 1) * m; ++e) sel[e] = static_cast<int>(j);
    }
    HostArray got = evaluate_selected(arrays, sel, d);
    for (std::size_t k : members) {
      std::vector<bool> mask(a.size(), false);
      std::vector<double> ref(a.size(), 0);
      for (std::size_t e = k * m; e < (k + 1) * m; ++e) {
        mask[e] = true;
        ref[e] = ex[k].ref(a[e], b[e]);
      }
      EXPECT_TRUE(values_match(got, ref, tolerance(t, ex[k].accuracy), &mask, [&](std::int64_t e) {
        std::ostringstream o;
        o << "a = " << a[static_cast<std::size_t>(e)] << ", b = " << b[static_cast<std::size_t>(e)];
        return o.str();
      })) << ex[k].name << " of " << porta::name(t);
    }
  }
}

// NaN, infinities, signed zeros and halves through every op: NaN propagates through maximum and
// minimum (either side), comparisons with NaN are false except !=, division by zero gives
// infinities, remainder by zero NaN, round is half to even, pow(1, NaN) is 1 (C99, NumPy).
TEST_P(SpecialValues, NaNInfinityAndZerosFollowNumPy) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::vector<double> sa = {kNaN, 1, kNaN, kInf, -kInf, 0.0, -0.0, 2, -3, kInf, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -1, 4, -2};
  const std::vector<double> sb = {1, kNaN, kNaN, 2, kInf, -0.0, 0.0, 2, -kInf, kInf, 0, -0.0, 0, 2, -2, 1, 0.5, kNaN, -kInf, 3};
  using F1 = double (*)(double);
  const std::vector<std::tuple<const char*, Array (*)(const Array&), F1, Accuracy>> unary = {
      {"isnan", porta::isnan, [](double x) { return truth(std::isnan(x)); }, Accuracy::exact},
      {"isinf", porta::isinf, [](double x) { return truth(std::isinf(x)); }, Accuracy::exact},
      {"isfinite", porta::isfinite, [](double x) { return truth(std::isfinite(x)); }, Accuracy::exact},
      {"sign", porta::sign, sign_of, Accuracy::exact},
      {"abs", porta::abs, [](double x) { return std::fabs(x); }, Accuracy::exact},
      {"negative", porta::negative, [](double x) { return -x; }, Accuracy::exact},
      {"square", porta::square, [](double x) { return x * x; }, Accuracy::simple},
      {"floor", porta::floor, [](double x) { return std::floor(x); }, Accuracy::exact},
      {"ceil", porta::ceil, [](double x) { return std::ceil(x); }, Accuracy::exact},
      {"round", porta::round, [](double x) { return std::nearbyint(x); }, Accuracy::exact},
      {"exp", porta::exp, [](double x) { return std::exp(x); }, Accuracy::transcendental},
      {"expm1", porta::expm1, [](double x) { return std::expm1(x); }, Accuracy::transcendental},
      {"log", porta::log, [](double x) { return std::log(x); }, Accuracy::transcendental},
      {"log1p", porta::log1p, [](double x) { return std::log1p(x); }, Accuracy::transcendental},
      {"sqrt", porta::sqrt, [](double x) { return std::sqrt(x); }, Accuracy::transcendental},
      {"sin", porta::sin, [](double x) { return std::sin(x); }, Accuracy::transcendental},
      {"tanh", porta::tanh, [](double x) { return std::tanh(x); }, Accuracy::transcendental},
      {"sigmoid", porta::sigmoid, [](double x) { return 1 / (1 + std::exp(-x)); }, Accuracy::transcendental},
      {"erf", porta::erf, [](double x) { return std::erf(x); }, Accuracy::transcendental},
      {"trunc", porta::trunc, [](double x) { return std::trunc(x); }, Accuracy::exact},
      {"signbit", porta::signbit, [](double x) { return truth(std::signbit(x)); }, Accuracy::exact},
      {"acos", porta::acos, [](double x) { return std::acos(x); }, Accuracy::transcendental},
      {"asin", porta::asin, [](double x) { return std::asin(x); }, Accuracy::transcendental},
      {"atan", porta::atan, [](double x) { return std::atan(x); }, Accuracy::transcendental},
      {"acosh", porta::acosh, [](double x) { return std::acosh(x); }, Accuracy::transcendental},
      {"asinh", porta::asinh, [](double x) { return std::asinh(x); }, Accuracy::transcendental},
      {"atanh", porta::atanh, [](double x) { return std::atanh(x); }, Accuracy::transcendental},
      {"sinh", porta::sinh, [](double x) { return std::sinh(x); }, Accuracy::transcendental},
      {"cosh", porta::cosh, [](double x) { return std::cosh(x); }, Accuracy::transcendental},
      {"log2", porta::log2, [](double x) { return std::log2(x); }, Accuracy::transcendental},
      {"log10", porta::log10, [](double x) { return std::log10(x); }, Accuracy::transcendental},
  };
  using F2 = double (*)(double, double);
  using Op2 = Array (*)(const porta::Operand&, const porta::Operand&);
  const std::vector<std::tuple<const char*, Op2, F2, Accuracy>> binary = {
      {"maximum", porta::maximum, nan_max, Accuracy::exact},
      {"minimum", porta::minimum, nan_min, Accuracy::exact},
      {"less", porta::less, [](double x, double y) { return truth(x < y); }, Accuracy::exact},
      {"greater_equal", porta::greater_equal, [](double x, double y) { return truth(x >= y); }, Accuracy::exact},
      {"equal", porta::equal, [](double x, double y) { return truth(x == y); }, Accuracy::exact},
      {"not_equal", porta::not_equal, [](double x, double y) { return truth(x != y); }, Accuracy::exact},
      {"add", porta::add, [](double x, double y) { return x + y; }, Accuracy::simple},
      {"multiply", porta::multiply, [](double x, double y) { return x * y; }, Accuracy::simple},
      {"divide", porta::divide, [](double x, double y) { return x / y; }, Accuracy::simple},
      {"remainder", porta::remainder, [](double x, double y) { return numpy_mod(x, y, DType::float64); }, Accuracy::simple},
      {"floor_divide", porta::floor_divide, [](double x, double y) { return numpy_floordiv(x, y, DType::float64); }, Accuracy::simple},
      {"atan2", porta::atan2, [](double x, double y) { return std::atan2(x, y); }, Accuracy::transcendental},
      {"hypot", porta::hypot, [](double x, double y) { return std::hypot(x, y); }, Accuracy::transcendental},
      {"copysign", porta::copysign, [](double x, double y) { return std::copysign(x, y); }, Accuracy::exact},
      {"power", porta::power, [](double x, double y) { return std::pow(x, y); }, Accuracy::transcendental},
  };
  const std::size_t m = sa.size(), count = unary.size() + binary.size();
  std::vector<double> a, b;
  for (std::size_t k = 0; k < count; ++k) {
    a.insert(a.end(), sa.begin(), sa.end());
    b.insert(b.end(), sb.begin(), sb.end());
  }
  const std::int64_t n = static_cast<std::int64_t>(a.size());
  Array ad = upload(a, t, {n}, dev()), bd = upload(b, t, {n}, dev());
  std::vector<Expectation> ex;
  for (auto& [name, fn, ref, acc] : unary) {
    F1 r = ref;
    ex.push_back({name, fn(ad), [r](double x, double) { return r(x); }, acc});
  }
  for (auto& [name, fn, ref, acc] : binary) ex.push_back({name, fn(ad, bd), ref, acc});
  check_on_blocks(dev(), a, b, m, ex);
  // The sign of zero: -(+0) is -0, round(-0.5) is -0.
  HostArray neg = fetch(porta::negative(upload({0.0, -0.5}, t, {2}, dev())));
  EXPECT_TRUE(std::signbit(neg.value(0))) << "-(+0) must be -0";
  HostArray r = fetch(porta::round(upload({-0.5, 0.5}, t, {2}, dev())));
  EXPECT_TRUE(std::signbit(r.value(0))) << "round(-0.5) is -0";
  EXPECT_FALSE(std::signbit(r.value(1))) << "round(0.5) is +0";
}

INSTANTIATE_TEST_SUITE_P(Devices, SpecialValues,
                         ::testing::Combine(::testing::ValuesIn(porta::devices()), ::testing::ValuesIn(kFloatDTypes)),
                         DeviceDTypeName());

// Integer rules of ops.hpp / plan.hpp: remainder has the sign of the divisor and x % 0 is 0;
// powers are exact (beyond float64's 2^53); a negative exponent from an array gives the power
// truncated toward zero (1 ** -k is 1, (-1) ** -k is +-1, others 0) and one known when building
// is an InvalidArgument (NumPy raises); true division gives float64.
TEST_P(SpecialValues, IntegerRemainderPowerAndDivision) {
  const DType t = dtype();
  if (t != DType::float32) GTEST_SKIP() << "integer rules are checked once per device";
  for (DType it : {DType::int32, DType::int64}) {
    Array a = upload({7, -7, 7, -7, 5, 0, -9, 6}, it, {8}, dev());
    Array b = upload({3, 3, -3, -3, 0, 4, -1, -4}, it, {8}, dev());
    EXPECT_TRUE(array_matches(a % b, it, {8}, {1, 2, -2, -1, 0, 0, 0, -2}, tolerance(it, Accuracy::exact))) << porta::name(it);
    Array q = a / b;
    EXPECT_TRUE(array_matches(q, DType::float64, {8}, {7.0 / 3, -7.0 / 3, -7.0 / 3, 7.0 / 3, kInf, 0, 9, -1.5},
                              tolerance(DType::float64, Accuracy::simple)))
        << porta::name(it);
    Array base = upload({2, -3, 2, 5, -2, 0, 1, -1, -1, 0, 1, -1}, it, {12}, dev());
    Array ex = upload({10, 5, -1, 0, 3, 0, -1, -3, -2, -2, -7, -1}, it, {12}, dev());
    EXPECT_TRUE(array_matches(porta::power(base, ex), it, {12}, {1024, -243, 0, 1, -8, 1, 1, -1, 1, 0, 1, -1},
                              tolerance(it, Accuracy::exact)))
        << porta::name(it);
    for (std::int64_t e : {-1, -2, -5}) {
      std::string msg = thrown_message<porta::InvalidArgument>([&] { (void)porta::power(base, e); });
      EXPECT_NE(msg.find("negative integer powers"), std::string::npos) << msg;
      EXPECT_NE(msg.find(std::to_string(e)), std::string::npos) << msg;
      EXPECT_THROW((void)porta::power(base, porta::full({12}, static_cast<double>(e), it, dev())), porta::InvalidArgument)
          << "a lazy scalar exponent is known when building";
    }
    EXPECT_THROW((void)porta::power(1, porta::full({1}, -1, it, dev())), porta::InvalidArgument) << "1 ** -1";
    EXPECT_NO_THROW((void)porta::power(base, -1.0)) << "a floating exponent makes the result float64";
  }
  EXPECT_THROW((void)porta::power(upload({1, 0}, DType::boolean, {2}, dev()), -1), porta::InvalidArgument) << "bool ** -1 is int64";
  // 3^39 is exact in int64 and not in float64.
  Array big = upload({3}, DType::int64, {1}, dev());
  HostArray p = fetch(porta::power(big, std::int64_t{39}));
  EXPECT_EQ(p.integer(0), 4052555153018976267LL);
}

// The host reference of porta's float -> integer rule (plan.hpp's Op::cast), written out here
// apart from the library's: truncate toward zero, saturate at the limits of the `bits`-bit
// integer, NaN gives 0. The same on every backend, where a C cast would leave it undefined.
std::int64_t saturated_int(double v, int bits) {
  if (std::isnan(v)) return 0;
  const double limit = std::ldexp(1.0, bits - 1);
  if (v >= limit) return bits == 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (bits - 1)) - 1;
  if (v <= -limit) return bits == 64 ? std::numeric_limits<std::int64_t>::min() : -(std::int64_t{1} << (bits - 1));
  return static_cast<std::int64_t>(std::trunc(v));
}

// astype of out-of-range, NaN and infinite floats to int32 and int64 saturates, NaN giving 0,
// for every floating source dtype; to bool it is x != 0, NaN giving true (NumPy). Values at the
// edges of each integer's range as the source dtype rounds them, then random ones over +-1e19.
TEST_P(SpecialValues, FloatToIntegerCastsSaturateAndNaNGivesZero) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  std::vector<double> v = {3e9, -3e9, kNaN, kInf, -kInf, 2.5, -2.5, 0.75, -0.75, 0.0, -0.0,
                           2147483520.0, 2147483647.0, 2147483648.0, -2147483648.0, -2147483904.0, -2147483649.0,
                           9223371487098961920.0, 9223372036854775807.0, -9223372036854775808.0, 9.3e18, -9.3e18,
                           65504, -65504, 65520, 1e30, -1e30, 1e-30};
  for (double x : random_values(200, DType::float64, -1e19, 1e19)) v.push_back(x);
  for (double x : random_values(100, DType::float64, -5e9, 5e9)) v.push_back(x);
  const std::int64_t n = static_cast<std::int64_t>(v.size());
  Array src = upload(v, t, {n}, dev());
  const HostArray in = fetch(src);  // the values as the source dtype holds them
  for (auto [to, bits] : {std::pair{DType::int32, 32}, std::pair{DType::int64, 64}, std::pair{DType::boolean, 0}}) {
    Array r = src.astype(to);
    ASSERT_EQ(r.dtype(), to);
    const HostArray got = fetch(r);
    int bad = 0;
    for (std::int64_t i = 0; i < n && bad < 10; ++i) {
      const double x = in.value(i);
      const std::int64_t want = bits ? saturated_int(x, bits) : (x != 0 ? 1 : 0);
      const std::int64_t have = bits ? got.integer(i) : got.raw_bool(i);
      if (have != want) {
        ++bad;
        ADD_FAILURE() << porta::name(t) << " " << x << " astype(" << porta::name(to) << ") gave " << have
                      << ", the rule gives " << want;
      }
    }
  }
  // A host number folded into the expression follows the same rule.
  HostArray folded = fetch(porta::full({3}, kNaN, t, dev()).astype(DType::int32) + porta::full({3}, kInf, t, dev()).astype(DType::int32));
  EXPECT_EQ(folded.integer(0), std::numeric_limits<std::int32_t>::max());
}

}  // namespace
}  // namespace porta_test
