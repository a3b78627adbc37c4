// Counter-based random numbers: uniform gives the same bits on every device and matches the
// host reference (src/base/philox.hpp); normal agrees to ~1e-6; scaling, dtypes, streams, statistics.
#include "test_common.hpp"
#include "typed_host.hpp"

#include <cmath>
#include <cstring>

#include "base/philox.hpp"

namespace porta_test {
namespace {

using porta::random::Generator;

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// The bits uniform(shape, low, high, t) must have for stream `stream` (random.hpp: low + (high -
// low) * u with one fused multiply-add in float32 or float64; float16/bfloat16 round from float32).
std::vector<std::uint64_t> uniform_reference(std::uint64_t seed, std::uint64_t stream, std::int64_t n, double low, double high,
                                             DType t) {
  std::vector<std::uint64_t> out;
  for (std::int64_t i = 0; i < n; ++i) {
    auto idx = static_cast<std::uint64_t>(i);
    if (t == DType::float64) {
      double u = porta::detail::philox_uniform_f64(idx, stream, seed);
      if (low != 0 || high != 1) u = std::fma(u, high - low, low);
      std::uint64_t b;
      std::memcpy(&b, &u, 8);
      out.push_back(b);
      continue;
    }
    float u = porta::detail::philox_uniform_f32(idx, stream, seed);
    if (low != 0 || high != 1) u = std::fma(u, static_cast<float>(high - low), static_cast<float>(low));
    if (t == DType::float32) out.push_back(bits_of(u));
    else if (t == DType::float16) out.push_back(porta::half(u).bits);
    else out.push_back(porta::bfloat16(u).bits);
  }
  return out;
}

std::vector<std::uint64_t> bits(const HostArray& h) {
  std::vector<std::uint64_t> out;
  for (std::int64_t i = 0; i < h.size(); ++i) out.push_back(h.bits(i));
  return out;
}

// Every device present draws the same uniform bits as the host reference, so as each other.
TEST(RandomAcrossDevices, UniformIsTheSameBitsOnEveryDevice) {
  std::random_device rd;
  const std::uint64_t seed = (static_cast<std::uint64_t>(rd()) << 32) | rd();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // CPU devices write 64 float32 (32 float64) a work-item: sizes with a partial last work-item
  // whose vectors are whole, partial or absent, and one element.
  for (const std::int64_t n : {std::int64_t{4099}, std::int64_t{4133}, std::int64_t{1}, std::int64_t{95}}) {
    SCOPED_TRACE("n " + std::to_string(n));
    std::vector<std::pair<std::string, HostArray>> first_draws;
    for (const Device& d : porta::devices()) {
      for (DType t : kFloatDTypes) {
        if (!d.supports(t)) continue;
        Generator g(seed);
        HostArray a = fetch(g.uniform({n}, 0.0, 1.0, t, d));
        HostArray b = fetch(g.uniform({n}, -2.0, 3.0, t, d));
        EXPECT_EQ(bits(a), uniform_reference(seed, 0, n, 0, 1, t)) << d.spec() << " " << porta::name(t) << " uniform [0, 1)";
        EXPECT_EQ(bits(b), uniform_reference(seed, 1, n, -2, 3, t)) << d.spec() << " " << porta::name(t) << " uniform [-2, 3)";
        if (t == DType::float32) first_draws.emplace_back(d.spec(), a);
      }
    }
    for (std::size_t k = 1; k < first_draws.size(); ++k)
      EXPECT_EQ(first_draws[k].second.bytes, first_draws[0].second.bytes) << first_draws[k].first << " against " << first_draws[0].first;
  }
}

// Draws long enough that every work-item of a GPU's grid-stride loop runs several iterations
// (the H200 launches about 2^20 threads, each two vectors of four float32 an iteration), with a
// partial last vector: the same bits as the host reference.
TEST(RandomAcrossDevices, LargeDrawsAreTheSameBitsOnEveryDevice) {
  std::random_device rd;
  const std::uint64_t seed = (static_cast<std::uint64_t>(rd()) << 32) | rd();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::int64_t n = (std::int64_t{1} << 24) + 7;
  for (DType t : {DType::float32, DType::float64}) {
    const std::vector<std::uint64_t> ref = uniform_reference(seed, 0, n, -1, 2, t);
    for (const Device& d : porta::devices()) {
      if (!d.supports(t)) continue;
      EXPECT_EQ(bits(fetch(Generator(seed).uniform({n}, -1.0, 2.0, t, d))), ref) << d.spec() << " " << porta::name(t);
    }
  }
}

// normal: the reference's Box-Muller up to the last bits of each device's log, sqrt and cos.
TEST(RandomAcrossDevices, NormalAgreesWithReferenceOnEveryDevice) {
  std::random_device rd;
  const std::uint64_t seed = (static_cast<std::uint64_t>(rd()) << 32) | rd();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const std::int64_t n : {std::int64_t{4099}, std::int64_t{4133}}) {
    SCOPED_TRACE("n " + std::to_string(n));
    for (const Device& d : porta::devices()) {
      for (DType t : {DType::float32, DType::float64}) {
        if (!d.supports(t)) continue;
        Generator g(seed);
        HostArray z = fetch(g.normal({n}, 0.0, 1.0, t, d));
        HostArray s = fetch(g.normal({n}, 3.0, 0.5, t, d));
        std::vector<double> ref(static_cast<std::size_t>(n)), sref(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) {
          auto idx = static_cast<std::uint64_t>(i);
          ref[static_cast<std::size_t>(i)] = t == DType::float64 ? porta::detail::philox_normal_f64(idx, 0, seed)
                                                                  : porta::detail::philox_normal_f32(idx, 0, seed);
          sref[static_cast<std::size_t>(i)] = 3.0 + 0.5 * (t == DType::float64 ? porta::detail::philox_normal_f64(idx, 1, seed)
                                                                                 : porta::detail::philox_normal_f32(idx, 1, seed));
        }
        Tolerance tol = t == DType::float64 ? Tolerance{1e-12, 1e-12} : Tolerance{2e-6, 2e-6};
        EXPECT_TRUE(values_match(z, ref, tol)) << d.spec() << " " << porta::name(t) << " normal(0, 1)";
        EXPECT_TRUE(values_match(s, sref, tol)) << d.spec() << " " << porta::name(t) << " normal(3, 0.5)";
      }
    }
  }
}

using Random = DeviceTest;

TEST_P(Random, UniformStatisticsAndRange) {
  const std::int64_t n = 1 << 18;
  poison(dev(), std::size_t{4} << 20);
  Generator g(seed());
  for (DType t : kFloatDTypes) {
    if (!dev().supports(t)) continue;
    HostArray u = fetch(g.uniform({n}, 0.0, 1.0, t, dev()));
    double sum = 0, sq = 0, lo = 1, hi = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      double x = u.value(i);
      sum += x;
      sq += x * x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    double mean = sum / n, var = sq / n - mean * mean;
    EXPECT_NEAR(mean, 0.5, 0.005) << porta::name(t);
    EXPECT_NEAR(var, 1.0 / 12, 0.003) << porta::name(t);
    EXPECT_GE(lo, 0.0) << porta::name(t);
    // float16/bfloat16 round from float32, so 1 itself can appear there (as in NumPy's float16 casts).
    if (t == DType::float32 || t == DType::float64) {
      EXPECT_LT(hi, 1.0) << porta::name(t);
    }
    EXPECT_LE(hi, 1.0) << porta::name(t);
    EXPECT_LT(lo, 0.001) << porta::name(t);
    EXPECT_GT(hi, 0.99) << porta::name(t);
  }
  // low/high scaling.
  HostArray s = fetch(g.uniform({n}, -5.0, -3.0, DType::float32, dev()));
  double sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    EXPECT_GE(s.value(i), -5.0);
    EXPECT_LE(s.value(i), -3.0);
    sum += s.value(i);
  }
  EXPECT_NEAR(sum / n, -4.0, 0.01);
}

TEST_P(Random, NormalStatistics) {
  const std::int64_t n = 1 << 18;
  poison(dev(), std::size_t{4} << 20);
  Generator g(seed());
  for (DType t : kFloatDTypes) {
    if (!dev().supports(t)) continue;
    HostArray z = fetch(g.normal({n}, 3.0, 2.0, t, dev()));
    double sum = 0, sq = 0;
    std::int64_t beyond = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      double x = z.value(i);
      ASSERT_TRUE(std::isfinite(x)) << porta::name(t) << " element " << i;
      sum += x;
      sq += x * x;
      if (std::fabs(x - 3.0) > 2 * 2.0) ++beyond;
    }
    double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
    EXPECT_NEAR(mean, 3.0, 0.02) << porta::name(t);
    EXPECT_NEAR(sd, 2.0, 0.02 * (t == DType::bfloat16 ? 2 : 1)) << porta::name(t);
    // About 4.55% of a normal distribution lies beyond two standard deviations.
    EXPECT_NEAR(static_cast<double>(beyond) / n, 0.0455, 0.004) << porta::name(t);
  }
}

// Streams: each draw of a generator differs; the same seed repeats; the element index is the
// row-major index of the shape; seed() makes the global generator repeatable.
TEST_P(Random, SeedsStreamsAndShapes) {
  const std::uint64_t s = seed();
  Generator g1(s), g2(s), other(s + 1);
  HostArray a1 = fetch(g1.uniform({1000}, 0.0, 1.0, DType::float32, dev()));
  HostArray a2 = fetch(g1.uniform({1000}, 0.0, 1.0, DType::float32, dev()));
  HostArray b1 = fetch(g2.uniform({1000}, 0.0, 1.0, DType::float32, dev()));
  HostArray c1 = fetch(other.uniform({1000}, 0.0, 1.0, DType::float32, dev()));
  EXPECT_EQ(a1.bytes, b1.bytes) << "the same seed gives the same first draw";
  EXPECT_NE(a1.bytes, a2.bytes) << "a second draw uses a new stream";
  EXPECT_NE(a1.bytes, c1.bytes) << "another seed gives other numbers";
  EXPECT_EQ(g1.seed(), s);
  // A 2-D draw is the 1-D draw of its row-major indices.
  Generator g3(s);
  HostArray m = fetch(g3.uniform({10, 100}, 0.0, 1.0, DType::float32, dev()));
  EXPECT_EQ(m.shape, (Shape{10, 100}));
  EXPECT_EQ(m.bytes, a1.bytes);
  // A draw feeds a fused expression like any array.
  Generator g4(s);
  HostArray e = fetch(g4.uniform({1000}, 0.0, 1.0, DType::float32, dev()) * 2.0f - 1.0f);
  for (std::int64_t i = 0; i < 1000; i += 37) EXPECT_FLOAT_EQ(static_cast<float>(e.value(i)), static_cast<float>(a1.value(i) * 2 - 1));
  // The global generator.
  porta::random::seed(s);
  HostArray gl = fetch(porta::random::uniform({1000}, 0.0, 1.0, DType::float32, dev()));
  EXPECT_EQ(gl.bytes, a1.bytes) << "random::seed(s) then uniform() is Generator(s)'s first draw";
  HostArray gn = fetch(porta::random::normal({1000}, 0.0, 1.0, DType::float32, dev()));
  EXPECT_EQ(gn.size(), 1000);
  // Empty shapes and errors.
  EXPECT_EQ(g1.uniform({0}, 0.0, 1.0, DType::float32, dev()).size(), 0);
  EXPECT_THROW((void)g1.uniform({4}, 0.0, 1.0, DType::int32, dev()), porta::DTypeError);
  EXPECT_THROW((void)g1.normal({4}, 0.0, 1.0, DType::boolean, dev()), porta::DTypeError);
  EXPECT_THROW((void)g1.uniform({4}, 2.0, 1.0, DType::float32, dev()), porta::InvalidArgument) << "high below low";
  EXPECT_THROW((void)g1.normal({4}, 0.0, -1.0, DType::float32, dev()), porta::InvalidArgument) << "negative stddev";
}

// One Philox call serves four float32 (two float64) consecutive elements, but an element's value
// depends only on its index: a slice or a transposed view of a lazy draw, a draw fused with a
// misaligned float64 operand (other vector widths), a reduction of a draw and a strided
// evaluation all see the whole draw's values.
TEST_P(Random, EveryEvaluationPathGivesEachElementItsOwnValue) {
  const std::uint64_t s = seed();
  const std::int64_t n = 4103;
  const std::vector<std::uint64_t> ref = uniform_reference(s, 0, n, 0, 1, DType::float32);
  auto ref_value = [&](std::int64_t i) {
    float f;
    auto b = static_cast<std::uint32_t>(ref[static_cast<std::size_t>(i)]);
    std::memcpy(&f, &b, 4);
    return static_cast<double>(f);
  };
  auto draw = [&](Shape shape) { return Generator(s).uniform(std::move(shape), 0.0, 1.0, DType::float32, dev()); };

  HostArray sl = fetch(draw({n}).slice({porta::Slice{5, n, 3}}));
  for (std::int64_t k = 0; k < sl.size(); ++k) ASSERT_EQ(sl.value(k), ref_value(5 + 3 * k)) << "slice element " << k;

  const std::int64_t rows = 37, cols = 109;  // 4033 elements
  HostArray tr = fetch(draw({rows, cols}).transpose() + 0.0f);
  for (std::int64_t j = 0; j < cols; ++j)
    for (std::int64_t i = 0; i < rows; ++i)
      ASSERT_EQ(tr.value(j * rows + i), ref_value(i * cols + j)) << "transposed element (" << j << ", " << i << ")";

  std::vector<double> normal_ref(static_cast<std::size_t>(n - 7));
  for (std::int64_t i = 7; i < n; ++i)
    normal_ref[static_cast<std::size_t>(i - 7)] = porta::detail::philox_normal_f32(static_cast<std::uint64_t>(i), 0, s);
  HostArray nl = fetch(Generator(s).normal({n}, 0.0, 1.0, DType::float32, dev()).slice({porta::Slice{7, n, 1}}));
  EXPECT_TRUE(values_match(nl, normal_ref, Tolerance{2e-6, 2e-6})) << "a slice of a normal draw";

  double total = 0;
  for (std::int64_t i = 0; i < n; ++i) total += ref_value(i);
  EXPECT_NEAR(porta::sum(draw({n})).item<float>(), total, 1e-3) << "a reduction of a lazy draw";

  if (!dev().supports(DType::float64)) return;
  std::vector<double> xv;
  Array x = random_array({n + 1}, DType::float64, -1.0, 1.0, &xv).slice({porta::Slice{1, n + 1, 1}});
  HostArray fused = fetch(draw({n}) + x);
  ASSERT_EQ(fused.dtype, DType::float64);
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_EQ(fused.value(i), ref_value(i) + xv[static_cast<std::size_t>(i + 1)]) << "fused with a float64 view, element " << i;
  HostArray d = fetch(Generator(s).uniform({n}, 0.0, 1.0, DType::float64, dev()).slice({porta::Slice{3, n, 2}}));
  for (std::int64_t k = 0; k < d.size(); ++k)
    ASSERT_EQ(d.value(k), porta::detail::philox_uniform_f64(static_cast<std::uint64_t>(3 + 2 * k), 0, s)) << "float64 slice element " << k;
}

// The host reference's map from element to (counter, word), past 2^32 counters: element 4c + w of
// a float32 draw is word w of Philox block c; float64 element 2c + h takes words 2h and 2h + 1.
TEST(RandomReference, ElementsTakeTheWordsOfTheirCounterPast2To32) {
  const std::uint64_t seed = 0x0123456789abcdefULL, stream = 7;
  for (std::uint64_t c : {std::uint64_t{0}, std::uint64_t{1} << 32, (std::uint64_t{1} << 40) + 3}) {
    const auto x = porta::detail::philox4x32_10(c, stream, seed);
    for (std::uint64_t w = 0; w < 4; ++w)
      EXPECT_EQ(porta::detail::philox_uniform_f32(4 * c + w, stream, seed), porta::detail::uniform01_f32(x[w])) << c << " " << w;
    for (std::uint64_t h = 0; h < 2; ++h)
      EXPECT_EQ(porta::detail::philox_uniform_f64(2 * c + h, stream, seed), porta::detail::uniform01_f64(x[2 * h], x[2 * h + 1]));
  }
  // Different counters give different blocks (the high word of the counter is used).
  EXPECT_NE(porta::detail::philox4x32_10(1, stream, seed), porta::detail::philox4x32_10((std::uint64_t{1} << 32) | 1, stream, seed));
}

PORTA_INSTANTIATE_DEVICES(Random);

// random::integers for every integer dtype: against the host's formula (low + floor(F r / 2^128),
// F the four Philox words of counter e, here through two 128-bit products, not the kernels'
// 32-bit limbs), so every device gives the same bits as the host; NumPy's errors. Every integer
// dtype on every device, a few ranges each (the whole dtype, a small one, one at the top end).
using RandomIntegers = DeviceDTypeTest;
__extension__ typedef __int128 i128;  // GCC and Clang: pedantic mode knows it as an extension
__extension__ typedef unsigned __int128 u128;

i128 bound_value(const Generator::IntegerBound& b) {
  if (b.two_to_64) return static_cast<i128>(1) << 64;
  return b.big_unsigned ? static_cast<i128>(static_cast<std::uint64_t>(b.bits)) : static_cast<i128>(b.bits);
}

// Element e of a draw of stream `stream` under `seed`, as the int64 bits of its value.
std::int64_t reference_integer(std::uint64_t seed, std::uint64_t stream, std::int64_t e, i128 low, i128 high) {
  const auto w = porta::detail::philox4x32_10(static_cast<std::uint64_t>(e), stream, seed);
  const u128 fh = (static_cast<u128>(w[0]) << 32) | w[1], fl = (static_cast<u128>(w[2]) << 32) | w[3];
  const u128 r = static_cast<u128>(high - low);
  // floor((fh 2^64 + fl) r / 2^128) = floor((fh r + floor(fl r / 2^64)) / 2^64), each below 2^128.
  const u128 top = (fh * r + ((fl * r) >> 64)) >> 64;
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(static_cast<u128>(low) + top));
}

TEST_P(RandomIntegers, EveryIntegerDTypeGivesTheHostsBits) {
  PORTA_REQUIRE_DTYPE(dtype());
  const DType t = dtype();
  const porta::IntInfo info = porta::iinfo(t);
  using B = Generator::IntegerBound;
  const B top = t == DType::uint64 ? B::two_to_the_64() : B::of(info.max);
  auto above = [&](B b) {  // b + 1 as a bound
    if (b.two_to_64) return b;
    if (t == DType::uint64) return static_cast<std::uint64_t>(b.bits) == UINT64_MAX ? B::two_to_the_64() : B::of(static_cast<std::uint64_t>(b.bits) + 1);
    if (b.bits == INT64_MAX) return B::of(std::uint64_t{1} << 63);  // int64's whole range ends at 2^63
    return B::of(b.bits + 1);
  };
  const B whole_high = t == DType::uint64 ? top : above(top);
  const B low_small = B::of(porta::is_signed_integer(t) ? -3 : 0);
  const std::int64_t top_low = static_cast<std::int64_t>(info.max - 2);
  const std::vector<std::pair<B, B>> ranges{{B::of(info.min), whole_high}, {low_small, B::of(5)}, {B::of(static_cast<std::uint64_t>(top_low)), whole_high},
                                            {B::of(7), B::of(8)}};
  const std::uint64_t seed = 0x5eed0000u + static_cast<std::uint64_t>(t);
  Generator g(seed);
  std::uint64_t stream = 0;
  for (const auto& [low, high] : ranges) {
    for (std::int64_t n : {std::int64_t{1001}, std::int64_t{1}}) {
      Array a = g.integers_in({n}, low, high, t, dev());
      const std::uint64_t s = stream++;
      EXPECT_EQ(a.dtype(), t);
      const Bytes got = bytes_of(a);
      for (std::int64_t e = 0; e < n; ++e) {
        const std::int64_t want = reference_integer(seed, s, e, bound_value(low), bound_value(high));
        Bytes w(porta::itemsize(t));
        set_int(t, w, 0, want);
        ASSERT_EQ(int_at(t, got, e), int_at(t, w, 0)) << "element " << e << " of [" << element_text(t, w, 0) << "...)";
      }
    }
  }
  // A whole-range draw takes both halves of the dtype (no bit stuck).
  if (porta::is_signed_integer(t)) {
    const Bytes b = bytes_of(g.integers_in({4001}, B::of(info.min), whole_high, t, dev()));
    ++stream;
    bool neg = false, pos = false;
    for (std::int64_t e = 0; e < 4001; ++e) (int_at(t, b, e) < 0 ? neg : pos) = true;
    EXPECT_TRUE(neg && pos);
  }
  EXPECT_EQ(g.integers_in({0}, B::of(0), B::of(5), t, dev()).size(), 0);
  // NumPy's ValueErrors: an empty range, bounds outside the dtype; floats are no integer dtype.
  EXPECT_THROW((void)g.integers({3}, 5, 5, t, dev()), porta::InvalidArgument);
  if (t != DType::uint64) {
    EXPECT_THROW((void)g.integers_in({3}, B::of(0), above(whole_high), t, dev()), porta::InvalidArgument);
  }
  if (t != DType::int64) {
    EXPECT_THROW((void)g.integers({3}, info.min - 1, 0, t, dev()), porta::InvalidArgument);
  }
  EXPECT_THROW((void)g.integers({3}, 0, 5, DType::float32, dev()), porta::DTypeError);
}

constexpr DType kIntegerDTypes[] = {DType::int8,  DType::int16,  DType::int32,  DType::int64,
                                    DType::uint8, DType::uint16, DType::uint32, DType::uint64};
PORTA_INSTANTIATE_DEVICES_DTYPES(RandomIntegers, kIntegerDTypes);

}  // namespace
}  // namespace porta_test
