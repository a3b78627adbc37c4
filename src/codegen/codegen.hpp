// Code generation: plans (plan.hpp) become CUDA C++ or OpenCL C source. One kernel per
// evaluated elementwise tree; reductions fuse their input tree too. Generated for the device:
// a grid-stride loop with 16-byte accesses on GPUs, one element per work-item where the
// device's LaunchStyle asks for it (PoCL), there one OpenCL vector per work-item for float
// arithmetic on contiguous arrays. Kernels are keyed by structure (ops, dtypes, access
// patterns), never by sizes or scalar values, which are parameters.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "porta_backend/backend.hpp"

namespace porta::detail {

// The text that differs between CUDA C++ and OpenCL C.
struct DialectText {
  Dialect dialect;
  bool cuda() const { return dialect == Dialect::cuda; }
  std::string kernel_prefix() const;            // before the kernel's name
  std::string global_ptr(DType storage) const;  // "__global const float*" etc. (const for inputs)
  std::string global_out_ptr(DType storage) const;
  std::string storage_type(DType t) const;      // element type in memory
  std::string compute_type(DType t) const;      // type of values in registers
  std::string scalar_param_type(DType t) const; // type of a by-value parameter
  std::string index_type(bool wide) const;
  std::string global_id() const;
  std::string global_size() const;
  std::string local_id() const;
  std::string group_id() const;
  std::string local_size() const;
  std::string barrier() const;
  std::string local_array(const std::string& type, const std::string& name, const std::string& count) const;
  // Converts storage to compute: `ptr[index]` read as a value, and the store statement.
  std::string load(DType t, const std::string& ptr, const std::string& index) const;
  std::string store(DType t, const std::string& ptr, const std::string& index, const std::string& value) const;
  std::string math(const std::string& fn, DType compute) const;  // "exp" -> "expf" on CUDA float
  std::string literal(double v, DType t) const;
  // Helper functions every kernel may use; `complex`: base/complex.h's for complex64 (and
  // complex128 with fp64).
  std::string prelude(bool fp64, bool random, bool complex = false) const;
};

// Section `name` of an embedded kernel source file (codegen/kernels/, primitives/kernels/): the
// lines after its line "//@ name ..." up to the next "//@ " line. Throws std::logic_error where the
// file has no such section.
std::string_view kernel_section(std::string_view file, std::string_view name);

// Emits `CT v<j><suffix> = ...;` for every instruction of `plan`, given how to read input k
// (`input_expr(k)` returns an expression of compute type) and the linear index expression.
// `random_words`, where given, replaces random instruction j by (*random_words)[j] when that is
// not empty (the words of a Philox block emit_random_blocks computed for several elements).
std::string emit_instructions(const DialectText& d, const ElementwisePlan& plan,
                              const std::vector<std::string>& input_exprs, const std::string& index_expr,
                              const std::string& suffix, const std::vector<std::string>* random_words = nullptr);

// Random numbers for `lanes` consecutive elements from element `first` (a multiple of `lanes`):
// returns the statements that run each Philox block once (four float32 or two float64 elements
// a block, base/philox.hpp), and sets words[lane][j] to random instruction j's value in that lane.
// Where `lanes` is not a multiple of a block, each lane calls the one-element function instead.
// `vector_blocks` (OpenCL): the blocks run together on OpenCL vectors (porta_philox_B, B = 2, 4, 8, 16).
std::string emit_random_blocks(const ElementwisePlan& plan, const std::string& first, int lanes,
                               std::vector<std::vector<std::string>>& words, bool vector_blocks = false);

// The same instructions on OpenCL vectors of `lanes` values (floatN, doubleN): `vK` are vectors,
// scalars are broadcast, `input_exprs` give vector reads. Only for plans where
// vector_instructions_supported() holds: float32/float64 arithmetic and math, whose OpenCL C
// vector forms compute what the scalar forms compute in every lane, and 8- and 16-bit integer loads
// that only casts to float32/float64 read (convert_floatN, exact).
// Random instructions (and the index, as their counter only) take their lanes from
// `random_words` (emit_random_blocks).
// The suffix of base/complex.h's names for complex dtype t: "c64" or "c128" (porta_c_c64(re, im)).
std::string csuffix(DType t);
bool vector_instructions_supported(const ElementwisePlan& plan);
std::string emit_vector_instructions(const DialectText& d, const ElementwisePlan& plan,
                                     const std::vector<std::string>& input_exprs, int lanes,
                                     const std::vector<std::vector<std::string>>& random_words = {});

// Appends a structural key (binary) for the instruction list, scalar and input dtypes (not
// sizes, not values) to `k`.
void append_instruction_key(std::string& k, const ElementwisePlan& plan);
bool plan_uses_fp64(const ElementwisePlan& plan);  // float64 or complex128 anywhere
bool plan_uses_complex(const ElementwisePlan& plan);
bool plan_uses_random(const ElementwisePlan& plan);

// Runs the plan on the device on queue `q`: generated and cached kernels where the device
// compiles at run time, the block interpreter otherwise. Buffers are already ordered (hazards).
void run_elementwise(DeviceImpl& device, const std::shared_ptr<QueueImpl>& q, const ElementwisePlan& plan);
void run_reduction(DeviceImpl& device, const std::shared_ptr<QueueImpl>& q, const ReductionPlan& plan);
// The reduction kernels' text for a contiguous input of dtype t, each op, each pass form, with
// what each is (tests/codegen_cuda_text_test.cpp compiles them with NVRTC).
std::vector<std::pair<std::string, std::string>> reduction_kernel_sources(const DialectText& d, DType t);

}  // namespace porta::detail
