// Input access analysis and the input part of generated kernels.
#include "codegen/layout.hpp"

#include <algorithm>
#include <limits>

#include "runtime/kernel_args.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {

Access classify_access(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides) {
  bool all_zero = true;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 && strides[d] != 0) all_zero = false;
  if (all_zero) return Access::uniform;
  std::int64_t acc = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != acc) return Access::strided;
    acc *= shape[d];
  }
  return Access::contiguous;
}

std::int64_t max_position(const std::vector<std::int64_t>& shape, std::int64_t offset,
                          const std::vector<std::int64_t>& strides) {
  std::int64_t hi = offset, lo = offset;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    std::int64_t span = (shape[d] - 1) * strides[d];
    if (span > 0) hi += span;
    else lo += span;
  }
  return std::max(hi, -lo);
}

bool InputLayout::any_strided() const { return std::find(access.begin(), access.end(), Access::strided) != access.end(); }

std::string InputLayout::key() const {
  std::string k;
  for (auto a : access) k += static_cast<char>(a);
  return k;
}

InputLayout analyse_inputs(const ElementwisePlan& plan) {
  constexpr std::int64_t kNarrow = std::numeric_limits<std::int32_t>::max() - 16;
  InputLayout l;
  std::int64_t n = 1;
  for (auto s : plan.shape) n *= s;
  l.wide = n > kNarrow;
  l.access.reserve(plan.inputs.size());
  for (auto& in : plan.inputs) {
    l.access.push_back(classify_access(plan.shape, in.strides));
    if (max_position(plan.shape, in.offset, in.strides) > kNarrow) l.wide = true;
  }
  return l;
}

InputCode input_code(const DialectText& d, const ElementwisePlan& plan, const InputLayout& l, const std::string& e,
                     const std::string& indent, bool strided_output) {
  InputCode c;
  const std::string idx = d.index_type(l.wide);
  const int nd = static_cast<int>(plan.shape.size());
  for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
    c.params.push_back(cat(d.global_ptr(plan.inputs[k].dtype), " in", k));
    c.params.push_back(cat("const ", idx, " off", k));
    if (l.access[k] == Access::strided)
      for (int dd = 0; dd < nd; ++dd) c.params.push_back(cat("const ", idx, " st", k, "_", dd));
    if (l.access[k] == Access::uniform)
      c.uniform_loads += cat("  const ", d.compute_type(plan.inputs[k].dtype), " u", k, " = ",
                             d.load(plan.inputs[k].dtype, cat("in", k), cat("off", k)), ";\n");
  }
  for (std::size_t s = 0; s < plan.scalars.size(); ++s) {
    c.params.push_back(cat("const ", d.scalar_param_type(plan.scalars[s].dtype), " s", s));
    if (is_complex(plan.scalars[s].dtype)) c.params.push_back(cat("const ", d.scalar_param_type(plan.scalars[s].dtype), " si", s));
  }
  if (l.any_strided() || strided_output) {
    c.position_code += cat(indent, idx, " r_ = ", e, ";\n");
    for (std::size_t k = 0; k < plan.inputs.size(); ++k)
      if (l.access[k] == Access::strided) c.position_code += cat(indent, idx, " p", k, " = off", k, ";\n");
    if (strided_output) c.position_code += cat(indent, idx, " po = off_out;\n");
    for (int dd = nd - 1; dd >= 0; --dd) {
      if (dd > 0) c.position_code += cat(indent, "{ const ", idx, " i_ = r_ % dim", dd, "; r_ /= dim", dd, ";");
      else c.position_code += cat(indent, "{ const ", idx, " i_ = r_;");
      for (std::size_t k = 0; k < plan.inputs.size(); ++k)
        if (l.access[k] == Access::strided) c.position_code += cat(" p", k, " += i_ * st", k, "_", dd, ";");
      if (strided_output) c.position_code += cat(" po += i_ * sto_", dd, ";");
      c.position_code += " }\n";
    }
  }
  for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
    switch (l.access[k]) {
      case Access::contiguous: c.reads.push_back(d.load(plan.inputs[k].dtype, cat("in", k), cat("off", k, " + ", e))); break;
      case Access::uniform: c.reads.push_back(cat("u", k)); break;
      case Access::strided: c.reads.push_back(d.load(plan.inputs[k].dtype, cat("in", k), cat("p", k))); break;
    }
  }
  return c;
}

std::vector<std::string> dim_params(const DialectText& d, const ElementwisePlan& plan, bool wide) {
  std::vector<std::string> p;
  for (std::size_t dd = 0; dd < plan.shape.size(); ++dd) p.push_back(cat("const ", d.index_type(wide), " dim", dd));
  return p;
}

void push_input_args(KernelArgs& args, const ElementwisePlan& plan, const InputLayout& l) {
  for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
    args.memory(plan.inputs[k].handle);
    args.index(plan.inputs[k].offset);
    if (l.access[k] == Access::strided)
      for (auto st : plan.inputs[k].strides) args.index(st);
  }
  for (auto& s : plan.scalars) args.scalar(s);
}

Terms2 classify_2d(const std::vector<std::int64_t>& strides) {
  auto term = [](std::int64_t st) { return st == 0 ? Term::none : st == 1 ? Term::unit : Term::param; };
  return {term(strides[0]), term(strides[1])};
}

std::string position_2d(Terms2 t, const std::string& off, const std::string& st, const std::string& row,
                        const std::string& col) {
  std::string p = off;
  if (t.row == Term::unit) p += cat(" + ", row);
  if (t.row == Term::param) p += cat(" + ", row, " * ", st, "0");
  if (t.col == Term::unit) p += cat(" + ", col);
  if (t.col == Term::param) p += cat(" + ", col, " * ", st, "1");
  return p;
}

InputCode input_code_2d(const DialectText& d, const ElementwisePlan& plan, const InputLayout& l) {
  InputCode c;
  const std::string idx = d.index_type(l.wide);
  for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
    const DType t = plan.inputs[k].dtype;
    c.params.push_back(cat(d.global_ptr(t), " in", k));
    c.params.push_back(cat("const ", idx, " off", k));
    switch (l.access[k]) {
      case Access::contiguous: c.reads.push_back(d.load(t, cat("in", k), cat("off", k, " + e"))); break;
      case Access::uniform:
        c.uniform_loads += cat("  const ", d.compute_type(t), " u", k, " = ", d.load(t, cat("in", k), cat("off", k)), ";\n");
        c.reads.push_back(cat("u", k));
        break;
      case Access::strided: {
        Terms2 terms = classify_2d(plan.inputs[k].strides);
        if (terms.row == Term::param) c.params.push_back(cat("const ", idx, " st", k, "_0"));
        if (terms.col == Term::param) c.params.push_back(cat("const ", idx, " st", k, "_1"));
        c.reads.push_back(d.load(t, cat("in", k), position_2d(terms, cat("off", k), cat("st", k, "_"), "row", "col")));
        break;
      }
    }
  }
  for (std::size_t s = 0; s < plan.scalars.size(); ++s) {
    c.params.push_back(cat("const ", d.scalar_param_type(plan.scalars[s].dtype), " s", s));
    if (is_complex(plan.scalars[s].dtype)) c.params.push_back(cat("const ", d.scalar_param_type(plan.scalars[s].dtype), " si", s));
  }
  return c;
}

void push_input_args_2d(KernelArgs& args, const ElementwisePlan& plan, const InputLayout& l) {
  for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
    const auto& in = plan.inputs[k];
    args.memory(in.handle);
    args.index(in.offset);
    if (l.access[k] != Access::strided) continue;
    Terms2 terms = classify_2d(in.strides);
    if (terms.row == Term::param) args.index(in.strides[0]);
    if (terms.col == Term::param) args.index(in.strides[1]);
  }
  for (auto& s : plan.scalars) args.scalar(s);
}

}  // namespace porta::detail
