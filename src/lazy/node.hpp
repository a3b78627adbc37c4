// ArrayNode: what an Array points to. Either evaluated (a view of a buffer: offset and strides
// in elements) or a lazy expression (an op over child nodes of the same shape, a scalar, or a
// random-number leaf). An expression is evaluated at most once, even when several threads
// force it at once: the first takes the node's mutex and evaluates; its result view then
// replaces the expression, and the children are released.
#pragma once

#include <cstdint>
#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include <porta/array.hpp>

#include "runtime/buffer.hpp"
#include "porta_backend/plan.hpp"

namespace porta::detail {

struct View {
  std::shared_ptr<Buffer> buffer;
  std::int64_t offset = 0;             // elements
  std::vector<std::int64_t> strides;   // elements, one per dimension
};

// The expression part of a lazy node.
struct Expr {
  Op op = Op::scalar;
  std::array<std::shared_ptr<class ArrayNode>, 3> args;
  ScalarValue scalar;                  // Op::scalar
  std::uint64_t seed = 0, stream = 0;  // Op::uniform / Op::normal
};

class ArrayNode {
 public:
  // An evaluated node.
  ArrayNode(Shape shape, DType dtype, Device device, View view);
  // A lazy node.
  ArrayNode(Shape shape, DType dtype, Device device, Expr expr);

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  const Device& device() const { return device_; }
  std::int64_t size() const { return size_; }
  int height() const { return height_; }   // longest path to a leaf (0 for leaves)
  int leaves() const { return leaves_; }   // leaf count, an upper bound on kernel parameters
  // Bytes of buffers this node keeps alive (an upper bound: shared leaves count twice).
  std::size_t held_bytes() const { return held_bytes_; }

  bool evaluated() const { return evaluated_.load(std::memory_order_acquire); }
  // The view of an evaluated node (evaluate() first).
  const View& view() const { return view_; }

  // A consistent copy of the node's state, taken under its lock.
  struct Snapshot {
    bool evaluated;
    View view;
    Expr expr;
  };
  Snapshot snapshot() const;

  // Replaces the expression by its result. Call with lock() held. The lazy nodes that read this one
  // (add_lazy_reader) become pending readers of the result's buffer
  // (docs/design/threading.md#writes-and-lazy-readers).
  void set_result(View v);
  // `reader`, a lazy node, reads this one: once this node is evaluated, a write into its buffer
  // evaluates `reader` first. Registers with the buffer at once when this node is evaluated.
  void add_lazy_reader(const std::shared_ptr<ArrayNode>& reader);
  std::mutex& lock() const { return mutex_; }
  const Expr& expr_locked() const { return expr_; }

 private:
  Shape shape_;
  DType dtype_;
  Device device_;
  std::int64_t size_;
  int height_ = 0;
  int leaves_ = 1;
  std::size_t held_bytes_ = 0;
  mutable std::mutex mutex_;
  std::atomic<bool> evaluated_{false};
  View view_;
  Expr expr_;
  std::vector<std::weak_ptr<ArrayNode>> lazy_readers_;  // until evaluated
};

using NodePtr = std::shared_ptr<ArrayNode>;

std::vector<std::int64_t> contiguous_strides(const Shape& shape);
bool is_contiguous_view(const Shape& shape, const std::vector<std::int64_t>& strides);

// Evaluates the node if it is an expression (see evaluate.cpp) and returns its view.
const View& evaluate(const NodePtr& node);
// An evaluated node that shares `view`'s buffer with another shape/strides.
NodePtr make_view(const NodePtr& base, Shape shape, std::int64_t offset, std::vector<std::int64_t> strides);
// A new node over a fresh buffer of `shape` (uninitialised).
NodePtr make_buffer_node(Shape shape, DType dtype, const Device& device);

}  // namespace porta::detail
