// Philox4x32-10 (Salmon et al., Random123) on the host: the reference for the random numbers
// every backend generates (plan.hpp's Op::uniform and Op::normal). The generated device code
// (the prelude in src/codegen/text.cpp) follows this line for line, and the interpreter
// (src/interpreter/ops.cpp) calls these functions.
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace porta::detail {

inline std::array<std::uint32_t, 4> philox4x32_10(std::uint64_t index, std::uint64_t stream, std::uint64_t seed) {
  std::uint32_t c0 = static_cast<std::uint32_t>(index), c1 = static_cast<std::uint32_t>(index >> 32);
  std::uint32_t c2 = static_cast<std::uint32_t>(stream), c3 = static_cast<std::uint32_t>(stream >> 32);
  std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c0;
    std::uint64_t p1 = std::uint64_t{0xCD9E8D57u} * c2;
    std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {c0, c1, c2, c3};
}

inline float uniform01_f32(std::uint32_t x) { return static_cast<float>(x >> 8) * 0x1p-24f; }
inline double uniform01_f64(std::uint32_t x0, std::uint32_t x1) {
  return (static_cast<double>(x0 >> 5) * 67108864.0 + static_cast<double>(x1 >> 6)) * 0x1p-53;
}

// Element index i -> (Philox counter, word): every call's four 32-bit outputs serve consecutive
// elements, so a kernel writing consecutive elements runs one Philox per four float32 values
// (two float64). float32 (and float16/bfloat16, rounded from it): counter i / 4, word i % 4.
// float64: counter i / 2, words 2 (i % 2) and 2 (i % 2) + 1. normal: Box-Muller on a pair of
// uniforms gives two values, r cos(theta) to the even element and r sin(theta) to the odd one;
// float32 takes its pair from words (0, 1) or (2, 3) of counter i / 4, float64 from words
// (0, 1) and (2, 3) of counter i / 2. A value depends only on (seed, stream, i).
inline float philox_uniform_f32(std::uint64_t index, std::uint64_t stream, std::uint64_t seed) {
  return uniform01_f32(philox4x32_10(index >> 2, stream, seed)[index & 3]);
}
inline double philox_uniform_f64(std::uint64_t index, std::uint64_t stream, std::uint64_t seed) {
  auto x = philox4x32_10(index >> 1, stream, seed);
  const std::size_t w = (index & 1) * 2;
  return uniform01_f64(x[w], x[w + 1]);
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
