// The host references the elementwise tests share: NumPy's rules for remainder, integer power,
// sign, maximum and minimum with NaN, and booleans as 0 / 1, in double precision.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

#include "test_common.hpp"

namespace porta_test {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline double sign_of(double x) { return std::isnan(x) ? x : x > 0 ? 1 : x < 0 ? -1 : 0; }

// NumPy's remainder: the sign of the divisor; x % 0 is 0 for integers, NaN for floats.
inline double numpy_mod(double a, double b, DType t) {
  if (!porta::is_floating(t)) {
    if (b == 0) return 0;
    double r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
  double m = std::fmod(a, b);
  if (b == 0) return m;
  if (m != 0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = std::copysign(0.0, b);
  }
  return m;
}

// NumPy's floor_divide: integers floor (x // 0 is 0); floats as npy_floor_divide, from the
// remainder (1.0 // 0.1 is 9), x // 0.0 is x / 0.0.
inline double numpy_floordiv(double a, double b, DType t) {
  if (!porta::is_floating(t)) return b == 0 ? 0 : std::floor(a / b);  // |a|, |b| small: exact
  if (b == 0) return a / b;
  const double m = std::fmod(a, b);
  double d = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) d -= 1;
  if (d == 0) return std::copysign(0.0, a / b);
  const double f = std::floor(d);
  return d - f > 0.5 ? f + 1 : f;
}

inline double int_pow(double a, double b) {
  // plan.hpp: a negative exponent gives the power truncated toward zero.
  if (b < 0) return a == 1 ? 1 : a == -1 ? (std::fmod(b, 2) != 0 ? -1 : 1) : 0;
  double r = 1;
  for (int k = 0; k < static_cast<int>(b); ++k) r *= a;
  return r;
}

inline double nan_max(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }
inline double nan_min(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b); }
inline double truth(bool b) { return b ? 1.0 : 0.0; }

}  // namespace porta_test
