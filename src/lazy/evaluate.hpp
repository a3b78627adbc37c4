// Running lazy trees: evaluate() (in node.hpp) makes a node's result buffer; evaluate_into
// writes a tree into part of an existing buffer (concatenate, copies into views).
#pragma once

#include "lazy/node.hpp"

namespace porta::detail {

// Writes the values of `src` (shape `shape`) into `dst`, a view with that shape.
void evaluate_into(const NodePtr& src, const View& dst);

// Storage bytes of `v` converted to dtype `t` (a fill pattern), itemsize(t) bytes long (up to 16:
// complex128).
void scalar_storage(const ScalarValue& v, DType t, void* out);
// The pattern that fills an array of dtype t with v through the driver's fill (out), and its size
// (the drivers take up to 8 bytes); 0 where none does (complex128 of unequal halves: a kernel).
std::size_t fill_pattern(const ScalarValue& v, DType t, std::uint8_t (&out)[16]);

}  // namespace porta::detail
