// The public reductions: result dtypes, axes and keepdims, then one ReductionPlan that fuses
// the input tree.
#include <porta/reduce.hpp>
#include <porta/index.hpp>
#include <porta/ops.hpp>
#include <porta/error.hpp>

#include <optional>

#include "codegen/codegen.hpp"
#include "runtime/device_state.hpp"
#include "lazy/expr.hpp"
#include "porta_backend/strings.hpp"
#include "lazy/plan_builder.hpp"

namespace porta {

using detail::cat;
using detail::ReduceOp;

namespace {

const char* op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::sum: return "sum";
    case ReduceOp::prod: return "prod";
    case ReduceOp::min: return "min";
    case ReduceOp::max: return "max";
    case ReduceOp::argmin: return "argmin";
    case ReduceOp::argmax: return "argmax";
    case ReduceOp::all: return "all";
    case ReduceOp::any: return "any";
  }
  return "?";
}

Array reduce(const Array& a, ReduceOp op, std::optional<int> axis, bool keepdims) {
  auto node = detail::node_of(a, op_name(op));
  const Shape& s = node->shape();
  const int nd = static_cast<int>(s.size());
  DType t = node->dtype();
  DType value_t = t, out_t = t;
  switch (op) {
    case ReduceOp::sum:
    case ReduceOp::prod:
      // NumPy's: integers narrower than 64 bits (and bool) accumulate in the platform's long
      // of their signedness, int64 or uint64.
      if (t == DType::boolean || (is_signed_integer(t) && t != DType::int64)) value_t = out_t = DType::int64;
      else if (is_unsigned_integer(t) && t != DType::uint64) value_t = out_t = DType::uint64;
      break;
    case ReduceOp::argmin:
    case ReduceOp::argmax: out_t = DType::int64; break;
    case ReduceOp::all:
    case ReduceOp::any: value_t = out_t = DType::boolean; break;
    default: break;
  }
  std::int64_t outer = 1, extent = node->size(), inner = 1;
  Shape out_shape;
  if (axis) {
    int ax = *axis;
    if (ax < -nd || ax >= nd || nd == 0)
      throw InvalidArgument(cat(op_name(op), ": axis ", ax, " is out of range for an array of ", nd, " dimensions"));
    if (ax < 0) ax += nd;
    outer = 1;
    inner = 1;
    for (int i = 0; i < ax; ++i) outer *= s[static_cast<std::size_t>(i)];
    for (int i = ax + 1; i < nd; ++i) inner *= s[static_cast<std::size_t>(i)];
    extent = s[static_cast<std::size_t>(ax)];
    for (int i = 0; i < nd; ++i) {
      if (i != ax) out_shape.push_back(s[static_cast<std::size_t>(i)]);
      else if (keepdims) out_shape.push_back(1);
    }
  } else if (keepdims) {
    out_shape.assign(s.size(), 1);
  }
  if (extent == 0 && op != ReduceOp::sum && op != ReduceOp::prod && op != ReduceOp::all && op != ReduceOp::any)
    throw ShapeError(cat(op_name(op), " of an empty array (shape ", to_string(s), ") has no identity; check the size first"));

  const Device& device = node->device();
  detail::check_dtype(device, out_t);
  auto out = detail::make_buffer_node(out_shape, out_t, device);
  if (outer * inner == 0) return Array(out);
  auto value = detail::cast(node, value_t);
  detail::PlanBuilder builder(s);
  int r = builder.add(value);
  detail::ReductionPlan rp;
  rp.input = builder.finish(r, detail::PlanOutput{});
  rp.op = op;
  rp.outer = outer;
  rp.extent = extent;
  rp.inner = inner;
  rp.out_dtype = out_t;
  rp.out = out->view().buffer->handle();
  const auto& q = detail::thread_queue_shared(device);
  for (auto& b : builder.buffers()) b->before_read(q);
  detail::run_reduction(device.impl(), q, rp);
  out->view().buffer->after_write(q);
  return Array(out);
}

Array mean_of(const Array& a, std::optional<int> axis, bool keepdims) {
  // NumPy's: float16 (and here bfloat16) sum and divide in float32, then round to their dtype
  // (a float16 sum that overflows 65504 would make the mean of [40000, 40000] inf).
  const bool narrow = a.dtype() == DType::float16 || a.dtype() == DType::bfloat16;
  Array x = narrow ? a.astype(DType::float32) : is_inexact(a.dtype()) ? a : a.astype(DType::float64);  // complex stays complex
  std::int64_t count = a.size();
  if (axis) {
    int nd = a.ndim();
    int ax = *axis < 0 ? *axis + nd : *axis;
    if (ax >= 0 && ax < nd) count = a.shape()[static_cast<std::size_t>(ax)];
  }
  Array s = reduce(x, ReduceOp::sum, axis, keepdims);
  Array m = divide(s, static_cast<double>(count));
  return narrow ? m.astype(a.dtype()) : m;
}

// max/min of complex numbers: the element at argmax/argmin. NumPy's answer with NaNs is the first
// NaN in order; a value reduction on a GPU combines partials out of that order (which NaN won
// depended on the launch shape, seen on an H100), while the index reduction keeps the first.
Array complex_extreme(const Array& a, ReduceOp op, std::optional<int> axis, bool keepdims) {
  const int nd = a.ndim();
  const bool empty = axis ? (*axis >= -nd && *axis < nd && a.shape()[static_cast<std::size_t>(*axis < 0 ? *axis + nd : *axis)] == 0)
                          : a.size() == 0;
  if (empty || (axis && (*axis < -nd || *axis >= nd))) return reduce(a, op, axis, keepdims);  // its errors
  const ReduceOp arg = op == ReduceOp::max ? ReduceOp::argmax : ReduceOp::argmin;
  if (!axis) {
    const Array at = take_along_axis(a.reshape({-1}), reduce(a, arg, std::nullopt, false).reshape({1}), 0);
    return at.reshape(keepdims ? Shape(static_cast<std::size_t>(nd), 1) : Shape{});
  }
  const int ax = *axis < 0 ? *axis + nd : *axis;
  const Array at = take_along_axis(a, reduce(a, arg, ax, true), ax);
  if (keepdims) return at;
  Shape out = a.shape();
  out.erase(out.begin() + ax);
  return at.reshape(out);
}

Array extreme(const Array& a, ReduceOp op, std::optional<int> axis, bool keepdims) {
  if (a.valid() && is_complex(a.dtype())) return complex_extreme(a, op, axis, keepdims);
  return reduce(a, op, axis, keepdims);
}

}  // namespace

Array sum(const Array& a) { return reduce(a, ReduceOp::sum, std::nullopt, false); }
Array sum(const Array& a, int axis, bool keepdims) { return reduce(a, ReduceOp::sum, axis, keepdims); }
Array prod(const Array& a) { return reduce(a, ReduceOp::prod, std::nullopt, false); }
Array prod(const Array& a, int axis, bool keepdims) { return reduce(a, ReduceOp::prod, axis, keepdims); }
Array min(const Array& a) { return extreme(a, ReduceOp::min, std::nullopt, false); }
Array min(const Array& a, int axis, bool keepdims) { return extreme(a, ReduceOp::min, axis, keepdims); }
Array max(const Array& a) { return extreme(a, ReduceOp::max, std::nullopt, false); }
Array max(const Array& a, int axis, bool keepdims) { return extreme(a, ReduceOp::max, axis, keepdims); }
Array argmin(const Array& a) { return reduce(a, ReduceOp::argmin, std::nullopt, false); }
Array argmin(const Array& a, int axis, bool keepdims) { return reduce(a, ReduceOp::argmin, axis, keepdims); }
Array argmax(const Array& a) { return reduce(a, ReduceOp::argmax, std::nullopt, false); }
Array argmax(const Array& a, int axis, bool keepdims) { return reduce(a, ReduceOp::argmax, axis, keepdims); }
Array all(const Array& a) { return reduce(a, ReduceOp::all, std::nullopt, false); }
Array all(const Array& a, int axis, bool keepdims) { return reduce(a, ReduceOp::all, axis, keepdims); }
Array any(const Array& a) { return reduce(a, ReduceOp::any, std::nullopt, false); }
Array any(const Array& a, int axis, bool keepdims) { return reduce(a, ReduceOp::any, axis, keepdims); }
namespace {
Array in_dtype(const Array& r, DType dtype) { return r.dtype() == dtype ? r : r.astype(dtype); }
}  // namespace

Array sum(const Array& a, DType dtype) { return in_dtype(sum(a.astype(dtype)), dtype); }
Array sum(const Array& a, int axis, bool keepdims, DType dtype) { return in_dtype(sum(a.astype(dtype), axis, keepdims), dtype); }
Array prod(const Array& a, DType dtype) { return in_dtype(prod(a.astype(dtype)), dtype); }
Array prod(const Array& a, int axis, bool keepdims, DType dtype) { return in_dtype(prod(a.astype(dtype), axis, keepdims), dtype); }

Array mean(const Array& a) { return mean_of(a, std::nullopt, false); }
Array mean(const Array& a, int axis, bool keepdims) { return mean_of(a, axis, keepdims); }

}  // namespace porta
