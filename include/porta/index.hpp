// Writes into arrays, and indexing: assignment of numbers and arrays into views, with or without
// a boolean mask (DESIGN.md section 13 says how writes order with lazy expressions).
#pragma once

#include <porta/array.hpp>
#include <porta/ops.hpp>

namespace porta {

// dst[...] = value: `value` (an Array broadcast to dst's shape, or a number) converted to dst's
// dtype and written into dst's memory (Array::assign). Returns dst.
const Array& assign(const Array& dst, const Operand& value);
// dst[where] = value, NumPy's copyto(dst, value, where=mask): `where` is a bool array of dst's
// shape (ShapeError otherwise); only the elements where it is true are written.
const Array& assign(const Array& dst, const Operand& value, const Array& where);

}  // namespace porta
