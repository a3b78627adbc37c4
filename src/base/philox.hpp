// Philox4x32-10 on the host: the reference for the random numbers every backend generates
// (plan.hpp's Op::uniform and Op::normal). Philox itself, the element -> (counter, word) map and
// the uniforms are base/philox.h, the one definition that the generated kernels embed too; here
// the host's names for them and Box-Muller (whose sqrt, log, sin and cos are the C++ library's).
// The interpreter (src/interpreter/ops.cpp) calls these functions.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace porta::detail {

// base/philox.h in this namespace, on the host's integers.
using porta_u32 = std::uint32_t;
using porta_u64 = std::uint64_t;
inline porta_u32 porta_mulhi(porta_u32 a, porta_u32 b) { return static_cast<porta_u32>((porta_u64{a} * b) >> 32); }
#define PORTA_PHILOX_FN inline
#include "base/philox.h"
#undef PORTA_PHILOX_FN

inline std::array<std::uint32_t, 4> philox4x32_10(std::uint64_t index, std::uint64_t stream, std::uint64_t seed) {
  const porta_u32x4 x = porta_philox(index, stream, seed);
  return {x.x0, x.x1, x.x2, x.x3};
}

inline float uniform01_f32(std::uint32_t x) { return porta_u01_f32(x); }
inline double uniform01_f64(std::uint32_t x0, std::uint32_t x1) { return porta_u01_f64(x0, x1); }

// The element -> (counter, word) map: base/philox.h.
inline float philox_uniform_f32(std::uint64_t index, std::uint64_t stream, std::uint64_t seed) {
  return porta_uniform_f32(index, stream, seed);
}
inline double philox_uniform_f64(std::uint64_t index, std::uint64_t stream, std::uint64_t seed) {
  return porta_uniform_f64(index, stream, seed);
}
// Box-Muller's radius and angle, apart so that a generator can compute them once for the two
// values of a pair.
inline float box_muller_radius_f32(std::uint32_t a) { return std::sqrt(-2.0f * std::log(1.0f - uniform01_f32(a))); }
inline float box_muller_angle_f32(std::uint32_t b) { return 6.2831853071795864769f * uniform01_f32(b); }
inline float box_muller_f32(std::uint32_t a, std::uint32_t b, bool odd) {
  float r = box_muller_radius_f32(a), theta = box_muller_angle_f32(b);
  return r * (odd ? std::sin(theta) : std::cos(theta));
}
inline float philox_normal_f32(std::uint64_t index, std::uint64_t stream, std::uint64_t seed) {
  auto x = philox4x32_10(index >> 2, stream, seed);
  const std::size_t w = index & 2;
  return box_muller_f32(x[w], x[w + 1], (index & 1) != 0);
}
inline double box_muller_radius_f64(std::uint32_t x0, std::uint32_t x1) {
  return std::sqrt(-2.0 * std::log(1.0 - uniform01_f64(x0, x1)));
}
inline double box_muller_angle_f64(std::uint32_t x2, std::uint32_t x3) {
  return 6.283185307179586476925286766559 * uniform01_f64(x2, x3);
}
inline double box_muller_f64(const std::array<std::uint32_t, 4>& x, bool odd) {
  double r = box_muller_radius_f64(x[0], x[1]), theta = box_muller_angle_f64(x[2], x[3]);
  return r * (odd ? std::sin(theta) : std::cos(theta));
}
inline double philox_normal_f64(std::uint64_t index, std::uint64_t stream, std::uint64_t seed) {
  return box_muller_f64(philox4x32_10(index >> 1, stream, seed), (index & 1) != 0);
}

}  // namespace porta::detail
