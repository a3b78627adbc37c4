// Creating arrays: from host memory, constants (lazy scalar leaves), ranges and identities
// (lazy index expressions), and joining arrays.
#include <porta/array.hpp>
#include <porta/error.hpp>

#include <cmath>

#include "runtime/device_state.hpp"
#include "lazy/evaluate.hpp"
#include "lazy/expr.hpp"
#include "base/float_to_int.hpp"
#include "porta_backend/strings.hpp"

namespace porta {

using detail::cat;
using detail::make_node;
using detail::make_scalar;
using detail::NodePtr;
using detail::Op;

namespace {

void check_shape(const Shape& s) { (void)element_count(s); }

NodePtr scalar_f64(double v, const Shape& s, const Device& d) { return make_scalar(v, 0, DType::float64, s, d); }

// The working dtype for index arithmetic: float64 where the device has it.
DType index_float(const Device& d) { return d.supports(DType::float64) ? DType::float64 : DType::float32; }

}  // namespace

Array from_host(const void* data, DType t, Shape shape, Device d, std::size_t count) {
  std::int64_t n = element_count(shape);
  if (static_cast<std::int64_t>(count) != n)
    throw ShapeError(cat("from_host: ", count, " elements given for shape ", to_string(shape), " (", n, " elements)"));
  return from_host(data, t, std::move(shape), std::move(d));
}

Array from_host(const void* data, DType t, Shape shape, Device d) {
  if (!d.valid()) throw InvalidArgument("from_host: the device is empty");
  detail::check_dtype(d, t);
  std::int64_t n = element_count(shape);
  if (n > 0 && data == nullptr) throw InvalidArgument("from_host: data is null");
  auto node = detail::make_buffer_node(std::move(shape), t, d);
  const auto& v = node->view();
  if (n > 0) {
    const auto& q = detail::thread_queue_shared(d);
    d.impl().write(*q, v.buffer->handle(), 0, data, static_cast<std::size_t>(n) * itemsize(t));
    v.buffer->after_write(q);
  }
  return Array(node);
}

Array empty(Shape shape, DType t, Device d) {
  check_shape(shape);
  detail::check_dtype(d, t);
  return Array(detail::make_buffer_node(std::move(shape), t, d));
}

Array full(Shape shape, double value, DType t, Device d) {
  check_shape(shape);
  detail::check_dtype(d, t);
  if (is_integral(t)) {
    // As NumPy: a fraction, NaN, an infinity or a number the dtype cannot hold is an error.
    if (!std::isfinite(value) || std::trunc(value) != value)
      throw InvalidArgument(cat("full: ", value, " is not a whole number, but the dtype is ", name(t)));
    const IntInfo info = iinfo(t);
    // [min, max + 1) in doubles: -2^(bits-1) or 0, and 2^(bits-1) or 2^bits, all exact.
    const double low = static_cast<double>(info.min), high = std::ldexp(1.0, info.bits - (is_signed_integer(t) ? 1 : 0));
    if (value >= high || value < low)
      throw InvalidArgument(cat("full: ", value, " does not fit in ", name(t), " (", info.min, " to ", info.max, "); use a wider dtype"));
  }
  std::int64_t i = detail::float_to_int(value, t);
  return Array(make_scalar(value, i, t, std::move(shape), d));
}

Array full_integer(Shape shape, std::int64_t bits, bool big_unsigned, DType t, Device d) {
  check_shape(shape);
  detail::check_dtype(d, t);
  const double value = big_unsigned ? static_cast<double>(static_cast<std::uint64_t>(bits)) : static_cast<double>(bits);
  if (!is_integral(t)) return full(std::move(shape), value, t, std::move(d));  // floats round as NumPy's; bool: != 0
  const IntInfo info = iinfo(t);
  const bool fits = big_unsigned ? t == DType::uint64
                                 : bits >= info.min && (bits < 0 || static_cast<std::uint64_t>(bits) <= info.max);
  if (!fits) {
    const std::string shown = big_unsigned ? std::to_string(static_cast<std::uint64_t>(bits)) : std::to_string(bits);
    throw InvalidArgument(cat("full: ", shown, " does not fit in ", name(t), " (", info.min, " to ", info.max, "); use a wider dtype"));
  }
  return Array(make_scalar(value, bits, t, std::move(shape), d));
}

Array full(Shape shape, std::complex<double> value, DType t, Device d) {
  if (!is_complex(t)) {
    if (value.imag() != 0 || std::isnan(value.imag()))
      throw DTypeError(cat("full: the value (", value.real(), ", ", value.imag(), ") is complex and the dtype ", name(t),
                           " is not; pass a complex dtype or the real part"));
    return full(std::move(shape), value.real(), t, std::move(d));
  }
  check_shape(shape);
  detail::check_dtype(d, t);
  return Array(make_scalar(value.real(), 0, t, std::move(shape), d, value.imag()));
}

Array zeros(Shape shape, DType t, Device d) { return full(std::move(shape), 0.0, t, std::move(d)); }
Array ones(Shape shape, DType t, Device d) { return full(std::move(shape), 1.0, t, std::move(d)); }
Array empty_like(const Array& a) { return empty(a.shape(), a.dtype(), a.device()); }
Array zeros_like(const Array& a) { return zeros(a.shape(), a.dtype(), a.device()); }
Array ones_like(const Array& a) { return ones(a.shape(), a.dtype(), a.device()); }
Array full_like(const Array& a, double value) { return full(a.shape(), value, a.dtype(), a.device()); }

Array arange(std::int64_t n, DType t, Device d) {
  if (n < 0) throw InvalidArgument(cat("arange: the count ", n, " is negative"));
  detail::check_dtype(d, t);
  return Array(detail::cast(detail::make_index({n}, d), t));
}

// Ranges are start + i * step computed as one fused multiply-add in float64 (float32 where the
// device has no float64), so every device gives the same values.
Array arange(double start, double stop, double step, DType t, Device d) {
  if (step == 0 || !std::isfinite(step) || !std::isfinite(start) || !std::isfinite(stop))
    throw InvalidArgument(cat("arange(", start, ", ", stop, ", ", step, "): the step must be nonzero and all three finite"));
  detail::check_dtype(d, t);
  double count = std::ceil((stop - start) / step);
  std::int64_t n = count > 0 ? static_cast<std::int64_t>(count) : 0;
  Shape s{n};
  DType w = index_float(d);
  NodePtr i = detail::cast(detail::make_index(s, d), w);
  NodePtr v = make_node(Op::fma, w, i, detail::cast(scalar_f64(step, s, d), w), detail::cast(scalar_f64(start, s, d), w));
  return Array(detail::cast(v, t));
}

Array linspace(double start, double stop, std::int64_t num, DType t, Device d, bool endpoint) {
  if (num < 0) throw InvalidArgument(cat("linspace: num ", num, " is negative"));
  detail::check_dtype(d, t);
  Shape s{num};
  std::int64_t div = endpoint ? num - 1 : num;
  double step = div > 0 ? (stop - start) / static_cast<double>(div) : 0.0;
  DType w = index_float(d);
  NodePtr idx = detail::make_index(s, d);
  NodePtr i = detail::cast(idx, w);
  NodePtr v = make_node(Op::fma, w, i, detail::cast(scalar_f64(step, s, d), w), detail::cast(scalar_f64(start, s, d), w));
  if (endpoint && num > 1) {
    NodePtr last = make_node(Op::eq, DType::boolean, idx, make_scalar(0, num - 1, DType::int64, s, d));
    v = make_node(Op::where, w, last, detail::cast(scalar_f64(stop, s, d), w), v);
  }
  return Array(detail::cast(v, t));
}

Array eye(std::int64_t n, DType t, Device d) { return eye(n, n, 0, t, std::move(d)); }

Array eye(std::int64_t n, std::int64_t m, std::int64_t k, DType t, Device d) {
  if (n < 0 || m < 0) throw InvalidArgument(cat("eye(", n, ", ", m, "): sizes must not be negative"));
  detail::check_dtype(d, t);
  Shape s{n, m};
  if (n * m == 0) return zeros(s, t, d);
  // Element (r, c) of linear index i is 1 where c - r == k: r = floor(i / m), c = i - r m,
  // computed exactly in float64 (indices below 2^53).
  if (!d.supports(DType::float64) || n * m > (std::int64_t{1} << 52)) {
    std::vector<float> host(static_cast<std::size_t>(n * m), 0.0f);
    for (std::int64_t r = 0; r < n; ++r)
      if (r + k >= 0 && r + k < m) host[static_cast<std::size_t>(r * m + r + k)] = 1.0f;
    return from_host(host.data(), DType::float32, s, d).astype(t);
  }
  NodePtr i = detail::cast(detail::make_index(s, d), DType::float64);
  NodePtr r = make_node(Op::floor, DType::float64, make_node(Op::div, DType::float64, i, scalar_f64(static_cast<double>(m), s, d)));
  NodePtr c = make_node(Op::sub, DType::float64, i, make_node(Op::mul, DType::float64, r, scalar_f64(static_cast<double>(m), s, d)));
  NodePtr diag = make_node(Op::eq, DType::boolean, make_node(Op::sub, DType::float64, c, r), scalar_f64(static_cast<double>(k), s, d));
  return Array(detail::cast(diag, t));
}

Array concatenate(const std::vector<Array>& arrays, int axis) {
  if (arrays.empty()) throw InvalidArgument("concatenate: no arrays given");
  const Array& first = arrays.front();
  int nd = first.ndim();
  if (nd == 0) throw ShapeError("concatenate: 0-d arrays cannot be joined; use stack");
  if (axis < -nd || axis >= nd) throw InvalidArgument(cat("concatenate: axis ", axis, " is out of range for ", nd, " dimensions"));
  if (axis < 0) axis += nd;
  Shape out_shape = first.shape();
  DType t = first.dtype();
  out_shape[static_cast<std::size_t>(axis)] = 0;
  for (std::size_t j = 0; j < arrays.size(); ++j) {
    const Array& a = arrays[j];
    if (a.ndim() != nd)
      throw ShapeError(cat("concatenate: array ", j, " has ", a.ndim(), " dimensions, array 0 has ", nd));
    for (int ax = 0; ax < nd; ++ax)
      if (ax != axis && a.shape()[static_cast<std::size_t>(ax)] != first.shape()[static_cast<std::size_t>(ax)])
        throw ShapeError(cat("concatenate along axis ", axis, ": array ", j, " has shape ", to_string(a.shape()), ", array 0 has ",
                             to_string(first.shape()), "; all other dimensions must match"));
    if (a.device() != first.device())
      throw InvalidArgument(cat("concatenate: array ", j, " is on ", a.device().spec(), ", array 0 on ", first.device().spec(),
                                "; move it with .to()"));
    out_shape[static_cast<std::size_t>(axis)] += a.shape()[static_cast<std::size_t>(axis)];
    t = promote_types(t, a.dtype());
  }
  auto out = detail::make_buffer_node(out_shape, t, first.device());
  const auto& ov = out->view();
  std::int64_t at = 0;
  for (const Array& a : arrays) {
    std::int64_t len = a.shape()[static_cast<std::size_t>(axis)];
    if (len > 0 && a.size() > 0) {
      detail::View region{ov.buffer, ov.offset + at * ov.strides[static_cast<std::size_t>(axis)], ov.strides};
      detail::evaluate_into(detail::cast(a.node(), t), region);
    }
    at += len;
  }
  return Array(out);
}

Array stack(const std::vector<Array>& arrays, int axis) {
  if (arrays.empty()) throw InvalidArgument("stack: no arrays given");
  // Checked here so that the message names stack, not the expand_dims it is built from.
  const int nd = arrays[0].ndim();
  if (axis < -(nd + 1) || axis > nd)
    throw InvalidArgument(cat("stack: axis ", axis, " is out of range for stacking arrays of ", nd,
                              " dimensions (the result has ", nd + 1, "; axis must be in [", -(nd + 1), ", ", nd, "])"));
  std::vector<Array> expanded;
  for (std::size_t j = 0; j < arrays.size(); ++j) {
    if (arrays[j].shape() != arrays[0].shape())
      throw ShapeError(cat("stack: array ", j, " has shape ", to_string(arrays[j].shape()), ", array 0 has ",
                           to_string(arrays[0].shape()), "; all must match"));
    expanded.push_back(arrays[j].expand_dims(axis));
  }
  return concatenate(expanded, axis < 0 ? axis + arrays[0].ndim() + 1 : axis);
}

}  // namespace porta
