// Writes into arrays and views: Array::assign, Array::fill, porta::assign (with a mask).
#include "api/write.hpp"

#include <porta/error.hpp>
#include <porta/index.hpp>
#include <porta/ops.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "runtime/device_state.hpp"
#include "lazy/evaluate.hpp"
#include "lazy/expr.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {

const View& writable_view(const NodePtr& dst, const char* what) {
  const View& v = evaluate(dst);
  const Shape& s = dst->shape();
  for (std::size_t d = 0; d < s.size(); ++d)
    if (s[d] > 1 && v.strides[d] == 0)
      throw InvalidArgument(cat(what, ": the destination of shape ", porta::to_string(s),
                                " is a broadcast view (axis ", d, " has stride 0), whose elements share memory; "
                                "write into the array it was broadcast from, or into a copy()"));
  return v;
}

namespace {

// Does the tree `n` read `buffer` anywhere other than at exactly `dst`'s elements?
bool reads_other_elements(const NodePtr& n, const Buffer* buffer, const View& dst, const Shape& shape) {
  auto snap = n->snapshot();
  if (snap.evaluated) {
    if (snap.view.buffer.get() != buffer) return false;
    if (snap.view.offset != dst.offset) return true;
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (shape[d] > 1 && snap.view.strides[d] != dst.strides[d]) return true;
    return false;
  }
  for (const auto& a : snap.expr.args)
    if (a && reads_other_elements(a, buffer, dst, shape)) return true;
  return false;
}

// Writes src into dst with the axes of both put in the order of dst's strides, largest first: a
// transposed destination is then written along its memory, in rows (the generated kernel's
// coalesced stores; what becomes transposed is the read of src, which the 2-D kernels take
// through a local tile), instead of one element a row apart per work-item.
void evaluate_into_dst_order(const NodePtr& src, const View& dst, const Shape& shape) {
  std::vector<int> perm(shape.size());
  std::iota(perm.begin(), perm.end(), 0);
  auto key = [&](int d) { return shape[static_cast<std::size_t>(d)] > 1 ? std::llabs(dst.strides[static_cast<std::size_t>(d)]) : -1; };
  std::stable_sort(perm.begin(), perm.end(), [&](int x, int y) { return key(x) > key(y); });
  // Only where an axis longer than one moves (axes of one element go anywhere).
  int last = -1;
  bool in_order = true;
  for (int d : perm)
    if (shape[static_cast<std::size_t>(d)] > 1) {
      in_order = in_order && d > last;
      last = d;
    }
  if (in_order) {
    evaluate_into(src, dst);
    return;
  }
  View permuted = dst;
  for (std::size_t i = 0; i < perm.size(); ++i) permuted.strides[i] = dst.strides[static_cast<std::size_t>(perm[i])];
  Array moved = Array(src).transpose(perm);
  evaluate_into(moved.node(), permuted);
}

}  // namespace

void settle_pending_readers(Buffer& buffer, const ArrayNode* skip) {
  for (const auto& r : buffer.take_pending_readers())
    if (r.get() != skip) evaluate(r);
}

void write_into(const NodePtr& dst, NodePtr src, const ArrayNode* private_src) {
  const View& dv = dst->view();
  // Lazy readers of the buffer compute with the values from before the write: evaluate them now.
  settle_pending_readers(*dv.buffer, private_src);
  if (dst->size() == 0) return;
  if (reads_other_elements(src, dv.buffer.get(), dv, dst->shape())) {
    auto tmp = make_buffer_node(dst->shape(), dst->dtype(), dst->device());
    evaluate_into(src, tmp->view());
    src = tmp;
  }
  auto snap = src->snapshot();
  if (!snap.evaluated && snap.expr.op == Op::scalar && is_contiguous_view(dst->shape(), dv.strides)) {
    // A number written into contiguous memory: the driver's fill.
    const auto& q = thread_queue_shared(dst->device());
    std::uint8_t pattern[8];
    scalar_storage(snap.expr.scalar, dst->dtype(), pattern);
    std::size_t item = itemsize(dst->dtype());
    dv.buffer->before_write(q);
    dst->device().impl().fill(*q, dv.buffer->handle(), static_cast<std::size_t>(dv.offset) * item, pattern, item,
                              static_cast<std::size_t>(dst->size()) * item);
    dv.buffer->after_write(q);
    return;
  }
  evaluate_into_dst_order(src, dv, dst->shape());
}

NodePtr value_node(const Operand& value, const Shape& shape, DType t, const Device& d, const char* what) {
  NodePtr n;
  switch (value.kind()) {
    case Operand::Kind::array: {
      n = node_of(value.array(), what);
      if (n->device() != d)
        throw InvalidArgument(cat(what, ": the value is on ", n->device().spec(), " and the destination on ", d.spec(),
                                  "; move one with to(device) first"));
      if (broadcast_shapes(n->shape(), shape) != shape)
        throw ShapeError(cat(what, ": a value of shape ", porta::to_string(n->shape()),
                             " does not broadcast to the destination's shape ", porta::to_string(shape)));
      return broadcast_node(cast(n, t), shape);
    }
    case Operand::Kind::floating: n = make_scalar(value.floating(), 0, DType::float64, shape, d); break;
    case Operand::Kind::integer: n = make_scalar(0, value.integer(), DType::int64, shape, d); break;
    case Operand::Kind::boolean: n = make_scalar(0, value.integer(), DType::boolean, shape, d); break;
  }
  return cast(n, t);
}

}  // namespace porta::detail

namespace porta {

using detail::cat;

const Array& Array::assign(const Array& src) const {
  auto dst = detail::node_of(*this, "assign");
  detail::writable_view(dst, "assign");
  auto v = detail::value_node(Operand(src), dst->shape(), dst->dtype(), dst->device(), "assign");
  detail::write_into(dst, std::move(v));
  return *this;
}

const Array& Array::fill_value(double f, std::int64_t i, bool floating) const {
  auto dst = detail::node_of(*this, "fill");
  detail::writable_view(dst, "fill");
  Operand value = floating ? Operand(f) : Operand(i);
  auto v = detail::value_node(value, dst->shape(), dst->dtype(), dst->device(), "fill");
  detail::write_into(dst, std::move(v));
  return *this;
}

const Array& assign(const Array& dst, const Operand& value) {
  auto d = detail::node_of(dst, "assign");
  detail::writable_view(d, "assign");
  auto v = detail::value_node(value, d->shape(), d->dtype(), d->device(), "assign");
  detail::write_into(d, std::move(v));
  return dst;
}

const Array& assign(const Array& dst, const Operand& value, const Array& where) {
  auto d = detail::node_of(dst, "assign");
  auto m = detail::node_of(where, "assign (mask)");
  if (m->dtype() != DType::boolean)
    throw DTypeError(cat("assign: the mask is ", name(m->dtype()), "; it must be bool (compare, or astype(bool))"));
  if (m->shape() != d->shape())
    throw ShapeError(cat("assign: the mask has shape ", to_string(m->shape()), " and the destination ",
                         to_string(d->shape()), "; a boolean mask must have the destination's shape"));
  if (m->device() != d->device())
    throw InvalidArgument(cat("assign: the mask is on ", m->device().spec(), " and the destination on ",
                              d->device().spec()));
  detail::writable_view(d, "assign");
  auto v = detail::value_node(value, d->shape(), d->dtype(), d->device(), "assign");
  // dst[mask] = value as where(mask, value, dst): each element reads only itself, in place.
  auto w = detail::make_node(detail::Op::where, d->dtype(), m, v, d);
  const detail::ArrayNode* self = w.get();
  detail::write_into(d, std::move(w), self);
  return dst;
}

}  // namespace porta
