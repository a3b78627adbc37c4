// DType names, sizes, kinds and promotion (one table), and the host float16/bfloat16 conversions.
#include <porta/dtype.hpp>
#include <porta/error.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <limits>
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

namespace {

struct Row {
  DType t;
  std::string_view name;
  std::size_t size;
  DTypeKind kind;
  // Other names parse_dtype takes (lowercase). The short names count bits, as Rust's and
  // ArrayFire's do ("i8" is int8, "f64" float64), not bytes as NumPy's character codes ("i8" is
  // NumPy's int64): the Python package hands strings to NumPy, whose meaning they keep there.
  std::string_view aliases[2];
};

// The one table. Order: NumPy's (also all_dtypes()'s).
constexpr Row kRows[kDTypeCount] = {
    {DType::boolean, "bool", 1, DTypeKind::boolean, {"boolean", ""}},
    {DType::int8, "int8", 1, DTypeKind::signed_integer, {"i8", ""}},
    {DType::int16, "int16", 2, DTypeKind::signed_integer, {"i16", "short"}},
    {DType::int32, "int32", 4, DTypeKind::signed_integer, {"i32", "int"}},
    {DType::int64, "int64", 8, DTypeKind::signed_integer, {"i64", "long"}},
    {DType::uint8, "uint8", 1, DTypeKind::unsigned_integer, {"u8", ""}},
    {DType::uint16, "uint16", 2, DTypeKind::unsigned_integer, {"u16", ""}},
    {DType::uint32, "uint32", 4, DTypeKind::unsigned_integer, {"u32", "uint"}},
    {DType::uint64, "uint64", 8, DTypeKind::unsigned_integer, {"u64", ""}},
    {DType::float16, "float16", 2, DTypeKind::floating, {"f16", "half"}},
    {DType::bfloat16, "bfloat16", 2, DTypeKind::floating, {"bf16", ""}},
    {DType::float32, "float32", 4, DTypeKind::floating, {"f32", "float"}},
    {DType::float64, "float64", 8, DTypeKind::floating, {"f64", "double"}},
    {DType::complex64, "complex64", 8, DTypeKind::complex, {"c64", "cfloat"}},
    {DType::complex128, "complex128", 16, DTypeKind::complex, {"c128", "cdouble"}},
};

constexpr std::array<DType, kDTypeCount> kOrder = [] {
  std::array<DType, kDTypeCount> o{};
  for (int i = 0; i < kDTypeCount; ++i) o[static_cast<std::size_t>(i)] = kRows[i].t;
  return o;
}();

const Row& row(DType t) {
  for (const Row& r : kRows)
    if (r.t == t) return r;
  throw DTypeError(detail::cat("DType(", static_cast<int>(t), ") is not a porta dtype; the dtypes are ",
                               "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, ",
                               "float32, float64, complex64, complex128"));
}

int bits_of(DType t) { return static_cast<int>(row(t).size * 8); }

// The narrowest float that holds every value of integer dtype t exactly (NumPy's rule).
DType float_for_integer(DType t) {
  int b = bits_of(t);
  return b <= 8 ? DType::float16 : b <= 16 ? DType::float32 : DType::float64;
}

DType signed_of_bits(int b) {
  return b <= 8 ? DType::int8 : b <= 16 ? DType::int16 : b <= 32 ? DType::int32 : DType::int64;
}

DType promote_floats(DType a, DType b) {
  if (a == b) return a;
  if ((a == DType::float16 && b == DType::bfloat16) || (a == DType::bfloat16 && b == DType::float16)) return DType::float32;
  return bits_of(a) >= bits_of(b) ? a : b;
}

}  // namespace

std::span<const DType> all_dtypes() { return kOrder; }

bool is_valid(DType t) { return static_cast<int>(t) < kDTypeCount; }
std::size_t itemsize(DType t) { return row(t).size; }
DTypeKind kind(DType t) { return row(t).kind; }

std::string_view name(DType t) {
  if (is_valid(t)) return row(t).name;
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
  for (const Row& r : kRows) {
    if (l == r.name) return r.t;
    for (std::string_view a : r.aliases)
      if (!a.empty() && l == a) return r.t;
  }
  throw DTypeError(detail::cat("'", s, "' is not a dtype; use one of bool, int8, int16, int32, int64, uint8, uint16, ",
                               "uint32, uint64, float16, bfloat16, float32, float64, complex64, complex128 ",
                               "(or i8 ... i64, u8 ... u64, f16, bf16, f32, f64, c64, c128)"));
}

bool is_floating(DType t) { return kind(t) == DTypeKind::floating; }
bool is_complex(DType t) { return kind(t) == DTypeKind::complex; }
bool is_inexact(DType t) { return is_floating(t) || is_complex(t); }
bool is_signed_integer(DType t) { return kind(t) == DTypeKind::signed_integer; }
bool is_unsigned_integer(DType t) { return kind(t) == DTypeKind::unsigned_integer; }
bool is_integral(DType t) { return is_signed_integer(t) || is_unsigned_integer(t); }

DType real_dtype(DType t) {
  if (t == DType::complex64) return DType::float32;
  if (t == DType::complex128) return DType::float64;
  (void)row(t);
  return t;
}

DType complex_dtype(DType t) {
  if (is_complex(t)) return t;
  DType f = is_integral(t) ? float_for_integer(t) : t == DType::boolean ? DType::float16 : t;
  return f == DType::float64 ? DType::complex128 : DType::complex64;
}

DType math_float(DType t) {
  return is_inexact(t) ? t : t == DType::boolean ? DType::float16 : float_for_integer(t);
}

DType promote_types(DType a, DType b) {
  const DTypeKind ka = kind(a), kb = kind(b);
  if (a == b) return a;
  if (ka == DTypeKind::boolean) return b;
  if (kb == DTypeKind::boolean) return a;
  if (ka == DTypeKind::complex || kb == DTypeKind::complex) {
    // The complex of the wider of the two real parts.
    DType ra = ka == DTypeKind::complex ? real_dtype(a) : is_integral(a) ? float_for_integer(a) : a;
    DType rb = kb == DTypeKind::complex ? real_dtype(b) : is_integral(b) ? float_for_integer(b) : b;
    return promote_floats(ra, rb) == DType::float64 ? DType::complex128 : DType::complex64;
  }
  if (ka == DTypeKind::floating || kb == DTypeKind::floating) {
    if (ka == DTypeKind::floating && kb == DTypeKind::floating) return promote_floats(a, b);
    DType f = ka == DTypeKind::floating ? a : b;
    DType g = float_for_integer(ka == DTypeKind::floating ? b : a);
    if (f == DType::bfloat16 && g == DType::float16) return DType::bfloat16;  // bfloat16 holds 8-bit integers
    return promote_floats(f, g);
  }
  // Two integers.
  const int ba = bits_of(a), bb = bits_of(b);
  if (ka == kb) return ba >= bb ? a : b;
  const DType s = ka == DTypeKind::signed_integer ? a : b, u = ka == DTypeKind::signed_integer ? b : a;
  if (bits_of(s) > bits_of(u)) return s;
  if (bits_of(u) < 64) return signed_of_bits(2 * bits_of(u));
  return DType::float64;  // uint64 with a signed integer: no integer holds both
}

IntInfo iinfo(DType t) {
  switch (t) {
    case DType::boolean: return {t, 8, 0, 1};
    case DType::int8: return {t, 8, INT8_MIN, INT8_MAX};
    case DType::int16: return {t, 16, INT16_MIN, INT16_MAX};
    case DType::int32: return {t, 32, INT32_MIN, INT32_MAX};
    case DType::int64: return {t, 64, INT64_MIN, INT64_MAX};
    case DType::uint8: return {t, 8, 0, UINT8_MAX};
    case DType::uint16: return {t, 16, 0, UINT16_MAX};
    case DType::uint32: return {t, 32, 0, UINT32_MAX};
    case DType::uint64: return {t, 64, 0, UINT64_MAX};
    default: break;
  }
  throw DTypeError(detail::cat("iinfo takes an integer dtype, not ", name(t), "; use finfo for floating and complex dtypes"));
}

FloatInfo finfo(DType t) {
  switch (real_dtype(t)) {
    case DType::float16: return {DType::float16, 16, 0x1p-10, 65504.0, -65504.0, 0x1p-14, 0x1p-24, 10, 5};
    case DType::bfloat16:
      return {DType::bfloat16, 16, 0x1p-7, 0x1.fep127, -0x1.fep127, 0x1p-126, 0x1p-133, 7, 8};
    case DType::float32:
      return {DType::float32, 32, 0x1p-23, std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
              0x1p-126, 0x1p-149, 23, 8};
    case DType::float64:
      return {DType::float64, 64, 0x1p-52, std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
              0x1p-1022, 0x1p-1074, 52, 11};
    default: break;
  }
  throw DTypeError(detail::cat("finfo takes a floating or complex dtype, not ", name(t), "; use iinfo for integers and bool"));
}

}  // namespace porta
