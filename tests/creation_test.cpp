// Creating arrays (zeros/ones/full/arange/linspace/eye/from_host/empty), converting them
// (astype between every pair of dtypes, float16/bfloat16 rounding) and moving them between
// devices (to(Device) between every pair present).
#include "test_common.hpp"
#include "typed_host.hpp"

#include <cmath>
#include <functional>
#include <cstring>
#include <limits>

namespace porta_test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

using Creation = DeviceDTypeTest;

TEST_P(Creation, ZerosOnesFullAndLikes) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const Tolerance ex = tolerance(t, Accuracy::exact);
  for (Shape s : {Shape{3, 5}, Shape{7}, Shape{}, Shape{0}, Shape{2, 0, 3}, Shape{1, 1, 1}}) {
    std::int64_t n = porta::element_count(s);
    EXPECT_TRUE(array_matches(porta::zeros(s, t, dev()), t, s, std::vector<double>(static_cast<std::size_t>(n), 0), ex)) << shape_str(s);
    EXPECT_TRUE(array_matches(porta::ones(s, t, dev()), t, s, std::vector<double>(static_cast<std::size_t>(n), 1), ex)) << shape_str(s);
  }
  double v = t == DType::boolean ? 1 : porta::is_floating(t) ? -2.5 : porta::is_unsigned_integer(t) ? 7 : -7;
  EXPECT_TRUE(array_matches(porta::full({4, 3}, v, t, dev()), t, {4, 3}, std::vector<double>(12, v), ex));
  Array like_src = porta::full({2, 3}, v, t, dev());
  EXPECT_TRUE(array_matches(porta::zeros_like(like_src), t, {2, 3}, std::vector<double>(6, 0), ex));
  EXPECT_TRUE(array_matches(porta::ones_like(like_src), t, {2, 3}, std::vector<double>(6, 1), ex));
  EXPECT_TRUE(array_matches(porta::full_like(like_src, 1), t, {2, 3}, std::vector<double>(6, 1), ex));
  Array unset = porta::empty_like(like_src.transpose());
  EXPECT_EQ(unset.shape(), (Shape{3, 2}));
  EXPECT_EQ(unset.dtype(), t);
  EXPECT_EQ(unset.device(), dev());
  if (porta::is_floating(t)) unset.fill(v);
  else unset.fill(static_cast<std::int64_t>(v));
  EXPECT_TRUE(array_matches(unset, t, {3, 2}, std::vector<double>(6, v), ex)) << "empty_like, then written";
  if (porta::is_integral(t)) {
    EXPECT_THROW((void)porta::full({2}, 2.5, t, dev()), porta::InvalidArgument) << "a fraction in an integer array";
    // One past each end of the dtype's range (2^bits or 2^(bits-1) above, -1 or -2^bits below).
    const porta::IntInfo info = porta::iinfo(t);
    const double above = std::ldexp(1.0, porta::is_unsigned_integer(t) ? info.bits : info.bits - 1);
    const double below = porta::is_unsigned_integer(t) ? -1.0 : -above * 2;
    for (double bad : {above, below, std::nan(""), HUGE_VAL}) {
      std::string msg = thrown_message<porta::InvalidArgument>([&] { (void)porta::full({2}, bad, t, dev()); });
      EXPECT_NE(msg.find(std::string(porta::name(t))), std::string::npos) << msg;
    }
    const double lowest = static_cast<double>(info.min);
    EXPECT_EQ(porta::full({1}, lowest, t, dev()).astype(DType::float64).item<double>(), lowest) << "the lowest value fits";
  }
  // empty() has the shape and dtype; its values are whatever the memory held.
  Array e = porta::empty({5, 2}, t, dev());
  EXPECT_EQ(e.shape(), (Shape{5, 2}));
  EXPECT_EQ(e.dtype(), t);
  EXPECT_EQ(e.nbytes(), 10 * porta::itemsize(t));
  EXPECT_EQ(e.device(), dev());
}

// Fills of a megabyte and more (GPUs run them as 16-byte stores of porta's own kernel between
// a head and a tail the driver fills): full(), and a number written into a contiguous slice that
// starts off any 16-byte boundary, its neighbours unchanged. Every dtype: patterns of 1, 2, 4
// and 8 bytes.
TEST_P(Creation, LargeFillsAtAnyOffset) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::int64_t item = static_cast<std::int64_t>(porta::itemsize(t));
  const std::int64_t n = (std::int64_t{1} << 20) / item + 21;
  const double v = t == DType::boolean ? 1.0 : porta::is_unsigned_integer(t) ? 3.0 : -3.0;
  EXPECT_TRUE(array_matches(porta::full({n}, v, t, dev()), t, {n}, std::vector<double>(static_cast<std::size_t>(n), v), {0, 0}));
  for (const std::int64_t first : {std::int64_t{0}, std::int64_t{3}, std::int64_t{16}}) {
    std::vector<double> base;
    Array a = random_array({n + 40}, t, 1, 100, &base);
    const std::int64_t last = n + 40 - 5;
    a.slice({porta::Slice{first, last}}).fill(v);
    for (std::int64_t i = first; i < last; ++i) base[static_cast<std::size_t>(i)] = v;
    EXPECT_TRUE(array_matches(a, t, {n + 40}, base, {0, 0})) << "a[" << first << ":" << last << "] = " << v;
  }
}

TEST_P(Creation, FromHostRoundTripsEveryBit) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const Shape s{3, 5, 2};
  std::vector<std::uint8_t> raw(30 * porta::itemsize(t));
  for (auto& b : raw) b = static_cast<std::uint8_t>(random_int(0, 255));
  if (t == DType::boolean)
    for (auto& b : raw) b &= 1;
  Array a = porta::from_host(raw.data(), t, s, dev());
  EXPECT_EQ(a.shape(), s);
  EXPECT_EQ(a.dtype(), t);
  EXPECT_EQ(a.size(), 30);
  EXPECT_TRUE(a.is_evaluated());
  EXPECT_TRUE(a.is_contiguous());
  HostArray h = fetch(a);
  EXPECT_EQ(h.bytes, raw) << "from_host then to_host must give the same bytes (NaN payloads included)";
  // Empty shapes.
  for (Shape es : {Shape{0}, Shape{4, 0}}) {
    Array z = porta::from_host(nullptr, t, es, dev());
    EXPECT_EQ(z.size(), 0);
    EXPECT_EQ(fetch(z).bytes.size(), 0u);
  }
  // A 0-d array holds one element.
  Array scalar = porta::from_host(raw.data(), t, {}, dev());
  EXPECT_EQ(scalar.ndim(), 0);
  EXPECT_EQ(fetch(scalar).bytes, std::vector<std::uint8_t>(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(porta::itemsize(t))));
}

PORTA_INSTANTIATE_DEVICES_DTYPES(Creation, kAllDTypes);

using Ranges = DeviceTest;

// The typed from_host overloads and item().
TEST_P(Ranges, TypedFromHostAndItem) {
  std::vector<std::int32_t> i32 = {1, -2, 3};
  std::vector<std::int64_t> i64 = {1LL << 40, -5};
  std::vector<float> f32 = {1.5f, -0.25f};
  std::vector<double> f64 = {3.25, -1e300};
  EXPECT_EQ(porta::from_host(i32, {3}, dev()).to_vector<std::int32_t>(), i32);
  EXPECT_EQ(porta::from_host(i64, {2}, dev()).to_vector<std::int64_t>(), i64);
  EXPECT_EQ(porta::from_host(f32, {2, 1}, dev()).to_vector<float>(), f32);
  EXPECT_EQ(porta::from_host(f64, {2}, dev()).to_vector<double>(), f64);
  {
    porta::DeviceScope scope(dev());
    EXPECT_EQ(porta::from_host(i32).device(), dev()) << "from_host without a device uses the current device";
    EXPECT_EQ(porta::from_host(i32).shape(), Shape{3});
  }
  if (dev().supports(DType::float16)) {
    std::vector<porta::half> h = {porta::half(1.5f), porta::half(-2.0f)};
    auto back = porta::from_host(h, {2}, dev()).to_vector<porta::half>();
    EXPECT_EQ(back[0].bits, h[0].bits);
    EXPECT_EQ(back[1].bits, h[1].bits);
  }
  if (dev().supports(DType::bfloat16)) {
    std::vector<porta::bfloat16> h = {porta::bfloat16(1.5f), porta::bfloat16(-3.0f)};
    auto back = porta::from_host(h, {2}, dev()).to_vector<porta::bfloat16>();
    EXPECT_EQ(back[1].bits, h[1].bits);
  }
  EXPECT_EQ(porta::from_host(f64, {2}, dev())[1].item<double>(), -1e300);
  EXPECT_EQ(porta::sum(porta::from_host(i32, {3}, dev())).item<std::int64_t>(), 2);
  EXPECT_THROW((void)porta::from_host(i32, {2, 2}, dev()), porta::ShapeError) << "3 elements for 4";
}

TEST_P(Ranges, ArangeBothForms) {
  // arange(n): int64 0 .. n-1, and in other dtypes.
  EXPECT_TRUE(array_matches(porta::arange(6, DType::int64, dev()), DType::int64, {6}, {0, 1, 2, 3, 4, 5}, {0, 0}));
  {
    porta::DeviceScope scope(dev());
    EXPECT_EQ(porta::arange(4).dtype(), DType::int64) << "arange's default dtype";
  }
  for (DType t : {DType::int32, DType::float16, DType::bfloat16, DType::float32, DType::float64}) {
    if (!dev().supports(t)) continue;
    std::vector<double> ref(300);
    for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = round_to(t, static_cast<double>(i));
    EXPECT_TRUE(array_matches(porta::arange(300, t, dev()), t, {300}, ref, {0, 0})) << porta::name(t);
  }
  EXPECT_EQ(porta::arange(0, DType::int64, dev()).shape(), Shape{0});

  struct Case {
    double start, stop, step;
    DType t;
    std::int64_t count;
  };
  for (const Case& c : {Case{0, 1, 0.1, DType::float32, 10}, Case{5, -5, -1.5, DType::float64, 7}, Case{0, 10, 3, DType::int32, 4},
                        Case{3, 3, 1, DType::float32, 0}, Case{1, 0, 1, DType::float32, 0}, Case{-2.5, 2.5, 0.5, DType::float32, 10},
                        Case{0, 1000.5, 1, DType::float64, 1001}}) {
    if (!dev().supports(c.t)) continue;
    std::vector<double> ref(static_cast<std::size_t>(c.count));
    for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = round_to(c.t, c.start + static_cast<double>(i) * c.step);
    EXPECT_TRUE(array_matches(porta::arange(c.start, c.stop, c.step, c.t, dev()), c.t, {c.count}, ref, tolerance(c.t, Accuracy::simple)))
        << "arange(" << c.start << ", " << c.stop << ", " << c.step << ")";
  }
  EXPECT_THROW((void)porta::arange(0, 1, 0, DType::float32, dev()), porta::InvalidArgument) << "step 0";
  EXPECT_THROW((void)porta::arange(-1, DType::int64, dev()), porta::InvalidArgument) << "negative count";
}

TEST_P(Ranges, LinspaceWithAndWithoutEndpoint) {
  Tolerance tol = tolerance(DType::float32, Accuracy::simple);
  EXPECT_TRUE(array_matches(porta::linspace(0, 1, 5, DType::float32, dev()), DType::float32, {5}, {0, 0.25, 0.5, 0.75, 1}, tol));
  EXPECT_TRUE(array_matches(porta::linspace(0, 1, 5, DType::float32, dev(), false), DType::float32, {5}, {0, 0.2, 0.4, 0.6, 0.8}, tol));
  EXPECT_TRUE(array_matches(porta::linspace(2, 3, 1, DType::float32, dev()), DType::float32, {1}, {2}, tol));
  EXPECT_TRUE(array_matches(porta::linspace(2, 3, 0, DType::float32, dev()), DType::float32, {0}, {}, tol));
  EXPECT_TRUE(array_matches(porta::linspace(5, -5, 3, DType::float32, dev()), DType::float32, {3}, {5, 0, -5}, tol));
  if (dev().supports(DType::float64)) {
    std::vector<double> ref(101);
    // Element i is fma(i, step, start) in float64 on every device (one rounding, as NumPy's
    // start + i * step would be where the compiler contracts it); the endpoint is stop exactly.
    const double step = (7.0 - -3.0) / 100.0;
    for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = std::fma(static_cast<double>(i), step, -3.0);
    ref.back() = 7.0;
    Array l = porta::linspace(-3, 7, 101, DType::float64, dev());
    EXPECT_TRUE(array_matches(l, DType::float64, {101}, ref, tolerance(DType::float64, Accuracy::simple)));
    EXPECT_EQ(fetch(l).value(100), 7.0) << "the endpoint is exactly stop";
  }
  // Integer dtypes truncate, as NumPy's linspace(..., dtype=int).
  EXPECT_TRUE(array_matches(porta::linspace(0, 10, 5, DType::int32, dev()), DType::int32, {5}, {0, 2, 5, 7, 10}, {0, 0}));
}

TEST_P(Ranges, EyeWithDiagonalOffsets) {
  struct Case {
    std::int64_t n, m, k;
  };
  for (DType t : {DType::float32, DType::int32, DType::boolean, DType::float64}) {
    if (!dev().supports(t)) continue;
    for (const Case& c : {Case{4, 4, 0}, Case{3, 5, 1}, Case{5, 3, -2}, Case{3, 3, 5}, Case{1, 1, 0}, Case{0, 0, 0}, Case{2, 7, -1},
                          Case{6, 9, 8}}) {
      std::vector<double> ref(static_cast<std::size_t>(c.n * c.m));
      for (std::int64_t r = 0; r < c.n; ++r)
        for (std::int64_t col = 0; col < c.m; ++col) ref[static_cast<std::size_t>(r * c.m + col)] = col - r == c.k ? 1 : 0;
      EXPECT_TRUE(array_matches(porta::eye(c.n, c.m, c.k, t, dev()), t, {c.n, c.m}, ref, {0, 0}))
          << "eye(" << c.n << ", " << c.m << ", " << c.k << ") " << porta::name(t);
    }
    std::vector<double> id(9, 0);
    id[0] = id[4] = id[8] = 1;
    EXPECT_TRUE(array_matches(porta::eye(3, t, dev()), t, {3, 3}, id, {0, 0}));
  }
}

PORTA_INSTANTIATE_DEVICES(Ranges);

// ---- astype ----------------------------------------------------------------------------------

using Astype = DeviceTest;

// Values every dtype holds exactly (whole numbers up to 100, quarters up to 64 in magnitude) and
// fractions whose conversion to integers truncates toward zero.
std::vector<double> castable_values(TestContext& c, DType t, std::int64_t n) {
  if (t == DType::boolean) return c.random_values(n, t, 0, 1);
  std::vector<double> v = c.random_values(n, porta::is_unsigned_integer(t) ? t : DType::int32, -100, 100);
  if (porta::is_floating(t))
    for (std::size_t i = 0; i < v.size(); i += 2) v[i] = c.random_int(-255, 255) / 4.0;
  if (porta::is_floating(t)) {
    const double edge[] = {0, -0.25, 2.5, -3.5, 0.75, -1, 1, 63.75, -63.75, 100};
    for (std::size_t i = 0; i < std::size(edge) && i < v.size(); ++i) v[i] = edge[i];
  }
  return v;
}

// Every (source, target) pair: the conversions to one target are evaluated in one fused kernel.
TEST_P(Astype, EveryPairOfDTypesConverts) {
  const std::int64_t n = 211;
  std::vector<DType> sources;
  std::vector<std::vector<double>> values;
  std::vector<Array> arrays;
  for (DType s : kAllDTypes) {
    if (!dev().supports(s)) continue;
    sources.push_back(s);
    values.push_back(castable_values(*this, s, n));
    arrays.push_back(upload(values.back(), s, {n}, dev()));
  }
  for (DType t : kAllDTypes) {
    if (!dev().supports(t)) {
      EXPECT_THROW((void)arrays[0].astype(t), porta::DTypeError) << "astype to " << porta::name(t) << ", which the device lacks";
      continue;
    }
    std::vector<Array> converted;
    for (auto& a : arrays) {
      converted.push_back(a.astype(t));
      EXPECT_EQ(converted.back().dtype(), t);
      EXPECT_EQ(converted.back().shape(), Shape{n});
    }
    std::vector<int> sel(static_cast<std::size_t>(n));
    for (auto& s : sel) s = random_int(0, static_cast<int>(arrays.size()) - 1);
    HostArray got = evaluate_selected(converted, sel, dev());
    for (std::size_t k = 0; k < sources.size(); ++k) {
      std::vector<bool> mask(static_cast<std::size_t>(n));
      std::vector<double> ref(static_cast<std::size_t>(n));
      for (std::size_t e = 0; e < ref.size(); ++e) {
        mask[e] = sel[e] == static_cast<int>(k);
        // Integers truncate toward zero (from floats saturating: a negative float gives an
        // unsigned 0; from integers wrapping); bool is x != 0.
        const double x = values[k][e];
        ref[e] = porta::is_floating(sources[k]) && porta::is_unsigned_integer(t) && x < 0 ? 0.0 : round_to(t, x);
      }
      EXPECT_TRUE(values_match(got, ref, {0, 0}, &mask, [&](std::int64_t e) { return "from " + std::to_string(values[k][static_cast<std::size_t>(e)]); }))
          << porta::name(sources[k]) << " -> " << porta::name(t);
    }
  }
}

// float32 -> float16/bfloat16 rounds to nearest, ties to even, with overflow to infinity and
// subnormals; NaN stays NaN; float -> bool is x != 0 (NaN is true); int -> float16 rounds.
TEST_P(Astype, HalfAndBfloat16RoundToNearestEven) {
  const std::vector<double> from32 = {
      1 + 0x1p-11, 1 + 3 * 0x1p-11, 2049, 2051, 65519, 65520, -65520, 1e-8, 0x1p-24, 3 * 0x1p-26, 0x1p-25,
      0x1.8p-25, -0.0, kInf, -kInf, 1 + 0x1p-8, 1 + 3 * 0x1p-8, 1 + 0x1p-8 + 0x1p-20, 3.3895314e38, -1.1, 0.1};
  Array a = upload(from32, DType::float32, {static_cast<std::int64_t>(from32.size())}, dev());
  std::vector<double> exact(from32.size());
  for (std::size_t i = 0; i < exact.size(); ++i) exact[i] = static_cast<float>(from32[i]);
  for (DType t : {DType::float16, DType::bfloat16}) {
    if (!dev().supports(t)) continue;
    std::vector<double> ref(from32.size());
    for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = round_to(t, exact[i]);
    HostArray got = fetch(a.astype(t));
    EXPECT_TRUE(values_match(got, ref, {0, 0}, nullptr, [&](std::int64_t e) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "from float32 %a", exact[static_cast<std::size_t>(e)]);
      return std::string(buf);
    })) << "float32 -> " << porta::name(t);
    // Signed zero keeps its sign.
    EXPECT_TRUE(std::signbit(got.value(12))) << "-0.0 -> " << porta::name(t);
    // NaN stays NaN and is true as bool.
    Array nan = upload({kNaN}, DType::float32, {1}, dev());
    EXPECT_TRUE(std::isnan(fetch(nan.astype(t)).value(0)));
    EXPECT_EQ(fetch(nan.astype(DType::boolean)).raw_bool(0), 1) << "NaN as bool is true";
    // Integers round too: 2049 -> 2048 (even), 4099 -> 4100, 65520 -> inf in float16.
    Array ints = upload({2049, 4099, 65520, -3}, DType::int32, {4}, dev());
    std::vector<double> iref = {round_to(t, 2049), round_to(t, 4099), round_to(t, 65520), -3};
    EXPECT_TRUE(values_match(fetch(ints.astype(t)), iref, {0, 0})) << "int32 -> " << porta::name(t);
  }
  // int64 -> float32 rounds once: 2^24 + 1 -> 2^24, 2^53 + 1 -> 2^53 in float64.
  Array big = upload({16777217, 16777219}, DType::int64, {2}, dev());
  EXPECT_TRUE(values_match(fetch(big.astype(DType::float32)), {16777216, 16777220}, {0, 0}));
  std::int64_t b53 = (std::int64_t{1} << 53) + 1;
  Array huge = porta::from_host(&b53, DType::int64, {1}, dev());
  if (dev().supports(DType::float64)) {
    EXPECT_EQ(fetch(huge.astype(DType::float64)).value(0), 9007199254740992.0);
  }
  // float -> int truncates toward zero; int64 -> int32 keeps values that fit.
  Array f = upload({2.9, -2.9, 0.5, -0.5, 1e9, -1e9}, DType::float32, {6}, dev());
  EXPECT_TRUE(values_match(fetch(f.astype(DType::int32)), {2, -2, 0, 0, 1e9, -1e9}, {0, 0}));
  EXPECT_TRUE(values_match(fetch(f.astype(DType::int64)), {2, -2, 0, 0, 1e9, -1e9}, {0, 0}));
  Array l = upload({2147483647, -2147483648.0, 5}, DType::int64, {3}, dev());
  EXPECT_TRUE(values_match(fetch(l.astype(DType::int32)), {2147483647, -2147483648.0, 5}, {0, 0}));
}

// float64 -> float16/bfloat16 rounds once, directly (NumPy's npy_double_to_half): going through
// float32 first rounds twice and gets halfway cases wrong.
TEST_P(Astype, Float64ToHalfRoundsOnce) {
  if (!dev().supports(DType::float64)) GTEST_SKIP() << dev().spec() << " has no float64";
  for (DType t : {DType::float16, DType::bfloat16}) {
    if (!dev().supports(t)) continue;
    const double v = t == DType::float16 ? 1 + 0x1p-11 + 0x1p-40 : 1 + 0x1p-8 + 0x1p-40;  // just above halfway
    Array a = upload({v, -v}, DType::float64, {2}, dev());
    double want = round_to(t, v);
    EXPECT_NE(want, 1.0);
    EXPECT_TRUE(values_match(fetch(a.astype(t)), {want, -want}, {0, 0})) << "float64 -> " << porta::name(t);
  }
}

PORTA_INSTANTIATE_DEVICES(Astype);

// ---- to(Device) --------------------------------------------------------------------------------

// Every ordered pair of devices present, every dtype both have: the bits arrive unchanged; views
// and lazy expressions move as their values.
TEST(DeviceTransfer, EveryPairOfDevicesKeepsEveryBit) {
  auto all = porta::devices();
  std::mt19937_64 rng(std::random_device{}());
  for (const Device& src : all) {
    poison(src);
    for (const Device& dst : all) {
      for (DType t : kAllDTypes) {
        if (!src.supports(t) || !dst.supports(t)) continue;
        std::vector<std::uint8_t> raw(37 * porta::itemsize(t));
        for (auto& b : raw) b = static_cast<std::uint8_t>(rng());
        if (t == DType::boolean)
          for (auto& b : raw) b &= 1;
        Array a = porta::from_host(raw.data(), t, {37}, src);
        Array b = a.to(dst);
        EXPECT_EQ(b.device(), dst);
        EXPECT_EQ(b.dtype(), t);
        EXPECT_EQ(b.shape(), Shape{37});
        EXPECT_EQ(fetch(b).bytes, raw) << src.spec() << " -> " << dst.spec() << " " << porta::name(t);
        EXPECT_EQ(fetch(a).bytes, raw) << "the source is unchanged";
      }
      // A strided view and a lazy expression.
      std::vector<double> v(24);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) - 11.5;
      Array m = upload(v, DType::float32, {4, 6}, src);
      Array view = m.transpose().slice({{1, 6, 2}});  // (3, 4)
      std::vector<double> vref;
      for (int i = 1; i < 6; i += 2)
        for (int j = 0; j < 4; ++j) vref.push_back(v[static_cast<std::size_t>(j * 6 + i)]);
      EXPECT_TRUE(array_matches(view.to(dst), DType::float32, {3, 4}, vref, {0, 0})) << src.spec() << " -> " << dst.spec();
      std::vector<double> lref(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) lref[i] = v[i] * 2 + 1;
      EXPECT_TRUE(array_matches((m * 2.0f + 1.0f).to(dst), DType::float32, {4, 6}, lref, {0, 0})) << src.spec() << " -> " << dst.spec();
      // The moved array computes on its new device.
      Array moved = m.to(dst);
      EXPECT_TRUE(array_matches(moved + moved, DType::float32, {4, 6}, [&] {
        auto r = v;
        for (auto& x : r) x *= 2;
        return r;
      }(), {0, 0}));
      if (src != dst) {
        EXPECT_THROW((void)(m + moved), porta::InvalidArgument) << "arrays on different devices do not mix";
      }
    }
  }
}

// The dtypes of issue 37. from_host / to_host / to_vector<T> / item<T> move every bit (no
// kernel); full, zeros, ones, fill, arange, linspace and eye evaluate scalar and index leaves in
// elementwise kernels; against host values of the C++ types (typed_host.hpp). Every new dtype on
// every device.
using NewDTypeCreation = DeviceDTypeTest;

// One host value of the dtype for a small whole number v (complex: v + 0j).
Bytes value_bytes(DType t, std::int64_t n, const std::function<double(std::int64_t)>& f, const std::function<double(std::int64_t)>& g = {}) {
  Bytes b(static_cast<std::size_t>(n) * porta::itemsize(t));
  for (std::int64_t i = 0; i < n; ++i) {
    if (porta::is_complex(t)) set_complex(t, b, i, f(i), g ? g(i) : 0.0);
    else set_int(t, b, i, static_cast<std::int64_t>(f(i)));
  }
  return b;
}

template <class T> void expect_round_trip(const Device& d, DType t, std::mt19937_64& rng) {
  const std::int64_t n = 37;
  const Bytes b = random_bytes(t, n, rng);
  std::vector<T> host(static_cast<std::size_t>(n));
  std::memcpy(host.data(), b.data(), b.size());
  Array a = porta::from_host(host, {n}, d);
  EXPECT_EQ(a.dtype(), t);
  const std::vector<T> back = a.to_vector<T>();
  EXPECT_EQ(std::memcmp(back.data(), host.data(), b.size()), 0);
  Array one = porta::from_host(std::vector<T>{host[3]}, {}, d);
  const T x = one.item<T>();
  EXPECT_EQ(std::memcmp(&x, &host[3], sizeof(T)), 0);
  // Another C++ type than the dtype's is a DTypeError naming both.
  if constexpr (!std::is_same_v<T, std::int64_t>) EXPECT_THROW((void)a.to_vector<std::int64_t>(), porta::DTypeError);
  else EXPECT_THROW((void)a.to_vector<std::int32_t>(), porta::DTypeError);
}

TEST_P(NewDTypeCreation, FromHostToVectorAndItemKeepEveryBit) {
  PORTA_REQUIRE_DTYPE(dtype());
  std::mt19937_64 rng(77 + static_cast<int>(dtype()));
  switch (dtype()) {
    case DType::int8: expect_round_trip<std::int8_t>(dev(), dtype(), rng); break;
    case DType::int16: expect_round_trip<std::int16_t>(dev(), dtype(), rng); break;
    case DType::uint8: expect_round_trip<std::uint8_t>(dev(), dtype(), rng); break;
    case DType::uint16: expect_round_trip<std::uint16_t>(dev(), dtype(), rng); break;
    case DType::uint32: expect_round_trip<std::uint32_t>(dev(), dtype(), rng); break;
    case DType::uint64: expect_round_trip<std::uint64_t>(dev(), dtype(), rng); break;
    case DType::complex64: expect_round_trip<porta::complex64>(dev(), dtype(), rng); break;
    case DType::complex128: expect_round_trip<porta::complex128>(dev(), dtype(), rng); break;
    default: FAIL() << "not a new dtype";
  }
}

// full's checks run before any kernel: NumPy's OverflowError for a value the dtype cannot hold,
// a fraction for an integer dtype, a complex value for a real dtype.
TEST_P(NewDTypeCreation, FullRejectsValuesTheDTypeCannotHold) {
  PORTA_REQUIRE_DTYPE(dtype());
  const DType t = dtype();
  if (porta::is_complex(t)) {
    EXPECT_THROW((void)porta::full({2}, std::complex<double>(1, 2), DType::float32, dev()), porta::DTypeError);
    return;
  }
  const porta::IntInfo info = porta::iinfo(t);
  if (t != DType::uint64) {
    EXPECT_THROW((void)porta::full({2}, static_cast<std::int64_t>(info.max) + 1, t, dev()), porta::InvalidArgument);
    EXPECT_THROW((void)porta::full({2}, static_cast<double>(info.max) + 1, t, dev()), porta::InvalidArgument);
  } else {
    EXPECT_THROW((void)porta::full({2}, 18446744073709551616.0, t, dev()), porta::InvalidArgument);  // 2^64
  }
  EXPECT_THROW((void)porta::full({2}, info.min - 1.0, t, dev()), porta::InvalidArgument);
  EXPECT_THROW((void)porta::full({2}, std::int64_t{-1}, porta::is_unsigned_integer(t) ? t : DType::uint8, dev()), porta::InvalidArgument);
  EXPECT_THROW((void)porta::full({2}, 0.5, t, dev()), porta::InvalidArgument);
}

// Constants, ranges and identities (elementwise kernels: scalar and index leaves cast to the dtype).
TEST_P(NewDTypeCreation, FullZerosOnesFillArangeLinspaceEye) {
  PORTA_REQUIRE_DTYPE(dtype());
  const DType t = dtype();
  const std::int64_t n = 1001;
  auto same = [&](const Array& a, const Bytes& want, const char* what) {
    EXPECT_EQ(a.dtype(), t) << what;
    EXPECT_TRUE(bytes_of(a) == want) << what;
  };
  same(porta::zeros({n}, t, dev()), value_bytes(t, n, [](std::int64_t) { return 0.0; }), "zeros");
  same(porta::ones({n}, t, dev()), value_bytes(t, n, [](std::int64_t) { return 1.0; }), "ones");
  same(porta::arange(n, t, dev()), value_bytes(t, n, [t](std::int64_t i) { return porta::itemsize(t) == 1 ? static_cast<double>(i % 256) : static_cast<double>(i); }),
       "arange (wrapping where NumPy's arange of int8/uint8 would overflow)");
  same(porta::linspace(0, 100, 101, t, dev()), value_bytes(t, 101, [](std::int64_t i) { return static_cast<double>(i); }), "linspace");
  same(porta::eye(3, 4, 1, t, dev()), value_bytes(t, 12, [](std::int64_t i) { return i % 4 == i / 4 + 1 ? 1.0 : 0.0; }), "eye");
  if (porta::is_complex(t)) {
    same(porta::full({n}, std::complex<double>(-2.5, 0.25), t, dev()), value_bytes(t, n, [](std::int64_t) { return -2.5; }, [](std::int64_t) { return 0.25; }),
         "full of a complex value");
    Array f = porta::zeros({5}, t, dev()).copy();
    f.fill(std::complex<double>(1, -1));
    same(f, value_bytes(t, 5, [](std::int64_t) { return 1.0; }, [](std::int64_t) { return -1.0; }), "fill");
    return;
  }
  const porta::IntInfo info = porta::iinfo(t);
  // Both ends of the dtype, exactly (uint64's max is no double).
  Bytes hi(porta::itemsize(t) * 3), lo(porta::itemsize(t) * 3);
  for (std::int64_t i = 0; i < 3; ++i) {
    set_int(t, hi, i, static_cast<std::int64_t>(info.max));
    set_int(t, lo, i, info.min);
  }
  if (t == DType::uint64) same(porta::full({3}, info.max, t, dev()), hi, "full of uint64's max");
  else same(porta::full({3}, static_cast<std::int64_t>(info.max), t, dev()), hi, "full of the max");
  same(porta::full({3}, info.min, t, dev()), lo, "full of the min");
  Array f = porta::zeros({3}, t, dev()).copy();
  if (t == DType::uint64) f.fill(info.max);
  else f.fill(static_cast<std::int64_t>(info.max));
  same(f, hi, "fill of the max");
}

PORTA_INSTANTIATE_DEVICES_DTYPES(NewDTypeCreation, kNewDTypes);

}  // namespace
}  // namespace porta_test
