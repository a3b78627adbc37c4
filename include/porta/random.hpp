// Counter-based random numbers (Philox4x32-10), keyed by (seed, stream, element index): the same
// seed gives the same uniform bits on every backend and device, and normal values that agree up
// to the last bits of each device's math library.
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
