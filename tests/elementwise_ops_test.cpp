// Elementwise operations, op by op: every unary, binary and ternary op and math function for
// every dtype it takes, fused in groups and alone, against a double-precision host reference,
// with NumPy's result dtypes. (Special values: elementwise_special_test.cpp; broadcasting,
// strides and sizes: elementwise_layout_test.cpp; fused trees: elementwise_fusion_test.cpp.)
#include "elementwise_reference.hpp"
#include "test_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include <unistd.h>

namespace porta_test {
namespace {

using porta::Operand;

enum class Domain { general, positive, tan_range, unit, above_one };

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
    case Domain::unit: lo = integral ? -1 : -0.97; hi = integral ? 1 : 0.97; break;  // acos, asin, atanh
    case Domain::above_one: lo = 1; hi = integral ? 12 : 7; break;                       // acosh
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

const std::vector<UnaryCase>& unary_cases() {
  static const std::vector<UnaryCase> cases = {
      {"negative", [](const Array& a) { return porta::negative(a); }, [](double x, DType) { return -x; }, Accuracy::simple, Domain::general},
      {"positive", [](const Array& a) { return porta::positive(a); }, [](double x, DType) { return x; }, Accuracy::exact, Domain::general},
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
      {"atan", [](const Array& a) { return porta::atan(a); }, [](double x, DType) { return std::atan(x); }, Accuracy::transcendental, Domain::general},
      {"asinh", [](const Array& a) { return porta::asinh(a); }, [](double x, DType) { return std::asinh(x); }, Accuracy::transcendental, Domain::general},
      {"sinh", [](const Array& a) { return porta::sinh(a); }, [](double x, DType) { return std::sinh(x); }, Accuracy::transcendental, Domain::general},
      {"cosh", [](const Array& a) { return porta::cosh(a); }, [](double x, DType) { return std::cosh(x); }, Accuracy::transcendental, Domain::general},
      {"trunc", [](const Array& a) { return porta::trunc(a); }, [](double x, DType) { return std::trunc(x); }, Accuracy::simple, Domain::general},
      {"signbit", [](const Array& a) { return porta::signbit(a); }, [](double x, DType) { return truth(std::signbit(x)); }, Accuracy::exact, Domain::general},
      {"reciprocal", [](const Array& a) { return porta::reciprocal(a); }, [](double x, DType) { return 1 / x; }, Accuracy::simple, Domain::general},
      {"log2", [](const Array& a) { return porta::log2(a); }, [](double x, DType) { return std::log2(x); }, Accuracy::transcendental, Domain::positive},
      {"log10", [](const Array& a) { return porta::log10(a); }, [](double x, DType) { return std::log10(x); }, Accuracy::transcendental, Domain::positive},
      {"acos", [](const Array& a) { return porta::acos(a); }, [](double x, DType) { return std::acos(x); }, Accuracy::transcendental, Domain::unit},
      {"asin", [](const Array& a) { return porta::asin(a); }, [](double x, DType) { return std::asin(x); }, Accuracy::transcendental, Domain::unit},
      {"atanh", [](const Array& a) { return porta::atanh(a); }, [](double x, DType) { return std::atanh(x); }, Accuracy::transcendental, Domain::unit},
      {"acosh", [](const Array& a) { return porta::acosh(a); }, [](double x, DType) { return std::acosh(x); }, Accuracy::transcendental, Domain::above_one},
  };
  return cases;
}

// NumPy's dtype of a math function of t: floats keep theirs; integers the narrowest float that
// holds them (8 bits and bool: float16, 16 bits: float32, wider: float64); float16 is float32
// where the device has no float16.
DType math_result(DType t, const Device& d) {
  if (porta::is_floating(t)) return t;
  const DType r = t == DType::boolean ? DType::float16 : porta::promote_types(t, DType::float16);
  return r == DType::float16 && !d.supports(r) ? DType::float32 : r;
}

// NumPy 2's result dtype of op(x) for x of dtype t; nullopt where porta must throw DTypeError.
std::optional<DType> unary_result(std::string_view op, DType t, const Device& d) {
  static const std::set<std::string_view> math = {"exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos",
                                                  "tan", "tanh", "sigmoid", "erf", "acos", "asin", "atan", "acosh",
                                                  "asinh", "atanh", "sinh", "cosh", "log2", "log10"};
  // bool gives float16 (NumPy), float32 where the device has no float16.
  DType from_bool = d.supports(DType::float16) ? DType::float16 : DType::float32;
  if (math.count(op)) return math_result(t, d);
  // floor, ceil and trunc keep bool (NumPy 2.3); round makes it float16, as NumPy.
  if (op == "floor" || op == "ceil" || op == "trunc") return t;
  if (op == "round") return t == DType::boolean ? from_bool : t;
  if (op == "reciprocal") return porta::is_floating(t) ? std::optional<DType>(t) : std::nullopt;
  if (op == "negative" || op == "sign" || op == "positive") return t == DType::boolean ? std::nullopt : std::optional<DType>(t);
  if (op == "square") return t == DType::boolean ? DType::int8 : t;  // NumPy: bool squares as int8
  if (op == "abs") return t;
  if (op == "bitwise_not") return porta::is_floating(t) ? std::nullopt : std::optional<DType>(t);
  return DType::boolean;  // isnan, isinf, isfinite, signbit, logical_not
}

using UnaryOps = DeviceDTypeTest;

// Every unary op on one dtype: the ops of a domain are evaluated in one fused kernel that picks
// a random op per element (evaluate_selected), each checked against its host reference.
TEST_P(UnaryOps, EveryOpMatchesReferenceAndNumPyDType) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::int64_t n = 1031;
  for (Domain domain : {Domain::general, Domain::positive, Domain::tan_range, Domain::unit, Domain::above_one}) {
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
          if (porta::is_integral(out_t)) ref[static_cast<std::size_t>(e)] = round_to(out_t, ref[static_cast<std::size_t>(e)]);  // wraps
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

// NumPy's shifts at the result dtype's width: a count outside [0, bits) gives 0, or 0 / -1 for >>
// (unsigned: 0). |a| < 2^53; the result has no more significant bits than a, so it is exact.
double shift_ref(double a, double b, DType t, bool left) {
  const int bits = porta::iinfo(t).bits;
  const auto x = static_cast<std::int64_t>(a), n = static_cast<std::int64_t>(b);
  if (n < 0 || n >= bits) return left ? 0.0 : (x < 0 ? -1.0 : 0.0);
  if (!left) return static_cast<double>(x >> n);
  std::uint64_t wide = static_cast<std::uint64_t>(x) << n;
  if (bits == 64) return porta::is_unsigned_integer(t) ? static_cast<double>(wide) : static_cast<double>(static_cast<std::int64_t>(wide));
  wide &= (std::uint64_t{1} << bits) - 1;
  if (porta::is_signed_integer(t) && (wide >> (bits - 1)) != 0) return static_cast<double>(static_cast<std::int64_t>(wide) - (std::int64_t{1} << bits));
  return static_cast<double>(wide);
}

// NumPy's logaddexp (npy_logaddexp): equal operands give a + log(2), infinities included.
double logaddexp_ref(double a, double b, DType) {
  if (a == b) return a + std::log(2.0);
  const double d = a - b;
  if (d > 0) return a + std::log1p(std::exp(-d));
  if (d <= 0) return b + std::log1p(std::exp(d));
  return d;  // NaN
}

struct BinaryCase {
  std::string name;
  std::function<Array(const Operand&, const Operand&)> fn;
  std::function<double(double, double, DType)> ref;  // (a, b, result dtype)
  Accuracy accuracy;
};

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
      {"floor_divide", [](const Operand& a, const Operand& b) { return porta::floor_divide(a, b); }, numpy_floordiv, Accuracy::simple},
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
      {"bitwise_left_shift", [](const Operand& a, const Operand& b) { return porta::bitwise_left_shift(a, b); },
       [](double a, double b, DType t) { return shift_ref(a, b, t, true); }, Accuracy::exact},
      {"bitwise_right_shift", [](const Operand& a, const Operand& b) { return porta::bitwise_right_shift(a, b); },
       [](double a, double b, DType t) { return shift_ref(a, b, t, false); }, Accuracy::exact},
      {"atan2", [](const Operand& a, const Operand& b) { return porta::atan2(a, b); },
       [](double a, double b, DType) { return std::atan2(a, b); }, Accuracy::transcendental},
      {"hypot", [](const Operand& a, const Operand& b) { return porta::hypot(a, b); },
       [](double a, double b, DType) { return std::hypot(a, b); }, Accuracy::transcendental},
      {"copysign", [](const Operand& a, const Operand& b) { return porta::copysign(a, b); },
       [](double a, double b, DType) { return std::copysign(a, b); }, Accuracy::simple},
      // Exact: a tolerance would pass a itself.
      {"nextafter", [](const Operand& a, const Operand& b) { return porta::nextafter(a, b); },
       [](double a, double b, DType t) {
         return t == DType::float32 ? static_cast<double>(std::nextafter(static_cast<float>(a), static_cast<float>(b))) : std::nextafter(a, b);
       }, Accuracy::exact},
      {"logaddexp", [](const Operand& a, const Operand& b) { return porta::logaddexp(a, b); }, logaddexp_ref, Accuracy::transcendental},
  };
  return cases;
}

// NumPy 2's result dtype of op(a, b) for two arrays of dtype t; nullopt: DTypeError.
std::optional<DType> binary_result(std::string_view op, DType t, const Device& d) {
  bool fl = porta::is_floating(t);
  if (op == "atan2" || op == "hypot" || op == "copysign" || op == "logaddexp") return math_result(t, d);
  if (op == "nextafter") {  // porta computes no 16-bit nextafter yet
    const DType m = math_result(t, d);
    return m == DType::float32 || m == DType::float64 ? std::optional<DType>(m) : std::nullopt;
  }
  if (op.find("shift") != std::string_view::npos)  // bool shifts: int8, as NumPy
    return porta::is_integral(t) ? std::optional<DType>(t) : t == DType::boolean ? std::optional<DType>(DType::int8) : std::nullopt;
  if (op == "add" || op == "multiply" || op == "maximum" || op == "minimum") return t;
  if (op == "subtract") return t == DType::boolean ? std::nullopt : std::optional<DType>(t);
  if (op == "divide") return fl ? t : DType::float64;
  // NumPy gives int8 for bool % bool, bool // bool and bool ** bool.
  if (op == "remainder" || op == "power" || op == "floor_divide") return t == DType::boolean ? DType::int8 : t;
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
    auto expected = binary_result(bc.name, t, c.dev());
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
        if (porta::is_integral(out_t)) ref[e] = round_to(out_t, ref[e]);  // NumPy's wrap-around
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

  if (t == DType::boolean) {  // NumPy clips bool as bool: max(x, lo) then min(.., hi)
    for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = std::min(std::max(x[i], 1.0), 1.0);
    EXPECT_TRUE(array_matches(porta::clip(xd, true, true), t, {n}, ref, tolerance(t, Accuracy::exact))) << "clip(b, true, true)";
    for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = std::min(std::max(x[i], 0.0), 0.0);
    EXPECT_TRUE(array_matches(porta::clip(xd, false, false), t, {n}, ref, tolerance(t, Accuracy::exact))) << "clip(b, false, false)";
    EXPECT_TRUE(array_matches(porta::clip(xd, false, true), t, {n}, x, tolerance(t, Accuracy::exact))) << "clip(b, false, true)";
    return;
  }
  // clip(x, lo, hi) with array bounds and with host numbers.
  std::vector<double> lo;
  Array lod = random_array({n}, t, -6, 0, &lo);
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = std::min(std::max(x[i], lo[i]), 5.0);
  EXPECT_TRUE(array_matches(porta::clip(xd, lod, 5), t, {n}, ref, tolerance(t, Accuracy::exact))) << "clip(x, lo, 5)";
  const int low = porta::is_unsigned_integer(t) ? 1 : -2;  // a host number the dtype holds
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = std::min(std::max(x[i], static_cast<double>(low)), 3.0);
  EXPECT_TRUE(array_matches(porta::clip(xd, low, 3), t, {n}, ref, tolerance(t, Accuracy::exact))) << "clip(x, " << low << ", 3)";
  // where with host numbers on both branches gives the condition's shape and their kind's dtype.
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = c[i] != 0 ? x[i] : 7;
  EXPECT_TRUE(array_matches(porta::where(cd, xd, 7), t, {n}, ref, tolerance(t, Accuracy::exact))) << "where(c, x, 7)";
}

PORTA_INSTANTIATE_DEVICES_DTYPES(UnaryOps, kAllDTypes);
PORTA_INSTANTIATE_DEVICES_DTYPES(BinaryOps, kAllDTypes);
PORTA_INSTANTIATE_DEVICES_DTYPES(TernaryOps, kAllDTypes);

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
  // Tiny arguments in one vector with huge ones: PoCL's float32 vector sin, cos and tan got the tiny
  // lanes wrong (sin(1e-20) as 0.0115) whenever a lane was 2^23 or more (codegen/instr.cpp).
  const std::vector<double> trig_lanes = {3e38, 1e7, 1e-4, -3e-3, 1e-20, 0.0068, -1e-6, 8388608};
  const std::set<std::string_view> with_trig_lanes = {"sin", "cos", "tan"};
  const std::set<std::string_view> with_special = {"negative", "abs", "square", "floor", "ceil", "round", "exp", "expm1", "log",
                                                   "log1p", "sqrt", "sin", "tanh", "sigmoid", "erf", "trunc",
                                                   "atan", "asinh", "sinh", "cosh", "reciprocal", "log2", "log10", "acos",
                                                   "asin", "atanh", "acosh"};
  const std::set<std::string_view> with_range = {"exp", "expm1", "sigmoid", "tanh"};
  for (std::int64_t tail : {std::int64_t{1031}, std::int64_t{5}}) {
    for (const auto& c : unary_cases()) {
      auto expected = unary_result(c.name, t, dev());
      if (!expected || *expected != t) continue;
      // The special and range values first (rounded to t), then the random inputs.
      const auto rest = unary_inputs(*this, t, c.domain, tail);
      std::vector<double> x;
      x.reserve(special.size() + exp_range.size() + rest.size());
      if (with_special.count(c.name)) x.insert(x.end(), special.begin(), special.end());
      if (with_range.count(c.name)) x.insert(x.end(), exp_range.begin(), exp_range.end());
      if (with_trig_lanes.count(c.name)) x.insert(x.end(), trig_lanes.begin(), trig_lanes.end());
      for (double& v : x) v = round_to(t, v);
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
      if (binary_result(bc.name, t, dev()) != t || bc.name == "remainder") continue;  // (remainder: elementwise_special_test)
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

// signbit of the special values: -0.0 and -inf set, NaN as its sign bit says (both signs).
TEST_P(SingleOps, SignbitOfSpecialValues) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  std::vector<double> x = {0.0, -0.0, kInf, -kInf, kNaN, -kNaN, 1e-300, -1e-300, 2.5, -2.5};
  auto rest = random_values(1027, t, -3, 3);
  x.insert(x.end(), rest.begin(), rest.end());
  std::vector<double> ref(x.size());
  for (std::size_t e = 0; e < x.size(); ++e) ref[e] = truth(std::signbit(static_cast<double>(round_to(t, x[e]))));
  const auto n = static_cast<std::int64_t>(x.size());
  EXPECT_TRUE(array_matches(porta::signbit(upload(x, t, {n}, dev())), DType::boolean, {n}, ref, tolerance(DType::boolean, Accuracy::exact)));
}

inline constexpr DType kVectorDTypes[] = {DType::float32, DType::float64};
PORTA_INSTANTIATE_DEVICES_DTYPES(SingleOps, kVectorDTypes);

using IntegerOps = DeviceDTypeTest;

// Shifts by counts inside and outside [0, bits), of values of both signs, array by array and with
// a count that is a host number, against NumPy's rules (shift_ref).
TEST_P(IntegerOps, ShiftCountsInAndOutOfRangeMatchNumPy) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::int64_t n = 2053;
  std::vector<double> a, b;
  Array ad = random_array({n}, t, -2e9, 2e9, &a);
  Array bd = random_array({n}, t, -70, 70, &b);
  for (bool left : {true, false}) {
    std::vector<double> ref(a.size());
    for (std::size_t e = 0; e < a.size(); ++e) ref[e] = shift_ref(a[e], b[e], t, left);
    Array got = left ? (ad << bd) : (ad >> bd);
    EXPECT_TRUE(array_matches(got, t, {n}, ref, tolerance(t, Accuracy::exact))) << (left ? "a << b" : "a >> b");
    for (int count : {0, 5, 31, 32, 63, 64, -1}) {
      for (std::size_t e = 0; e < a.size(); ++e) ref[e] = shift_ref(a[e], count, t, left);
      Array by_number = left ? porta::bitwise_left_shift(ad, count) : porta::bitwise_right_shift(ad, count);
      EXPECT_TRUE(array_matches(by_number, t, {n}, ref, tolerance(t, Accuracy::exact))) << (left ? "a << " : "a >> ") << count;
    }
  }
  const Array f = porta::full({n}, 1.5, DType::float32, dev()), flags = porta::full({n}, 1, DType::boolean, dev());
  EXPECT_THROW(porta::bitwise_left_shift(f, 1), porta::DTypeError);
  EXPECT_THROW(porta::bitwise_right_shift(ad, f), porta::DTypeError);
  EXPECT_EQ(porta::bitwise_left_shift(flags, flags).dtype(), DType::int8);  // NumPy's: bool shifts give int8
  EXPECT_TRUE(array_matches(porta::bitwise_left_shift(flags, flags), DType::int8, {n}, std::vector<double>(static_cast<std::size_t>(n), 2.0),
                            tolerance(DType::int8, Accuracy::exact)));
}

// Floor division over the whole range: values past 2^53 (which a quotient through float64 would
// round), division by zero (0, as NumPy) and MIN // -1 (wraps to MIN, as NumPy).
TEST_P(IntegerOps, FloorDivideIsExactOverTheWholeRange) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const bool wide = t == DType::int64;
  const std::int64_t lo = wide ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int32_t>::min();
  const std::int64_t hi = wide ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int32_t>::max();
  std::vector<std::int64_t> a = {lo, lo, hi, 7, -7, 0, (std::int64_t{1} << 30) + 1, -((std::int64_t{1} << 30) + 3)};
  std::vector<std::int64_t> b = {-1, 1, 0, 0, 2, -3, 1, 7};
  if (wide) {
    a.insert(a.end(), {(std::int64_t{1} << 62) + 1, -(std::int64_t{1} << 62) - 3, (std::int64_t{1} << 55) + 7});
    b.insert(b.end(), {1, 2, -5});
  }
  for (int k = 0; k < 997; ++k) {
    a.push_back(random_int(-1000000, 1000000) * (wide ? std::int64_t{1000003} * 1009 : 1));
    b.push_back(random_int(-50, 50));
  }
  std::vector<std::uint8_t> ra(a.size() * porta::itemsize(t)), rb(b.size() * porta::itemsize(t));
  std::vector<std::int64_t> want(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::int64_t q = 0;
    if (b[i] == -1) q = static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(a[i]));  // wraps for MIN
    else if (b[i] != 0) q = a[i] / b[i] - ((a[i] % b[i] != 0) && ((a[i] < 0) != (b[i] < 0)) ? 1 : 0);
    if (!wide) q = static_cast<std::int32_t>(static_cast<std::uint32_t>(q));
    want[i] = q;
    if (wide) {
      std::memcpy(ra.data() + 8 * i, &a[i], 8);
      std::memcpy(rb.data() + 8 * i, &b[i], 8);
    } else {
      const auto x = static_cast<std::int32_t>(a[i]), y = static_cast<std::int32_t>(b[i]);
      std::memcpy(ra.data() + 4 * i, &x, 4);
      std::memcpy(rb.data() + 4 * i, &y, 4);
    }
  }
  const auto n = static_cast<std::int64_t>(a.size());
  const Array ad = porta::from_host(ra.data(), t, {n}, dev(), n), bd = porta::from_host(rb.data(), t, {n}, dev(), n);
  const HostArray got = fetch(porta::floor_divide(ad, bd));
  ASSERT_EQ(got.dtype, t);
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (got.integer(i) == want[static_cast<std::size_t>(i)]) continue;
    if (++bad <= 5) ADD_FAILURE() << a[static_cast<std::size_t>(i)] << " // " << b[static_cast<std::size_t>(i)] << ": got " << got.integer(i) << ", expected " << want[static_cast<std::size_t>(i)];
  }
  EXPECT_EQ(bad, 0);
}

inline constexpr DType kIntegerDTypes[] = {DType::int32, DType::int64};
PORTA_INSTANTIATE_DEVICES_DTYPES(IntegerOps, kIntegerDTypes);

}  // namespace
}  // namespace porta_test
