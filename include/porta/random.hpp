// Counter-based random numbers (Philox4x32-10), keyed by (seed, stream, element index): the same
// seed gives the same uniform bits on every backend and device, and normal values that agree up
// to the last bits of each device's math library. Each Philox call gives four 32-bit words to
// consecutive elements: float32 (and float16/bfloat16, rounded from it) element i is word i % 4
// of counter i / 4, float64 element i takes two words of counter i / 2, and normal values come in
// Box-Muller pairs (cos to the even element, sin to the odd one), so a generator writes at the
// device's bandwidth. A value depends only on (seed, stream, i): slices and views of a draw agree
// with the whole draw. (Until 2026-12-01 every element took word 0 of its own counter.)
#pragma once

#include <atomic>
#include <cstdint>

#include <porta/array.hpp>

namespace porta::random {

// A seed and a counter of draws: each draw uses a new stream, so draws differ.
class Generator {
 public:
  explicit Generator(std::uint64_t seed) : seed_(seed) {}
  std::uint64_t seed() const { return seed_; }
  // Uniform on [low, high): low + (high - low) * u, computed with one fused multiply-add.
  Array uniform(Shape shape, double low = 0.0, double high = 1.0, DType t = DType::float32,
                Device d = current_device());
  Array normal(Shape shape, double mean = 0.0, double stddev = 1.0, DType t = DType::float32,
               Device d = current_device());

 private:
  std::uint64_t seed_;
  std::atomic<std::uint64_t> next_stream_{0};
};

// The process's generator: seeded from the operating system unless seed() was called.
void seed(std::uint64_t s);
Array uniform(Shape shape, double low = 0.0, double high = 1.0, DType t = DType::float32,
              Device d = current_device());
Array normal(Shape shape, double mean = 0.0, double stddev = 1.0, DType t = DType::float32,
             Device d = current_device());

}  // namespace porta::random
