// Elementwise operations: every op and math function for every dtype it takes, against a
// double-precision host reference; result dtypes; NaN rules; broadcasting; fused trees;
// strided inputs; non-contiguous outputs; sizes from 0 to past 2^16.
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

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

enum class Domain { general, positive, tan_range };

// Inputs for a unary op: floats in the domain (general: [-3, 3] with half-integers and whole
// numbers mixed in, to exercise rounding), integers and bool likewise.
std::vector<double> unary_inputs(TestContext& t, DType dtype, Domain domain, std::int64_t n) {
  if (dtype == DType::boolean) return t.random_values(n, dtype, 0, 1);
  bool integral = !porta::is_floating(dtype);
  double lo = 0, hi = 1;
  switch (domain) {
    case Domain::general: lo = integral ? -4 : -3; hi = integral ? 4 : 3; break;
    case Domain::positive: lo = integral ? 1 : 0.05; hi = integral ? 12 : 6; break;
    case Domain::tan_range: lo = integral ? -6 : -1.4; hi = integral ? 6 : 1.4; break;
  }
  auto v = t.random_values(n, dtype, lo, hi);
  if (!integral && domain == Domain::general)
    for (std::size_t i = 0; i < v.size(); i += 3) v[i] = round_to(dtype, std::floor(v[i]) + (i % 2 ? 0.5 : 0.0));
  return v;
}

struct UnaryCase {
  std::string name;
  std::function<Array(const Array&)> fn;
  std::function<double(double, DType)> ref;  // (x, result dtype)
  Accuracy accuracy;
  Domain domain;
};

double sign_of(double x) { return std::isnan(x) ? x : x > 0 ? 1 : x < 0 ? -1 : 0; }

const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases = {
      {"negative", [](const Array& a) { return porta::negative(a); }, [](double x, DType) { return -x; }, Accuracy::simple, Domain::general},
      {"abs", [](const Array& a) { return porta::abs(a); }, [](double x, DType) { return std::fabs(x); }, Accuracy::simple, Domain::general},
      {"sign", [](const Array& a) { return porta::sign(a); }, [](double x, DType) { return sign_of(x); }, Accuracy::simple, Domain::general},
      {"square", [](const Array& a) { return porta::square(a); }, [](double x, DType) { return x * x; }, Accuracy::simple, Domain::general},
      {"exp", [](const Array& a) { return porta::exp(a); }, [](double x, DType) { return std::exp(x); }, Accuracy::transcendental, Domain::general},
      {"expm1", [](const Array& a) { return porta::expm1(a); }, [](double x, DType) { return std::expm1(x); }, Accuracy::transcendental, Domain::general},
      {"sin", [](const Array& a) { return porta::sin(a); }, [](double x, DType) { return std::sin(x); }, Accuracy::transcendental, Domain::general},
      {"cos", [](const Array& a) { return porta::cos(a); }, [](double x, DType) { return std::cos(x); }, Accuracy::transcendental, Domain::general},
      {"tanh", [](const Array& a) { return porta::tanh(a); }, [](double x, DType) { return std::tanh(x); }, Accuracy::transcendental, Domain::general},
      {"sigmoid", [](const Array& a) { return porta::sigmoid(a); }, [](double x, DType) { return 1 / (1 + std::exp(-x)); }, Accuracy::transcendental, Domain::general},
      {"erf", [](const Array& a) { return porta::erf(a); }, [](double x, DType) { return std::erf(x); }, Accuracy::transcendental, Domain::general},
      {"floor", [](const Array& a) { return porta::floor(a); }, [](double x, DType) { return std::floor(x); }, Accuracy::simple, Domain::general},
      {"ceil", [](const Array& a) { return porta::ceil(a); }, [](double x, DType) { return std::ceil(x); }, Accuracy::simple, Domain::general},
      {"round", [](const Array& a) { return porta::round(a); }, [](double x, DType) { return std::nearbyint(x); }, Accuracy::simple, Domain::general},
      {"isnan", [](const Array& a) { return porta::isnan(a); }, [](double x, DType) { return std::isnan(x) ? 1.0 : 0.0; }, Accuracy::exact, Domain::general},
      {"isinf", [](const Array& a) { return porta::isinf(a); }, [](double x, DType) { return std::isinf(x) ? 1.0 : 0.0; }, Accuracy::exact, Domain::general},
      {"isfinite", [](const Array& a) { return porta::isfinite(a); }, [](double x, DType) { return std::isfinite(x) ? 1.0 : 0.0; }, Accuracy::exact, Domain::general},
      {"logical_not", [](const Array& a) { return porta::logical_not(a); }, [](double x, DType) { return x == 0 ? 1.0 : 0.0; }, Accuracy::exact, Domain::general},
      {"bitwise_not", [](const Array& a) { return porta::bitwise_not(a); },
       [](double x, DType t) { return t == DType::boolean ? (x == 0 ? 1.0 : 0.0) : static_cast<double>(~static_cast<std::int64_t>(x)); },
       Accuracy::exact, Domain::general},
      {"log", [](const Array& a) { return porta::log(a); }, [](double x, DType) { return std::log(x); }, Accuracy::transcendental, Domain::positive},
      {"log1p", [](const Array& a) { return porta::log1p(a); }, [](double x, DType) { return std::log1p(x); }, Accuracy::transcendental, Domain::positive},
      {"sqrt", [](const Array& a) { return porta::sqrt(a); }, [](double x, DType) { return std::sqrt(x); }, Accuracy::transcendental, Domain::positive},
      {"rsqrt", [](const Array& a) { return porta::rsqrt(a); }, [](double x, DType) { return 1 / std::sqrt(x); }, Accuracy::transcendental, Domain::positive},
      {"tan", [](const Array& a) { return porta::tan(a); }, [](double x, DType) { return std::tan(x); }, Accuracy::transcendental, Domain::tan_range},
  };
  return cases;
}

// NumPy 2's result dtype of op(x) for x of dtype t; nullopt where porta must throw DTypeError.
std::optional<DType> unary_result(std::string_view op, DType t, const Device& d) {
  static const std::set<std::string_view> math = {"exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin",
                                                  "cos", "tan", "tanh", "sigmoid", "erf"};
  // bool gives float16 (NumPy), float32 where the device has no float16.
  DType from_bool = d.supports(DType::float16) ? DType::float16 : DType::float32;
  if (math.count(op)) return porta::is_floating(t) ? t : t == DType::boolean ? from_bool : DType::float64;
  if (op == "floor" || op == "ceil" || op == "round") return t == DType::boolean ? from_bool : t;
  if (op == "negative" || op == "sign") return t == DType::boolean ? std::nullopt : std::optional<DType>(t);
  if (op == "abs" || op == "square") return t;
  if (op == "bitwise_not") return porta::is_floating(t) ? std::nullopt : std::optional<DType>(t);
  return DType::boolean;  // isnan, isinf, isfinite, logical_not
}

using UnaryOps = DeviceDTypeTest;

// Every unary op on one dtype: the ops of a domain are evaluated in one fused kernel that picks
// a random op per element (evaluate_selected), each checked against its host reference.
TEST_P(UnaryOps, EveryOpMatchesReferenceAndNumPyDType) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::int64_t n = 1031;
  for (Domain domain : {Domain::general, Domain::positive, Domain::tan_range}) {
    auto x = unary_inputs(*this, t, domain, n);
    Array xd = upload(x, t, {n}, dev());
    // Accepted ops grouped by result dtype; each group is one fused evaluation.
    std::map<DType, std::vector<const UnaryCase*>> groups;
    for (const auto& c : unary_cases()) {
      if (c.domain != domain) continue;
      auto expected = unary_result(c.name, t, dev());
      if (!expected || !dev().supports(*expected)) {
        EXPECT_THROW(c.fn(xd), porta::DTypeError) << c.name << " of " << porta::name(t);
        continue;
      }
      Array y = c.fn(xd);
      EXPECT_EQ(y.dtype(), *expected) << c.name << " of " << porta::name(t) << ": NumPy's result dtype";
      EXPECT_EQ(y.shape(), Shape{n}) << c.name;
      groups[y.dtype()].push_back(&c);
    }
    for (auto& [out_t, cases] : groups) {
      std::vector<Array> ys;
      for (auto* c : cases) ys.push_back(c->fn(xd));
      std::vector<int> sel(static_cast<std::size_t>(n));
      for (auto& s : sel) s = random_int(0, static_cast<int>(cases.size()) - 1);
      HostArray got = evaluate_selected(ys, sel, dev());
      for (std::size_t k = 0; k < cases.size(); ++k) {
        std::vector<bool> mask(static_cast<std::size_t>(n));
        std::vector<double> ref(static_cast<std::size_t>(n));
        for (std::int64_t e = 0; e < n; ++e) {
          mask[static_cast<std::size_t>(e)] = sel[static_cast<std::size_t>(e)] == static_cast<int>(k);
          ref[static_cast<std::size_t>(e)] = cases[k]->ref(x[static_cast<std::size_t>(e)], out_t);
        }
        // The accuracy of the computation is that of the result dtype (float16 is computed in float32).
        Tolerance tol = tolerance(out_t, porta::is_floating(out_t) ? cases[k]->accuracy : Accuracy::exact);
        EXPECT_TRUE(values_match(got, ref, tol, &mask, [&](std::int64_t e) {
          std::ostringstream s;
          s.precision(10);
          s << "x = " << x[static_cast<std::size_t>(e)];
          return s.str();
        })) << cases[k]->name << " of " << porta::name(t) << " -> " << porta::name(out_t);
      }
    }
  }
}

struct BinaryCase {
  std::string name;
  std::function<Array(const Operand&, const Operand&)> fn;
  std::function<double(double, double, DType)> ref;  // (a, b, result dtype)
  Accuracy accuracy;
};

double numpy_mod(double a, double b, DType t) {
  if (!porta::is_floating(t)) {
    if (b == 0) return 0;
    double r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
  double m = std::fmod(a, b);
  if (b == 0) return m;
  if (m != 0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = std::copysign(0.0, b);
  }
  return m;
}

double int_pow(double a, double b) {
  // plan.hpp: a negative exponent gives the power truncated toward zero.
  if (b < 0) return a == 1 ? 1 : a == -1 ? (std::fmod(b, 2) != 0 ? -1 : 1) : 0;
  double r = 1;
  for (int k = 0; k < static_cast<int>(b); ++k) r *= a;
  return r;
}

double nan_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }
double nan_min(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b); }
double truth(bool b) { return b ? 1.0 : 0.0; }

const std::vector<BinaryCase>& binary_cases() {
  static const std::vector<BinaryCase> cases = {
      {"add", [](const Operand& a, const Operand& b) { return porta::add(a, b); },
       [](double a, double b, DType t) { return t == DType::boolean ? truth(a != 0 || b != 0) : a + b; }, Accuracy::simple},
      {"subtract", [](const Operand& a, const Operand& b) { return porta::subtract(a, b); }, [](double a, double b, DType) { return a - b; },
       Accuracy::simple},
      {"multiply", [](const Operand& a, const Operand& b) { return porta::multiply(a, b); },
       [](double a, double b, DType t) { return t == DType::boolean ? truth(a != 0 && b != 0) : a * b; }, Accuracy::simple},
      {"divide", [](const Operand& a, const Operand& b) { return porta::divide(a, b); }, [](double a, double b, DType) { return a / b; },
       Accuracy::simple},
      {"remainder", [](const Operand& a, const Operand& b) { return porta::remainder(a, b); }, numpy_mod, Accuracy::simple},
      {"power", [](const Operand& a, const Operand& b) { return porta::power(a, b); },
       [](double a, double b, DType t) { return porta::is_floating(t) ? std::pow(a, b) : int_pow(a, b); }, Accuracy::transcendental},
      {"maximum", [](const Operand& a, const Operand& b) { return porta::maximum(a, b); },
       [](double a, double b, DType) { return nan_max(a, b); }, Accuracy::simple},
      {"minimum", [](const Operand& a, const Operand& b) { return porta::minimum(a, b); },
       [](double a, double b, DType) { return nan_min(a, b); }, Accuracy::simple},
      {"equal", [](const Operand& a, const Operand& b) { return porta::equal(a, b); }, [](double a, double b, DType) { return truth(a == b); },
       Accuracy::exact},
      {"not_equal", [](const Operand& a, const Operand& b) { return porta::not_equal(a, b); },
       [](double a, double b, DType) { return truth(a != b); }, Accuracy::exact},
      {"less", [](const Operand& a, const Operand& b) { return porta::less(a, b); }, [](double a, double b, DType) { return truth(a < b); },
       Accuracy::exact},
      {"less_equal", [](const Operand& a, const Operand& b) { return porta::less_equal(a, b); },
       [](double a, double b, DType) { return truth(a <= b); }, Accuracy::exact},
      {"greater", [](const Operand& a, const Operand& b) { return porta::greater(a, b); },
       [](double a, double b, DType) { return truth(a > b); }, Accuracy::exact},
      {"greater_equal", [](const Operand& a, const Operand& b) { return porta::greater_equal(a, b); },
       [](double a, double b, DType) { return truth(a >= b); }, Accuracy::exact},
      {"logical_and", [](const Operand& a, const Operand& b) { return porta::logical_and(a, b); },
       [](double a, double b, DType) { return truth(a != 0 && b != 0); }, Accuracy::exact},
      {"logical_or", [](const Operand& a, const Operand& b) { return porta::logical_or(a, b); },
       [](double a, double b, DType) { return truth(a != 0 || b != 0); }, Accuracy::exact},
      {"logical_xor", [](const Operand& a, const Operand& b) { return porta::logical_xor(a, b); },
       [](double a, double b, DType) { return truth((a != 0) != (b != 0)); }, Accuracy::exact},
      {"bitwise_and", [](const Operand& a, const Operand& b) { return porta::bitwise_and(a, b); },
       [](double a, double b, DType) { return static_cast<double>(static_cast<std::int64_t>(a) & static_cast<std::int64_t>(b)); },
       Accuracy::exact},
      {"bitwise_or", [](const Operand& a, const Operand& b) { return porta::bitwise_or(a, b); },
       [](double a, double b, DType) { return static_cast<double>(static_cast<std::int64_t>(a) | static_cast<std::int64_t>(b)); },
       Accuracy::exact},
      {"bitwise_xor", [](const Operand& a, const Operand& b) { return porta::bitwise_xor(a, b); },
       [](double a, double b, DType) { return static_cast<double>(static_cast<std::int64_t>(a) ^ static_cast<std::int64_t>(b)); },
       Accuracy::exact},
  };
  return cases;
}

// NumPy 2's result dtype of op(a, b) for two arrays of dtype t; nullopt: DTypeError.
std::optional<DType> binary_result(std::string_view op, DType t) {
  bool fl = porta::is_floating(t);
  if (op == "add" || op == "multiply" || op == "maximum" || op == "minimum") return t;
  if (op == "subtract") return t == DType::boolean ? std::nullopt : std::optional<DType>(t);
  if (op == "divide") return fl ? t : DType::float64;
  // NumPy gives int8 for bool % bool and bool ** bool; porta has no int8 and uses int32.
  if (op == "remainder" || op == "power") return t == DType::boolean ? DType::int32 : t;
  if (op.starts_with("bitwise")) return fl ? std::nullopt : std::optional<DType>(t);
  return DType::boolean;
}

using BinaryOps = DeviceDTypeTest;

// Operands for the binary sweep: floats of both signs in [0.25, 4], integers in [-7, 7] (with
// zeros: x % 0 is 0), bool; ties and a == b pairs mixed in for the comparisons.
void binary_inputs(TestContext& c, DType t, std::int64_t n, std::vector<double>& a, std::vector<double>& b) {
  if (porta::is_floating(t)) {
    a = c.random_values(n, t, 0.25, 4);
    b = c.random_values(n, t, 0.25, 4);
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (c.random_int(0, 1)) a[i] = -a[i];
      if (c.random_int(0, 1)) b[i] = -b[i];
      if (i % 8 == 3) b[i] = a[i];
      if (i % 16 == 5) b[i] = -a[i];
      if (i % 32 == 7) b[i] = std::round(b[i]) == 0 ? 1 : std::round(b[i]);  // whole exponents for negative bases
    }
  } else {
    a = c.random_values(n, t, -7, 7);
    b = c.random_values(n, t, -7, 7);
    for (std::size_t i = 0; i < a.size(); i += 8) b[i] = a[i];
  }
}

void check_binary_sweep(TestContext& c, DType t, const std::vector<double>& a, const std::vector<double>& b,
                        const std::function<Array(const BinaryCase&)>& apply, const std::string& form) {
  const std::int64_t n = static_cast<std::int64_t>(a.size());
  std::map<DType, std::vector<const BinaryCase*>> groups;
  for (const auto& bc : binary_cases()) {
    auto expected = binary_result(bc.name, t);
    if (!expected || !c.dev().supports(*expected)) {
      EXPECT_THROW(apply(bc), porta::DTypeError) << bc.name << form << " of " << porta::name(t);
      continue;
    }
    Array y = apply(bc);
    EXPECT_EQ(y.dtype(), *expected) << bc.name << form << " of " << porta::name(t) << ": NumPy's result dtype";
    EXPECT_EQ(y.shape(), Shape{n});
    groups[y.dtype()].push_back(&bc);
  }
  for (auto& [out_t, cases] : groups) {
    std::vector<Array> ys;
    for (auto* bc : cases) ys.push_back(apply(*bc));
    std::vector<int> sel(static_cast<std::size_t>(n));
    for (auto& s : sel) s = c.random_int(0, static_cast<int>(cases.size()) - 1);
    HostArray got = evaluate_selected(ys, sel, c.dev());
    for (std::size_t k = 0; k < cases.size(); ++k) {
      std::vector<bool> mask(static_cast<std::size_t>(n));
      std::vector<double> ref(static_cast<std::size_t>(n));
      for (std::size_t e = 0; e < mask.size(); ++e) {
        mask[e] = sel[e] == static_cast<int>(k);
        ref[e] = cases[k]->ref(a[e], b[e], out_t);
      }
      Tolerance tol = tolerance(out_t, porta::is_floating(out_t) ? cases[k]->accuracy : Accuracy::exact);
      EXPECT_TRUE(values_match(got, ref, tol, &mask, [&](std::int64_t e) {
        std::ostringstream s;
        s.precision(10);
        s << "a = " << a[static_cast<std::size_t>(e)] << ", b = " << b[static_cast<std::size_t>(e)];
        return s.str();
      })) << cases[k]->name << form << " of " << porta::name(t) << " -> " << porta::name(out_t);
    }
  }
}

TEST_P(BinaryOps, EveryOpOfTwoArraysMatchesReference) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::int64_t n = 1031;
  std::vector<double> a, b;
  binary_inputs(*this, t, n, a, b);
  Array ad = upload(a, t, {n}, dev()), bd = upload(b, t, {n}, dev());
  check_binary_sweep(*this, t, a, b, [&](const BinaryCase& bc) { return bc.fn(ad, bd); }, "(array, array)");
}

// A host number of the array's kind (true, 3, 1.5) on either side: the result keeps the array's
// dtype (weak scalars), with the number's value.
TEST_P(BinaryOps, EveryOpWithAWeakScalarMatchesReference) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::int64_t n = 517;
  std::vector<double> a, unused;
  binary_inputs(*this, t, n, a, unused);
  Array ad = upload(a, t, {n}, dev());
  Operand s = t == DType::boolean ? Operand(true) : porta::is_floating(t) ? Operand(1.5) : Operand(3);
  double sv = t == DType::boolean ? 1 : porta::is_floating(t) ? 1.5 : 3;
  std::vector<double> sb(a.size(), sv);
  check_binary_sweep(*this, t, a, sb, [&](const BinaryCase& bc) { return bc.fn(ad, s); }, "(array, scalar)");
  check_binary_sweep(*this, t, sb, a, [&](const BinaryCase& bc) { return bc.fn(s, ad); }, "(scalar, array)");
}

using TernaryOps = DeviceDTypeTest;

TEST_P(TernaryOps, WhereAndClipMatchReference) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::int64_t n = 777;
  std::vector<double> c, x, y;
  Array cd = random_array({n}, DType::boolean, 0, 1, &c);
  Array xd = random_array({n}, t, -9, 9, &x);
  Array yd = random_array({n}, t, -9, 9, &y);
  std::vector<double> ref(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = c[i] != 0 ? x[i] : y[i];
  EXPECT_TRUE(array_matches(porta::where(cd, xd, yd), t, {n}, ref, tolerance(t, Accuracy::exact))) << "where(bool, x, y)";

  // A condition of another dtype is tested as nonzero; here the condition is x itself.
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = x[i] != 0 ? y[i] : x[i];
  EXPECT_TRUE(array_matches(porta::where(xd, yd, xd), t, {n}, ref, tolerance(t, Accuracy::exact))) << "where(x, y, x)";

  if (t == DType::boolean) {
    EXPECT_THROW(porta::clip(xd, false, true), porta::DTypeError);
    return;
  }
  // clip(x, lo, hi) with array bounds and with host numbers.
  std::vector<double> lo;
  Array lod = random_array({n}, t, -6, 0, &lo);
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = std::min(std::max(x[i], lo[i]), 5.0);
  EXPECT_TRUE(array_matches(porta::clip(xd, lod, 5), t, {n}, ref, tolerance(t, Accuracy::exact))) << "clip(x, lo, 5)";
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = std::min(std::max(x[i], -2.0), 3.0);
  EXPECT_TRUE(array_matches(porta::clip(xd, -2, 3), t, {n}, ref, tolerance(t, Accuracy::exact))) << "clip(x, -2, 3)";
  // where with host numbers on both branches gives the condition's shape and their kind's dtype.
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = c[i] != 0 ? x[i] : 7;
  EXPECT_TRUE(array_matches(porta::where(cd, xd, 7), t, {n}, ref, tolerance(t, Accuracy::exact))) << "where(c, x, 7)";
}

PORTA_INSTANTIATE_DEVICES_DTYPES(UnaryOps, kAllDTypes);
PORTA_INSTANTIATE_DEVICES_DTYPES(BinaryOps, kAllDTypes);
PORTA_INSTANTIATE_DEVICES_DTYPES(TernaryOps, kAllDTypes);

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

using SingleOps = DeviceDTypeTest;

// Each float32/float64 op evaluated alone over contiguous arrays: where the sweeps above fuse the
// ops of a group through where(), a single op takes the code path of plain array arithmetic (on
// CPU devices the vector-per-work-item kernels, whose math is OpenCL's vector functions). The
// sizes leave a partial last vector; special values and exp's overflow and subnormal ranges
// come first.
TEST_P(SingleOps, EachFloatingOpAloneMatchesReference) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::vector<double> special = {kNaN, kInf, -kInf, 0.0, -0.0, 0.5, -2.5};
  const std::vector<double> exp_range = {88.5, 89, -87.5, -100, -104, -110, 700, 710, -700, -750, 20, -20};
  const std::set<std::string_view> with_special = {"negative", "abs", "square", "floor", "ceil", "round", "exp", "expm1", "log",
                                                   "log1p", "sqrt", "sin", "tanh", "sigmoid", "erf"};
  const std::set<std::string_view> with_range = {"exp", "expm1", "sigmoid", "tanh"};
  for (std::int64_t tail : {std::int64_t{1031}, std::int64_t{5}}) {
    for (const auto& c : unary_cases()) {
      auto expected = unary_result(c.name, t, dev());
      if (!expected || *expected != t) continue;
      std::vector<double> x;
      if (with_special.count(c.name)) x = special;
      if (with_range.count(c.name)) x.insert(x.end(), exp_range.begin(), exp_range.end());
      for (double& v : x) v = round_to(t, v);
      auto rest = unary_inputs(*this, t, c.domain, tail);
      x.insert(x.end(), rest.begin(), rest.end());
      const auto n = static_cast<std::int64_t>(x.size());
      std::vector<double> ref(x.size());
      for (std::size_t e = 0; e < x.size(); ++e) ref[e] = c.ref(x[e], t);
      EXPECT_TRUE(array_matches(c.fn(upload(x, t, {n}, dev())), t, {n}, ref, tolerance(t, c.accuracy)))
          << c.name << " of " << porta::name(t) << ", " << n << " elements";
    }
    const std::vector<double> sa = {kNaN, 1, kNaN, kInf, -kInf, 0.0, -0.0, 2, -3, kInf, 0.5, 1.5, -1, 4, -2};
    const std::vector<double> sb = {1, kNaN, kNaN, 2, kInf, -0.0, 0.0, 2, -kInf, kInf, 0, -0.0, kNaN, -kInf, 3};
    std::vector<double> a, b;
    binary_inputs(*this, t, tail, a, b);
    a.insert(a.begin(), sa.begin(), sa.end());
    b.insert(b.begin(), sb.begin(), sb.end());
    const auto n = static_cast<std::int64_t>(a.size());
    Array ad = upload(a, t, {n}, dev()), bd = upload(b, t, {n}, dev());
    for (const auto& bc : binary_cases()) {
      if (binary_result(bc.name, t) != t || bc.name == "remainder") continue;
      std::vector<double> ref(a.size());
      for (std::size_t e = 0; e < a.size(); ++e) ref[e] = bc.ref(a[e], b[e], t);
      EXPECT_TRUE(array_matches(bc.fn(ad, bd), t, {n}, ref, tolerance(t, bc.accuracy)))
          << bc.name << " of " << porta::name(t) << ", " << n << " elements";
    }
  }
}

// float32 with float64 (a cast inside the kernel) and a weak scalar on either side.
TEST_P(SingleOps, MixedPrecisionAndScalarsMatchReference) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  PORTA_REQUIRE_DTYPE(DType::float64);
  const std::int64_t n = 1029;
  auto x = random_values(n, t, -3, 3);
  auto y = random_values(n, DType::float64, -3, 3);
  Array xd = upload(x, t, {n}, dev()), yd = upload(y, DType::float64, {n}, dev());
  std::vector<double> ref(x.size()), ref2(x.size());
  for (std::size_t e = 0; e < x.size(); ++e) {
    ref[e] = x[e] * y[e] + 1.5;
    ref2[e] = round_to(t, 2.5 - x[e]);
  }
  EXPECT_TRUE(array_matches(xd * yd + 1.5, DType::float64, {n}, ref, tolerance(DType::float64, Accuracy::simple)));
  EXPECT_TRUE(array_matches(2.5 - xd, t, {n}, ref2, tolerance(t, Accuracy::simple)));
}

inline constexpr DType kVectorDTypes[] = {DType::float32, DType::float64};
PORTA_INSTANTIATE_DEVICES_DTYPES(SingleOps, kVectorDTypes);

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

// ---- fused trees, laziness ------------------------------------------------------------------

using Fusion = DeviceTest;

TEST_P(Fusion, FiveOpExpressionMatchesReference) {
  for (DType t : {DType::float32, DType::float64, DType::float16}) {
    if (!dev().supports(t)) continue;
    const std::int64_t n = 4099;
    std::vector<double> x, y;
    Array xd = random_array({n}, t, -2, 2, &x);
    Array yd = random_array({n}, t, -2, 2, &y);
    const double a = 0.75, b = -1.25, c = 2.5;
    Array r = a * xd * xd + b * xd + c * porta::exp(-yd);
    EXPECT_FALSE(r.is_evaluated()) << "elementwise work is lazy";
    std::vector<double> ref(static_cast<std::size_t>(n)), bound(static_cast<std::size_t>(n));
    // Each of the five steps may round (float16 at most to float16): the error is bounded by the
    // terms' magnitude, which matters where they cancel.
    const double step = t == DType::float16 ? 0x1p-11 : t == DType::float32 ? 4 * 0x1p-24 : 4 * 0x1p-53;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      double t1 = a * x[i] * x[i], t2 = b * x[i], t3 = c * std::exp(-y[i]);
      ref[i] = t1 + t2 + t3;
      bound[i] = 5 * step * (std::fabs(t1) + std::fabs(t2) + std::fabs(t3));
    }
    Tolerance tol = tolerance(t, Accuracy::transcendental);
    EXPECT_TRUE(values_match(fetch(r), ref, tol, nullptr, {}, &bound)) << porta::name(t);
    r.eval();
    EXPECT_TRUE(r.is_evaluated());
    EXPECT_TRUE(r.is_contiguous());
    EXPECT_EQ(r.dtype(), t);
    EXPECT_TRUE(values_match(fetch(r), ref, tol, nullptr, {}, &bound)) << porta::name(t) << " after eval()";
  }
}

// A tree taller than the fusion limit and one with more leaves than a kernel takes are split
// by the core; the values do not change.
TEST_P(Fusion, DeepAndWideTreesAreSplitCorrectly) {
  const std::int64_t n = 301;
  std::vector<double> x;
  Array xd = random_array({n}, DType::float32, -1, 1, &x);
  Array acc = xd;
  std::vector<double> ref = x;
  for (int k = 0; k < 100; ++k) {
    acc = acc * 0.5f + xd;
    for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = static_cast<float>(static_cast<float>(ref[i] * 0.5) + static_cast<float>(x[i]));
  }
  EXPECT_TRUE(array_matches(acc, DType::float32, {n}, ref, {1e-5, 1e-6})) << "100-deep chain";

  std::vector<Array> leaves;
  std::vector<double> sum(static_cast<std::size_t>(n), 0.0);
  Array total = porta::zeros({n}, DType::float64, dev());
  for (int k = 0; k < 40; ++k) {
    std::vector<double> v;
    leaves.push_back(random_array({n}, DType::float64, -1, 1, &v));
    total = total + leaves.back() * static_cast<double>(k + 1);
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += v[i] * (k + 1);
  }
  EXPECT_TRUE(array_matches(total, DType::float64, {n}, sum, {1e-12, 1e-12})) << "40 leaves";
}

// A long chain is evaluated only where a limit says so (DESIGN.md section 3: one kernel per
// evaluated tree): once a subtree has been evaluated it counts as one leaf, so the chain after it
// fuses again instead of evaluating at every step.
TEST_P(Fusion, LongChainsStayFusedAfterAForcedEvaluation) {
  const std::int64_t n = 64;
  std::vector<Array> steps;
  std::vector<double> sum(static_cast<std::size_t>(n), 0.0);
  Array total = porta::zeros({n}, DType::float32, dev());
  for (int k = 0; k < 60; ++k) {
    std::vector<double> v;
    Array leaf = random_array({n}, DType::float32, -1, 1, &v);
    total = total + leaf;
    steps.push_back(total);
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += v[i];
  }
  int evaluated = 0;
  for (auto& s : steps) evaluated += s.is_evaluated() ? 1 : 0;
  // 60 additions of one new leaf each: a kernel takes about 20 of them, so a handful of forced
  // evaluations, not one per step.
  EXPECT_LE(evaluated, 6) << "intermediate results evaluated before anything asked for data";
  EXPECT_TRUE(array_matches(total, DType::float32, {n}, sum, {1e-5, 1e-5}));
}

// One lazy node feeding several trees, and the same operand used many times in one tree.
TEST_P(Fusion, SharedSubexpressionsAreEvaluatedOnce) {
  const std::int64_t n = 1000;
  std::vector<double> x;
  Array xd = random_array({n}, DType::float32, -2, 2, &x);
  Array y = porta::exp(xd) + 1.0f;
  Array z1 = y * y, z2 = y - xd;
  std::vector<double> r1(x.size()), r2(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    double yy = std::exp(x[i]) + 1;
    r1[i] = yy * yy;
    r2[i] = yy - x[i];
  }
  Tolerance tol = tolerance(DType::float32, Accuracy::transcendental);
  EXPECT_TRUE(array_matches(z2, DType::float32, {n}, r2, tol));
  y.eval();
  EXPECT_TRUE(y.is_evaluated());
  EXPECT_TRUE(array_matches(z1, DType::float32, {n}, r1, tol));
  EXPECT_TRUE(array_matches(z2, DType::float32, {n}, r2, tol));
  // x * x * x * x reads x once per use and agrees with the host.
  std::vector<double> r4(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) r4[i] = x[i] * x[i] * x[i] * x[i];
  EXPECT_TRUE(array_matches(xd * xd * xd * xd, DType::float32, {n}, r4, tolerance(DType::float32, Accuracy::simple)));
}

// Arrays are values: a += b rebinds a; copies of the old a do not change.
TEST_P(Fusion, CompoundAssignmentDoesNotChangeOtherArrays) {
  std::vector<double> x, y;
  Array a = random_array({33}, DType::float32, -3, 3, &x);
  Array b = random_array({33}, DType::float32, -3, 3, &y);
  Array keep = a;
  a += b;
  a *= b;
  a -= 1.0f * b;
  a /= porta::full({33}, 2.0, DType::float32, dev());
  std::vector<double> ref(x.size());
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = ((x[i] + y[i]) * y[i] - y[i]) / 2;
  EXPECT_TRUE(array_matches(a, DType::float32, {33}, ref, {1e-5, 1e-5}));
  EXPECT_TRUE(array_matches(keep, DType::float32, {33}, x, tolerance(DType::float32, Accuracy::exact)));
  // The operators -x, !x and ~x.
  std::vector<double> neg(x.size()), lnot(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    neg[i] = -x[i];
    lnot[i] = x[i] == 0;
  }
  EXPECT_TRUE(array_matches(-keep, DType::float32, {33}, neg, tolerance(DType::float32, Accuracy::exact)));
  EXPECT_TRUE(array_matches(!keep, DType::boolean, {33}, lnot, tolerance(DType::boolean, Accuracy::exact)));
  Array ints = upload({0, 1, -2, 7}, DType::int32, {4}, dev());
  EXPECT_TRUE(array_matches(~ints, DType::int32, {4}, {-1, -2, 1, -8}, tolerance(DType::int32, Accuracy::exact)));
}

PORTA_INSTANTIATE_DEVICES(Fusion);

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

using CompileWarnings = DeviceTest;

// The generated kernels compilers used to warn about: an op of a value with itself (clip(x, x,
// hi) is maximum(x, x): "self-comparison always evaluates to false"; x == x of bools), argmax
// and argmin of bool arrays, where of bools, the float -> integer casts. Each is computed here
// and checked; the test below runs this one in a subprocess and reads the build logs.
TEST_P(CompileWarnings, KernelsOfTheWarningCheckComputeRightValues) {
  const std::int64_t n = 300;
  std::vector<double> xv, yv;
  for (DType t : {DType::int32, DType::float32}) {
    Array x = random_array({n}, t, -50, 50, &xv), y = random_array({n}, t, -50, 50, &yv);
    std::vector<double> ref(xv.size()), eq(xv.size(), 1), lt(xv.size(), 0);
    for (std::size_t i = 0; i < xv.size(); ++i) ref[i] = std::min(xv[i], yv[i]);
    const Tolerance exact = tolerance(t, Accuracy::exact);
    EXPECT_TRUE(array_matches(porta::clip(x, x, y), t, {n}, ref, exact)) << "clip(x, x, y) of " << porta::name(t);
    EXPECT_TRUE(array_matches(x == x, DType::boolean, {n}, eq, exact)) << "x == x of " << porta::name(t);
    EXPECT_TRUE(array_matches(x < x, DType::boolean, {n}, lt, exact)) << "x < x of " << porta::name(t);
  }
  std::vector<double> bv, cv;
  Array b = random_array({n}, DType::boolean, 0, 1, &bv), c = random_array({n}, DType::boolean, 0, 1, &cv);
  std::vector<double> w(bv.size()), ne(bv.size(), 0), ge(bv.size(), 1);
  for (std::size_t i = 0; i < bv.size(); ++i) w[i] = bv[i] != 0 ? cv[i] : bv[i];
  const Tolerance exact = tolerance(DType::boolean, Accuracy::exact);
  EXPECT_TRUE(array_matches(porta::where(b, c, b), DType::boolean, {n}, w, exact)) << "where of bools";
  EXPECT_TRUE(array_matches(b != b, DType::boolean, {n}, ne, exact)) << "b != b";
  EXPECT_TRUE(array_matches(b >= b, DType::boolean, {n}, ge, exact)) << "b >= b";
  const std::int64_t first_true = std::find(bv.begin(), bv.end(), 1.0) - bv.begin();
  const auto first_false = std::find(bv.begin(), bv.end(), 0.0);
  EXPECT_EQ(porta::argmax(b).item<std::int64_t>(), first_true);
  EXPECT_EQ(porta::argmin(b).item<std::int64_t>(), first_false == bv.end() ? 0 : first_false - bv.begin());
  Array f = upload({3e9, -3e9, kNaN, kInf, -kInf, 2.5}, DType::float32, {6}, dev());
  EXPECT_TRUE(array_matches(f.astype(DType::int32), DType::int32, {6}, {2147483647.0, -2147483648.0, 0, 2147483647.0, -2147483648.0, 2},
                            tolerance(DType::int32, Accuracy::exact)));
  EXPECT_TRUE(array_matches(f.astype(DType::boolean), DType::boolean, {6}, {1, 1, 1, 1, 1, 1}, exact));
}

// porta's own kernels compile without a warning: the subprocess runs the test above with the
// kernel caches off (PORTA_CACHE=off, PoCL's POCL_KERNEL_CACHE=0, NVIDIA's CUDA_CACHE_DISABLE=1)
// so that every kernel is compiled, and PORTA_LOG=debug, which prints every non-empty build log.
// PoCL's clang also prints "N warning(s) generated." to stderr by itself, which no porta setting
// can redirect: only a kernel without warnings keeps stderr quiet.
TEST_P(CompileWarnings, GeneratedKernelsCompileWithoutWarnings) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "only OpenCL compilers' build logs are read";
  const std::string filter = "Devices/CompileWarnings.KernelsOfTheWarningCheckComputeRightValues/" + device_label(dev());
  char self[4096];
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(len, 0) << "readlink /proc/self/exe";
  self[len] = '\0';
  // CTest runs this program as GoogleTest shards: the child runs its one test whatever the shard.
  const std::string cmd = "env -u GTEST_SHARD_INDEX -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_STATUS_FILE -u GTEST_OUTPUT POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1 PORTA_CACHE=off PORTA_LOG=debug PORTA_TEST_SEED=" + std::to_string(seed()) +
                          " '" + self + "' --gtest_filter=" + filter + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr) << cmd;
  std::string out;
  char buf[4096];
  for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, got);
  const int status = ::pclose(p);
  ASSERT_EQ(status, 0) << cmd << "\n" << out;
  ASSERT_NE(out.find("[  PASSED  ] 1 test"), std::string::npos) << "the subprocess ran no test: " << cmd << "\n" << out;
  ASSERT_NE(out.find("compiled porta_"), std::string::npos) << "the subprocess compiled nothing:\n" << out;
  for (const char* bad : {"warning:", "warning generated", "warnings generated"}) {
    const auto at = out.find(bad);
    EXPECT_EQ(at, std::string::npos) << "'" << bad << "' in the output of " << cmd << ":\n"
                                     << out.substr(at == std::string::npos ? 0 : (at > 2000 ? at - 2000 : 0), 6000);
  }
}

PORTA_INSTANTIATE_DEVICES(CompileWarnings);

}  // namespace
}  // namespace porta_test
