// Writes into existing arrays (docs/design/threading.md#writes-and-lazy-readers): the rule that a
// lazy expression made before a write computes with the values from before it, and the one place
// writes are queued.
#pragma once

#include <porta/ops.hpp>

#include "lazy/node.hpp"

namespace porta::detail {

// The evaluated view `dst` will be written: checks that it can be (InvalidArgument for a
// broadcast view, whose elements alias each other) and returns it.
const View& writable_view(const NodePtr& dst, const char* what);

// Evaluates the lazy expressions still pending that read `buffer` (but `skip`): a write follows.
void settle_pending_readers(Buffer& buffer, const ArrayNode* skip = nullptr);

// Writes `src` (dst's shape and dtype) into `dst`. First evaluates every lazy expression that
// reads dst's buffer (but `private_src`, a node of the caller's that nobody else holds); then,
// where `src` reads dst's buffer other than element for element in place, evaluates it into a
// temporary first (NumPy's rule for overlapping copies).
void write_into(const NodePtr& dst, NodePtr src, const ArrayNode* private_src = nullptr);

// `value` (an Array or a host number) as a node of `shape` and dtype `t` on `d` (assignment's
// unsafe casting, as NumPy's setitem: 2.7 written into int32 is 2).
NodePtr value_node(const Operand& value, const Shape& shape, DType t, const Device& d, const char* what);

}  // namespace porta::detail
