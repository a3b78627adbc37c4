// Axis arguments of the array-API functions (index, scan, sort, manip): one check, one message.
#pragma once

namespace porta {
class Array;
}

namespace porta::detail {

// `axis` (negative counts from the end) as an index in [0, ndim); InvalidArgument naming `what`,
// the axis and ndim otherwise. A 0-d array takes axis 0 or -1, as the one-element 1-D array it is.
int normalize_axis_for(int axis, int ndim, const char* what);
// The same for functions that need an axis of `a` (flip, split, moveaxis, vecdot...): a 0-d array
// has none (InvalidArgument). Defined in manip.cpp.
int axis_of(const Array& a, int axis, const char* what);

}  // namespace porta::detail
