// Binds ops.hpp: the elementwise functions under NumPy's names, and the ndarray operators with
// Python numbers weakly typed (NumPy 2). An operand that is not an array or a number makes an
// operator return NotImplemented.
#include "bindings.hpp"
#include "gil.hpp"

namespace porta::python {
namespace {

using Binary = Array (*)(const Operand&, const Operand&);
using Unary = Array (*)(const Array&);

// The operators and functions decide about the GIL themselves (gil.hpp): with evaluated
// operands they only build a node and keep it.
template <class F> void def_operator(nb::handle cls, const char* name, F f) {
  nb::cpp_function_def(std::move(f), nb::scope(cls), nb::name(name), nb::is_method(), nb::is_operator());
}

const void* id(Binary fn) { return reinterpret_cast<const void*>(fn); }
const void* id(Unary fn) { return reinterpret_cast<const void*>(fn); }

// A Python int beyond 64 bits meets float arrays as a float (NumPy's rule); beside bool or integer
// arrays NumPy 2 raises OverflowError, except in comparisons (which porta makes in float64). The
// message has error.cpp's words for an OverflowError.
void check_huge_ints(std::initializer_list<PyOperand*> ops, bool comparison) {
  for (const PyOperand* h : ops) {
    if (!h->huge_int || comparison) continue;
    bool any_array = false;
    for (const PyOperand* o : ops) {
      if (o->op.kind() != Operand::Kind::array) continue;
      any_array = true;
      const DType t = o->op.array().dtype();
      if (!is_inexact(t)) {
        throw InvalidArgument("the Python integer " + h->huge_text + " does not fit in " + std::string(name(t)) +
                              " nor in any 64-bit integer (NumPy 2 raises OverflowError); use a float array or a "
                              "smaller number");
      }
    }
    if (!any_array)
      throw InvalidArgument("a Python integer beyond 64 bits with no array has no porta dtype (NumPy 2 raises "
                            "OverflowError); give it as a float");
  }
}

// NumPy 2 (NEP 50): a NumPy scalar takes part in promotion with its dtype, as an array would
// (np.int64(1) + a uint64 array is float64), a Python number does not. porta's Operand is weak, so
// the arrays are cast to the dtype all of them promote to first; the scalar then meets them weakly
// and fits (that dtype holds every value of the scalar's). With no array, the numbers stay weak.
// A function with float loops only (hypot: NumPy's 'ee', 'ff', 'dd') takes the least float each
// operand casts to safely, not the float of their integer promotion: hypot(uint16, np.int8) is
// float32 where uint16 + int8 is int32 (float64): porta::math_float, NumPy's math functions' dtype.
void promote_numpy_scalars(std::initializer_list<PyOperand*> ops, bool comparison = false, bool float_only = false) {
  check_huge_ints(ops, comparison);
  const auto least_float = [float_only](DType t) { return float_only ? math_float(t) : t; };
  std::optional<DType> to;
  for (const PyOperand* o : ops)
    if (o->numpy_dtype) to = to ? promote_types(*to, least_float(*o->numpy_dtype)) : least_float(*o->numpy_dtype);
  if (!to) return;
  for (const PyOperand* o : ops)
    if (o->op.kind() == Operand::Kind::array) to = promote_types(*to, least_float(o->op.array().dtype()));
  for (PyOperand* o : ops)
    if (*to == DType::float16 && o->op.kind() == Operand::Kind::array && !o->op.array().device().supports(*to))
      to = DType::float32;  // as porta's math functions on a device without half precision
  for (PyOperand* o : ops)
    if (o->op.kind() == Operand::Kind::array && o->op.array().dtype() != *to) o->op = Operand(o->op.array().astype(*to));
}

Array call(Binary fn, const Operand& a, const Operand& b) { return gil::elementwise(id(fn), fn, a, b); }
bool is_comparison(Binary fn) {
  return fn == &porta::equal || fn == &porta::not_equal || fn == &porta::less || fn == &porta::less_equal ||
         fn == &porta::greater || fn == &porta::greater_equal;
}

// A Python int outside an integer array's dtype (uint8 < 300, int64 < 2**63, one beyond 64 bits):
// every element is on the same side of it, so a comparison is a constant, NumPy 2's exact answer.
// (The core compares such numbers in int64 or float64, which is inexact next to 2**63 and 2**64.)
std::optional<Array> constant_comparison(Binary fn, const PyOperand& a, const PyOperand& b) {
  const bool array_left = a.op.kind() == Operand::Kind::array;
  const PyOperand& arr = array_left ? a : b;
  const PyOperand& num = array_left ? b : a;
  if (arr.op.kind() != Operand::Kind::array || !(num.op.kind() == Operand::Kind::integer || num.huge_int))
    return std::nullopt;
  const DType t = arr.op.array().dtype();
  if (!is_integral(t)) return std::nullopt;
  int above = 0;  // +1: the number is above every value of t; -1: below; 0: t holds it
  if (num.huge_int) {
    above = num.op.floating() > 0 ? 1 : -1;
  } else if (num.op.big_unsigned()) {
    above = t == DType::uint64 ? 0 : 1;
  } else {
    const IntInfo info = iinfo(t);
    const std::int64_t i = num.op.integer();
    above = i < info.min ? -1 : (i > 0 && static_cast<std::uint64_t>(i) > info.max) ? 1 : 0;
  }
  if (above == 0) return std::nullopt;
  const int c = array_left ? -above : above;  // the sign of (left - right)
  const bool r = fn == &porta::equal ? false
                 : fn == &porta::not_equal ? true
                 : fn == &porta::less ? c < 0
                 : fn == &porta::less_equal ? c <= 0
                 : fn == &porta::greater ? c > 0
                                         : c >= 0;
  const Array& x = arr.op.array();
  return r ? porta::equal(x, x) : porta::not_equal(x, x);  // integers: all true, all false
}

bool is_float_only(Binary fn) {
  return fn == &porta::atan2 || fn == &porta::hypot || fn == &porta::copysign || fn == &porta::nextafter ||
         fn == &porta::logaddexp;
}

Array call(Binary fn, PyOperand a, PyOperand b) {
  const bool comparison = is_comparison(fn);
  promote_numpy_scalars({&a, &b}, comparison, is_float_only(fn));
  if (comparison)
    if (auto r = constant_comparison(fn, a, b)) return *r;
  return call(fn, a.op, b.op);
}
Array call(Binary fn, const Array& a, PyOperand b) { return call(fn, PyOperand{Operand(a), std::nullopt}, std::move(b)); }
Array call(Unary fn, const Array& a) {
  return gil::elementwise(id(fn), [fn](const Operand& x) { return fn(x.array()); }, Operand(a));
}

void def_binary_operator(nb::handle cls, const char* name, const char* rname, Binary fn) {
  def_operator(cls, name, [fn](const Array& a, PyOperand b) { return call(fn, a, std::move(b)); });
  def_operator(cls, rname, [fn](const Array& a, PyOperand b) {
    return call(fn, std::move(b), PyOperand{Operand(a), std::nullopt});
  });
}

Array clip3(const Operand& a, const Operand& lo, const Operand& hi) { return porta::clip(a, lo, hi); }

// NumPy 2's clip of an integer array with a Python int bound outside its dtype (clip(int32_array,
// 0, 2**31), a bound beyond 64 bits): the bound is clamped to the dtype's range, where arithmetic
// raises OverflowError. The dtype is the array's promoted with the NumPy scalars beside it.
void clamp_int_bounds(PyOperand& a, std::initializer_list<PyOperand*> bounds) {
  if (a.op.kind() != Operand::Kind::array) return;
  DType t = a.op.array().dtype();
  for (const PyOperand* b : bounds)
    if (b->numpy_dtype) t = promote_types(t, *b->numpy_dtype);
  if (!is_integral(t)) return;
  const IntInfo info = iinfo(t);
  for (PyOperand* b : bounds) {
    int above = 0;  // +1: above every value of t; -1: below
    if (b->huge_int) {
      above = b->op.floating() > 0 ? 1 : -1;
    } else if (b->op.kind() == Operand::Kind::integer && !b->numpy_dtype) {
      const std::int64_t i = b->op.integer();
      above = b->op.big_unsigned() ? (t == DType::uint64 ? 0 : 1)
              : i < info.min       ? -1
              : (i > 0 && static_cast<std::uint64_t>(i) > info.max) ? 1 : 0;
    }
    if (above == 0) continue;
    b->huge_int = false;
    b->op = above < 0 ? Operand(info.min) : Operand(info.max);  // (uint64's max: a big unsigned)
  }
}

// NumPy's rint: of a bool or integer array a float one (8 bits and bool: float16, 16 bits: float32,
// wider: float64), where porta::round (NumPy's round) keeps integers.
Array rint(const Array& a) {
  const DType t = a.dtype();
  if (is_inexact(t)) return porta::round(a);
  DType f = math_float(t);
  if (f == DType::float16 && !a.device().supports(f)) f = DType::float32;  // as porta's math functions
  return a.astype(f);  // (a float of an integer is whole: nothing to round)
}
Array where3(const Operand& c, const Operand& x, const Operand& y) { return porta::where(c, x, y); }

}  // namespace

void bind_ops(nb::module_& m) {
  const std::pair<const char*, Binary> binary[] = {
      {"add", porta::add}, {"subtract", porta::subtract}, {"multiply", porta::multiply},
      {"divide", porta::divide}, {"true_divide", porta::divide}, {"remainder", porta::remainder},
      {"mod", porta::remainder}, {"floor_divide", porta::floor_divide}, {"power", porta::power}, {"pow", porta::power},
      {"maximum", porta::maximum}, {"minimum", porta::minimum}, {"equal", porta::equal},
      {"not_equal", porta::not_equal}, {"less", porta::less}, {"less_equal", porta::less_equal},
      {"greater", porta::greater}, {"greater_equal", porta::greater_equal},
      {"logical_and", porta::logical_and}, {"logical_or", porta::logical_or}, {"logical_xor", porta::logical_xor},
      {"bitwise_and", porta::bitwise_and}, {"bitwise_or", porta::bitwise_or}, {"bitwise_xor", porta::bitwise_xor},
      {"bitwise_left_shift", porta::bitwise_left_shift}, {"left_shift", porta::bitwise_left_shift},
      {"bitwise_right_shift", porta::bitwise_right_shift}, {"right_shift", porta::bitwise_right_shift},
      {"atan2", porta::atan2}, {"arctan2", porta::atan2}, {"hypot", porta::hypot}, {"copysign", porta::copysign},
      {"nextafter", porta::nextafter}, {"logaddexp", porta::logaddexp},
  };
  for (const auto& [name, fn] : binary)
    m.def(name, [fn = fn](PyOperand a, PyOperand b) { return call(fn, std::move(a), std::move(b)); }, nb::arg("x1"),
          nb::arg("x2"));

  const std::pair<const char*, Unary> unary[] = {
      {"negative", porta::negative}, {"positive", porta::positive}, {"abs", porta::abs}, {"absolute", porta::abs}, {"sign", porta::sign},
      {"square", porta::square}, {"exp", porta::exp}, {"log", porta::log}, {"log1p", porta::log1p},
      {"expm1", porta::expm1}, {"sqrt", porta::sqrt}, {"rsqrt", porta::rsqrt}, {"sin", porta::sin},
      {"cos", porta::cos}, {"tan", porta::tan}, {"tanh", porta::tanh}, {"sigmoid", porta::sigmoid},
      {"erf", porta::erf}, {"floor", porta::floor}, {"ceil", porta::ceil}, {"round", porta::round},
      {"around", porta::round}, {"rint", rint}, {"isnan", porta::isnan}, {"isinf", porta::isinf},
      {"isfinite", porta::isfinite}, {"logical_not", porta::logical_not}, {"bitwise_not", porta::bitwise_not},
      {"bitwise_invert", porta::bitwise_not}, {"invert", porta::bitwise_not},
      {"acos", porta::acos}, {"arccos", porta::acos}, {"asin", porta::asin}, {"arcsin", porta::asin},
      {"atan", porta::atan}, {"arctan", porta::atan}, {"acosh", porta::acosh}, {"arccosh", porta::acosh},
      {"asinh", porta::asinh}, {"arcsinh", porta::asinh}, {"atanh", porta::atanh}, {"arctanh", porta::atanh},
      {"sinh", porta::sinh}, {"cosh", porta::cosh}, {"log2", porta::log2}, {"log10", porta::log10},
      {"trunc", porta::trunc}, {"signbit", porta::signbit}, {"reciprocal", porta::reciprocal},
      {"angle", porta::angle},
      // porta/_arrayapi.py wraps these three (a real array's real part is a new array there).
      {"_real", porta::real}, {"_imag", porta::imag}, {"_conj", porta::conj},
  };
  for (const auto& [name, fn] : unary)
    m.def(name, [fn = fn](const Array& a) { return call(fn, a); }, nb::arg("x"));

  m.def("clip", [](PyOperand a, PyOperand lo, PyOperand hi) {
    clamp_int_bounds(a, {&lo, &hi});
    promote_numpy_scalars({&a, &lo, &hi});
    return gil::elementwise(reinterpret_cast<const void*>(&clip3), clip3, a.op, lo.op, hi.op);
  }, nb::arg("a"), nb::arg("a_min"), nb::arg("a_max"));
  m.def("where", [](const Operand& c, PyOperand x, PyOperand y) {
    // Neither x nor y an array: a NumPy scalar among them is a 0-d array of its dtype (NumPy's
    // strong type: where(c, np.int32(0), False) is int32), on the condition's device.
    if (x.op.kind() != Operand::Kind::array && y.op.kind() != Operand::Kind::array)
      for (PyOperand* o : {&x, &y})
        if (o->numpy_dtype && !o->huge_int) {
          const Device d = c.kind() == Operand::Kind::array ? c.array().device() : current_device();
          o->op = Operand(o->op.kind() == Operand::Kind::complex ? full({}, std::complex<double>(o->op.floating(), o->op.imag()), *o->numpy_dtype, d)
                          : o->op.kind() == Operand::Kind::integer || o->op.kind() == Operand::Kind::boolean
                              ? full_integer({}, o->op.integer(), o->op.big_unsigned(), *o->numpy_dtype, d)
                              : full({}, o->op.floating(), *o->numpy_dtype, d));
          o->numpy_dtype.reset();
        }
    promote_numpy_scalars({&x, &y});  // the condition takes no part in the result's dtype
    return gil::elementwise(reinterpret_cast<const void*>(&where3), where3, c, x.op, y.op);
  }, nb::arg("condition"), nb::arg("x"), nb::arg("y"));

  nb::handle cls = nb::type<Array>();
  def_binary_operator(cls, "__add__", "__radd__", porta::add);
  def_binary_operator(cls, "__sub__", "__rsub__", porta::subtract);
  def_binary_operator(cls, "__mul__", "__rmul__", porta::multiply);
  def_binary_operator(cls, "__truediv__", "__rtruediv__", porta::divide);
  def_binary_operator(cls, "__mod__", "__rmod__", porta::remainder);
  def_binary_operator(cls, "__floordiv__", "__rfloordiv__", porta::floor_divide);
  def_binary_operator(cls, "__pow__", "__rpow__", porta::power);
  def_binary_operator(cls, "__and__", "__rand__", porta::bitwise_and);
  def_binary_operator(cls, "__or__", "__ror__", porta::bitwise_or);
  def_binary_operator(cls, "__xor__", "__rxor__", porta::bitwise_xor);
  def_binary_operator(cls, "__lshift__", "__rlshift__", porta::bitwise_left_shift);
  def_binary_operator(cls, "__rshift__", "__rrshift__", porta::bitwise_right_shift);
  def_operator(cls, "__eq__", [](const Array& a, PyOperand b) { return call(porta::equal, a, std::move(b)); });
  def_operator(cls, "__ne__", [](const Array& a, PyOperand b) { return call(porta::not_equal, a, std::move(b)); });
  def_operator(cls, "__lt__", [](const Array& a, PyOperand b) { return call(porta::less, a, std::move(b)); });
  def_operator(cls, "__le__", [](const Array& a, PyOperand b) { return call(porta::less_equal, a, std::move(b)); });
  def_operator(cls, "__gt__", [](const Array& a, PyOperand b) { return call(porta::greater, a, std::move(b)); });
  def_operator(cls, "__ge__", [](const Array& a, PyOperand b) { return call(porta::greater_equal, a, std::move(b)); });
  def_operator(cls, "__neg__", [](const Array& a) { return call(porta::negative, a); });
  def_operator(cls, "__pos__", [](const Array& a) { return call(porta::positive, a); });
  def_operator(cls, "__abs__", [](const Array& a) { return call(porta::abs, a); });
  // NumPy's ~ on bool is logical not; porta's bitwise_not follows it.
  def_operator(cls, "__invert__", [](const Array& a) { return call(porta::bitwise_not, a); });
}

}  // namespace porta::python
