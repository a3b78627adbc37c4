// Flattens a lazy tree into an ElementwisePlan: one instruction per distinct node (a node used
// twice is computed once), one input per distinct buffer view, then merges dimensions that
// every operand lets merge (a transposed or sliced view keeps its own).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "lazy/node.hpp"

namespace porta::detail {

// Merges dimensions of `shape` where every stride list allows (dropping size-1 dimensions;
// joining d and d + 1 where stride[d] == stride[d + 1] * shape[d + 1]). The linear order of
// elements is unchanged. Rewrites the stride lists; returns the merged shape (at least 1-D).
std::vector<std::int64_t> merge_dimensions(const Shape& shape, const std::vector<std::vector<std::int64_t>*>& strides);

class PlanBuilder {
 public:
  explicit PlanBuilder(Shape shape);

  int add(const NodePtr& node);
  // The root of an evaluation: its expression, read under the lock the caller holds.
  int add_root(const ArrayNode& node, const Expr& expr);

  // The finished plan writing `result` to `out` (out.strides empty: contiguous).
  ElementwisePlan finish(int result, PlanOutput out);
  // The buffers the plan reads, to order them on the evaluating queue.
  const std::vector<std::shared_ptr<Buffer>>& buffers() const { return buffers_; }

 private:
  int add_expr(const Expr& e, DType dtype);
  int add_input(const View& v, DType dtype);
  int push(Instr in);
  int find(const ArrayNode* node) const;

  Shape shape_;
  ElementwisePlan plan_;
  // Visited nodes and their instructions: a flat list, searched from the end (the trees the lazy
  // rules allow are small, and a map cost two allocations a node on every evaluation).
  std::vector<std::pair<const ArrayNode*, int>> memo_;
  std::vector<NodePtr> keep_;  // visited nodes stay alive so their addresses stay unique
  std::vector<std::shared_ptr<Buffer>> buffers_;
  int index_ = -1;
};

}  // namespace porta::detail
