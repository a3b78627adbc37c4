// Binds the array API beyond elementwise work: writes (index.hpp's assign, Array::fill), indexing
// (take, put, scatter_add, compress, nonzero), scans (scan.hpp), sorting and search (sort.hpp),
// rearranging and statistics (manip.hpp). Each binding is porta's C++ function as it is; NumPy's
// argument conventions (axis tuples, lists of indices, a[idx] = v) are in porta/_arrayapi.py and
// porta/_array.py. Every one may launch kernels or read back a count, so every one runs without the
// GIL (README, Python: the GIL).
#include "bindings.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>

#include <porta/index.hpp>
#include <porta/manip.hpp>
#include <porta/scan.hpp>
#include <porta/sort.hpp>

namespace porta::python {

void bind_array_api(nb::module_& m) {
  // Writes.
  m.def("_assign", [](const Array& dst, const Operand& value) { porta::assign(dst, value); }, nb::arg("dst"),
        nb::arg("value"), release_gil());
  m.def("_assign_where", [](const Array& dst, const Operand& value, const Array& where) {
    porta::assign(dst, value, where);
  }, nb::arg("dst"), nb::arg("value"), nb::arg("where"), release_gil());
  m.def("_fill", [](const Array& dst, double f, std::int64_t i, bool floating) { dst.fill_value(f, i, floating); },
        nb::arg("dst"), nb::arg("f"), nb::arg("i"), nb::arg("floating"), release_gil());

  // Indexing.
  m.def("_take", [](const Array& a, const Array& idx, std::optional<int> axis) { return porta::take(a, idx, axis); },
        nb::arg("a"), nb::arg("indices"), nb::arg("axis").none(), release_gil());
  m.def("_take_along_axis", &porta::take_along_axis, nb::arg("a"), nb::arg("indices"), nb::arg("axis"), release_gil());
  m.def("_put", [](const Array& a, const Array& idx, const Operand& v) { porta::put(a, idx, v); }, nb::arg("a"),
        nb::arg("indices"), nb::arg("values"), release_gil());
  m.def("_scatter_add", [](const Array& a, const Array& idx, const Operand& v) { porta::scatter_add(a, idx, v); },
        nb::arg("a"), nb::arg("indices"), nb::arg("values"), release_gil());
  m.def("_compress", &porta::compress, nb::arg("mask"), nb::arg("a"), release_gil());
  m.def("_nonzero", &porta::nonzero, nb::arg("a"), release_gil());
  m.def("_flatnonzero", &porta::flatnonzero, nb::arg("a"), release_gil());
  m.def("_count_nonzero", [](const Array& a, std::optional<int> axis, bool keepdims) {
    return axis ? porta::count_nonzero(a, *axis, keepdims) : porta::count_nonzero(a);
  }, nb::arg("a"), nb::arg("axis").none(), nb::arg("keepdims"), release_gil());

  // Scans.
  m.def("_cumsum", [](const Array& a, std::optional<int> axis) { return porta::cumsum(a, axis); }, nb::arg("a"),
        nb::arg("axis").none(), release_gil());
  m.def("_cumprod", [](const Array& a, std::optional<int> axis) { return porta::cumprod(a, axis); }, nb::arg("a"),
        nb::arg("axis").none(), release_gil());
  m.def("_cumulative_sum", [](const Array& a, std::optional<int> axis, bool include_initial) {
    return porta::cumulative_sum(a, axis, include_initial);
  }, nb::arg("a"), nb::arg("axis").none(), nb::arg("include_initial"), release_gil());
  m.def("_cumulative_prod", [](const Array& a, std::optional<int> axis, bool include_initial) {
    return porta::cumulative_prod(a, axis, include_initial);
  }, nb::arg("a"), nb::arg("axis").none(), nb::arg("include_initial"), release_gil());
  m.def("_diff", &porta::diff, nb::arg("a"), nb::arg("n"), nb::arg("axis"), release_gil());

  // Sorting and search.
  m.def("_sort", &porta::sort, nb::arg("a"), nb::arg("axis"), nb::arg("descending"), release_gil());
  m.def("_argsort", &porta::argsort, nb::arg("a"), nb::arg("axis"), nb::arg("descending"), release_gil());
  m.def("_unique_all", [](const Array& a, bool equal_nan) {
    UniqueResult r = porta::unique_all(a, equal_nan);
    return std::make_tuple(r.values, r.indices, r.inverse, r.counts);
  }, nb::arg("a"), nb::arg("equal_nan"), release_gil());
  m.def("_unique_values", &porta::unique_values, nb::arg("a"), nb::arg("equal_nan"), release_gil());
  m.def("_searchsorted", [](const Array& a, const Array& v, const std::string& side) {
    return porta::searchsorted(a, v, side);
  }, nb::arg("a"), nb::arg("v"), nb::arg("side"), release_gil());
  m.def("_topk", &porta::topk, nb::arg("a"), nb::arg("k"), nb::arg("axis"), nb::arg("largest"), release_gil());

  // Rearranging.
  m.def("_flip", [](const Array& a, std::optional<int> axis) { return porta::flip(a, axis); }, nb::arg("a"),
        nb::arg("axis").none(), release_gil());
  m.def("_roll", [](const Array& a, std::int64_t shift, std::optional<int> axis) { return porta::roll(a, shift, axis); },
        nb::arg("a"), nb::arg("shift"), nb::arg("axis").none(), release_gil());
  m.def("_tile", &porta::tile, nb::arg("a"), nb::arg("reps"), release_gil());
  m.def("_repeat", [](const Array& a, std::int64_t repeats, std::optional<int> axis) {
    return porta::repeat(a, repeats, axis);
  }, nb::arg("a"), nb::arg("repeats"), nb::arg("axis").none(), release_gil());
  m.def("_repeat_each", [](const Array& a, const Array& repeats, std::optional<int> axis) {
    return porta::repeat(a, repeats, axis);
  }, nb::arg("a"), nb::arg("repeats"), nb::arg("axis").none(), release_gil());
  m.def("_pad", &porta::pad, nb::arg("a"), nb::arg("widths"), nb::arg("value"), release_gil());
  m.def("_split", [](const Array& a, std::int64_t sections, int axis) { return porta::split(a, sections, axis); },
        nb::arg("a"), nb::arg("sections"), nb::arg("axis"), release_gil());
  m.def("_split_at", [](const Array& a, const std::vector<std::int64_t>& at, int axis) {
    return porta::split(a, at, axis);
  }, nb::arg("a"), nb::arg("indices"), nb::arg("axis"), release_gil());
  m.def("_unstack", &porta::unstack, nb::arg("a"), nb::arg("axis"), release_gil());
  m.def("_moveaxis", &porta::moveaxis, nb::arg("a"), nb::arg("source"), nb::arg("destination"), release_gil());
  m.def("_broadcast_arrays", &porta::broadcast_arrays, nb::arg("arrays"), release_gil());
  m.def("_meshgrid", [](const std::vector<Array>& xs, bool ij, bool sparse, bool copy) {
    return porta::meshgrid(xs, ij ? porta::MeshIndexing::ij : porta::MeshIndexing::xy, sparse, copy);
  }, nb::arg("xs"), nb::arg("ij"), nb::arg("sparse"), nb::arg("copy"), release_gil());
  m.def("_tril", &porta::tril, nb::arg("a"), nb::arg("k"), release_gil());
  m.def("_triu", &porta::triu, nb::arg("a"), nb::arg("k"), release_gil());

  // Statistics, and reductions over axis lists (none: every axis, with keepdims).
  m.def("_var", [](const Array& a, std::optional<std::vector<int>> axes, double ddof, bool keepdims) {
    if (axes) return porta::var(a, *axes, ddof, keepdims);
    Array r = porta::var(a, ddof);
    return keepdims ? r.reshape(Shape(static_cast<std::size_t>(a.ndim()), 1)) : r;
  }, nb::arg("a"), nb::arg("axes").none(), nb::arg("ddof"), nb::arg("keepdims"), release_gil());
  m.def("_std", [](const Array& a, std::optional<std::vector<int>> axes, double ddof, bool keepdims) {
    if (axes) return porta::std(a, *axes, ddof, keepdims);
    Array r = porta::std(a, ddof);
    return keepdims ? r.reshape(Shape(static_cast<std::size_t>(a.ndim()), 1)) : r;
  }, nb::arg("a"), nb::arg("axes").none(), nb::arg("ddof"), nb::arg("keepdims"), release_gil());
  using Axes = Array (*)(const Array&, const std::vector<int>&, bool);
  using Every = Array (*)(const Array&, AllAxes, bool);
  struct Reduction {
    const char* name;
    Axes axes;
    Every every;
  };
  const Reduction reductions[] = {
      {"_sum_axes", porta::sum, porta::sum}, {"_prod_axes", porta::prod, porta::prod},
      {"_mean_axes", porta::mean, porta::mean}, {"_min_axes", porta::min, porta::min},
      {"_max_axes", porta::max, porta::max}, {"_all_axes", porta::all, porta::all},
      {"_any_axes", porta::any, porta::any},
  };
  for (const Reduction& r : reductions)
    m.def(r.name, [r](const Array& a, std::optional<std::vector<int>> axes, bool keepdims) {
      return axes ? r.axes(a, *axes, keepdims) : r.every(a, all_axes, keepdims);
    }, nb::arg("a"), nb::arg("axes").none(), nb::arg("keepdims"), release_gil());
}

}  // namespace porta::python
