// Sorting and searching: sort, argsort, unique, searchsorted, topk. Sorts are stable along one
// axis and put NaNs last (NumPy's order; descending is the reverse order, NaNs first, with equal
// elements still in their original order). -0.0 and 0.0 are equal. On CUDA and OpenCL an LSD radix
// sort on 4-bit digits (8 passes for 32-bit keys, 16 for 64-bit), on Kokkos a host stable sort.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include <porta/array.hpp>

namespace porta {

Array sort(const Array& a, int axis = -1, bool descending = false);
Array argsort(const Array& a, int axis = -1, bool descending = false);  // int64

// The distinct values of the flattened array in ascending order, with the index of each one's
// first occurrence, the index into values of every element of `a` (inverse, a's shape) and how
// often each occurs (counts), all int64. Each NaN (complex: each number with a NaN part) is a value
// of its own, last, in the order of the elements, as NumPy 2's unique_all and unique_values;
// equal_nan = true counts them as one value, as NumPy's unique (its default equal_nan=True).
struct UniqueResult {
  Array values, indices, inverse, counts;
};
UniqueResult unique_all(const Array& a, bool equal_nan = false);
Array unique_values(const Array& a, bool equal_nan = false);

// Where v's elements go in the sorted 1-D array `a` to keep it sorted: side "left" gives the first
// such place (elements < v before it), "right" the last (elements <= v before it). int64, v's shape.
Array searchsorted(const Array& a, const Array& v, std::string_view side = "left");

// The k largest (or smallest) elements along `axis`, in order (largest first), and their indices:
// NaNs count as the largest; equal elements keep their original order.
std::pair<Array, Array> topk(const Array& a, std::int64_t k, int axis = -1, bool largest = true);

}  // namespace porta
