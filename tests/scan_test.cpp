// Scans: cumsum, cumprod, cumulative_sum/prod, diff; on every device and dtype against host
// references (double precision), including empty, one-element, non-contiguous and odd sizes.
#include "test_common.hpp"
#include "typed_host.hpp"

#include <porta/scan.hpp>

#include <cmath>
#include <string>
#include <tuple>
#include <utility>

#include "primitives/primitives.hpp"

namespace porta_test {
namespace {

using porta::Slice;

// NumPy's cumsum/cumprod dtypes: bool and signed integers accumulate in int64, unsigned ones in uint64.
DType scan_dtype(DType t) {
  if (t == DType::boolean || porta::is_signed_integer(t)) return DType::int64;
  return porta::is_unsigned_integer(t) ? DType::uint64 : t;
}

// Tolerance of a scan of n values of magnitude <= m: rounding of log2(n) + 1 partial sums.
Tolerance scan_tolerance(DType t, double m, std::int64_t n) {
  if (!porta::is_floating(t)) return {0, 0};
  double eps = t == DType::float64 ? 2.2e-16 : t == DType::float32 ? 1.2e-7 : t == DType::bfloat16 ? 7.9e-3 : 9.8e-4;
  double steps = std::ceil(std::log2(static_cast<double>(std::max<std::int64_t>(n, 2)))) + 1;
  return {4 * eps, 2 * steps * eps * m * static_cast<double>(n)};
}

using Scans = DeviceDTypeTest;

TEST_P(Scans, CumsumAlongEachAxisMatchesTheReference) {
  PORTA_REQUIRE_DTYPE(dtype());
  std::vector<double> v;
  Array base = random_array({37, 5}, dtype(), -8, 8, &v);
  Array a = base.transpose();  // (5, 37), non-contiguous
  auto at = [&](int i, int j) { return v[static_cast<std::size_t>(j * 5 + i)]; };
  const DType rt = scan_dtype(dtype());
  for (int axis : {0, 1, -1}) {
    int ax = axis < 0 ? 1 : axis;
    std::vector<double> ref(5 * 37);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 37; ++j) {
        double prev = ax == 0 ? (i ? ref[static_cast<std::size_t>((i - 1) * 37 + j)] : 0) : (j ? ref[static_cast<std::size_t>(i * 37 + j - 1)] : 0);
        ref[static_cast<std::size_t>(i * 37 + j)] = prev + at(i, j);
      }
    EXPECT_TRUE(array_matches(porta::cumsum(a, axis), rt, {5, 37}, ref, scan_tolerance(dtype(), 8, 37))) << "axis " << axis;
  }
  // Flattened, and the standard's name with include_initial.
  std::vector<double> flat;
  double s = 0;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 37; ++j) flat.push_back(s += at(i, j));
  EXPECT_TRUE(array_matches(porta::cumsum(a), rt, {185}, flat, scan_tolerance(dtype(), 8, 185)));
  Array row = a[2];
  std::vector<double> init = {0};
  s = 0;
  for (int j = 0; j < 37; ++j) init.push_back(s += at(2, j));
  EXPECT_TRUE(array_matches(porta::cumulative_sum(row, std::nullopt, true), rt, {38}, init, scan_tolerance(dtype(), 8, 37)));
}

TEST_P(Scans, CumprodMatchesTheReference) {
  PORTA_REQUIRE_DTYPE(dtype());
  std::vector<double> v;
  // Values in [-2, 2] over 13 elements keep products within every dtype's range.
  Array a = random_array({3, 13}, dtype(), -2, 2, &v);
  std::vector<double> ref;
  for (int i = 0; i < 3; ++i) {
    double p = 1;
    for (int j = 0; j < 13; ++j) ref.push_back(p *= v[static_cast<std::size_t>(i * 13 + j)]);
  }
  Tolerance tol = porta::is_floating(dtype()) ? Tolerance{8 * scan_tolerance(dtype(), 1, 1).rtol, 1e-6} : Tolerance{0, 0};
  if (dtype() == DType::float16 || dtype() == DType::bfloat16) tol = {0.05, 0.05};
  EXPECT_TRUE(array_matches(porta::cumprod(a, 1), scan_dtype(dtype()), {3, 13}, ref, tol));
}

TEST_P(Scans, DiffMatchesNumPy) {
  PORTA_REQUIRE_DTYPE(dtype());
  std::vector<double> v;
  Array a = random_array({4, 11}, dtype(), -50, 50, &v);
  std::vector<double> d1, d2;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 10; ++j) {
      double x = v[static_cast<std::size_t>(i * 11 + j)], y = v[static_cast<std::size_t>(i * 11 + j + 1)];
      d1.push_back(dtype() == DType::boolean ? (x != y) : round_to(dtype(), y - x));
    }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 11; ++j) {
      double x = v[static_cast<std::size_t>(i * 11 + j)], y = v[static_cast<std::size_t>((i + 1) * 11 + j)];
      d2.push_back(dtype() == DType::boolean ? (x != y) : round_to(dtype(), y - x));
    }
  EXPECT_TRUE(array_matches(porta::diff(a), dtype(), {4, 10}, d1, {0, 0}));
  EXPECT_TRUE(array_matches(porta::diff(a, 1, 0), dtype(), {3, 11}, d2, {0, 0}));
  EXPECT_EQ(porta::diff(a, 12).shape(), (Shape{4, 0}));
  EXPECT_EQ(porta::diff(a, 0).shape(), (Shape{4, 11}));
}

PORTA_INSTANTIATE_DEVICES_DTYPES(Scans, kAllDTypes);

using ScanRules = DeviceTest;

TEST_P(ScanRules, LongScanEmptyAndOneElement) {
  // 3000 elements: a size that is no power of two, over many doubling steps.
  std::vector<double> v;
  Array a = random_array({3001}, DType::int32, -1000, 1000, &v);
  std::vector<double> ref;
  double s = 0;
  for (double x : v) ref.push_back(s += x);
  EXPECT_TRUE(array_matches(porta::cumsum(a), DType::int64, {3001}, ref, {0, 0}));
  EXPECT_EQ(porta::cumsum(porta::zeros({0, 3}, DType::float32, dev()), 0).shape(), (Shape{0, 3}));
  EXPECT_EQ(porta::cumsum(porta::full({}, 2.5, DType::float32, dev())).item<float>(), 2.5f);
  EXPECT_THROW((void)porta::cumsum(a, 1), porta::InvalidArgument);
  EXPECT_THROW((void)porta::cumulative_sum(porta::zeros({2, 2}, DType::float32, dev())), porta::InvalidArgument);
  EXPECT_THROW((void)porta::diff(a, -1), porta::InvalidArgument);
  // More tiles than one tile holds (2048 x 2048 elements a tile of tile sums): three levels.
  const std::int64_t big = 2048 * 2048 + 2048 * 3 + 7;
  std::vector<double> bv;
  Array b = random_array({big}, DType::int32, -3, 3, &bv);
  std::vector<double> bref;
  s = 0;
  for (double x : bv) bref.push_back(s += x);
  EXPECT_TRUE(array_matches(porta::cumsum(b), DType::int64, {big}, bref, {0, 0}));
  // Many short rows (one tile each) and a column scan of a transposed view.
  std::vector<double> mv;
  Array m = random_array({300, 7}, DType::float64, -1, 1, &mv);
  std::vector<double> mref(2100);
  for (int i = 0; i < 300; ++i)
    for (int j = 0; j < 7; ++j) mref[static_cast<std::size_t>(i * 7 + j)] = mv[static_cast<std::size_t>(i * 7 + j)] + (i ? mref[static_cast<std::size_t>((i - 1) * 7 + j)] : 0);
  EXPECT_TRUE(array_matches(porta::cumsum(m, 0), DType::float64, {300, 7}, mref, {1e-13, 1e-12}));
  // The same bits on every run.
  Array f = random_array({777}, DType::float32, -1, 1);
  EXPECT_EQ(porta::cumsum(f).to_vector<float>(), porta::cumsum(f).to_vector<float>());
}

// A sum of zeros keeps NumPy's sign (its cumsum starts from the first element): -0.0 while every
// zero so far is -0.0, +0.0 from the first +0.0 on. Short rows, rows of many look-back tiles and a
// column scan; float32 and float64.
template <class T> void check_zero_signs(const porta::Device& dev, std::int64_t rows, std::int64_t cols, int axis) {
  std::vector<T> v(static_cast<std::size_t>(rows * cols), T(-0.0));
  const std::int64_t len = axis == 1 ? cols : rows, lines = axis == 1 ? rows : cols;
  auto at = [&](std::int64_t line, std::int64_t k) -> T& {
    return v[static_cast<std::size_t>(axis == 1 ? line * cols + k : k * cols + line)];
  };
  for (std::int64_t l = 0; l < lines; ++l)
    if (l % 3 != 0) at(l, (l * 7919 + 13) % len) = T(0);  // a +0.0 at an odd place; every third line none
  std::vector<T> got = porta::cumsum(porta::from_host(v, {rows, cols}, dev), axis).template to_vector<T>();
  ASSERT_EQ(got.size(), v.size());
  int wrong = 0;
  for (std::int64_t l = 0; l < lines; ++l) {
    bool positive = false;
    for (std::int64_t k = 0; k < len; ++k) {
      positive = positive || !std::signbit(at(l, k));
      const std::size_t q = static_cast<std::size_t>(axis == 1 ? l * cols + k : k * cols + l);
      if (got[q] != T(0) || std::signbit(got[q]) == positive) ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0) << rows << " x " << cols << ", axis " << axis << ": elements whose zero has the wrong sign";
}

TEST_P(ScanRules, SumsOfZerosKeepNumPysSign) {
  for (auto [rows, cols, axis] : {std::tuple<std::int64_t, std::int64_t, int>{4, 9, 1}, {3, 20011, 1}, {2, 70001, 1}, {40, 5, 0}}) {
    check_zero_signs<float>(dev(), rows, cols, axis);
    if (dev().supports(DType::float64)) check_zero_signs<double>(dev(), rows, cols, axis);
  }
}

// Host references of scans along axis `ax` of a row-major array of `shape` (values v).
std::vector<double> host_scan(const std::vector<double>& v, const Shape& shape, int ax, bool product) {
  std::int64_t len = shape[static_cast<std::size_t>(ax)], inner = 1, outer = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (static_cast<int>(d) < ax) outer *= shape[d];
    if (static_cast<int>(d) > ax) inner *= shape[d];
  }
  std::vector<double> r(v.size());
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      double acc = product ? 1 : 0;
      for (std::int64_t k = 0; k < len; ++k) {
        auto q = static_cast<std::size_t>((o * len + k) * inner + i);
        r[q] = acc = product ? acc * v[q] : acc + v[q];
      }
    }
  return r;
}

TEST_P(ScanRules, SinglePassTilesShortRowsAndColumns) {
  // Rows of lengths on both sides of the short-row path (up to 1024 elements a row for 4-byte
  // values, 512 for 8-byte ones: int64 and float64) and of the look-back's tiles (8192 / 4096
  // elements), exact on integers; floats within rounding.
  for (Shape shape : {Shape{9, 511}, Shape{3, 513}, Shape{9, 1023}, Shape{4, 1025}, Shape{5, 4097}, Shape{2, 8193},
                      Shape{2, 24577}, Shape{1000, 3}, Shape{17, 255}, Shape{700, 1}}) {
    for (DType t : {DType::int32, DType::float32, DType::float64}) {
      std::vector<double> v;
      Array a = random_array(shape, t, -100, 100, &v);
      auto ref = host_scan(v, shape, 1, false);
      DType rt = t == DType::int32 ? DType::int64 : t;
      Tolerance tol = t == DType::int32 ? Tolerance{0, 0} : scan_tolerance(t, 100, shape[1]);
      EXPECT_TRUE(array_matches(porta::cumsum(a, 1), rt, shape, ref, tol)) << porta::to_string(shape) << " " << porta::name(t);
    }
  }
  // A row's last tile holding a few elements (CPU devices split a tile into four quarters, the
  // last of them shorter or empty): 1 to 7, and one short of a whole tile; exact on integers.
  for (const std::int64_t r : {1, 2, 3, 5, 6, 7, 4095}) {
    for (DType t : {DType::int32, DType::int64}) {
      const std::int64_t tile = t == DType::int32 ? 8192 : 4096;
      const Shape shape{2, tile + r};
      std::vector<double> v;
      Array a = random_array(shape, t, -100, 100, &v);
      EXPECT_TRUE(array_matches(porta::cumsum(a, 1), DType::int64, shape, host_scan(v, shape, 1, false), {0, 0}))
          << porta::to_string(shape) << " " << porta::name(t);
    }
  }
  // Products over many tiles: +-1 values, exact.
  {
    std::vector<double> v;
    const std::int64_t n = 3 * 4096 + 77;  // four tiles of int64
    Array a = random_array({n}, DType::int64, 0, 1, &v) * 2 - 1;
    for (auto& x : v) x = 2 * x - 1;
    EXPECT_TRUE(array_matches(porta::cumprod(a), DType::int64, {n}, host_scan(v, {n}, 0, true), {0, 0}));
  }
  // Along a middle or first axis: column work-items (many columns) and the transposed path (few).
  for (auto [shape, ax] : std::vector<std::pair<Shape, int>>{{{20, 50, 300}, 1}, {{50, 400}, 0}, {{7, 600}, 0},
                                                            {{16, 1000}, 0}, {{64, 300, 3}, 1}, {{9000, 2}, 0},
                                                            {{3, 5, 7}, 0}}) {
    std::vector<double> v;
    Array a = random_array(shape, DType::int64, -1000, 1000, &v);
    EXPECT_TRUE(array_matches(porta::cumsum(a, ax), DType::int64, shape, host_scan(v, shape, ax, false), {0, 0}))
        << porta::to_string(shape) << " axis " << ax;
    std::vector<double> f;
    Array b = random_array(shape, DType::float32, -1, 1, &f);
    std::int64_t len = shape[static_cast<std::size_t>(ax)];
    EXPECT_TRUE(array_matches(porta::cumsum(b, ax), DType::float32, shape, host_scan(f, shape, ax, false),
                              scan_tolerance(DType::float32, 1, len)))
        << porta::to_string(shape) << " axis " << ax;
  }
}

TEST_P(ScanRules, LongFloatScansAreAccurateAndTheSameOnEveryRun) {
  // 2^20 + 1234 elements: hundreds of tiles whose look-back finds its prefix at different
  // distances from run to run; the fixed order of accumulation gives the same bits every time.
  const std::int64_t n = (std::int64_t{1} << 20) + 1234;
  for (DType t : {DType::float32, DType::float64}) {
    std::vector<double> v;
    Array a = random_array({n}, t, -1, 1, &v);
    Array first = porta::cumsum(a).eval();
    EXPECT_TRUE(array_matches(first, t, {n}, host_scan(v, {n}, 0, false), scan_tolerance(t, 1, n))) << porta::name(t);
    if (t == DType::float32) {
      auto bits = first.to_vector<float>();
      for (int run = 0; run < 4; ++run) EXPECT_EQ(porta::cumsum(a).to_vector<float>(), bits) << "run " << run;
    } else {
      auto bits = first.to_vector<double>();
      for (int run = 0; run < 4; ++run) EXPECT_EQ(porta::cumsum(a).to_vector<double>(), bits) << "run " << run;
    }
  }
  // Several long rows at once: the tiles of different rows interleave in the counter's order.
  std::vector<double> v;
  Array m = random_array({3, 300001}, DType::float32, -1, 1, &v);
  Array r = porta::cumsum(m, 1).eval();
  EXPECT_TRUE(array_matches(r, DType::float32, {3, 300001}, host_scan(v, {3, 300001}, 1, false),
                            scan_tolerance(DType::float32, 1, 300001)));
  EXPECT_EQ(porta::cumsum(m, 1).to_vector<float>(), r.to_vector<float>());
  EXPECT_THROW((void)porta::cumsum(m, 2), porta::InvalidArgument);
}

TEST_P(ScanRules, LookBackTileFitsTheDevicesLocalMemory) {
  // The long-row scan's tile (src/primitives/primitives.hpp): on this device, the largest of 32, 16, ...
  // values a work-item whose kernels' local memory fits what the device reports; launched as a GPU
  // with 48, 32 or 16 KiB of local memory, 32, 16 or 8 (the arrays: primitives/scan.cpp), and a
  // PORTA_SCAN_ITEMS that does not fit is refused with the sizes and what fits.
  namespace pd = porta::detail;
  const pd::DeviceInfo& info = dev().impl().info();
  constexpr int kWindow = 128;
  for (DType t : {DType::int64, DType::float32, DType::float64}) {
    SCOPED_TRACE(porta::name(t));
    if (info.dialect != pd::Dialect::none) {  // Kokkos scans on the host, without tiles
      const int items = pd::scan_items(info, t, std::nullopt, kWindow);
      const std::uint64_t limit = pd::scan_local_limit(info);
      if (limit > 0) {
        EXPECT_LE(pd::scan_local_bytes(info, t, items, kWindow), limit) << items << " items";
        if (items < pd::kScanMaxItems) {
          EXPECT_GT(pd::scan_local_bytes(info, t, 2 * items, kWindow), limit) << items << " items";
        }
      } else {
        EXPECT_EQ(items, pd::kScanMaxItems);
      }
      EXPECT_EQ(pd::scan_items(info, t, items, kWindow), items);
    }
    pd::DeviceInfo gpu = info;
    gpu.kind = porta::DeviceKind::gpu;
    gpu.dialect = pd::Dialect::opencl;
    for (auto [bytes, want] : {std::pair{49152, 32}, std::pair{32768, 16}, std::pair{16384, 8}}) {
      gpu.max_local_bytes = static_cast<std::uint64_t>(bytes);
      EXPECT_EQ(pd::scan_items(gpu, t, std::nullopt, kWindow), want) << bytes << " bytes";
    }
    gpu.max_local_bytes = 32768;
    EXPECT_EQ(pd::scan_items(gpu, t, 16, kWindow), 16);
    try {
      (void)pd::scan_items(gpu, t, 32, kWindow);
      ADD_FAILURE() << "PORTA_SCAN_ITEMS=32 with 32 KiB of local memory was accepted";
    } catch (const porta::InvalidArgument& e) {
      const std::string m = e.what();
      for (const char* part : {"PORTA_SCAN_ITEMS=32", "bytes of local memory", "has 32768", "set PORTA_SCAN_ITEMS to 16 or less"})
        EXPECT_NE(m.find(part), std::string::npos) << m;
    }
    // Less than the smallest tile takes: the window is what to lower.
    gpu.max_local_bytes = 4096;
    try {
      (void)pd::scan_items(gpu, t, std::nullopt, kWindow);
      ADD_FAILURE() << "a tile was chosen for 4 KiB of local memory";
    } catch (const porta::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("PORTA_SCAN_WINDOW lower"), std::string::npos) << e.what();
    }
    // CUDA reports its opt-in maximum (227 KiB on the H200); static shared arrays have 48 KiB.
    gpu.dialect = pd::Dialect::cuda;
    gpu.max_local_bytes = 232448;
    EXPECT_EQ(pd::scan_local_limit(gpu), 49152u);
    EXPECT_EQ(pd::scan_items(gpu, t, std::nullopt, kWindow), 32);
  }
}

PORTA_INSTANTIATE_DEVICES(ScanRules);

// The dtypes of issue 37: NumPy's result dtypes (int8/int16 -> int64, uint8 ... uint64 -> uint64,
// complex stays complex), integers wrapping as NumPy's, complex products as NumPy's formula
// ((a.x b.x - a.y b.y, a.x b.y + a.y b.x), each product rounded), against host loops on the raw
// elements (typed_host.hpp). Narrow integers are cast to the accumulating dtype first (an
// elementwise kernel); uint64 and complex scan straight from the upload.
using NewDTypeScans = DeviceDTypeTest;

DType numpy_scan_dtype(DType t) {
  if (porta::is_signed_integer(t)) return DType::int64;
  if (porta::is_unsigned_integer(t)) return DType::uint64;
  return t;
}

// Host scan of `outer` x `inner` columns of `len` elements of b (dtype t) into NumPy's result dtype's bytes.
Bytes host_scan(DType t, const Bytes& b, std::int64_t outer, std::int64_t len, std::int64_t inner, bool product) {
  const DType rt = numpy_scan_dtype(t);
  Bytes out(static_cast<std::size_t>(outer * len * inner) * porta::itemsize(rt));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      std::uint64_t acc = product ? 1 : 0;
      double rx = 0, ry = 0;
      for (std::int64_t k = 0; k < len; ++k) {
        const std::int64_t p = (o * len + k) * inner + i;
        if (porta::is_complex(t)) {
          const std::complex<double> z = complex_at(t, b, p);
          double bx = z.real(), by = z.imag();
          if (k == 0) {
            rx = bx;
            ry = by;
          } else if (t == DType::complex64) {
            volatile float xx = static_cast<float>(rx) * static_cast<float>(bx), yy = static_cast<float>(ry) * static_cast<float>(by);
            volatile float xy = static_cast<float>(rx) * static_cast<float>(by), yx = static_cast<float>(ry) * static_cast<float>(bx);
            rx = product ? static_cast<float>(xx - yy) : static_cast<float>(static_cast<float>(rx) + static_cast<float>(bx));
            ry = product ? static_cast<float>(xy + yx) : static_cast<float>(static_cast<float>(ry) + static_cast<float>(by));
          } else {
            volatile double xx = rx * bx, yy = ry * by, xy = rx * by, yx = ry * bx;
            const double nx = product ? xx - yy : rx + bx, ny = product ? xy + yx : ry + by;
            rx = nx;
            ry = ny;
          }
          set_complex(rt, out, p, rx, ry);
        } else {
          // Signed values sign-extended, unsigned zero-extended, then wrapping 64-bit arithmetic.
          const auto x = static_cast<std::uint64_t>(int_at(t, b, p));
          acc = product ? acc * x : acc + x;
          set_int(rt, out, p, static_cast<std::int64_t>(acc));
        }
      }
    }
  return out;
}

// Equal bits, except that any NaN matches any NaN (complex parts); with rtol, complex parts
// within rtol of the number's magnitude (products past the first chunk of 512: scan.cpp's
// kComplexChunk, another order of rounding).
::testing::AssertionResult same_elements(DType t, const Bytes& got, const Bytes& want, double rtol = 0) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << got.size() << " bytes, want " << want.size();
  const std::int64_t n = static_cast<std::int64_t>(got.size() / porta::itemsize(t));
  for (std::int64_t i = 0; i < n; ++i) {
    bool ok;
    if (porta::is_complex(t)) {
      auto g = complex_at(t, got, i), w = complex_at(t, want, i);
      const double scale = std::abs(w);
      auto part = [&](double x, double y) {
        return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y)) || std::abs(x - y) <= rtol * scale;
      };
      ok = part(g.real(), w.real()) && part(g.imag(), w.imag());
    } else {
      ok = int_at(t, got, i) == int_at(t, want, i);
    }
    if (!ok) return ::testing::AssertionFailure() << "element " << i << ": " << element_text(t, got, i) << ", want " << element_text(t, want, i);
  }
  return ::testing::AssertionSuccess();
}

// Values for products: complex numbers near the unit circle (long products neither overflow nor
// vanish quickly), integers as random_bytes (wrapping is the point).
Bytes product_bytes(DType t, std::int64_t n, std::mt19937_64& rng) {
  if (!porta::is_complex(t)) return random_bytes(t, n, rng);
  Bytes b(static_cast<std::size_t>(n) * porta::itemsize(t));
  std::uniform_real_distribution<double> angle(0, 6.283185307179586), radius(0.9, 1.1);
  for (std::int64_t i = 0; i < n; ++i) {
    const double a = angle(rng), r = radius(rng);
    set_complex(t, b, i, r * std::cos(a), r * std::sin(a));
  }
  return b;
}

TEST_P(NewDTypeScans, CumsumAndCumprodGiveNumPysDTypesAndValues) {
  PORTA_REQUIRE_DTYPE(dtype());
  const DType t = dtype(), rt = numpy_scan_dtype(t);
  std::mt19937_64 rng(101 + static_cast<int>(t));
  // One element, an odd length, a long row (the look-back over tiles; complex: one work-item a
  // row), rows (axis 1) and columns (axis 0 of a contiguous array: scan_columns).
  // Complex rows past 512 elements go in chunks (scan.cpp's kComplexChunk), past 512 chunks the
  // chunks' totals too: sums of whole numbers stay exact, products within a few roundings a step.
  const double rtol = t == DType::complex64 ? 1e-3 : 1e-11;
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{37}, std::int64_t{512}, std::int64_t{20001}})
    for (bool product : {false, true}) {
      SCOPED_TRACE(::testing::Message() << n << (product ? " cumprod" : " cumsum"));
      const Bytes b = product ? product_bytes(t, n, rng) : random_bytes(t, n, rng);
      Array a = upload_bytes(b, t, {n}, dev());
      Array r = product ? porta::cumprod(a) : porta::cumsum(a);
      EXPECT_EQ(r.dtype(), rt);
      EXPECT_TRUE(same_elements(rt, bytes_of(r), host_scan(t, b, 1, n, 1, product), product && n > 512 ? rtol : 0));
    }
  if (porta::is_complex(t)) {
    const std::int64_t n = 512 * 512 * 2 + 7;
    const Bytes b = random_bytes(t, n, rng);
    EXPECT_TRUE(same_elements(rt, bytes_of(porta::cumsum(upload_bytes(b, t, {n}, dev()))), host_scan(t, b, 1, n, 1, false)))
        << "a row of more than 512 chunks";
  }
  const std::int64_t rows = 9, cols = 301;
  for (bool product : {false, true}) {
    const Bytes b = product ? product_bytes(t, rows * cols, rng) : random_bytes(t, rows * cols, rng);
    Array a = upload_bytes(b, t, {rows, cols}, dev());
    Array along_rows = product ? porta::cumprod(a, 1) : porta::cumsum(a, 1);
    EXPECT_TRUE(same_elements(rt, bytes_of(along_rows), host_scan(t, b, rows, cols, 1, product))) << "axis 1 " << product;
    // Rows of more than one chunk, each chunked apart.
    const std::int64_t wide = 1301;
    const Bytes w = product ? product_bytes(t, 3 * wide, rng) : random_bytes(t, 3 * wide, rng);
    EXPECT_TRUE(same_elements(rt, bytes_of(product ? porta::cumprod(upload_bytes(w, t, {3, wide}, dev()), 1)
                                                   : porta::cumsum(upload_bytes(w, t, {3, wide}, dev()), 1)),
                              host_scan(t, w, 3, wide, 1, product), product ? rtol : 0))
        << "rows of 1301, axis 1 " << product;
    Array along_columns = product ? porta::cumprod(a, 0) : porta::cumsum(a, 0);
    EXPECT_TRUE(same_elements(rt, bytes_of(along_columns), host_scan(t, b, 1, rows, cols, product))) << "axis 0 " << product;
  }
  EXPECT_EQ(porta::cumsum(upload_bytes({}, t, {0}, dev())).dtype(), rt);
  EXPECT_EQ(porta::cumsum(upload_bytes({}, t, {0}, dev())).size(), 0);
}

PORTA_INSTANTIATE_DEVICES_DTYPES(NewDTypeScans, kNewDTypes);

}  // namespace
}  // namespace porta_test
