// porta::linalg's compositions of views, elementwise operations, reductions and the decompositions
// (linalg_solve.cpp): diagonal, trace, outer, cross and the norms.
#include <porta/error.hpp>
#include <porta/linalg.hpp>
#include <porta/manip.hpp>
#include <porta/ops.hpp>
#include <porta/reduce.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "api/axes.hpp"
#include "lazy/expr.hpp"
#include "porta_backend/strings.hpp"

namespace porta::linalg {

using detail::cat;

namespace {

void need_matrix(const Array& a, const char* what) {
  detail::node_of(a, what);
  if (a.ndim() < 2)
    throw ShapeError(cat(what, ": an array of shape ", to_string(a.shape()), " is not a matrix; give at least 2 dimensions"));
}

// |x| in the dtype norms are taken in: real floating (integers and bool: float64).
Array magnitude(const Array& a) {
  const DType t = a.dtype();
  if (is_complex(t)) return abs(a);
  if (is_floating(t)) return abs(a);
  return abs(a.astype(DType::float64));
}

}  // namespace

Array diagonal(const Array& a, std::int64_t offset) {
  need_matrix(a, "diagonal");
  const std::int64_t m = a.dim(-2), n = a.dim(-1);
  const std::int64_t length = offset >= 0 ? std::max<std::int64_t>(0, std::min(m, n - offset))
                                          : std::max<std::int64_t>(0, std::min(m + offset, n));
  Shape flat(a.shape().begin(), a.shape().end() - 2);
  flat.push_back(m * n);
  if (length == 0) {
    Shape s(a.shape().begin(), a.shape().end() - 2);
    s.push_back(0);
    return empty(s, a.dtype(), a.device());
  }
  // Element (i, i + offset) of a row-major m x n matrix is at i * (n + 1) + offset.
  const std::int64_t start = offset >= 0 ? offset : -offset * n;
  return a.reshape(flat).slice({ellipsis, range(start, start + (length - 1) * (n + 1) + 1, n + 1)});
}

Array trace(const Array& a, std::int64_t offset) { return sum(diagonal(a, offset), -1); }

Array outer(const Array& a, const Array& b) {
  detail::node_of(a, "outer");
  detail::node_of(b, "outer");
  if (a.ndim() != 1 || b.ndim() != 1)
    throw ShapeError(cat("outer takes two 1-D arrays; got shapes ", to_string(a.shape()), " and ", to_string(b.shape())));
  return multiply(a.reshape({a.size(), 1}), b.reshape({1, b.size()}));
}

Array cross(const Array& a, const Array& b, int axis) {
  detail::node_of(a, "cross");
  detail::node_of(b, "cross");
  detail::check_same_device(a.node(), b.node(), "cross");
  const int aa = detail::axis_of(a, axis, "cross (x1)"), ab = detail::axis_of(b, axis, "cross (x2)");
  if (a.dim(aa) != 3 || b.dim(ab) != 3)
    throw ShapeError(cat("cross: axis ", axis, " has ", a.dim(aa), " elements in x1 of shape ", to_string(a.shape()),
                         " and ", b.dim(ab), " in x2 of shape ", to_string(b.shape()), "; both must have 3"));
  auto parts = [](const Array& x, int ax) {
    Array y = moveaxis(x, {ax}, {-1});
    return std::array<Array, 3>{y.slice({ellipsis, range(0, 1)}), y.slice({ellipsis, range(1, 2)}),
                                y.slice({ellipsis, range(2, 3)})};
  };
  auto [x0, x1, x2] = parts(a, aa);
  auto [y0, y1, y2] = parts(b, ab);
  Array c = concatenate({subtract(multiply(x1, y2), multiply(x2, y1)), subtract(multiply(x2, y0), multiply(x0, y2)),
                         subtract(multiply(x0, y1), multiply(x1, y0))},
                        -1);
  return moveaxis(c, {-1}, {axis < 0 ? c.ndim() + axis : axis});
}

Array vector_norm(const Array& a, double ord, const std::vector<int>& axes_in, bool keepdims) {
  detail::node_of(a, "vector_norm");
  std::vector<int> axes = axes_in;
  if (axes.empty())
    for (int i = 0; i < a.ndim(); ++i) axes.push_back(i);
  Array x = magnitude(a);
  if (a.ndim() == 0) return x;
  if (std::isinf(ord)) return ord > 0 ? max(x, axes, keepdims) : min(x, axes, keepdims);
  if (ord == 0) return sum(not_equal(x, 0).astype(x.dtype()), axes, keepdims);
  if (ord == 1) return sum(x, axes, keepdims);
  if (ord == 2) return sqrt(sum(multiply(x, x), axes, keepdims));
  return power(sum(power(x, ord), axes, keepdims), 1.0 / ord);
}

Array matrix_norm(const Array& a, const std::string& ord, bool keepdims) {
  need_matrix(a, "matrix_norm");
  auto keep = [&](Array r) { return keepdims ? r.expand_dims(-1).expand_dims(-1) : r; };
  Array x = magnitude(a);
  if (ord == "fro") return sqrt(sum(multiply(x, x), {-2, -1}, keepdims));
  if (ord == "nuc") return keep(sum(svdvals(a), -1));
  if (ord == "2") return keep(max(svdvals(a), -1));
  if (ord == "-2") return keep(min(svdvals(a), -1));
  if (ord == "1") return keep(max(sum(x, -2), -1));
  if (ord == "-1") return keep(min(sum(x, -2), -1));
  if (ord == "inf") return keep(max(sum(x, -1), -1));
  if (ord == "-inf") return keep(min(sum(x, -1), -1));
  throw InvalidArgument(cat("matrix_norm: ord '", ord, "' is not a matrix norm; use fro, nuc, 1, -1, 2, -2, inf or -inf"));
}

}  // namespace porta::linalg
