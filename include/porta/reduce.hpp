// Reductions over the whole array or one axis. The order of accumulation is fixed per device,
// so the same input gives the same bits on every run (no float atomics).
#pragma once

#include <porta/array.hpp>

namespace porta {

// Result dtypes follow NumPy: sum/prod of bool and integers are int64, of float16 float16
// (accumulated in float32); mean of integers is float64; min/max keep the dtype; argmin/argmax
// are int64 (flat index without an axis); all/any are bool. min/max/argmin/argmax of an empty
// array throw ShapeError. A negative axis counts from the end.
Array sum(const Array& a);
Array sum(const Array& a, int axis, bool keepdims = false);
// NumPy's sum/prod with dtype=: the result in `dtype` (sum(int32 array, DType::int32) is int32;
// integers accumulate in 64 bits, which wraps to the same bits; floats in `dtype`, float16 and
// bfloat16 in float32).
Array sum(const Array& a, DType dtype);
Array sum(const Array& a, int axis, bool keepdims, DType dtype);
Array prod(const Array& a, DType dtype);
Array prod(const Array& a, int axis, bool keepdims, DType dtype);
Array mean(const Array& a);
Array mean(const Array& a, int axis, bool keepdims = false);
Array prod(const Array& a);
Array prod(const Array& a, int axis, bool keepdims = false);
Array min(const Array& a);
Array min(const Array& a, int axis, bool keepdims = false);
Array max(const Array& a);
Array max(const Array& a, int axis, bool keepdims = false);
Array argmin(const Array& a);
Array argmin(const Array& a, int axis, bool keepdims = false);
Array argmax(const Array& a);
Array argmax(const Array& a, int axis, bool keepdims = false);
Array all(const Array& a);
Array all(const Array& a, int axis, bool keepdims = false);
Array any(const Array& a);
Array any(const Array& a, int axis, bool keepdims = false);

}  // namespace porta
