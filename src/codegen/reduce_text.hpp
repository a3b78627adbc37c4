// What the two files of reduction code generation share: codegen/reduce.cpp (the passes every
// device runs, their geometry and launches) and codegen/reduce_cpu.cpp (the explicit-vector first
// passes of CPU devices): the accumulator type, identities, the fold statements, and the CPU passes
// that codegen/reduce.cpp launches.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/codegen.hpp"
#include "codegen/layout.hpp"

namespace porta::detail::reduce_text {

bool is_arg(ReduceOp op);
// float16 and bfloat16 accumulate in float32; the others in their own type.
DType accumulator(DType value);
// The identity of op in acc, as source text (-inf for max, the type's largest for min, ...).
std::string identity(const DialectText& d, ReduceOp op, DType acc);
// Statement folding value `v` (with axis index `i` for arg ops) into accumulator `a` (`ai`).
std::string combine(ReduceOp op, DType acc, const std::string& a, const std::string& ai, const std::string& v,
                    const std::string& i);
// The same for arg ops whose accumulator sees its positions in increasing order (codegen/reduce_cpu.cpp
// says why that is cheaper).
std::string combine_in_order(ReduceOp op, DType acc, const std::string& a, const std::string& ai, const std::string& v,
                             const std::string& i);

// Where a pass reads its values: the fused input tree, or the previous pass's partials.
struct Source {
  const ElementwisePlan* plan = nullptr;  // null: partials
  InputLayout layout;
};

// Whether the pass reads one contiguous array as it is (no fused operation, narrow indices): the
// condition of the vector passes, the CPU ones and GPUs' arg pass (codegen/reduce.cpp).
bool reads_one_contiguous_array(const Source& src);

// The explicit-vector first passes of CPU devices (codegen/reduce_cpu.cpp says what each does).
inline constexpr std::int64_t kVecChunk = 1024;  // elements a work-item of a row pass reads
inline constexpr std::int64_t kVecRows = 64;     // the fewest rows a work-item of the column pass sums
bool vector_pass_fits(const ReductionPlan& rp, const Source& src, const DialectText& d);
KernelSource generate_vector_pass(const ReductionPlan& rp, DType t, const DialectText& d);
// Whether the vector pass keeps only each chunk's extreme (max, min; arg ops of one row, which
// then refine) rather than generate_vector_pass's exact fold.
bool vector_pass_extreme(const ReductionPlan& rp);
KernelSource generate_vector_extreme_pass(const ReductionPlan& rp, DType t, const DialectText& d);
KernelSource generate_refine(const ReductionPlan& rp, DType t, const DialectText& d);
bool column_vector_pass_fits(const ReductionPlan& rp, const Source& src, const DialectText& d);
int column_vector_width(std::int64_t inner);     // columns a work-item of the column pass sums
std::int64_t column_vector_rows(std::int64_t extent);  // and rows (kVecRows or more)
KernelSource generate_column_vector_pass(DType t, int width, const DialectText& d);

}  // namespace porta::detail::reduce_text
