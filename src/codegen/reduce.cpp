// Reduction kernels. The input tree is fused into the first pass. Layout: the input in linear
// order is [outer, extent, inner]. With inner == 1 ("row") a work-group reduces a chunk of one
// row and combines its threads in local memory in a fixed tree; with inner > 1 ("column") each
// thread loops over a chunk of one column. When there are too few rows or columns to fill the
// device, the extent is split into chunks whose partial results a second pass combines. Every
// order is fixed by the launch shape, so results are the same bits on every run.
#include <algorithm>
#include <initializer_list>
#include <iterator>

#include "runtime/caching_allocator.hpp"
#include "codegen/codegen.hpp"
#include "codegen/layout.hpp"
#include "codegen/reduce_text.hpp"
#include "runtime/device_state.hpp"
#include "runtime/kernel_args.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {
namespace {

using namespace reduce_text;

// After a combine_in_order run: an accumulator still at -1 saw only values equal to the
// identity (or nothing): its first position `first`, when that exists (`exists`), holds one of
// them and is the answer. (A position another accumulator also claims this way ties at the
// identity, and combine() then keeps the smaller position or the better value.)
std::string in_order_first(const std::string& ai, const std::string& first, const std::string& exists) {
  return cat("if (", ai, " < 0 && ", exists, ") ", ai, " = ", first, ";");
}

// Value `e` of dtype `from` as `to`: a C cast, but none between equal dtypes (OpenCL C casts no
// struct, the complex values', not even to its own type).
std::string converted(const DialectText& d, DType from, DType to, const std::string& e) {
  if (from == to) return e;
  return cat("(", d.compute_type(to), ")(", e, ")");
}

struct Geometry {
  bool row = true;
  std::int64_t outer = 1, extent = 1, inner = 1, chunks = 1, chunk = 1;
  std::size_t group = 256;
};

// GPU reductions along rows, for tuning on each GPU (porta-bench's sum, sum_rows, argmax rows):
// PORTA_REDUCE_GROUPS, the work-groups a compute unit the chunks aim for, and
// PORTA_REDUCE_UNROLL, a work-item's loads in flight. Read once (reductions are on every small
// op's path); each value is its own kernel and its own fixed order.
int reduce_groups_per_unit() {
  static const int groups = *setting_int("PORTA_REDUCE_GROUPS");
  return groups;
}
int reduce_unroll() {
  static const int unroll = *setting_int("PORTA_REDUCE_UNROLL");
  return unroll;
}

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
    std::int64_t target_groups = gpu ? cu * reduce_groups_per_unit() : cu * 4;
    std::int64_t max_chunks = std::max<std::int64_t>(1, g.extent / (static_cast<std::int64_t>(g.group) * 4));
    chunks = std::clamp<std::int64_t>((target_groups + g.outer - 1) / g.outer, 1, max_chunks);
  } else {
    std::int64_t target_threads = gpu ? cu * 1024 : cu * 64;
    std::int64_t columns = g.outer * g.inner;
    std::int64_t max_chunks = std::max<std::int64_t>(1, g.extent / 64);
    chunks = std::clamp<std::int64_t>((target_threads + columns - 1) / columns, 1, max_chunks);
  }
  g.chunk = std::max<std::int64_t>(1, (g.extent + chunks - 1) / chunks);
  // GPUs: chunks of whole tiles of a work-group's unrolled loads (group x unroll x 4 elements,
  // so also whole 4-vectors for the vector first pass of arg reductions, vector_arg_fits): every
  // chunk of a row starts where its loads are aligned as the row's start is, and no work-group
  // ends in a remainder loop. (2^28 float32 on 132 units had chunks of 63551 elements, each
  // group's loads straddling 32-byte sectors.)
  if (g.row && gpu && g.chunk < g.extent) {
    const std::int64_t tile = static_cast<std::int64_t>(g.group) * reduce_unroll() * 4;
    g.chunk = (g.chunk + tile - 1) / tile * tile;
  }
  g.chunks = std::max<std::int64_t>(1, (g.extent + g.chunk - 1) / g.chunk);
  return g;
}


KernelSource generate(const ReductionPlan& rp, const Source& src, bool final_out, bool row, std::size_t group,
                      bool wide, int unroll, int vec, const DialectText& d) {
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
  bool fp64 = acc_t == DType::float64 || acc_t == DType::complex128 || rp.out_dtype == DType::float64 ||
              rp.out_dtype == DType::complex128 || (src.plan && plan_uses_fp64(*src.plan));
  std::string s = d.prelude(fp64, src.plan && plan_uses_random(*src.plan),
                            is_complex(acc_t) || is_complex(rp.out_dtype) || (src.plan && plan_uses_complex(*src.plan)));

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
                     emit_instructions(d, *src.plan, ic.reads, "e", ""), "      const ", act, " val_ = ",
                     converted(d, value_t, acc_t, cat("v", src.plan->result)), ";\n");
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
    std::string v = arg ? ai : converted(d, acc_t, rp.out_dtype, a);
    return d.store(rp.out_dtype, "out", write_pos, v);
  };

  if (row) {
    s += cat("  ", d.local_array(act, "sh_v", cat(group)), "\n");
    if (arg) s += cat("  ", d.local_array(i64, "sh_i", cat(group)), "\n");
    s += cat("  const ", idx, " lid = (", idx, ")", d.local_id(), ";\n  const ", idx, " grp = (", idx, ")", d.group_id(),
             ";\n  const ", idx, " o = grp / chunks;\n  const ", idx, " c = grp - o * chunks;\n  const ", idx,
             " i = 0;\n  const ", idx, " r0 = c * chunk;\n  ", idx, " r1 = r0 + chunk;\n  if (r1 > extent) r1 = extent;\n  ", act,
             " acc = ", identity(d, rp.op, acc_t), ";\n  ", ait, " ai = -1;\n  ", idx, " r = r0 + lid;\n");
    if (vec > 1) {
      // Arg reductions of one contiguous array (vector_arg_fits): each work-item reads `vec`
      // consecutive values a load, `unroll` loads in flight, accumulator k folding the lanes of
      // load k in order; the loop then goes on one vector at a time, and the lanes past the last
      // whole vector one at a time into acc.
      const int span = vec * static_cast<int>(group);
      const std::string vt = cat(d.compute_type(acc_t), vec), lanes[] = {"x", "y", "z", "w"};
      auto vload = [&](const std::string& at) {
        return d.cuda() ? cat("*(const ", vt, "*)(in0 + off0 + ", at, ")") : cat("vload", vec, "(0, in0 + off0 + ", at, ")");
      };
      s += cat("  r = r0 + lid * ", vec, ";\n");
      for (int k = 1; k < unroll; ++k)
        s += cat("  ", act, " acc_", k, " = ", identity(d, rp.op, acc_t), ";\n  ", ait, " ai_", k, " = -1;\n");
      s += cat("  for (; r + ", (unroll - 1) * span + vec - 1, " < r1; r += ", unroll * span, ") {\n");
      for (int k = 0; k < unroll; ++k) s += cat("    const ", vt, " pv_", k, " = ", vload(cat("o * extent + r + ", k * span)), ";\n");
      for (int k = 0; k < unroll; ++k)
        for (int j = 0; j < vec; ++j)
          s += cat("    ", combine_in_order(rp.op, acc_t, k == 0 ? "acc" : cat("acc_", k), k == 0 ? "ai" : cat("ai_", k),
                                            cat("pv_", k, ".", lanes[j]), cat("(", ait, ")(r + ", k * span + j, ")")), "\n");
      s += cat("  }\n  for (; r + ", vec - 1, " < r1; r += ", span, ") {\n    const ", vt, " pv_ = ", vload("o * extent + r"), ";\n");
      for (int j = 0; j < vec; ++j)
        s += cat("    ", combine_in_order(rp.op, acc_t, "acc", "ai", cat("pv_.", lanes[j]), cat("(", ait, ")(r + ", j, ")")), "\n");
      s += "  }\n";
      for (int j = 0; j < vec - 1; ++j)
        s += cat("  if (r + ", j, " < r1) { const ", act, " v_ = ", d.load(acc_t, "in0", cat("off0 + o * extent + r + ", j)), "; ",
                 combine_in_order(rp.op, acc_t, "acc", "ai", "v_", cat("(", ait, ")(r + ", j, ")")), " }\n");
      for (int k = 0; k < unroll; ++k) {
        std::string first = cat("r0 + lid * ", vec, " + ", k * span);
        s += cat("  ", in_order_first(k == 0 ? "ai" : cat("ai_", k), cat("(", ait, ")(", first, ")"), cat(first, " < r1")), "\n");
      }
    } else if (unroll > 1) {
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
    if (vec == 1) s += cat("  for (; r < r1; r += ", group, ") {\n", value_code, fold, "  }\n");
    if (in_order && vec == 1)
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
                       int unroll, int vec) {
  std::string k = key_cat("rd|", static_cast<int>(rp.op), "|", static_cast<int>(rp.out_dtype), "|", final_out ? 'f' : 'p', row ? 'r' : 'c',
                      group, wide ? 'w' : 'n', unroll, "v", vec, "|");
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
  bool fp64 = acc_t == DType::float64 || acc_t == DType::complex128 || rp.out_dtype == DType::float64 ||
              rp.out_dtype == DType::complex128 || (src.plan && plan_uses_fp64(*src.plan));
  std::string s = d.prelude(fp64, src.plan && plan_uses_random(*src.plan),
                            is_complex(acc_t) || is_complex(rp.out_dtype) || (src.plan && plan_uses_complex(*src.plan)));
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
               "    const ", act, " val_ = ", converted(d, value_t, acc_t, cat("v", src.plan->result)), ";\n");
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
  if (final_out) s += cat("  ", d.store(rp.out_dtype, "out", "off_out + " + pos, arg ? std::string("ai") : converted(d, acc_t, rp.out_dtype, "acc")), "\n}\n");
  else s += cat("  ", d.store(acc_t, "pv", pos, "acc"), arg ? cat(" pi[", pos, "] = ai;") : std::string(), "\n}\n");
  return {s, "porta_reduce_lanes", {}};
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
  // The CPU vector passes: the input, the partial values (and indices, for arg reductions), then
  // the pass's sizes, the last of which is its number of work-items.
  auto launch_first_pass = [&](Kernel& kernel, Handle pv, Handle pi, std::initializer_list<std::int64_t> sizes) {
    KernelArgs args(false);
    args.memory(rp.input.inputs[0].handle);
    args.index(rp.input.inputs[0].offset);
    args.memory(pv);
    if (pi) args.memory(pi);
    for (std::int64_t v : sizes) args.index(v);
    LaunchDims dims;
    dims.global[0] = static_cast<std::size_t>((*std::prev(sizes.end()) + 63) / 64 * 64);
    dims.local[0] = 0;
    device.launch(*qp, kernel, dims, args.args());
  };
  bool extreme_first = false;  // an arg op's generate_vector_extreme_pass: a refine step follows the last pass
  std::int64_t refine_full = 0;
  try {
    if (vector_pass_fits(rp, src, d)) {
      const DType t = rp.input.inputs[0].dtype;
      const std::int64_t full = rp.extent / kVecChunk, P = full + (rp.extent % kVecChunk ? 1 : 0), total = rp.outer * P;
      const bool extreme = vector_pass_extreme(rp);
      extreme_first = extreme && arg;
      std::string key = key_cat(extreme ? "rvx|" : "rv|", static_cast<int>(rp.op), "|", static_cast<int>(t));
      auto kernel = device.state().kernels().get(
          key, [&] { return extreme ? generate_vector_extreme_pass(rp, t, d) : generate_vector_pass(rp, t, d); });
      refine_full = full;
      const std::size_t count = static_cast<std::size_t>(total);
      Handle pv = allocate_memory(device, count * itemsize(t), *qp);
      held.emplace_back(pv, count * itemsize(t));
      Handle pi = nullptr;
      if (arg) {
        pi = allocate_memory(device, count * 8, *qp);
        held.emplace_back(pi, count * 8);
      }
      launch_first_pass(*kernel, pv, pi, {rp.extent, P, full, total});
      src = Source{nullptr, {}};
      qv = pv;
      qi = pi;
      extent = P;
    } else if (column_vector_pass_fits(rp, src, d)) {
      const DType t = rp.input.inputs[0].dtype;
      const int width = column_vector_width(rp.inner);
      const std::int64_t R = column_vector_rows(rp.extent), P = (rp.extent + R - 1) / R, total = rp.outer * P * (rp.inner / width);
      auto kernel = device.state().kernels().get(key_cat("rcv|", static_cast<int>(t), "|", width),
                                                   [&] { return generate_column_vector_pass(t, width, d); });
      const std::size_t count = static_cast<std::size_t>(rp.outer * P * rp.inner);
      Handle pv = allocate_memory(device, count * itemsize(t), *qp);
      held.emplace_back(pv, count * itemsize(t));
      launch_first_pass(*kernel, pv, nullptr, {rp.extent, rp.inner, R, P, total});
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

// GPUs: whether the first pass of an arg reduction reads its values as 4-vectors (generate()'s
// vec): one contiguous float32 or int32 array read as it is, each row's vectors 16-byte aligned.
// argmax of 2^28 float32 on the H200 read at 0.87x of sum through NVIDIA's OpenCL with a value a
// load (4096 rows of 65536, one pass, also 0.86x; CUDA 0.94x-0.98x), where max, whose fold is
// one instruction, read as sum does (scripts/dev/reduce_probe.cpp, 2026-12-02).
bool vector_arg_fits(const ReductionPlan& rp, const Source& src, const Geometry& g, const DeviceInfo& info) {
  if (!is_arg(rp.op) || !g.row || !info.launch.grid_stride || !reads_one_contiguous_array(src)) return false;
  const ElementwisePlan& p = *src.plan;
  const DType t = p.inputs[0].dtype;
  if (t != DType::float32 && t != DType::int32) return false;
  return p.inputs[0].offset % 4 == 0 && (g.outer == 1 || g.extent % 4 == 0) && g.chunk % 4 == 0;
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
  int unroll = (g.row && info.launch.grid_stride) ? reduce_unroll() : 1;
  const int vec = vector_arg_fits(rp, src, g, info) ? 4 : 1;
  std::string key = reduce_key(rp, src, final_out, g.row, g.group, wide, unroll, vec);
  auto kernel = device.state().kernels().get(key, [&] { return generate(rp, src, final_out, g.row, g.group, wide, unroll, vec, d); });
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

std::vector<std::pair<std::string, std::string>> reduction_kernel_sources(const DialectText& d, DType t) {
  std::vector<std::pair<std::string, std::string>> out;
  for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::max, ReduceOp::min, ReduceOp::argmax, ReduceOp::argmin}) {
    ReductionPlan rp;
    rp.op = op;
    rp.out_dtype = is_arg(op) ? DType::int64 : t;
    rp.input.shape = {64};
    rp.input.inputs.push_back(PlanInput{t, nullptr, 0, {1}});
    rp.input.code.push_back(Instr{Op::load, t, -1, -1, -1, 0});
    rp.input.result = 0;
    const Source first{&rp.input, analyse_inputs(rp.input)}, partials{nullptr, {}};
    const std::string what = cat("reduce op ", static_cast<int>(op), " of ", name(t));
    for (bool row : {true, false}) {
      out.emplace_back(cat(what, row ? ", rows, final" : ", columns, final"), generate(rp, first, true, row, 256, false, row ? 4 : 1, 1, d).source);
      out.emplace_back(cat(what, row ? ", rows, partials" : ", columns, partials"), generate(rp, partials, false, row, 256, true, 1, 1, d).source);
    }
    out.emplace_back(cat(what, ", interleaved"), generate_interleaved(rp, first, true, false, true, d).source);
    out.emplace_back(cat(what, ", interleaved partials"), generate_interleaved(rp, partials, false, true, false, d).source);
  }
  return out;
}

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
