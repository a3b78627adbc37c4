// Writes into arrays, and indexing: assignment of numbers and arrays into views, with or without a
// boolean mask (docs/design/threading.md#writes-and-lazy-readers says how writes order with lazy
// expressions).
#pragma once

#include <optional>
#include <vector>

#include <porta/array.hpp>
#include <porta/ops.hpp>

namespace porta {

// dst[...] = value: `value` (an Array broadcast to dst's shape, or a number) converted to dst's
// dtype and written into dst's memory (Array::assign). Returns dst.
const Array& assign(const Array& dst, const Operand& value);
// dst[where] = value, NumPy's copyto(dst, value, where=mask): `where` is a bool array of dst's
// shape (ShapeError otherwise); only the elements where it is true are written.
const Array& assign(const Array& dst, const Operand& value, const Array& where);

// Integer-array indexing. Indices are int32 or int64 arrays (DTypeError otherwise); a negative
// index counts from the end; one outside [-n, n) is an InvalidArgument naming it and the axis
// length, thrown before anything is written (the check reads the indices' min and max back).
// take without an axis indexes the flattened array; with one, the result's shape is
// a.shape[:axis] + indices.shape + a.shape[axis+1:] (NumPy's take). a[idx] is take(a, idx, 0).
Array take(const Array& a, const Array& indices, std::optional<int> axis = std::nullopt);
// out[..., j, ...] = a[..., indices[..., j, ...], ...] along `axis`: indices has a's number of
// dimensions and a's shape on every other axis (ShapeError otherwise).
Array take_along_axis(const Array& a, const Array& indices, int axis);
// a.flat[indices] = values (NumPy's put): values broadcast to indices' shape and are converted to
// a's dtype. Where an index repeats, one of its values lands (which one is unspecified, as CuPy's).
const Array& put(const Array& a, const Array& indices, const Operand& values);
// a.flat[indices] += values, NumPy's add.at: every contribution counts, repeated indices too, added
// one by one in the order of the indices on every device (no atomics: the result never depends on
// timing, and float32 gives the bits of a float32 loop). Over 64 indices on CUDA/OpenCL: a stable
// sort of the indices and one work-item per distinct index; else each element scans the indices.
const Array& scatter_add(const Array& a, const Array& indices, const Operand& values);

// Boolean masks. compress(mask, a) is NumPy's a[mask] for a mask of a's shape (or a 1-D mask of
// a.size() elements over the flattened array): the elements where mask is true, in row-major
// order, as a 1-D array. Its length is read back from the device (a synchronisation).
Array compress(const Array& mask, const Array& a);
// The indices of the nonzero elements, one int64 array per dimension (NumPy's nonzero; a 0-d
// array counts as 1-D).
std::vector<Array> nonzero(const Array& a);
Array flatnonzero(const Array& a);  // indices into the flattened array
// The number of nonzero elements (int64), over everything or along one axis.
Array count_nonzero(const Array& a);
Array count_nonzero(const Array& a, int axis, bool keepdims = false);

}  // namespace porta
