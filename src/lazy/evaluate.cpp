// Evaluation of lazy trees on the device of their root, on this thread's queue.
#include "lazy/evaluate.hpp"

#include <cstring>

#include "codegen/codegen.hpp"
#include "runtime/device_state.hpp"
#include "lazy/plan_builder.hpp"

namespace porta::detail {

void scalar_storage(const ScalarValue& v, DType t, void* out) {
  switch (t) {
    case DType::boolean: { std::uint8_t b = v.i != 0 || v.f != 0; std::memcpy(out, &b, 1); return; }
    case DType::int32: { auto x = static_cast<std::int32_t>(v.i); std::memcpy(out, &x, 4); return; }
    case DType::int64:
    case DType::uint64: std::memcpy(out, &v.i, 8); return;  // uint64: its bits
    case DType::int8:
    case DType::uint8: { auto x = static_cast<std::uint8_t>(v.i); std::memcpy(out, &x, 1); return; }
    case DType::int16:
    case DType::uint16: { auto x = static_cast<std::uint16_t>(v.i); std::memcpy(out, &x, 2); return; }
    case DType::uint32: { auto x = static_cast<std::uint32_t>(v.i); std::memcpy(out, &x, 4); return; }
    case DType::float16: { half h(v.f); std::memcpy(out, &h.bits, 2); return; }
    case DType::bfloat16: { bfloat16 h(v.f); std::memcpy(out, &h.bits, 2); return; }
    case DType::float32: { auto x = static_cast<float>(v.f); std::memcpy(out, &x, 4); return; }
    case DType::float64: std::memcpy(out, &v.f, 8); return;
    // Complex: the real part, then the imaginary part (16 bytes for complex128: out holds 16).
    case DType::complex64: { const float x[2] = {static_cast<float>(v.f), static_cast<float>(v.imag)}; std::memcpy(out, x, 8); return; }
    case DType::complex128: { const double x[2] = {v.f, v.imag}; std::memcpy(out, x, 16); return; }
    default: break;
  }
}

std::size_t fill_pattern(const ScalarValue& v, DType t, std::uint8_t (&out)[16]) {
  scalar_storage(v, t, out);
  const std::size_t item = itemsize(t);
  if (item <= 8) return item;
  // complex128: the drivers fill patterns of up to 8 bytes; one whose halves are equal (zeros,
  // (x, x)) is one of 8 bytes, others go through a kernel.
  return std::memcmp(out, out + 8, 8) == 0 ? 8 : 0;
}

const View& evaluate(const NodePtr& node) {
  if (node->evaluated()) return node->view();
  std::lock_guard lock(node->lock());
  if (node->evaluated()) return node->view();
  const Device& device = node->device();
  const auto& q = thread_queue_shared(device);
  const Expr& expr = node->expr_locked();
  std::size_t bytes = static_cast<std::size_t>(node->size()) * itemsize(node->dtype());
  auto buffer = std::make_shared<Buffer>(device, bytes);
  std::uint8_t pattern[16];
  std::size_t pattern_size = 0;
  if (expr.op == Op::scalar && (pattern_size = fill_pattern(expr.scalar, node->dtype(), pattern)) > 0) {
    // full(), zeros(), ones(): the driver's fill.
    if (bytes) device.impl().fill(*q, buffer->handle(), 0, pattern, pattern_size, bytes);
  } else {
    PlanBuilder builder(node->shape());
    int result = builder.add_root(*node, expr);
    ElementwisePlan plan = builder.finish(result, PlanOutput{node->dtype(), buffer->handle(), 0, {}});
    for (auto& in : builder.buffers()) in->before_read(q);
    run_elementwise(device.impl(), q, plan);
  }
  buffer->after_write(q);
  node->set_result(View{std::move(buffer), 0, contiguous_strides(node->shape())});
  return node->view();
}

void evaluate_into(const NodePtr& src, const View& dst) {
  const Device& device = dst.buffer->device();
  const auto& q = thread_queue_shared(device);
  PlanBuilder builder(src->shape());
  int result = builder.add(src);
  ElementwisePlan plan = builder.finish(result, PlanOutput{src->dtype(), dst.buffer->handle(), dst.offset, dst.strides});
  for (auto& in : builder.buffers()) in->before_read(q);
  dst.buffer->before_write(q);
  run_elementwise(device.impl(), q, plan);
  dst.buffer->after_write(q);
}

}  // namespace porta::detail
