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
#include <type_traits>

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
  // Integers on [low, high) of integer dtype t, as NumPy's Generator.integers(low, high, dtype=t):
  // InvalidArgument where high <= low or the range leaves t's (a uint64 high up to 2^64 goes
  // through integers_in); DTypeError for a dtype that is not an integer one. Element e is
  // low + floor(F * (high - low) / 2^128), F the four words of Philox counter e as a 128-bit
  // fraction: the same bits on every device (primitives/random_integers.cpp).
  template <class L, class H>
    requires(std::is_integral_v<L> && std::is_integral_v<H>)
  Array integers(Shape shape, L low, H high, DType t = DType::int64, Device d = current_device()) {
    return integers_in(std::move(shape), IntegerBound::of(low), IntegerBound::of(high), t, std::move(d));
  }
  // An integer bound of either sign up to 2^64 - 1 (or 2^64 for high: IntegerBound::two_to_the_64()).
  struct IntegerBound {
    std::int64_t bits = 0;      // the value, or a uint64's bits where big_unsigned
    bool big_unsigned = false;  // a value above INT64_MAX
    bool two_to_64 = false;     // 2^64 (NumPy's high for the whole uint64 range)
    template <class T> static IntegerBound of(T v) {
      return {static_cast<std::int64_t>(v), std::is_unsigned_v<T> && static_cast<std::int64_t>(v) < 0, false};
    }
    static IntegerBound two_to_the_64() { return {0, false, true}; }
  };
  Array integers_in(Shape shape, IntegerBound low, IntegerBound high, DType t = DType::int64, Device d = current_device());

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
// The process generator's integers (Generator::integers).
Array integers_in(Shape shape, Generator::IntegerBound low, Generator::IntegerBound high, DType t = DType::int64,
                  Device d = current_device());
template <class L, class H>
  requires(std::is_integral_v<L> && std::is_integral_v<H>)
Array integers(Shape shape, L low, H high, DType t = DType::int64, Device d = current_device()) {
  return integers_in(std::move(shape), Generator::IntegerBound::of(low), Generator::IntegerBound::of(high), t, std::move(d));
}

}  // namespace porta::random
