// The block interpreter's program (the counterpart of src/codegen/layout.*): a plan checked and
// laid out before it runs: which instructions the result needs, which are the same for every
// element (evaluated once per call), which inputs are read in place, and which register each
// instruction writes.
#pragma once

#include <string>
#include <vector>

#include "interpreter/ops.hpp"

namespace porta::detail::interp {

// Plan layout.

inline bool is_math(Op op) {
  switch (op) {
    case Op::exp: case Op::log: case Op::log1p: case Op::expm1: case Op::sqrt: case Op::rsqrt:
    case Op::sin: case Op::cos: case Op::tan: case Op::tanh: case Op::sigmoid: case Op::erf:
    case Op::acos: case Op::asin: case Op::atan: case Op::acosh: case Op::asinh: case Op::atanh:
    case Op::sinh: case Op::cosh: case Op::log2: case Op::log10:
      return true;
    default: return false;
  }
}
// Binary math: two floating operands of the instruction's dtype.
inline bool is_math2(Op op) { return op == Op::atan2 || op == Op::hypot || op == Op::copysign || op == Op::nextafter; }
inline bool is_shift(Op op) { return op == Op::shl || op == Op::shr; }
inline bool is_unary_same(Op op) {
  switch (op) {
    case Op::neg: case Op::abs: case Op::sign: case Op::square: case Op::floor: case Op::ceil: case Op::round:
    case Op::trunc: case Op::bit_not:
      return true;
    default: return is_math(op);
  }
}
inline bool is_binary_same(Op op) {
  switch (op) {
    case Op::add: case Op::sub: case Op::mul: case Op::div: case Op::mod: case Op::floor_div: case Op::pow: case Op::maximum:
    case Op::minimum: case Op::bit_and: case Op::bit_or: case Op::bit_xor:
      return true;
    default: return is_math2(op) || is_shift(op);
  }
}
inline bool is_compare(Op op) { return op >= Op::eq && op <= Op::ge; }
inline bool is_predicate(Op op) { return op == Op::isnan || op == Op::isinf || op == Op::isfinite || op == Op::signbit; }
inline bool is_logical2(Op op) { return op == Op::logical_and || op == Op::logical_or || op == Op::logical_xor; }
inline int arity(Op op) {
  switch (op) {
    case Op::load: case Op::scalar: case Op::index: return 0;
    case Op::where: case Op::fma: return 3;
    case Op::uniform: case Op::normal: return 1;
    default:
      if (is_binary_same(op) || is_compare(op) || is_logical2(op)) return 2;
      return 1;
  }
}
struct InputView {
  DType dtype = DType::float32;
  const std::byte* base = nullptr;  // the element at the input's offset
  std::size_t item = 0;
  const std::vector<i64>* strides = nullptr;
  bool contiguous = false;  // element e at base + e
  bool constant = false;    // one element for all of the shape
};

// Whether a view of `shape` with `strides` is row-major contiguous / one element for all of it.
bool is_contiguous(const std::vector<i64>& shape, const std::vector<i64>& strides);
bool is_constant(const std::vector<i64>& shape, const std::vector<i64>& strides);

[[noreturn]] void bad_plan(const std::string& what);

struct Program {
  const ElementwisePlan* plan = nullptr;
  int ndim = 0;
  i64 total = 1;
  int result = -1;
  std::vector<InputView> inputs;
  std::vector<u8> live, constant, in_place;  // per instruction
  // Per instruction: an index whose only readers are random ops (their counters). A linear block
  // does not write it: the random ops take the block's first index (run_random's `first`).
  std::vector<u8> counter_only;
  std::vector<int> slot;                      // per instruction; -1: none
  std::vector<int> steps;                     // live, not constant, in order
  std::vector<int> const_steps;               // live and constant, in order
  int nslots = 0;
  bool needs_index = false;  // some input or the output is walked by multi-index

  bool has_output = false;
  DType out_dtype = DType::float32;
  std::byte* out_base = nullptr;
  std::size_t out_item = 0;
  bool out_contiguous = true;
  bool direct_output = false;  // the result instruction writes the output memory itself
  int out_cast_slot = -1;      // output dtype differs from the result's: the cast goes here
  int slot_words = 1;          // 8-byte words a register takes an element (2 with complex128)
};

// Checks `plan` (InvalidArgument naming what is malformed) and lays it out; `with_output`: the
// plan's output is written (elementwise), else the result stays in registers (reductions).
Program compile(const ElementwisePlan& plan, bool with_output, bool tiled = false);

}  // namespace porta::detail::interp
