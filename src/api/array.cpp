// Array: accessors, views (reshape, transpose, slices, broadcasting), host copies, moves
// between devices.
#include <porta/array.hpp>
#include <porta/error.hpp>

#include <algorithm>
#include <limits>
#include <memory>

#include "runtime/device_state.hpp"
#include "lazy/evaluate.hpp"
#include "lazy/expr.hpp"
#include "lazy/node.hpp"
#include "porta_backend/strings.hpp"

namespace porta {

using detail::cat;
using detail::NodePtr;

std::int64_t element_count(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) {
    if (d < 0) throw ShapeError(cat("shape ", to_string(s), " has a negative dimension"));
    if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d)
      throw ShapeError(cat("shape ", to_string(s), " has more elements than fit in 64 bits"));
    n *= d;
  }
  return n;
}

std::string to_string(const Shape& s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  if (s.size() == 1) out += ",";
  return out + ")";
}

namespace {

const detail::ArrayNode& checked(const std::shared_ptr<detail::ArrayNode>& n) {
  if (!n) throw InvalidArgument("this porta::Array is empty (default-constructed); create one with from_host, zeros, ...");
  return *n;
}

int normalize_axis(int axis, int ndim, const char* what) {
  if (axis < -ndim || axis >= std::max(ndim, 1) || (ndim == 0 && axis != 0 && axis != -1))
    throw InvalidArgument(cat(what, ": axis ", axis, " is out of range for an array of ", ndim, " dimensions"));
  return axis < 0 ? axis + ndim : axis;
}

std::vector<std::int64_t> contiguous_strides_of(const Shape& s) { return detail::contiguous_strides(s); }

// Strides for `new_shape` viewing the same elements as (shape, strides) without a copy, if any
// (NumPy's _attempt_nocopy_reshape).
std::optional<std::vector<std::int64_t>> reshape_strides(const Shape& shape, const std::vector<std::int64_t>& strides,
                                                         const Shape& new_shape) {
  if (element_count(new_shape) == 0) return contiguous_strides_of(new_shape);
  Shape os;
  std::vector<std::int64_t> ost;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != 1) {
      os.push_back(shape[i]);
      ost.push_back(strides[i]);
    }
  std::vector<std::int64_t> nst(new_shape.size(), 0);
  std::size_t oi = 0, oj = 1, ni = 0, nj = 1;
  std::size_t on = os.size(), nn = new_shape.size();
  while (ni < nn && oi < on) {
    std::int64_t np = new_shape[ni], op = os[oi];
    while (np != op) {
      if (np < op) np *= new_shape[nj++];
      else op *= os[oj++];
    }
    for (std::size_t ok = oi; ok < oj - 1; ++ok)
      if (ost[ok] != os[ok + 1] * ost[ok + 1]) return std::nullopt;
    nst[nj - 1] = ost[oj - 1];
    for (std::size_t nk = nj - 1; nk > ni; --nk) nst[nk - 1] = nst[nk] * new_shape[nk];
    ni = nj++;
    oi = oj++;
  }
  for (std::size_t k = ni; k < nn; ++k) nst[k] = 1;  // trailing ones
  return nst;
}

}  // namespace

const Shape& Array::shape() const { return checked(node_).shape(); }
int Array::ndim() const { return static_cast<int>(shape().size()); }
std::int64_t Array::size() const { return checked(node_).size(); }
std::int64_t Array::dim(int axis) const { return shape()[static_cast<std::size_t>(normalize_axis(axis, ndim(), "dim"))]; }
DType Array::dtype() const { return checked(node_).dtype(); }
Device Array::device() const { return checked(node_).device(); }
std::size_t Array::nbytes() const { return static_cast<std::size_t>(size()) * itemsize(dtype()); }

const Array& Array::eval() const {
  detail::evaluate(node_ ? node_ : throw InvalidArgument("eval() of an empty porta::Array"));
  return *this;
}

bool Array::is_evaluated() const { return checked(node_).evaluated(); }

bool Array::is_contiguous() const {
  const auto& n = checked(node_);
  return n.evaluated() && detail::is_contiguous_view(n.shape(), n.view().strides);
}

void Array::to_host(DType expected, void* dst, std::size_t bytes) const {
  const auto& n = checked(node_);
  detail::check_valid_dtype(expected, "to_host");
  if (expected != n.dtype())
    throw DTypeError(cat("to_host/to_vector as ", name(expected), " of a ", name(n.dtype()),
                         " array; use to_vector<T>() with T matching the dtype, or astype() first"));
  if (bytes != nbytes())
    throw InvalidArgument(cat("to_host: the destination holds ", bytes, " bytes but the array has ", nbytes(), " (shape ",
                              porta::to_string(n.shape()), ", ", name(n.dtype()), ")"));
  if (bytes == 0) return;
  Array src = contiguous();
  const auto& v = detail::evaluate(src.node());
  const auto& q = detail::thread_queue_shared(n.device());
  v.buffer->before_read(q);
  n.device().impl().read(*q, v.buffer->handle(), static_cast<std::size_t>(v.offset) * itemsize(n.dtype()), dst, bytes);
}

Array Array::reshape(Shape shape) const {
  const auto& n = checked(node_);
  int infer = -1;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) throw ShapeError(cat("reshape to ", porta::to_string(shape), ": only one dimension may be -1"));
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      throw ShapeError(cat("reshape to ", porta::to_string(shape), ": negative dimension"));
    } else {
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || n.size() % known != 0)
      throw ShapeError(cat("cannot reshape an array of shape ", porta::to_string(n.shape()), " (", n.size(), " elements) to ",
                           porta::to_string(shape)));
    shape[static_cast<std::size_t>(infer)] = n.size() / known;
  }
  if (element_count(shape) != n.size())
    throw ShapeError(cat("cannot reshape an array of shape ", porta::to_string(n.shape()), " (", n.size(), " elements) to ",
                         porta::to_string(shape), " (", element_count(shape), " elements)"));
  const auto& v = detail::evaluate(node_);
  if (auto st = reshape_strides(n.shape(), v.strides, shape))
    return Array(detail::make_view(node_, std::move(shape), v.offset, std::move(*st)));
  return copy().reshape(std::move(shape));
}

Array Array::flatten() const { return reshape({size()}); }

Array Array::transpose() const {
  std::vector<int> axes(static_cast<std::size_t>(ndim()));
  for (int i = 0; i < ndim(); ++i) axes[static_cast<std::size_t>(i)] = ndim() - 1 - i;
  return transpose(std::move(axes));
}

Array Array::transpose(std::vector<int> axes) const {
  const auto& n = checked(node_);
  int nd = ndim();
  if (static_cast<int>(axes.size()) != nd)
    throw InvalidArgument(cat("transpose: ", axes.size(), " axes given for an array of ", nd, " dimensions"));
  std::vector<bool> seen(static_cast<std::size_t>(nd), false);
  for (auto& a : axes) {
    a = normalize_axis(a, nd, "transpose");
    if (seen[static_cast<std::size_t>(a)]) throw InvalidArgument(cat("transpose: axis ", a, " is repeated"));
    seen[static_cast<std::size_t>(a)] = true;
  }
  const auto& v = detail::evaluate(node_);
  Shape s;
  std::vector<std::int64_t> st;
  for (int a : axes) {
    s.push_back(n.shape()[static_cast<std::size_t>(a)]);
    st.push_back(v.strides[static_cast<std::size_t>(a)]);
  }
  return Array(detail::make_view(node_, std::move(s), v.offset, std::move(st)));
}

Array Array::slice(std::vector<Slice> slices) const {
  const auto& n = checked(node_);
  // porta::ellipsis stands for the whole axes the other slices leave.
  auto ell = std::find_if(slices.begin(), slices.end(), [](const Slice& s) { return s.ellipsis; });
  if (ell != slices.end()) {
    if (std::count_if(slices.begin(), slices.end(), [](const Slice& s) { return s.ellipsis; }) > 1)
      throw InvalidArgument("slice: more than one porta::ellipsis; an index can have only one");
    std::size_t rest = slices.size() - 1;
    if (rest > n.shape().size())
      throw InvalidArgument(cat("slice: ", rest, " slices and an ellipsis for an array of ", n.shape().size(), " dimensions"));
    auto at = slices.erase(ell);
    slices.insert(at, n.shape().size() - rest, Slice{});
  }
  if (slices.size() > n.shape().size())
    throw InvalidArgument(cat("slice: ", slices.size(), " slices for an array of ", n.shape().size(), " dimensions"));
  const auto& v = detail::evaluate(node_);
  Shape s = n.shape();
  std::vector<std::int64_t> st = v.strides;
  std::int64_t offset = v.offset;
  for (std::size_t d = 0; d < slices.size(); ++d) {
    const Slice& sl = slices[d];
    std::int64_t len = s[d];
    if (sl.step == 0)
      throw InvalidArgument(cat("slice: the step of axis ", d, " is 0; a step must be a nonzero integer (as Python's slice)"));
    // Python's slice.indices, without signed overflow at int64's limits: a negative start or
    // stop plus a length >= 0 cannot overflow, the clamped bounds lie in [-1, len], and the
    // count is computed in unsigned arithmetic from the step's magnitude (|INT64_MIN| = 2^63).
    auto clampi = [&](std::optional<std::int64_t> x, std::int64_t dflt, std::int64_t lo, std::int64_t hi) {
      if (!x) return dflt;
      std::int64_t y = *x < 0 ? *x + len : *x;
      return std::clamp(y, lo, hi);
    };
    const bool up = sl.step > 0;
    const std::uint64_t magnitude = up ? static_cast<std::uint64_t>(sl.step) : std::uint64_t{0} - static_cast<std::uint64_t>(sl.step);
    std::int64_t start, stop, count = 0;
    if (up) {
      start = clampi(sl.start, 0, 0, len);
      stop = clampi(sl.stop, len, 0, len);
    } else {
      start = clampi(sl.start, len - 1, -1, len - 1);
      stop = clampi(sl.stop, -1, -1, len - 1);
    }
    const std::int64_t extent = up ? stop - start : start - stop;  // within [-len - 1, len + 1]
    if (extent > 0) count = static_cast<std::int64_t>((static_cast<std::uint64_t>(extent) - 1) / magnitude + 1);
    if (count > 0) offset += start * st[d];
    s[d] = count;
    // With two or more elements |step| < len, so the product fits; with one the stride is unused.
    if (count > 1) st[d] *= sl.step;
  }
  return Array(detail::make_view(node_, std::move(s), offset, std::move(st)));
}

Array Array::operator[](std::int64_t i) const {
  const auto& n = checked(node_);
  if (n.shape().empty()) throw InvalidArgument("indexing a 0-d array");
  std::int64_t len = n.shape()[0];
  if (i < -len || i >= len)
    throw InvalidArgument(cat("index ", i, " is out of bounds for axis 0 with size ", len));
  if (i < 0) i += len;
  const auto& v = detail::evaluate(node_);
  Shape s(n.shape().begin() + 1, n.shape().end());
  std::vector<std::int64_t> st(v.strides.begin() + 1, v.strides.end());
  return Array(detail::make_view(node_, std::move(s), v.offset + i * v.strides[0], std::move(st)));
}

Array Array::broadcast_to(Shape shape) const { return Array(detail::broadcast_node(detail::node_of(*this, "broadcast_to"), shape)); }

Array Array::expand_dims(int axis) const {
  Shape s = shape();
  int a = normalize_axis(axis, ndim() + 1, "expand_dims");
  s.insert(s.begin() + a, 1);
  return reshape(std::move(s));
}

Array Array::squeeze() const {
  Shape s;
  for (auto d : shape())
    if (d != 1) s.push_back(d);
  return reshape(std::move(s));
}

Array Array::astype(DType t) const {
  detail::check_valid_dtype(t, "astype");
  return Array(detail::cast(detail::node_of(*this, "astype"), t));
}

Array Array::copy() const {
  auto n = detail::node_of(*this, "copy");
  auto out = detail::make_buffer_node(n->shape(), n->dtype(), n->device());
  detail::evaluate_into(n, out->view());
  return Array(out);
}

Array Array::contiguous() const {
  auto n = detail::node_of(*this, "contiguous");
  detail::evaluate(n);
  if (detail::is_contiguous_view(n->shape(), n->view().strides)) return *this;
  return copy();
}

Array Array::to(const Device& d) const {
  auto n = detail::node_of(*this, "to");
  if (!d.valid()) throw InvalidArgument("to(): the target device is empty");
  if (n->device() == d) return *this;
  detail::check_dtype(d, n->dtype());
  if (n->device().backend() == d.backend() && nbytes() > 0) {
    // Between two devices of one backend (two GPUs): device to device where the backend can.
    Array src = contiguous();
    const auto& v = detail::evaluate(src.node());
    auto out = detail::make_buffer_node(shape(), dtype(), d);
    const auto& sq = detail::thread_queue_shared(n->device());
    const auto& dq = detail::thread_queue_shared(d);
    v.buffer->before_read(sq);
    dq->synchronize();  // the destination, allocated in dq's order, exists before sq copies into it
    if (n->device().impl().copy_to_peer(*sq, v.buffer->handle(), static_cast<std::size_t>(v.offset) * itemsize(dtype()),
                                        d.impl(), out->view().buffer->handle(), 0, nbytes())) {
      sq->synchronize();  // later work on dq reads the copy
      return Array(out);
    }
  }
  // Through the host; not zero-filled first (make_unique_for_overwrite), the read overwrites it.
  auto host = std::make_unique_for_overwrite<std::uint8_t[]>(nbytes());
  to_host(dtype(), host.get(), nbytes());
  return from_host(host.get(), dtype(), shape(), d);
}

}  // namespace porta
