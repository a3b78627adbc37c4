// When a call into porta runs without the GIL (README, "Python: the GIL").
//
// Releasing the GIL is not free when other Python threads want it: the release wakes one of them,
// which takes the GIL, and the caller then sleeps until that thread lets it go again. Every
// release/reacquire pair is then a hand-off through the kernel (a futex wake and a context
// switch, 5-10 us on the H200 host), and threads that each release it twice per small add run in
// a convoy: 4 threads did a third of one thread's adds. So:
//
// - An elementwise operation (an operator, porta.add, ...) with at least one array operand, all
//   of its array operands evaluated, only builds an expression node: host bookkeeping of a few hundred ns that cannot compile,
//   wait or touch a device (a lazy operand may be evaluated there, so then the GIL is released).
//   It keeps the GIL.
// - eval() of the node such an operation just made on this thread keeps the GIL when this thread
//   has evaluated the same operation (op, dtypes, shapes, strides, offset alignment, device)
//   before and that took less than the hold limit (PORTA_GIL_HOLD_US, default 8 us, measured on
//   every call): a kernel already compiled and a launch handed to the queue's launch thread
//   (GPUs) or a small Kokkos loop. Everything else (the first evaluation of anything, a compile,
//   a slow launch such as PoCL's) releases the GIL, as every other call into porta does: copies,
//   synchronize, reductions, matmul, kernels, transfers, creation.
// - PORTA_GIL_HOLD_US=0 releases the GIL around every call (the behaviour before), for comparison.
//
// On a free-threaded CPython there is no GIL to keep: the same code runs, and nothing serialises.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>

#include "bindings.hpp"

namespace porta::python::gil {

// True when the operands (arrays evaluated, or Python numbers) let the operation keep the GIL.
bool can_hold(std::initializer_list<const Operand*> ops);

// Runs `fn(operands...)` (an elementwise function): with the GIL when can_hold(), noting the result
// and its fingerprint for eval(); else without it.
template <class F, class... Ops> Array elementwise(const void* op, F&& fn, const Ops&... operands);

// Remembers that `result` was made on this thread by `op` from `ops` (all evaluated).
void made(const void* op, std::initializer_list<const Operand*> ops, const Array& result);

// Array.eval() from Python, under the policy above. Called with the GIL held.
void eval(const Array& a);

// This thread's eval() calls of pending arrays so far: (kept the GIL, released it).
std::pair<std::uint64_t, std::uint64_t> counts();
// This thread's elementwise operations so far that kept the GIL.
std::uint64_t ops_held();

// The hold limit in nanoseconds (0: never hold), read once from PORTA_GIL_HOLD_US.
long long hold_limit_ns();

template <class F, class... Ops> Array elementwise(const void* op, F&& fn, const Ops&... operands) {
  if (hold_limit_ns() > 0 && can_hold({&operands...})) {
    Array r = fn(operands...);
    made(op, {&operands...}, r);
    return r;
  }
  nb::gil_scoped_release unlocked;
  return fn(operands...);
}

}  // namespace porta::python::gil
