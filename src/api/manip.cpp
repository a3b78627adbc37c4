// flip, roll, tile, repeat, pad, split, tril/triu, var/std and reductions over axis lists
// (include/porta/manip.hpp): views, copies, concatenation and elementwise work only.
#include <porta/manip.hpp>

#include <porta/error.hpp>
#include <porta/index.hpp>
#include <porta/ops.hpp>
#include <porta/reduce.hpp>
#include <porta/scan.hpp>
#include <porta/sort.hpp>

#include <algorithm>
#include <limits>

#include "api/axes.hpp"
#include "lazy/expr.hpp"
#include "porta_backend/strings.hpp"

namespace porta {

using detail::cat;

int detail::axis_of(const Array& a, int axis, const char* what) {
  if (a.ndim() == 0) throw InvalidArgument(cat(what, ": a 0-d array has no axis ", axis));
  return normalize_axis_for(axis, a.ndim(), what);
}

namespace {

using detail::axis_of;

// Slices that select `s` on axis `ax` and everything elsewhere.
std::vector<Slice> on_axis(int ax, Slice s) {
  std::vector<Slice> v(static_cast<std::size_t>(ax) + 1);
  v.back() = s;
  return v;
}

}  // namespace

Array flip(const Array& a, std::optional<int> axis) {
  detail::node_of(a, "flip");
  if (axis) return a.slice(on_axis(axis_of(a, *axis, "flip"), reversed));
  return a.slice(std::vector<Slice>(static_cast<std::size_t>(a.ndim()), reversed));
}

Array roll(const Array& a, std::int64_t shift, std::optional<int> axis) {
  detail::node_of(a, "roll");
  if (!axis) return roll(a.flatten(), shift, 0).reshape(a.shape());
  int ax = axis_of(a, *axis, "roll");
  const std::int64_t len = a.dim(ax);
  if (len == 0) return a.copy();
  std::int64_t s = ((shift % len) + len) % len;
  if (s == 0) return a.copy();
  return concatenate({a.slice(on_axis(ax, from(len - s))), a.slice(on_axis(ax, upto(len - s)))}, ax);
}

Array tile(const Array& a, const std::vector<std::int64_t>& reps) {
  detail::node_of(a, "tile");
  for (auto r : reps)
    if (r < 0) throw InvalidArgument(cat("tile: repetition ", r, " is negative"));
  std::size_t nd = std::max(reps.size(), static_cast<std::size_t>(a.ndim()));
  Shape shape(nd - static_cast<std::size_t>(a.ndim()), 1);
  shape.insert(shape.end(), a.shape().begin(), a.shape().end());
  std::vector<std::int64_t> r(nd - reps.size(), 1);
  r.insert(r.end(), reps.begin(), reps.end());
  // [1, d0, 1, d1, ...] broadcast to [r0, d0, r1, d1, ...], then merged pairwise.
  Shape inter, wide, out;
  for (std::size_t i = 0; i < nd; ++i) {
    inter.insert(inter.end(), {1, shape[i]});
    wide.insert(wide.end(), {r[i], shape[i]});
    out.push_back(r[i] * shape[i]);
  }
  return a.reshape(inter).broadcast_to(wide).copy().reshape(out);
}

Array repeat(const Array& a, std::int64_t repeats, std::optional<int> axis) {
  detail::node_of(a, "repeat");
  if (repeats < 0) throw InvalidArgument(cat("repeat: repeats = ", repeats, " is negative"));
  Array x = axis ? a : a.flatten();
  int ax = axis_of(x, axis.value_or(0), "repeat");
  Shape inter = x.shape(), wide = x.shape(), out = x.shape();
  inter.insert(inter.begin() + ax + 1, 1);
  wide.insert(wide.begin() + ax + 1, repeats);
  out[static_cast<std::size_t>(ax)] *= repeats;
  return x.reshape(inter).broadcast_to(wide).copy().reshape(out);
}

Array repeat(const Array& a, const Array& repeats, std::optional<int> axis) {
  detail::node_of(a, "repeat");
  auto rn = detail::node_of(repeats, "repeat (repeats)");
  if (rn->dtype() != DType::int32 && rn->dtype() != DType::int64)
    throw DTypeError(cat("repeat: repeats are ", name(rn->dtype()), "; they must be int32 or int64"));
  Array x = axis ? a : a.flatten();
  int ax = axis_of(x, axis.value_or(0), "repeat");
  if (repeats.ndim() != 1 || repeats.size() != x.dim(ax))
    throw ShapeError(cat("repeat: repeats of shape ", to_string(repeats.shape()), " for axis ", ax, " of length ", x.dim(ax),
                         "; give one count per element"));
  Array r = repeats.astype(DType::int64);
  if (r.size() && min(r).item<std::int64_t>() < 0) throw InvalidArgument("repeat: a repeat count is negative");
  Array ends = cumsum(r);
  const std::int64_t total = r.size() ? ends[r.size() - 1].item<std::int64_t>() : 0;
  // Output position q comes from the element whose range [ends[i-1], ends[i]) holds it.
  Array src = searchsorted(ends, arange(total, DType::int64, a.device()), "right");
  return take(x, src, ax);
}

Array pad(const Array& a, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths, double value) {
  detail::node_of(a, "pad");
  std::size_t nd = static_cast<std::size_t>(a.ndim());
  if (widths.size() != nd && widths.size() != 1)
    throw InvalidArgument(cat("pad: ", widths.size(), " (before, after) pairs for an array of ", nd,
                              " dimensions; give one pair per axis, or one for all"));
  Shape out = a.shape();
  std::vector<Slice> inner;
  for (std::size_t i = 0; i < nd; ++i) {
    auto [before, after] = widths.size() == 1 ? widths[0] : widths[i];
    if (before < 0 || after < 0) throw InvalidArgument(cat("pad: widths (", before, ", ", after, ") of axis ", i, " are negative"));
    out[i] += before + after;
    inner.push_back(range(before, before + a.dim(static_cast<int>(i))));
  }
  Array r = full(out, value, a.dtype(), a.device()).copy();
  if (nd == 0) return a.copy();
  r.slice(inner).assign(a);
  return r;
}

std::vector<Array> split(const Array& a, std::int64_t sections, int axis) {
  detail::node_of(a, "split");
  int ax = axis_of(a, axis, "split");
  if (sections <= 0 || a.dim(ax) % sections != 0)
    throw InvalidArgument(cat("split: axis ", ax, " of length ", a.dim(ax), " does not divide into ", sections,
                              " equal sections; give split points instead"));
  std::vector<std::int64_t> points;
  for (std::int64_t i = 1; i < sections; ++i) points.push_back(i * (a.dim(ax) / sections));
  return split(a, points, ax);
}

std::vector<Array> split(const Array& a, const std::vector<std::int64_t>& indices, int axis) {
  detail::node_of(a, "split");
  int ax = axis_of(a, axis, "split");
  std::vector<Array> out;
  // As NumPy: part i is a[points[i-1]:points[i]] with Python's slice bounds (a negative point counts
  // from the end, one past the end clamps, a part whose end lies before its start is empty, and the
  // next part starts at the point itself, not where the empty part ended).
  const std::int64_t n = a.dim(ax);
  auto bound = [n](std::int64_t p) { return std::clamp(p < 0 ? p + n : p, std::int64_t{0}, n); };
  std::int64_t prev = 0;
  for (std::size_t i = 0; i <= indices.size(); ++i) {
    const std::int64_t next = i < indices.size() ? bound(indices[i]) : n;
    out.push_back(a.slice(on_axis(ax, range(prev, std::max(prev, next)))));
    prev = next;
  }
  return out;
}

std::vector<Array> unstack(const Array& a, int axis) {
  detail::node_of(a, "unstack");
  const int ax = axis_of(a, axis, "unstack");
  std::vector<int> order = {ax};
  for (int i = 0; i < a.ndim(); ++i)
    if (i != ax) order.push_back(i);
  const Array front = a.transpose(order);
  std::vector<Array> out;
  for (std::int64_t i = 0; i < a.dim(ax); ++i) out.push_back(front[i]);
  return out;
}

namespace {

Array triangle(const Array& a, std::int64_t k, bool lower, const char* what) {
  detail::node_of(a, what);
  if (a.ndim() < 2) throw InvalidArgument(cat(what, ": an array of ", a.ndim(), " dimensions; it needs at least 2"));
  const std::int64_t n = a.dim(-2), m = a.dim(-1);
  Array rows = arange(n, DType::int64, a.device()).reshape({n, 1});
  Array cols = arange(m, DType::int64, a.device()).reshape({1, m});
  Array d = cols - rows;
  Array keep = lower ? d <= k : d >= k;
  return where(keep, a, zeros({}, a.dtype(), a.device())).astype(a.dtype());
}

// Axes normalised, each once, in increasing order.
std::vector<int> axes_of(const Array& a, const std::vector<int>& axes, const char* what) {
  std::vector<int> v;
  for (int ax : axes) {
    int n = detail::normalize_axis_for(ax, std::max(a.ndim(), 1), what);
    if (std::find(v.begin(), v.end(), n) != v.end()) throw InvalidArgument(cat(what, ": axis ", ax, " is repeated"));
    v.push_back(n);
  }
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<int> every_axis(const Array& a) {
  std::vector<int> v;
  for (int i = 0; i < a.ndim(); ++i) v.push_back(i);
  return v;
}

// A single-axis reduction over several axes: those moved last and merged into one.
template <class Reduce>
Array over_axes(const Array& a, const std::vector<int>& axes_in, bool keepdims, const char* what, Reduce reduce1) {
  detail::node_of(a, what);
  if (a.ndim() == 0) return reduce1(a.reshape({1}), 0).reshape({});  // a 0-d array's only element
  std::vector<int> axes = axes_of(a, axes_in, what);
  std::vector<int> perm;
  Shape kept, keep_shape = a.shape();
  std::int64_t merged = 1;
  for (int d = 0; d < a.ndim(); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) {
      perm.push_back(d);
      kept.push_back(a.dim(d));
    }
  for (int d : axes) {
    perm.push_back(d);
    merged *= a.dim(d);
    keep_shape[static_cast<std::size_t>(d)] = 1;
  }
  Shape flat = kept;
  flat.push_back(merged);
  Array r = reduce1(a.transpose(perm).reshape(flat), static_cast<int>(kept.size()));
  return keepdims ? r.reshape(keep_shape) : r;
}

Array variance(const Array& a, const std::vector<int>& axes_in, double ddof, bool keepdims, bool root, const char* what) {
  detail::node_of(a, what);
  const DType t = a.dtype();
  // complex: NumPy's squared magnitudes of the deviations, a real result
  const bool cx = is_complex(t);
  const DType work = t == DType::float32 || t == DType::float64 || cx ? t : t == DType::float16 || t == DType::bfloat16 ? DType::float32 : DType::float64;
  Array x = a.astype(work);
  std::vector<int> axes = a.ndim() ? axes_of(a, axes_in, what) : std::vector<int>{};
  std::int64_t count = 1;
  for (int d : axes) count *= a.dim(d);
  if (a.ndim() == 0) count = 1;
  Array m = a.ndim() ? over_axes(x, axes, true, what, [](const Array& v, int ax) { return mean(v, ax); }) : x;
  Array dev = x - m;
  const Array sq = cx ? square(real(dev)) + square(imag(dev)) : square(dev);
  Array ss = a.ndim() ? over_axes(sq, axes, keepdims, what, [](const Array& v, int ax) { return sum(v, ax); }) : sq;
  // NumPy clamps the divisor at 0: ddof >= N gives inf (or NaN where every deviation is 0).
  Array r = divide(ss, std::max(static_cast<double>(count) - ddof, 0.0));
  if (root) r = sqrt(r);
  const DType out = t == DType::float16 || t == DType::bfloat16 ? t : cx ? real_dtype(t) : work;
  return r.astype(out);
}

}  // namespace

Array tril(const Array& a, std::int64_t k) { return triangle(a, k, true, "tril"); }
Array triu(const Array& a, std::int64_t k) { return triangle(a, k, false, "triu"); }

Array var(const Array& a, double ddof) { return variance(a, a.valid() ? every_axis(a) : std::vector<int>{}, ddof, false, false, "var"); }
Array var(const Array& a, const std::vector<int>& axes, double ddof, bool keepdims) { return variance(a, axes, ddof, keepdims, false, "var"); }
Array std(const Array& a, double ddof) { return variance(a, a.valid() ? every_axis(a) : std::vector<int>{}, ddof, false, true, "std"); }
Array std(const Array& a, const std::vector<int>& axes, double ddof, bool keepdims) { return variance(a, axes, ddof, keepdims, true, "std"); }

#define PORTA_AXIS_LIST_REDUCTION(NAME)                                                                      \
  Array NAME(const Array& a, const std::vector<int>& axes, bool keepdims) {                                  \
    return over_axes(a, axes, keepdims, #NAME, [](const Array& v, int ax) { return NAME(v, ax); });         \
  }                                                                                                          \
  Array NAME(const Array& a, AllAxes, bool keepdims) {                                                       \
    detail::node_of(a, #NAME);                                                                               \
    return over_axes(a, every_axis(a), keepdims, #NAME, [](const Array& v, int ax) { return NAME(v, ax); }); \
  }

PORTA_AXIS_LIST_REDUCTION(sum)
PORTA_AXIS_LIST_REDUCTION(prod)
PORTA_AXIS_LIST_REDUCTION(mean)
PORTA_AXIS_LIST_REDUCTION(min)
PORTA_AXIS_LIST_REDUCTION(max)
PORTA_AXIS_LIST_REDUCTION(all)
PORTA_AXIS_LIST_REDUCTION(any)

#undef PORTA_AXIS_LIST_REDUCTION

}  // namespace porta
