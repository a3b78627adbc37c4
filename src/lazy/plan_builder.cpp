// Tree flattening and dimension merging.
#include "lazy/plan_builder.hpp"

namespace porta::detail {

PlanBuilder::PlanBuilder(Shape shape) : shape_(std::move(shape)) {
  // A small op's plan fits without regrowth.
  plan_.code.reserve(8);
  plan_.inputs.reserve(4);
  memo_.reserve(8);
  keep_.reserve(8);
  buffers_.reserve(4);
}

int PlanBuilder::find(const ArrayNode* node) const {
  for (auto it = memo_.rbegin(); it != memo_.rend(); ++it)
    if (it->first == node) return it->second;
  return -1;
}

int PlanBuilder::push(Instr in) {
  plan_.code.push_back(in);
  return static_cast<int>(plan_.code.size()) - 1;
}

int PlanBuilder::add(const NodePtr& node) {
  if (int r = find(node.get()); r >= 0) return r;
  keep_.push_back(node);
  int r;
  if (node->evaluated()) {
    // An evaluated node's view never changes again: read it in place.
    r = add_input(node->view(), node->dtype());
  } else {
    auto snap = node->snapshot();
    r = snap.evaluated ? add_input(snap.view, node->dtype()) : add_expr(snap.expr, node->dtype());
  }
  memo_.emplace_back(node.get(), r);
  return r;
}

int PlanBuilder::add_root(const ArrayNode& node, const Expr& expr) {
  int r = add_expr(expr, node.dtype());
  memo_.emplace_back(&node, r);
  return r;
}

int PlanBuilder::add_input(const View& v, DType dtype) {
  for (std::size_t k = 0; k < plan_.inputs.size(); ++k) {
    const auto& in = plan_.inputs[k];
    if (in.handle == v.buffer->handle() && in.offset == v.offset && in.strides == v.strides && in.dtype == dtype)
      return push({Op::load, dtype, -1, -1, -1, static_cast<std::int32_t>(k)});
  }
  plan_.inputs.push_back({dtype, v.buffer->handle(), v.offset, v.strides});
  buffers_.push_back(v.buffer);
  return push({Op::load, dtype, -1, -1, -1, static_cast<std::int32_t>(plan_.inputs.size() - 1)});
}

int PlanBuilder::add_expr(const Expr& e, DType dtype) {
  switch (e.op) {
    case Op::scalar:
      plan_.scalars.push_back(e.scalar);
      return push({Op::scalar, dtype, -1, -1, -1, static_cast<std::int32_t>(plan_.scalars.size() - 1)});
    case Op::index:
      if (index_ < 0) index_ = push({Op::index, DType::int64});
      return index_;
    case Op::uniform:
    case Op::normal: {
      if (index_ < 0) index_ = push({Op::index, DType::int64});
      ScalarValue seed, stream;
      seed.dtype = stream.dtype = DType::int64;
      seed.i = static_cast<std::int64_t>(e.seed);
      stream.i = static_cast<std::int64_t>(e.stream);
      plan_.scalars.push_back(seed);
      plan_.scalars.push_back(stream);
      return push({e.op, dtype, index_, -1, -1, static_cast<std::int32_t>(plan_.scalars.size() - 2)});
    }
    default: break;
  }
  Instr in{e.op, dtype};
  if (e.args[0]) in.a = add(e.args[0]);
  if (e.args[1]) in.b = add(e.args[1]);
  if (e.args[2]) in.c = add(e.args[2]);
  return push(in);
}

std::vector<std::int64_t> merge_dimensions(const Shape& in, const std::vector<std::vector<std::int64_t>*>& strides) {
  // In place: dimension d of the result is written at w <= d, so nothing unread is overwritten.
  std::vector<std::int64_t> shape;
  shape.reserve(in.size());
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (in[d] == 1) continue;
    const std::size_t w = shape.size();
    bool join = w > 0;
    for (std::size_t k = 0; k < strides.size() && join; ++k)
      if ((*strides[k])[w - 1] != (*strides[k])[d] * in[d]) join = false;
    if (join) {
      shape.back() *= in[d];
      for (auto* s : strides) (*s)[w - 1] = (*s)[d];
    } else {
      shape.push_back(in[d]);
      for (auto* s : strides) (*s)[w] = (*s)[d];
    }
  }
  if (shape.empty()) {  // one element (or a 0-d array): one dimension of size 1
    shape.push_back(1);
    for (auto* s : strides) s->assign(1, 0);
    return shape;
  }
  for (auto* s : strides) s->resize(shape.size());
  return shape;
}

ElementwisePlan PlanBuilder::finish(int result, PlanOutput out) {
  plan_.result = result;
  std::vector<std::vector<std::int64_t>*> strides;
  strides.reserve(plan_.inputs.size() + 1);
  for (auto& in : plan_.inputs) strides.push_back(&in.strides);
  if (!out.strides.empty()) strides.push_back(&out.strides);
  plan_.shape = merge_dimensions(shape_, strides);
  plan_.output = std::move(out);
  return std::move(plan_);
}

}  // namespace porta::detail
