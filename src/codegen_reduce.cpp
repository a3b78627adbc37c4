// Reduction kernels. The input tree is fused into the first pass. Layout: the input in linear
// order is [outer, extent, inner]. With inner == 1 ("row") a work-group reduces a chunk of one
// row and combines its threads in local memory in a fixed tree; with inner > 1 ("column") each
// thread loops over a chunk of one column. When there are too few rows or columns to fill the
// device, the extent is split into chunks whose partial results a second pass combines. Every
// order is fixed by the launch shape, so results are the same bits on every run.
#include <algorithm>

#include "allocator.hpp"
#include "codegen.hpp"
#include "codegen_layout.hpp"
#include "device_state.hpp"
#include "kernel_args.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {
namespace {

bool is_arg(ReduceOp op) { return op == ReduceOp::argmin || op == ReduceOp::argmax; }

DType accumulator(DType value) {
  return (value == DType::float16 || value == DType::bfloat16) ? DType::float32 : value;
}

std::string identity(const DialectText& d, ReduceOp op, DType acc) {
  bool lowest = op == ReduceOp::max || op == ReduceOp::argmax;
  switch (op) {
    case ReduceOp::sum: return d.literal(0, acc);
    case ReduceOp::prod: return d.literal(1, acc);
    case ReduceOp::all: return "true";
    case ReduceOp::any: return "false";
    default: break;
  }
  switch (acc) {
    case DType::boolean: return lowest ? "false" : "true";
    case DType::int32: return lowest ? "(-2147483647 - 1)" : "2147483647";
    case DType::int64: return d.cuda() ? (lowest ? "(-9223372036854775807LL - 1)" : "9223372036854775807LL")
                                       : (lowest ? "(-9223372036854775807L - 1)" : "9223372036854775807L");
    case DType::float64:
      return d.cuda() ? (lowest ? "(-__longlong_as_double(0x7ff0000000000000LL))" : "__longlong_as_double(0x7ff0000000000000LL)")
                      : (lowest ? "(-as_double(0x7ff0000000000000UL))" : "as_double(0x7ff0000000000000UL)");
    default:
      return d.cuda() ? (lowest ? "(-__int_as_float(0x7f800000))" : "__int_as_float(0x7f800000)")
                      : (lowest ? "(-as_float(0x7f800000u))" : "as_float(0x7f800000u)");
  }
}

// Statement folding value `v` (with axis index `i` for arg ops) into accumulator `a` (`ai`).
std::string combine(ReduceOp op, DType acc, const std::string& a, const std::string& ai, const std::string& v,
                    const std::string& i) {
  bool fl = is_floating(acc);
  std::string fs = acc == DType::float64 ? "f64" : "f32";
  switch (op) {
    case ReduceOp::sum: return acc == DType::boolean ? cat(a, " = ", a, " || ", v, ";") : cat(a, " += ", v, ";");
    case ReduceOp::prod: return acc == DType::boolean ? cat(a, " = ", a, " && ", v, ";") : cat(a, " *= ", v, ";");
    case ReduceOp::all: return cat(a, " = ", a, " && ", v, ";");
    case ReduceOp::any: return cat(a, " = ", a, " || ", v, ";");
    case ReduceOp::min:
      if (fl) return cat(a, " = porta_min_", fs, "(", a, ", ", v, ");");
      if (acc == DType::boolean) return cat(a, " = ", a, " && ", v, ";");
      return cat("if (", v, " < ", a, ") ", a, " = ", v, ";");
    case ReduceOp::max:
      if (fl) return cat(a, " = porta_max_", fs, "(", a, ", ", v, ");");
      if (acc == DType::boolean) return cat(a, " = ", a, " || ", v, ";");
      return cat("if (", v, " > ", a, ") ", a, " = ", v, ";");
    case ReduceOp::argmin:
    case ReduceOp::argmax: {
      const char* cmp = op == ReduceOp::argmin ? "<" : ">";
      std::string better;
      // NaN tests through isnan and bool order through && and !: compilers warn about x != x
      // where they can see x, and about ordering comparisons of bools.
      if (fl)
        better = cat("(isnan(", v, ") ? (!isnan(", a, ") || ", i, " < ", ai, ") : (!isnan(", a, ") && (", v,
                     " ", cmp, " ", a, " || (", v, " == ", a, " && ", i, " < ", ai, "))))");
      else if (acc == DType::boolean)
        better = op == ReduceOp::argmax ? cat("(((", v, ") && !(", a, ")) || ((", v, ") == (", a, ") && ", i, " < ", ai, "))")
                                        : cat("((!(", v, ") && (", a, ")) || ((", v, ") == (", a, ") && ", i, " < ", ai, "))");
      else
        better = cat("(", v, " ", cmp, " ", a, " || (", v, " == ", a, " && ", i, " < ", ai, "))");
      return cat("if (", i, " >= 0 && (", ai, " < 0 || ", better, ")) { ", a, " = ", v, "; ", ai, " = ", i, "; }");
    }
  }
  return "";
}

// The same fold for arg ops where each accumulator sees its positions in increasing order (a
// thread's pass over the input): a tie or a later NaN never wins, so the index comparisons of
// combine() drop out, and so does the test for "no position yet": the accumulator starts at the
// identity (-inf for argmax) with position -1, and only a strictly better value or the first NaN
// replaces it (for floats `!(v <= a) && a == a`: v greater, or v NaN while a is not). A run of
// values all equal to the identity leaves -1, which in_order_first() then replaces by the
// accumulator's first position. One flag and two selects, no branch: a GPU thread's unrolled
// loads all issue before the folds, and PoCL's vectoriser widens the fold (with the "none yet"
// test in it, PoCL ran the first pass at a quarter of the speed). The position `ai` may be the
// kernel's index type (32-bit where the sizes allow).
std::string combine_in_order(ReduceOp op, DType acc, const std::string& a, const std::string& ai, const std::string& v,
                             const std::string& i) {
  const bool is_max = op == ReduceOp::argmax;
  std::string better;
  if (acc == DType::boolean)
    better = is_max ? cat("((", v, ") & !(", a, "))") : cat("(!(", v, ") & (", a, "))");
  else if (is_floating(acc))
    better = cat("(!(", v, is_max ? " <= " : " >= ", a, ") & (", a, " == ", a, "))");
  else
    better = cat("(", v, is_max ? " > " : " < ", a, ")");
  return cat("{ const bool b_ = ", better, "; ", a, " = b_ ? ", v, " : ", a, "; ", ai, " = b_ ? ", i, " : ", ai, "; }");
}

// After a combine_in_order run: an accumulator still at -1 saw only values equal to the
// identity (or nothing): its first position `first`, when that exists (`exists`), holds one of
// them and is the answer. (A position another accumulator also claims this way ties at the
// identity, and combine() then keeps the smaller position or the better value.)
std::string in_order_first(const std::string& ai, const std::string& first, const std::string& exists) {
  return cat("if (", ai, " < 0 && ", exists, ") ", ai, " = ", first, ";");
}

struct Geometry {
  bool row = true;
  std::int64_t outer = 1, extent = 1, inner = 1, chunks = 1, chunk = 1;
  std::size_t group = 256;
};

Geometry choose_geometry(const ReductionPlan& rp, const DeviceInfo& info) {
  Geometry g;
  g.outer = rp.outer;
  g.extent = rp.extent;
  g.inner = rp.inner;
  g.row = rp.inner == 1;
  bool gpu = info.kind == DeviceKind::gpu;
  g.group = info.launch.group_size ? info.launch.group_size : 64;
  std::int64_t cu = std::max(info.compute_units, 1);
  std::int64_t chunks = 1;
  if (g.row) {
    // Many groups of moderate chunks: with one wave of 8 groups per unit, a kernel that does not
    // keep all 8 resident runs a second, mostly empty wave (the whole-array sum of 2^28 floats
    // reached 0.80x copy on the H200 where row sums of 16384 rows reached 1.1x).
    std::int64_t target_groups = gpu ? cu * 32 : cu * 4;
    std::int64_t max_chunks = std::max<std::int64_t>(1, g.extent / (static_cast<std::int64_t>(g.group) * 4));
    chunks = std::clamp<std::int64_t>((target_groups + g.outer - 1) / g.outer, 1, max_chunks);
  } else {
    std::int64_t target_threads = gpu ? cu * 1024 : cu * 64;
    std::int64_t columns = g.outer * g.inner;
    std::int64_t max_chunks = std::max<std::int64_t>(1, g.extent / 64);
    chunks = std::clamp<std::int64_t>((target_threads + columns - 1) / columns, 1, max_chunks);
  }
  g.chunk = std::max<std::int64_t>(1, (g.extent + chunks - 1) / chunks);
  g.chunks = std::max<std::int64_t>(1, (g.extent + g.chunk - 1) / g.chunk);
  return g;
}

// Where a pass reads its values: the fused input tree, or the previous pass's partials.
struct Source {
  const ElementwisePlan* plan = nullptr;  // null: partials
  InputLayout layout;
};

KernelSource generate(const ReductionPlan& rp, const Source& src, bool final_out, bool row, std::size_t group,
                      bool wide, int unroll, const DialectText& d) {
  const DType value_t = src.plan ? src.plan->code[static_cast<std::size_t>(src.plan->result)].dtype : accumulator(
      rp.input.code[static_cast<std::size_t>(rp.input.result)].dtype);
  const DType acc_t = accumulator(value_t);
  const bool arg = is_arg(rp.op);
  const std::string idx = d.index_type(wide), i64 = d.compute_type(DType::int64);
  const std::string act = d.compute_type(acc_t);
  // A pass over the input folds positions in increasing order: the positions it keeps fit the
  // kernel's index type, widened to int64 when they leave the thread.
  const bool in_order = arg && src.plan;
  const std::string ait = in_order ? idx : i64;
  bool fp64 = acc_t == DType::float64 || rp.out_dtype == DType::float64 || (src.plan && plan_uses_fp64(*src.plan));
  std::string s = d.prelude(fp64, src.plan && plan_uses_random(*src.plan));

  std::vector<std::string> params;
  InputCode ic;
  if (src.plan) {
    ic = input_code(d, *src.plan, src.layout, "e", "      ");
    params = ic.params;
  } else {
    params.push_back(cat(d.global_ptr(acc_t), " qv"));
    if (arg) params.push_back(cat(d.global_ptr(DType::int64), " qi"));
  }
  if (final_out) {
    params.push_back(cat(d.global_out_ptr(rp.out_dtype), " out"));
    params.push_back(cat("const ", idx, " off_out"));
  } else {
    params.push_back(cat(d.global_out_ptr(acc_t), " pv"));
    if (arg) params.push_back(cat(d.global_out_ptr(DType::int64), " pi"));
  }
  for (const char* p : {"extent", "inner", "chunk", "chunks", "total"}) params.push_back(cat("const ", idx, " ", p));
  if (src.plan && src.layout.any_strided())
    for (auto& p : dim_params(d, *src.plan, wide)) params.push_back(p);

  s += cat(d.kernel_prefix(), "porta_reduce(", join(params, ", "), ") {\n", ic.uniform_loads);
  // The value (and axis index) at position (o, r, i).
  std::string value_code;
  std::string val = "val_", vidx = "r";
  if (src.plan) {
    value_code = cat("      const ", idx, " e = (o * extent + r) * inner + i;\n", ic.position_code,
                     emit_instructions(d, *src.plan, ic.reads, "e", ""), "      const ", act, " val_ = (", act, ")(v",
                     src.plan->result, ");\n");
  } else {
    value_code = cat("      const ", idx, " q_ = (o * extent + r) * inner + i;\n      const ", act, " val_ = ",
                     d.load(acc_t, "qv", "q_"), ";\n");
    if (arg) {
      value_code += cat("      const ", i64, " qi_ = qi[q_];\n");
      vidx = "qi_";
    }
  }
  auto fold_into = [&](const std::string& a, const std::string& ai) {
    if (in_order) return cat("      ", combine_in_order(rp.op, acc_t, a, ai, val, cat("(", ait, ")", vidx)), "\n");
    return cat("      ", combine(rp.op, acc_t, a, ai, val, arg ? cat("(", i64, ")", vidx) : "0"), "\n");
  };
  std::string fold = fold_into("acc", "ai");
  std::string write_pos = final_out ? "off_out + (o * inner + i)" : "((o * chunks + c) * inner + i)";
  auto write = [&](const std::string& a, const std::string& ai) {
    if (!final_out) {
      std::string w = d.store(acc_t, "pv", write_pos, a);
      if (arg) w += cat(" pi[", write_pos, "] = ", ai, ";");
      return w;
    }
    std::string v = arg ? ai : cat("(", d.compute_type(rp.out_dtype), ")(", a, ")");
    return d.store(rp.out_dtype, "out", write_pos, v);
  };

  if (row) {
    s += cat("  ", d.local_array(act, "sh_v", cat(group)), "\n");
    if (arg) s += cat("  ", d.local_array(i64, "sh_i", cat(group)), "\n");
    s += cat("  const ", idx, " lid = (", idx, ")", d.local_id(), ";\n  const ", idx, " grp = (", idx, ")", d.group_id(),
             ";\n  const ", idx, " o = grp / chunks;\n  const ", idx, " c = grp - o * chunks;\n  const ", idx,
             " i = 0;\n  const ", idx, " r0 = c * chunk;\n  ", idx, " r1 = r0 + chunk;\n  if (r1 > extent) r1 = extent;\n  ", act,
             " acc = ", identity(d, rp.op, acc_t), ";\n  ", ait, " ai = -1;\n  ", idx, " r = r0 + lid;\n");
    if (unroll > 1) {
      // `unroll` independent loads in flight per thread, each into its own accumulator, merged
      // in a fixed order afterwards.
      for (int k = 1; k < unroll; ++k)
        s += cat("  ", act, " acc_", k, " = ", identity(d, rp.op, acc_t), ";\n  ", ait, " ai_", k, " = -1;\n");
      s += cat("  for (; r + ", (unroll - 1) * static_cast<int>(group), " < r1; r += ", unroll * static_cast<int>(group), ") {\n");
      if (in_order) {
        // Every load first, then the folds (each a flag and two selects).
        for (int k = 0; k < unroll; ++k)
          s += cat("    ", act, " pv_", k, ";\n    { const ", idx, " rk_ = r + ", k * static_cast<int>(group), "; { const ", idx,
                   " r = rk_;\n", value_code, "      pv_", k, " = val_;\n    } }\n");
        for (int k = 0; k < unroll; ++k)
          s += cat("    ", combine_in_order(rp.op, acc_t, k == 0 ? "acc" : cat("acc_", k), k == 0 ? "ai" : cat("ai_", k),
                                            cat("pv_", k), cat("(", ait, ")(r + ", k * static_cast<int>(group), ")")),
                   "\n");
      } else {
        for (int k = 0; k < unroll; ++k)
          s += cat("    { const ", idx, " rk_ = r + ", k * static_cast<int>(group), "; { const ", idx, " r = rk_;\n", value_code,
                   k == 0 ? fold : fold_into(cat("acc_", k), cat("ai_", k)), "    } }\n");
      }
      s += "  }\n";
    }
    s += cat("  for (; r < r1; r += ", group, ") {\n", value_code, fold, "  }\n");
    if (in_order)
      for (int k = 0; k < unroll; ++k) {
        std::string first = cat("r0 + lid + ", k * static_cast<int>(group));
        s += cat("  ", in_order_first(k == 0 ? "ai" : cat("ai_", k), cat("(", ait, ")(", first, ")"), cat(first, " < r1")), "\n");
      }
    for (int k = 1; k < unroll; ++k)
      s += cat("  ", combine(rp.op, acc_t, "acc", "ai", cat("acc_", k), arg ? cat("ai_", k) : "0"), "\n");
    s += "  sh_v[lid] = acc;\n";
    if (arg) s += "  sh_i[lid] = ai;\n";
    s += cat("  ", d.barrier(), "\n  for (int h = ", group / 2, "; h > 0; h >>= 1) {\n    if (lid < h) {\n      ", act,
             " a = sh_v[lid];\n      ", i64, " aj = ", arg ? "sh_i[lid]" : "0", ";\n      ",
             combine(rp.op, acc_t, "a", "aj", "sh_v[lid + h]", arg ? "sh_i[lid + h]" : "0"), "\n      sh_v[lid] = a;\n");
    if (arg) s += "      sh_i[lid] = aj;\n";
    s += cat("    }\n    ", d.barrier(), "\n  }\n  if (lid == 0) {\n    ", write("sh_v[0]", arg ? "sh_i[0]" : "0"), "\n  }\n}\n");
  } else {
    s += cat("  const ", idx, " t = (", idx, ")", d.global_id(), ";\n  if (t >= total) return;\n  const ", idx,
             " i = t % inner;\n  const ", idx, " rest = t / inner;\n  const ", idx, " c = rest % chunks;\n  const ", idx,
             " o = rest / chunks;\n  const ", idx, " r0 = c * chunk;\n  ", idx, " r1 = r0 + chunk;\n  if (r1 > extent) r1 = extent;\n  ",
             act, " acc = ", identity(d, rp.op, acc_t), ";\n  ", ait, " ai = -1;\n  for (", idx, " r = r0; r < r1; ++r) {\n",
             value_code, fold, "  }\n", in_order ? cat("  ", in_order_first("ai", cat("(", ait, ")r0"), "r0 < r1"), "\n") : "",
             "  ", write("acc", "ai"), "\n}\n");
  }
  return {s, "porta_reduce", {}};
}

std::string reduce_key(const ReductionPlan& rp, const Source& src, bool final_out, bool row, std::size_t group, bool wide,
                       int unroll) {
  std::string k = key_cat("rd|", static_cast<int>(rp.op), "|", static_cast<int>(rp.out_dtype), "|", final_out ? 'f' : 'p', row ? 'r' : 'c',
                      group, wide ? 'w' : 'n', unroll, "|");
  if (src.plan) {
    append_all(k, src.plan->shape.size(), "|", src.layout.key(), "|");
    append_instruction_key(k, *src.plan);
  } else {
    append_all(k, "partials", static_cast<int>(rp.input.code[static_cast<std::size_t>(rp.input.result)].dtype));
  }
  return k;
}

// The interleaved style for CPU devices (PoCL): no local memory, no barriers, no loops with a
// data-dependent trip count, which PoCL's work-group vectoriser handles poorly. Work-item
// (o, c, i) folds the kLanes positions r = c + k * C (k < kLanes) of its output, so neighbouring
// work-items read neighbouring elements; C = ceil(extent / kLanes). Passes repeat on the partials
// until C is 1.
constexpr int kLanes = 16;

KernelSource generate_interleaved(const ReductionPlan& rp, const Source& src, bool final_out, bool wide, bool full_lanes,
                                  const DialectText& d) {
  // Integer division per work-item is what this kernel would spend most on: leave out the
  // divisions for a single row or column.
  const bool one_outer = rp.outer == 1, one_inner = rp.inner == 1;
  const DType value_t = src.plan ? src.plan->code[static_cast<std::size_t>(src.plan->result)].dtype
                                 : accumulator(rp.input.code[static_cast<std::size_t>(rp.input.result)].dtype);
  const DType acc_t = accumulator(value_t);
  const bool arg = is_arg(rp.op);
  const std::string idx = d.index_type(wide), i64 = d.compute_type(DType::int64), act = d.compute_type(acc_t);
  // The first pass sees each work-item's lanes in increasing position: combine_in_order, with
  // positions in the index type (see generate()).
  const bool in_order = arg && src.plan;
  const std::string ait = in_order ? idx : i64;
  auto fold = [&](const std::string& a, const std::string& ai, const std::string& v, const std::string& i) {
    return in_order ? combine_in_order(rp.op, acc_t, a, ai, v, i) : combine(rp.op, acc_t, a, ai, v, arg ? i : "0");
  };
  bool fp64 = acc_t == DType::float64 || rp.out_dtype == DType::float64 || (src.plan && plan_uses_fp64(*src.plan));
  std::string s = d.prelude(fp64, src.plan && plan_uses_random(*src.plan));
  std::vector<std::string> params;
  InputCode ic;
  if (src.plan) {
    ic = input_code(d, *src.plan, src.layout, "e", "      ");
    params = ic.params;
  } else {
    params.push_back(cat(d.global_ptr(acc_t), " qv"));
    if (arg) params.push_back(cat(d.global_ptr(DType::int64), " qi"));
  }
  if (final_out) {
    params.push_back(cat(d.global_out_ptr(rp.out_dtype), " out"));
    params.push_back(cat("const ", idx, " off_out"));
  } else {
    params.push_back(cat(d.global_out_ptr(acc_t), " pv"));
    if (arg) params.push_back(cat(d.global_out_ptr(DType::int64), " pi"));
  }
  for (const char* p : {"extent", "inner", "C", "base"}) params.push_back(cat("const ", idx, " ", p));
  if (src.plan && src.layout.any_strided())
    for (auto& p : dim_params(d, *src.plan, wide)) params.push_back(p);
  s += cat(d.kernel_prefix(), "porta_reduce_lanes(", join(params, ", "), ") {\n", ic.uniform_loads, "  const ", idx, " t = base + (", idx,
           ")", d.global_id(), ";\n");
  s += one_inner ? cat("  const ", idx, " i = 0;\n  const ", idx, " rest = t;\n")
                 : cat("  const ", idx, " i = t % inner;\n  const ", idx, " rest = t / inner;\n");
  s += one_outer ? cat("  const ", idx, " c = rest;\n  const ", idx, " o = 0;\n")
                 : cat("  const ", idx, " c = rest % C;\n  const ", idx, " o = rest / C;\n");
  s += cat("  ", act, " acc = ", identity(d, rp.op, acc_t), ";\n  ", ait, " ai = -1;\n");
  for (int k = 0; k < kLanes; ++k) {
    // With C >= kLanes every lane but the last is inside the extent, and its loads are plain
    // consecutive loads the vectoriser widens. Positions past the extent read the last element
    // (a clamped index, no branch around the load) and are left out of the fold by a select.
    bool guard = !full_lanes || k == kLanes - 1;
    s += cat("  {\n    const ", idx, " rk = c + ", k, " * C;\n    const ", idx, " r = ", guard ? "rk < extent ? rk : extent - 1" : "rk", ";\n");
    std::string v = "val_", vi = "(" + ait + ")r";
    if (src.plan) {
      s += cat("    const ", idx, " e = (o * extent + r) * inner + i;\n", ic.position_code, emit_instructions(d, *src.plan, ic.reads, "e", ""),
               "    const ", act, " val_ = (", act, ")(v", src.plan->result, ");\n");
    } else {
      s += cat("    const ", idx, " q_ = (o * extent + r) * inner + i;\n    const ", act, " val_ = ", d.load(acc_t, "qv", "q_"), ";\n");
      if (arg) {
        s += cat("    const ", i64, " qi_ = qi[q_];\n");
        vi = "qi_";
      }
    }
    if (guard)
      s += cat("    ", act, " na = acc;\n    ", ait, " nj = ai;\n    ", fold("na", "nj", v, vi),
               "\n    const bool in_ = rk < extent;\n    acc = in_ ? na : acc;\n    ai = in_ ? nj : ai;\n  }\n");
    else
      s += cat("    ", fold("acc", "ai", v, vi), "\n  }\n");
  }
  // Lane 0 (position c) is inside the extent for every work-item.
  if (in_order) s += cat("  ai = ai < 0 ? (", ait, ")c : ai;\n");
  std::string pos = "((o * C + c) * inner + i)";
  if (final_out) s += cat("  ", d.store(rp.out_dtype, "out", "off_out + " + pos, arg ? std::string("ai") : cat("(", d.compute_type(rp.out_dtype), ")(acc)")), "\n}\n");
  else s += cat("  ", d.store(acc_t, "pv", pos, "acc"), arg ? cat(" pi[", pos, "] = ai;") : std::string(), "\n}\n");
  return {s, "porta_reduce_lanes", {}};
}

// The first pass for CPU devices where the input is one contiguous array read as it is (no
// fused operations; sum, argmin, argmax; rows or the whole array): work-item w reads chunk c of
// row o, kVecChunk consecutive elements, with explicit 8-wide vector loads into two vector
// accumulators, and writes one partial (and its position). The work-items after the last full
// chunk of a row fold its tail one element at a time. Explicit vectors are SIMD code whatever
// PoCL's work-group vectoriser makes of a kernel: 2^24 float32 summed at 38-46 GB/s in this
// form against 12-13 GB/s for the interleaved lanes on the 2-core build machine. Sums add each
// vector lane's elements in order and then the lanes in a fixed tree: the same bits every run.
constexpr std::int64_t kVecChunk = 1024;

bool vector_pass_fits(const ReductionPlan& rp, const Source& src, const DialectText& d) {
  if (d.dialect != Dialect::opencl || !src.plan || rp.inner != 1 || rp.extent < 2 * kVecChunk) return false;
  const ElementwisePlan& p = *src.plan;
  if (p.code.size() != 1 || p.code[0].op != Op::load || p.result != 0 || p.inputs.size() != 1) return false;
  if (src.layout.access.size() != 1 || src.layout.access[0] != Access::contiguous || src.layout.wide) return false;
  if (rp.outer * rp.extent > 0x7ffffff0LL) return false;
  const DType t = p.inputs[0].dtype;
  if (rp.op == ReduceOp::sum) return t == DType::float32 || t == DType::float64 || t == DType::int64;
  if (is_arg(rp.op)) return t == DType::float32 || t == DType::int32;  // int8 masks and positions
  return false;
}

KernelSource generate_vector_pass(const ReductionPlan& rp, DType t, const DialectText& d) {
  const bool arg = is_arg(rp.op);
  const std::string T = d.compute_type(t), T8 = T + "8", T4 = T + "4", T2 = T + "2";
  const std::string id = identity(d, rp.op, t);
  std::string s = d.prelude(t == DType::float64, false);
  s += cat(d.kernel_prefix(), "porta_reduce_vec(", d.global_ptr(t), " in0, const int off0, ", d.global_out_ptr(t), " pv, ",
           arg ? cat(d.global_out_ptr(DType::int64), " pi, ") : std::string(),
           "const int extent, const int P, const int full, const int total) {\n"
           "  const int w = (int)", d.global_id(), ";\n  if (w >= total) return;\n  const int o = w / P;\n  const int c = w - o * P;\n",
           "  ", d.global_ptr(t), " p = in0 + off0 + o * extent;\n  const int r0 = c * ", kVecChunk, ";\n  ", T, " acc;\n");
  if (arg) s += "  int ai;\n";
  s += "  if (c < full) {\n";
  const int steps = static_cast<int>(kVecChunk / 16);
  if (!arg) {
    s += cat("    ", T8, " a0 = (", T8, ")(", d.literal(0, t), "), a1 = a0;\n    for (int j = 0; j < ", steps,
             "; ++j) {\n      a0 += vload8(2 * j, p + r0);\n      a1 += vload8(2 * j + 1, p + r0);\n    }\n    const ", T8,
             " a8 = a0 + a1;\n    const ", T4, " a4 = a8.lo + a8.hi;\n    const ", T2, " a2 = a4.lo + a4.hi;\n    acc = a2.x + a2.y;\n");
  } else {
    const bool mx = rp.op == ReduceOp::argmax;
    auto better = [&](const std::string& v, const std::string& a) {
      if (is_floating(t)) return cat("(!(", v, mx ? " <= " : " >= ", a, ") & (", a, " == ", a, "))");
      return cat("(", v, mx ? " > " : " < ", a, ")");
    };
    s += cat("    ", T8, " a0 = (", T8, ")(", id, "), a1 = a0;\n    int8 i0 = (int8)(-1), i1 = i0;\n",
             "    const int8 lane = (int8)(0, 1, 2, 3, 4, 5, 6, 7);\n    for (int j = 0; j < ", steps, "; ++j) {\n",
             "      const int pos = r0 + 16 * j;\n      const ", T8, " v0 = vload8(2 * j, p + r0), v1 = vload8(2 * j + 1, p + r0);\n",
             "      const int8 b0 = ", better("v0", "a0"), ", b1 = ", better("v1", "a1"), ";\n",
             "      a0 = select(a0, v0, b0);\n      i0 = select(i0, (int8)(pos) + lane, b0);\n",
             "      a1 = select(a1, v1, b1);\n      i1 = select(i1, (int8)(pos + 8) + lane, b1);\n    }\n",
             // A lane that saw only identity values takes its first position (combine_in_order).
             "    i0 = select(i0, (int8)(r0) + lane, i0 < 0);\n    i1 = select(i1, (int8)(r0 + 8) + lane, i1 < 0);\n",
             "");
    // The lanes merged in a fixed tree of vector halves (8 + 8, then 4 + 4, 2 + 2), each a
    // branch-free choice: the better value, or on a tie the smaller position; NaN first.
    auto pick = [&](const std::string& v, const std::string& vi, const std::string& a, const std::string& ai) {
      std::string order = mx ? " > " : " < ";
      if (is_floating(t))
        return cat("((isnan(", v, ") & (!isnan(", a, ") | (", vi, " < ", ai, "))) | (!isnan(", v, ") & !isnan(", a, ") & ((", v,
                   order, a, ") | ((", v, " == ", a, ") & (", vi, " < ", ai, ")))))");
      return cat("((", v, order, a, ") | ((", v, " == ", a, ") & (", vi, " < ", ai, ")))");
    };
    s += cat("    { const int8 t_ = ", pick("a1", "i1", "a0", "i0"), "; a0 = select(a0, a1, t_); i0 = select(i0, i1, t_); }\n",
             "    ", T4, " a4 = a0.lo; int4 i4 = i0.lo;\n    { const ", T4, " h = a0.hi; const int4 hi = i0.hi; const int4 t_ = ",
             pick("h", "hi", "a4", "i4"), "; a4 = select(a4, h, t_); i4 = select(i4, hi, t_); }\n",
             "    ", T2, " a2 = a4.lo; int2 i2 = i4.lo;\n    { const ", T2, " h = a4.hi; const int2 hi = i4.hi; const int2 t_ = ",
             pick("h", "hi", "a2", "i2"), "; a2 = select(a2, h, t_); i2 = select(i2, hi, t_); }\n",
             "    acc = a2.x;\n    ai = i2.x;\n    ", combine(rp.op, t, "acc", "ai", "a2.y", "i2.y"), "\n");
  }
  s += cat("  } else {\n    acc = ", arg ? id : d.literal(0, t), ";\n");
  if (arg) s += "    ai = -1;\n";
  s += "    for (int r = r0; r < extent; ++r) {\n";
  s += arg ? cat("      ", combine_in_order(rp.op, t, "acc", "ai", "p[r]", "r"), "\n    }\n    if (ai < 0) ai = r0;\n")
           : "      acc += p[r];\n    }\n";
  s += "  }\n  pv[w] = acc;\n";
  if (arg) s += "  pi[w] = (long)ai;\n";
  s += "}\n";
  return {s, "porta_reduce_vec", {}};
}

// argmin/argmax of a whole array (one row) at the cost of max: the vector pass keeps only each
// full chunk's extreme (NaN when the chunk holds one) and names the chunk by its first position;
// the interleaved passes then pick the first chunk holding the overall answer (ties go to the
// smaller position, so to the earlier chunk, which holds the first occurrence); and one work-item
// scans that chunk's 1024 elements for the first position of it (refine). The tail chunk folds
// its positions exactly, as in generate_vector_pass.
KernelSource generate_vector_extreme_pass(const ReductionPlan& rp, DType t, const DialectText& d) {
  const bool mx = rp.op == ReduceOp::argmax, fl = is_floating(t);
  const std::string T = d.compute_type(t), T8 = T + "8", T4 = T + "4", T2 = T + "2";
  // NaN is tracked apart (a chunk holding one gives NaN, v != v: isnan cost more on PoCL), so the
  // extreme is a compare and a select (fmax would test NaN again; OpenCL's float max/min leave
  // infinities undefined). Integers: max/min.
  auto ext = [&](const std::string& a, const std::string& b) {
    return fl ? cat("select(", a, ", ", b, ", ", b, mx ? " > " : " < ", a, ")") : cat(mx ? "max(" : "min(", a, ", ", b, ")");
  };
  const std::string id = identity(d, rp.op, t);
  std::string s = d.prelude(false, false);
  s += cat(d.kernel_prefix(), "porta_reduce_vecext(", d.global_ptr(t), " in0, const int off0, ", d.global_out_ptr(t), " pv, ",
           d.global_out_ptr(DType::int64), " pi, const int extent, const int P, const int full, const int total) {\n  const int c = (int)",
           d.global_id(), ";\n  if (c >= total) return;\n  ", d.global_ptr(t), " p = in0 + off0;\n  const int r0 = c * ", kVecChunk,
           ";\n  ", T, " acc;\n  int ai;\n  if (c < full) {\n    ", T8, " m0 = (", T8, ")(", id, "), m1 = m0;\n");
  if (fl) s += "    int8 n = (int8)(0);\n";
  s += cat("    for (int j = 0; j < ", kVecChunk / 16, "; ++j) {\n      const ", T8, " v0 = vload8(2 * j, p + r0), v1 = vload8(2 * j + 1, p + r0);\n",
           "      m0 = ", ext("m0", "v0"), ";\n      m1 = ", ext("m1", "v1"), ";\n", fl ? "      n |= (v0 != v0) | (v1 != v1);\n" : "",
           "    }\n    const ", T8, " m = ", ext("m0", "m1"), ";\n    const ", T4, " m4 = ", ext("m.lo", "m.hi"), ";\n    const ", T2,
           " m2 = ", ext("m4.lo", "m4.hi"), ";\n    acc = ", fl ? cat("(m2.y", mx ? " > " : " < ", "m2.x) ? m2.y : m2.x") : ext("m2.x", "m2.y"),
           ";\n");
  if (fl) s += "    if (any(n)) acc = as_float(0x7fc00000u);\n";
  s += cat("    ai = r0;\n  } else {\n    acc = ", id, ";\n    ai = -1;\n    for (int r = r0; r < extent; ++r) {\n      ",
           combine_in_order(rp.op, t, "acc", "ai", "p[r]", "r"), "\n    }\n    if (ai < 0) ai = r0;\n  }\n  pv[c] = acc;\n  pi[c] = (long)ai;\n}\n");
  return {s, "porta_reduce_vecext", {}};
}

// The last step of generate_vector_extreme_pass: the first position of the answer inside the
// full chunk the other passes chose (a position in the tail is exact already).
KernelSource generate_refine(const ReductionPlan& rp, DType t, const DialectText& d) {
  std::string s = d.prelude(false, false);
  s += cat(d.kernel_prefix(), "porta_reduce_refine(", d.global_ptr(t), " in0, const int off0, ", d.global_out_ptr(DType::int64),
           " out, const int off_out, const int full) {\n  if (", d.global_id(), " != 0) return;\n  ", d.global_ptr(t),
           " p = in0 + off0;\n  const long at = out[off_out];\n  if (at % ", kVecChunk, " != 0 || at / ", kVecChunk,
           " >= full) return;\n  const int r0 = (int)at;\n  ", d.compute_type(t), " acc = ", identity(d, rp.op, t), ";\n  int ai = -1;\n",
           "  for (int r = r0; r < r0 + ", kVecChunk, "; ++r) {\n    ", combine_in_order(rp.op, t, "acc", "ai", "p[r]", "r"),
           "\n  }\n  out[off_out] = ai < 0 ? (long)r0 : (long)ai;\n}\n");
  return {s, "porta_reduce_refine", {}};
}

// The same for columns (inner > 1, a multiple of 16; sum only): work-item w sums 16 consecutive
// columns (two 8-wide vectors, one 64-byte line a row) over a chunk of kVecRows rows, in row
// order, and stores the 16 partials where the interleaved passes read them ([outer, P, inner]).
constexpr std::int64_t kVecRows = 64;

bool column_vector_pass_fits(const ReductionPlan& rp, const Source& src, const DialectText& d) {
  if (d.dialect != Dialect::opencl || !src.plan || rp.op != ReduceOp::sum || rp.inner < 16 || rp.inner % 16 != 0 || rp.extent < 2 * kVecRows) return false;
  const ElementwisePlan& p = *src.plan;
  if (p.code.size() != 1 || p.code[0].op != Op::load || p.result != 0 || p.inputs.size() != 1) return false;
  if (src.layout.access.size() != 1 || src.layout.access[0] != Access::contiguous || src.layout.wide) return false;
  if (rp.outer * rp.extent * rp.inner > 0x7ffffff0LL) return false;
  const DType t = p.inputs[0].dtype;
  return t == DType::float32 || t == DType::float64 || t == DType::int64;
}

KernelSource generate_column_vector_pass(DType t, const DialectText& d) {
  const std::string T = d.compute_type(t), T8 = T + "8";
  std::string s = d.prelude(t == DType::float64, false);
  s += cat(d.kernel_prefix(), "porta_reduce_colvec(", d.global_ptr(t), " in0, const int off0, ", d.global_out_ptr(t),
           " pv, const int extent, const int inner, const int P, const int total) {\n  const int w = (int)", d.global_id(),
           ";\n  if (w >= total) return;\n  const int blocks = inner / 16;\n  const int b = w % blocks;\n  const int rest = w / blocks;\n"
           "  const int c = rest % P;\n  const int o = rest / P;\n  int r1 = (c + 1) * ", kVecRows, ";\n  if (r1 > extent) r1 = extent;\n  ",
           d.global_ptr(t), " p = in0 + off0 + o * extent * inner + b * 16;\n  ", T8, " a0 = (", T8, ")(", d.literal(0, t),
           "), a1 = a0;\n  for (int r = c * ", kVecRows, "; r < r1; ++r) {\n    a0 += vload8(0, p + r * inner);\n"
           "    a1 += vload8(1, p + r * inner);\n  }\n  ", d.global_out_ptr(t), " q = pv + (o * P + c) * inner + b * 16;\n"
           "  vstore8(a0, 0, q);\n  vstore8(a1, 1, q);\n}\n");
  return {s, "porta_reduce_colvec", {}};
}

// Runs the interleaved passes; partials alternate between two buffers.
void run_interleaved(DeviceImpl& device, const std::shared_ptr<QueueImpl>& qp, const ReductionPlan& rp) {
  const DeviceInfo& info = device.info();
  DialectText d{info.dialect};
  DType acc_t = accumulator(rp.input.code[static_cast<std::size_t>(rp.input.result)].dtype);
  const bool arg = is_arg(rp.op);
  std::int64_t extent = rp.extent;
  Source src{&rp.input, analyse_inputs(rp.input)};
  Handle qv = nullptr, qi = nullptr;
  std::vector<std::pair<Handle, std::size_t>> held;
  auto release = [&] {
    for (auto& [h, bytes] : held) release_memory(device, h, bytes, qp);
  };
  bool extreme_first = false;  // generate_vector_extreme_pass: a refine step follows the last pass
  std::int64_t refine_full = 0;
  try {
    if (vector_pass_fits(rp, src, d)) {
      const DType t = rp.input.inputs[0].dtype;
      const std::int64_t full = rp.extent / kVecChunk, P = full + (rp.extent % kVecChunk ? 1 : 0), total = rp.outer * P;
      extreme_first = arg && rp.outer == 1;
      std::string key = key_cat(extreme_first ? "rvx|" : "rv|", static_cast<int>(rp.op), "|", static_cast<int>(t));
      auto kernel = device.state().kernels().get(
          key, [&] { return extreme_first ? generate_vector_extreme_pass(rp, t, d) : generate_vector_pass(rp, t, d); });
      refine_full = full;
      const std::size_t count = static_cast<std::size_t>(total);
      Handle pv = allocate_memory(device, count * itemsize(t), *qp);
      held.emplace_back(pv, count * itemsize(t));
      Handle pi = nullptr;
      if (arg) {
        pi = allocate_memory(device, count * 8, *qp);
        held.emplace_back(pi, count * 8);
      }
      KernelArgs args(false);
      args.memory(rp.input.inputs[0].handle);
      args.index(rp.input.inputs[0].offset);
      args.memory(pv);
      if (arg) args.memory(pi);
      for (std::int64_t v : {rp.extent, P, full, total}) args.index(v);
      LaunchDims dims;
      dims.global[0] = static_cast<std::size_t>((total + 63) / 64 * 64);
      dims.local[0] = 0;
      device.launch(*qp, *kernel, dims, args.args());
      src = Source{nullptr, {}};
      qv = pv;
      qi = pi;
      extent = P;
    } else if (column_vector_pass_fits(rp, src, d)) {
      const DType t = rp.input.inputs[0].dtype;
      const std::int64_t P = (rp.extent + kVecRows - 1) / kVecRows, total = rp.outer * P * (rp.inner / 16);
      auto kernel = device.state().kernels().get(key_cat("rcv|", static_cast<int>(t)),
                                                   [&] { return generate_column_vector_pass(t, d); });
      const std::size_t count = static_cast<std::size_t>(rp.outer * P * rp.inner);
      Handle pv = allocate_memory(device, count * itemsize(t), *qp);
      held.emplace_back(pv, count * itemsize(t));
      KernelArgs args(false);
      args.memory(rp.input.inputs[0].handle);
      args.index(rp.input.inputs[0].offset);
      args.memory(pv);
      for (std::int64_t v : {rp.extent, rp.inner, P, total}) args.index(v);
      LaunchDims dims;
      dims.global[0] = static_cast<std::size_t>((total + 63) / 64 * 64);
      dims.local[0] = 0;
      device.launch(*qp, *kernel, dims, args.args());
      src = Source{nullptr, {}};
      qv = pv;
      extent = P;
    }
    while (true) {
      std::int64_t C = (extent + kLanes - 1) / kLanes;
      bool final_out = C == 1;
      std::int64_t total = rp.outer * C * rp.inner;
      bool wide = (src.plan && src.layout.wide) || rp.outer * extent * rp.inner > 0x7ffffff0LL || rp.out_offset + total > 0x7ffffff0LL;
      bool full_lanes = C >= kLanes;
      std::string key = key_cat("rl|", static_cast<int>(rp.op), "|", static_cast<int>(rp.out_dtype), "|", final_out ? 'f' : 'p',
                                wide ? 'w' : 'n', rp.outer == 1 ? 'O' : 'o', rp.inner == 1 ? 'I' : 'i', full_lanes ? 'F' : 'g', "|");
      if (src.plan) {
        append_all(key, src.plan->shape.size(), "|", src.layout.key(), "|");
        append_instruction_key(key, *src.plan);
      } else {
        append_all(key, "partials", static_cast<int>(acc_t));
      }
      auto kernel = device.state().kernels().get(key, [&] { return generate_interleaved(rp, src, final_out, wide, full_lanes, d); });
      Handle pv = nullptr, pi = nullptr;
      std::size_t count = static_cast<std::size_t>(total);
      if (!final_out) {
        pv = allocate_memory(device, count * itemsize(acc_t), *qp);
        held.emplace_back(pv, count * itemsize(acc_t));
        if (arg) {
          pi = allocate_memory(device, count * 8, *qp);
          held.emplace_back(pi, count * 8);
        }
      }
      KernelArgs args(wide);
      if (src.plan) {
        push_input_args(args, *src.plan, src.layout);
      } else {
        args.memory(qv);
        if (arg) args.memory(qi);
      }
      if (final_out) {
        args.memory(rp.out);
        args.index(rp.out_offset);
      } else {
        args.memory(pv);
        if (arg) args.memory(pi);
      }
      for (std::int64_t v : {extent, rp.inner, C}) args.index(v);
      // One work-item per output, launched as a multiple of 256 then the rest (no bounds test).
      std::int64_t main_part = total / 256 * 256;
      for (auto [base, count_part] : {std::pair{std::int64_t{0}, main_part}, std::pair{main_part, total - main_part}}) {
        if (count_part == 0) continue;
        KernelArgs part = args;
        part.index(base);
        if (src.plan && src.layout.any_strided())
          for (auto sh : src.plan->shape) part.index(sh);
        LaunchDims dims;
        dims.global[0] = static_cast<std::size_t>(count_part);
        dims.local[0] = 0;
        device.launch(*qp, *kernel, dims, part.args());
      }
      if (final_out) {
        if (extreme_first) {
          const DType t = rp.input.inputs[0].dtype;
          auto refine = device.state().kernels().get(key_cat("rvr|", static_cast<int>(rp.op), "|", static_cast<int>(t)),
                                                       [&] { return generate_refine(rp, t, d); });
          KernelArgs r(false);
          r.memory(rp.input.inputs[0].handle);
          r.index(rp.input.inputs[0].offset);
          r.memory(rp.out);
          r.index(rp.out_offset);
          r.index(refine_full);
          LaunchDims one;
          one.global[0] = 1;
          one.local[0] = 1;
          device.launch(*qp, *refine, one, r.args());
        }
        break;
      }
      src = Source{nullptr, {}};
      qv = pv;
      qi = pi;
      extent = C;
    }
  } catch (...) {
    release();
    throw;
  }
  release();
}

// One pass: `extent` positions per output reduced in `chunks` chunks of `chunk`.
void launch_pass(DeviceImpl& device, QueueImpl& q, const ReductionPlan& rp, const Source& src, const Geometry& g,
                 std::int64_t extent, std::int64_t chunks, std::int64_t chunk, bool final_out, Handle pv, Handle pi,
                 Handle qv, Handle qi) {
  const DeviceInfo& info = device.info();
  DialectText d{info.dialect};
  std::int64_t total = g.outer * chunks * g.inner;
  bool wide = (src.plan && src.layout.wide) || g.outer * extent * g.inner > 0x7ffffff0LL || total * static_cast<std::int64_t>(g.group) > 0x7ffffff0LL ||
              rp.out_offset + g.outer * g.inner > 0x7ffffff0LL;
  // GPUs need several loads in flight per thread to reach their memory bandwidth.
  int unroll = (g.row && info.launch.grid_stride) ? 4 : 1;
  std::string key = reduce_key(rp, src, final_out, g.row, g.group, wide, unroll);
  auto kernel = device.state().kernels().get(key, [&] { return generate(rp, src, final_out, g.row, g.group, wide, unroll, d); });
  KernelArgs args(wide);
  if (src.plan) {
    push_input_args(args, *src.plan, src.layout);
  } else {
    args.memory(qv);
    if (is_arg(rp.op)) args.memory(qi);
  }
  if (final_out) {
    args.memory(rp.out);
    args.index(rp.out_offset);
  } else {
    args.memory(pv);
    if (is_arg(rp.op)) args.memory(pi);
  }
  for (std::int64_t v : {extent, g.inner, chunk, chunks, total}) args.index(v);
  if (src.plan && src.layout.any_strided())
    for (auto s : src.plan->shape) args.index(s);
  LaunchDims dims;
  if (g.row) {
    dims.global[0] = static_cast<std::size_t>(g.outer * chunks) * g.group;
  } else {
    dims.global[0] = (static_cast<std::size_t>(total) + g.group - 1) / g.group * g.group;
  }
  dims.local[0] = g.group;
  device.launch(q, *kernel, dims, args.args());
}

}  // namespace

void run_reduction(DeviceImpl& device, const std::shared_ptr<QueueImpl>& qp, const ReductionPlan& rp) {
  QueueImpl& q = *qp;
  if (rp.outer * rp.inner == 0) return;
  const DeviceInfo& info = device.info();
  if (info.dialect == Dialect::none) {
    device.execute(q, rp);
    return;
  }
  if (!info.launch.grid_stride && rp.extent > 0) {
    run_interleaved(device, qp, rp);
    return;
  }
  Geometry g = choose_geometry(rp, info);
  Source first{&rp.input, analyse_inputs(rp.input)};
  if (g.chunks == 1) {
    launch_pass(device, q, rp, first, g, g.extent, 1, std::max<std::int64_t>(g.extent, 1), true, nullptr, nullptr, nullptr,
                nullptr);
    return;
  }
  DType acc_t = accumulator(rp.input.code[static_cast<std::size_t>(rp.input.result)].dtype);
  std::size_t count = static_cast<std::size_t>(g.outer * g.chunks * g.inner);
  std::size_t vbytes = count * itemsize(acc_t), ibytes = is_arg(rp.op) ? count * 8 : 0;
  Handle pv = allocate_memory(device, vbytes, q);
  Handle pi = ibytes ? allocate_memory(device, ibytes, q) : nullptr;
  auto release = [&] {
    // Stream-ordered: other queues reuse the partials only after this queue's second pass.
    release_memory(device, pv, vbytes, qp);
    if (pi) release_memory(device, pi, ibytes, qp);
  };
  try {
    launch_pass(device, q, rp, first, g, g.extent, g.chunks, g.chunk, false, pv, pi, nullptr, nullptr);
    Source partials{nullptr, {}};
    launch_pass(device, q, rp, partials, g, g.chunks, 1, g.chunks, true, nullptr, nullptr, pv, pi);
  } catch (...) {
    release();
    throw;
  }
  release();
}

}  // namespace porta::detail
