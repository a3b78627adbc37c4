// Scans (include/porta/scan.hpp): along the last axis, or along another where there are enough
// columns to give each its own work-item (scan_columns), the operand made contiguous (a copy only
// where it is not already); otherwise the scanned axis is moved last first. primitives/scan.cpp's scans
// write a fresh buffer.
#include <porta/scan.hpp>

#include <porta/error.hpp>
#include <porta/index.hpp>
#include <porta/ops.hpp>

#include <numeric>

#include "api/axes.hpp"
#include "lazy/expr.hpp"
#include "primitives/primitives.hpp"
#include "porta_backend/strings.hpp"

namespace porta {

using detail::cat;

namespace detail {

int normalize_axis_for(int axis, int ndim, const char* what) {
  if (ndim == 0 ? (axis != 0 && axis != -1) : (axis < -ndim || axis >= ndim))
    throw InvalidArgument(cat(what, ": axis ", axis, " is out of range for an array of ", ndim, " dimensions"));
  return axis < 0 ? axis + std::max(ndim, 1) : axis;
}

namespace {

// NumPy's cumsum/cumprod: bool and the signed integers accumulate in int64 (NumPy's default
// integer), the unsigned ones in uint64, complex numbers in their own dtype.
DType accumulate_dtype(DType t) {
  if (t == DType::boolean || is_signed_integer(t)) return DType::int64;
  if (is_unsigned_integer(t)) return DType::uint64;
  if (t == DType::float16 || t == DType::bfloat16) return DType::float32;
  return t;
}

DType scan_result_dtype(DType t) {
  if (t == DType::boolean || is_signed_integer(t)) return DType::int64;
  if (is_unsigned_integer(t)) return DType::uint64;
  return t;
}

Array scan(const Array& input, std::optional<int> axis, bool product, const char* what) {
  node_of(input, what);
  Array a = axis ? input : input.flatten();
  if (a.ndim() == 0) a = a.reshape({1});
  int ax = normalize_axis_for(axis.value_or(0), a.ndim(), what);
  const DType acc = accumulate_dtype(a.dtype());
  const std::int64_t len = a.dim(ax);
  std::int64_t before = 1, inner = 1;
  for (int d = 0; d < ax; ++d) before *= a.dim(d);
  for (int d = ax + 1; d < a.ndim(); ++d) inner *= a.dim(d);
  if (inner > 1 && (before * inner >= 16384 || before * inner >= len)) {
    // Enough columns to go down each in its own work-item: no transposed copy in or out.
    Array src = a.astype(acc).contiguous();
    auto out = make_buffer_node(a.shape(), acc, a.device());
    scan_columns(acc, evaluate(src.node()), out->view(), before, len, inner, product);
    return Array(out).astype(scan_result_dtype(a.dtype()));
  }
  // Move the axis last: perm takes it there, inverse brings it back.
  std::vector<int> perm;
  for (int d = 0; d < a.ndim(); ++d)
    if (d != ax) perm.push_back(d);
  perm.push_back(ax);
  std::vector<int> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inverse[static_cast<std::size_t>(perm[i])] = static_cast<int>(i);
  Array moved = a.transpose(perm);
  const Shape moved_shape = moved.shape();
  const std::int64_t outer = len ? a.size() / len : 0;
  Array src = moved.astype(acc).contiguous();
  auto out = make_buffer_node(moved_shape, acc, a.device());
  scan_rows(acc, evaluate(src.node()), out->view(), outer, len, product);
  Array cur(out);
  return cur.astype(scan_result_dtype(a.dtype())).reshape(moved_shape).transpose(inverse);
}

Array cumulative(const Array& a, std::optional<int> axis, bool include_initial, bool product, const char* what) {
  auto n = node_of(a, what);
  if (!axis && a.ndim() != 1)
    throw InvalidArgument(cat(what, ": an array of ", a.ndim(), " dimensions needs an axis (the standard flattens nothing)"));
  int ax = normalize_axis_for(axis.value_or(0), std::max(a.ndim(), 1), what);
  Array s = scan(a, ax, product, what);
  if (!include_initial) return s;
  Shape first = s.shape();
  first[static_cast<std::size_t>(ax)] = 1;
  return concatenate({full(first, product ? 1.0 : 0.0, s.dtype(), s.device()), s}, ax);
}

}  // namespace
}  // namespace detail

Array cumsum(const Array& a, std::optional<int> axis) { return detail::scan(a, axis, false, "cumsum"); }
Array cumprod(const Array& a, std::optional<int> axis) { return detail::scan(a, axis, true, "cumprod"); }

Array cumulative_sum(const Array& a, std::optional<int> axis, bool include_initial) {
  return detail::cumulative(a, axis, include_initial, false, "cumulative_sum");
}
Array cumulative_prod(const Array& a, std::optional<int> axis, bool include_initial) {
  return detail::cumulative(a, axis, include_initial, true, "cumulative_prod");
}

Array diff(const Array& a, int n, int axis) {
  detail::node_of(a, "diff");
  if (n < 0) throw InvalidArgument(cat("diff: order n = ", n, " must be >= 0"));
  if (a.ndim() == 0) throw InvalidArgument("diff of a 0-d array: it needs at least one dimension");
  int ax = detail::normalize_axis_for(axis, a.ndim(), "diff");
  Array r = a;
  for (int i = 0; i < n && r.dim(ax) > 0; ++i) {
    // Whole leading axes, then [1:] and [:-1] along ax.
    std::vector<Slice> hi(static_cast<std::size_t>(ax)), lo(static_cast<std::size_t>(ax));
    hi.push_back(Slice{1, std::nullopt});
    lo.push_back(Slice{std::nullopt, -1});
    Array x = r.slice(hi), y = r.slice(lo);
    r = r.dtype() == DType::boolean ? not_equal(x, y) : subtract(x, y);
    r.eval();
  }
  return r;
}

}  // namespace porta
