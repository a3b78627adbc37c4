// Shared test machinery: see test_common.hpp.
#include "test_common.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <sstream>

namespace porta_test {

std::string device_label(const Device& d) {
  std::string s = d.spec();
  std::replace(s.begin(), s.end(), ':', '_');
  return s;
}

std::string dtype_label(DType t) { return std::string(porta::name(t)); }

std::string shape_str(const Shape& s) { return porta::to_string(s); }

void poison(const Device& d, std::size_t max_bytes) {
  std::vector<Array> held;
  std::size_t size = 512;
  while (size <= max_bytes) {
    // Several blocks of the small sizes, where tests make many arrays.
    int copies = size <= 16384 ? 6 : size <= 262144 ? 3 : 1;
    for (int c = 0; c < copies; ++c) {
      Array a = porta::full({static_cast<std::int64_t>(size / 4)}, kPoison32, DType::int32, d);
      a.eval();
      held.push_back(a);
    }
    // The allocator hands out a block up to size + size/8 + 4096 for a request of `size`.
    std::size_t next = size + size / 8 + 4096;
    size = next / 512 * 512;
  }
  porta::synchronize(d);
}

void TestContext::start(const Device& d) {
  device_ = d;
  if (const char* s = std::getenv("PORTA_TEST_SEED"); s && *s) {
    seed_ = std::strtoull(s, nullptr, 0);
  } else {
    std::random_device rd;
    seed_ = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }
  rng_.seed(seed_);
  ::testing::Test::RecordProperty("seed", std::to_string(seed_));
  poison(d);
}

void TestContext::finish(bool failed) const {
  if (failed)
    std::cerr << "[ seed     ] " << ::testing::UnitTest::GetInstance()->current_test_info()->name()
              << ": rerun with PORTA_TEST_SEED=" << seed_ << " for the same inputs\n";
}

int TestContext::random_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

std::vector<double> TestContext::random_values(std::int64_t n, DType t, double lo, double hi) {
  std::vector<double> v(static_cast<std::size_t>(n));
  if (t == DType::boolean) {
    std::bernoulli_distribution b(0.5);
    for (auto& x : v) x = b(rng_) ? 1 : 0;
    if (n > 0) v[static_cast<std::size_t>(random_int(0, static_cast<int>(std::min<std::int64_t>(n - 1, 1 << 30))))] = 1;
    return v;
  }
  if (!porta::is_floating(t)) {
    const porta::IntInfo lim = porta::iinfo(t);
    lo = std::max(lo, static_cast<double>(lim.min));
    hi = std::min(hi, t == DType::uint64 ? 0x1p53 : t == DType::int64 ? 0x1p62 : static_cast<double>(lim.max));
    std::uniform_int_distribution<std::int64_t> u(static_cast<std::int64_t>(std::ceil(lo)),
                                                   static_cast<std::int64_t>(std::floor(hi)));
    for (auto& x : v) x = static_cast<double>(u(rng_));
  } else {
    std::uniform_real_distribution<double> u(lo, hi);
    for (auto& x : v) x = round_to(t, u(rng_));
  }
  // Never all zeros.
  bool all_zero = std::all_of(v.begin(), v.end(), [](double x) { return x == 0; });
  if (all_zero && n > 0) v[0] = round_to(t, hi != 0 ? hi : lo);
  return v;
}

Array TestContext::random_array(const Shape& shape, DType t, double lo, double hi, std::vector<double>* values) {
  auto v = random_values(porta::element_count(shape), t, lo, hi);
  Array a = upload(v, t, shape, device_);
  if (values) *values = std::move(v);
  return a;
}

// ---- host copies -------------------------------------------------------------------------

std::int64_t HostArray::size() const { return static_cast<std::int64_t>(bytes.size() / porta::itemsize(dtype)); }

double HostArray::value(std::int64_t i) const {
  const std::uint8_t* p = bytes.data() + static_cast<std::size_t>(i) * porta::itemsize(dtype);
  switch (dtype) {
    case DType::boolean: return *p;
    case DType::int32: { std::int32_t x; std::memcpy(&x, p, 4); return x; }
    case DType::int64: { std::int64_t x; std::memcpy(&x, p, 8); return static_cast<double>(x); }
    case DType::int8: { std::int8_t x; std::memcpy(&x, p, 1); return x; }
    case DType::int16: { std::int16_t x; std::memcpy(&x, p, 2); return x; }
    case DType::uint8: return *p;
    case DType::uint16: { std::uint16_t x; std::memcpy(&x, p, 2); return x; }
    case DType::uint32: { std::uint32_t x; std::memcpy(&x, p, 4); return x; }
    case DType::uint64: { std::uint64_t x; std::memcpy(&x, p, 8); return static_cast<double>(x); }
    case DType::float16: { std::uint16_t x; std::memcpy(&x, p, 2); return static_cast<float>(porta::half::from_bits(x)); }
    case DType::bfloat16: { std::uint16_t x; std::memcpy(&x, p, 2); return static_cast<float>(porta::bfloat16::from_bits(x)); }
    case DType::float32: { float x; std::memcpy(&x, p, 4); return x; }
    case DType::float64: { double x; std::memcpy(&x, p, 8); return x; }
    case DType::complex64:
    case DType::complex128: break;  // real values only: complex tests keep their own (complex_test.cpp)
  }
  return 0;
}

std::int64_t HostArray::integer(std::int64_t i) const {
  const std::uint8_t* p = bytes.data() + static_cast<std::size_t>(i) * porta::itemsize(dtype);
  switch (dtype) {
    case DType::boolean: return *p;
    case DType::int32: { std::int32_t x; std::memcpy(&x, p, 4); return x; }
    case DType::int64:
    case DType::uint64: { std::int64_t x; std::memcpy(&x, p, 8); return x; }
    case DType::int8:
    case DType::int16:
    case DType::uint8:
    case DType::uint16:
    case DType::uint32: return static_cast<std::int64_t>(value(i));  // exact
    default: return static_cast<std::int64_t>(value(i));
  }
}

std::uint8_t HostArray::raw_bool(std::int64_t i) const { return bytes[static_cast<std::size_t>(i)]; }

std::uint64_t HostArray::bits(std::int64_t i) const {
  std::uint64_t b = 0;
  std::size_t n = porta::itemsize(dtype);
  std::memcpy(&b, bytes.data() + static_cast<std::size_t>(i) * n, n);
  return b;
}

std::vector<double> HostArray::values() const {
  std::vector<double> v(static_cast<std::size_t>(size()));
  for (std::int64_t i = 0; i < size(); ++i) v[static_cast<std::size_t>(i)] = value(i);
  return v;
}

HostArray fetch(const Array& a) {
  HostArray h;
  h.dtype = a.dtype();
  h.shape = a.shape();
  h.bytes.resize(a.nbytes());
  a.to_host(a.dtype(), h.bytes.data(), h.bytes.size());
  return h;
}

namespace {

// Nearest value with `mantissa` explicit bits and minimum normal exponent `emin`, ties to even.
double round_binary(double v, int mantissa, int emin, double max) {
  if (!std::isfinite(v) || v == 0) return v;
  int e = std::ilogb(v);
  e = std::max(e, emin);
  double ulp = std::ldexp(1.0, e - mantissa);
  double r = std::nearbyint(v / ulp) * ulp;
  if (std::fabs(r) > max) return std::copysign(std::numeric_limits<double>::infinity(), v);
  return r;
}

}  // namespace

double unit_roundoff(DType t) {
  switch (t) {
    case DType::float16: return 0x1p-11;
    case DType::bfloat16: return 0x1p-8;
    case DType::float32: return 0x1p-24;
    case DType::float64: return 0x1p-53;
    default: return 0;
  }
}

double accumulation_roundoff(DType t) { return porta::is_floating(t) ? unit_roundoff(t == DType::float64 ? t : DType::float32) : 0; }

double max_finite(DType t) {
  switch (t) {
    case DType::boolean: return 1;
    case DType::int32: return std::numeric_limits<std::int32_t>::max();
    case DType::int64: return 9.2233720368547758e18;
    case DType::int8:
    case DType::int16:
    case DType::uint8:
    case DType::uint16:
    case DType::uint32:
    case DType::uint64: return static_cast<double>(porta::iinfo(t).max);
    case DType::float16: return 65504.0;
    case DType::bfloat16: return 3.3895313892515355e38;
    case DType::float32: return std::numeric_limits<float>::max();
    case DType::float64: return std::numeric_limits<double>::max();
    case DType::complex64:
    case DType::complex128: break;  // real values only: complex tests keep their own (complex_test.cpp)
  }
  return 0;
}

double round_to(DType t, double v) {
  switch (t) {
    case DType::boolean: return v != 0 ? 1 : 0;
    case DType::int64: return std::trunc(v);
    case DType::int8:
    case DType::int16:
    case DType::int32:
    case DType::uint8:
    case DType::uint16:
    case DType::uint32:
    case DType::uint64: {  // modulo 2^bits into the type's range (uint64: as far as doubles hold it)
      if (!std::isfinite(v)) return v;
      const porta::IntInfo lim = porta::iinfo(t);
      const double span = std::ldexp(1.0, lim.bits);
      double r = std::fmod(std::trunc(v), span);
      if (r < static_cast<double>(lim.min)) r += span;
      if (r > static_cast<double>(lim.max)) r -= span;
      return r;
    }
    case DType::float16: return round_binary(v, 10, -14, 65504.0);
    case DType::bfloat16: return round_binary(v, 7, -126, max_finite(DType::bfloat16));
    case DType::float32: return static_cast<float>(v);
    case DType::float64: return v;
    case DType::complex64:
    case DType::complex128: break;  // real values only: complex tests keep their own (complex_test.cpp)
  }
  return v;
}

Array upload(const std::vector<double>& values, DType t, const Shape& shape, const Device& d) {
  std::size_t n = values.size();
  std::vector<std::uint8_t> raw(n * porta::itemsize(t));
  for (std::size_t i = 0; i < n; ++i) {
    std::uint8_t* p = raw.data() + i * porta::itemsize(t);
    double v = values[i];
    switch (t) {
      case DType::boolean: *p = v != 0 ? 1 : 0; break;
      case DType::int32: { auto x = static_cast<std::int32_t>(v); std::memcpy(p, &x, 4); break; }
      case DType::int64: { auto x = static_cast<std::int64_t>(v); std::memcpy(p, &x, 8); break; }
      case DType::int8:
      case DType::int16:
      case DType::uint8:
      case DType::uint16:
      case DType::uint32:
      case DType::uint64: {  // the value's low bytes: wrapped to the type (|v| < 2^64)
        const double w = std::trunc(v);
        const std::uint64_t x = w >= 0x1p63 ? static_cast<std::uint64_t>(w) : static_cast<std::uint64_t>(static_cast<std::int64_t>(w));
        std::memcpy(p, &x, porta::itemsize(t));  // little-endian
        break;
      }
      case DType::float16: { porta::half h(static_cast<float>(round_to(t, v))); std::memcpy(p, &h.bits, 2); break; }
      case DType::bfloat16: { porta::bfloat16 h(static_cast<float>(round_to(t, v))); std::memcpy(p, &h.bits, 2); break; }
      case DType::float32: { auto x = static_cast<float>(v); std::memcpy(p, &x, 4); break; }
      case DType::float64: std::memcpy(p, &v, 8); break;
      case DType::complex64:
      case DType::complex128: break;  // real values only: complex tests keep their own (complex_test.cpp)
    }
  }
  return porta::from_host(raw.data(), t, shape, d, n);
}

Tolerance tolerance(DType t, Accuracy a) {
  if (a == Accuracy::exact) return {0, 0};
  switch (t) {
    case DType::float16: return {1e-3, 1e-5};
    case DType::bfloat16: return {1e-2, 1e-4};
    case DType::float32: return a == Accuracy::simple ? Tolerance{1e-6, 1e-30} : Tolerance{4e-6, 1e-7};
    case DType::float64: return a == Accuracy::simple ? Tolerance{1e-12, 1e-300} : Tolerance{1e-12, 1e-15};
    default: return {0, 0};  // bool and the integers: exact
  }
  return {0, 0};
}

::testing::AssertionResult values_match(const HostArray& got, const std::vector<double>& ref, Tolerance tol,
                                        const std::vector<bool>* mask,
                                        const std::function<std::string(std::int64_t)>& describe,
                                        const std::vector<double>* extra_atol) {
  if (got.size() != static_cast<std::int64_t>(ref.size()))
    return ::testing::AssertionFailure() << "size " << got.size() << ", expected " << ref.size();
  std::ostringstream out;
  out.precision(17);
  std::int64_t bad = 0, checked = 0;
  for (std::int64_t i = 0; i < got.size(); ++i) {
    if (mask && !(*mask)[static_cast<std::size_t>(i)]) continue;
    ++checked;
    double r = ref[static_cast<std::size_t>(i)];
    bool ok;
    double g;
    if (got.dtype == DType::boolean) {
      std::uint8_t b = got.raw_bool(i);
      g = b;
      ok = (b == 0 || b == 1) && (b != 0) == (r != 0);
    } else if (got.dtype == DType::uint64) {
      // The bits, read unsigned; a reference past 2^53 (a value that wrapped: -1 is 2^64 - 1) is
      // only as exact as its double, so the value as a double must equal it (tests of the exact
      // bits up there compare bits() themselves).
      g = got.value(i);
      ok = std::isfinite(r) && r >= 0 && (r <= 0x1p53 ? got.bits(i) == static_cast<std::uint64_t>(r) : g == r);
    } else if (!porta::is_floating(got.dtype)) {
      g = static_cast<double>(got.integer(i));
      ok = r >= -0x1p63 && r < 0x1p63 && got.integer(i) == static_cast<std::int64_t>(r);
    } else {
      g = got.value(i);
      if (std::isnan(r)) {
        ok = std::isnan(g);
      } else if (std::isinf(r)) {
        ok = g == r;
      } else if (std::isnan(g)) {
        ok = false;
      } else if (std::isinf(g)) {
        ok = std::fabs(r) >= max_finite(got.dtype) * (1 - 2 * tol.rtol) && std::signbit(g) == std::signbit(r);
      } else {
        double atol = tol.atol + (extra_atol ? (*extra_atol)[static_cast<std::size_t>(i)] : 0.0);
        ok = std::fabs(g - r) <= atol + tol.rtol * std::fabs(r);
      }
    }
    if (!ok) {
      if (bad < 10) {
        out << "\n  [" << i << "] got " << g << ", expected " << r;
        if (std::isfinite(g) && std::isfinite(r) && r != 0) out << " (relative error " << std::fabs(g - r) / std::fabs(r) << ")";
        if (describe) out << "  " << describe(i);
      }
      ++bad;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << checked << " elements differ (" << porta::name(got.dtype)
                                       << ", rtol " << tol.rtol << ", atol " << tol.atol << "):" << out.str();
}

::testing::AssertionResult array_matches(const Array& got, DType dtype, const Shape& shape, const std::vector<double>& ref,
                                         Tolerance tol, const std::function<std::string(std::int64_t)>& describe) {
  if (got.dtype() != dtype)
    return ::testing::AssertionFailure() << "dtype " << porta::name(got.dtype()) << ", expected " << porta::name(dtype);
  if (got.shape() != shape)
    return ::testing::AssertionFailure() << "shape " << shape_str(got.shape()) << ", expected " << shape_str(shape);
  return values_match(fetch(got), ref, tol, nullptr, describe);
}

HostArray evaluate_selected(const std::vector<Array>& arrays, const std::vector<int>& sel, const Device& d) {
  const char* unfused = std::getenv("PORTA_TEST_UNFUSED");
  if (arrays.size() == 1 || (unfused && *unfused && std::string(unfused) != "0")) {
    std::vector<HostArray> all;
    for (auto& a : arrays) all.push_back(fetch(a));
    HostArray out = all.front();
    std::size_t w = porta::itemsize(out.dtype);
    for (std::size_t e = 0; e < sel.size(); ++e)
      std::memcpy(out.bytes.data() + e * w, all[static_cast<std::size_t>(sel[e])].bytes.data() + e * w, w);
    return out;
  }
  // One bool mask per array (one kernel parameter each, so that long chains stay within the
  // core's limit on a kernel's leaves before it splits them).
  // Every few levels the chain is evaluated and continued from a fresh view of the result, so
  // each kernel stays below the leaf limit (about 7 ops a kernel).
  Array r = arrays.front();
  for (std::size_t k = 1; k < arrays.size(); ++k) {
    std::vector<double> mask(sel.size());
    for (std::size_t e = 0; e < sel.size(); ++e) mask[e] = sel[e] == static_cast<int>(k) ? 1 : 0;
    r = porta::where(upload(mask, DType::boolean, arrays.front().shape(), d), arrays[k], r);
    if (k % 6 == 0) r = r.eval().reshape(r.shape());
  }
  return fetch(r);
}

std::vector<std::int64_t> view_positions(const Shape& shape, const std::vector<std::int64_t>& strides, std::int64_t offset) {
  std::vector<std::int64_t> out;
  std::int64_t n = porta::element_count(shape);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t rest = i, pos = offset;
    for (std::size_t d = shape.size(); d-- > 0;) {
      pos += (rest % shape[d]) * strides[d];
      rest /= shape[d];
    }
    out.push_back(pos);
  }
  return out;
}

std::int64_t broadcast_index(const Shape& from, const Shape& to, std::int64_t i) {
  std::int64_t idx = 0, stride = 1;
  std::size_t lead = to.size() - from.size();
  for (std::size_t k = to.size(); k-- > 0;) {
    std::int64_t coord = i % to[k];
    i /= to[k];
    if (k >= lead) {
      std::int64_t dim = from[k - lead];
      if (dim != 1) idx += coord * stride;
      stride *= dim;
    }
  }
  return idx;
}

Shape broadcast_shape(const Shape& a, const Shape& b) {
  std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    std::int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    out[i] = da == 1 ? db : da;
  }
  return out;
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* v = std::getenv(name)) old_ = v;
  if (value) ::setenv(name, value, 1);
  else ::unsetenv(name);
}

ScopedEnv::~ScopedEnv() {
  if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
  else ::unsetenv(name_.c_str());
}

}  // namespace porta_test
