// Element types: the DType enum, host types (float16, bfloat16, the complex types), NumPy 2's
// promotion, and iinfo/finfo. One table in src/base/dtype.cpp drives names, sizes and kinds.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

namespace porta {

// The first seven keep their values of porta 0.1 (plugins and caches store them as numbers); the
// others follow.
enum class DType : std::uint8_t {
  boolean, int32, int64, float16, bfloat16, float32, float64,
  int8, int16, uint8, uint16, uint32, uint64, complex64, complex128,
};

inline constexpr int kDTypeCount = 15;

// Every dtype in NumPy's order: bool, the signed integers, the unsigned, the floats, the complex.
std::span<const DType> all_dtypes();

// IEEE binary16 on the host: storage plus conversions (round to nearest even).
struct half {
  std::uint16_t bits = 0;
  half() = default;
  explicit half(float f);
  explicit half(double d);  // rounded once (not through float32)
  explicit operator float() const;
  static half from_bits(std::uint16_t b) { half h; h.bits = b; return h; }
};

// bfloat16 on the host: the upper 16 bits of a float32 (round to nearest even).
struct bfloat16 {
  std::uint16_t bits = 0;
  bfloat16() = default;
  explicit bfloat16(float f);
  explicit bfloat16(double d);  // rounded once (not through float32)
  explicit operator float() const;
  static bfloat16 from_bits(std::uint16_t b) { bfloat16 h; h.bits = b; return h; }
};

// complex64 and complex128 are stored as std::complex: the real part, then the imaginary part
// (C's, CUDA's cuComplex, NumPy's and DLPack's layout).
using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

enum class DTypeKind : std::uint8_t { boolean, signed_integer, unsigned_integer, floating, complex };

// True for the enumerators; false for a DType cast from any other integer. Every function that
// takes a DType throws DTypeError, naming the value, for one that is not valid.
bool is_valid(DType t);
std::size_t itemsize(DType t);
std::string_view name(DType t);
DTypeKind kind(DType t);
// Parses "float32", "f32", "uint8", "u8", "complex64", "c64", "bool"...; throws DTypeError
// listing the valid names.
DType parse_dtype(std::string_view s);

bool is_floating(DType t);          // the real floating dtypes: float16, bfloat16, float32, float64
bool is_complex(DType t);           // complex64, complex128
bool is_inexact(DType t);           // floating or complex
bool is_integral(DType t);          // the signed and unsigned integers (not bool)
bool is_signed_integer(DType t);    // int8 ... int64
bool is_unsigned_integer(DType t);  // uint8 ... uint64

// complex64 -> float32, complex128 -> float64; any other dtype is its own.
DType real_dtype(DType t);
// The dtype NumPy's math functions (sqrt, sin, hypot, ...) give t: floating and complex dtypes
// keep theirs; bool and 8-bit integers float16, 16-bit integers float32, wider integers float64.
DType math_float(DType t);
// The complex dtype that holds t's values: float64 -> complex128; bool, the integers up to 16 bits
// and the other floats -> complex64; wider integers -> complex128 (as NumPy's promotion).
DType complex_dtype(DType t);

// NumPy 2's result type for two arrays, for every pair (bfloat16 as ml_dtypes': with float16 it is
// float32, with an integer the narrowest float that holds it, with a complex the complex).
DType promote_types(DType a, DType b);

// numpy.iinfo: the integer dtypes and bool (0, 1).
struct IntInfo {
  DType dtype;
  int bits;
  std::int64_t min;
  std::uint64_t max;
};
IntInfo iinfo(DType t);  // DTypeError for a floating or complex dtype

// numpy.finfo: the floating dtypes; a complex dtype gives its parts'.
struct FloatInfo {
  DType dtype;  // the real dtype described
  int bits;
  double eps;                 // 2^-(precision bits - 1)
  double max;                 // the largest finite value
  double min;                 // -max
  double smallest_normal;
  double smallest_subnormal;
  int mantissa_bits;          // stored bits of the significand (NumPy's nmant)
  int exponent_bits;          // NumPy's nexp
};
FloatInfo finfo(DType t);  // DTypeError for bool and the integers

template <class T> struct dtype_traits;
template <> struct dtype_traits<bool> { static constexpr DType value = DType::boolean; };
template <> struct dtype_traits<std::int8_t> { static constexpr DType value = DType::int8; };
template <> struct dtype_traits<std::int16_t> { static constexpr DType value = DType::int16; };
template <> struct dtype_traits<std::int32_t> { static constexpr DType value = DType::int32; };
template <> struct dtype_traits<std::int64_t> { static constexpr DType value = DType::int64; };
template <> struct dtype_traits<std::uint8_t> { static constexpr DType value = DType::uint8; };
template <> struct dtype_traits<std::uint16_t> { static constexpr DType value = DType::uint16; };
template <> struct dtype_traits<std::uint32_t> { static constexpr DType value = DType::uint32; };
template <> struct dtype_traits<std::uint64_t> { static constexpr DType value = DType::uint64; };
template <> struct dtype_traits<half> { static constexpr DType value = DType::float16; };
template <> struct dtype_traits<bfloat16> { static constexpr DType value = DType::bfloat16; };
template <> struct dtype_traits<float> { static constexpr DType value = DType::float32; };
template <> struct dtype_traits<double> { static constexpr DType value = DType::float64; };
template <> struct dtype_traits<complex64> { static constexpr DType value = DType::complex64; };
template <> struct dtype_traits<complex128> { static constexpr DType value = DType::complex128; };

template <class T> inline constexpr DType dtype_of = dtype_traits<T>::value;

}  // namespace porta
