// How a generated kernel reads each input of a plan: contiguous (offset + e), one broadcast
// value, or strided (an index computed per dimension); and whether indices fit in 32 bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/codegen.hpp"

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

// 2-D plans (rows x cols once merged): an operand's position is off + row * st_0 + col * st_1
// with each term absent (stride 0: broadcast along that axis), unit (stride 1) or a parameter.
// That is structure, so it is part of kernel keys; the stride values are parameters.
enum class Term : char { none = '0', unit = '1', param = 's' };
struct Terms2 {
  Term row = Term::none, col = Term::none;
  // Read along rows (stride 1 down a column, a transposed view): worth a tile on the way in.
  bool transposed() const { return row == Term::unit && col == Term::param; }
  std::string key() const { return {static_cast<char>(row), static_cast<char>(col)}; }
};
Terms2 classify_2d(const std::vector<std::int64_t>& strides);
// "off + row * st_0 + col" and the like; `st` names the stride parameters (st + "0", st + "1").
std::string position_2d(Terms2 t, const std::string& off, const std::string& st, const std::string& row,
                        const std::string& col);
// Parameters and reads of the inputs of a 2-D plan, in terms of `row`, `col` and `e` (the
// row-major linear index, what contiguous inputs use). No position code: positions are inline.
InputCode input_code_2d(const DialectText& d, const ElementwisePlan& plan, const InputLayout& l);
void push_input_args_2d(KernelArgs& args, const ElementwisePlan& plan, const InputLayout& l);

}  // namespace porta::detail
