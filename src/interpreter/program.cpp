// Checking and laying out a plan for the block interpreter (interpreter/program.hpp).
#include "interpreter/program.hpp"

#include <algorithm>

#include "porta_backend/strings.hpp"

namespace porta::detail::interp {

bool is_contiguous(const std::vector<i64>& shape, const std::vector<i64>& strides) {
  i64 expected = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}
bool is_constant(const std::vector<i64>& shape, const std::vector<i64>& strides) {
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 && strides[d] != 0) return false;
  return true;
}

[[noreturn]] void bad_plan(const std::string& what) {
  throw InvalidArgument(cat("porta internal error: malformed plan for the block interpreter: ", what));
}

namespace {

// The ops plan.hpp defines on complex operands (NumPy's; src/api/ops.cpp refuses the others).
bool complex_op(Op op) {
  switch (op) {
    case Op::load: case Op::scalar: case Op::cast: case Op::where: case Op::neg: case Op::abs: case Op::sign:
    case Op::square: case Op::round: case Op::real: case Op::imag: case Op::conj: case Op::isnan: case Op::isinf: case Op::isfinite:
    case Op::exp: case Op::log: case Op::log1p: case Op::expm1: case Op::sqrt: case Op::sin: case Op::cos: case Op::tan:
    case Op::tanh: case Op::acos: case Op::asin: case Op::atan: case Op::acosh: case Op::asinh: case Op::atanh:
    case Op::sinh: case Op::cosh: case Op::log2: case Op::log10: case Op::add: case Op::sub: case Op::mul: case Op::div:
    case Op::pow: case Op::maximum: case Op::minimum: case Op::eq: case Op::ne: case Op::lt: case Op::le: case Op::gt:
    case Op::ge:
      return true;
    default: return false;
  }
}

void check_instruction(const ElementwisePlan& p, int j) {
  const Instr& in = p.code[j];
  auto operand = [&](std::int32_t k, const char* which) -> DType {
    if (k < 0 || k >= j) bad_plan(cat("instruction ", j, " has operand ", which, " = ", k, ", not an earlier instruction"));
    return p.code[k].dtype;
  };
  DType t = in.dtype;
  int n = arity(in.op);
  DType a = n >= 1 ? operand(in.a, "a") : t, b = n >= 2 ? operand(in.b, "b") : t, c = n >= 3 ? operand(in.c, "c") : t;
  auto need = [&](bool ok, const char* rule) {
    if (!ok)
      bad_plan(cat("instruction ", j, " (", op_name(in.op), ", ", name(t), ") with operands ", name(a),
                   n >= 2 ? cat(", ", name(b)) : std::string(), n >= 3 ? cat(", ", name(c)) : std::string(), ": ", rule));
  };
  if (in.op != Op::cast && (is_complex(t) || (n >= 1 && is_complex(a)) || (n >= 2 && is_complex(b))) && !complex_op(in.op))
    need(false, "not defined for complex values");
  switch (in.op) {
    case Op::load:
      if (in.arg < 0 || in.arg >= static_cast<std::int32_t>(p.inputs.size()))
        bad_plan(cat("instruction ", j, " loads input ", in.arg, " of ", p.inputs.size()));
      need(p.inputs[in.arg].dtype == t, "a load has its input's dtype");
      return;
    case Op::scalar:
      if (in.arg < 0 || in.arg >= static_cast<std::int32_t>(p.scalars.size()))
        bad_plan(cat("instruction ", j, " reads scalar ", in.arg, " of ", p.scalars.size()));
      return;
    case Op::index: need(t == DType::int64, "index is int64"); return;
    case Op::cast: return;
    case Op::uniform:
    case Op::normal:
      need(is_floating(t) && a == DType::int64, "random numbers are floating, counted by an int64 index");
      if (in.arg < 0 || in.arg + 1 >= static_cast<std::int32_t>(p.scalars.size()))
        bad_plan(cat("instruction ", j, " takes its key and stream from scalars ", in.arg, " and ", in.arg + 1, " of ",
                     p.scalars.size()));
      return;
    case Op::logical_not: need(t == DType::boolean && a == DType::boolean, "bool from bool"); return;
    case Op::where: need(a == DType::boolean && b == t && c == t, "where(bool, x, x) has x's dtype"); return;
    case Op::fma: need(a == t && b == t && c == t, "operands have the instruction's dtype"); return;
    case Op::real:
    case Op::imag: need(t == real_dtype(a), "the parts of a complex value have its real dtype"); return;
    case Op::conj: need(a == t, "the operand has the instruction's dtype"); return;
    case Op::abs:
      if (is_complex(a)) return need(t == real_dtype(a), "abs of a complex value has its real dtype");
      break;
    default: break;
  }
  if (is_predicate(in.op)) return need(t == DType::boolean, "gives bool");
  if (is_compare(in.op)) return need(t == DType::boolean && a == b, "bool from two operands of one dtype");
  if (is_logical2(in.op)) return need(t == DType::boolean && a == t && b == t, "bool from bool");
  if (is_math(in.op)) return need(is_inexact(t) && a == t, "math functions take and give floating or complex dtypes");
  if (in.op == Op::nextafter)
    return need((t == DType::float32 || t == DType::float64) && a == t && b == t, "nextafter takes float32 or float64");
  if (is_math2(in.op)) return need(is_floating(t) && a == t && b == t, "math functions take and give floating dtypes");
  if (is_shift(in.op)) return need(is_integral(t) && a == t && b == t, "shifts take integers");
  if (in.op == Op::bit_not) return need(!is_inexact(t) && a == t, "integers or bool");
  if (in.op == Op::bit_and || in.op == Op::bit_or || in.op == Op::bit_xor)
    return need(!is_inexact(t) && a == t && b == t, "integers or bool");
  if (is_complex(t) && (in.op == Op::mod || in.op == Op::floor_div)) need(false, "not defined for complex");
  if (t == DType::boolean && (in.op == Op::div || in.op == Op::mod || in.op == Op::floor_div || in.op == Op::pow))
    need(false, "not defined for bool");
  if (is_unary_same(in.op)) return need(a == t, "the operand has the instruction's dtype");
  if (is_binary_same(in.op)) return need(a == t && b == t, "operands have the instruction's dtype");
  bad_plan(cat("instruction ", j, " has unknown op ", static_cast<int>(in.op)));
}

}  // namespace

Program compile(const ElementwisePlan& plan, bool with_output, bool tiled) {
  Program p;
  p.plan = &plan;
  p.ndim = static_cast<int>(plan.shape.size());
  for (i64 s : plan.shape) {
    if (s < 0) bad_plan(cat("negative extent ", s, " in the shape"));
    p.total *= s;
  }
  const int n = static_cast<int>(plan.code.size());
  if (plan.result < 0 || plan.result >= n) bad_plan(cat("result ", plan.result, " of ", n, " instructions"));
  p.result = plan.result;
  for (int j = 0; j < n; ++j) check_instruction(plan, j);

  p.inputs.resize(plan.inputs.size());
  for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
    const PlanInput& in = plan.inputs[k];
    InputView& v = p.inputs[k];
    if (in.strides.size() != plan.shape.size())
      bad_plan(cat("input ", k, " has ", in.strides.size(), " strides for a shape of ", plan.shape.size(), " dimensions"));
    v.dtype = in.dtype;
    v.item = itemsize(in.dtype);
    v.base = static_cast<const std::byte*>(in.handle) + in.offset * static_cast<i64>(v.item);
    v.strides = &in.strides;
    v.contiguous = is_contiguous(plan.shape, in.strides);
    v.constant = is_constant(plan.shape, in.strides);
  }

  // Liveness, and what is the same for every element.
  p.live.assign(n, 0);
  p.constant.assign(n, 0);
  p.in_place.assign(n, 0);
  p.live[p.result] = 1;
  std::vector<int> last_use(n, -1);
  last_use[p.result] = n;  // past the end: the result is read after the last instruction
  for (int j = n - 1; j >= 0; --j) {
    if (!p.live[j]) continue;
    const Instr& in = plan.code[j];
    const int ar = arity(in.op);
    for (std::int32_t k : {ar >= 1 ? in.a : -1, ar >= 2 ? in.b : -1, ar >= 3 ? in.c : -1})
      if (k >= 0) {
        p.live[k] = 1;
        last_use[k] = std::max(last_use[k], j);
      }
  }
  p.counter_only.assign(n, 0);
  for (int j = 0; j < n; ++j) p.counter_only[j] = p.live[j] && plan.code[j].op == Op::index && j != p.result;
  for (int j = 0; j < n; ++j) {
    if (!p.live[j]) continue;
    const Instr& in = plan.code[j];
    const int ar = arity(in.op);
    const bool random = in.op == Op::uniform || in.op == Op::normal;
    for (std::int32_t k : {ar >= 1 && !random ? in.a : -1, ar >= 2 ? in.b : -1, ar >= 3 ? in.c : -1})
      if (k >= 0) p.counter_only[k] = 0;
  }
  for (int j = 0; j < n; ++j) {
    if (!p.live[j]) continue;
    const Instr& in = plan.code[j];
    int ar = arity(in.op);
    bool c;
    if (in.op == Op::load) c = p.inputs[in.arg].constant;
    else if (in.op == Op::scalar) c = true;
    else if (in.op == Op::index || in.op == Op::uniform || in.op == Op::normal) c = false;
    else {
      c = p.constant[in.a] && (ar < 2 || p.constant[in.b]) && (ar < 3 || p.constant[in.c]);
    }
    p.constant[j] = c;
  }

  // The output.
  p.has_output = with_output;
  const DType result_dtype = plan.code[p.result].dtype;
  if (with_output) {
    const PlanOutput& out = plan.output;
    if (!out.strides.empty() && out.strides.size() != plan.shape.size())
      bad_plan(cat("the output has ", out.strides.size(), " strides for a shape of ", plan.shape.size(), " dimensions"));
    p.out_dtype = out.dtype;
    p.out_item = itemsize(out.dtype);
    p.out_base = static_cast<std::byte*>(out.handle) + out.offset * static_cast<i64>(p.out_item);
    p.out_contiguous = out.strides.empty() || is_contiguous(plan.shape, out.strides);
    if (!p.out_contiguous) p.needs_index = true;
    bool aliases_input = false;
    for (auto& in : plan.inputs) aliases_input = aliases_input || in.handle == out.handle;
    p.direct_output = p.out_contiguous && out.dtype == result_dtype && stored_as_computed(out.dtype) &&
                      !p.constant[p.result] && !aliases_input && !tiled;
  }

  // Registers: constants keep theirs for the whole call; others are reused once their last
  // reader has run. An instruction never writes the register of one of its own operands.
  p.slot.assign(n, -1);
  for (int j = 0; j < n; ++j)
    if (p.live[j] && p.constant[j]) p.const_steps.push_back(j);
  for (int j : p.const_steps) p.slot[j] = p.nslots++;
  std::vector<int> free_slots;
  for (int j = 0; j < n; ++j) {
    if (!p.live[j] || p.constant[j]) continue;
    p.steps.push_back(j);
    const Instr& in = plan.code[j];
    if (in.op == Op::load) {
      const InputView& v = p.inputs[in.arg];
      if (!v.contiguous || tiled) p.needs_index = true;
      if (v.contiguous && loaded_as_stored(v.dtype) && !(j == p.result && p.direct_output) && !tiled) p.in_place[j] = 1;
    }
    bool needs_slot = !p.in_place[j] && !(j == p.result && p.direct_output);
    if (needs_slot) {
      if (!free_slots.empty()) {
        p.slot[j] = free_slots.back();
        free_slots.pop_back();
      } else {
        p.slot[j] = p.nslots++;
      }
    }
    int ar = arity(in.op);
    int ops[3] = {in.a, ar >= 2 ? in.b : -1, ar >= 3 ? in.c : -1};
    if (ar == 0) ops[0] = -1;
    for (int q = 0; q < 3; ++q) {
      int k = ops[q];
      if (k < 0 || (q > 0 && k == ops[0]) || (q > 1 && k == ops[1])) continue;
      if (!p.constant[k] && last_use[k] == j && p.slot[k] >= 0) free_slots.push_back(p.slot[k]);
    }
  }
  if (with_output && !p.direct_output && plan.output.dtype != result_dtype) p.out_cast_slot = p.nslots++;
  // complex128 registers take 16 bytes an element, the others at most 8.
  for (const Instr& in : plan.code)
    if (in.dtype == DType::complex128) p.slot_words = 2;
  return p;
}


}  // namespace porta::detail::interp
