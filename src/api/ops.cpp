// The public elementwise operations: NumPy's result dtypes, then one lazy node each.
#include <porta/ops.hpp>

#include <porta/error.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <optional>

#include "lazy/expr.hpp"
#include "lazy/node.hpp"
#include "porta_backend/strings.hpp"

namespace porta {

using detail::cat;
using detail::make_node;
using detail::NodePtr;
using detail::Op;
using detail::resolve;

namespace {

Array wrap(NodePtr n) { return Array(std::move(n)); }

// A new array of n's values (a lazy cast to its own dtype), for a function that leaves some
// dtypes' values as they are: as NumPy's, its result is a new array, which a later write into the
// operand must not reach (abs of a uint8 array, then a[...] = v, kept abs's values).
Array fresh(const NodePtr& n) { return wrap(make_node(Op::cast, n->dtype(), n)); }

[[noreturn]] void bad_dtype(const char* op, DType t, const char* need) {
  throw DTypeError(cat(op, " does not take ", name(t), " operands: it needs ", need));
}

// An integer exponent known when the expression is built (a host number, or an array that is a
// lazy scalar: full, ones, a folded cast) where it is negative. An unsigned one above INT64_MAX
// (np.uint64(2**63 + 1)) is held as a negative int64: it is not negative.
std::optional<std::int64_t> known_negative(const Operand& o) {
  if (o.kind() == Operand::Kind::integer && !o.big_unsigned() && o.integer() < 0) return o.integer();
  if (o.kind() != Operand::Kind::array || !o.array().valid()) return std::nullopt;
  auto snap = o.array().node()->snapshot();
  const DType t = snap.expr.scalar.dtype;
  if (snap.evaluated || snap.expr.op != Op::scalar || is_inexact(t) || is_unsigned_integer(t) || t == DType::boolean)
    return std::nullopt;
  if (snap.expr.scalar.i < 0) return snap.expr.scalar.i;
  return std::nullopt;
}

Array arithmetic(Op op, const Operand& a, const Operand& b) {
  auto r = resolve({&a, &b});
  if (r.dtype == DType::boolean) {
    if (op == Op::add) op = Op::logical_or;
    else if (op == Op::mul) op = Op::logical_and;
    else if (op == Op::sub) throw DTypeError("subtract of two bool arrays is not defined (as NumPy); use logical_xor or astype(int32)");
    else if (op == Op::mod || op == Op::floor_div || op == Op::pow) r = resolve({&a, &b}, DType::int8);  // NumPy's
  }
  if ((op == Op::mod || op == Op::floor_div) && is_complex(r.dtype))
    bad_dtype(op == Op::mod ? "remainder" : "floor_divide", r.dtype, "real operands (NumPy defines neither for complex)");
  if (op == Op::pow && !is_inexact(r.dtype)) {
    // NumPy raises here; an exponent array is not read back to check (plan.hpp says what a
    // negative element gives).
    if (auto e = known_negative(b))
      throw InvalidArgument(cat("power: integers to negative integer powers are not allowed (exponent ", *e,
                                ", result dtype ", name(r.dtype), "), as in NumPy; make the base floating, e.g. astype(float64)"));
  }
  return wrap(make_node(op, r.dtype, r.nodes[0], r.nodes[1]));
}

Array comparison(Op op, const Operand& a, const Operand& b) {
  // uint8_array < 300 is all true in NumPy 2: a host integer the array's dtype cannot hold is not
  // refused (arithmetic with it still is) but compared exactly. It lies above every element (a
  // positive number) or below every one (a negative), so the answer is the same everywhere.
  const DType t = detail::result_dtype({&a, &b});
  const bool a_out = !detail::integer_fits(a, t), b_out = !detail::integer_fits(b, t);
  const Operand& other = a_out ? b : a;
  if (a_out != b_out && other.kind() == Operand::Kind::array) {
    const Operand& number = a_out ? a : b;
    // Whether the left operand is the smaller, the same for every element.
    const bool number_above = number.big_unsigned() || number.integer() > 0;
    const bool left_less = a_out ? !number_above : number_above;
    bool value = false;
    switch (op) {
      case Op::ne: value = true; break;
      case Op::lt: case Op::le: value = left_less; break;
      case Op::gt: case Op::ge: value = !left_less; break;
      default: break;  // eq: never equal
    }
    const NodePtr n = detail::node_of(other.array(), "comparison");
    return full(n->shape(), value ? 1.0 : 0.0, DType::boolean, n->device());
  }
  auto r = resolve({&a, &b});
  return wrap(make_node(op, DType::boolean, r.nodes[0], r.nodes[1]));
}

Array logical(Op op, const Operand& a, const Operand& b) {
  auto r = resolve({&a, &b}, DType::boolean);
  return wrap(make_node(op, DType::boolean, r.nodes[0], r.nodes[1]));
}

Array bitwise(Op op, const char* fname, const Operand& a, const Operand& b) {
  auto r = resolve({&a, &b});
  if (is_inexact(r.dtype)) bad_dtype(fname, r.dtype, "bool or integer arrays");
  return wrap(make_node(op, r.dtype, r.nodes[0], r.nodes[1]));
}

NodePtr operand(const Array& a, const char* fname) { return detail::node_of(a, fname); }

// The dtype a math function gives: floating and complex inputs keep theirs; integers the
// narrowest float that holds them (int8/uint8 and bool: float16, 16 bits: float32, wider:
// float64), as NumPy; float16 becomes float32 where the device has no float16.
DType math_dtype(DType t, const Device& d) {
  DType out = math_float(t);
  return out == DType::float16 && !d.supports(out) ? DType::float32 : out;
}

// The math functions NumPy defines for complex numbers.
bool complex_math(Op op) {
  switch (op) {
    case Op::exp: case Op::log: case Op::log1p: case Op::expm1: case Op::sqrt: case Op::sin: case Op::cos:
    case Op::tan: case Op::tanh: case Op::acos: case Op::asin: case Op::atan: case Op::acosh: case Op::asinh:
    case Op::atanh: case Op::sinh: case Op::cosh: case Op::log2: case Op::log10:
      return true;
    default: return false;
  }
}

// Math functions: floating inputs keep their dtype; integers become float64, bool float16 (NumPy).
Array math(Op op, const Array& a, const char* fname) {
  NodePtr n = operand(a, fname);
  if (is_complex(n->dtype()) && !complex_math(op))
    bad_dtype(fname, n->dtype(), "real operands (NumPy defines it for no complex dtype); take real() or abs() first");
  DType out = math_dtype(n->dtype(), n->device());
  return wrap(make_node(op, out, detail::cast(n, out)));
}

// Math functions of two operands (atan2, hypot...): the promoted dtype, made floating as math()'s
// for the device of the first array operand. Of two arrays, NumPy's: the narrowest float each
// operand's dtype goes to (int8 with uint8: float16, as NumPy's float-only loops give, where
// promoting the integers first would give int16, so float32).
detail::Resolved math2_operands(const Operand& a, const Operand& b) {
  const Operand& first = a.kind() == Operand::Kind::array ? a : b;
  const Device d = first.kind() == Operand::Kind::array ? operand(first.array(), "operand")->device() : current_device();
  if (a.kind() == Operand::Kind::array && b.kind() == Operand::Kind::array) {
    const DType ta = operand(a.array(), "operand")->dtype(), tb = operand(b.array(), "operand")->dtype();
    if (!is_inexact(ta) || !is_inexact(tb))
      return resolve({&a, &b}, math_dtype(promote_types(math_dtype(ta, d), math_dtype(tb, d)), d));
  }
  return resolve({&a, &b}, math_dtype(detail::result_dtype({&a, &b}), d));
}

Array math2(Op op, const char* fname, const Operand& a, const Operand& b) {
  auto r = math2_operands(a, b);
  if (is_complex(r.dtype)) bad_dtype(fname, r.dtype, "real operands (NumPy defines it for no complex dtype)");
  return wrap(make_node(op, r.dtype, r.nodes[0], r.nodes[1]));
}

Array shift(Op op, const char* fname, const Operand& a, const Operand& b) {
  auto r = resolve({&a, &b});
  if (r.dtype == DType::boolean) r = resolve({&a, &b}, DType::int8);  // NumPy's: bool shifts give int8
  if (!is_integral(r.dtype)) bad_dtype(fname, r.dtype, "integer or bool arrays");
  return wrap(make_node(op, r.dtype, r.nodes[0], r.nodes[1]));
}

}  // namespace

Array add(const Operand& a, const Operand& b) { return arithmetic(Op::add, a, b); }
Array subtract(const Operand& a, const Operand& b) { return arithmetic(Op::sub, a, b); }
Array multiply(const Operand& a, const Operand& b) { return arithmetic(Op::mul, a, b); }
Array remainder(const Operand& a, const Operand& b) { return arithmetic(Op::mod, a, b); }
Array floor_divide(const Operand& a, const Operand& b) { return arithmetic(Op::floor_div, a, b); }
Array power(const Operand& a, const Operand& b) { return arithmetic(Op::pow, a, b); }
Array pow(const Operand& a, const Operand& b) { return power(a, b); }

Array divide(const Operand& a, const Operand& b) {
  DType t = detail::result_dtype({&a, &b});
  auto r = resolve({&a, &b}, is_inexact(t) ? t : DType::float64);
  return wrap(make_node(Op::div, r.dtype, r.nodes[0], r.nodes[1]));
}

Array maximum(const Operand& a, const Operand& b) {
  auto r = resolve({&a, &b});
  return wrap(make_node(r.dtype == DType::boolean ? Op::logical_or : Op::maximum, r.dtype, r.nodes[0], r.nodes[1]));
}

Array minimum(const Operand& a, const Operand& b) {
  auto r = resolve({&a, &b});
  return wrap(make_node(r.dtype == DType::boolean ? Op::logical_and : Op::minimum, r.dtype, r.nodes[0], r.nodes[1]));
}

Array clip(const Operand& a, const Operand& lo, const Operand& hi) {
  auto r = resolve({&a, &lo, &hi});
  if (r.dtype == DType::boolean) {  // NumPy's: bool's maximum is or, its minimum and
    NodePtr m = make_node(Op::logical_or, r.dtype, r.nodes[0], r.nodes[1]);
    return wrap(make_node(Op::logical_and, r.dtype, m, r.nodes[2]));
  }
  NodePtr m = make_node(Op::maximum, r.dtype, r.nodes[0], r.nodes[1]);
  return wrap(make_node(Op::minimum, r.dtype, m, r.nodes[2]));
}

Array where(const Operand& cond, const Operand& x, const Operand& y) {
  DType t = detail::result_dtype({&x, &y});
  auto r = resolve({&cond, &x, &y}, t);
  // The condition is tested as bool, whatever its dtype.
  auto c = resolve({&cond, &x, &y}, DType::boolean);
  return wrap(make_node(Op::where, t, c.nodes[0], r.nodes[1], r.nodes[2]));
}

Array equal(const Operand& a, const Operand& b) { return comparison(Op::eq, a, b); }
Array not_equal(const Operand& a, const Operand& b) { return comparison(Op::ne, a, b); }
Array less(const Operand& a, const Operand& b) { return comparison(Op::lt, a, b); }
Array less_equal(const Operand& a, const Operand& b) { return comparison(Op::le, a, b); }
Array greater(const Operand& a, const Operand& b) { return comparison(Op::gt, a, b); }
Array greater_equal(const Operand& a, const Operand& b) { return comparison(Op::ge, a, b); }

Array logical_and(const Operand& a, const Operand& b) { return logical(Op::logical_and, a, b); }
Array logical_or(const Operand& a, const Operand& b) { return logical(Op::logical_or, a, b); }
Array logical_xor(const Operand& a, const Operand& b) { return logical(Op::logical_xor, a, b); }
Array logical_not(const Array& a) {
  return wrap(make_node(Op::logical_not, DType::boolean, detail::cast(operand(a, "logical_not"), DType::boolean)));
}
Array bitwise_and(const Operand& a, const Operand& b) { return bitwise(Op::bit_and, "bitwise_and", a, b); }
Array bitwise_or(const Operand& a, const Operand& b) { return bitwise(Op::bit_or, "bitwise_or", a, b); }
Array bitwise_xor(const Operand& a, const Operand& b) { return bitwise(Op::bit_xor, "bitwise_xor", a, b); }
Array bitwise_left_shift(const Operand& a, const Operand& b) { return shift(Op::shl, "bitwise_left_shift", a, b); }
Array bitwise_right_shift(const Operand& a, const Operand& b) { return shift(Op::shr, "bitwise_right_shift", a, b); }
Array bitwise_not(const Array& a) {
  NodePtr n = operand(a, "bitwise_not");
  if (is_inexact(n->dtype())) bad_dtype("bitwise_not", n->dtype(), "a bool or integer array");
  return wrap(make_node(Op::bit_not, n->dtype(), n));
}

Array negative(const Array& a) {
  NodePtr n = operand(a, "negative");
  if (n->dtype() == DType::boolean) throw DTypeError("negative of a bool array is not defined (as NumPy); use logical_not");
  return wrap(make_node(Op::neg, n->dtype(), n));
}

// A lazy node of its own, so that a write into the result does not reach `a` (NumPy's +a is a
// copy); times one keeps every value of every dtype, -0.0 and NaN included, where + 0 would not.
Array positive(const Array& a) {
  NodePtr n = operand(a, "positive");
  if (n->dtype() == DType::boolean) throw DTypeError("positive of a bool array is not defined (as NumPy); use astype(int32)");
  // complex: (inf + 1j) * 1 is inf + NaN j in complex arithmetic; a cast to its own dtype copies.
  if (is_complex(n->dtype())) return wrap(make_node(Op::cast, n->dtype(), n));
  return multiply(a, 1);
}

// abs of a complex number is its magnitude, of the real dtype; of an unsigned integer itself.
Array abs(const Array& a) {
  NodePtr n = operand(a, "abs");
  if (n->dtype() == DType::boolean || is_unsigned_integer(n->dtype())) return fresh(n);
  return wrap(make_node(Op::abs, real_dtype(n->dtype()), n));
}

Array real(const Array& a) {
  NodePtr n = operand(a, "real");
  if (!is_complex(n->dtype())) return fresh(n);
  return wrap(make_node(Op::real, real_dtype(n->dtype()), n));
}

Array imag(const Array& a) {
  NodePtr n = operand(a, "imag");
  if (!is_complex(n->dtype())) return zeros_like(a);
  return wrap(make_node(Op::imag, real_dtype(n->dtype()), n));
}

Array conj(const Array& a) {
  NodePtr n = operand(a, "conj");
  if (n->dtype() == DType::boolean) return a.astype(DType::int8);  // (NumPy's conjugate has no bool loop)
  if (!is_complex(n->dtype())) return fresh(n);
  return wrap(make_node(Op::conj, n->dtype(), n));
}

// NumPy's angle: atan2(imag, real); of a real array atan2(0, a) with 0 a Python int, so of the
// float atan2 gives that integer dtype (int8: float16, int16: float32, bool with 0: int64, float64).
Array angle(const Array& a) {
  NodePtr n = operand(a, "angle");
  if (is_complex(n->dtype())) return atan2(imag(a), real(a));
  return atan2(0, a);
}

Array sign(const Array& a) {
  NodePtr n = operand(a, "sign");
  if (n->dtype() == DType::boolean) throw DTypeError("sign of a bool array is not defined (as NumPy); use astype(int32)");
  return wrap(make_node(Op::sign, n->dtype(), n));
}

Array square(const Array& a) {
  NodePtr n = operand(a, "square");
  if (n->dtype() == DType::boolean) return a.astype(DType::int8);  // NumPy's: bool squares as int8 (0, 1)
  return wrap(make_node(Op::square, n->dtype(), n));
}

Array exp(const Array& a) { return math(Op::exp, a, "exp"); }
Array log(const Array& a) { return math(Op::log, a, "log"); }
Array log1p(const Array& a) { return math(Op::log1p, a, "log1p"); }
Array expm1(const Array& a) { return math(Op::expm1, a, "expm1"); }
Array sqrt(const Array& a) { return math(Op::sqrt, a, "sqrt"); }
Array rsqrt(const Array& a) { return math(Op::rsqrt, a, "rsqrt"); }
Array sin(const Array& a) { return math(Op::sin, a, "sin"); }
Array cos(const Array& a) { return math(Op::cos, a, "cos"); }
Array tan(const Array& a) { return math(Op::tan, a, "tan"); }
Array tanh(const Array& a) { return math(Op::tanh, a, "tanh"); }
Array sigmoid(const Array& a) { return math(Op::sigmoid, a, "sigmoid"); }
Array erf(const Array& a) { return math(Op::erf, a, "erf"); }
Array acos(const Array& a) { return math(Op::acos, a, "acos"); }
Array asin(const Array& a) { return math(Op::asin, a, "asin"); }
Array atan(const Array& a) { return math(Op::atan, a, "atan"); }
Array acosh(const Array& a) { return math(Op::acosh, a, "acosh"); }
Array asinh(const Array& a) { return math(Op::asinh, a, "asinh"); }
Array atanh(const Array& a) { return math(Op::atanh, a, "atanh"); }
Array sinh(const Array& a) { return math(Op::sinh, a, "sinh"); }
Array cosh(const Array& a) { return math(Op::cosh, a, "cosh"); }
Array log2(const Array& a) { return math(Op::log2, a, "log2"); }
Array log10(const Array& a) { return math(Op::log10, a, "log10"); }

Array reciprocal(const Array& a) {
  NodePtr n = operand(a, "reciprocal");
  if (!is_inexact(n->dtype()))
    throw DTypeError(cat("reciprocal takes floating or complex arrays, not ", name(n->dtype()),
                         " (NumPy's reciprocal of integers is an integer division, 1 // x); use divide(1, a) for float64, or astype first"));
  // NumPy's reciprocal of a complex zero is NaN + i NaN (its loop's Smith division, 0 / 0 first),
  // where its divide(1, 0j) gives inf + i NaN.
  if (is_complex(n->dtype()))
    return where(equal(a, 0), std::complex<double>(std::nan(""), std::nan("")), divide(1, a));
  return divide(1, a);
}

Array atan2(const Operand& a, const Operand& b) { return math2(Op::atan2, "atan2", a, b); }
Array hypot(const Operand& a, const Operand& b) { return math2(Op::hypot, "hypot", a, b); }
Array copysign(const Operand& a, const Operand& b) { return math2(Op::copysign, "copysign", a, b); }

Array nextafter(const Operand& a, const Operand& b) {
  auto r = math2_operands(a, b);
  if (is_complex(r.dtype)) bad_dtype("nextafter", r.dtype, "real operands");
  if (r.dtype != DType::float32 && r.dtype != DType::float64)
    bad_dtype("nextafter", r.dtype, "float32 or float64 operands (the 16-bit types' next value is not computed yet; astype(float32) gives float32's)");
  return wrap(make_node(Op::nextafter, r.dtype, r.nodes[0], r.nodes[1]));
}

// NumPy's logaddexp: log(exp(a) + exp(b)) without overflow; equal operands (infinities
// included) give a + log(2), and NaN propagates through maximum. The 16-bit types are computed
// in float32, as NumPy's: log(2) as a float16 scalar is 2e-4 off, which a + log(2) near zero
// made a 1e-3 error (seen on PoCL).
Array logaddexp(const Operand& a, const Operand& b) {
  auto r = math2_operands(a, b);
  if (is_complex(r.dtype)) bad_dtype("logaddexp", r.dtype, "real operands (NumPy defines it for no complex dtype)");
  const bool narrow = r.dtype == DType::float16 || r.dtype == DType::bfloat16;
  const DType ct = narrow ? DType::float32 : r.dtype;
  const Array x = wrap(detail::cast(r.nodes[0], ct)), y = wrap(detail::cast(r.nodes[1], ct));
  const Array rest = maximum(x, y) + log1p(exp(-abs(x - y)));
  const Array out = where(equal(x, y), x + 0.69314718055994530942, rest);
  return narrow ? out.astype(r.dtype) : out;
}

namespace {
// floor/ceil/round leave integers as they are (NumPy 2); floor, ceil and trunc leave bool too
// (NumPy 2.3), round makes it float16 (as NumPy's, a float loop).
Array rounding(Op op, const Array& a, const char* fname) {
  NodePtr n = operand(a, fname);
  if (is_integral(n->dtype()) || (n->dtype() == DType::boolean && op != Op::round)) return fresh(n);
  if (is_complex(n->dtype())) {
    // NumPy rounds each part of a complex number (round, rint); floor, ceil and trunc it refuses.
    if (op == Op::round) return wrap(make_node(op, n->dtype(), n));
    bad_dtype(fname, n->dtype(), "real operands (NumPy 2 defines it for no complex dtype)");
  }
  return math(op, a, fname);
}
Array classify(Op op, const Array& a, const char* fname) {
  NodePtr n = operand(a, fname);
  if (op == Op::signbit && is_complex(n->dtype()))
    bad_dtype(fname, n->dtype(), "real operands (NumPy defines it for no complex dtype); take real() or imag() first");
  return wrap(make_node(op, DType::boolean, n));
}
}  // namespace

Array floor(const Array& a) { return rounding(Op::floor, a, "floor"); }
Array ceil(const Array& a) { return rounding(Op::ceil, a, "ceil"); }
Array round(const Array& a) { return rounding(Op::round, a, "round"); }
Array trunc(const Array& a) { return rounding(Op::trunc, a, "trunc"); }
Array signbit(const Array& a) { return classify(Op::signbit, a, "signbit"); }
Array isnan(const Array& a) { return classify(Op::isnan, a, "isnan"); }
Array isinf(const Array& a) { return classify(Op::isinf, a, "isinf"); }
Array isfinite(const Array& a) { return classify(Op::isfinite, a, "isfinite"); }

Array Array::operator-() const { return negative(*this); }
Array Array::operator!() const { return logical_not(*this); }
Array Array::operator~() const { return bitwise_not(*this); }
Array& Array::operator+=(const Array& b) { return *this = add(*this, b); }
Array& Array::operator-=(const Array& b) { return *this = subtract(*this, b); }
Array& Array::operator*=(const Array& b) { return *this = multiply(*this, b); }
Array& Array::operator/=(const Array& b) { return *this = divide(*this, b); }

}  // namespace porta
