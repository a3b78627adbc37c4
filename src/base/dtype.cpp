// DType names, sizes, promotion, and the host float16/bfloat16 conversions.
#include <porta/dtype.hpp>
#include <porta/error.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <string>

#include "porta_backend/strings.hpp"

namespace porta {

half::half(float f) {
  // Round to nearest even, with overflow to infinity and subnormals, as IEEE 754 binary16.
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  std::uint32_t sign = (x >> 16) & 0x8000u;
  std::uint32_t mag = x & 0x7fffffffu;
  if (mag > 0x7f800000u) {  // NaN: keep it quiet
    bits = static_cast<std::uint16_t>(sign | 0x7e00u | ((mag >> 13) & 0x3ffu));
    return;
  }
  if (mag >= 0x477ff000u) {  // rounds to >= 65520: infinity
    bits = static_cast<std::uint16_t>(sign | 0x7c00u);
    return;
  }
  if (mag < 0x38800000u) {  // subnormal or zero in binary16
    if (mag < 0x33000000u) {  // below half the smallest subnormal: zero
      bits = static_cast<std::uint16_t>(sign);
      return;
    }
    std::uint32_t mant = (mag & 0x7fffffu) | 0x800000u;
    int shift = 126 - static_cast<int>(mag >> 23);  // 14..24 for the subnormal range
    std::uint32_t result = mant >> shift;
    std::uint32_t rem = mant & ((1u << shift) - 1);
    std::uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (result & 1u))) ++result;
    bits = static_cast<std::uint16_t>(sign | result);
    return;
  }
  std::uint32_t result = ((mag - 0x38000000u) >> 13);
  std::uint32_t rem = mag & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (result & 1u))) ++result;
  bits = static_cast<std::uint16_t>(sign | result);
}

namespace {
// float64 to float32 rounded to odd: truncated toward zero, last bit set when inexact. A later
// rounding to a format of at most 22 significant bits is then correctly rounded.
float round_to_odd(double d) {
  float f = static_cast<float>(d);
  if (std::isnan(d) || static_cast<double>(f) == d) return f;
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if (std::fabs(static_cast<double>(f)) > std::fabs(d)) --u;  // rounded away from zero: step back
  return std::bit_cast<float>(u | 1u);
}
}  // namespace

half::half(double d) : half(round_to_odd(d)) {}
bfloat16::bfloat16(double d) : bfloat16(round_to_odd(d)) {}

half::operator float() const {
  std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  std::uint32_t exp = (bits >> 10) & 0x1fu;
  std::uint32_t mant = bits & 0x3ffu;
  std::uint32_t out;
  if (exp == 0) {
    if (mant == 0) {
      out = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      out = sign | (static_cast<std::uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    out = sign | 0x7f800000u | (mant << 13);
  } else {
    out = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return std::bit_cast<float>(out);
}

bfloat16::bfloat16(float f) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) {
    bits = static_cast<std::uint16_t>((u >> 16) | 0x40u);
    return;
  }
  u += 0x7fffu + ((u >> 16) & 1u);
  bits = static_cast<std::uint16_t>(u >> 16);
}

bfloat16::operator float() const { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

std::size_t itemsize(DType t) {
  switch (t) {
    case DType::boolean: return 1;
    case DType::int32: return 4;
    case DType::int64: return 8;
    case DType::float16: return 2;
    case DType::bfloat16: return 2;
    case DType::float32: return 4;
    case DType::float64: return 8;
  }
  throw DTypeError(detail::cat("DType(", static_cast<int>(t), ") is not a porta dtype; the dtypes are bool, int32, int64, ",
                               "float16, bfloat16, float32, float64"));
}

bool is_valid(DType t) { return static_cast<int>(t) < kDTypeCount; }

std::string_view name(DType t) {
  switch (t) {
    case DType::boolean: return "bool";
    case DType::int32: return "int32";
    case DType::int64: return "int64";
    case DType::float16: return "float16";
    case DType::bfloat16: return "bfloat16";
    case DType::float32: return "float32";
    case DType::float64: return "float64";
  }
  // A value outside the enumeration (a cast from an integer): name the value, so that a message
  // says which. One string per possible value, made once, so the view stays valid.
  static const std::array<std::string, 256> unknown = [] {
    std::array<std::string, 256> names;
    for (std::size_t i = 0; i < names.size(); ++i) names[i] = "DType(" + std::to_string(i) + ")";
    return names;
  }();
  return unknown[static_cast<std::uint8_t>(t)];
}

DType parse_dtype(std::string_view s) {
  std::string l = detail::lower(detail::trim(s));
  if (l == "bool" || l == "boolean") return DType::boolean;
  if (l == "int32" || l == "i32" || l == "int") return DType::int32;
  if (l == "int64" || l == "i64" || l == "long") return DType::int64;
  if (l == "float16" || l == "f16" || l == "half") return DType::float16;
  if (l == "bfloat16" || l == "bf16") return DType::bfloat16;
  if (l == "float32" || l == "f32" || l == "float") return DType::float32;
  if (l == "float64" || l == "f64" || l == "double") return DType::float64;
  throw DTypeError(detail::cat("'", s,
                               "' is not a dtype; use one of bool, int32, int64, float16, bfloat16, float32, float64"));
}

bool is_floating(DType t) {
  return t == DType::float16 || t == DType::bfloat16 || t == DType::float32 || t == DType::float64;
}

bool is_integral(DType t) { return t == DType::int32 || t == DType::int64; }

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  auto rank = [](DType t) {
    switch (t) {
      case DType::boolean: return 0;
      case DType::int32: return 1;
      case DType::int64: return 2;
      case DType::float16: return 3;
      case DType::bfloat16: return 3;
      case DType::float32: return 4;
      case DType::float64: return 5;
    }
    return 0;
  };
  if ((a == DType::float16 && b == DType::bfloat16) || (a == DType::bfloat16 && b == DType::float16))
    return DType::float32;
  // As NumPy: an integer array with a float array narrower than float64 gives float64, since
  // the narrower float cannot hold every integer. bool with anything gives the other.
  if (is_integral(a) && is_floating(b)) return DType::float64;
  if (is_integral(b) && is_floating(a)) return DType::float64;
  return rank(a) >= rank(b) ? a : b;
}

}  // namespace porta
