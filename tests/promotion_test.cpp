// NumPy 2 type promotion: every pair of array dtypes, weak host scalars on either side, and the
// values that result (an operand is converted before the operation, never after).
#include "test_common.hpp"

#include <cmath>
#include <complex>
#include <limits>
#include <map>

namespace porta_test {
namespace {

using porta::Operand;
constexpr DType B = DType::boolean, I8 = DType::int8, I16 = DType::int16, I32 = DType::int32, I64 = DType::int64,
                U8 = DType::uint8, U16 = DType::uint16, U32 = DType::uint32, U64 = DType::uint64, F16 = DType::float16,
                BF16 = DType::bfloat16, F32 = DType::float32, F64 = DType::float64, C64 = DType::complex64,
                C128 = DType::complex128;

// np.promote_types for every pair, printed by NumPy 2.4.6 with ml_dtypes 0.7.0's bfloat16, rows and
// columns in porta's enum order (python/tests/test_dtypes.py asks NumPy itself at run time).
DType numpy_result(DType a, DType b) {
  static const DType table[15][15] = {
      //         bool  i32   i64   f16   bf16  f32   f64   i8    i16   u8    u16   u32   u64   c64   c128
      /*B    */ {B, I32, I64, F16, BF16, F32, F64, I8, I16, U8, U16, U32, U64, C64, C128},
      /*I32  */ {I32, I32, I64, F64, F64, F64, F64, I32, I32, I32, I32, I64, F64, C128, C128},
      /*I64  */ {I64, I64, I64, F64, F64, F64, F64, I64, I64, I64, I64, I64, F64, C128, C128},
      /*F16  */ {F16, F64, F64, F16, F32, F32, F64, F16, F32, F16, F32, F64, F64, C64, C128},
      /*BF16 */ {BF16, F64, F64, F32, BF16, F32, F64, BF16, F32, BF16, F32, F64, F64, C64, C128},
      /*F32  */ {F32, F64, F64, F32, F32, F32, F64, F32, F32, F32, F32, F64, F64, C64, C128},
      /*F64  */ {F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, C128, C128},
      /*I8   */ {I8, I32, I64, F16, BF16, F32, F64, I8, I16, I16, I32, I64, F64, C64, C128},
      /*I16  */ {I16, I32, I64, F32, F32, F32, F64, I16, I16, I16, I32, I64, F64, C64, C128},
      /*U8   */ {U8, I32, I64, F16, BF16, F32, F64, I16, I16, U8, U16, U32, U64, C64, C128},
      /*U16  */ {U16, I32, I64, F32, F32, F32, F64, I32, I32, U16, U16, U32, U64, C64, C128},
      /*U32  */ {U32, I64, I64, F64, F64, F64, F64, I64, I64, U32, U32, U32, U64, C128, C128},
      /*U64  */ {U64, F64, F64, F64, F64, F64, F64, F64, F64, U64, U64, U64, U64, C128, C128},
      /*C64  */ {C64, C128, C128, C64, C64, C64, C128, C64, C64, C64, C64, C128, C128, C64, C128},
      /*C128 */ {C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

using Promotion = DeviceTest;

TEST_P(Promotion, PromoteTypesIsNumPysTable) {
  for (DType a : porta::all_dtypes())
    for (DType b : porta::all_dtypes())
      EXPECT_EQ(porta::promote_types(a, b), numpy_result(a, b)) << porta::name(a) << " with " << porta::name(b);
}

// math_float: the dtype of np.sqrt(np.zeros(1, t)) in NumPy 2.4.6 (ml_dtypes' bfloat16 keeps its own).
TEST(DTypeTable, MathFloatIsNumPysSqrtDType) {
  using D = DType;
  const std::pair<D, D> want[] = {
      {D::boolean, D::float16}, {D::int8, D::float16},      {D::uint8, D::float16},     {D::int16, D::float32},
      {D::uint16, D::float32},  {D::int32, D::float64},     {D::uint32, D::float64},    {D::int64, D::float64},
      {D::uint64, D::float64},  {D::float16, D::float16},   {D::bfloat16, D::bfloat16}, {D::float32, D::float32},
      {D::float64, D::float64}, {D::complex64, D::complex64}, {D::complex128, D::complex128}};
  EXPECT_EQ(std::size(want), porta::all_dtypes().size());
  for (const auto& [t, f] : want) EXPECT_EQ(porta::math_float(t), f) << porta::name(t);
}

// The dtype table: names (parse_dtype takes each back, with its short name), sizes, kinds, the real
// and complex dtypes, iinfo and finfo as NumPy's.
TEST(DTypeTable, NamesSizesKindsAndLimitsAreNumPys) {
  struct Want {
    DType t;
    const char* name;
    const char* short_name;
    std::size_t size;
    porta::DTypeKind kind;
  };
  using K = porta::DTypeKind;
  const Want want[] = {{B, "bool", "bool", 1, K::boolean},          {I8, "int8", "i8", 1, K::signed_integer},
                       {I16, "int16", "i16", 2, K::signed_integer}, {I32, "int32", "i32", 4, K::signed_integer},
                       {I64, "int64", "i64", 8, K::signed_integer}, {U8, "uint8", "u8", 1, K::unsigned_integer},
                       {U16, "uint16", "u16", 2, K::unsigned_integer}, {U32, "uint32", "u32", 4, K::unsigned_integer},
                       {U64, "uint64", "u64", 8, K::unsigned_integer}, {F16, "float16", "f16", 2, K::floating},
                       {BF16, "bfloat16", "bf16", 2, K::floating},  {F32, "float32", "f32", 4, K::floating},
                       {F64, "float64", "f64", 8, K::floating},     {C64, "complex64", "c64", 8, K::complex},
                       {C128, "complex128", "c128", 16, K::complex}};
  ASSERT_EQ(porta::all_dtypes().size(), std::size(want));
  for (std::size_t k = 0; k < std::size(want); ++k) {
    const Want& w = want[k];
    EXPECT_EQ(porta::all_dtypes()[k], w.t) << "NumPy's order";
    EXPECT_EQ(porta::name(w.t), w.name);
    EXPECT_EQ(porta::parse_dtype(w.name), w.t);
    EXPECT_EQ(porta::parse_dtype(std::string(" ") + w.short_name), w.t);
    EXPECT_EQ(porta::itemsize(w.t), w.size) << w.name;
    EXPECT_EQ(porta::kind(w.t), w.kind) << w.name;
    EXPECT_EQ(porta::is_integral(w.t), w.kind == K::signed_integer || w.kind == K::unsigned_integer) << w.name;
    EXPECT_EQ(porta::is_inexact(w.t), w.kind == K::floating || w.kind == K::complex) << w.name;
  }
  EXPECT_EQ(porta::dtype_of<std::uint8_t>, U8);
  EXPECT_EQ(porta::dtype_of<std::int16_t>, I16);
  EXPECT_EQ(porta::dtype_of<std::uint64_t>, U64);
  EXPECT_EQ(porta::dtype_of<porta::complex64>, C64);
  EXPECT_EQ(porta::dtype_of<std::complex<double>>, C128);
  EXPECT_EQ(sizeof(porta::complex64), 8u);
  EXPECT_EQ(porta::real_dtype(C64), F32);
  EXPECT_EQ(porta::real_dtype(C128), F64);
  EXPECT_EQ(porta::real_dtype(U16), U16);
  EXPECT_EQ(porta::complex_dtype(F16), C64);
  EXPECT_EQ(porta::complex_dtype(F64), C128);
  EXPECT_EQ(porta::complex_dtype(I32), C128);
  EXPECT_EQ(porta::complex_dtype(U8), C64);
  // numpy.iinfo and numpy.finfo.
  EXPECT_EQ(porta::iinfo(I8).min, -128);
  EXPECT_EQ(porta::iinfo(I8).max, 127u);
  EXPECT_EQ(porta::iinfo(U8).max, 255u);
  EXPECT_EQ(porta::iinfo(I16).min, -32768);
  EXPECT_EQ(porta::iinfo(U32).max, 4294967295u);
  EXPECT_EQ(porta::iinfo(I64).min, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(porta::iinfo(U64).max, std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(porta::iinfo(U64).bits, 64);
  EXPECT_THROW((void)porta::iinfo(F32), porta::DTypeError);
  EXPECT_THROW((void)porta::finfo(I32), porta::DTypeError);
  EXPECT_EQ(porta::finfo(F16).max, 65504.0);
  EXPECT_EQ(porta::finfo(F16).eps, std::ldexp(1.0, -10));
  EXPECT_EQ(porta::finfo(F32).eps, static_cast<double>(std::numeric_limits<float>::epsilon()));
  EXPECT_EQ(porta::finfo(F64).smallest_normal, std::numeric_limits<double>::min());
  EXPECT_EQ(porta::finfo(F64).smallest_subnormal, std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(porta::finfo(C64).dtype, F32) << "a complex dtype's finfo is its parts'";
  EXPECT_EQ(porta::finfo(C128).mantissa_bits, 52);
  EXPECT_EQ(porta::finfo(BF16).max, static_cast<double>(static_cast<float>(porta::bfloat16::from_bits(0x7f7f))));
  EXPECT_THROW((void)porta::parse_dtype("i1"), porta::DTypeError) << "NumPy's byte codes are not porta's short names";
}

// Every pair of array dtypes through add, multiply, maximum and where: the result dtype is
// NumPy's, and add's values are those of the operands converted to it.
TEST_P(Promotion, EveryPairOfArraysPromotesAndComputesInTheResultDType) {
  const std::int64_t n = 129;
  std::map<DType, std::vector<double>> host;
  std::map<DType, Array> arrays;
  for (DType t : kAllDTypes) {
    if (!dev().supports(t)) continue;
    arrays[t] = random_array({n}, t, -8, 8, &host[t]);
  }
  Array cond = random_array({n}, DType::boolean, 0, 1);
  // Sums grouped by result dtype, evaluated together.
  std::map<DType, std::vector<std::pair<DType, DType>>> groups;
  for (auto& [ta, a] : arrays)
    for (auto& [tb, b] : arrays) {
      DType r = numpy_result(ta, tb);
      std::string what = std::string(porta::name(ta)) + " with " + std::string(porta::name(tb));
      if (!dev().supports(r)) {
        EXPECT_THROW((void)(a + b), porta::DTypeError) << what;
        continue;
      }
      // bool + bool is logical or (NumPy), still bool.
      EXPECT_EQ((a + b).dtype(), r) << "add: " << what;
      EXPECT_EQ((a * b).dtype(), r) << "multiply: " << what;
      EXPECT_EQ(porta::maximum(a, b).dtype(), r) << "maximum: " << what;
      EXPECT_EQ(porta::where(cond, a, b).dtype(), r) << "where: " << what;
      EXPECT_EQ((a < b).dtype(), DType::boolean) << "less: " << what;
      groups[r].push_back({ta, tb});
    }
  for (auto& [r, pairs] : groups) {
    std::vector<Array> sums;
    for (auto& [ta, tb] : pairs) sums.push_back(arrays[ta] + arrays[tb]);
    std::vector<int> sel(static_cast<std::size_t>(n));
    for (auto& s : sel) s = random_int(0, static_cast<int>(pairs.size()) - 1);
    HostArray got = evaluate_selected(sums, sel, dev());
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      auto [ta, tb] = pairs[k];
      std::vector<bool> mask(static_cast<std::size_t>(n));
      std::vector<double> ref(static_cast<std::size_t>(n));
      for (std::size_t e = 0; e < ref.size(); ++e) {
        mask[e] = sel[e] == static_cast<int>(k);
        double x = host[ta][e], y = host[tb][e];
        ref[e] = r == DType::boolean ? ((x != 0 || y != 0) ? 1 : 0) : x + y;
      }
      EXPECT_TRUE(values_match(got, ref, tolerance(r, Accuracy::simple), &mask))
          << porta::name(ta) << " + " << porta::name(tb) << " -> " << porta::name(r);
    }
  }
}

struct ScalarCase {
  const char* what;
  DType array;
  std::function<Array(const Array&)> fn;
  std::function<double(double)> ref;
  DType expected;
};

// Host numbers are weak (NumPy 2): they take the array's dtype where their kind allows.
TEST_P(Promotion, WeakHostScalarsFollowNumPy2) {
  const std::vector<ScalarCase> cases = {
      {"int32 * 2.5", I32, [](const Array& a) { return a * 2.5; }, [](double x) { return x * 2.5; }, F64},
      {"2.5 * int32", I32, [](const Array& a) { return 2.5 * a; }, [](double x) { return x * 2.5; }, F64},
      {"float32 * 2.0", F32, [](const Array& a) { return a * 2.0; }, [](double x) { return x * 2; }, F32},
      {"float32 + 1", F32, [](const Array& a) { return a + 1; }, [](double x) { return x + 1; }, F32},
      {"int32 + 1", I32, [](const Array& a) { return a + 1; }, [](double x) { return x + 1; }, I32},
      {"1 - int32", I32, [](const Array& a) { return 1 - a; }, [](double x) { return 1 - x; }, I32},
      {"int32 + true", I32, [](const Array& a) { return a + true; }, [](double x) { return x + 1; }, I32},
      {"int32 + int64{5}", I32, [](const Array& a) { return a + std::int64_t{5}; }, [](double x) { return x + 5; }, I32},
      {"int64 + 1", I64, [](const Array& a) { return a + 1; }, [](double x) { return x + 1; }, I64},
      {"bool + 1", B, [](const Array& a) { return a + 1; }, [](double x) { return x + 1; }, I64},
      {"bool + 1.5", B, [](const Array& a) { return a + 1.5; }, [](double x) { return x + 1.5; }, F64},
      {"bool + true", B, [](const Array& a) { return a + true; }, [](double) { return 1.0; }, B},
      {"float16 * 2.5", F16, [](const Array& a) { return a * 2.5; }, [](double x) { return x * 2.5; }, F16},
      {"bfloat16 + 1", BF16, [](const Array& a) { return a + 1; }, [](double x) { return x + 1; }, BF16},
      {"float64 + 1", F64, [](const Array& a) { return a + 1; }, [](double x) { return x + 1; }, F64},
      {"float32 + 0.1f", F32, [](const Array& a) { return a + 0.1f; }, [](double x) { return x + static_cast<double>(0.1f); }, F32},
      {"int32 / 2", I32, [](const Array& a) { return a / 2; }, [](double x) { return x / 2; }, F64},
      {"int32 % 3", I32, [](const Array& a) { return a % 3; }, [](double x) { return x - 3 * std::floor(x / 3); }, I32},
      {"int32 < 2.5", I32, [](const Array& a) { return a < 2.5; }, [](double x) { return x < 2.5 ? 1.0 : 0.0; }, B},
      {"int32 == 2.5", I32, [](const Array& a) { return a == 2.5; }, [](double x) { return x == 2.5 ? 1.0 : 0.0; }, B},
      {"2 >= int32", I32, [](const Array& a) { return 2 >= a; }, [](double x) { return 2 >= x ? 1.0 : 0.0; }, B},
      {"maximum(int32, 0.5)", I32, [](const Array& a) { return porta::maximum(a, 0.5); }, [](double x) { return std::max(x, 0.5); }, F64},
      {"where(int32 > 0, int32, -1)", I32, [](const Array& a) { return porta::where(a > 0, a, -1); },
       [](double x) { return x > 0 ? x : -1; }, I32},
      {"where(int32 > 0, 1.5, int32)", I32, [](const Array& a) { return porta::where(a > 0, 1.5, a); },
       [](double x) { return x > 0 ? 1.5 : x; }, F64},
  };
  const std::int64_t n = 64;
  for (const auto& c : cases) {
    if (!dev().supports(c.array)) continue;
    std::vector<double> x;
    Array a = random_array({n}, c.array, -5, 5, &x);
    if (!dev().supports(c.expected)) {
      EXPECT_THROW(c.fn(a), porta::DTypeError) << c.what;
      continue;
    }
    std::vector<double> ref(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) ref[i] = c.ref(x[i]);
    EXPECT_TRUE(array_matches(c.fn(a), c.expected, {n}, ref, tolerance(c.expected, Accuracy::simple))) << c.what;
  }
  // A number that does not fit the integer array's dtype is an error in arithmetic (NumPy 2
  // raises too), and compared with it gives NumPy 2's answer: the comparison is made in int64.
  Array i32 = porta::ones({3}, I32, dev());
  EXPECT_THROW((void)(i32 + (std::int64_t{1} << 40)), porta::InvalidArgument);
}

TEST_P(Promotion, ComparisonsWithIntegersBeyondInt32AreExact) {
  const std::int64_t n = 64;
  std::vector<double> x;
  Array a = random_array({n}, I32, -2147483648.0, 2147483647.0, &x);
  const std::int64_t big[] = {std::int64_t{1} << 40, -(std::int64_t{1} << 40), 2147483648LL, -2147483649LL,
                              std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()};
  using Cmp = Array (*)(const porta::Operand&, const porta::Operand&);
  const std::pair<Cmp, bool (*)(double, double)> ops[] = {
      {porta::less, [](double p, double q) { return p < q; }},
      {porta::greater_equal, [](double p, double q) { return p >= q; }},
      {porta::equal, [](double p, double q) { return p == q; }},
      {porta::not_equal, [](double p, double q) { return p != q; }},
  };
  std::vector<Array> results;
  std::vector<double> ref;
  for (std::int64_t k : big)
    for (auto [fn, want] : ops) {
      // Both orders: array op number and number op array. The numbers are far from every int32,
      // so comparing their doubles is exact here.
      results.push_back(fn(a, k));
      for (double xi : x) ref.push_back(want(xi, static_cast<double>(k)) ? 1 : 0);
      results.push_back(fn(k, a));
      for (double xi : x) ref.push_back(want(static_cast<double>(k), xi) ? 1 : 0);
    }
  Array all = porta::concatenate(results, 0);
  EXPECT_TRUE(array_matches(all, B, {n * static_cast<std::int64_t>(results.size())}, ref, tolerance(B, Accuracy::exact)));
  // Numbers inside int32 still compare in int32.
  EXPECT_EQ((a < 5).dtype(), B);
}

// At the ends of 64 bits, where a double cannot tell the numbers apart: int64's maximum against
// 2^63 (a C++ unsigned number above INT64_MAX), uint64's values against -1, both orders, exactly.
TEST_P(Promotion, ComparisonsBeyondSixtyFourBitDTypesAreExact) {
  const std::int64_t i64[] = {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(), -1, 0};
  const std::uint64_t u64[] = {std::numeric_limits<std::uint64_t>::max(), std::uint64_t{1} << 63, 0, 1};
  const Array s = porta::from_host(std::span<const std::int64_t>(i64), {4}, dev());
  const Array u = porta::from_host(std::span<const std::uint64_t>(u64), {4}, dev());
  const std::uint64_t two63 = std::uint64_t{1} << 63;
  auto all = [](const Array& r, bool want) {
    EXPECT_EQ(r.dtype(), B);
    for (std::uint8_t v : fetch(r).bytes) EXPECT_EQ(v, want ? 1 : 0);
  };
  all(porta::less(s, two63), true);
  all(porta::less_equal(s, two63), true);
  all(porta::equal(s, two63), false);
  all(porta::not_equal(s, two63), true);
  all(porta::greater(two63, s), true);
  all(porta::greater_equal(s, two63), false);
  all(porta::greater(u, -1), true);
  all(porta::equal(u, -1), false);
  all(porta::less(-1, u), true);
  all(porta::less_equal(u, -1), false);
  EXPECT_THROW((void)(s + two63), porta::InvalidArgument) << "arithmetic with it is still refused";
}

// The operands are converted to the result dtype before the operation: int32 + int64 does not
// overflow in int32, and int32 == float32 compares in float64.
TEST_P(Promotion, OperandsConvertBeforeTheOperation) {
  Array a = upload({2000000000, -2000000000, 7}, I32, {3}, dev());
  Array b = upload({2000000000, -2000000000, 1}, I64, {3}, dev());
  EXPECT_TRUE(array_matches(a + b, I64, {3}, {4e9, -4e9, 8}, tolerance(I64, Accuracy::exact)));
  if (dev().supports(F64)) {
    Array i = upload({16777217, 16777216, 3}, I32, {3}, dev());
    Array f = upload({16777216, 16777216, 3}, F32, {3}, dev());
    EXPECT_TRUE(array_matches(i == f, B, {3}, {0, 1, 1}, tolerance(B, Accuracy::exact)))
        << "16777217 == float32(16777216) is false in float64";
    Array h = upload({0.1}, F32, {1}, dev());
    HostArray s = fetch(h + upload({0}, I32, {1}, dev()));
    EXPECT_EQ(s.dtype, F64);
    EXPECT_EQ(s.value(0), static_cast<double>(0.1f)) << "float32 0.1 converted exactly to float64";
  }
  // float16 with bfloat16 is float32, holding both exactly.
  if (dev().supports(F16) && dev().supports(BF16)) {
    Array h = upload({1.0009765625}, F16, {1}, dev());   // 1 + 2^-10
    Array bf = upload({256.0}, BF16, {1}, dev());
    EXPECT_TRUE(array_matches(h + bf, F32, {1}, {257.0009765625}, tolerance(F32, Accuracy::exact)));
  }
}

PORTA_INSTANTIATE_DEVICES(Promotion);

}  // namespace
}  // namespace porta_test
