// ArrayNode construction and state.
#include "lazy/node.hpp"

#include <algorithm>
#include <limits>

#include <porta/error.hpp>

#include "lazy/expr.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {

ArrayNode::ArrayNode(Shape shape, DType dtype, Device device, View view)
    : shape_(std::move(shape)), dtype_(dtype), device_(std::move(device)), size_(element_count(shape_)),
      view_(std::move(view)) {
  check_valid_dtype(dtype_, "array");
  held_bytes_ = view_.buffer ? view_.buffer->bytes() : 0;
  evaluated_.store(true, std::memory_order_release);
}

ArrayNode::ArrayNode(Shape shape, DType dtype, Device device, Expr expr)
    : shape_(std::move(shape)), dtype_(dtype), device_(std::move(device)), size_(element_count(shape_)),
      expr_(std::move(expr)) {
  check_valid_dtype(dtype_, "array");
  int h = 0, leaves = 0;
  bool any = false;
  for (auto& a : expr_.args) {
    if (!a) continue;
    any = true;
    // An operand evaluated by now is one leaf, whatever tree it had.
    bool leaf = a->evaluated();
    h = std::max(h, leaf ? 1 : a->height() + 1);
    leaves += leaf ? 1 : a->leaves();
    held_bytes_ += a->held_bytes();
  }
  height_ = h;
  leaves_ = any ? leaves : 1;
}

ArrayNode::Snapshot ArrayNode::snapshot() const {
  std::lock_guard lock(mutex_);
  if (evaluated_.load(std::memory_order_relaxed)) return {true, view_, {}};
  return {false, {}, expr_};
}

void ArrayNode::set_result(View v) {
  view_ = std::move(v);
  expr_ = Expr{};
  evaluated_.store(true, std::memory_order_release);
  std::vector<std::weak_ptr<ArrayNode>> readers;
  readers.swap(lazy_readers_);
  if (!view_.buffer) return;
  for (auto& w : readers)
    if (auto r = w.lock(); r && !r->evaluated()) view_.buffer->add_pending_reader(r);
}

void ArrayNode::add_lazy_reader(const std::shared_ptr<ArrayNode>& reader) {
  {
    std::lock_guard lock(mutex_);
    if (!evaluated_.load(std::memory_order_relaxed)) {
      if (lazy_readers_.size() >= 16 && lazy_readers_.size() % 16 == 0)
        std::erase_if(lazy_readers_, [](const std::weak_ptr<ArrayNode>& w) { return w.expired(); });
      lazy_readers_.push_back(reader);
      return;
    }
  }
  if (view_.buffer) view_.buffer->add_pending_reader(reader);
}

std::vector<std::int64_t> contiguous_strides(const Shape& shape) {
  std::vector<std::int64_t> s(shape.size());
  std::int64_t acc = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= std::max<std::int64_t>(shape[i], 1);
  }
  return s;
}

bool is_contiguous_view(const Shape& shape, const std::vector<std::int64_t>& strides) {
  std::int64_t acc = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != acc) return false;
    acc *= shape[i];
  }
  return true;
}

NodePtr make_view(const NodePtr& base, Shape shape, std::int64_t offset, std::vector<std::int64_t> strides) {
  const View& v = evaluate(base);
  return std::make_shared<ArrayNode>(std::move(shape), base->dtype(), base->device(),
                                     View{v.buffer, offset, std::move(strides)});
}

NodePtr make_buffer_node(Shape shape, DType dtype, const Device& device) {
  std::int64_t n = element_count(shape);
  if (static_cast<std::uint64_t>(n) > std::numeric_limits<std::size_t>::max() / itemsize(dtype))
    throw ShapeError(cat("an array of shape ", porta::to_string(shape), " and dtype ", name(dtype),
                         " needs more than 2^64 bytes"));
  auto buffer = std::make_shared<Buffer>(device, static_cast<std::size_t>(n) * itemsize(dtype));
  auto strides = contiguous_strides(shape);
  return std::make_shared<ArrayNode>(std::move(shape), dtype, device, View{std::move(buffer), 0, std::move(strides)});
}

// Buffer's list of pending readers (runtime/buffer.hpp) is defined here, in the lazy layer: whether a
// reader still waits is a question about its node.
void Buffer::add_pending_reader(const std::shared_ptr<ArrayNode>& node) {
  std::lock_guard lock(pending_m_);
  if (pending_readers_.size() >= pending_prune_at_) {
    std::erase_if(pending_readers_, [](const std::weak_ptr<ArrayNode>& w) {
      auto n = w.lock();
      return !n || n->evaluated();
    });
    pending_prune_at_ = std::max<std::size_t>(16, 2 * pending_readers_.size());
  }
  pending_readers_.push_back(node);
}

std::vector<std::shared_ptr<ArrayNode>> Buffer::take_pending_readers() {
  std::vector<std::weak_ptr<ArrayNode>> list;
  {
    std::lock_guard lock(pending_m_);
    list.swap(pending_readers_);
    pending_prune_at_ = 16;
  }
  std::vector<std::shared_ptr<ArrayNode>> out;
  for (auto& w : list)
    if (auto n = w.lock(); n && !n->evaluated()) out.push_back(std::move(n));
  return out;
}

}  // namespace porta::detail
