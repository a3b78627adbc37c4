// The array API's functions made of views and porta's own operations: moveaxis, broadcast_arrays,
// meshgrid and the standard's names concat, permute_dims, matrix_transpose, astype (manip.hpp),
// vecdot and tensordot (linalg.hpp). Each checks every argument before
// it touches an array (a transpose of a lazy array evaluates it), so a bad call does no work.
#include <porta/error.hpp>
#include <porta/linalg.hpp>
#include <porta/manip.hpp>
#include <porta/ops.hpp>
#include <porta/reduce.hpp>

#include <algorithm>
#include <utility>

#include "api/axes.hpp"
#include "lazy/expr.hpp"
#include "porta_backend/strings.hpp"

namespace porta {

using detail::cat;

namespace {

std::string list_text(const std::vector<int>& v) {
  std::vector<std::string> parts;
  for (int x : v) parts.push_back(cat(x));
  return cat("[", detail::join(parts, ", "), "]");
}

// Each axis normalised, in the given order; InvalidArgument when one is named twice.
std::vector<int> distinct_axes(const Array& a, const std::vector<int>& axes, const char* what) {
  std::vector<int> out;
  for (int x : axes) out.push_back(detail::axis_of(a, x, what));
  for (std::size_t i = 0; i < out.size(); ++i)
    if (std::count(out.begin(), out.end(), out[i]) > 1)
      throw InvalidArgument(cat(what, ": axes ", list_text(axes), " name an axis more than once"));
  return out;
}

Shape without(const Shape& s, int axis) {
  Shape out;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (static_cast<int>(i) != axis) out.push_back(s[i]);
  return out;
}

// Sums of products along `axis` of x and y (one shape, or shapes that broadcast), in `t`: bool
// gives whether any pair is true in both, as NumPy's.
Array sum_of_products(const Array& x, const Array& y, int axis, DType t) {
  if (t == DType::boolean) return any(logical_and(x, y), axis);
  // float16 and bfloat16: products and sum in float32, rounded once (NumPy's half dot and porta's
  // matmul): a product beyond float16 (300 * 400) would otherwise be inf, and inf - inf NaN.
  if (t == DType::float16 || t == DType::bfloat16)
    return sum(multiply(x.astype(DType::float32), y.astype(DType::float32)), axis).astype(t);
  return sum(multiply(x, y), axis).astype(t);
}

}  // namespace

Array moveaxis(const Array& a, const std::vector<int>& source, const std::vector<int>& destination) {
  detail::node_of(a, "moveaxis");
  const std::vector<int> src = distinct_axes(a, source, "moveaxis (source)");
  const std::vector<int> dst = distinct_axes(a, destination, "moveaxis (destination)");
  if (src.size() != dst.size())
    throw InvalidArgument(cat("moveaxis: ", src.size(), " source axes ", list_text(source), " and ", dst.size(),
                              " destination axes ", list_text(destination), "; give as many of each"));
  std::vector<int> order;
  for (int i = 0; i < a.ndim(); ++i)
    if (std::find(src.begin(), src.end(), i) == src.end()) order.push_back(i);
  std::vector<std::pair<int, int>> moves;
  for (std::size_t i = 0; i < src.size(); ++i) moves.emplace_back(dst[i], src[i]);
  std::sort(moves.begin(), moves.end());
  for (auto [d, s] : moves) order.insert(order.begin() + d, s);
  return a.transpose(order);
}

Array concat(const std::vector<Array>& arrays, std::optional<int> axis) {
  if (axis) return concatenate(arrays, *axis);
  std::vector<Array> flat;
  for (const Array& a : arrays) {
    detail::node_of(a, "concat");
    flat.push_back(a.flatten());
  }
  return concatenate(flat, 0);
}

Array permute_dims(const Array& a, const std::vector<int>& axes) {
  detail::node_of(a, "permute_dims");
  if (static_cast<int>(axes.size()) != a.ndim())
    throw InvalidArgument(cat("permute_dims: axes ", list_text(axes), " for an array of ", a.ndim(), " dimensions ",
                              to_string(a.shape()), "; name every axis once"));
  const std::vector<int> order = distinct_axes(a, axes, "permute_dims");
  return order.empty() ? a : a.transpose(order);
}

Array matrix_transpose(const Array& a) {
  detail::node_of(a, "matrix_transpose");
  if (a.ndim() < 2)
    throw InvalidArgument(cat("matrix_transpose: an array of ", a.ndim(), " dimensions ", to_string(a.shape()),
                              "; it needs at least two (a matrix or a stack of them)"));
  std::vector<int> order;
  for (int i = 0; i < a.ndim(); ++i) order.push_back(i);
  std::swap(order[order.size() - 1], order[order.size() - 2]);
  return a.transpose(order);
}

Array astype(const Array& a, DType t) { return a.astype(t); }

std::vector<Array> broadcast_arrays(const std::vector<Array>& arrays) {
  Shape shape;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    detail::node_of(arrays[i], "broadcast_arrays");
    shape = i == 0 ? arrays[i].shape() : detail::broadcast_shapes(shape, arrays[i].shape());
  }
  std::vector<Array> out;
  for (const Array& a : arrays) out.push_back(a.broadcast_to(shape));
  return out;
}

std::vector<Array> meshgrid(const std::vector<Array>& xs, MeshIndexing indexing, bool sparse, bool copy) {
  for (const Array& x : xs) detail::node_of(x, "meshgrid");
  const std::size_t n = xs.size();
  std::vector<std::size_t> axes(n);
  for (std::size_t i = 0; i < n; ++i) axes[i] = i;
  if (indexing == MeshIndexing::xy && n > 1) std::swap(axes[0], axes[1]);
  Shape shape(n, 1);
  for (std::size_t i = 0; i < n; ++i) shape[axes[i]] = xs[i].size();
  std::vector<Array> out;
  for (std::size_t i = 0; i < n; ++i) {
    Shape one(n, 1);
    one[axes[i]] = xs[i].size();
    Array r = xs[i].reshape(one);
    if (!sparse) r = r.broadcast_to(shape);
    out.push_back(copy ? r.copy() : r);
  }
  return out;
}

Array vecdot(const Array& a, const Array& b, int axis) {
  detail::node_of(a, "vecdot");
  detail::node_of(b, "vecdot");
  const int a1 = detail::axis_of(a, axis, "vecdot (x1)"), a2 = detail::axis_of(b, axis, "vecdot (x2)");
  if (a.dim(a1) != b.dim(a2))
    throw ShapeError(cat("vecdot: axis ", axis, " has ", a.dim(a1), " elements in x1 of shape ", to_string(a.shape()), " and ",
                         b.dim(a2), " in x2 of shape ", to_string(b.shape()), "; they must be equal"));
  try {
    detail::broadcast_shapes(without(a.shape(), a1), without(b.shape(), a2));
  } catch (const ShapeError&) {
    throw ShapeError(cat("vecdot: x1 of shape ", to_string(a.shape()), " and x2 of shape ", to_string(b.shape()),
                         ": their dimensions other than axis ", axis, " do not broadcast to one shape"));
  }
  // The standard's vecdot conjugates x1 (conj of a real array is the array).
  return sum_of_products(moveaxis(conj(a), {a1}, {-1}), moveaxis(b, {a2}, {-1}), -1, promote_types(a.dtype(), b.dtype()));
}

Array tensordot(const Array& a, const Array& b, int axes) {
  detail::node_of(a, "tensordot");
  detail::node_of(b, "tensordot");
  const int most = std::min(a.ndim(), b.ndim());
  if (axes < 0 || axes > most)
    throw InvalidArgument(cat("tensordot: axes=", axes, ", for a of shape ", to_string(a.shape()), " and b of shape ",
                              to_string(b.shape()), "; give a number from 0 to ", most));
  std::vector<int> on_a, on_b;
  for (int i = 0; i < axes; ++i) {
    on_a.push_back(a.ndim() - axes + i);
    on_b.push_back(i);
  }
  return tensordot(a, b, on_a, on_b);
}

Array tensordot(const Array& a, const Array& b, const std::vector<int>& a_axes, const std::vector<int>& b_axes) {
  detail::node_of(a, "tensordot");
  detail::node_of(b, "tensordot");
  const std::vector<int> ax_a = distinct_axes(a, a_axes, "tensordot (a's axes)");
  const std::vector<int> ax_b = distinct_axes(b, b_axes, "tensordot (b's axes)");
  if (ax_a.size() != ax_b.size())
    throw InvalidArgument(cat("tensordot: the axes ", list_text(a_axes), " and ", list_text(b_axes), " name ", ax_a.size(),
                              " axes of a and ", ax_b.size(), " of b; give as many of each"));
  for (std::size_t i = 0; i < ax_a.size(); ++i)
    if (a.dim(ax_a[i]) != b.dim(ax_b[i]))
      throw ShapeError(cat("tensordot: axis ", ax_a[i], " of a (shape ", to_string(a.shape()), ") has ", a.dim(ax_a[i]),
                           " elements and axis ", ax_b[i], " of b (shape ", to_string(b.shape()), ") ", b.dim(ax_b[i]),
                           "; summed axes must be equal"));
  const DType t = promote_types(a.dtype(), b.dtype());
  std::vector<int> order_a, order_b;
  std::int64_t m = 1, k = 1, n = 1;
  Shape out_shape;
  for (int i = 0; i < a.ndim(); ++i)
    if (std::find(ax_a.begin(), ax_a.end(), i) == ax_a.end()) {
      order_a.push_back(i);
      m *= a.dim(i);
      out_shape.push_back(a.dim(i));
    }
  for (int i : ax_a) {
    order_a.push_back(i);
    k *= a.dim(i);
  }
  order_b = ax_b;
  for (int j = 0; j < b.ndim(); ++j)
    if (std::find(ax_b.begin(), ax_b.end(), j) == ax_b.end()) {
      order_b.push_back(j);
      n *= b.dim(j);
      out_shape.push_back(b.dim(j));
    }
  const Array a2 = a.transpose(order_a).reshape({m, k}), b2 = b.transpose(order_b).reshape({k, n});
  return matmul(a2.astype(t), b2.astype(t)).reshape(out_shape);
}

}  // namespace porta
