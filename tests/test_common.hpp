// Shared test machinery: fixtures that run every test on every device, memory poisoned before
// each test, fresh random inputs, host copies of arrays in double precision, and comparisons
// with tolerances per dtype.
#pragma once

#include <gtest/gtest.h>

#include <porta/porta.hpp>

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace porta {
// How GoogleTest prints devices and dtypes in failure messages.
inline void PrintTo(const Device& d, std::ostream* os) { *os << (d.valid() ? d.spec() : std::string("(no device)")); }
inline void PrintTo(DType t, std::ostream* os) { *os << name(t); }
}  // namespace porta

namespace porta_test {

using porta::Array;
using porta::Device;
using porta::DType;
using porta::Shape;

inline constexpr DType kAllDTypes[] = {DType::boolean, DType::int8,    DType::int16,   DType::int32,   DType::int64,
                                       DType::uint8,   DType::uint16,  DType::uint32,  DType::uint64,  DType::float16,
                                       DType::bfloat16, DType::float32, DType::float64};
// The dtypes before issue 37 (large_test adds a sample of the new ones to these).
inline constexpr DType kOldDTypes[] = {DType::boolean, DType::int32,   DType::int64,  DType::float16,
                                       DType::bfloat16, DType::float32, DType::float64};
// The seven old dtypes and one new integer dtype of each width class (1 byte signed, 2 bytes
// unsigned, 8 bytes unsigned): for suites whose every dtype compiles its own kernels on PoCL and
// whose new-dtype paths a dedicated test covers (sort_test's NewDTypes cases).
inline constexpr DType kSampleDTypes[] = {DType::boolean, DType::int32,   DType::int64,   DType::float16, DType::bfloat16,
                                          DType::float32, DType::float64, DType::int8,    DType::uint16,  DType::uint64};
inline constexpr DType kIntDTypes[] = {DType::int8,  DType::int16,  DType::int32,  DType::int64,
                                       DType::uint8, DType::uint16, DType::uint32, DType::uint64};
inline constexpr DType kFloatDTypes[] = {DType::float16, DType::bfloat16, DType::float32, DType::float64};

// "opencl:0" -> "opencl_0", as test names need.
std::string device_label(const Device& d);
std::string dtype_label(DType t);
struct DeviceName {
  std::string operator()(const ::testing::TestParamInfo<Device>& info) const { return device_label(info.param); }
};
struct DeviceDTypeName {
  std::string operator()(const ::testing::TestParamInfo<std::tuple<Device, DType>>& info) const {
    return device_label(std::get<0>(info.param)) + "_" + dtype_label(std::get<1>(info.param));
  }
};

// Fills the device's memory cache with blocks of many sizes (up to max_bytes) holding a poison
// pattern and frees them, so that the next arrays get dirty memory and an element a kernel
// forgets to write shows up. The pattern 0x7fc07fc0 reads as NaN in float16, bfloat16 and
// float32, as a huge number in int32, int64 and float64, and as bytes 0xc0/0x7f in bool arrays.
void poison(const Device& d, std::size_t max_bytes = std::size_t{1} << 20);
inline constexpr std::int32_t kPoison32 = 0x7fc07fc0;

// The per-test state both fixtures share: device, seed, random numbers.
class TestContext {
 public:
  void start(const Device& d);
  void finish(bool failed) const;

  const Device& dev() const { return device_; }
  std::uint64_t seed() const { return seed_; }
  std::mt19937_64& rng() { return rng_; }

  // n values of dtype t drawn uniformly from [lo, hi] (integers: whole numbers, [lo, hi] clipped
  // to the type's range, and for uint64 to [0, 2^53] where doubles hold them exactly; bool: 0/1
  // with at least one 1), each exactly representable in t.
  std::vector<double> random_values(std::int64_t n, DType t, double lo, double hi);
  // A new device array of `shape` with random values; `values` gets them in row-major order.
  Array random_array(const Shape& shape, DType t, double lo, double hi, std::vector<double>* values = nullptr);
  int random_int(int lo, int hi);

 private:
  Device device_;
  std::uint64_t seed_ = 0;
  std::mt19937_64 rng_;
};

// Every test runs on every device porta::devices() lists.
class DeviceTest : public ::testing::TestWithParam<Device>, public TestContext {
 protected:
  void SetUp() override { start(GetParam()); }
  void TearDown() override { finish(HasFailure()); }
};

// Every test runs on every (device, dtype) pair; call PORTA_REQUIRE_DTYPE(dtype()) first.
class DeviceDTypeTest : public ::testing::TestWithParam<std::tuple<Device, DType>>, public TestContext {
 protected:
  void SetUp() override { start(std::get<0>(GetParam())); }
  void TearDown() override { finish(HasFailure()); }
  DType dtype() const { return std::get<1>(GetParam()); }
};

#define PORTA_REQUIRE_DTYPE(t)                                                                                  \
  do {                                                                                                          \
    if (!dev().supports(t)) GTEST_SKIP() << dev().spec() << " (" << dev().name() << ") has no " << porta::name(t); \
  } while (0)

#define PORTA_INSTANTIATE_DEVICES(Suite) \
  INSTANTIATE_TEST_SUITE_P(Devices, Suite, ::testing::ValuesIn(porta::devices()), ::porta_test::DeviceName())

#define PORTA_INSTANTIATE_DEVICES_DTYPES(Suite, dtypes)                                                          \
  INSTANTIATE_TEST_SUITE_P(Devices, Suite,                                                                      \
                           ::testing::Combine(::testing::ValuesIn(porta::devices()), ::testing::ValuesIn(dtypes)), \
                           ::porta_test::DeviceDTypeName())

// Failures seen by other threads (workers, pool tasks), reported by the test's own thread, where
// GoogleTest assertions belong: add() or check() from any thread, report() once they have ended.
class Failures {
 public:
  void add(const std::string& s) {
    std::lock_guard lock(m_);
    if (list_.size() < 20) list_.push_back(s);
    ++count_;
  }
  void check(const ::testing::AssertionResult& r, const std::string& what) {
    if (!r) add(what + ": " + r.message());
  }
  void report() const {
    for (const auto& s : list_) ADD_FAILURE() << s;
    EXPECT_EQ(count_, 0) << "failures in other threads";
  }

 private:
  std::mutex m_;
  std::vector<std::string> list_;
  int count_ = 0;
};

// An array's elements on the host, exactly as the device stored them.
struct HostArray {
  DType dtype = DType::float32;
  Shape shape;
  std::vector<std::uint8_t> bytes;

  std::int64_t size() const;
  double value(std::int64_t i) const;          // any dtype, as a double (bool: the raw byte)
  std::int64_t integer(std::int64_t i) const;  // bool and the integers (uint64: its bits)
  std::uint8_t raw_bool(std::int64_t i) const;
  std::uint64_t bits(std::int64_t i) const;    // the element's bit pattern
  std::vector<double> values() const;
};

HostArray fetch(const Array& a);
// A device array of dtype t holding `values` (each converted to t as porta::half etc. do).
Array upload(const std::vector<double>& values, DType t, const Shape& shape, const Device& d);
// The value of dtype t nearest to v (ties to even; overflow to infinity; integers truncate and
// wrap modulo 2^bits as NumPy's integer arithmetic does).
double round_to(DType t, double v);
double max_finite(DType t);
// 2^-p for floating dtype t of a p-bit significand (0 for the others), and the same for the type
// porta accumulates t's sums and products in: float32 for the 16-bit types, float64 for float64.
double unit_roundoff(DType t);
double accumulation_roundoff(DType t);

// How close a device result must be to the double-precision reference.
enum class Accuracy { exact, simple, transcendental };
struct Tolerance {
  double rtol = 0;
  double atol = 0;
};
Tolerance tolerance(DType t, Accuracy a);

// Compares `got` with `ref` element by element: floats within the tolerance (NaN only where the
// reference is NaN, infinities exactly, a finite reference beyond the dtype's range may be an
// infinity of its sign); integers exactly; bool elements must be the bytes 0 or 1 and match.
// `mask` (optional) selects the elements to check; `describe(i)` adds the inputs of element i.
// `extra_atol` (optional) adds a per-element absolute tolerance (accumulated rounding).
::testing::AssertionResult values_match(const HostArray& got, const std::vector<double>& ref, Tolerance tol,
                                        const std::vector<bool>* mask = nullptr,
                                        const std::function<std::string(std::int64_t)>& describe = {},
                                        const std::vector<double>* extra_atol = nullptr);

// dtype, shape and values of `got` against the reference.
::testing::AssertionResult array_matches(const Array& got, DType dtype, const Shape& shape, const std::vector<double>& ref,
                                         Tolerance tol, const std::function<std::string(std::int64_t)>& describe = {});

// Evaluates arrays[k] (one shape and dtype for all) and returns r with r[e] = arrays[sel[e]][e].
// The arrays are fused into where(sel == k, ...) chains so that a sweep over many operations
// compiles few kernels; PORTA_TEST_UNFUSED=1 evaluates each array by itself instead.
HostArray evaluate_selected(const std::vector<Array>& arrays, const std::vector<int>& sel, const Device& d);

// Host-side broadcasting: the row-major index into an array of shape `from` of element `i` of
// the broadcast shape `to`.
std::int64_t broadcast_index(const Shape& from, const Shape& to, std::int64_t i);
Shape broadcast_shape(const Shape& a, const Shape& b);

// Row-major positions in a base array of the elements of a strided view (element strides, an
// element offset), in the view's row-major order.
std::vector<std::int64_t> view_positions(const Shape& shape, const std::vector<std::int64_t>& strides, std::int64_t offset);
std::string shape_str(const Shape& s);

// Sets an environment variable for a scope and restores the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// The message of the exception `fn` throws as E; fails the test when it throws nothing or
// something else.
template <class E, class F>
std::string thrown_message(F&& fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw the wrong exception type: " << e.what();
    return {};
  }
  ADD_FAILURE() << "did not throw";
  return {};
}

}  // namespace porta_test
