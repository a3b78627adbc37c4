// Rearranging arrays: flip, roll, tile, repeat, pad, split, tril/triu; and statistics beyond the
// reductions of reduce.hpp: var/std with ddof, and reductions over several axes or with keepdims
// over the whole array. Every one builds on views, copies and elementwise work, so it runs on
// every device.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <porta/array.hpp>

namespace porta {

// NumPy's flip: a view with the axis (every axis when none is given) reversed.
Array flip(const Array& a, std::optional<int> axis = std::nullopt);
// Elements shifted by `shift` along `axis` (without one, over the flattened array), wrapping round.
Array roll(const Array& a, std::int64_t shift, std::optional<int> axis = std::nullopt);
// The array repeated reps[i] times along axis i (NumPy's tile: reps and a's shape are padded with
// leading ones to the same length). reps >= 0.
Array tile(const Array& a, const std::vector<std::int64_t>& reps);
// Every element repeated `repeats` times along `axis` (without one: over the flattened array).
Array repeat(const Array& a, std::int64_t repeats, std::optional<int> axis = std::nullopt);
// Element i of `axis` repeated repeats[i] times (repeats: an int32/int64 array of the axis length).
Array repeat(const Array& a, const Array& repeats, std::optional<int> axis = std::nullopt);
// NumPy's pad with mode "constant": widths[i] = (before, after) elements of `value` on axis i
// (one pair for every axis, or one pair for all of them).
Array pad(const Array& a, const std::vector<std::pair<std::int64_t, std::int64_t>>& widths, double value = 0);
// Views of `sections` equal parts along `axis` (InvalidArgument when the axis does not divide), or
// of the parts between the given indices (NumPy's split with a list).
std::vector<Array> split(const Array& a, std::int64_t sections, int axis = 0);
std::vector<Array> split(const Array& a, const std::vector<std::int64_t>& indices, int axis = 0);
// The array API's unstack: views of a's slices along `axis`, each without it (a 0-d array has none).
std::vector<Array> unstack(const Array& a, int axis = 0);
// NumPy's moveaxis: a view with the axes `source` moved to `destination` (as many of each, none
// named twice), the others in their order.
Array moveaxis(const Array& a, const std::vector<int>& source, const std::vector<int>& destination);
// The array API standard's names for what concatenate and Array's methods do: concat joins along
// `axis` (std::nullopt: the arrays flattened, then joined); permute_dims is a view with the axes in
// the order `axes` (each named once, InvalidArgument otherwise); matrix_transpose a view with the
// last two axes swapped (InvalidArgument under two dimensions); astype a.astype(t).
Array concat(const std::vector<Array>& arrays, std::optional<int> axis = 0);
Array permute_dims(const Array& a, const std::vector<int>& axes);
Array matrix_transpose(const Array& a);
Array astype(const Array& a, DType t);
// The arrays broadcast to one shape, as views (ShapeError naming two shapes that do not fit).
std::vector<Array> broadcast_arrays(const std::vector<Array>& arrays);
// NumPy's meshgrid: coordinate arrays from coordinate vectors (others are flattened). xy: the first
// two dimensions are (xs[1].size(), xs[0].size()); ij: they follow xs. copy (NumPy's default) gives
// new arrays, else broadcast views of the inputs; sparse keeps ones in the broadcast dimensions.
enum class MeshIndexing { xy, ij };
std::vector<Array> meshgrid(const std::vector<Array>& xs, MeshIndexing indexing = MeshIndexing::xy, bool sparse = false,
                            bool copy = true);
// The lower (upper) triangle of the last two axes: elements with column - row <= k (>= k) kept,
// the others 0. a needs at least two dimensions.
Array tril(const Array& a, std::int64_t k = 0);
Array triu(const Array& a, std::int64_t k = 0);

// Variance and standard deviation: sum((a - mean)^2) / (N - ddof). Integers and bool give float64;
// float16/bfloat16 are computed in float32 and rounded. N - ddof <= 0 gives NaN (or inf), as NumPy.
Array var(const Array& a, double ddof = 0);
Array var(const Array& a, const std::vector<int>& axes, double ddof = 0, bool keepdims = false);
Array std(const Array& a, double ddof = 0);
Array std(const Array& a, const std::vector<int>& axes, double ddof = 0, bool keepdims = false);

// The reductions of reduce.hpp over a list of axes (each once; empty: none reduced) or with
// keepdims over every axis (porta::all_axes). `sum(a, {0, 2})`, `max(a, porta::all_axes, true)`.
struct AllAxes {};
inline constexpr AllAxes all_axes{};
Array sum(const Array& a, const std::vector<int>& axes, bool keepdims = false);
Array prod(const Array& a, const std::vector<int>& axes, bool keepdims = false);
Array mean(const Array& a, const std::vector<int>& axes, bool keepdims = false);
Array min(const Array& a, const std::vector<int>& axes, bool keepdims = false);
Array max(const Array& a, const std::vector<int>& axes, bool keepdims = false);
Array all(const Array& a, const std::vector<int>& axes, bool keepdims = false);
Array any(const Array& a, const std::vector<int>& axes, bool keepdims = false);
Array sum(const Array& a, AllAxes, bool keepdims);
Array prod(const Array& a, AllAxes, bool keepdims);
Array mean(const Array& a, AllAxes, bool keepdims);
Array min(const Array& a, AllAxes, bool keepdims);
Array max(const Array& a, AllAxes, bool keepdims);
Array all(const Array& a, AllAxes, bool keepdims);
Array any(const Array& a, AllAxes, bool keepdims);

}  // namespace porta
