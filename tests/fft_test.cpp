// porta::fft on every device against a naive DFT in long double on the host (O(n^2): small n),
// within c log2(n) eps ||x|| per transformed line. Lengths: 1, 2, primes (3, 7, 17, 97, 1009:
// Bluestein on the host FFT and VkFFT), powers of two and smooth ones (16, 128, 360).
// PoCL builds VkFFT's programs for each distinct plan (kind, dtype, lengths) in about 6 s cold,
// so on OpenCL CPU devices that run VkFFT (PORTA_OPENCL_FFT=vkfft; by default they run porta's
// host FFT) every test draws from a few lengths (1, 16, 17, 360: trivial, radix 2, Bluestein,
// mixed radix 2-3-5) and shares plans with the others: ten plans in all, which
// python/tests/test_fft.py uses too (PoCL's kernel cache then serves it). Other devices take the
// full lists. LargeLengths checks long transforms on a sample of their outputs (O(n) each).
#include <porta/fft.hpp>

#include <cmath>
#include <limits>
#include <complex>
#include <numbers>
#include <thread>

#include <porta/settings.hpp>

#include "test_common.hpp"

namespace porta_test {
namespace {

using CL = std::complex<long double>;
namespace pf = porta::fft;

double eps_of(DType t) { return (t == DType::complex64 || t == DType::float32) ? 0x1p-24 : 0x1p-53; }

std::vector<CL> host_values(const Array& a) {
  std::vector<CL> v(static_cast<std::size_t>(a.size()));
  switch (a.dtype()) {
    case DType::complex64: {
      auto f = a.to_vector<std::complex<float>>();
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = CL(f[i].real(), f[i].imag());
      break;
    }
    case DType::complex128: {
      auto f = a.to_vector<std::complex<double>>();
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = CL(f[i].real(), f[i].imag());
      break;
    }
    default: {
      auto h = fetch(a).values();
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = CL(h[i], 0);
    }
  }
  return v;
}

// Random complex (or real) data of dtype t, as a device array and its host values.
Array random_data(TestContext& c, const Shape& shape, DType t, std::vector<CL>* host) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  std::normal_distribution<double> g;
  Array a;
  if (t == DType::complex64) {
    std::vector<std::complex<float>> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = {static_cast<float>(g(c.rng())), static_cast<float>(g(c.rng()))};
    a = porta::from_host(v, shape, c.dev());
  } else if (t == DType::complex128) {
    std::vector<std::complex<double>> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = {g(c.rng()), g(c.rng())};
    a = porta::from_host(v, shape, c.dev());
  } else {
    a = c.random_array(shape, t, -2, 2);
  }
  if (host) *host = host_values(a);
  return a;
}

// Row-major strides of a shape.
std::vector<std::int64_t> strides_of(const Shape& s) {
  std::vector<std::int64_t> st(s.size(), 1);
  for (int i = static_cast<int>(s.size()) - 2; i >= 0; --i) st[static_cast<std::size_t>(i)] = st[static_cast<std::size_t>(i) + 1] * s[static_cast<std::size_t>(i) + 1];
  return st;
}

// The unnormalised DFT of v (of shape `shape`) along `axis`, in place.
void dft_along(std::vector<CL>& v, const Shape& shape, int axis, bool forward) {
  const auto st = strides_of(shape);
  const std::int64_t n = shape[static_cast<std::size_t>(axis)], stride = st[static_cast<std::size_t>(axis)];
  if (n == 0) return;
  const std::int64_t total = static_cast<std::int64_t>(v.size());
  std::vector<CL> line(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  std::vector<CL> w(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    const long double a = (forward ? -2.0L : 2.0L) * std::numbers::pi_v<long double> * k / n;
    w[static_cast<std::size_t>(k)] = CL(std::cos(a), std::sin(a));
  }
  for (std::int64_t base = 0; base < total; ++base) {
    if ((base / stride) % n != 0) continue;  // the first element of each line
    for (std::int64_t j = 0; j < n; ++j) line[static_cast<std::size_t>(j)] = v[static_cast<std::size_t>(base + j * stride)];
    for (std::int64_t k = 0; k < n; ++k) {
      CL s = 0;
      for (std::int64_t j = 0; j < n; ++j) s += line[static_cast<std::size_t>(j)] * w[static_cast<std::size_t>((j * k) % n)];
      out[static_cast<std::size_t>(k)] = s;
    }
    for (std::int64_t k = 0; k < n; ++k) v[static_cast<std::size_t>(base + k * stride)] = out[static_cast<std::size_t>(k)];
  }
}

// got (an array) against ref (host values of `shape`): dtype, shape, and every element within
// c log2(n + 1) eps ||x|| (x_norm: the input's norm over a transformed line or block).
::testing::AssertionResult matches(const Array& got, DType dtype, const Shape& shape, const std::vector<CL>& ref,
                                   double x_norm, std::int64_t n) {
  if (got.dtype() != dtype)
    return ::testing::AssertionFailure() << "dtype " << porta::name(got.dtype()) << ", expected " << porta::name(dtype);
  if (got.shape() != shape)
    return ::testing::AssertionFailure() << "shape " << shape_str(got.shape()) << ", expected " << shape_str(shape);
  const auto g = host_values(got);
  const double tol = 4.0 * (std::log2(static_cast<double>(n) + 1) + 1) * eps_of(dtype) * std::max(x_norm, 1e-30);
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double err = static_cast<double>(std::abs(g[i] - ref[i]));
    if (!(err <= tol))
      return ::testing::AssertionFailure() << "element " << i << ": " << g[i] << " vs " << ref[i] << " (error " << err
                                           << ", bound " << tol << ")";
  }
  return ::testing::AssertionSuccess();
}

double norm_of(const std::vector<CL>& v) {
  long double s = 0;
  for (auto& x : v) s += std::norm(x);
  return static_cast<double>(std::sqrt(s));
}

// v cropped / zero-padded to n along axis.
std::vector<CL> resize_along(const std::vector<CL>& v, Shape& shape, int axis, std::int64_t n) {
  Shape out = shape;
  out[static_cast<std::size_t>(axis)] = n;
  const auto si = strides_of(shape), so = strides_of(out);
  std::int64_t total = 1;
  for (auto d : out) total *= d;
  std::vector<CL> r(static_cast<std::size_t>(total));
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t rem = i, src = 0;
    bool inside = true;
    for (std::size_t d = 0; d < out.size(); ++d) {
      const std::int64_t c = rem / so[d];
      rem %= so[d];
      if (c >= shape[d]) inside = false;
      src += c * si[d];
    }
    r[static_cast<std::size_t>(i)] = inside ? v[static_cast<std::size_t>(src)] : CL(0);
  }
  shape = out;
  return r;
}

class Fft : public DeviceTest {
 protected:
  bool has(DType t) { return dev().supports(t); }
  // VkFFT on PoCL: few distinct plans (see the top of the file).
  bool sampled() const {
    return dev().kind() == porta::DeviceKind::cpu && dev().backend() == porta::Backend::opencl &&
           porta::setting_choice("PORTA_OPENCL_FFT") == "vkfft";
  }
  std::vector<std::int64_t> pick(std::vector<std::int64_t> all, std::vector<std::int64_t> few) const {
    return sampled() ? few : all;
  }
};

// fft and ifft over the last axis of a (3, n) batch: every length.
TEST_P(Fft, LengthsComplex64) {
  for (std::int64_t n : pick({1, 2, 3, 7, 16, 17, 97, 128, 360, 1009}, {1, 16, 17, 360})) {
    std::vector<CL> x;
    Array a = random_data(*this, {3, n}, DType::complex64, &x);
    const double xn = norm_of(x);
    for (bool forward : {true, false}) {
      std::vector<CL> ref = x;
      dft_along(ref, {3, n}, 1, forward);
      if (!forward)
        for (auto& r : ref) r /= static_cast<long double>(n);
      Array got = forward ? pf::fft(a) : pf::ifft(a);
      EXPECT_TRUE(matches(got, DType::complex64, {3, n}, ref, xn, n)) << "n " << n << (forward ? " fft" : " ifft");
    }
  }
}

TEST_P(Fft, Complex128AndRealInputs) {
  // complex128 where the device has float64; float32 and float16 inputs give complex64, int32 complex128.
  for (DType t : {DType::complex128, DType::float32, DType::float16, DType::int32}) {
    const DType result = (t == DType::float32 || t == DType::float16) ? DType::complex64 : DType::complex128;
    if (!has(result) || !has(t)) continue;
    for (std::int64_t n : pick({5, 64, 97}, {17})) {
      std::vector<CL> x;
      Array a = random_data(*this, {2, n}, t, &x);
      std::vector<CL> ref = x;
      dft_along(ref, {2, n}, 1, true);
      EXPECT_TRUE(matches(pf::fft(a), result, {2, n}, ref, norm_of(x), n)) << porta::name(t) << " n " << n;
    }
  }
}

// rfft / irfft / hfft / ihfft, odd and even lengths, every norm.
TEST_P(Fft, RealTransformsAndNorms) {
  const DType r = DType::float32, c = DType::complex64;
  for (std::int64_t n : pick({1, 6, 7, 128}, {1, 16, 17})) {
    std::vector<CL> x;
    Array a = random_data(*this, {2, n}, r, &x);
    std::vector<CL> full = x;
    dft_along(full, {2, n}, 1, true);
    const std::int64_t h = n / 2 + 1;
    std::vector<CL> half;
    for (std::int64_t b = 0; b < 2; ++b)
      for (std::int64_t k = 0; k < h; ++k) half.push_back(full[static_cast<std::size_t>(b * n + k)]);
    const double xn = norm_of(x);
    for (auto norm : {pf::Norm::backward, pf::Norm::ortho, pf::Norm::forward}) {
      const long double f = norm == pf::Norm::backward ? 1.0L : norm == pf::Norm::ortho ? 1.0L / std::sqrt((long double)n) : 1.0L / n;
      std::vector<CL> ref = half;
      for (auto& v : ref) v *= f;
      EXPECT_TRUE(matches(pf::rfft(a, std::nullopt, -1, norm), c, {2, h}, ref, xn * static_cast<double>(f), n)) << "rfft n " << n;
      // irfft(rfft(x)) == x under every norm.
      Array back = pf::irfft(pf::rfft(a, std::nullopt, -1, norm), n, -1, norm);
      EXPECT_TRUE(matches(back, r, {2, n}, x, xn, n)) << "irfft n " << n;
      // ihfft is conj(rfft) with the norm swapped; hfft(ihfft(x)) == x.
      const long double g = norm == pf::Norm::forward ? 1.0L : norm == pf::Norm::ortho ? 1.0L / std::sqrt((long double)n) : 1.0L / n;
      std::vector<CL> iref = half;
      for (auto& v : iref) v = std::conj(v) * g;
      EXPECT_TRUE(matches(pf::ihfft(a, std::nullopt, -1, norm), c, {2, h}, iref, xn * static_cast<double>(g), n)) << "ihfft n " << n;
      EXPECT_TRUE(matches(pf::hfft(pf::ihfft(a, std::nullopt, -1, norm), n, -1, norm), r, {2, n}, x, xn, n)) << "hfft n " << n;
    }
  }
}

// n pads and crops; axis 0 of a view with negative strides; fftn and ifft2 over axes {2, 0}; rfftn
// and irfftn over axes {0, 2} with s. Lengths 16 and 17.
TEST_P(Fft, AxesViewsAndLengths) {
  std::vector<CL> x;
  const std::int64_t A = 17, B = 5, C = 16;
  Array base = random_data(*this, {A, B, C}, DType::complex64, &x);
  Array view = base.slice({porta::reversed, porta::from(1), porta::every(-1)});  // (17, 4, 16), non-contiguous
  Shape vs = {A, B - 1, C};
  std::vector<CL> xv(static_cast<std::size_t>(A * (B - 1) * C));
  for (std::int64_t i = 0; i < A; ++i)
    for (std::int64_t j = 0; j < B - 1; ++j)
      for (std::int64_t k = 0; k < C; ++k)
        xv[static_cast<std::size_t>((i * (B - 1) + j) * C + k)] = x[static_cast<std::size_t>(((A - 1 - i) * B + j + 1) * C + (C - 1 - k))];
  const double xn = norm_of(xv);
  for (auto [axis, n] : std::vector<std::pair<int, std::int64_t>>{{0, 16}, {0, 17}, {1, 17}, {-1, 17}}) {
    Shape s = vs;
    const int ax = axis < 0 ? 2 : axis;
    std::vector<CL> ref = resize_along(xv, s, ax, n);
    dft_along(ref, s, ax, true);
    EXPECT_TRUE(matches(pf::fft(view, n, axis), DType::complex64, s, ref, xn, n)) << "axis " << axis << " n " << n;
  }
  {
    std::vector<CL> ref = xv;
    dft_along(ref, vs, 2, true);
    dft_along(ref, vs, 0, true);
    EXPECT_TRUE(matches(pf::fftn(view, std::nullopt, std::vector<int>{2, 0}), DType::complex64, vs, ref, xn, A * C));
    // ifft2 over the same axes: the same plan's inverse (one plan less to build on PoCL).
    std::vector<CL> ref2 = xv;
    dft_along(ref2, vs, 0, false);
    dft_along(ref2, vs, 2, false);
    for (auto& v : ref2) v /= static_cast<long double>(A * C);
    EXPECT_TRUE(matches(pf::ifft2(view, std::nullopt, {2, 0}), DType::complex64, vs, ref2, xn, A * C));
  }
  {
    // rfftn over axes {0, 2} with s = (16, 17): crops axis 0, pads the real axis 2 to 17.
    Array rv = porta::real(view);
    std::vector<CL> xr(xv.size());
    for (std::size_t i = 0; i < xv.size(); ++i) xr[i] = CL(xv[i].real(), 0);
    Shape s = vs;
    std::vector<CL> xs = resize_along(xr, s, 0, 16);
    xs = resize_along(xs, s, 2, 17);
    std::vector<CL> ref = xs;
    dft_along(ref, s, 2, true);
    dft_along(ref, s, 0, true);
    std::vector<CL> half;
    for (std::int64_t i = 0; i < s[0] * s[1]; ++i)
      for (std::int64_t k = 0; k < 9; ++k) half.push_back(ref[static_cast<std::size_t>(i * 17 + k)]);
    Array got = pf::rfftn(rv, std::vector<std::int64_t>{16, 17}, std::vector<int>{0, 2});
    EXPECT_TRUE(matches(got, DType::complex64, {16, B - 1, 9}, half, norm_of(xr), 16 * 17));
    Array back = pf::irfftn(got, std::vector<std::int64_t>{16, 17}, std::vector<int>{0, 2});
    EXPECT_TRUE(matches(back, DType::float32, s, xs, norm_of(xr), 16 * 17));
  }
}

// Round trips in complex128, a lazy input (evaluated first), and an empty batch.
TEST_P(Fft, RoundTripsLazyAndEmpty) {
  const DType t = has(DType::complex128) ? DType::complex128 : DType::complex64;
  std::vector<CL> x;
  Array a = random_data(*this, {17, 3}, t, &x);
  Array lazy = a * 2.0;  // not evaluated yet
  for (auto& v : x) v *= 2.0L;
  EXPECT_TRUE(matches(pf::ifft(pf::fft(lazy, std::nullopt, 0), std::nullopt, 0), t, {17, 3}, x, norm_of(x), 17));
  Array e = pf::fft(porta::zeros({0, 8}, DType::complex64, dev()));
  EXPECT_EQ(e.shape(), (Shape{0, 8}));
  EXPECT_EQ(e.dtype(), DType::complex64);
  Array er = pf::rfft(porta::zeros({3, 0, 8}, DType::float32, dev()));
  EXPECT_EQ(er.shape(), (Shape{3, 0, 5}));
  // A zero-length axis padded by n.
  Array z = pf::fft(porta::zeros({2, 0}, DType::complex64, dev()), 16);
  EXPECT_EQ(z.shape(), (Shape{2, 16}));
  EXPECT_TRUE(matches(z, DType::complex64, {2, 16}, std::vector<CL>(32), 1, 16));
}

// A NaN spreads over its own line only; -0.0 and zeros transform as zeros; a zero line stays zero.
TEST_P(Fft, NaNAndZeros) {
  std::vector<std::complex<float>> v(3 * 16);
  std::normal_distribution<float> g;
  for (auto& z : v) z = {g(rng()), g(rng())};
  v[16 + 5] = {std::numeric_limits<float>::quiet_NaN(), 0};
  for (int j = 0; j < 16; ++j) v[32 + j] = {j % 2 ? -0.0f : 0.0f, -0.0f};
  auto y = pf::fft(porta::from_host(v, {3, 16}, dev())).to_vector<std::complex<float>>();
  for (int j = 0; j < 16; ++j) {
    EXPECT_TRUE(std::isfinite(y[j].real()) && std::isfinite(y[j].imag())) << j;
    EXPECT_TRUE(std::isnan(y[16 + j].real()) || std::isnan(y[16 + j].imag())) << j;
    EXPECT_EQ(y[32 + j], std::complex<float>(0, 0)) << j;
  }
}

TEST_P(Fft, Errors) {
  Array a = porta::zeros({4}, DType::complex64, dev());
  if (!has(DType::float64)) {  // int32 transforms in complex128
    EXPECT_NE(thrown_message<porta::DTypeError>([&] { pf::fft(porta::zeros({4}, DType::int32, dev())); }).find(dev().spec()),
              std::string::npos);
  }
  EXPECT_NE(thrown_message<porta::InvalidArgument>([&] { pf::fft(a, 0); }).find("(0)"), std::string::npos);
  EXPECT_NE(thrown_message<porta::DTypeError>([&] { pf::rfft(a); }).find("complex64"), std::string::npos);
  EXPECT_NE(thrown_message<porta::InvalidArgument>([&] { pf::fft(porta::zeros({}, DType::complex64, dev())); }).find("0-d"),
            std::string::npos);
  EXPECT_NE(thrown_message<porta::InvalidArgument>([&] { pf::fft(a, std::nullopt, 3); }).find("3"), std::string::npos);
  EXPECT_NE(thrown_message<porta::InvalidArgument>([&] {
              pf::fftn(a, std::vector<std::int64_t>{4, 4}, std::vector<int>{0});
            }).find("s has 2"),
            std::string::npos);
  EXPECT_NE(thrown_message<porta::InvalidArgument>([&] {
              pf::rfftn(porta::zeros({4, 4}, DType::float32, dev()), std::nullopt, std::vector<int>{1, 1});
            }).find("named twice"),
            std::string::npos);
  EXPECT_THROW(pf::norm_from_string("none"), porta::InvalidArgument);
  // Graph capture: refused with a message, the arrays untouched.
  Array g = porta::zeros({16}, DType::complex64, dev()).copy();
  Array out = porta::zeros({16}, DType::complex64, dev()).copy();
  EXPECT_NE(thrown_message<porta::InvalidArgument>([&] {
              porta::record({g}, {out}, [&] { out.assign(pf::fft(g)); });
            }).find("graph"),
            std::string::npos);
  EXPECT_THROW(pf::fftfreq(0), porta::InvalidArgument);
  // The input is untouched and still usable.
  EXPECT_EQ(a.to_vector<std::complex<float>>()[0], std::complex<float>(0, 0));
}

TEST_P(Fft, FrequenciesAndShifts) {
  for (std::int64_t n : {1, 4, 7}) {
    auto f = pf::fftfreq(n, 0.5, DType::float64, dev());
    auto rf = pf::rfftfreq(n, 0.5, DType::float64, dev());
    std::vector<double> ref, rref;
    for (std::int64_t i = 0; i < n; ++i) ref.push_back(static_cast<double>(i <= (n - 1) / 2 ? i : i - n) * (1.0 / (n * 0.5)));
    for (std::int64_t i = 0; i <= n / 2; ++i) rref.push_back(static_cast<double>(i) * (1.0 / (n * 0.5)));
    if (has(DType::float64)) {
      EXPECT_EQ(f.to_vector<double>(), ref);
      EXPECT_EQ(rf.to_vector<double>(), rref);
    }
  }
  std::vector<double> v;
  Array a = random_array({5, 4}, DType::float32, -1, 1, &v);
  auto s = fetch(pf::fftshift(a)).values();
  auto back = fetch(pf::ifftshift(pf::fftshift(a))).values();
  for (std::int64_t i = 0; i < 5; ++i)
    for (std::int64_t j = 0; j < 4; ++j) {
      EXPECT_EQ(s[static_cast<std::size_t>(((i + 2) % 5) * 4 + (j + 2) % 4)], v[static_cast<std::size_t>(i * 4 + j)]);
      EXPECT_EQ(back[static_cast<std::size_t>(i * 4 + j)], v[static_cast<std::size_t>(i * 4 + j)]);
    }
  auto s0 = fetch(pf::fftshift(a, std::vector<int>{0})).values();
  for (std::int64_t i = 0; i < 5; ++i)
    for (std::int64_t j = 0; j < 4; ++j)
      EXPECT_EQ(s0[static_cast<std::size_t>(((i + 2) % 5) * 4 + j)], v[static_cast<std::size_t>(i * 4 + j)]);
}

// Long transforms (every radix-8/4/2 pass, real transforms through half-length complex ones, two
// threads' shares of a batch on PoCL) against a direct DFT of 16 outputs a line (6 of 2^16 and
// 2^20: the first, the last, random others) in long double, O(n) each, and the round trip of every element. Lengths: 2^9 (radix 8 only), 2^11 * 3,
// 2^16 and 2^20 one line each; 4096 in a batch of 9 (more than the 2^15 elements that split a
// batch over threads); complex128 of 2^13 (forward only: its round trip is
// RoundTripsLazyAndEmpty's).
TEST_P(Fft, LargeLengths) {
  if (sampled()) GTEST_SKIP() << "VkFFT on PoCL: plans of these lengths take tens of seconds to build";
  struct Case {
    std::int64_t batch, n;
    DType t;
  };
  std::vector<Case> cases = {{1, 512, DType::complex64}, {1, 6144, DType::complex64}, {9, 4096, DType::complex64},
                             {1, 1 << 16, DType::complex64}, {1, 1 << 20, DType::complex64}, {9, 4096, DType::float32}};
  if (has(DType::complex128)) cases.push_back({2, 1 << 13, DType::complex128});
  for (const Case& c : cases) {
    std::vector<CL> x;
    Array a = random_data(*this, {c.batch, c.n}, c.t, &x);
    const bool real = c.t == DType::float32;
    const DType result = c.t == DType::complex128 ? DType::complex128 : DType::complex64;
    Array y = real ? pf::rfft(a) : pf::fft(a);
    const std::int64_t width = real ? c.n / 2 + 1 : c.n;
    ASSERT_EQ(y.shape(), (Shape{c.batch, width}));
    ASSERT_EQ(y.dtype(), result);
    const auto got = host_values(y);
    const double tol_scale = 4.0 * (std::log2(static_cast<double>(c.n) + 1) + 1) * eps_of(result);
    std::uniform_int_distribution<std::int64_t> pick_k(0, width - 1);
    std::vector<CL> w(static_cast<std::size_t>(c.n));  // exp(-2 pi i j / n)
    for (std::int64_t j = 0; j < c.n; ++j) {
      const long double ang = -2.0L * std::numbers::pi_v<long double> * static_cast<long double>(j) / c.n;
      w[static_cast<std::size_t>(j)] = CL(std::cos(ang), std::sin(ang));
    }
    for (std::int64_t b = 0; b < c.batch; ++b) {
      const CL* line = x.data() + b * c.n;
      long double sq = 0;
      for (std::int64_t j = 0; j < c.n; ++j) sq += std::norm(line[j]);
      const double tol = tol_scale * static_cast<double>(std::sqrt(sq));
      const int samples = c.n >= (1 << 16) ? 6 : 16;  // O(n) each, in long double
      for (int s = 0; s < samples; ++s) {
        const std::int64_t k = s == 0 ? 0 : s == 1 ? width - 1 : pick_k(rng());
        CL ref = 0;
        for (std::int64_t j = 0, jk = 0; j < c.n; ++j, jk = (jk + k) % c.n) ref += line[j] * w[static_cast<std::size_t>(jk)];
        const double err = static_cast<double>(std::abs(got[static_cast<std::size_t>(b * width + k)] - ref));
        EXPECT_LE(err, tol) << name(c.t) << " batch " << c.batch << " n " << c.n << " line " << b << " output " << k;
      }
    }
    if (c.t == DType::complex128) continue;
    Array back = real ? pf::irfft(y, c.n) : pf::ifft(y);
    EXPECT_TRUE(matches(back, real ? DType::float32 : DType::complex64, {c.batch, c.n}, x, norm_of(x), c.n))
        << name(c.t) << " n " << c.n << " round trip";
  }
}

// Eight threads share the device's cached plans (one length, both directions) on their own queues;
// each also transforms a (5, 8192) batch, which the host FFT splits over its own threads on PoCL
// (more than 2^15 elements), checked by its round trip (LargeLengths checks its values); not
// where PoCL runs VkFFT (fft.threads.vkfft).
TEST_P(Fft, ThreadsSharePlans) {
  std::vector<CL> x, xb;
  Array a = random_data(*this, {8, 16}, DType::complex64, &x);
  Array big = random_data(*this, {5, 8192}, DType::complex64, &xb);
  std::vector<CL> ref = x;
  dft_along(ref, {8, 16}, 1, true);
  const double xn = norm_of(x), xbn = norm_of(xb);
  Failures failures;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < 4; ++i) {
          Array y = pf::fft(a);
          failures.check(matches(y, DType::complex64, {8, 16}, ref, xn, 16), "thread " + std::to_string(t));
          failures.check(matches(pf::ifft(y), DType::complex64, {8, 16}, x, xn, 16), "thread " + std::to_string(t) + " ifft");
        }
        if (!sampled())  // VkFFT on PoCL: no host threads, and a plan less to build
          failures.check(matches(pf::ifft(pf::fft(big)), DType::complex64, {5, 8192}, xb, xbn, 8192),
                         "thread " + std::to_string(t) + " (5, 8192) round trip");
      } catch (const std::exception& e) {
        failures.add(e.what());
      }
    });
  for (auto& th : threads) th.join();
  failures.report();
}

PORTA_INSTANTIATE_DEVICES(Fft);

}  // namespace
}  // namespace porta_test
