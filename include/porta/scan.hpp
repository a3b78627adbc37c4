// Scans: cumulative sums and products along an axis, and differences. The order of accumulation is
// fixed per device, as the reductions' (GPUs and OpenCL: tiles of 2048 elements, each summed as a
// tree and rescanned from the scanned tile totals; Kokkos: left to right), so the same input gives
// the same bits on every run; it differs from NumPy's left-to-right order only by rounding.
#pragma once

#include <optional>

#include <porta/array.hpp>

namespace porta {

// NumPy's cumsum/cumprod: without an axis over the flattened array (1-D result). Result dtypes as
// sum/prod: bool and integers give int64, float16/bfloat16 keep their dtype (accumulated in float32).
Array cumsum(const Array& a, std::optional<int> axis = std::nullopt);
Array cumprod(const Array& a, std::optional<int> axis = std::nullopt);
// The array API standard's names: an axis is required unless `a` is 1-D (InvalidArgument);
// include_initial puts the identity (0 or 1) first, so the axis grows by one.
Array cumulative_sum(const Array& a, std::optional<int> axis = std::nullopt, bool include_initial = false);
Array cumulative_prod(const Array& a, std::optional<int> axis = std::nullopt, bool include_initial = false);
// The n-th difference along `axis` (NumPy's diff): a[..., 1:] - a[..., :-1], n times; for bool
// arrays a[..., 1:] != a[..., :-1]. n >= 0; the axis shrinks by n (to 0 at most).
Array diff(const Array& a, int n = 1, int axis = -1);

}  // namespace porta
