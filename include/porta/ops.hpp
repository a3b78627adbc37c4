// Elementwise operations with NumPy's broadcasting and type promotion. Host numbers in an
// expression are weakly typed, as Python scalars in NumPy 2: float32_array * 2.0 is float32,
// int32_array * 2.5 is float64, int32_array + 1 is int32.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include <porta/array.hpp>

namespace porta {

// An Array or a host number, where an operation accepts either. Host numbers are weak, as Python's
// in NumPy 2: bool, integer (any C++ integer type, its value kept: an unsigned one above INT64_MAX
// too), floating, complex.
class Operand {
 public:
  Operand(const Array& a) : array_(a) {}  // NOLINT(google-explicit-constructor)
  template <class T>
    requires std::is_arithmetic_v<T>
  Operand(T v) {  // NOLINT(google-explicit-constructor)
    if constexpr (std::is_same_v<T, bool>) {
      kind_ = Kind::boolean;
      i_ = v ? 1 : 0;
    } else if constexpr (std::is_integral_v<T>) {
      kind_ = Kind::integer;
      i_ = static_cast<std::int64_t>(v);
      if constexpr (std::is_unsigned_v<T>) big_unsigned_ = i_ < 0;
    } else {
      kind_ = Kind::floating;
      f_ = static_cast<double>(v);
    }
  }
  template <class T>
    requires std::is_floating_point_v<T>
  Operand(std::complex<T> v)  // NOLINT(google-explicit-constructor)
      : kind_(Kind::complex), f_(static_cast<double>(v.real())), imag_(static_cast<double>(v.imag())) {}
  enum class Kind { array, boolean, integer, floating, complex };
  Kind kind() const { return kind_; }
  const Array& array() const { return array_; }
  double floating() const { return f_; }  // floating; a complex number's real part
  double imag() const { return imag_; }   // a complex number's imaginary part
  std::int64_t integer() const { return i_; }
  // An integer above INT64_MAX (from an unsigned C++ type): integer() holds its uint64 bits.
  bool big_unsigned() const { return big_unsigned_; }
  // An integer's value as a double (exact up to 2^53).
  double integer_value() const {
    return big_unsigned_ ? static_cast<double>(static_cast<std::uint64_t>(i_)) : static_cast<double>(i_);
  }

 private:
  Kind kind_ = Kind::array;
  Array array_;
  double f_ = 0;
  double imag_ = 0;
  std::int64_t i_ = 0;
  bool big_unsigned_ = false;
};

// Arithmetic. `divide` is true division (integers give float64); `remainder` has the sign of
// the divisor; `power` of integers is exact.
Array add(const Operand& a, const Operand& b);
Array subtract(const Operand& a, const Operand& b);
Array multiply(const Operand& a, const Operand& b);
Array divide(const Operand& a, const Operand& b);
Array remainder(const Operand& a, const Operand& b);
// NumPy's floor_divide (Python's //): integers stay integers (x // 0 is 0), floats as NumPy's
// (1.0 // 0.1 is 9.0, the quotient of a - remainder(a, b)); bool gives int32.
Array floor_divide(const Operand& a, const Operand& b);
Array power(const Operand& a, const Operand& b);
Array maximum(const Operand& a, const Operand& b);  // NaN propagates
Array minimum(const Operand& a, const Operand& b);
Array clip(const Operand& a, const Operand& lo, const Operand& hi);  // minimum(maximum(a, lo), hi)
Array where(const Operand& cond, const Operand& x, const Operand& y);

// Comparisons give bool arrays.
Array equal(const Operand& a, const Operand& b);
Array not_equal(const Operand& a, const Operand& b);
Array less(const Operand& a, const Operand& b);
Array less_equal(const Operand& a, const Operand& b);
Array greater(const Operand& a, const Operand& b);
Array greater_equal(const Operand& a, const Operand& b);

// Logical ops take any dtype (nonzero is true) and give bool; bitwise ops take bool or integers.
Array logical_and(const Operand& a, const Operand& b);
Array logical_or(const Operand& a, const Operand& b);
Array logical_xor(const Operand& a, const Operand& b);
Array logical_not(const Array& a);
Array bitwise_and(const Operand& a, const Operand& b);
Array bitwise_or(const Operand& a, const Operand& b);
Array bitwise_xor(const Operand& a, const Operand& b);
Array bitwise_not(const Array& a);
// Shifts of integers (also `<<`, `>>`), NumPy's: a count outside [0, bits) gives 0, or for `>>`
// of a negative number -1. bool and floating operands are a DTypeError.
Array bitwise_left_shift(const Operand& a, const Operand& b);
Array bitwise_right_shift(const Operand& a, const Operand& b);

// Unary math. Integer and bool inputs give float64 where the result is not an integer
// (exp of int32 is float64, as NumPy); float16 stays float16.
Array negative(const Array& a);
Array positive(const Array& a);  // a new array of a's values (NumPy's +a is a copy); not bool
Array abs(const Array& a);  // complex: the magnitude (real dtype); unsigned: a itself
// The parts of complex numbers (real dtype); of a real array: a itself, and zeros. conj of a real
// array is a (of bool: int8, as NumPy's); angle is atan2(imag, real) (of a real array atan2(0, a):
// int8 float16, int16 float32, int32 and bool float64, as NumPy's).
Array real(const Array& a);
Array imag(const Array& a);
Array conj(const Array& a);
Array angle(const Array& a);
Array sign(const Array& a);
Array square(const Array& a);
Array exp(const Array& a);
Array log(const Array& a);
Array log1p(const Array& a);
Array expm1(const Array& a);
Array sqrt(const Array& a);
Array rsqrt(const Array& a);
Array sin(const Array& a);
Array cos(const Array& a);
Array tan(const Array& a);
Array tanh(const Array& a);
Array sigmoid(const Array& a);
Array erf(const Array& a);
Array acos(const Array& a);
Array asin(const Array& a);
Array atan(const Array& a);
Array acosh(const Array& a);
Array asinh(const Array& a);
Array atanh(const Array& a);
Array sinh(const Array& a);
Array cosh(const Array& a);
Array log2(const Array& a);
Array log10(const Array& a);
Array reciprocal(const Array& a);  // 1 / a, floating arrays only (NumPy's of integers divides as integers)
Array floor(const Array& a);  // integers stay integers
Array ceil(const Array& a);
Array round(const Array& a);  // half to even
Array trunc(const Array& a);  // toward zero
Array isnan(const Array& a);
Array isinf(const Array& a);
Array isfinite(const Array& a);
Array signbit(const Array& a);  // bool: set for negative numbers, -0.0 and NaNs with the sign bit

// Math of two operands, with math()'s dtypes (integers give float64, bool float16).
Array atan2(const Operand& a, const Operand& b);  // the angle of (b, a), as C's atan2(a, b)
Array hypot(const Operand& a, const Operand& b);
Array copysign(const Operand& a, const Operand& b);
Array nextafter(const Operand& a, const Operand& b);  // float32 and float64 only
Array logaddexp(const Operand& a, const Operand& b);  // log(exp(a) + exp(b)) without overflow
Array pow(const Operand& a, const Operand& b);  // power()

// A host number an operator takes beside an Array: a C++ arithmetic value or a std::complex.
template <class T> inline constexpr bool is_host_complex = false;
template <class T> inline constexpr bool is_host_complex<std::complex<T>> = std::is_floating_point_v<T>;
template <class T> concept HostNumber = std::is_arithmetic_v<T> || is_host_complex<T>;

#define PORTA_BINARY_OPERATOR(OP, FN)                                                         \
  inline Array operator OP(const Array& a, const Array& b) { return FN(a, b); }              \
  template <HostNumber T>                                                                     \
  Array operator OP(const Array& a, T b) { return FN(a, Operand(b)); }                        \
  template <HostNumber T>                                                                     \
  Array operator OP(T a, const Array& b) { return FN(Operand(a), b); }

PORTA_BINARY_OPERATOR(+, add)
PORTA_BINARY_OPERATOR(-, subtract)
PORTA_BINARY_OPERATOR(*, multiply)
PORTA_BINARY_OPERATOR(/, divide)
PORTA_BINARY_OPERATOR(%, remainder)
PORTA_BINARY_OPERATOR(==, equal)
PORTA_BINARY_OPERATOR(!=, not_equal)
PORTA_BINARY_OPERATOR(<, less)
PORTA_BINARY_OPERATOR(<=, less_equal)
PORTA_BINARY_OPERATOR(>, greater)
PORTA_BINARY_OPERATOR(>=, greater_equal)
PORTA_BINARY_OPERATOR(&, bitwise_and)
PORTA_BINARY_OPERATOR(|, bitwise_or)
PORTA_BINARY_OPERATOR(^, bitwise_xor)
PORTA_BINARY_OPERATOR(<<, bitwise_left_shift)
PORTA_BINARY_OPERATOR(>>, bitwise_right_shift)

#undef PORTA_BINARY_OPERATOR

}  // namespace porta
