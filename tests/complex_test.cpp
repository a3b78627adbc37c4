// complex64 and complex128 on every device: arithmetic, the functions, comparisons and NumPy's
// lexicographic order, casts, complex scalars, fused expressions over strided views, and the
// reductions, against host references (std::complex<long double> for the functions; NumPy's own
// formulas, written out here, where NumPy fixes the rounding: multiplication and Smith's division).
//
// Inputs: random values of moderate size (the functions), of widely spread magnitudes
// (arithmetic: parts up to 2^+-60 in complex64, 2^+-500 in complex128, so that division meets
// huge and tiny parts), and every pair of the special parts {0, -0, +-1, 0.5, -2, +-inf, NaN}
// (81 values; binary ops take all 6561 pairs). Sizes are odd (no multiple of any block).
//
// Tolerances (normwise, |got - ref| <= k eps |ref|, eps the dtype's unit roundoff): arithmetic
// k = 4 (add/sub/mul round each part once or twice; Smith's division is within a few ulps
// normwise where no part underflows); the functions k = 64 with an absolute floor of k eps
// (float32 math libraries are within 1-4 ulps, and the formulas combine up to ten such values:
// log near |z| = 1 and tanh or the inverse functions near their branch points lose a few more
// bits); pow k = 256 (exp(w log z) multiplies log's error by |w|).
#include "test_common.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <functional>
#include <limits>
#include <sstream>

namespace porta_test {
namespace {

using C = std::complex<double>;
using CL = std::complex<long double>;

constexpr DType kComplexDTypes[] = {DType::complex64, DType::complex128};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

using ComplexTest = DeviceDTypeTest;

template <class... A> std::string cat_str(const A&... a) {
  std::ostringstream o;
  (o << ... << a);
  return o.str();
}

bool single(DType t) { return t == DType::complex64; }
double eps_of(DType t) { return single(t) ? 0x1p-24 : 0x1p-53; }
// The value of dtype t's real type nearest to v.
// (Through a volatile float: from a long double GCC converts on the x87, whose registers keep the
// excess precision of a float cast under C++'s default -fexcess-precision=fast.)
double round_part(DType t, long double v) {
  if (!single(t)) return static_cast<double>(v);
  volatile float f = static_cast<float>(v);
  return f;
}
C round_c(DType t, CL z) { return {round_part(t, z.real()), round_part(t, z.imag())}; }

Array upload_c(const std::vector<C>& v, DType t, const Shape& s, const Device& d) {
  if (single(t)) {
    std::vector<std::complex<float>> f(v.begin(), v.end());
    return porta::from_host(f, s, d);
  }
  return porta::from_host(v, s, d);
}
std::vector<C> fetch_c(const Array& a) {
  if (a.dtype() == DType::complex64) {
    auto f = a.to_vector<std::complex<float>>();
    return {f.begin(), f.end()};
  }
  return a.to_vector<C>();
}
std::vector<double> fetch_real(const Array& a) {
  if (a.dtype() == DType::float32) {
    auto f = a.to_vector<float>();
    return {f.begin(), f.end()};
  }
  return a.to_vector<double>();
}

std::string str(C z) {
  std::ostringstream o;
  o.precision(17);
  o << "(" << z.real() << ", " << z.imag() << ")";
  return o.str();
}

// One part: NaN where the reference is NaN, an infinity exactly (its sign too, unless `any_sign`),
// a finite value within tol. `zero_sign`: a zero reference wants its sign.
bool part_ok(double got, double ref, double tol, bool any_sign = false, bool zero_sign = false) {
  if (std::isnan(ref)) return std::isnan(got);
  if (std::isinf(ref)) return any_sign ? std::isinf(got) : got == ref;
  if (!std::isfinite(got)) return false;
  if (zero_sign && ref == 0 && got == 0) return std::signbit(got) == std::signbit(ref);
  return std::fabs(got - ref) <= tol;
}

// Normwise closeness of a complex result to its reference (rounded to the dtype first, so that a
// reference beyond the range is the infinity the device must give).
bool close(DType t, C got, CL ref, double k, double floor_k = 0) {
  const C r = round_c(t, ref);
  const double mag = std::isfinite(std::abs(r)) ? std::abs(r) : 0;
  const double tol = k * eps_of(t) * mag + floor_k * eps_of(t) + (single(t) ? 0x1p-126 : 0x1p-1022) * k;
  return part_ok(got.real(), r.real(), tol) && part_ok(got.imag(), r.imag(), tol);
}

// The special parts, every pair of them.
std::vector<C> special_values() {
  const double parts[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.0, kInf, -kInf, kNaN};
  std::vector<C> v;
  for (double re : parts)
    for (double im : parts) v.emplace_back(re, im);
  return v;
}

// n values with parts uniform in [-r, r].
std::vector<C> moderate(std::mt19937_64& g, std::size_t n, DType t, double r) {
  std::uniform_real_distribution<double> u(-r, r);
  std::vector<C> v(n);
  for (auto& z : v) z = round_c(t, CL(u(g), u(g)));
  return v;
}

// n values with parts +-m 2^e, m in [1, 2), e uniform in [-E, E] (some parts zero).
std::vector<C> spread(std::mt19937_64& g, std::size_t n, DType t) {
  const int E = single(t) ? 60 : 500;
  std::uniform_real_distribution<double> m(1, 2);
  std::uniform_int_distribution<int> e(-E, E), zero(0, 15);
  std::bernoulli_distribution neg(0.5);
  auto part = [&] { return zero(g) == 0 ? 0.0 : (neg(g) ? -1 : 1) * std::ldexp(m(g), e(g)); };
  std::vector<C> v(n);
  for (auto& z : v) z = round_c(t, CL(part(), part()));
  return v;
}

// ---- NumPy's formulas in the dtype's precision (the reference where NumPy fixes the rounding) ----

template <class T> std::complex<T> numpy_mul(std::complex<T> a, std::complex<T> b) {
  volatile T p0 = a.real() * b.real(), p1 = a.imag() * b.imag(), p2 = a.real() * b.imag(), p3 = a.imag() * b.real();
  return {p0 - p1, p2 + p3};
}
template <class T> std::complex<T> numpy_div(std::complex<T> a, std::complex<T> b) {
  const T ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  const T abr = std::fabs(br), abi = std::fabs(bi);
  if (abr >= abi) {
    if (abr == 0 && abi == 0) return {ar / abr, ai / abr};
    volatile T rat = bi / br;
    volatile T scl = T(1) / (br + bi * rat);
    volatile T x = ar + ai * rat, y = ai - ar * rat;
    return {x * scl, y * scl};
  }
  volatile T rat = br / bi;
  volatile T scl = T(1) / (bi + br * rat);
  volatile T x = ar * rat + ai, y = ai * rat - ar;
  return {x * scl, y * scl};
}
C mul_ref(DType t, C a, C b) {
  if (single(t)) return C(numpy_mul<float>(std::complex<float>(a), std::complex<float>(b)));
  return numpy_mul<double>(a, b);
}
C div_ref(DType t, C a, C b) {
  if (single(t)) return C(numpy_div<float>(std::complex<float>(a), std::complex<float>(b)));
  return numpy_div<double>(a, b);
}

bool has_nan(C z) { return std::isnan(z.real()) || std::isnan(z.imag()); }
// NumPy's order (numpy/_core/src/umath/loops.c.src CLT/CLE/CGT/CGE).
bool clt(C a, C b) { return (a.real() < b.real() && !std::isnan(a.imag()) && !std::isnan(b.imag())) || (a.real() == b.real() && a.imag() < b.imag()); }
bool cle(C a, C b) { return (a.real() < b.real() && !std::isnan(a.imag()) && !std::isnan(b.imag())) || (a.real() == b.real() && a.imag() <= b.imag()); }
bool cgt(C a, C b) { return clt(b, a); }
bool cge(C a, C b) { return cle(b, a); }
C cmax(C a, C b) { return has_nan(a) || cge(a, b) ? a : b; }
C cmin(C a, C b) { return has_nan(a) || cle(a, b) ? a : b; }
// NumPy 2's sign: z / |z|; 0 for 0; +-1 on an infinite axis; NaN for two infinite parts or a NaN.
C csign(C z) {
  const double m = std::hypot(z.real(), z.imag());
  if (std::isnan(m)) return {kNaN, kNaN};
  if (std::isinf(m)) {
    if (std::isinf(z.real()) && std::isinf(z.imag())) return {kNaN, kNaN};
    if (std::isinf(z.real())) return {z.real() > 0 ? 1.0 : -1.0, 0.0};
    return {0.0, z.imag() > 0 ? 1.0 : -1.0};
  }
  if (m == 0) return {0, 0};
  return {z.real() / m, z.imag() / m};
}

// Exactly equal, NaN to NaN, zeros with their signs.
bool same(C a, C b) {
  auto p = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y)); };
  return p(a.real(), b.real()) && p(a.imag(), b.imag());
}

// ---- the checks ------------------------------------------------------------------------------

// got[i] against check(i); the first failures named with their inputs.
template <class Check, class Describe>
void expect_each(std::size_t n, Check&& check, Describe&& describe, const std::string& what) {
  int failures = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (check(i)) continue;
    if (++failures <= 8) ADD_FAILURE() << what << ": element " << i << ": " << describe(i);
  }
  EXPECT_EQ(failures, 0) << what;
}

struct Unary {
  const char* name;
  Array (*op)(const Array&);
  CL (*ref)(const CL&);
  double k;
};

const Unary kFunctions[] = {
    {"exp", porta::exp, [](const CL& z) { return std::exp(z); }, 64},
    {"log", porta::log, [](const CL& z) { return std::log(z); }, 64},
    {"log2", porta::log2, [](const CL& z) { return std::log(z) / std::log(2.0L); }, 64},
    {"log10", porta::log10, [](const CL& z) { return std::log10(z); }, 64},
    {"log1p", porta::log1p, [](const CL& z) { return std::log(CL(1 + z.real(), z.imag())); }, 64},  // the sign of a zero imaginary part kept
    {"expm1", porta::expm1, [](const CL& z) { return std::exp(z) - CL(1); }, 64},
    {"sqrt", porta::sqrt, [](const CL& z) { return std::sqrt(z); }, 8},
    {"sin", porta::sin, [](const CL& z) { return std::sin(z); }, 64},
    {"cos", porta::cos, [](const CL& z) { return std::cos(z); }, 64},
    {"tan", porta::tan, [](const CL& z) { return std::tan(z); }, 64},
    {"sinh", porta::sinh, [](const CL& z) { return std::sinh(z); }, 64},
    {"cosh", porta::cosh, [](const CL& z) { return std::cosh(z); }, 64},
    {"tanh", porta::tanh, [](const CL& z) { return std::tanh(z); }, 64},
    {"asin", porta::asin, [](const CL& z) { return std::asin(z); }, 64},
    {"acos", porta::acos, [](const CL& z) { return std::acos(z); }, 64},
    {"atan", porta::atan, [](const CL& z) { return std::atan(z); }, 64},
    {"asinh", porta::asinh, [](const CL& z) { return std::asinh(z); }, 64},
    {"acosh", porta::acosh, [](const CL& z) { return std::acosh(z); }, 64},
    {"atanh", porta::atanh, [](const CL& z) { return std::atanh(z); }, 64},
    {"square", porta::square, [](const CL& z) { return z * z; }, 4},
    {"negative", porta::negative, [](const CL& z) { return -z; }, 0},
    {"conj", porta::conj, [](const CL& z) { return std::conj(z); }, 0},
    {"sign", porta::sign, [](const CL& z) { return CL(csign(C(z))); }, 4},
    {"round", porta::round, [](const CL& z) { return CL(std::rint(z.real()), std::rint(z.imag())); }, 0},  // halves to even, each part
};

// The functions on random moderate values, the real axis and its neighbours (branch cuts), zeros.
TEST_P(ComplexTest, FunctionsMatchTheLibraryWithinTolerance) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  std::vector<C> x = moderate(rng(), 1001, t, 4);
  for (double re : {-3.0, -1.5, -1.0, -0.5, 0.0, 0.25, 1.0, 2.0}) {
    x.emplace_back(re, 0.0);
    x.emplace_back(re, -0.0);
    x.emplace_back(0.0, re);
  }
  x.emplace_back(1e-5, 2e-5);  // small arguments: log1p, expm1, the inverse functions near 0
  x.emplace_back(-3e-4, 1e-6);
  x.emplace_back(2.5, -0.5);  // halves: round goes to even
  x.emplace_back(-1.5, 3.5);
  for (auto& z : x) z = round_c(t, CL(z));
  const Array a = upload_c(x, t, {static_cast<std::int64_t>(x.size())}, dev());
  for (const Unary& f : kFunctions) {
    const Array r = f.op(a);
    ASSERT_EQ(r.dtype(), t) << f.name;
    const std::vector<C> got = fetch_c(r);
    expect_each(
        x.size(), [&](std::size_t i) { return close(t, got[i], f.ref(CL(x[i])), f.k, f.k); },
        [&](std::size_t i) { return cat_str("x = ", str(x[i]), ", got ", str(got[i]), ", want ", str(round_c(t, f.ref(CL(x[i]))))); },
        cat_str(f.name, " of ", porta::name(t)));
  }
}

// The arithmetic on widely spread magnitudes (division by huge and tiny parts), a scalar too.
TEST_P(ComplexTest, ArithmeticWithinUlpsOnSpreadMagnitudes) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::size_t n = 2049;
  const std::vector<C> x = spread(rng(), n, t), y = spread(rng(), n, t);
  const Shape s{static_cast<std::int64_t>(n)};
  const Array a = upload_c(x, t, s, dev()), b = upload_c(y, t, s, dev());
  struct Bin {
    const char* name;
    Array r;
    std::function<CL(CL, CL)> ref;
    double k;
  };
  const std::vector<Bin> ops = {
      // k = 2: the long double reference rounds twice (to 64 bits, then to the dtype).
      {"add", a + b, [](CL p, CL q) { return p + q; }, 2},
      {"subtract", a - b, [](CL p, CL q) { return p - q; }, 2},
      {"multiply", a * b, [](CL p, CL q) { return CL(p.real() * q.real() - p.imag() * q.imag(), p.real() * q.imag() + p.imag() * q.real()); }, 4},
      {"divide", a / b, [](CL p, CL q) { return p / q; }, 8},
  };
  for (const Bin& op : ops) {
    ASSERT_EQ(op.r.dtype(), t);
    const std::vector<C> got = fetch_c(op.r);
    expect_each(
        n, [&](std::size_t i) { return close(t, got[i], op.ref(CL(x[i]), CL(y[i])), op.k); },
        [&](std::size_t i) { return cat_str(str(x[i]), " and ", str(y[i]), ": got ", str(got[i]), ""); },
        cat_str(op.name, " of ", porta::name(t)));
  }
  // abs: hypot, no overflow or underflow of the squares.
  const std::vector<double> m = fetch_real(porta::abs(a));
  ASSERT_EQ(porta::abs(a).dtype(), porta::real_dtype(t));
  expect_each(
      n, [&](std::size_t i) { return part_ok(m[i], round_part(t, std::abs(CL(x[i]))), 2 * eps_of(t) * std::abs(x[i])); },
      [&](std::size_t i) { return cat_str(str(x[i]), ": got ", std::to_string(m[i]), "", "", ""); }, "abs");
}

// pow: NumPy's special cases (z^0 = 1, 0^w, small integer exponents by multiplication) and
// exp(w log z) otherwise.
TEST_P(ComplexTest, PowerFollowsNumPy) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  std::vector<C> x = moderate(rng(), 301, t, 3), w = moderate(rng(), 301, t, 2);
  for (int k = -4; k <= 4; ++k) {  // integer exponents, 0 among them
    x.push_back(round_c(t, CL(0.75, -1.25)));
    w.emplace_back(k, 0);
  }
  const Shape s{static_cast<std::int64_t>(x.size())};
  const std::vector<C> got = fetch_c(porta::power(upload_c(x, t, s, dev()), upload_c(w, t, s, dev())));
  expect_each(
      x.size(), [&](std::size_t i) { return close(t, got[i], std::pow(CL(x[i]), CL(w[i])), 256, 256); },
      [&](std::size_t i) { return cat_str(str(x[i]), " ** ", str(w[i]), ": got ", str(got[i]), ""); }, "power");
  // 0 ** w: 0 for Re w > 0 (any imaginary part, NumPy 2.4), NaN otherwise; z ** 0 = 1 for every z,
  // NaN included; an infinite exponent through Annex G's product (the C library's cpow, NumPy's):
  // i ** (inf + i inf) = exp(-inf + i inf) = 0, not the NaN of the textbook product.
  const std::vector<C> zx = {{0, 0}, {0, 0}, {0, 0}, {-0.0, 0}, {kNaN, 1}, {kInf, 2}, {0, 0}, {0, -0.0}, {0, 0}, {0, 1}};
  const std::vector<C> zw = {{2, 0}, {-1, 0}, {1, 1}, {0.5, 0}, {0, 0}, {0, 0}, {1, kInf}, {2, kNaN}, {0, 1}, {kInf, kInf}};
  const Shape zs{static_cast<std::int64_t>(zx.size())};
  const std::vector<C> z = fetch_c(porta::power(upload_c(zx, t, zs, dev()), upload_c(zw, t, zs, dev())));
  const std::vector<C> want = {{0, 0}, {kNaN, kNaN}, {0, 0}, {0, 0}, {1, 0}, {1, 0}, {0, 0}, {0, 0}, {kNaN, kNaN}, {0, 0}};
  for (std::size_t i = 0; i < z.size(); ++i)
    EXPECT_TRUE(same(z[i], want[i]) || (has_nan(want[i]) && has_nan(z[i]))) << str(zx[i]) << " ** " << str(zw[i]) << ": " << str(z[i]);
}

// Every pair of special values through +, -, *, / (NumPy's formulas, the same roundings), abs
// and sign; the Annex G special values of exp, log and sqrt (the C library's, which NumPy calls).
TEST_P(ComplexTest, SpecialValuesFollowNumPyAndAnnexG) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::vector<C> sv = special_values();
  const std::size_t m = sv.size();
  std::vector<C> x, y;
  for (const C& p : sv)
    for (const C& q : sv) {
      x.push_back(p);
      y.push_back(q);
    }
  const Shape s{static_cast<std::int64_t>(x.size())};
  const Array a = upload_c(x, t, s, dev()), b = upload_c(y, t, s, dev());
  const std::vector<C> add = fetch_c(a + b), sub = fetch_c(a - b), mul = fetch_c(a * b), div = fetch_c(a / b);
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_TRUE(same(add[i], x[i] + y[i])) << str(x[i]) << " + " << str(y[i]) << ": " << str(add[i]);
    EXPECT_TRUE(same(sub[i], x[i] - y[i])) << str(x[i]) << " - " << str(y[i]) << ": " << str(sub[i]);
    EXPECT_TRUE(same(mul[i], mul_ref(t, x[i], y[i]))) << str(x[i]) << " * " << str(y[i]) << ": " << str(mul[i]);
    // Division: the roundings of Smith's formula (within an ulp where a device fuses a
    // multiply-add), its NaN and infinities exactly.
    const C want = div_ref(t, x[i], y[i]);
    const double tol = 2 * eps_of(t) * std::abs(want);
    EXPECT_TRUE(part_ok(div[i].real(), want.real(), tol) && part_ok(div[i].imag(), want.imag(), tol))
        << str(x[i]) << " / " << str(y[i]) << ": " << str(div[i]) << ", want " << str(want);
  }
  if (::testing::Test::HasFailure()) return;
  const Array u = upload_c(sv, t, {static_cast<std::int64_t>(m)}, dev());
  const std::vector<double> ab = fetch_real(porta::abs(u));
  const std::vector<C> sg = fetch_c(porta::sign(u)), ex = fetch_c(porta::exp(u)), lg = fetch_c(porta::log(u)),
                       sq = fetch_c(porta::sqrt(u));
  auto annex_g = [&](C got, CL ref, bool zero_sign, bool library_signs = false) {
    const C r = round_c(t, ref);
    // Annex G leaves the sign of an infinite part unspecified where the other part is NaN (unless
    // library_signs: the C library's choice, which NumPy's functions give on Linux).
    const bool any_sign = has_nan(r) && !library_signs;
    // Normwise over the finite parts (an infinite part leaves the other its own scale).
    const double fr = std::isfinite(r.real()) ? std::fabs(r.real()) : 0, fi = std::isfinite(r.imag()) ? std::fabs(r.imag()) : 0;
    const double tol = 8 * eps_of(t) * std::hypot(fr, fi);
    return part_ok(got.real(), r.real(), tol, any_sign, zero_sign) && part_ok(got.imag(), r.imag(), tol, any_sign, zero_sign);
  };
  for (std::size_t i = 0; i < m; ++i) {
    const C z = sv[i];
    const double h = std::hypot(z.real(), z.imag());
    EXPECT_TRUE(part_ok(ab[i], round_part(t, h), 2 * eps_of(t) * (std::isfinite(h) ? h : 0))) << "abs" << str(z) << ": " << ab[i];
    const C sw = csign(z);
    EXPECT_TRUE(part_ok(sg[i].real(), sw.real(), 4 * eps_of(t)) && part_ok(sg[i].imag(), sw.imag(), 4 * eps_of(t)))
        << "sign" << str(z) << ": " << str(sg[i]);
    EXPECT_TRUE(annex_g(ex[i], std::exp(CL(z)), false)) << "exp" << str(z) << ": " << str(ex[i]) << ", want " << str(C(std::exp(CL(z))));
    EXPECT_TRUE(annex_g(lg[i], std::log(CL(z)), true)) << "log" << str(z) << ": " << str(lg[i]) << ", want " << str(C(std::log(CL(z))));
    EXPECT_TRUE(annex_g(sq[i], std::sqrt(CL(z)), true)) << "sqrt" << str(z) << ": " << str(sq[i]) << ", want " << str(C(std::sqrt(CL(z))));
  }
  // The other functions' special values: Annex G's through their identities (base/complex.h), as
  // the C library gives them (expm1 is NumPy's formula, whose special values are its own), the
  // signs Annex G leaves open (of zeros, of an infinity beside a NaN) included: NumPy's are glibc's.
  for (const Unary& f : kFunctions) {
    const std::string fname = f.name;
    if (fname == "exp" || fname == "log" || fname == "sqrt" || fname == "expm1" || fname == "sign" || fname == "square") continue;
    const std::vector<C> got = fetch_c(f.op(u));
    for (std::size_t i = 0; i < m; ++i)
      EXPECT_TRUE(annex_g(got[i], f.ref(CL(sv[i])), true, true)) << fname << str(sv[i]) << ": " << str(got[i]) << ", want " << str(C(f.ref(CL(sv[i]))));
  }
}

// ==, != and NumPy's lexicographic <, <=, >, >=, maximum, minimum (NaN propagates), where;
// isnan, isinf, isfinite of either part; on special and random values with ties.
TEST_P(ComplexTest, ComparisonsAndOrderAreNumPys) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  std::vector<C> x, y;
  const std::vector<C> sv = special_values();
  for (std::size_t i = 0; i < sv.size(); ++i)
    for (std::size_t j = 0; j < sv.size(); j += 3) {
      x.push_back(sv[i]);
      y.push_back(sv[(i * 7 + j) % sv.size()]);
    }
  std::vector<C> r = moderate(rng(), 500, t, 2);
  for (std::size_t i = 0; i < r.size(); ++i) {
    x.push_back(r[i]);
    C q = r[(i * 13) % r.size()];
    if (i % 3 == 0) q = C(r[i].real(), q.imag());  // equal real parts: the imaginary parts decide
    if (i % 7 == 0) q = r[i];
    y.push_back(q);
  }
  const Shape s{static_cast<std::int64_t>(x.size())};
  const Array a = upload_c(x, t, s, dev()), b = upload_c(y, t, s, dev());
  struct Cmp {
    const char* name;
    Array r;
    std::function<bool(C, C)> ref;
  };
  const std::vector<Cmp> cmps = {
      {"equal", porta::equal(a, b), [](C p, C q) { return p == q; }},
      {"not_equal", porta::not_equal(a, b), [](C p, C q) { return p != q; }},
      {"less", porta::less(a, b), clt},
      {"less_equal", porta::less_equal(a, b), cle},
      {"greater", porta::greater(a, b), cgt},
      {"greater_equal", porta::greater_equal(a, b), cge},
  };
  for (const Cmp& c : cmps) {
    ASSERT_EQ(c.r.dtype(), DType::boolean);
    const std::vector<bool> got = c.r.to_vector<bool>();
    expect_each(
        x.size(), [&](std::size_t i) { return got[i] == c.ref(x[i], y[i]); },
        [&](std::size_t i) { return cat_str(str(x[i]), ", ", str(y[i]), got[i] ? ": true" : ": false", "", ""); }, c.name);
  }
  const std::vector<C> mx = fetch_c(porta::maximum(a, b)), mn = fetch_c(porta::minimum(a, b));
  const std::vector<C> wh = fetch_c(porta::where(porta::less(a, b), a, porta::conj(b)));
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_TRUE(same(mx[i], cmax(x[i], y[i]))) << "maximum " << str(x[i]) << ", " << str(y[i]) << ": " << str(mx[i]);
    EXPECT_TRUE(same(mn[i], cmin(x[i], y[i]))) << "minimum " << str(x[i]) << ", " << str(y[i]) << ": " << str(mn[i]);
    EXPECT_TRUE(same(wh[i], clt(x[i], y[i]) ? x[i] : std::conj(y[i]))) << "where " << str(x[i]) << ", " << str(y[i]);
  }
  const std::vector<bool> nan = porta::isnan(a).to_vector<bool>(), inf = porta::isinf(a).to_vector<bool>(),
                          fin = porta::isfinite(a).to_vector<bool>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    const C z = x[i];
    EXPECT_EQ(nan[i], has_nan(z)) << str(z);
    // An infinite part makes it infinite, a NaN in the other too (NumPy's, the array API's isinf).
    EXPECT_EQ(inf[i], std::isinf(z.real()) || std::isinf(z.imag())) << str(z);
    EXPECT_EQ(fin[i], std::isfinite(z.real()) && std::isfinite(z.imag())) << str(z);
  }
}

// Casts: complex <-> complex per part, to a real dtype the real part (NumPy), to bool either part
// nonzero, to int32 the real part truncated (saturating, NaN 0: porta's rule for float -> int);
// real and integer arrays to complex as (x, 0). real, imag, conj, angle.
TEST_P(ComplexTest, CastsAndPartsFollowNumPy) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  std::vector<C> x = moderate(rng(), 301, t, 1e5);
  for (const C& z : special_values()) x.push_back(z);
  x.emplace_back(3e9, 1);  // beyond int32: saturates
  const Shape s{static_cast<std::int64_t>(x.size())};
  const Array a = upload_c(x, t, s, dev());
  const DType other = t == DType::complex64 ? DType::complex128 : DType::complex64;
  const std::vector<C> o = fetch_c(a.astype(other));
  const std::vector<double> re = fetch_real(a.astype(porta::real_dtype(t))), pr = fetch_real(porta::real(a)),
                            pi = fetch_real(porta::imag(a)), ang = fetch_real(porta::angle(a));
  const std::vector<bool> b = a.astype(DType::boolean).to_vector<bool>();
  const std::vector<std::int32_t> iv = a.astype(DType::int32).to_vector<std::int32_t>();
  const std::vector<C> cj = fetch_c(porta::conj(a));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const C z = x[i];
    EXPECT_TRUE(same(o[i], round_c(other, CL(z)))) << str(z) << " as " << porta::name(other) << ": " << str(o[i]);
    EXPECT_TRUE(same({re[i], 0}, {z.real(), 0})) << str(z) << " as real: " << re[i];
    EXPECT_TRUE(same({pr[i], pi[i]}, z)) << "real/imag of " << str(z);
    EXPECT_TRUE(same(cj[i], std::conj(z))) << "conj of " << str(z);
    EXPECT_TRUE(part_ok(ang[i], round_part(t, std::atan2(static_cast<long double>(z.imag()), static_cast<long double>(z.real()))),
                        4 * eps_of(t) * 4))
        << "angle of " << str(z) << ": " << ang[i];
    EXPECT_EQ(b[i], z.real() != 0 || z.imag() != 0) << str(z) << " as bool";
    const double r = z.real();
    const std::int32_t want = std::isnan(r) ? 0 : r >= 2147483647.0 ? 2147483647 : r <= -2147483648.0 ? INT32_MIN : static_cast<std::int32_t>(r);
    EXPECT_EQ(iv[i], want) << str(z) << " as int32";
  }
  // float and int32 arrays to complex: (x, 0); a real array with a complex one promotes.
  std::vector<double> fv = random_values(101, porta::real_dtype(t), -100, 100);
  fv.push_back(-0.0);
  fv.push_back(kNaN);
  const Array f = upload(fv, porta::real_dtype(t), {static_cast<std::int64_t>(fv.size())}, dev());
  const std::vector<C> fc = fetch_c(f.astype(t));
  for (std::size_t i = 0; i < fv.size(); ++i) EXPECT_TRUE(same(fc[i], C(fv[i], 0))) << fv[i];
  const Array n = porta::arange(7, DType::int32, dev());
  const Array nc = n.astype(t);
  ASSERT_EQ(nc.dtype(), t);
  const std::vector<C> ncv = fetch_c(nc);
  for (std::size_t i = 0; i < ncv.size(); ++i) EXPECT_TRUE(same(ncv[i], C(static_cast<double>(i), 0)));
  EXPECT_EQ((f + a.slice({porta::range(0, static_cast<std::int64_t>(fv.size()))})).dtype(), t);
}

// Fused expressions over views: x * y + z with a transposed x, a strided z, a broadcast row, and
// complex and real host scalars; odd 2-D shapes.
TEST_P(ComplexTest, FusedExpressionsOverViews) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::int64_t R = 37, K = 29;
  const std::vector<C> xv = moderate(rng(), static_cast<std::size_t>(R * K), t, 3), yv = moderate(rng(), static_cast<std::size_t>(R * K), t, 3),
                       zv = moderate(rng(), static_cast<std::size_t>(R * 2 * K), t, 3), rv = moderate(rng(), static_cast<std::size_t>(K), t, 3);
  const Array xt = upload_c(xv, t, {K, R}, dev()).transpose();           // x[i][j] = xv[j * R + i]
  const Array y = upload_c(yv, t, {R, K}, dev());
  const Array z = upload_c(zv, t, {R, 2 * K}, dev()).slice({porta::span, porta::every(2)});  // z[i][j] = zv[i * 2K + 2j]
  const Array row = upload_c(rv, t, {1, K}, dev());
  const C sc(1.5, -0.25);
  const Array e = xt * y + z;
  const Array f = porta::exp(porta::multiply(row, sc)) - y / 2.0 + porta::conj(z) * porta::abs(xt);
  ASSERT_EQ(e.dtype(), t);
  ASSERT_EQ(f.dtype(), t);
  const std::vector<C> ge = fetch_c(e), gf = fetch_c(f);
  for (std::int64_t i = 0; i < R; ++i)
    for (std::int64_t j = 0; j < K; ++j) {
      const std::size_t k = static_cast<std::size_t>(i * K + j);
      const CL xx(xv[static_cast<std::size_t>(j * R + i)]), yy(yv[k]), zz(zv[static_cast<std::size_t>(i * 2 * K + 2 * j)]),
          rr(rv[static_cast<std::size_t>(j)]);
      // Tolerance relative to the terms' sizes (cancellation between them is the formula's, not porta's).
      const CL re = xx * yy + zz;
      EXPECT_TRUE(close(t, ge[k], re, 8 * (std::abs(xx) * std::abs(yy) + std::abs(zz)) / std::max(std::abs(re), 1e-300L) + 8))
          << "x*y+z at " << i << ", " << j << ": " << str(ge[k]);
      const CL rf = std::exp(rr * CL(sc)) - yy / 2.0L + std::conj(zz) * std::abs(xx);
      const long double scale = std::abs(std::exp(rr * CL(sc))) + std::abs(yy) + std::abs(zz) * std::abs(xx);
      EXPECT_TRUE(close(t, gf[k], rf, 64 * scale / std::max(std::abs(rf), 1e-300L) + 64))
          << "fused at " << i << ", " << j << ": " << str(gf[k]) << ", want " << str(C(rf));
    }
}

// Contiguous expressions exactly as NumPy rounds them, each operation in the dtype (a product by
// NumPy's formula, no FMA): the arithmetic that CPU OpenCL devices run on vectors of pairs
// (codegen's complex vector form), at lengths around its vector of 4 (complex128: 2) elements,
// with a broadcast operand, a complex and a real scalar, a cast from float and real/imag results.
TEST_P(ComplexTest, ContiguousArithmeticRoundsAsNumPy) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const DType rt = porta::real_dtype(t);
  // A sum in the dtype's arithmetic (not a double sum rounded afterwards: that rounds twice).
  const auto plus = [&](double a, double b) {
    if (!single(t)) return a + b;
    volatile float r = static_cast<float>(a) + static_cast<float>(b);
    return static_cast<double>(r);
  };
  const auto add = [&](C a, C b) { return C(plus(a.real(), b.real()), plus(a.imag(), b.imag())); };
  const auto sub = [&](C a, C b) { return add(a, -b); };
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{5}, std::size_t{1027}}) {
    std::vector<C> xv = spread(rng(), n, t), yv = spread(rng(), n, t), zv = spread(rng(), n, t);
    const std::vector<C> specials = special_values();
    for (std::size_t i = 0; i < std::min(n, specials.size()); i += 2) xv[i] = specials[i];
    std::vector<double> fv(n);
    for (std::size_t i = 0; i < n; ++i) fv[i] = round_part(t, yv[i].imag());
    const Shape s{static_cast<std::int64_t>(n)};
    const Array x = upload_c(xv, t, s, dev()), y = upload_c(yv, t, s, dev()), z = upload_c(zv, t, s, dev());
    const Array f = upload(fv, rt, s, dev());
    const C sc(1.5, -0.25);
    const Array e = x * y + z, g = porta::conj(x) * 2.5 - y, h = x * y.slice({porta::range(0, 1)}) + sc,
                c = f.astype(t) * x, r = porta::real(x * y) + porta::imag(z);
    const std::vector<C> ge = fetch_c(e), gg = fetch_c(g), gh = fetch_c(h), gc = fetch_c(c);
    const std::vector<double> gr = fetch_real(r);
    const std::string at = cat_str(porta::name(t), " n=", n);
    expect_each(n, [&](std::size_t i) { return same(ge[i], add(mul_ref(t, xv[i], yv[i]), zv[i])); },
                [&](std::size_t i) { return cat_str(str(xv[i]), " ", str(yv[i]), " ", str(zv[i]), ": ", str(ge[i])); }, "x*y+z " + at);
    expect_each(n, [&](std::size_t i) { return same(gg[i], sub(mul_ref(t, std::conj(xv[i]), C(2.5, 0)), yv[i])); },
                [&](std::size_t i) { return cat_str(str(xv[i]), ": ", str(gg[i])); }, "conj(x)*2.5-y " + at);
    expect_each(n, [&](std::size_t i) { return same(gh[i], add(mul_ref(t, xv[i], yv[0]), sc)); },
                [&](std::size_t i) { return cat_str(str(xv[i]), ": ", str(gh[i])); }, "x*y[0]+sc " + at);
    expect_each(n, [&](std::size_t i) { return same(gc[i], mul_ref(t, C(fv[i], 0), xv[i])); },
                [&](std::size_t i) { return cat_str(fv[i], " ", str(xv[i]), ": ", str(gc[i])); }, "f*x " + at);
    expect_each(n,
                [&](std::size_t i) {
                  const double want = plus(mul_ref(t, xv[i], yv[i]).real(), zv[i].imag());
                  return (std::isnan(gr[i]) && std::isnan(want)) || gr[i] == want;
                },
                [&](std::size_t i) { return cat_str(str(xv[i]), " ", str(yv[i]), ": ", gr[i]); }, "real(x*y)+imag(z) " + at);
  }
}

// sum, prod, mean over the whole array and each axis (odd extents, a strided view), max, min,
// argmax, argmin in NumPy's order (NaN first found wins), any, all, var and std (real results).
TEST_P(ComplexTest, ReductionsMatchTheHost) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::int64_t R = 13, K = 257;
  std::vector<C> v = moderate(rng(), static_cast<std::size_t>(R * 2 * K), t, 1);
  const Array base = upload_c(v, t, {R, 2 * K}, dev());
  const Array a = base.slice({porta::span, porta::every(2)});  // a[i][j] = v[i * 2K + 2j]
  auto at = [&](std::int64_t i, std::int64_t j) { return CL(v[static_cast<std::size_t>(i * 2 * K + 2 * j)]); };
  const double eps = eps_of(t);
  // Sums: error within n eps sum|x| (any order); products of values near the unit circle.
  for (int axis : {-1, 0, 1}) {
    const Array s = axis < 0 ? porta::sum(a) : porta::sum(a, axis);
    const Array mn = axis < 0 ? porta::mean(a) : porta::mean(a, axis);
    ASSERT_EQ(s.dtype(), t);
    ASSERT_EQ(mn.dtype(), t);
    const std::vector<C> gs = fetch_c(s), gm = fetch_c(mn);
    const std::int64_t outs = axis < 0 ? 1 : axis == 0 ? K : R, len = axis < 0 ? R * K : axis == 0 ? R : K;
    ASSERT_EQ(static_cast<std::int64_t>(gs.size()), outs);
    for (std::int64_t o = 0; o < outs; ++o) {
      CL ref = 0;
      long double mag = 0;
      for (std::int64_t r = 0; r < len; ++r) {
        const CL z = axis < 0 ? at(r / K, r % K) : axis == 0 ? at(r, o) : at(o, r);
        ref += z;
        mag += std::abs(z);
      }
      const double k = static_cast<double>(len) * static_cast<double>(mag) / std::max(static_cast<double>(std::abs(ref)), 1e-30);
      EXPECT_TRUE(close(t, gs[static_cast<std::size_t>(o)], ref, k)) << "sum axis " << axis << " [" << o << "]: " << str(gs[static_cast<std::size_t>(o)]);
      EXPECT_TRUE(close(t, gm[static_cast<std::size_t>(o)], ref / static_cast<long double>(len), k + 2)) << "mean axis " << axis;
    }
  }
  {
    std::vector<C> u(301);
    std::uniform_real_distribution<double> th(-3, 3), r(0.95, 1.05);
    for (auto& z : u) z = round_c(t, std::polar<long double>(r(rng()), th(rng())));
    const std::vector<C> p = fetch_c(porta::prod(upload_c(u, t, {301}, dev())));
    CL ref = 1;
    for (const C& z : u) ref *= CL(z);
    EXPECT_TRUE(close(t, p[0], ref, 4 * 301)) << "prod: " << str(p[0]) << ", want " << str(C(ref));
  }
  // The order: ties in the real part, then NaN (max and min give the first NaN, argmax its index).
  std::vector<C> w = {{1, 2}, {3, -1}, {3, 5}, {-2, 7}, {3, 5}, {0, 0}, {-2, -7}};
  const Array wa = upload_c(w, t, {7}, dev());
  EXPECT_TRUE(same(fetch_c(porta::max(wa))[0], C(3, 5)));
  EXPECT_TRUE(same(fetch_c(porta::min(wa))[0], C(-2, -7)));
  EXPECT_EQ(porta::argmax(wa).item<std::int64_t>(), 2);
  EXPECT_EQ(porta::argmin(wa).item<std::int64_t>(), 6);
  w.insert(w.begin() + 3, C(0, kNaN));
  w.insert(w.begin() + 5, C(kNaN, 1));
  const Array wn = upload_c(w, t, {9}, dev());
  EXPECT_TRUE(same(fetch_c(porta::max(wn))[0], C(0, kNaN))) << str(fetch_c(porta::max(wn))[0]);
  EXPECT_TRUE(same(fetch_c(porta::min(wn))[0], C(0, kNaN)));
  EXPECT_EQ(porta::argmax(wn).item<std::int64_t>(), 3);
  EXPECT_EQ(porta::argmin(wn).item<std::int64_t>(), 3);
  // Over an axis of the random 2-D view, against the host's order.
  {
    const std::vector<C> gmax = fetch_c(porta::max(a, 1));
    const std::vector<std::int64_t> gamin = porta::argmin(a, 0).to_vector<std::int64_t>();
    for (std::int64_t i = 0; i < R; ++i) {
      C m = C(at(i, 0));
      for (std::int64_t j = 1; j < K; ++j) m = cmax(m, C(at(i, j)));
      EXPECT_TRUE(same(gmax[static_cast<std::size_t>(i)], m)) << "max row " << i;
    }
    for (std::int64_t j = 0; j < K; ++j) {
      std::int64_t best = 0;
      for (std::int64_t i = 1; i < R; ++i)
        if (clt(C(at(i, j)), C(at(best, j)))) best = i;
      EXPECT_EQ(gamin[static_cast<std::size_t>(j)], best) << "argmin column " << j;
    }
  }
  // any / all: either part nonzero.
  const Array zs = upload_c({{0, 0}, {-0.0, 0}, {0, 1e-30}, {0, 0}}, t, {4}, dev());
  EXPECT_TRUE(porta::any(zs).item<bool>());
  EXPECT_FALSE(porta::all(zs).item<bool>());
  EXPECT_FALSE(porta::any(zs.slice({porta::range(0, 2)})).item<bool>());
  EXPECT_TRUE(porta::all(zs.slice({porta::range(2, 3)})).item<bool>());
  // Empty and one-element arrays.
  EXPECT_TRUE(same(fetch_c(porta::sum(upload_c({}, t, {0}, dev())))[0], C(0, 0)));
  EXPECT_TRUE(same(fetch_c(porta::prod(upload_c({}, t, {0}, dev())))[0], C(1, 0)));
  EXPECT_TRUE(same(fetch_c(porta::sum(upload_c({{2, -3}}, t, {1}, dev())))[0], C(2, -3)));
  // var and std: the mean squared magnitude of the deviations, of the real dtype (NumPy).
  {
    const Array vr = porta::var(a), sd = porta::std(a);
    ASSERT_EQ(vr.dtype(), porta::real_dtype(t));
    ASSERT_EQ(sd.dtype(), porta::real_dtype(t));
    CL mean = 0;
    for (std::int64_t i = 0; i < R; ++i)
      for (std::int64_t j = 0; j < K; ++j) mean += at(i, j);
    mean /= static_cast<long double>(R * K);
    long double ss = 0;
    for (std::int64_t i = 0; i < R; ++i)
      for (std::int64_t j = 0; j < K; ++j) ss += std::norm(at(i, j) - mean);
    const long double want = ss / static_cast<long double>(R * K);
    EXPECT_NEAR(fetch_real(vr)[0], static_cast<double>(want), 64 * eps * static_cast<double>(want));
    EXPECT_NEAR(fetch_real(sd)[0], std::sqrt(static_cast<double>(want)), 64 * eps * std::sqrt(static_cast<double>(want)));
  }
  (void)eps;
}

// What NumPy refuses for complex is a DTypeError naming the dtype.
TEST_P(ComplexTest, RefusedOpsAreDTypeErrors) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const Array a = upload_c({{1, 2}, {3, 4}}, t, {2}, dev());
  const std::vector<std::pair<const char*, std::function<void()>>> refused = {
      {"remainder", [&] { porta::remainder(a, a); }},
      {"floor_divide", [&] { porta::floor_divide(a, a); }},
      {"floor", [&] { porta::floor(a); }},
      {"signbit", [&] { porta::signbit(a); }},
      {"atan2", [&] { porta::atan2(a, a); }},
      {"hypot", [&] { porta::hypot(a, a); }},
      {"logaddexp", [&] { porta::logaddexp(a, a); }},
      {"erf", [&] { porta::erf(a); }},
      {"bitwise_and", [&] { porta::bitwise_and(a, a); }},
  };
  for (const auto& [name, f] : refused) {
    try {
      f();
      ADD_FAILURE() << name << " of " << porta::name(t) << " did not throw";
    } catch (const porta::DTypeError& e) {
      EXPECT_NE(std::string(e.what()).find(porta::name(t)), std::string::npos) << name << ": " << e.what();
    }
  }
}

// Creation, fills and writes of complex values (complex128's 16-byte pattern goes through a
// kernel), gathers, masks and concatenation move the 8 or 16 bytes of each element.
TEST_P(ComplexTest, CreationWritesAndGathers) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  for (std::int64_t n : {1, 7, 1025}) {
    const std::vector<C> one = fetch_c(porta::ones({n}, t, dev())), z = fetch_c(porta::zeros({n}, t, dev())),
                         f = fetch_c(porta::full({n}, -2.5, t, dev()));
    for (std::int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      EXPECT_TRUE(same(one[k], C(1, 0)) && same(z[k], C(0, 0)) && same(f[k], C(-2.5, 0))) << n << " " << i;
    }
  }
  const std::vector<C> v = moderate(rng(), 301, t, 5);
  const Array a = upload_c(v, t, {301}, dev());
  Array b = a.copy();
  porta::assign(b.slice({porta::range(10, 200, 3)}), C(2, -3));
  const std::vector<C> bv = fetch_c(b);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const bool written = i >= 10 && i < 200 && (i - 10) % 3 == 0;
    EXPECT_TRUE(same(bv[i], written ? C(2, -3) : v[i])) << i;
  }
  const Array idx = porta::arange(300, -1, -7, DType::int64, dev());
  const std::vector<C> g = fetch_c(a[idx]);
  for (std::size_t k = 0; k < g.size(); ++k) EXPECT_TRUE(same(g[k], v[300 - 7 * k])) << k;
  const std::vector<C> m = fetch_c(a[porta::greater(porta::imag(a), 0.0)]);
  std::vector<C> want;
  for (const C& z : v)
    if (z.imag() > 0) want.push_back(z);
  ASSERT_EQ(m.size(), want.size());
  for (std::size_t k = 0; k < m.size(); ++k) EXPECT_TRUE(same(m[k], want[k])) << k;
  const std::vector<C> c = fetch_c(porta::concatenate({a, a.slice({porta::reversed})}));
  for (std::size_t k = 0; k < v.size(); ++k) EXPECT_TRUE(same(c[k], v[k]) && same(c[v.size() + k], v[v.size() - 1 - k])) << k;
}

// vecdot conjugates its first argument (the array API standard's definition).
TEST_P(ComplexTest, VecdotConjugatesTheFirstArgument) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  const std::vector<C> x = moderate(rng(), 5 * 33, t, 2), y = moderate(rng(), 5 * 33, t, 2);
  const std::vector<C> got = fetch_c(porta::vecdot(upload_c(x, t, {5, 33}, dev()), upload_c(y, t, {5, 33}, dev())));
  ASSERT_EQ(got.size(), 5u);
  for (std::size_t r = 0; r < 5; ++r) {
    CL ref = 0;
    long double mag = 0;
    for (std::size_t k = 0; k < 33; ++k) {
      ref += std::conj(CL(x[r * 33 + k])) * CL(y[r * 33 + k]);
      mag += std::abs(CL(x[r * 33 + k])) * std::abs(CL(y[r * 33 + k]));
    }
    EXPECT_TRUE(close(t, got[r], ref, 4 * 33 * static_cast<double>(mag / std::max(std::abs(ref), 1e-30L)))) << str(got[r]);
  }
}

// User kernels take complex parameters as base/complex.h's structs, computed with its functions.
TEST_P(ComplexTest, ElementwiseKernelTakesComplexParameters) {
  const DType t = dtype();
  PORTA_REQUIRE_DTYPE(t);
  if (!dev().compiles_at_runtime()) GTEST_SKIP() << dev().spec() << " compiles no kernels at run time";
  const std::string n(porta::name(t)), s = single(t) ? "c64" : "c128", r(porta::name(porta::real_dtype(t)));
  porta::ElementwiseKernel k(n + " x, " + n + " y", n + " z, " + r + " m", "z = porta_mul_" + s + "(x, porta_conj_" + s + "(y)); m = porta_abs_" + s + "(x)",
                             "complex_user_" + s);
  const std::vector<C> x = moderate(rng(), 257, t, 3), y = moderate(rng(), 257, t, 3);
  const auto out = k.call({upload_c(x, t, {257}, dev()), upload_c(y, t, {257}, dev())});
  ASSERT_EQ(out.size(), 2u);
  const std::vector<C> z = fetch_c(out[0]);
  const std::vector<double> m = fetch_real(out[1]);
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_TRUE(close(t, z[i], CL(x[i]) * std::conj(CL(y[i])), 4)) << str(z[i]);
    // CUDA's hypot of doubles is within 2 ulps (the programming guide's table), not 1.
    EXPECT_TRUE(part_ok(m[i], round_part(t, std::abs(CL(x[i]))), 4 * eps_of(t) * std::abs(x[i]))) << m[i];
  }
}

PORTA_INSTANTIATE_DEVICES_DTYPES(ComplexTest, kComplexDTypes);

}  // namespace
}  // namespace porta_test
