// Integer-array and boolean indexing (include/porta/index.hpp): take, take_along_axis, put,
// scatter_add, compress, nonzero, count_nonzero, Array::operator[](Array). Checks first, then the
// device primitives of primitives/primitives.hpp on contiguous operands.
#include <porta/index.hpp>

#include <porta/error.hpp>
#include <porta/reduce.hpp>
#include <porta/scan.hpp>
#include <porta/sort.hpp>

#include "runtime/device_state.hpp"
#include "api/axes.hpp"
#include "lazy/expr.hpp"
#include "primitives/primitives.hpp"
#include "porta_backend/strings.hpp"
#include "api/write.hpp"

namespace porta {

using detail::cat;

namespace {

// Indices of any integer dtype (NumPy's) as contiguous int64. uint64 ones at or above 2^63 are
// out of bounds for any axis: checked before the cast, which would wrap them to negative indices
// (counted from the end).
Array int64_indices(const Array& indices, const detail::ArrayNode& n, const Device& d, const char* what) {
  if (!is_integral(n.dtype()))
    throw DTypeError(cat(what, ": indices are ", name(n.dtype()), "; they must be integers (a bool mask goes to compress)"));
  if (n.device() != d)
    throw InvalidArgument(cat(what, ": the indices are on ", n.device().spec(), " and the array on ", d.spec()));
  if (n.dtype() == DType::uint64 && indices.size() > 0) {
    const std::uint64_t hi = max(indices).item<std::uint64_t>();
    if (hi > static_cast<std::uint64_t>(INT64_MAX))
      throw InvalidArgument(cat(what, ": index ", hi, " is out of bounds (uint64 indices must be below 2^63, and below the axis' size)"));
  }
  return indices.astype(DType::int64).contiguous();
}

// `indices` as a contiguous int64 array, every element checked against an axis of `len`.
Array checked_indices(const Array& indices, std::int64_t len, const Device& d, const char* what, const char* axis_text) {
  auto n = detail::node_of(indices, what);
  Array idx = int64_indices(indices, *n, d, what);
  if (idx.size() > 0) {
    std::int64_t lo = min(idx).item<std::int64_t>(), hi = max(idx).item<std::int64_t>();
    if (lo < -len || hi >= len) {
      std::int64_t bad = lo < -len ? lo : hi;
      throw InvalidArgument(cat(what, ": index ", bad, " is out of bounds for ", axis_text, " with size ", len,
                                " (valid: ", -len, " to ", len - 1, ")"));
    }
  }
  return idx;
}

const detail::View& view_of(const Array& a) { return detail::evaluate(a.node()); }

// Indices for a gather that checks them itself (gather's `check`): dtype and device only here.
Array gather_indices(const Array& indices, const Device& d, const char* what) {
  auto n = detail::node_of(indices, what);
  return int64_indices(indices, *n, d, what);
}

// Runs a checked gather into `out` and throws, naming an index, when one was out of range.
void checked_gather(const Array& src, const Array& idx, const Array& out, std::int64_t outer, std::int64_t m,
                    std::int64_t inner, std::int64_t len, bool along, const char* what, int axis) {
  Array flag = zeros({2}, DType::int64, src.device()).copy();
  detail::gather(src.dtype(), view_of(src), view_of(idx), view_of(out), outer, m, inner, len, along, &view_of(flag));
  auto f = flag.to_vector<std::int64_t>();
  if (f[0])
    throw InvalidArgument(cat(what, ": index ", f[1], " is out of bounds for axis ", axis, " with size ", len, " (valid: ", -len,
                              " to ", len - 1, ")"));
}

}  // namespace

Array take(const Array& a, const Array& indices, std::optional<int> axis) {
  auto an = detail::node_of(a, "take");
  Array src = axis ? a : a.flatten();
  if (src.ndim() == 0) throw InvalidArgument("take: a 0-d array has no axis to index");
  int ax = detail::normalize_axis_for(axis.value_or(0), src.ndim(), "take");
  const std::int64_t len = src.dim(ax);
  Array idx = gather_indices(indices, an->device(), "take");
  std::int64_t outer = 1, inner = 1;
  for (int d = 0; d < ax; ++d) outer *= src.dim(d);
  for (int d = ax + 1; d < src.ndim(); ++d) inner *= src.dim(d);
  Shape out_shape(src.shape().begin(), src.shape().begin() + ax);
  out_shape.insert(out_shape.end(), indices.shape().begin(), indices.shape().end());
  out_shape.insert(out_shape.end(), src.shape().begin() + ax + 1, src.shape().end());
  Array out = empty(out_shape, src.dtype(), src.device());
  if (out.size() == 0) {
    checked_indices(indices, len, an->device(), "take", cat("axis ", ax).c_str());  // nothing gathered checks them
    return out;
  }
  Array c = src.contiguous();
  checked_gather(c, idx, out, outer, idx.size(), inner, len, false, "take", ax);
  return out;
}

Array take_along_axis(const Array& a, const Array& indices, int axis) {
  auto an = detail::node_of(a, "take_along_axis");
  detail::node_of(indices, "take_along_axis");
  if (a.ndim() == 0) throw InvalidArgument("take_along_axis: a 0-d array has no axis to index");
  int ax = detail::normalize_axis_for(axis, a.ndim(), "take_along_axis");
  if (indices.ndim() != a.ndim())
    throw ShapeError(cat("take_along_axis: indices of shape ", to_string(indices.shape()), " for an array of shape ",
                         to_string(a.shape()), "; they need the same number of dimensions"));
  for (int d = 0; d < a.ndim(); ++d)
    if (d != ax && indices.dim(d) != a.dim(d))
      throw ShapeError(cat("take_along_axis: indices of shape ", to_string(indices.shape()), " for an array of shape ",
                           to_string(a.shape()), " along axis ", ax, "; every other axis must match"));
  const std::int64_t len = a.dim(ax);
  Array idx = gather_indices(indices, an->device(), "take_along_axis");
  std::int64_t outer = 1, inner = 1;
  for (int d = 0; d < ax; ++d) outer *= a.dim(d);
  for (int d = ax + 1; d < a.ndim(); ++d) inner *= a.dim(d);
  Array out = empty(indices.shape(), a.dtype(), a.device());
  if (out.size() == 0) {
    checked_indices(indices, len, an->device(), "take_along_axis", cat("axis ", ax).c_str());
    return out;
  }
  Array c = a.contiguous();
  checked_gather(c, idx, out, outer, indices.dim(ax), inner, len, true, "take_along_axis", ax);
  return out;
}

namespace {

// put and scatter_add: checks, then `op(dst, idx, vals)` on a's memory, or on a contiguous copy
// of its elements when a is a non-contiguous view (written back through the view afterwards).
// Indices or values that share a's memory are copied first: the scatter must not read what it writes.
template <class Op>
const Array& scatter_common(const Array& a, const Array& indices, const Operand& values, const char* what, Op op) {
  auto an = detail::node_of(a, what);
  detail::writable_view(an, what);
  Array idx = checked_indices(indices, a.size(), an->device(), what, "the flattened array");
  auto v = detail::value_node(values, indices.shape(), a.dtype(), a.device(), what);
  Array vals = Array(v).contiguous();
  if (idx.size() == 0) return a;
  const auto& buffer = detail::evaluate(an).buffer;
  if (view_of(idx).buffer == buffer) idx = idx.copy();
  if (view_of(vals).buffer == buffer) vals = vals.copy();
  if (a.is_contiguous()) {
    // Lazy readers of a's memory see the values from before the write
    // (docs/design/threading.md#writes-and-lazy-readers).
    detail::settle_pending_readers(*buffer);
    op(a, idx, vals);
  } else {
    Array tmp = a.copy();
    op(tmp, idx, vals);
    a.assign(tmp);
  }
  return a;
}

}  // namespace

const Array& put(const Array& a, const Array& indices, const Operand& values) {
  return scatter_common(a, indices, values, "put", [](const Array& dst, const Array& idx, const Array& vals) {
    detail::scatter(dst.dtype(), view_of(dst), view_of(idx), view_of(vals), idx.size(), dst.size());
  });
}

const Array& scatter_add(const Array& a, const Array& indices, const Operand& values) {
  return scatter_common(a, indices, values, "scatter_add", [](const Array& dst, const Array& idx, const Array& vals) {
    const std::int64_t m = idx.size(), len = dst.size();
    const bool host = dst.device().impl().info().dialect == detail::Dialect::none;
    if (host || m <= 64) {
      // Each element scans every index (few indices), or the host's loop in index order.
      detail::scatter_add(dst.dtype(), view_of(dst), view_of(idx), view_of(vals), m, len);
      return;
    }
    // Indices sorted (stably: equal ones keep their order), values in that order, then one
    // work-item per distinct index adds its run of values in order: NumPy's add.at order, no atomics.
    Array wrapped = where(idx < 0, idx + len, idx).eval();
    Array perm = argsort(wrapped);
    Array sorted_idx = take(wrapped, perm), sorted_vals = take(vals, perm);
    Array starts = flatnonzero(concatenate({full({1}, 1, DType::boolean, dst.device()),
                                            sorted_idx.slice({from(1)}) != sorted_idx.slice({upto(-1)})}));
    detail::segment_add(dst.dtype(), view_of(dst), view_of(sorted_idx), view_of(sorted_vals), view_of(starts), starts.size(), m);
  });
}

Array compress(const Array& mask, const Array& a) {
  auto an = detail::node_of(a, "compress");
  auto mn = detail::node_of(mask, "compress (mask)");
  if (mn->dtype() != DType::boolean)
    throw DTypeError(cat("compress: the mask is ", name(mn->dtype()), "; it must be bool (compare, or astype(bool))"));
  const bool flat_mask = mask.ndim() == 1 && mask.size() == a.size();
  if (mask.shape() != a.shape() && !flat_mask)
    throw ShapeError(cat("compress: a mask of shape ", to_string(mask.shape()), " for an array of shape ",
                         to_string(a.shape()), "; a boolean index must have the array's shape"));
  if (mn->device() != an->device())
    throw InvalidArgument(cat("compress: the mask is on ", mn->device().spec(), " and the array on ", an->device().spec()));
  Array m = mask.flatten().contiguous();
  const std::int64_t n = a.size();
  if (n == 0) return empty({0}, a.dtype(), a.device());
  // Per tile of the mask: its count, their running total, then each tile compacted from its offset.
  const std::int64_t tiles = detail::mask_tiles(n);
  Array counts = empty({tiles}, DType::int64, a.device()), prefix = empty({tiles}, DType::int64, a.device());
  detail::mask_tile_counts(view_of(m), view_of(counts), n);
  detail::scan_rows(DType::int64, view_of(counts), view_of(prefix), 1, tiles, false);
  const std::int64_t count = prefix[tiles - 1].item<std::int64_t>();
  Array out = empty({count}, a.dtype(), a.device());
  if (count == 0) return out;
  Array src = a.flatten().contiguous();
  detail::compress(a.dtype(), view_of(src), view_of(m), view_of(prefix), view_of(out), n);
  return out;
}

Array flatnonzero(const Array& a) {
  detail::node_of(a, "flatnonzero");
  Array m = a.dtype() == DType::boolean ? a : not_equal(a, 0);
  return compress(m.flatten(), arange(a.size(), DType::int64, a.device()));
}

std::vector<Array> nonzero(const Array& a) {
  detail::node_of(a, "nonzero");
  Array flat = flatnonzero(a);
  if (a.ndim() <= 1) return {flat};
  std::vector<Array> out;
  std::int64_t stride = a.size();
  for (int d = 0; d < a.ndim(); ++d) {
    if (flat.size() == 0) {
      out.push_back(flat);
      continue;
    }
    stride /= a.dim(d);
    // (i mod (stride * dim) - i mod stride) / stride: an exact quotient (indices stay below 2^53).
    Array q = divide(subtract(remainder(flat, stride * a.dim(d)), remainder(flat, stride)), stride);
    out.push_back(q.astype(DType::int64).eval());
  }
  return out;
}

Array count_nonzero(const Array& a) { return sum(not_equal(a, 0)); }
Array count_nonzero(const Array& a, int axis, bool keepdims) { return sum(not_equal(a, 0), axis, keepdims); }

Array Array::operator[](const Array& index) const {
  detail::node_of(*this, "operator[]");
  auto in = detail::node_of(index, "operator[] (index)");
  if (in->dtype() == DType::boolean) return compress(index, *this);
  return take(*this, index, 0);
}

}  // namespace porta
