// Building lazy expression nodes: broadcasting, casts, scalars, and the named reasons a
// subtree is evaluated before a new node is put on top of it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <porta/ops.hpp>

#include "lazy/node.hpp"

namespace porta::detail {

// Why a lazy tree is evaluated. Each is checked in one place (expr.cpp, prepare_operand).
enum class EvalReason {
  data_needed,      // to_vector, matmul, a RawKernel argument, a view of a lazy node
  tree_height,      // the tree is kMaxTreeHeight deep: the next kernel would grow without bound
  parameter_count,  // the tree has kMaxLeaves leaves: kernel parameter lists have limits
  memory_pressure,  // the tree keeps more than kMaxHeldFraction of the device's memory alive
  broadcast,        // a lazy operand of another shape must be evaluated before it is broadcast
};
inline constexpr int kMaxTreeHeight = 32;
inline constexpr int kMaxLeaves = 24;
inline constexpr double kMaxHeldFraction = 0.25;

const char* to_string(EvalReason r);

Shape broadcast_shapes(const Shape& a, const Shape& b);
void check_dtype(const Device& d, DType t);
// DTypeError naming `what` and the value when t is none of the seven dtypes.
void check_valid_dtype(DType t, std::string_view what);
void check_same_device(const NodePtr& a, const NodePtr& b, const char* op);

// A scalar leaf of the given shape; the value is rounded to `t` (float16 values are exact halves).
NodePtr make_scalar(double f, std::int64_t i, DType t, Shape shape, const Device& d, double imag = 0);
NodePtr make_index(Shape shape, const Device& d);  // the linear index (int64)
NodePtr make_node(Op op, DType t, NodePtr a, NodePtr b = nullptr, NodePtr c = nullptr);
NodePtr cast(const NodePtr& a, DType t);
// `a` with shape `s`: a scalar leaf is remade, a view gets zero strides, a lazy tree is evaluated first.
NodePtr broadcast_node(const NodePtr& a, const Shape& s);
// Evaluates `a` when a rule says so before it becomes an operand.
NodePtr prepare_operand(const NodePtr& a);

// An Operand as a node: arrays as they are, host numbers as weak scalars of `like`'s dtype
// kind (NumPy 2 promotion, resolved by result_dtype).
struct Resolved {
  std::vector<NodePtr> nodes;  // broadcast to `shape`, cast to `dtype`
  Shape shape;
  DType dtype;
  Device device;
};
DType result_dtype(std::initializer_list<const Operand*> ops);
// False for a host integer outside integer dtype t's range (NumPy 2 refuses it there).
bool integer_fits(const Operand& o, DType t);
Resolved resolve(std::initializer_list<const Operand*> ops, std::optional<DType> force = std::nullopt);

NodePtr node_of(const Array& a, const char* what);

}  // namespace porta::detail
