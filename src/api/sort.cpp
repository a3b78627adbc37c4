// Sorting (include/porta/sort.hpp): the sorted axis is moved last and made contiguous, then sorted
// by sort_rows (radix passes of primitives/radix_sort.cpp on devices that compile, a host sort on Kokkos);
// unique, searchsorted and topk build on it.
#include <porta/sort.hpp>

#include <porta/error.hpp>
#include <porta/index.hpp>
#include <porta/ops.hpp>
#include <porta/reduce.hpp>
#include <porta/scan.hpp>

#include "runtime/device_state.hpp"
#include "api/axes.hpp"
#include "lazy/expr.hpp"
#include "primitives/primitives.hpp"
#include "porta_backend/strings.hpp"

namespace porta {

using detail::cat;

namespace detail {

namespace {

const View& view_of(const Array& a) { return evaluate(a.node()); }

// What a caller of sort_axis reads of its result.
enum class Want { values, indices, both };

// Sorts the rows of `keys` ([outer, len], contiguous): the sorted keys and each one's index in
// its row (each only where `want` asks; the other is an empty array). GPUs and OpenCL: one LSD
// radix sort over every row at once (radix_sort: the rows grouped by passes on each flat index's
// row after the key passes); the values move as their bits (NaN payloads and -0.0 survive).
// Kokkos: a stable sort per row on the host.
std::pair<Array, Array> sort_rows(const Array& keys, bool descending, Want want) {
  const std::int64_t outer = keys.dim(0), len = keys.dim(1), n = outer * len;
  const Device d = keys.device();
  const DType t = keys.dtype();
  // Nothing to order: the values through a gather (a copy that moves bits, whatever the dtype).
  if (n == 0) return {empty({outer, len}, t, d), empty({outer, len}, DType::int64, d)};
  if (len == 1) {
    Array idx = zeros({outer, len}, DType::int64, d);
    return {want == Want::indices ? Array() : take_along_axis(keys, idx, 1), idx};
  }
  if (d.impl().info().dialect == Dialect::none) {
    Array idx = empty({outer, len}, DType::int64, d);
    sort_rows_host(t, view_of(keys), view_of(idx), outer, len, descending);
    return {want == Want::indices ? Array() : take_along_axis(keys, idx, 1), idx};
  }
  Array values, index;
  if (want != Want::indices) values = empty({outer, len}, t, d);
  if (want != Want::values) index = empty({n}, DType::int64, d);
  radix_sort(t, view_of(keys), n, len, descending, values.valid() ? &view_of(values) : nullptr,
             index.valid() ? &view_of(index) : nullptr);
  Array rows_index;
  if (index.valid()) rows_index = (outer == 1 ? index : remainder(index, len)).reshape({outer, len});
  return {values, rows_index};
}

// Sort along `axis`: the axis moved last, rows sorted, moved back.
std::pair<Array, Array> sort_axis(const Array& a, int axis, bool descending, const char* what, Want want = Want::both) {
  node_of(a, what);
  Array x = a.ndim() == 0 ? a.reshape({1}) : a;
  int ax = normalize_axis_for(axis, x.ndim(), what);
  std::vector<int> perm;
  for (int dd = 0; dd < x.ndim(); ++dd)
    if (dd != ax) perm.push_back(dd);
  perm.push_back(ax);
  std::vector<int> inverse(perm.size());
  for (std::size_t q = 0; q < perm.size(); ++q) inverse[static_cast<std::size_t>(perm[q])] = static_cast<int>(q);
  Array moved = x.transpose(perm);
  const Shape ms = moved.shape();
  const std::int64_t len = x.dim(ax), outer = len ? x.size() / len : 0;
  auto [k, i] = sort_rows(moved.contiguous().reshape({outer, len}), descending, want);
  auto back = [&](const Array& r) { return r.valid() ? r.contiguous().reshape(ms).transpose(inverse) : r; };
  Array kv = back(k), iv = back(i);
  if (a.ndim() == 0) return {kv.valid() ? kv.reshape({}) : kv, iv.valid() ? iv.reshape({}) : iv};
  return {kv, iv};
}

}  // namespace
}  // namespace detail

Array sort(const Array& a, int axis, bool descending) {
  return detail::sort_axis(a, axis, descending, "sort", detail::Want::values).first;
}
Array argsort(const Array& a, int axis, bool descending) {
  return detail::sort_axis(a, axis, descending, "argsort", detail::Want::indices).second;
}

UniqueResult unique_all(const Array& a, bool equal_nan) {
  detail::node_of(a, "unique");
  const Device d = a.device();
  const std::int64_t n = a.size();
  if (n == 0) {
    Array e = empty({0}, DType::int64, d);
    return {empty({0}, a.dtype(), d), e, empty(a.shape(), DType::int64, d), e};
  }
  auto [s2, perm2] = detail::sort_axis(a.flatten(), 0, false, "unique");
  Array s = s2.contiguous(), perm = perm2.contiguous();
  // A new value starts where an element differs from the one before: every NaN (NaN != NaN), unless
  // equal_nan makes them equal (complex: any number with a NaN part, all of them sorted last
  // together). The stable sort keeps the NaNs in the order of the elements.
  Array first = full({1}, 1, DType::boolean, d);
  Array flags = first;
  if (n > 1) {
    Array x = s.slice({Slice{1, std::nullopt}}), y = s.slice({Slice{std::nullopt, -1}});
    Array same = equal_nan && is_inexact(a.dtype()) ? logical_or(x == y, logical_and(isnan(x), isnan(y))) : x == y;
    flags = concatenate({first, !same});
  }
  UniqueResult r;
  r.values = compress(flags, s);
  Array starts = flatnonzero(flags);
  r.indices = take(perm, starts);
  r.counts = diff(concatenate({starts, full({1}, static_cast<double>(n), DType::int64, d)}));
  Array group = (cumsum(flags) - 1).contiguous();
  Array inverse = empty({n}, DType::int64, d);
  put(inverse, perm, group);
  r.inverse = inverse.reshape(a.shape());
  return r;
}

Array unique_values(const Array& a, bool equal_nan) { return unique_all(a, equal_nan).values; }

Array searchsorted(const Array& a, const Array& v, std::string_view side) {
  auto an = detail::node_of(a, "searchsorted");
  auto vn = detail::node_of(v, "searchsorted");
  if (side != "left" && side != "right")
    throw InvalidArgument(cat("searchsorted: side \"", side, "\" is neither \"left\" nor \"right\""));
  if (a.ndim() != 1)
    throw ShapeError(cat("searchsorted: the sorted array has shape ", to_string(a.shape()), "; it must be 1-D"));
  detail::check_same_device(an, vn, "searchsorted");
  Operand oa(a), ov(v);
  DType t = detail::result_dtype({&oa, &ov});
  Array sa = a.astype(t).contiguous(), sv = v.astype(t).contiguous();
  Array out = empty(v.shape(), DType::int64, v.device());
  if (v.size())
    detail::searchsorted(t, detail::evaluate(sa.node()), a.size(), detail::evaluate(sv.node()), v.size(),
                         detail::evaluate(out.node()), side == "right");
  return out;
}

std::pair<Array, Array> topk(const Array& a, std::int64_t k, int axis, bool largest) {
  detail::node_of(a, "topk");
  if (a.ndim() == 0) throw InvalidArgument("topk of a 0-d array: it needs an axis");
  int ax = detail::normalize_axis_for(axis, a.ndim(), "topk");
  if (k < 0 || k > a.dim(ax))
    throw InvalidArgument(cat("topk: k = ", k, " is outside [0, ", a.dim(ax), "], the length of axis ", ax));
  Array order = argsort(a, ax, largest);
  std::vector<Slice> first(static_cast<std::size_t>(ax) + 1);
  first.back() = Slice{std::nullopt, k};
  Array idx = order.slice(first).contiguous();
  return {take_along_axis(a, idx, ax), idx};
}

}  // namespace porta
