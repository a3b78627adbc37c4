// Philox4x32-10 (Salmon et al., Random123) on the host: the reference for the random numbers
// every backend generates (plan.hpp's Op::uniform and Op::normal). The generated device code
// (src/codegen_random.cpp) follows this line for line.
#pragma once

#include <array>
#include <cmath>
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

inline float philox_uniform_f32(std::uint64_t index, std::uint64_t stream, std::uint64_t seed) {
  return uniform01_f32(philox4x32_10(index, stream, seed)[0]);
}
inline double philox_uniform_f64(std::uint64_t index, std::uint64_t stream, std::uint64_t seed) {
  auto x = philox4x32_10(index, stream, seed);
  return uniform01_f64(x[0], x[1]);
}
inline float philox_normal_f32(std::uint64_t index, std::uint64_t stream, std::uint64_t seed) {
  auto x = philox4x32_10(index, stream, seed);
  float u1 = uniform01_f32(x[0]), u2 = uniform01_f32(x[1]);
  return std::sqrt(-2.0f * std::log(1.0f - u1)) * std::cos(6.2831853071795864769f * u2);
}
inline double philox_normal_f64(std::uint64_t index, std::uint64_t stream, std::uint64_t seed) {
  auto x = philox4x32_10(index, stream, seed);
  double u1 = uniform01_f64(x[0], x[1]), u2 = uniform01_f64(x[2], x[3]);
  return std::sqrt(-2.0 * std::log(1.0 - u1)) * std::cos(6.283185307179586476925286766559 * u2);
}

}  // namespace porta::detail
