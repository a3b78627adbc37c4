// Index arithmetic past 2^31 and 2^32 elements: every kind of generated kernel (contiguous and
// vector elementwise, strided, broadcast, whole-array and axis reductions, random numbers, GEMM)
// on arrays whose element or byte positions do not fit 32 bits. Each check reads back samples at
// the start, around 2^31 and 2^32 and at the end, and a reduction that sees every element.
//
// These need tens of GiB: they run on devices with at least 64 GiB (the H200: cuda:0 and
// NVIDIA's OpenCL device) and skip elsewhere with a message; PORTA_TEST_LARGE=1 runs them on any
// device (slow on CPU devices), PORTA_TEST_LARGE=0 skips them everywhere.
#include "test_common.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "base/philox.hpp"

namespace porta_test {
namespace {

constexpr std::int64_t k2p31 = std::int64_t{1} << 31;
constexpr std::int64_t k2p32 = std::int64_t{1} << 32;

class LargeArrays : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    const char* env = std::getenv("PORTA_TEST_LARGE");
    const std::string e = env ? env : "";
    if (e == "0") GTEST_SKIP() << "PORTA_TEST_LARGE=0";
    if (e != "1" && (dev().kind() != porta::DeviceKind::gpu || dev().memory_bytes() < (std::uint64_t{64} << 30)))
      GTEST_SKIP() << dev().spec() << " is not a GPU with 64 GiB or more (PORTA_TEST_LARGE=1 runs these anyway)";
  }

  // Positions worth reading back in an array of n elements.
  static std::vector<std::int64_t> probes(std::int64_t n) {
    std::vector<std::int64_t> p;
    for (std::int64_t c : {std::int64_t{0}, k2p31, k2p32, n})
      for (std::int64_t d = -40; d < 40; ++d)
        if (c + d >= 0 && c + d < n) p.push_back(c + d);
    return p;
  }
  // Elements [lo, lo + 64) (clamped) of a 1-D array, as doubles.
  static std::vector<double> window(const Array& a, std::int64_t lo) {
    const std::int64_t n = a.dim(0);
    lo = std::max<std::int64_t>(0, std::min(lo, n - 64));
    return fetch(a.slice({porta::Slice{lo, lo + 64, 1}})).values();
  }
};

// A GEMM whose A holds more than 2^31 elements (rows past the 32-bit element offsets): rows at
// the end of C against a double-precision host product of the same rows. First in the file, so
// that it runs before the other tests have filled the devices' memory caches (NVIDIA's OpenCL
// failed its launch with CL_MEM_OBJECT_ALLOCATION_FAILURE after them).
TEST_P(LargeArrays, MatmulWithOperandPast2To31Elements) {
  for (DType t : {DType::float32, DType::float16}) {
    if (!dev().supports(t)) continue;
    SCOPED_TRACE(porta::name(t));
    const std::int64_t k = 32768, m = k2p31 / k + 64, n = 64;
    Array a = porta::random::uniform({m, k}, -1.0, 1.0, t, dev()).eval();
    Array b = porta::random::uniform({k, n}, -1.0, 1.0, t, dev()).eval();
    Array c = porta::matmul(a, b).eval();
    auto bh = fetch(b).values();
    for (std::int64_t i : {std::int64_t{0}, k2p31 / k, m - 1}) {
      auto ar = fetch(a.slice({porta::Slice{i, i + 1, 1}})).values();
      auto cr = fetch(c.slice({porta::Slice{i, i + 1, 1}})).values();
      for (std::int64_t j = 0; j < n; ++j) {
        double ref = 0, mag = 0;
        for (std::int64_t p = 0; p < k; ++p) {
          ref += ar[static_cast<std::size_t>(p)] * bh[static_cast<std::size_t>(p * n + j)];
          mag += std::abs(ar[static_cast<std::size_t>(p)] * bh[static_cast<std::size_t>(p * n + j)]);
        }
        ASSERT_NEAR(cr[static_cast<std::size_t>(j)], ref, (t == DType::float16 ? 2e-3 : 1e-5) * mag + 1e-3)
            << "C[" << i << ", " << j << "]";
      }
    }
  }
}

// Every dtype, contiguous (the vector fast path) at just over 2^31 elements, and the 1- and
// 2-byte dtypes just over 2^32: y = x * 2 + 1 (bool: !x) checked at the probes, and a sum of
// y - f(x) that must be exactly zero (an element written wrongly or not at all shows up).
// The dtypes: the old seven and a sample of issue 37's integers (one 1-byte, one 2-byte), so
// that the new dtypes do not multiply the GPU time; their paths are the same index arithmetic.
TEST_P(LargeArrays, ContiguousElementwisePast2To31And2To32) {
  std::vector<DType> dtypes(std::begin(kOldDTypes), std::end(kOldDTypes));
  dtypes.insert(dtypes.end(), {DType::uint8, DType::int16});
  for (DType t : dtypes) {
    if (!dev().supports(t)) continue;
    std::vector<std::int64_t> sizes{k2p31 + 16};
    if (porta::itemsize(t) <= 2) sizes.push_back(k2p32 + 16);
    for (std::int64_t n : sizes) {
      SCOPED_TRACE(std::string(porta::name(t)) + " n=" + std::to_string(n));
      // Small whole numbers, exact in every dtype, with no pattern a wrong index could match.
      Array x = porta::floor(porta::random::uniform({n}, 0.0, 7.0, DType::float32, dev())).astype(t).eval();
      Array y = t == DType::boolean ? porta::logical_not(x) : (x * 2 + 1).astype(t);
      y.eval();
      for (std::int64_t lo : {std::int64_t{0}, k2p31 - 32, k2p32 - 32, n - 64}) {
        if (lo >= n) continue;
        auto xs = window(x, lo), ys = window(y, lo);
        for (std::size_t i = 0; i < xs.size(); ++i) {
          const double want = t == DType::boolean ? (xs[i] != 0 ? 0 : 1) : xs[i] * 2 + 1;
          ASSERT_EQ(ys[i], want) << "element " << lo + static_cast<std::int64_t>(i);
        }
      }
      Array diff = t == DType::boolean ? porta::sum(porta::not_equal(y, porta::logical_not(x)).astype(DType::int64))
                                       : porta::sum(porta::abs(y.astype(DType::float64) - (x.astype(DType::float64) * 2 + 1)));
      EXPECT_EQ(diff.astype(DType::float64).item<double>(), 0.0);
    }
  }
}

// A strided view (every other element of 2^32 + 64) and a broadcast over 2^31 + 2 rows.
TEST_P(LargeArrays, StridedAndBroadcastPast2To32) {
  const std::int64_t n = k2p32 + 64;
  Array x = porta::floor(porta::random::uniform({n}, 0.0, 5.0, DType::float32, dev())).astype(DType::boolean).eval();
  Array odd = x.slice({porta::Slice{1, std::nullopt, 2}});  // n / 2 elements, positions past 2^32
  Array y = porta::logical_not(odd).eval();
  auto xs = fetch(x.slice({porta::Slice{n - 128, n, 1}})).values();
  auto ys = window(y, y.dim(0) - 64);
  for (std::size_t i = 0; i < ys.size(); ++i) ASSERT_EQ(ys[i], xs[2 * i + 1] != 0 ? 0 : 1) << "element " << i;

  const std::int64_t rows = k2p31 + 2;
  Array col = porta::random::uniform({rows, 1}, 0.0, 1.0, DType::float32, dev()).astype(DType::float16).eval();
  Array row = porta::random::uniform({1, 2}, 1.0, 2.0, DType::float32, dev()).astype(DType::float16).eval();
  Array b = (col + row).eval();  // (rows, 2): 2^32 + 4 elements, read through a broadcast
  auto r = fetch(row).values();
  for (std::int64_t i : {std::int64_t{0}, k2p31 - 1, k2p31, rows - 1}) {
    auto c = fetch(col.slice({porta::Slice{i, i + 1, 1}})).values();
    auto got = fetch(b.slice({porta::Slice{i, i + 1, 1}})).values();
    for (int j = 0; j < 2; ++j) ASSERT_EQ(got[static_cast<std::size_t>(j)], round_to(DType::float16, c[0] + r[static_cast<std::size_t>(j)])) << "row " << i;
  }
}

// Whole-array and axis reductions over 2^32 + 16 bools and 2^31 + 16 floats: the count of
// ones is known exactly from a second, independent path (the sum of the negation), and the
// argmax finds a maximum planted past 2^31.
TEST_P(LargeArrays, ReductionsPast2To31And2To32) {
  const std::int64_t n = k2p32 + 16;
  Array x = porta::less(porta::random::uniform({n}, 0.0, 1.0, DType::float32, dev()), 0.25).eval();
  const auto ones = porta::sum(x.astype(DType::int64)).item<std::int64_t>();
  const auto zeros = porta::sum(porta::logical_not(x).astype(DType::int64)).item<std::int64_t>();
  EXPECT_EQ(ones + zeros, n);
  EXPECT_NEAR(static_cast<double>(ones) / static_cast<double>(n), 0.25, 1e-3);
  // Along an axis: (2, n / 2) rows summed, and (n / 16, 16) columns summed.
  Array rows = porta::sum(x.reshape({2, n / 2}).astype(DType::int64), 1);
  auto rv = fetch(rows).values();
  EXPECT_EQ(static_cast<std::int64_t>(rv[0] + rv[1]), ones);
  Array cols = porta::sum(x.reshape({n / 16, 16}).astype(DType::int64), 0);
  double cs = 0;
  for (double v : fetch(cols).values()) cs += v;
  EXPECT_EQ(static_cast<std::int64_t>(cs), ones);

  const std::int64_t m = k2p31 + 16;
  Array u = porta::random::uniform({m}, 0.0, 1.0, DType::float32, dev());
  const std::int64_t at = m - 5;
  Array planted = porta::where(porta::equal(porta::arange(m, DType::int64, dev()), at), 2.0, u).eval();
  EXPECT_EQ(porta::argmax(planted).item<std::int64_t>(), at);
  EXPECT_EQ(porta::argmin(porta::negative(planted)).item<std::int64_t>(), at);
  EXPECT_EQ(porta::max(planted).item<float>(), 2.0f);
}

// Random numbers keyed by element index: the bits past 2^31 and 2^32 match the host reference.
TEST_P(LargeArrays, RandomBitsPast2To32MatchTheHost) {
  const std::int64_t n = k2p32 + 16;
  const std::uint64_t seed = this->seed();
  porta::random::Generator g(seed);
  Array u = g.uniform({n}, 0.0, 1.0, DType::float16, dev()).eval();
  for (std::int64_t lo : {std::int64_t{0}, k2p31 - 8, k2p32 - 8}) {
    auto h = fetch(u.slice({porta::Slice{lo, lo + 16, 1}}));
    for (std::int64_t i = 0; i < 16; ++i) {
      float want = porta::detail::philox_uniform_f32(static_cast<std::uint64_t>(lo + i), 0, seed);
      ASSERT_EQ(h.bits(i), porta::half(want).bits) << "element " << lo + i;
    }
  }
}

// Operations on bool arrays that came from the host (no generated producer) just over 2^31
// elements, every element of every result compared on the host.
TEST_P(LargeArrays, BoolOperationsFromHostPast2To31) {
  const std::int64_t n = k2p31 + 16;
  std::vector<std::uint8_t> hx(static_cast<std::size_t>(n)), hy(hx.size());
  std::uint64_t state = seed() | 1;
  for (std::size_t i = 0; i < hx.size(); i += 8) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    for (std::size_t b = 0; b < 8 && i + b < hx.size(); ++b) {
      hx[i + b] = (state >> (8 * b)) & 1;
      hy[i + b] = (state >> (8 * b + 1)) & 1;
    }
  }
  Array x = porta::from_host(hx.data(), DType::boolean, {n}, dev());
  Array y = porta::from_host(hy.data(), DType::boolean, {n}, dev());
  struct Case {
    const char* what;
    Array result;
    std::function<int(int, int)> ref;
  };
  std::vector<Case> cases;
  cases.push_back({"logical_and", porta::logical_and(x, y), [](int a, int b) { return a & b; }});
  cases.push_back({"logical_or", porta::logical_or(x, y), [](int a, int b) { return a | b; }});
  cases.push_back({"logical_xor", porta::logical_xor(x, y), [](int a, int b) { return a ^ b; }});
  cases.push_back({"logical_not", porta::logical_not(x), [](int a, int) { return 1 - a; }});
  cases.push_back({"equal", porta::equal(x, y), [](int a, int b) { return a == b ? 1 : 0; }});
  cases.push_back({"where", porta::where(x, y, false), [](int a, int b) { return a ? b : 0; }});
  cases.push_back({"bitwise_and", porta::bitwise_and(x, y), [](int a, int b) { return a & b; }});
  cases.push_back({"add int32", x.astype(DType::int32) + y.astype(DType::int32), [](int a, int b) { return a + b; }});
  // Every element of the first result, windows at the 2^31 boundary and the end of the others
  // (a whole-array host comparison of each took a minute on the H200 host).
  bool first_case = true;
  for (auto& c : cases) {
    SCOPED_TRACE(c.what);
    const DType t = c.result.dtype();
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges{{0, 64}, {k2p31 - 64, k2p31 + 16}};
    if (first_case) ranges = {{0, n}};
    first_case = false;
    for (auto [lo, hi] : ranges) {
      const std::int64_t count = hi - lo;
      std::vector<std::uint8_t> bytes(static_cast<std::size_t>(count) * porta::itemsize(t));
      Array part = count == n ? c.result : c.result.slice({porta::Slice{lo, hi, 1}});
      part.to_host(t, bytes.data(), bytes.size());
      std::int64_t wrong = 0, first = -1;
      for (std::int64_t i = 0; i < count; ++i) {
        const auto k = static_cast<std::size_t>(i), h = static_cast<std::size_t>(lo + i);
        int got = 0;
        if (t == DType::boolean) got = bytes[k];
        else std::memcpy(&got, &bytes[k * 4], 4);
        if (got != c.ref(hx[h], hy[h]) && wrong++ == 0) first = lo + i;
      }
      EXPECT_EQ(wrong, 0) << "first wrong element " << first;
    }
  }
}

PORTA_INSTANTIATE_DEVICES(LargeArrays);

}  // namespace
}  // namespace porta_test
