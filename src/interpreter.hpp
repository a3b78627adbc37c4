// The block interpreter: runs a plan on the host for backends that cannot compile at run time
// (Kokkos). The plan's handles are host pointers. The tree is applied one instruction at a time
// over blocks of kBlock elements that stay in cache (NumExpr's idea), with the semantics of
// plan.hpp. Thread-safe: callers split the element range across threads.
#pragma once

#include <cstdint>

#include "plan.hpp"

namespace porta::detail {

inline constexpr std::int64_t kInterpreterBlock = 4096;

// Computes out elements [begin, end) of `plan` (row-major linear indices).
void interpret_elementwise(const ElementwisePlan& plan, std::int64_t begin, std::int64_t end);

// Computes outputs [out_begin, out_end) of a reduction (linear indices into [outer, inner]).
void interpret_reduction(const ReductionPlan& plan, std::int64_t out_begin, std::int64_t out_end);

}  // namespace porta::detail
