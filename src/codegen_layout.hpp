// How a generated kernel reads each input of a plan: contiguous (offset + e), one broadcast
// value, or strided (an index computed per dimension); and whether indices fit in 32 bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen.hpp"

namespace porta::detail {

enum class Access : char { contiguous = 'c', uniform = 'u', strided = 's' };

Access classify_access(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides);
// The largest element distance from the buffer's start any element of the view reaches.
std::int64_t max_position(const std::vector<std::int64_t>& shape, std::int64_t offset,
                          const std::vector<std::int64_t>& strides);

struct InputLayout {
  std::vector<Access> access;
  bool wide = false;  // some index exceeds 32 bits
  bool any_strided() const;
  std::string key() const;  // access letters
};
InputLayout analyse_inputs(const ElementwisePlan& plan);

// Parameters (pointer, offset, strides) for the plan's inputs and scalars, and the matching
// arguments; `reads(e)` gives the compute-typed read of every input at linear element `e`, with
// the code that computes strided positions first.
struct InputCode {
  std::vector<std::string> params;
  std::string uniform_loads;   // once per kernel
  std::string position_code;   // per element, before the reads (strided inputs)
  std::vector<std::string> reads;
};
// With `strided_output`, the position code also computes `po` from parameters sto_<d>.
InputCode input_code(const DialectText& d, const ElementwisePlan& plan, const InputLayout& l,
                     const std::string& e, const std::string& indent, bool strided_output = false);
// Dimension parameters ("dim0"...) needed by strided inputs.
std::vector<std::string> dim_params(const DialectText& d, const ElementwisePlan& plan, bool wide);

class KernelArgs;
// The arguments matching input_code's parameters.
void push_input_args(KernelArgs& args, const ElementwisePlan& plan, const InputLayout& l);

}  // namespace porta::detail
