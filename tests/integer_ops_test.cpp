// NumPy's integer semantics for every integer dtype at the edges the random sweeps of
// elementwise_ops_test.cpp and reduce_test.cpp do not reach: the type's minimum and maximum, -1,
// 0, values with the top bit set (uint64 above 2^63, read by its bits), wrap-around of + - * and
// **, // and % of negatives and of unsigned values (x // 0 and x % 0 give 0, MIN // -1 wraps),
// shifts by counts past the width, abs and negative of MIN and of unsigned values, casts between
// every pair of integer dtypes and from floats (porta's rule: truncate, saturate, NaN gives 0),
// reductions that wrap or need the unsigned order. The reference computes each value from NumPy's
// definition in the host's own types (64-bit unsigned arithmetic where C would overflow, __int128
// for quotients), and results are compared bit for bit. Every pair of edge values plus random
// bit patterns, on every device.
#include "test_common.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>

namespace porta_test {
namespace {

using porta::Operand;
__extension__ typedef __int128 i128;  // GCC and Clang: pedantic mode knows it as an extension
__extension__ typedef unsigned __int128 u128;
using u64 = std::uint64_t;

// Calls f(T{}) with T the host type of integer dtype t.
template <class F> void visit_int(DType t, F&& f) {
  switch (t) {
    case DType::int8: f(std::int8_t{}); return;
    case DType::int16: f(std::int16_t{}); return;
    case DType::int32: f(std::int32_t{}); return;
    case DType::int64: f(std::int64_t{}); return;
    case DType::uint8: f(std::uint8_t{}); return;
    case DType::uint16: f(std::uint16_t{}); return;
    case DType::uint32: f(std::uint32_t{}); return;
    case DType::uint64: f(std::uint64_t{}); return;
    default: FAIL() << "not an integer dtype: " << porta::name(t);
  }
}

// The low bits of v as a T (C++20: modulo 2^bits).
template <class T> T wrap(i128 v) { return static_cast<T>(static_cast<u64>(static_cast<u128>(v))); }

template <class T> constexpr int kBits = std::numeric_limits<std::make_unsigned_t<T>>::digits;

// NumPy's binary operations on T.
template <class T> T ref_binary(const std::string& op, T a, T b) {
  const i128 x = a, y = b;
  if (op == "add") return wrap<T>(static_cast<u64>(a) + static_cast<u64>(b));
  if (op == "subtract") return wrap<T>(static_cast<u64>(a) - static_cast<u64>(b));
  if (op == "multiply") return wrap<T>(static_cast<u64>(a) * static_cast<u64>(b));
  if (op == "floor_divide") {
    if (b == 0) return 0;
    i128 q = x / y;
    if (x % y != 0 && ((x < 0) != (y < 0))) --q;
    return wrap<T>(q);  // MIN // -1 = -MIN wraps to MIN
  }
  if (op == "remainder") {
    if (b == 0) return 0;
    i128 r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return wrap<T>(r);
  }
  if (op == "maximum") return a > b ? a : b;
  if (op == "minimum") return a < b ? a : b;
  if (op == "bitwise_and") return static_cast<T>(a & b);
  if (op == "bitwise_or") return static_cast<T>(a | b);
  if (op == "bitwise_xor") return static_cast<T>(a ^ b);
  if (op == "left_shift" || op == "right_shift") {
    const bool left = op == "left_shift";
    if (y < 0 || y >= kBits<T>) return left ? T(0) : (x < 0 ? static_cast<T>(-1) : T(0));
    return left ? wrap<T>(static_cast<u64>(a) << static_cast<int>(y)) : static_cast<T>(a >> static_cast<int>(y));
  }
  if (op == "power") {  // exponents of the test are small (or negative: plan.hpp's rule)
    if (y < 0) return a == 1 ? T(1) : x == -1 ? static_cast<T>((y % 2) ? -1 : 1) : T(0);
    u64 r = 1;
    for (i128 k = 0; k < y; ++k) r *= static_cast<u64>(a);
    return wrap<T>(r);
  }
  ADD_FAILURE() << "no reference for " << op;
  return 0;
}

template <class T> T ref_unary(const std::string& op, T a) {
  if (op == "negative") return wrap<T>(u64{0} - static_cast<u64>(a));
  if (op == "abs") return std::is_signed_v<T> && static_cast<i128>(a) < 0 ? wrap<T>(-static_cast<i128>(a)) : a;
  if (op == "sign") return static_cast<T>((static_cast<i128>(a) > 0) - (static_cast<i128>(a) < 0));
  if (op == "square") return wrap<T>(static_cast<u64>(a) * static_cast<u64>(a));
  if (op == "bitwise_not") return static_cast<T>(~a);
  ADD_FAILURE() << "no reference for " << op;
  return 0;
}

Array binary_op(const std::string& op, const Operand& a, const Operand& b) {
  if (op == "add") return porta::add(a, b);
  if (op == "subtract") return porta::subtract(a, b);
  if (op == "multiply") return porta::multiply(a, b);
  if (op == "floor_divide") return porta::floor_divide(a, b);
  if (op == "remainder") return porta::remainder(a, b);
  if (op == "maximum") return porta::maximum(a, b);
  if (op == "minimum") return porta::minimum(a, b);
  if (op == "bitwise_and") return porta::bitwise_and(a, b);
  if (op == "bitwise_or") return porta::bitwise_or(a, b);
  if (op == "bitwise_xor") return porta::bitwise_xor(a, b);
  if (op == "left_shift") return porta::bitwise_left_shift(a, b);
  if (op == "right_shift") return porta::bitwise_right_shift(a, b);
  if (op == "power") return porta::power(a, b);
  ADD_FAILURE() << "no op " << op;
  return {};
}

Array unary_op(const std::string& op, const Array& a) {
  if (op == "negative") return porta::negative(a);
  if (op == "abs") return porta::abs(a);
  if (op == "sign") return porta::sign(a);
  if (op == "square") return porta::square(a);
  if (op == "bitwise_not") return porta::bitwise_not(a);
  ADD_FAILURE() << "no op " << op;
  return {};
}

// The edge values of T (each as its bits): the limits and their neighbours, -1 .. 3, the width
// and its neighbours (shift counts), half the maximum, the top bit alone and with the lowest.
template <class T> std::vector<T> edge_values() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {L::min(), static_cast<T>(L::min() + 1), T(0), T(1), T(2), T(3), T(7),
                      static_cast<T>(kBits<T> - 1), static_cast<T>(kBits<T>), static_cast<T>(kBits<T> + 1),
                      static_cast<T>(L::max() / 2), static_cast<T>(L::max() - 1), L::max()};
  // push_back rather than insert of a list: GCC 12 warns of a bounds error for 1-byte types there.
  if constexpr (std::is_signed_v<T>) {
    for (T x : {T(-1), T(-2), T(-3), T(-7), static_cast<T>(-kBits<T>)}) v.push_back(x);
  } else {
    for (T x : {static_cast<T>(L::max() / 2 + 1), static_cast<T>(L::max() / 2 + 2)}) v.push_back(x);
  }
  return v;
}

template <class T> Array upload_bits(const std::vector<T>& v, DType t, const Device& d) {
  const auto n = static_cast<std::int64_t>(v.size());
  return porta::from_host(v.data(), t, {n}, d, n);
}

template <class T> std::string show(T v) {
  std::ostringstream s;
  s << +v;  // + prints a char type as a number
  return s.str();
}

// got's elements (its bits) against want, at most 8 differences reported.
template <class T>
::testing::AssertionResult same_bits(const HostArray& got, DType t, const std::vector<T>& want,
                                     const std::function<std::string(std::size_t)>& describe) {
  if (got.dtype != t) return ::testing::AssertionFailure() << "dtype " << porta::name(got.dtype) << ", expected " << porta::name(t);
  if (got.size() != static_cast<std::int64_t>(want.size())) return ::testing::AssertionFailure() << "size " << got.size();
  std::ostringstream out;
  int bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    T g;
    std::memcpy(&g, got.bytes.data() + i * sizeof(T), sizeof(T));
    if (g == want[i]) continue;
    if (++bad <= 8) out << "\n  [" << i << "] " << describe(i) << ": got " << show(g) << ", expected " << show(want[i]);
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << want.size() << " differ:" << out.str();
}

using IntegerEdges = DeviceDTypeTest;

// Every binary op on every pair of edge values, and on random bit patterns; arrays on both sides.
TEST_P(IntegerEdges, BinaryOpsOfEdgeValuesMatchNumPy) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  visit_int(t, [&](auto zero) {
    using T = decltype(zero);
    const std::vector<T> edges = edge_values<T>();
    std::vector<T> a, b;
    for (T x : edges)
      for (T y : edges) {
        a.push_back(x);
        b.push_back(y);
      }
    for (int k = 0; k < 301; ++k) {  // random bits (and a size no multiple of any vector)
      a.push_back(static_cast<T>(rng()()));
      b.push_back(static_cast<T>(random_int(0, 3) ? rng()() : static_cast<u64>(random_int(-3, 3))));
    }
    const Array ad = upload_bits(a, t, dev()), bd = upload_bits(b, t, dev());
    for (const std::string op : {"add", "subtract", "multiply", "floor_divide", "remainder", "maximum", "minimum", "bitwise_and",
                                 "bitwise_or", "bitwise_xor", "left_shift", "right_shift"}) {
      std::vector<T> want(a.size());
      for (std::size_t i = 0; i < a.size(); ++i) want[i] = ref_binary<T>(op, a[i], b[i]);
      EXPECT_TRUE(same_bits(fetch(binary_op(op, ad, bd)), t, want, [&](std::size_t i) { return show(a[i]) + ", " + show(b[i]); }))
          << op << " of " << porta::name(t);
    }
    // Comparisons: the order of the dtype (uint64 above 2^63 is large, not negative).
    const HostArray lt = fetch(porta::less(ad, bd)), eq = fetch(porta::equal(ad, bd));
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(lt.raw_bool(static_cast<std::int64_t>(i)), a[i] < b[i] ? 1 : 0) << show(a[i]) << " < " << show(b[i]);
      EXPECT_EQ(eq.raw_bool(static_cast<std::int64_t>(i)), a[i] == b[i] ? 1 : 0) << show(a[i]) << " == " << show(b[i]);
    }
    // power with small exponents (and negative ones in an array: plan.hpp's rule).
    std::vector<T> e;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const int k = random_int(std::is_signed_v<T> ? -2 : 0, 70);
      e.push_back(static_cast<T>(k));
    }
    std::vector<T> want(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) want[i] = ref_binary<T>("power", a[i], e[i]);
    EXPECT_TRUE(same_bits(fetch(porta::power(ad, upload_bits(e, t, dev()))), t, want,
                          [&](std::size_t i) { return show(a[i]) + " ** " + show(e[i]); }))
        << "power of " << porta::name(t);
  });
}

// Unary ops of the edge values: negative and abs of MIN wrap to MIN, of unsigned values wrap.
TEST_P(IntegerEdges, UnaryOpsOfEdgeValuesMatchNumPy) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  visit_int(t, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> a = edge_values<T>();
    for (int k = 0; k < 77; ++k) a.push_back(static_cast<T>(rng()()));
    const Array ad = upload_bits(a, t, dev());
    for (const std::string op : {"negative", "abs", "sign", "square", "bitwise_not"}) {
      std::vector<T> want(a.size());
      for (std::size_t i = 0; i < a.size(); ++i) want[i] = ref_unary<T>(op, a[i]);
      EXPECT_TRUE(same_bits(fetch(unary_op(op, ad)), t, want, [&](std::size_t i) { return show(a[i]); })) << op << " of " << porta::name(t);
    }
    // isnan / isinf / isfinite of integers: false, false, true.
    EXPECT_TRUE(values_match(fetch(porta::isfinite(ad)), std::vector<double>(a.size(), 1.0), {0, 0}));
    EXPECT_TRUE(values_match(fetch(porta::isnan(ad) | porta::isinf(ad)), std::vector<double>(a.size(), 0.0), {0, 0}));
  });
}

// A host number on either side keeps the array's dtype and wraps as NumPy; one the dtype cannot
// hold is refused (NumPy's OverflowError).
TEST_P(IntegerEdges, WeakScalarsWrapAndOutOfRangeNumbersAreRefused) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  visit_int(t, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> a = edge_values<T>();
    const Array ad = upload_bits(a, t, dev());
    for (const std::string op : {"add", "subtract", "multiply", "floor_divide", "remainder", "left_shift", "right_shift"}) {
      for (int s : {3, 7}) {
        std::vector<T> want(a.size()), want_left(a.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
          want[i] = ref_binary<T>(op, a[i], static_cast<T>(s));
          want_left[i] = ref_binary<T>(op, static_cast<T>(s), a[i]);
        }
        EXPECT_TRUE(same_bits(fetch(binary_op(op, ad, s)), t, want, [&](std::size_t i) { return show(a[i]); }))
            << op << "(" << porta::name(t) << ", " << s << ")";
        EXPECT_TRUE(same_bits(fetch(binary_op(op, s, ad)), t, want_left, [&](std::size_t i) { return show(a[i]); }))
            << op << "(" << s << ", " << porta::name(t) << ")";
      }
    }
    const double too_big = static_cast<double>(std::numeric_limits<T>::max()) * 2 + 2;
    if (too_big < 1e18) {
      EXPECT_THROW(ad + static_cast<std::int64_t>(too_big), porta::InvalidArgument);
    }
    if constexpr (std::is_unsigned_v<T>) {
      EXPECT_THROW(ad + -1, porta::InvalidArgument);
    }
    // Comparisons with such a number are answered, not refused (NumPy 2).
    std::vector<double> below(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) below[i] = static_cast<i128>(a[i]) < -1 ? 1 : 0;
    EXPECT_TRUE(values_match(fetch(porta::less(ad, -1)), below, {0, 0})) << porta::name(t) << " < -1";
  });
}

// Casts between every pair of integer dtypes wrap (C's and NumPy's rule); from float32 and
// float64 they truncate and saturate (NaN: 0; unsigned: negative gives 0); to floats uint64 above
// 2^63 stays positive.
TEST_P(IntegerEdges, CastsWrapBetweenIntegersAndSaturateFromFloats) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  visit_int(t, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> a = edge_values<T>();
    for (int k = 0; k < 61; ++k) a.push_back(static_cast<T>(rng()()));
    const Array ad = upload_bits(a, t, dev());
    for (DType to : kIntDTypes) {
      if (!dev().supports(to)) continue;
      visit_int(to, [&](auto z2) {
        using D = decltype(z2);
        std::vector<D> want(a.size());
        for (std::size_t i = 0; i < a.size(); ++i) want[i] = static_cast<D>(a[i]);
        EXPECT_TRUE(same_bits(fetch(ad.astype(to)), to, want, [&](std::size_t i) { return show(a[i]); }))
            << porta::name(t) << " -> " << porta::name(to);
      });
    }
    for (DType from : {DType::float32, DType::float64}) {
      if (!dev().supports(from)) continue;
      const double kNaN = std::numeric_limits<double>::quiet_NaN(), kInf = std::numeric_limits<double>::infinity();
      std::vector<double> f = {kNaN, kInf, -kInf, 0.0, -0.0, 0.9, -0.9, 2.5, -2.5, 127.9, 128.0, -128.5, -129.0, 255.5, 256.0,
                               32767.5, 32768.0, -32769.0, 65535.9, 65536.0, 2147483520.0, 2147483648.0, -2147483904.0,
                               4294967040.0, 4294967296.0, 9.2233720368547758e18, -9.2233720368547758e18, 1.8446744073709552e19,
                               1e30, -1e30, 1e6 + 0.5, -1e6 - 0.5};
      for (int k = 0; k < 50; ++k) f.push_back(std::ldexp(static_cast<double>(random_int(-1000000, 1000000)), random_int(-10, 50)));
      if (from == DType::float32)
        for (double& x : f) x = static_cast<float>(x);
      std::vector<T> want(f.size());
      for (std::size_t i = 0; i < f.size(); ++i) {
        const double x = f[i];
        using L = std::numeric_limits<T>;
        if (std::isnan(x)) want[i] = 0;
        else if (x <= static_cast<double>(L::min())) want[i] = L::min();
        else if (x >= std::ldexp(1.0, kBits<T> - (std::is_signed_v<T> ? 1 : 0))) want[i] = L::max();
        else want[i] = static_cast<T>(std::trunc(x));
      }
      const Array fd = upload(f, from, {static_cast<std::int64_t>(f.size())}, dev());
      EXPECT_TRUE(same_bits(fetch(fd.astype(t)), t, want, [&](std::size_t i) { return std::to_string(f[i]); }))
          << porta::name(from) << " -> " << porta::name(t);
    }
    if (dev().supports(DType::float64)) {
      std::vector<double> want(a.size());
      for (std::size_t i = 0; i < a.size(); ++i) want[i] = static_cast<double>(a[i]);
      EXPECT_TRUE(values_match(fetch(ad.astype(DType::float64)), want, {0, 0})) << porta::name(t) << " -> float64";
    }
    std::vector<double> want(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) want[i] = static_cast<double>(static_cast<float>(a[i]));
    EXPECT_TRUE(values_match(fetch(ad.astype(DType::float32)), want, {0, 0})) << porta::name(t) << " -> float32";
  });
}

// Reductions: sums and products wrap in NumPy's accumulator (int64 / uint64), max/min/argmax use
// the dtype's order, mean is float64; on a row long enough for several passes and along columns.
TEST_P(IntegerEdges, ReductionsUseTheDTypesOrderAndNumPysAccumulator) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const DType acc = porta::is_signed_integer(t) ? DType::int64 : DType::uint64;
  if (!dev().supports(acc)) GTEST_SKIP() << "no " << porta::name(acc);
  visit_int(t, [&](auto zero) {
    using T = decltype(zero);
    using L = std::numeric_limits<T>;
    for (std::int64_t n : {std::int64_t{5}, std::int64_t{3001}, std::int64_t{70000}}) {
      std::vector<T> v(static_cast<std::size_t>(n));
      for (auto& x : v) x = static_cast<T>(rng()());
      v[static_cast<std::size_t>(random_int(0, static_cast<int>(n - 1)))] = L::max();
      v[static_cast<std::size_t>(random_int(0, static_cast<int>(n - 1)))] = L::min();
      const Array a = upload_bits(v, t, dev());
      u64 sum = 0, prod = 1;
      T hi = L::min(), lo = L::max();
      std::int64_t arg_hi = 0, arg_lo = 0;
      for (std::size_t i = 0; i < v.size(); ++i) {
        sum += static_cast<u64>(static_cast<std::conditional_t<std::is_signed_v<T>, std::int64_t, u64>>(v[i]));
        prod *= static_cast<u64>(static_cast<std::conditional_t<std::is_signed_v<T>, std::int64_t, u64>>(v[i]) | 1);
        if (v[i] > hi) { hi = v[i]; arg_hi = static_cast<std::int64_t>(i); }
        if (v[i] < lo) { lo = v[i]; arg_lo = static_cast<std::int64_t>(i); }
      }
      const HostArray s = fetch(porta::sum(a));
      EXPECT_EQ(s.dtype, acc);
      EXPECT_EQ(s.bits(0), sum) << "sum of " << n << " " << porta::name(t);
      EXPECT_EQ(fetch(porta::prod(porta::bitwise_or(a, 1))).bits(0), prod) << "prod of " << n << " odd " << porta::name(t);
      const HostArray mx = fetch(porta::max(a)), mn = fetch(porta::min(a));
      EXPECT_EQ(mx.dtype, t);
      EXPECT_EQ(mx.bits(0), static_cast<u64>(static_cast<std::make_unsigned_t<T>>(hi))) << "max of " << porta::name(t);
      EXPECT_EQ(mn.bits(0), static_cast<u64>(static_cast<std::make_unsigned_t<T>>(lo))) << "min of " << porta::name(t);
      EXPECT_EQ(fetch(porta::argmax(a)).integer(0), arg_hi) << "argmax of " << porta::name(t);
      EXPECT_EQ(fetch(porta::argmin(a)).integer(0), arg_lo) << "argmin of " << porta::name(t);
      if (dev().supports(DType::float64)) {
        const HostArray m = fetch(porta::mean(a));
        EXPECT_EQ(m.dtype, DType::float64);
        long double exact = 0;
        for (T x : v) exact += static_cast<long double>(x);
        // float64 sums of values up to 2^64: within 1e-12 of the largest magnitude
        EXPECT_NEAR(m.value(0), static_cast<double>(exact / n), std::ldexp(1e-12, kBits<T>) + 1e-9)
            << "mean of " << porta::name(t);
      }
      // Along columns (a [rows, 5] view): each column's max and sum.
      if (n % 5 == 0 || n == 70000) {
        const std::int64_t rows = n / 5;
        const Array m = a.reshape({rows, 5});
        const HostArray cmax = fetch(porta::max(m, 0)), csum = fetch(porta::sum(m, 0));
        for (std::int64_t c = 0; c < 5; ++c) {
          T best = L::min();
          u64 cs = 0;
          for (std::int64_t r = 0; r < rows; ++r) {
            const T x = v[static_cast<std::size_t>(r * 5 + c)];
            best = x > best ? x : best;
            cs += static_cast<u64>(static_cast<std::conditional_t<std::is_signed_v<T>, std::int64_t, u64>>(x));
          }
          EXPECT_EQ(cmax.bits(c), static_cast<u64>(static_cast<std::make_unsigned_t<T>>(best))) << "column max " << c;
          EXPECT_EQ(csum.bits(c), cs) << "column sum " << c;
        }
      }
    }
  });
}

PORTA_INSTANTIATE_DEVICES_DTYPES(IntegerEdges, kIntDTypes);

}  // namespace
}  // namespace porta_test
