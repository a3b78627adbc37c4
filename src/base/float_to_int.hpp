// porta's one rule for converting a floating value to an integer dtype, on the host: truncate
// toward zero, saturate at the dtype's limits (unsigned: negative gives 0), NaN gives 0 (CUDA's cvt.rzi.sat and OpenCL's
// convert_*_sat; interface/porta_backend/plan.hpp's Op::cast). Constant folding and host scalars use it so that
// they agree with what the kernels compute.
#pragma once

#include <porta/dtype.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

namespace porta::detail {

// v converted to integer dtype t (bool: v != 0), as an int64 holding the result's bits (a uint64
// above INT64_MAX is negative there). Floating dtypes give the int64 conversion.
inline std::int64_t float_to_int(double v, DType t) {
  if (std::isnan(v)) return 0;
  if (t == DType::boolean) return v != 0;
  if (t == DType::uint64) {
    if (v <= 0) return 0;
    if (v >= 0x1p64) return -1;  // UINT64_MAX's bits
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(std::trunc(v)));
  }
  if (!is_integral(t)) t = DType::int64;
  const IntInfo info = iinfo(t);
  const double lo = static_cast<double>(info.min);
  const auto hi = static_cast<std::int64_t>(info.max);
  // The minima are exact in double; INT64_MAX rounds up to 2^63, so hi is tested with >=.
  if (v <= lo) return info.min;
  if (t == DType::int64 ? v >= 0x1p63 : v >= static_cast<double>(hi)) return hi;
  return static_cast<std::int64_t>(std::trunc(v));
}

// An integer's bits (int64, or uint64 as its bits) converted to integer dtype t: C's wrap-around
// (bool: != 0).
inline std::int64_t wrap_int(std::int64_t i, DType t) {
  switch (t) {
    case DType::boolean: return i != 0;
    case DType::int8: return static_cast<std::int8_t>(i);
    case DType::int16: return static_cast<std::int16_t>(i);
    case DType::int32: return static_cast<std::int32_t>(i);
    case DType::uint8: return static_cast<std::uint8_t>(i);
    case DType::uint16: return static_cast<std::uint16_t>(i);
    case DType::uint32: return static_cast<std::uint32_t>(i);
    default: return i;
  }
}

// The value of integer bits `i` of dtype t as a double (uint64 read unsigned).
inline double int_value(std::int64_t i, DType t) {
  return t == DType::uint64 ? static_cast<double>(static_cast<std::uint64_t>(i)) : static_cast<double>(i);
}

}  // namespace porta::detail
