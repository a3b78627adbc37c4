// porta::Array: an n-dimensional array on one device. A value: cheap to copy, safe to share
// between threads. Elementwise work on arrays is lazy and fused into one kernel; it runs when
// data is needed (to_vector, matmul, a reduction) or when eval() is called.
#pragma once

#include <complex>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include <porta/device.hpp>
#include <porta/dtype.hpp>

namespace porta {

using Shape = std::vector<std::int64_t>;

std::int64_t element_count(const Shape& s);
std::string to_string(const Shape& s);  // "(3, 4)"

// One axis of a slice, NumPy's start:stop:step. Negative start/stop count from the end.
struct Slice {
  std::optional<std::int64_t> start;
  std::optional<std::int64_t> stop;
  std::int64_t step = 1;
  bool ellipsis = false;  // NumPy's `...`: as many whole axes as the other slices leave (porta::ellipsis)
};

// Slice helpers, so that NumPy's slices read short: a[::-1] is a.slice({porta::reversed}), a[..., 1:]
// is a.slice({porta::ellipsis, porta::from(1)}), a[:, ::2] is a.slice({porta::span, porta::every(2)})
// (ArrayFire's af::span is the whole axis).
inline constexpr Slice span{};
inline constexpr Slice ellipsis{std::nullopt, std::nullopt, 1, true};
inline constexpr Slice reversed{std::nullopt, std::nullopt, -1};
inline constexpr Slice from(std::int64_t start, std::int64_t step = 1) { return Slice{start, std::nullopt, step}; }
inline constexpr Slice upto(std::int64_t stop) { return Slice{std::nullopt, stop, 1}; }
inline constexpr Slice range(std::int64_t start, std::int64_t stop, std::int64_t step = 1) { return Slice{start, stop, step}; }
inline constexpr Slice every(std::int64_t step) { return Slice{std::nullopt, std::nullopt, step}; }

namespace detail {
class ArrayNode;
}

class Array {
 public:
  Array() = default;  // holds nothing; valid() is false

  bool valid() const { return node_ != nullptr; }
  const Shape& shape() const;
  int ndim() const;
  std::int64_t size() const;
  std::int64_t dim(int axis) const;  // negative axes count from the end
  DType dtype() const;
  Device device() const;
  std::size_t nbytes() const;

  // Runs any pending expression now. Returns *this.
  const Array& eval() const;
  bool is_evaluated() const;
  // Evaluated, and its elements are in row-major order without gaps.
  bool is_contiguous() const;

  // Copies to the host in row-major order. T must be the array's element type (DTypeError).
  template <class T> std::vector<T> to_vector() const {
    if constexpr (std::is_same_v<T, bool>) {
      // std::vector<bool> packs bits and has no span: read bytes, then convert.
      std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size()));
      to_host(DType::boolean, bytes.data(), bytes.size());
      return std::vector<bool>(bytes.begin(), bytes.end());
    } else {
      std::vector<T> v(static_cast<std::size_t>(size()));
      to_host(std::span<T>(v));
      return v;
    }
  }
  template <class T> void to_host(std::span<T> out) const { to_host(dtype_of<T>, out.data(), out.size_bytes()); }
  void to_host(DType expected, void* dst, std::size_t bytes) const;
  // The value of a one-element array.
  template <class T> T item() const {
    T v{};
    to_host(std::span<T>(&v, 1));
    return v;
  }

  // Views share memory with this array where the layout allows; otherwise they copy.
  Array reshape(Shape shape) const;  // one dimension may be -1
  Array flatten() const;
  Array transpose() const;           // reverses the axes
  Array transpose(std::vector<int> axes) const;
  Array slice(std::vector<Slice> slices) const;  // one Slice per leading axis; one may be porta::ellipsis
  Array operator[](std::int64_t i) const;       // index along the first axis, which goes away
  // a[mask] (a bool array of a's shape: compress, a 1-D copy) or a[indices] (integers: take along
  // axis 0, a copy); include/porta/index.hpp.
  Array operator[](const Array& index) const;
  Array broadcast_to(Shape shape) const;
  Array expand_dims(int axis) const;
  Array squeeze() const;
  Array astype(DType t) const;
  Array to(const Device& d) const;   // also across backends, through the host
  Array copy() const;                // a new buffer of this array's data
  Array contiguous() const;          // *this when already contiguous, else a copy

  // Writes (docs/design/threading.md#writes-and-lazy-readers). Views share memory, as NumPy's: a
  // write into this array (a slice, a transpose, a row) changes the memory every array sharing it
  // sees. `src` is broadcast to this array's shape and converted to its dtype (as NumPy's
  // `a[...] = src`); a lazy expression made before the write computes with the values from before
  // it. A broadcast view cannot be written (InvalidArgument). Returns *this: `a.slice({s}).assign(b)`.
  const Array& assign(const Array& src) const;
  template <class T>
    requires std::is_arithmetic_v<T>
  const Array& fill(T value) const {
    if constexpr (std::is_floating_point_v<T>) return fill_value(static_cast<double>(value), 0, true);
    else if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) return fill_unsigned(static_cast<std::uint64_t>(value));
    else return fill_value(0, static_cast<std::int64_t>(value), false);
  }
  // A complex number: into a complex array (DTypeError for a real one with an imaginary part).
  template <class T> const Array& fill(std::complex<T> value) const {
    return fill_complex(static_cast<double>(value.real()), static_cast<double>(value.imag()));
  }
  const Array& fill_value(double f, std::int64_t i, bool floating) const;  // fill()
  const Array& fill_unsigned(std::uint64_t u) const;                     // fill() of unsigned C++ integers (any uint64)
  const Array& fill_complex(double re, double im) const;                 // fill() of std::complex

  Array operator-() const;
  Array operator!() const;
  Array operator~() const;
  // Arrays are values: `a += b` is `a = a + b`; no other Array sees a change.
  Array& operator+=(const Array& b);
  Array& operator-=(const Array& b);
  Array& operator*=(const Array& b);
  Array& operator/=(const Array& b);

  // Internal.
  explicit Array(std::shared_ptr<detail::ArrayNode> n) : node_(std::move(n)) {}
  const std::shared_ptr<detail::ArrayNode>& node() const { return node_; }

 private:
  std::shared_ptr<detail::ArrayNode> node_;
};

// Creation. Every function takes the device last; the default is this thread's current device.
Array from_host(const void* data, DType t, Shape shape, Device d = current_device());
template <class T> Array from_host(std::span<const T> data, Shape shape, Device d = current_device()) {
  return from_host(static_cast<const void*>(data.data()), dtype_of<T>, std::move(shape), std::move(d), data.size());
}
template <class T> Array from_host(const std::vector<T>& data, Shape shape, Device d = current_device()) {
  return from_host(std::span<const T>(data), std::move(shape), std::move(d));
}
template <class T> Array from_host(const std::vector<T>& data) {
  return from_host(std::span<const T>(data), Shape{static_cast<std::int64_t>(data.size())});
}
// Checks that `count` elements match the shape; used by the templates above.
Array from_host(const void* data, DType t, Shape shape, Device d, std::size_t count);

Array empty(Shape shape, DType t = DType::float32, Device d = current_device());
Array zeros(Shape shape, DType t = DType::float32, Device d = current_device());
Array ones(Shape shape, DType t = DType::float32, Device d = current_device());
Array full(Shape shape, double value, DType t = DType::float32, Device d = current_device());
// An integer value, exactly (int64 and uint64 beyond 2^53; uint64 up to 2^64 - 1): NumPy's
// full(shape, value, dtype). InvalidArgument where an integer dtype cannot hold it. full_integer:
// the value as int64 bits (big_unsigned: a uint64 above INT64_MAX).
Array full_integer(Shape shape, std::int64_t bits, bool big_unsigned, DType t, Device d);
template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
Array full(Shape shape, T value, DType t = DType::float32, Device d = current_device()) {
  return full_integer(std::move(shape), static_cast<std::int64_t>(value), std::is_unsigned_v<T> && static_cast<std::int64_t>(value) < 0,
                      t, std::move(d));
}
// A complex value (its real part for a real dtype with a zero imaginary part; DTypeError otherwise).
Array full(Shape shape, std::complex<double> value, DType t = DType::complex128, Device d = current_device());
Array empty_like(const Array& a);  // a's shape, dtype and device; values unset
Array zeros_like(const Array& a);
Array ones_like(const Array& a);
Array full_like(const Array& a, double value);
// 0, 1, ..., n - 1
Array arange(std::int64_t n, DType t = DType::int64, Device d = current_device());
// start, start + step, ... below stop (above it for a negative step), as NumPy; element i is
// fma(i, step, start) in float64, then converted (the same bits on every device).
Array arange(double start, double stop, double step, DType t = DType::float32, Device d = current_device());
// num values from start to stop (stop included when endpoint): fma(i, step, start) in float64,
// the last one exactly stop.
Array linspace(double start, double stop, std::int64_t num, DType t = DType::float32, Device d = current_device(),
               bool endpoint = true);
Array eye(std::int64_t n, DType t = DType::float32, Device d = current_device());
Array eye(std::int64_t n, std::int64_t m, std::int64_t k, DType t = DType::float32, Device d = current_device());

// Joins arrays along an existing axis. All must share the device; dtypes promote.
Array concatenate(const std::vector<Array>& arrays, int axis = 0);
Array stack(const std::vector<Array>& arrays, int axis = 0);

}  // namespace porta
