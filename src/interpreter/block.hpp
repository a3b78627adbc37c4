// The block interpreter (interface/porta_backend/services.hpp), for devices without a run-time
// compiler, in four files along the code generator's seams: interpreter_ops (op math),
// interpreter_program (checking and laying out a plan), interpreter_elementwise (the block
// runner declared here, and the elementwise entry point) and interpreter_reduce.
//
// A plan is first checked and laid out (Program): which instructions the result needs, which are
// the same for every element (scalars, fully broadcast inputs, and what is computed only from
// them: evaluated once per call), which inputs are read in place (contiguous, stored as they are
// computed) and which register each instruction writes. Then, for each block of up to
// kInterpreterBlock elements, the instructions run one at a time, each as one typed loop over the
// block (NumExpr's scheme): the registers stay in cache and the loops vectorise.
#pragma once

#include <vector>

#include "interpreter/program.hpp"

namespace porta::detail::interp {

// Per-thread scratch: the registers.

struct Scratch {
  std::vector<std::vector<double>> slots;  // kBlock 8-byte values each (32 KiB), twice that for complex128
  std::vector<void*> ptr;                  // per instruction: where its values for this block are
  std::vector<i64> start_index;            // the multi-index of the block's first element
  std::vector<i64> walk_index;
  // A 2-D tile instead of a linear block: rows [r0, r0 + tr) by columns [c0, c0 + tc) of the
  // plan's shape, its values row-major (see interpret_elementwise).
  bool tile = false;
  i64 r0 = 0, c0 = 0, tr = 0, tc = 0;

  void prepare(const Program& p) {
    if (slots.size() < static_cast<std::size_t>(p.nslots)) slots.resize(p.nslots);
    for (int s = 0; s < p.nslots; ++s)
      if (slots[s].size() < static_cast<std::size_t>(kBlock * p.slot_words)) slots[s].resize(kBlock * p.slot_words);
    ptr.assign(p.plan->code.size(), nullptr);
    start_index.resize(p.ndim);
    walk_index.resize(p.ndim);
    tile = false;
  }
  void* slot(int s) { return slots[s].data(); }
};

// Sets up this thread's registers for a call covering at most `span` elements: the constants, once.
Scratch& begin_call(const Program& p, i64 span);
// Computes the result for elements [start, start + n), n <= kBlock; returns where its values
// are (the output itself when the result is written there directly).
const void* eval_block(const Program& p, Scratch& sc, i64 start, i64 n);

}  // namespace porta::detail::interp
