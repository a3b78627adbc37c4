// Sorting (include/porta/sort.hpp) as a bitonic network on every device: the sorted axis is moved
// last and padded to a power of two; each step gathers every element's partner (index ^ j) with
// index_kernels' gather and keeps the smaller or larger by a total order (key, NaN last, original
// index), which makes it stable. log2(n)(log2(n)+1)/2 steps of a few kernels.
#include <porta/sort.hpp>

#include <porta/error.hpp>
#include <porta/index.hpp>
#include <porta/ops.hpp>
#include <porta/reduce.hpp>
#include <porta/scan.hpp>

#include "expr.hpp"
#include "index_kernels.hpp"
#include "strings.hpp"

namespace porta {

using detail::cat;

namespace detail {
int normalize_axis_for(int axis, int ndim, const char* what);  // scan.cpp

namespace {

const View& view_of(const Array& a) { return evaluate(a.node()); }

// a[o, p[j]] for a of [outer, n] and p of [n]: the partner of every element.
Array partner(const Array& a, const Array& p) {
  Array out = empty(a.shape(), a.dtype(), a.device());
  if (out.size()) gather(a.dtype(), view_of(a), view_of(p), view_of(out), a.dim(0), a.dim(1), 1, a.dim(1), false);
  return out;
}

// Is (a, ia) before (b, ib)? Keys by value (NaN last; descending: reversed), ties by index;
// indices >= len mark padding, which goes after everything.
Array before(const Array& a, const Array& ia, const Array& b, const Array& ib, std::int64_t len, bool descending) {
  Array pa = ia >= len, pb = ib >= len;
  Array key_less, key_eq;
  if (is_floating(a.dtype())) {
    Array na = isnan(a), nb = isnan(b);
    key_less = descending ? logical_or(b < a, logical_and(na, !nb)) : logical_or(a < b, logical_and(!na, nb));
    key_eq = logical_or(a == b, logical_and(na, nb));
  } else {
    key_less = descending ? b < a : a < b;
    key_eq = a == b;
  }
  Array index_less = ia < ib;
  Array real = logical_and(!logical_or(pa, pb), logical_or(key_less, logical_and(key_eq, index_less)));
  Array pad = logical_or(logical_and(!pa, pb), logical_and(logical_and(pa, pb), index_less));
  return logical_or(real, pad);
}

// Sorts the rows of `keys` ([outer, len], contiguous): the sorted keys and the permutation.
std::pair<Array, Array> sort_rows(const Array& keys, bool descending) {
  const std::int64_t outer = keys.dim(0), len = keys.dim(1);
  const Device d = keys.device();
  if (len <= 1 || outer == 0) return {keys, arange(len, DType::int64, d).reshape({1, len}).broadcast_to({outer, len}).copy()};
  std::int64_t p2 = 1;
  while (p2 < len) p2 *= 2;
  Array k = empty({outer, p2}, keys.dtype(), d);
  Slice all{};
  k.slice({all, Slice{std::nullopt, len}}).assign(keys);
  if (p2 > len) k.slice({all, Slice{len, std::nullopt}}).fill(0);
  Array i = arange(p2, DType::int64, d).reshape({1, p2}).broadcast_to({outer, p2}).copy();
  Array pos = arange(p2, DType::int64, d).eval();
  for (std::int64_t size = 2; size <= p2; size *= 2) {
    for (std::int64_t j = size / 2; j >= 1; j /= 2) {
      Array p = bitwise_xor(pos, j).eval();
      Array kp = partner(k, p), ip = partner(i, p);
      // The lower of a pair keeps the first element in ascending blocks ((pos & size) == 0).
      Array keep_first = equal(pos < p, bitwise_and(pos, size) == 0).reshape({1, p2});
      Array take_self = equal(keep_first, before(k, i, kp, ip, len, descending));
      Array nk = where(take_self, k, kp).eval();
      Array ni = where(take_self, i, ip).eval();
      k = nk;
      i = ni;
    }
  }
  return {k.slice({all, Slice{std::nullopt, len}}), i.slice({all, Slice{std::nullopt, len}})};
}

// Sort along `axis`: the axis moved last, rows sorted, moved back.
std::pair<Array, Array> sort_axis(const Array& a, int axis, bool descending, const char* what) {
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
  auto [k, i] = sort_rows(moved.copy().reshape({outer, len}), descending);
  Array kv = k.contiguous().reshape(ms).transpose(inverse), iv = i.contiguous().reshape(ms).transpose(inverse);
  if (a.ndim() == 0) return {kv.reshape({}), iv.reshape({})};
  return {kv, iv};
}

}  // namespace
}  // namespace detail

Array sort(const Array& a, int axis, bool descending) { return detail::sort_axis(a, axis, descending, "sort").first; }
Array argsort(const Array& a, int axis, bool descending) { return detail::sort_axis(a, axis, descending, "argsort").second; }

UniqueResult unique_all(const Array& a) {
  detail::node_of(a, "unique");
  const Device d = a.device();
  const std::int64_t n = a.size();
  if (n == 0) {
    Array e = empty({0}, DType::int64, d);
    return {empty({0}, a.dtype(), d), e, empty(a.shape(), DType::int64, d), e};
  }
  auto [s2, perm2] = detail::sort_axis(a.flatten(), 0, false, "unique");
  Array s = s2.contiguous(), perm = perm2.contiguous();
  // A new value starts where an element differs from the one before (NaNs equal each other).
  Array first = full({1}, 1, DType::boolean, d);
  Array flags = first;
  if (n > 1) {
    Array x = s.slice({Slice{1, std::nullopt}}), y = s.slice({Slice{std::nullopt, -1}});
    Array same = is_floating(a.dtype()) ? logical_or(x == y, logical_and(isnan(x), isnan(y))) : x == y;
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

Array unique_values(const Array& a) { return unique_all(a).values; }

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
