// Element types: the DType enum, host types for float16/bfloat16, and NumPy's promotion rules.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace porta {

enum class DType : std::uint8_t { boolean, int32, int64, float16, bfloat16, float32, float64 };

inline constexpr int kDTypeCount = 7;

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

// True for the seven enumerators; false for a DType cast from any other integer. Every function that
// takes a DType throws DTypeError, naming the value, for one that is not valid.
bool is_valid(DType t);
std::size_t itemsize(DType t);
std::string_view name(DType t);
// Parses "float32", "f32", "int64", "bool"...; throws DTypeError listing the valid names.
DType parse_dtype(std::string_view s);

bool is_floating(DType t);
bool is_integral(DType t);  // int32, int64 (not bool)

// NumPy's result type for two arrays (float16 with bfloat16 gives float32).
DType promote_types(DType a, DType b);

template <class T> struct dtype_traits;
template <> struct dtype_traits<bool> { static constexpr DType value = DType::boolean; };
template <> struct dtype_traits<std::int32_t> { static constexpr DType value = DType::int32; };
template <> struct dtype_traits<std::int64_t> { static constexpr DType value = DType::int64; };
template <> struct dtype_traits<half> { static constexpr DType value = DType::float16; };
template <> struct dtype_traits<bfloat16> { static constexpr DType value = DType::bfloat16; };
template <> struct dtype_traits<float> { static constexpr DType value = DType::float32; };
template <> struct dtype_traits<double> { static constexpr DType value = DType::float64; };

template <class T> inline constexpr DType dtype_of = dtype_traits<T>::value;

}  // namespace porta
