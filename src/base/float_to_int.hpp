// porta's one rule for converting a floating value to an integer dtype, on the host: truncate
// toward zero, saturate at the dtype's limits, NaN gives 0 (CUDA's cvt.rzi.sat and OpenCL's
// convert_*_sat; interface/porta_backend/plan.hpp's Op::cast). Constant folding and host scalars use it so that
// they agree with what the kernels compute.
#pragma once

#include <porta/dtype.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

namespace porta::detail {

// v converted to int32 (when t is int32) or int64 (otherwise), as an int64.
inline std::int64_t float_to_int(double v, DType t) {
  if (std::isnan(v)) return 0;
  const bool narrow = t == DType::int32;
  const std::int64_t lo = narrow ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int64_t>::min();
  const std::int64_t hi = narrow ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int64_t>::max();
  // -2^31, -2^63 and 2^31 are exact in double; 2^63 - 1 rounds up to 2^63, so hi is tested with >=.
  if (v <= static_cast<double>(lo)) return lo;
  if (narrow ? v > static_cast<double>(hi) : v >= static_cast<double>(hi)) return hi;
  return static_cast<std::int64_t>(std::trunc(v));
}

}  // namespace porta::detail
