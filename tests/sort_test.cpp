// Sorting and searching: sort, argsort (stable, NaNs last, descending), unique_all, searchsorted,
// topk; on every device and dtype against std::stable_sort on the host.
#include "test_common.hpp"
#include "typed_host.hpp"

#include <porta/sort.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

namespace porta_test {
namespace {

bool total_less(double a, double b) { return a < b || (!std::isnan(a) && std::isnan(b)); }

// Values with many ties, and NaNs in floating dtypes.
std::vector<double> tied_values(TestContext& t, std::int64_t n, DType dt) {
  auto v = t.random_values(n, dt, -6, 6);
  for (auto& x : v) x = dt == DType::boolean ? x : std::round(x / 2);
  if (porta::is_floating(dt))
    for (std::int64_t i = 0; i < n; i += 7) v[static_cast<std::size_t>(i)] = std::numeric_limits<double>::quiet_NaN();
  return v;
}

// Stable order of a row (ascending, NaN last; descending = reversed order, ties kept in place).
std::vector<std::int64_t> stable_order(const std::vector<double>& row, bool descending) {
  std::vector<std::int64_t> o(row.size());
  std::iota(o.begin(), o.end(), 0);
  std::stable_sort(o.begin(), o.end(), [&](std::int64_t x, std::int64_t y) {
    double a = row[static_cast<std::size_t>(x)], b = row[static_cast<std::size_t>(y)];
    return descending ? total_less(b, a) : total_less(a, b);
  });
  return o;
}

using Sorting = DeviceDTypeTest;

TEST_P(Sorting, SortAndArgsortAreStableAlongEachAxis) {
  PORTA_REQUIRE_DTYPE(dtype());
  const std::int64_t rows = 5, cols = 37;
  auto v = tied_values(*this, rows * cols, dtype());
  Array base = upload(v, dtype(), {cols, rows}, dev());
  Array a = base.transpose();  // (5, 37), non-contiguous; a[i, j] = v[j * rows + i]
  auto at = [&](std::int64_t i, std::int64_t j) { return v[static_cast<std::size_t>(j * rows + i)]; };
  for (bool desc : {false, true}) {
    for (int axis : {1, 0}) {
      std::vector<double> ref_v(rows * cols), ref_i(rows * cols);
      std::int64_t lines = axis == 1 ? rows : cols, len = axis == 1 ? cols : rows;
      for (std::int64_t l = 0; l < lines; ++l) {
        std::vector<double> line;
        for (std::int64_t q = 0; q < len; ++q) line.push_back(axis == 1 ? at(l, q) : at(q, l));
        auto o = stable_order(line, desc);
        for (std::int64_t q = 0; q < len; ++q) {
          std::size_t e = static_cast<std::size_t>(axis == 1 ? l * cols + q : q * cols + l);
          ref_i[e] = static_cast<double>(o[static_cast<std::size_t>(q)]);
          ref_v[e] = line[static_cast<std::size_t>(o[static_cast<std::size_t>(q)])];
        }
      }
      EXPECT_TRUE(array_matches(porta::sort(a, axis, desc), dtype(), {rows, cols}, ref_v, {0, 0})) << axis << desc;
      EXPECT_TRUE(array_matches(porta::argsort(a, axis, desc), DType::int64, {rows, cols}, ref_i, {0, 0})) << axis << desc;
    }
  }
}

// Each NaN a value of its own (NumPy 2's unique_all), or all of them one (equal_nan, NumPy's unique).
TEST_P(Sorting, UniqueGivesValuesIndicesInverseAndCounts) {
  PORTA_REQUIRE_DTYPE(dtype());
  auto v = tied_values(*this, 3 * 29, dtype());
  Array a = upload(v, dtype(), {3, 29}, dev());
  for (bool equal_nan : {false, true}) {
    auto r = porta::unique_all(a, equal_nan);
    std::vector<double> vals, idx, counts, inverse(v.size());
    auto o = stable_order(v, false);
    for (std::size_t q = 0; q < o.size(); ++q) {
      double x = v[static_cast<std::size_t>(o[q])];
      bool same = q > 0 && (x == vals.back() || (equal_nan && std::isnan(x) && std::isnan(vals.back())));
      if (!same) {
        vals.push_back(x);
        idx.push_back(static_cast<double>(o[q]));
        counts.push_back(0);
      }
      counts.back() += 1;
      inverse[static_cast<std::size_t>(o[q])] = static_cast<double>(vals.size() - 1);
    }
    const Shape s{static_cast<std::int64_t>(vals.size())};
    EXPECT_TRUE(array_matches(r.values, dtype(), s, vals, {0, 0})) << equal_nan;
    EXPECT_TRUE(array_matches(r.indices, DType::int64, s, idx, {0, 0})) << equal_nan;
    EXPECT_TRUE(array_matches(r.counts, DType::int64, s, counts, {0, 0})) << equal_nan;
    EXPECT_TRUE(array_matches(r.inverse, DType::int64, {3, 29}, inverse, {0, 0})) << equal_nan;
    EXPECT_TRUE(array_matches(porta::unique_values(a, equal_nan), dtype(), s, vals, {0, 0})) << equal_nan;
  }
}

TEST_P(Sorting, SearchsortedAndTopk) {
  PORTA_REQUIRE_DTYPE(dtype());
  auto v = tied_values(*this, 41, dtype());
  std::vector<double> sorted = v;
  std::stable_sort(sorted.begin(), sorted.end(), total_less);
  Array a = upload(sorted, dtype(), {41}, dev());
  auto q = tied_values(*this, 2 * 9, dtype());
  Array qa = upload(q, dtype(), {2, 9}, dev());
  for (bool right : {false, true}) {
    std::vector<double> ref;
    for (double x : q) {
      auto it = right ? std::upper_bound(sorted.begin(), sorted.end(), x, total_less)
                      : std::lower_bound(sorted.begin(), sorted.end(), x, total_less);
      ref.push_back(static_cast<double>(it - sorted.begin()));
    }
    EXPECT_TRUE(array_matches(porta::searchsorted(a, qa, right ? "right" : "left"), DType::int64, {2, 9}, ref, {0, 0}))
        << (right ? "right" : "left");
  }
  Array x = upload(v, dtype(), {41}, dev());
  auto o = stable_order(v, true);
  auto [tv, ti] = porta::topk(x, 5);
  std::vector<double> rv, ri;
  for (int k = 0; k < 5; ++k) {
    ri.push_back(static_cast<double>(o[static_cast<std::size_t>(k)]));
    rv.push_back(v[static_cast<std::size_t>(o[static_cast<std::size_t>(k)])]);
  }
  EXPECT_TRUE(array_matches(tv, dtype(), {5}, rv, {0, 0}));
  EXPECT_TRUE(array_matches(ti, DType::int64, {5}, ri, {0, 0}));
}

// Over a million elements: many tiles and chunks of the radix passes, every digit of each key
// (wide ranges of values), and indices beside them; ascending and descending.
TEST_P(Sorting, LargeSortsCrossTilesChunksAndPasses) {
  PORTA_REQUIRE_DTYPE(dtype());
  const std::int64_t n = (std::int64_t{1} << 20) + 37;
  const DType dt = dtype();
  const double span = dt == DType::int32 ? 2e9 : dt == DType::int64 ? 1e15
                      : dt == DType::float16 || dt == DType::bfloat16 ? 1000 : 1e6;
  auto v = random_values(n, dt, -span, span);
  if (porta::is_floating(dt))
    for (std::int64_t i = 3; i < n; i += 1001) v[static_cast<std::size_t>(i)] = std::numeric_limits<double>::quiet_NaN();
  Array a = upload(v, dt, {n}, dev());
  for (bool desc : {false, true}) {
    auto o = stable_order(v, desc);
    std::vector<double> ref_v(o.size()), ref_i(o.size());
    for (std::size_t q = 0; q < o.size(); ++q) {
      ref_i[q] = static_cast<double>(o[q]);
      ref_v[q] = v[static_cast<std::size_t>(o[q])];
    }
    EXPECT_TRUE(array_matches(porta::sort(a, -1, desc), dt, {n}, ref_v, {0, 0})) << desc;
    EXPECT_TRUE(array_matches(porta::argsort(a, -1, desc), DType::int64, {n}, ref_i, {0, 0})) << desc;
  }
}

// A sample of the dtypes (test_common.hpp): the radix keys of every new dtype are checked below
// (NewDTypeSorting); all 13 here made the test take 437 s of cold PoCL compiles in CI.
PORTA_INSTANTIATE_DEVICES_DTYPES(Sorting, kSampleDTypes);

using SortRules = DeviceTest;

TEST_P(SortRules, OddLengthsEmptyOneElementAndErrors) {
  std::vector<double> v;
  Array a = random_array({1000}, DType::float32, -1, 1, &v);
  std::vector<double> ref = v;
  std::stable_sort(ref.begin(), ref.end(), total_less);
  EXPECT_TRUE(array_matches(porta::sort(a), DType::float32, {1000}, ref, {0, 0}));
  // Several tiles (2048 elements each) and rows that span tiles: int64 keys with ties.
  std::vector<double> w;
  Array b = random_array({3, 5001}, DType::int64, -300, 300, &w);
  std::vector<double> order_ref;
  for (int r = 0; r < 3; ++r) {
    std::vector<double> row(w.begin() + r * 5001, w.begin() + (r + 1) * 5001);
    for (auto i : stable_order(row, false)) order_ref.push_back(static_cast<double>(i));
  }
  EXPECT_TRUE(array_matches(porta::argsort(b), DType::int64, {3, 5001}, order_ref, {0, 0}));
  EXPECT_EQ(porta::sort(porta::zeros({3, 0}, DType::int32, dev())).shape(), (Shape{3, 0}));
  EXPECT_EQ(porta::argsort(porta::full({1}, 4, DType::int32, dev())).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0}));
  EXPECT_EQ(porta::unique_values(porta::zeros({0}, DType::float32, dev())).size(), 0);
  EXPECT_THROW((void)porta::sort(a, 1), porta::InvalidArgument);
  EXPECT_THROW((void)porta::topk(a, 1001), porta::InvalidArgument);
  EXPECT_THROW((void)porta::searchsorted(a.reshape({10, 100}), a), porta::ShapeError);
  EXPECT_THROW((void)porta::searchsorted(a, a, "middle"), porta::InvalidArgument);
  // int64 beyond 2^53 compared exactly.
  const std::int64_t big = std::int64_t{1} << 60;
  Array s = porta::from_host(std::vector<std::int64_t>{big, big + 1, big + 2}, {3}, dev());
  Array q = porta::from_host(std::vector<std::int64_t>{big + 1}, {1}, dev());
  EXPECT_EQ(porta::searchsorted(s, q).to_vector<std::int64_t>(), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(porta::searchsorted(s, q, "right").to_vector<std::int64_t>(), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(porta::argsort(porta::from_host(std::vector<std::int64_t>{big + 2, big, big + 1}, {3}, dev())).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1, 2, 0}));
}

// Sorts of a 1-D array (values and indices) against the host's stable order.
void expect_sorted(const Device& d, const std::vector<double>& v, DType dt) {
  const std::int64_t n = static_cast<std::int64_t>(v.size());
  Array a = upload(v, dt, {n}, d);
  auto o = stable_order(v, false);
  std::vector<double> ref_v, ref_i;
  for (auto i : o) {
    ref_i.push_back(static_cast<double>(i));
    ref_v.push_back(v[static_cast<std::size_t>(i)]);
  }
  EXPECT_TRUE(array_matches(porta::sort(a), dt, {n}, ref_v, {0, 0}));
  EXPECT_TRUE(array_matches(porta::argsort(a), DType::int64, {n}, ref_i, {0, 0}));
}

// The ways a compiling device can sort, as (PORTA_RADIX, PORTA_SORT): the device's own (CPU
// devices: serial chunks, two passes a digit; GPUs: one sweep), the device's ranking with two
// passes (GPUs: sorts of 2^30 elements or more), and the GPUs' two rankings in local memory
// alone (tiled, and ballot, which emulates the warp votes and shuffles) in the one-sweep sort and
// (tiled) in the two-pass one, so that CPU devices check the GPUs' kernels too. Each is its own
// set of kernels to compile, the slow part on PoCL (the auto and twopass ones are the same there).
struct SortWay {
  const char* radix;
  const char* sort;
};
constexpr SortWay kSortWays[] = {{nullptr, nullptr}, {nullptr, "twopass"}, {"tiled", "twopass"}, {"tiled", "onesweep"}, {"ballot", "onesweep"}};
std::string way_name(const SortWay& w) { return std::string(w.radix ? w.radix : "auto") + "/" + (w.sort ? w.sort : "auto"); }

// Passes whose digit is the same for every key (they copy), rows beyond one row-digit, and the
// elements' bits (-0.0 beside 0.0 in their order, NaN payloads), every way of sorting.
TEST_P(SortRules, EqualDigitsRowsAndBitsUnderEveryRanking) {
  for (const SortWay& way : kSortWays) {
    ScopedEnv radix("PORTA_RADIX", way.radix), sort("PORTA_SORT", way.sort);
    SCOPED_TRACE(way_name(way));
    const std::int64_t n = 3 * 4096 + 5;  // several tiles and chunks, and a part of one
    std::vector<double> low(n), mid(n), same(n, 7.0), neg(n);
    for (std::int64_t i = 0; i < n; ++i) {
      int r = random_int(0, 255);
      low[static_cast<std::size_t>(i)] = 0x12345600 + r;           // three passes of one digit
      mid[static_cast<std::size_t>(i)] = 0x11000011 + (r << 8);    // only the second digit varies
      neg[static_cast<std::size_t>(i)] = -1000000 - 65536.0 * r;   // negative, upper digits vary
    }
    for (const auto* v : {&low, &mid, &same, &neg}) expect_sorted(dev(), *v, DType::int32);
    // The rest under the device's own ways and the one-sweep tiled ranking only (PoCL's compiles
    // of each way's float32 kernels cost minutes in CI; NewDTypeSorting sorts rows under ballot).
    if (way.radix && std::string(way.radix) != "tiled") continue;
    if (way.radix && std::string(way.sort) != "onesweep") continue;
    // 300 rows of 7: two passes on the row after the key passes.
    std::vector<double> w;
    Array b = random_array({300, 7}, DType::float32, -3, 3, &w);
    for (auto& x : w) x = std::round(x);
    b = upload(w, DType::float32, {300, 7}, dev());
    std::vector<double> rv, ri;
    const auto cols = static_cast<std::ptrdiff_t>(b.dim(1));
    for (std::ptrdiff_t r = 0; r < 300; ++r) {
      std::vector<double> row(w.begin() + r * cols, w.begin() + (r + 1) * cols);
      for (auto i : stable_order(row, true)) {
        ri.push_back(static_cast<double>(i));
        rv.push_back(row[static_cast<std::size_t>(i)]);
      }
    }
    EXPECT_TRUE(array_matches(porta::sort(b, 1, true), DType::float32, {300, 7}, rv, {0, 0}));
    EXPECT_TRUE(array_matches(porta::argsort(b, 1, true), DType::int64, {300, 7}, ri, {0, 0}));
    // Bits survive: zeros of both signs keep their order, NaNs (any sign or payload) go last in theirs.
    const std::vector<std::uint32_t> bits{0x00000000u, 0x80000000u, 0x7fc00001u, 0xbf800000u,
                                          0x80000000u, 0x00000000u, 0xffc00002u, 0x40000000u};
    const std::vector<std::uint32_t> want{0xbf800000u, 0x00000000u, 0x80000000u, 0x80000000u,
                                          0x00000000u, 0x40000000u, 0x7fc00001u, 0xffc00002u};
    std::vector<float> f(bits.size());
    std::memcpy(f.data(), bits.data(), 4 * bits.size());
    auto got = porta::sort(porta::from_host(f, {8}, dev())).to_vector<float>();
    std::vector<std::uint32_t> got_bits(got.size());
    std::memcpy(got_bits.data(), got.data(), 4 * got.size());
    EXPECT_EQ(got_bits, want);
  }
}

// The one-sweep sort's look-back (PORTA_SORT=onesweep; on CPU devices with the tiled ranking):
// lengths around multiples of its tiles (256 x 24 4-byte keys without indices, 256 x 15 with), many
// tiles (PoCL runs two work-groups at once here, so that tiles wait on running ones), keys that
// are all equal or differ in one digit only (the other passes copy), every digit varying, float
// keys with NaNs, -0.0 and infinities, and rows that span tiles. int32 and float32 only: the
// kernels of the other dtypes are the same text with another key map, which NewDTypeSorting
// checks under this sort.
TEST_P(SortRules, OnesweepAcrossTileBoundaries) {
  ScopedEnv sort("PORTA_SORT", "onesweep");
  for (std::int64_t n : std::vector<std::int64_t>{1, 3839, 3840, 3841, 6143, 6144, 6145, 2 * 6144, 7 * 3840 + 1}) {
    SCOPED_TRACE(n);
    std::vector<double> any(n), same(n, -5.0), one_digit(n);
    for (std::int64_t i = 0; i < n; ++i) {
      const int r = random_int(0, 255);
      any[static_cast<std::size_t>(i)] = static_cast<double>(random_int(-2000000000, 2000000000));
      one_digit[static_cast<std::size_t>(i)] = -0x70000000 + (static_cast<double>(r) * 0x10000);  // only the third digit varies
    }
    for (const auto* v : {&any, &same, &one_digit}) expect_sorted(dev(), *v, DType::int32);
  }
  // 2^17 + 3 float32 keys (22 tiles), ties, NaNs, zeros of both signs and infinities.
  const std::int64_t n = (std::int64_t{1} << 17) + 3;
  std::vector<double> f(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const int r = random_int(0, 99);
    const double inf = std::numeric_limits<double>::infinity();
    f[static_cast<std::size_t>(i)] = r < 5 ? std::numeric_limits<double>::quiet_NaN() : r < 10 ? -0.0 : r < 15 ? 0.0
                                     : r < 17 ? inf : r < 19 ? -inf : random_int(-100000, 100000) / 64.0;
  }
  expect_sorted(dev(), f, DType::float32);
  Array a = upload(f, DType::float32, {n}, dev());
  auto o = stable_order(f, true);
  std::vector<double> ref_i(o.begin(), o.end());
  EXPECT_TRUE(array_matches(porta::argsort(a, -1, true), DType::int64, {n}, ref_i, {0, 0})) << "descending";
  // Without -0.0 and with the canonical NaN alone, GPUs take the float key's fast form (radix_sort.cpp's
  // onesweep_source; CPU devices under the emulated warp votes, here in tiles of 256 x 4); one -0.0
  // or one negative NaN, last of all, sends the passes to the full key, under which zeros keep
  // their order and every NaN goes last: the bits are compared. (A block: the rows below run under
  // the device's own ranking and tiles.)
  {
    ScopedEnv radix("PORTA_RADIX", dev().kind() == porta::DeviceKind::gpu ? nullptr : "ballot"),
        items("PORTA_SORT_ITEMS", dev().kind() == porta::DeviceKind::gpu ? nullptr : "4");
    for (double& x : f)
      if (x == 0.0) x = 0.0;
    for (double last : {1.0, -0.0, -std::numeric_limits<double>::quiet_NaN()}) {
      SCOPED_TRACE(last);
      f.back() = last;
      std::vector<float> in(f.begin(), f.end()), want = in;
      std::stable_sort(want.begin(), want.end(), [](float x, float y) { return total_less(x, y); });
      std::vector<float> got = porta::sort(porta::from_host(in, {n}, dev())).to_vector<float>();
      ASSERT_EQ(got.size(), want.size());
      EXPECT_EQ(std::memcmp(got.data(), want.data(), 4 * want.size()), 0);
    }
  }
  // Rows that span tiles (row passes after the key passes).
  std::vector<double> w;
  Array b = random_array({3, 5001}, DType::int32, -300, 300, &w);
  std::vector<double> order_ref;
  for (int r = 0; r < 3; ++r) {
    std::vector<double> row(w.begin() + r * 5001, w.begin() + (r + 1) * 5001);
    for (auto i : stable_order(row, false)) order_ref.push_back(static_cast<double>(i));
  }
  EXPECT_TRUE(array_matches(porta::argsort(b), DType::int64, {3, 5001}, order_ref, {0, 0}));
}

// The one sweep in CUB's order (PORTA_ONESWEEP=early: counts published before the ranking, tile 0
// alone scanning the digit starts, which reach the other tiles through the look-back) in tiles of
// 256 x 4 keys (PORTA_SORT_ITEMS=4), so that short arrays span many tiles: lengths around their
// multiples, 41 tiles, all-equal keys and keys differing in one digit, indices, rows spanning
// tiles (row digits from the indices), and once the ranking by emulated warp votes. int32 only
// (three kernels to compile on PoCL, ~20 s cold; the key maps are the late order's, tested above).
TEST_P(SortRules, OnesweepEarlyOrderAcrossTileBoundaries) {
  ScopedEnv sort("PORTA_SORT", "onesweep"), order("PORTA_ONESWEEP", "early"), items("PORTA_SORT_ITEMS", "4");
  for (std::int64_t n : std::vector<std::int64_t>{1, 1023, 1024, 1025, 7 * 1024 + 3, 41 * 1024 - 1}) {
    SCOPED_TRACE(n);
    std::vector<double> any(n), same(n, -5.0), one_digit(n);
    for (std::int64_t i = 0; i < n; ++i) {
      any[static_cast<std::size_t>(i)] = static_cast<double>(random_int(-2000000000, 2000000000));
      one_digit[static_cast<std::size_t>(i)] = 0x12000034 + static_cast<double>(random_int(0, 255)) * 0x100;  // the second digit varies
    }
    for (const auto* v : {&any, &same, &one_digit}) expect_sorted(dev(), *v, DType::int32);
  }
  std::vector<double> w;
  Array b = random_array({3, 2501}, DType::int32, -300, 300, &w);
  std::vector<double> order_ref;
  for (int r = 0; r < 3; ++r) {
    std::vector<double> row(w.begin() + r * 2501, w.begin() + (r + 1) * 2501);
    for (auto i : stable_order(row, false)) order_ref.push_back(static_cast<double>(i));
  }
  EXPECT_TRUE(array_matches(porta::argsort(b), DType::int64, {3, 2501}, order_ref, {0, 0}));
  ScopedEnv radix("PORTA_RADIX", "ballot");
  std::vector<double> v(5 * 1024 + 7);
  for (auto& x : v) x = static_cast<double>(random_int(-70000, 70000));
  const std::int64_t n = static_cast<std::int64_t>(v.size());
  std::vector<double> ref = v;
  std::sort(ref.begin(), ref.end());
  EXPECT_TRUE(array_matches(porta::sort(upload(v, DType::int32, {n}, dev())), DType::int32, {n}, ref, {0, 0})) << "ballot";
}

PORTA_INSTANTIATE_DEVICES(SortRules);

// The dtypes of issue 37 (int8 ... uint64, complex64, complex128): elements as raw bytes
// (typed_host.hpp), so that the sort is tested without elementwise kernels, against
// std::stable_sort by NumPy's order (complex: by real part, then imaginary, NaNs last in
// NumPy's four classes). Every new dtype on every device; the three rankings only for one
// size (each ranking is its own set of kernels to compile, the slow part on PoCL).
using NewDTypeSorting = DeviceDTypeTest;

// The stable order of elements [first, first + len) of `b` (positions within the row).
std::vector<std::int64_t> numpy_order(DType t, const Bytes& b, std::int64_t first, std::int64_t len, bool descending) {
  std::vector<std::int64_t> o(static_cast<std::size_t>(len));
  std::iota(o.begin(), o.end(), 0);
  std::stable_sort(o.begin(), o.end(), [&](std::int64_t x, std::int64_t y) {
    return descending ? numpy_less(t, b, first + y, b, first + x) : numpy_less(t, b, first + x, b, first + y);
  });
  return o;
}

// sort and argsort of `rows` rows of `len` elements of dtype t along the last axis, against the host.
void expect_rows_sorted(const Device& d, DType t, std::int64_t rows, std::int64_t len, std::mt19937_64& rng) {
  const Bytes b = random_bytes(t, rows * len, rng);
  const std::size_t item = porta::itemsize(t);
  Array a = upload_bytes(b, t, {rows, len}, d);
  for (bool desc : {false, true}) {
    SCOPED_TRACE(::testing::Message() << name(t) << " " << rows << "x" << len << (desc ? " descending" : ""));
    std::vector<std::int64_t> ref_i;
    Bytes ref_v(b.size());
    for (std::int64_t r = 0; r < rows; ++r) {
      auto o = numpy_order(t, b, r * len, len, desc);
      for (std::int64_t q = 0; q < len; ++q) {
        ref_i.push_back(o[static_cast<std::size_t>(q)]);
        std::memcpy(ref_v.data() + static_cast<std::size_t>(r * len + q) * item,
                    b.data() + static_cast<std::size_t>(r * len + o[static_cast<std::size_t>(q)]) * item, item);
      }
    }
    const std::vector<std::int64_t> got_i = int64s_of(porta::argsort(a, -1, desc));
    ASSERT_EQ(got_i.size(), ref_i.size());
    for (std::size_t e = 0; e < ref_i.size(); ++e)
      ASSERT_EQ(got_i[e], ref_i[e]) << "element " << e << ": got the position of "
                                    << element_text(t, b, static_cast<std::int64_t>(e / static_cast<std::size_t>(len)) * len + got_i[e])
                                    << ", NumPy's order has "
                                    << element_text(t, b, static_cast<std::int64_t>(e / static_cast<std::size_t>(len)) * len + ref_i[e]);
    Array sorted = porta::sort(a, -1, desc);
    EXPECT_EQ(sorted.dtype(), t);
    EXPECT_TRUE(bytes_of(sorted) == ref_v) << "the sorted elements' bits differ from the input's in NumPy's order";
  }
}

TEST_P(NewDTypeSorting, SortAndArgsortFollowNumPysOrder) {
  PORTA_REQUIRE_DTYPE(dtype());
  std::mt19937_64 rng(37 + static_cast<int>(dtype()));
  // One element, odd lengths, rows sorted apart, and several tiles and chunks (4096 a chunk on CPU devices).
  for (auto [rows, len] : {std::pair<std::int64_t, std::int64_t>{1, 1}, {1, 2}, {1, 37}, {5, 101}, {1, 3 * 4096 + 5}})
    expect_rows_sorted(dev(), dtype(), rows, len, rng);
  // The GPUs' rankings in local memory in the one-sweep sort, on any device (kSortWays says why;
  // the two-pass sort's GPU kernels take the same key map, checked by the serial chunks above).
  for (const char* mode : {"tiled", "ballot"}) {
    ScopedEnv env("PORTA_RADIX", mode), sort("PORTA_SORT", "onesweep");
    SCOPED_TRACE(mode);
    expect_rows_sorted(dev(), dtype(), 3, 701, rng);
  }
  // Empty arrays.
  Array e = upload_bytes({}, dtype(), {2, 0}, dev());
  EXPECT_EQ(porta::sort(e).shape(), (Shape{2, 0}));
  EXPECT_EQ(porta::argsort(upload_bytes({}, dtype(), {0}, dev())).size(), 0);
}

// The extremes of each width: both ends and their neighbours, in every byte position's digit.
TEST_P(NewDTypeSorting, ExtremesAndNaNClassesSortExactly) {
  PORTA_REQUIRE_DTYPE(dtype());
  const DType t = dtype();
  Bytes b;
  std::int64_t n = 0;
  if (porta::is_complex(t)) {
    // Every pair of these parts: NumPy's classes [R + Rj, R + nanj, nan + Rj, nan + nanj], -0.0 with 0.0.
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> parts{-inf, -1.5, -0.0, 0.0, 1.5, inf, nan, -nan, porta::finfo(t).max, porta::finfo(t).smallest_subnormal};
    n = static_cast<std::int64_t>(parts.size() * parts.size());
    b.resize(static_cast<std::size_t>(n) * porta::itemsize(t));
    std::int64_t i = 0;
    for (double re : parts)
      for (double im : parts) set_complex(t, b, i++, re, im);
  } else {
    const porta::IntInfo info = porta::iinfo(t);
    const std::vector<std::int64_t> v{info.min, info.min + 1, -1, 0, 1, static_cast<std::int64_t>(info.max) - 1,
                                      static_cast<std::int64_t>(info.max), 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000};
    n = static_cast<std::int64_t>(v.size());
    b.resize(static_cast<std::size_t>(n) * porta::itemsize(t));
    for (std::int64_t i = 0; i < n; ++i) set_int(t, b, i, v[static_cast<std::size_t>(i)]);
  }
  // Reversed and shuffled copies, so that the input's order is not the answer.
  std::mt19937_64 rng(7);
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  Bytes shuffled(b.size());
  const std::size_t item = porta::itemsize(t);
  for (std::int64_t i = 0; i < n; ++i)
    std::memcpy(shuffled.data() + static_cast<std::size_t>(i) * item, b.data() + static_cast<std::size_t>(perm[static_cast<std::size_t>(i)]) * item, item);
  Array a = upload_bytes(shuffled, t, {n}, dev());
  auto o = numpy_order(t, shuffled, 0, n, false);
  EXPECT_EQ(int64s_of(porta::argsort(a)), o);
  // searchsorted of every element in the sorted array: left finds its first equal, right past its last.
  Array s = porta::sort(a);
  const Bytes sb = bytes_of(s);
  const std::vector<std::int64_t> left = int64s_of(porta::searchsorted(s, a)), right = int64s_of(porta::searchsorted(s, a, "right"));
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t lo = 0, hi = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      lo += numpy_less(t, sb, j, shuffled, i);
      hi += !numpy_less(t, shuffled, i, sb, j);
    }
    EXPECT_EQ(left[static_cast<std::size_t>(i)], lo) << element_text(t, shuffled, i);
    EXPECT_EQ(right[static_cast<std::size_t>(i)], hi) << element_text(t, shuffled, i);
  }
}

TEST_P(NewDTypeSorting, SearchsortedFindsNumPysPositions) {
  PORTA_REQUIRE_DTYPE(dtype());
  const DType t = dtype();
  std::mt19937_64 rng(11 + static_cast<int>(t));
  const std::int64_t n = 1001, m = 333;
  const Bytes raw = random_bytes(t, n, rng), q = random_bytes(t, m, rng);
  auto o = numpy_order(t, raw, 0, n, false);
  const std::size_t item = porta::itemsize(t);
  Bytes sorted(raw.size());
  for (std::int64_t i = 0; i < n; ++i)
    std::memcpy(sorted.data() + static_cast<std::size_t>(i) * item, raw.data() + static_cast<std::size_t>(o[static_cast<std::size_t>(i)]) * item, item);
  Array a = upload_bytes(sorted, t, {n}, dev()), v = upload_bytes(q, t, {m}, dev());
  for (const char* side : {"left", "right"}) {
    const std::vector<std::int64_t> got = int64s_of(porta::searchsorted(a, v, side));
    for (std::int64_t e = 0; e < m; ++e) {
      std::int64_t want = 0;  // the count of sorted elements before which v[e] goes
      for (std::int64_t j = 0; j < n; ++j)
        want += side[0] == 'l' ? numpy_less(t, sorted, j, q, e) : !numpy_less(t, q, e, sorted, j);
      ASSERT_EQ(got[static_cast<std::size_t>(e)], want) << side << " " << element_text(t, q, e);
    }
  }
}

// Views that are not contiguous (a transposed array: sorted along its first axis); unique (it
// compares neighbours with elementwise kernels).
TEST_P(NewDTypeSorting, NonContiguousViewsAndUnique) {
  PORTA_REQUIRE_DTYPE(dtype());
  const DType t = dtype();
  std::mt19937_64 rng(5 + static_cast<int>(t));
  const std::int64_t rows = 7, cols = 45;
  const Bytes b = random_bytes(t, rows * cols, rng);
  Array a = upload_bytes(b, t, {cols, rows}, dev()).transpose();  // a[i, j] = b[j * rows + i]
  // Sorting a along axis 1 sorts each run of b's `rows`-strided elements: row i of a is b[i::rows].
  const std::vector<std::int64_t> got = int64s_of(porta::argsort(a, 1));
  const std::size_t item = porta::itemsize(t);
  for (std::int64_t i = 0; i < rows; ++i) {
    Bytes row(static_cast<std::size_t>(cols) * item);
    for (std::int64_t j = 0; j < cols; ++j)
      std::memcpy(row.data() + static_cast<std::size_t>(j) * item, b.data() + static_cast<std::size_t>(j * rows + i) * item, item);
    auto o = numpy_order(t, row, 0, cols, false);
    for (std::int64_t j = 0; j < cols; ++j) EXPECT_EQ(got[static_cast<std::size_t>(i * cols + j)], o[static_cast<std::size_t>(j)]) << i << "," << j;
  }
  // unique: values in NumPy's order, each once (complex numbers with a NaN part: one value with
  // NumPy's equal_nan, the one porta::unique_all is given here).
  auto u = porta::unique_all(upload_bytes(b, t, {rows * cols}, dev()), true);
  const Bytes uv = bytes_of(u.values);
  auto o = numpy_order(t, b, 0, rows * cols, false);
  std::vector<std::int64_t> firsts;
  auto has_nan = [&](const Bytes& x, std::int64_t i) {
    if (!porta::is_complex(t)) return false;
    auto z = complex_at(t, x, i);
    return std::isnan(z.real()) || std::isnan(z.imag());
  };
  for (std::size_t k = 0; k < o.size(); ++k) {
    const std::int64_t cur = o[k];
    if (k > 0) {
      const std::int64_t prev = o[k - 1];
      const bool same = (!numpy_less(t, b, prev, b, cur) && !numpy_less(t, b, cur, b, prev)) || (has_nan(b, prev) && has_nan(b, cur));
      if (same) continue;
    }
    firsts.push_back(cur);
  }
  ASSERT_EQ(u.values.size(), static_cast<std::int64_t>(firsts.size()));
  for (std::size_t k = 0; k < firsts.size(); ++k)
    EXPECT_TRUE(!numpy_less(t, uv, static_cast<std::int64_t>(k), b, firsts[k]) && !numpy_less(t, b, firsts[k], uv, static_cast<std::int64_t>(k)))
        << k << ": " << element_text(t, uv, static_cast<std::int64_t>(k)) << " against " << element_text(t, b, firsts[k]);
  EXPECT_EQ(int64s_of(u.indices), firsts);
}

PORTA_INSTANTIATE_DEVICES_DTYPES(NewDTypeSorting, kNewDTypes);

}  // namespace
}  // namespace porta_test
