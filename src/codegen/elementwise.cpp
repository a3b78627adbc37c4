// Elementwise kernels: the source for one plan, its launch shape and arguments, through the
// device's kernel cache (2-D plans with strided operands: codegen/elementwise_2d.cpp).
#include <algorithm>
#include <limits>
#include <optional>

#include "codegen/codegen.hpp"
#include "codegen/elementwise.hpp"
#include "codegen/random.hpp"
#include "runtime/device_state.hpp"
#include "runtime/kernel_args.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {

extern const char* const kPreludeOpenclSource;  // codegen/kernels/prelude_opencl.cl, embedded at build time

namespace {

using elementwise::kCpuGroup;
using elementwise::kTile;
using elementwise::Layout;
using elementwise::run_2d;

// On one-element-per-work-item devices a 2-D launch needs rows long enough for the runtime's
// work-group (narrower plans keep the 1-D general path).
constexpr std::int64_t kMinCols2d = 16;

// CPU devices (PoCL, whose LaunchStyle asks for one element per work-item): plain arithmetic
// on contiguous float32/float64 arrays runs as one OpenCL vector per work-item, the vector code
// written out (vloadN, floatN math, vstoreN) instead of left to PoCL's vectoriser across
// work-items, with a software prefetch kPrefetchBytes ahead on every stream. Without the
// prefetch (which PoCL cannot vectorise across work-items) the core keeps too few cache misses
// in flight once exp fills its reorder window: a*x*x + b*x + c*exp(-y) took about the time of
// x + y plus that of its arithmetic, 1.38-1.51x x + y on the 2-core build machine (2^24
// float32). Written out with the prefetch, the same probe pair ran 0.73x and 0.88x of their
// one-element-per-work-item times, and porta-bench's pair 1.01-1.06x (1.25-1.32x before, runs
// alternated at load 1.5-1.8). Vectors of 64 bytes (one AVX-512 register, two AVX2 ones): with
// 32 the fused expression ran 81-85% and complex64 x * y + z 78-85% of copy bandwidth, with 64
// 86-111% and 95-113%, x + y 100-110% either way (porta-bench, 2^24, runs alternated, 2-core build
// machine, 2026-12-06). Groups of kCpuGroup work-items on these devices, vectors or not
// (codegen/elementwise.hpp).
constexpr std::size_t kCpuVectorBytes = 64;
// Plans that draw random numbers: kCpuRandomVectorBytes instead (codegen/random.hpp).
constexpr int kPrefetchBytes = 2048;

// Plans the vector-per-work-item kernels take: float32/float64 storage (complex64/complex128 as
// interleaved pairs of them), the integers, and vector-safe code (vector_instructions_supported).
bool vector_plan(const ElementwisePlan& plan) {
  auto vectors = [](DType t) {
    return t == DType::float32 || t == DType::float64 || t == DType::complex64 || t == DType::complex128 || is_integral(t);
  };
  if (!vectors(plan.output.dtype)) return false;
  for (auto& in : plan.inputs)
    if (!vectors(in.dtype)) return false;
  return vector_instructions_supported(plan);
}

std::size_t widest_input(const ElementwisePlan& plan) {
  std::size_t w = 1;
  for (auto& in : plan.inputs) w = std::max(w, itemsize(in.dtype));
  return w;
}

// The key's text before the instructions, and the length fields of append_instruction_key.
constexpr std::size_t kKeyReserve = 64;

// Grid-stride devices: the work-items a group, and the vectors (or elements) the grid covers.
// analyse() decides Layout::once by them and run_elementwise() launches by them.
std::size_t grid_group(const DeviceInfo& info) { return info.launch.group_size ? info.launch.group_size : 256; }
std::int64_t grid_items(std::int64_t n, int vec) { return vec > 1 ? std::max<std::int64_t>(n / vec, 1) : n; }

// PORTA_EW_UNROLL and PORTA_EW_GROUPS (settings.cpp): read once, as the reductions' knobs; each
// value is its own kernel text or launch. On an H100 (2026-12-06) 4 vectors in flight ran as 1 on
// CUDA (uint8 fused, uint8 -> float32, complex64 within 5% either way). Through NVIDIA's OpenCL on
// the H100 (2026-12-07, docs/design/evaluation.md) 2 vectors in flight and 32 work-groups a
// compute unit (its launch limit is 16) ran the fused uint8 row at 100% of copy against 88% and
// no elementwise row slower: OpenCL GPUs take them.
bool opencl_gpu(const DeviceInfo& info) { return info.dialect == Dialect::opencl && info.kind == DeviceKind::gpu; }
int ew_unroll(const DeviceInfo& info) {
  static const std::optional<int> unroll = setting_int("PORTA_EW_UNROLL");
  return unroll.value_or(opencl_gpu(info) ? 2 : 1);
}
// PORTA_EW_VECTOR=narrowest: the vector spans 16 bytes of the narrowest operand (at most 16
// elements, 64 bytes of the widest); widest (the default): 16 bytes of the widest.
// PORTA_EW_STREAM (auto: CPU devices' vector kernels whose output is at least kCpuStreamBytes
// store it non-temporally, past the caches; off: never). The store that does not first read its
// cache line back (the read-for-ownership) leaves one memory stream of three in x + y. PoCL on
// the 2-core build machine (2026-12-07, porta-bench at 2^24 float32, alternating runs): x + y 34-38
// -> 48-53 GB/s, saxpy 33 -> 53-56, the fused row 31-33 -> 43-48, complex64 x * y + z 30 -> 38,
// copy 41-51 -> 54; at 2^27 x + y 29 -> 39. A kernel that reads the output back right after loses
// where it would have stayed in cache: y = 2 x + 1 then sum(3 y) took 2.3-3.4 against 1.9-2.0 ms at
// 2^22 float32 (16 MiB), 7.5-7.9 against 8.7-9.4 at 2^24 (64 MiB): hence the bound of 32 MiB.
constexpr std::int64_t kCpuStreamBytes = std::int64_t{32} << 20;
bool ew_stream() {
  static const bool stream = setting_choice("PORTA_EW_STREAM") != "off";
  return stream;
}

bool ew_vector_narrowest() {
  static const bool narrowest = setting_choice("PORTA_EW_VECTOR") == "narrowest";
  return narrowest;
}
// The most work-groups a grid-stride launch takes.
std::size_t grid_limit(const DeviceInfo& info) {
  static const int set = setting_int("PORTA_EW_GROUPS").value_or(0);
  const int per_unit = set > 0 ? set : opencl_gpu(info) ? 32 : 0;
  const std::size_t limit = per_unit > 0 ? static_cast<std::size_t>(per_unit) * static_cast<std::size_t>(std::max(info.compute_units, 1))
                                         : info.launch.max_groups;
  return std::max<std::size_t>(limit, 1);
}

Layout analyse(const ElementwisePlan& plan, const DeviceInfo& info) {
  constexpr std::int64_t kNarrow = std::numeric_limits<std::int32_t>::max() - 16;
  Layout l;
  l.in = analyse_inputs(plan);
  std::int64_t n = 1;
  for (auto s : plan.shape) n *= s;
  if (!plan.output.strides.empty()) {
    l.output = classify_access(plan.shape, plan.output.strides);
    if (l.output == Access::uniform) l.output = n > 1 ? Access::strided : Access::contiguous;
    if (max_position(plan.shape, plan.output.offset, plan.output.strides) > kNarrow) l.in.wide = true;
  } else if (plan.output.offset > kNarrow - n) {
    l.in.wide = true;
  }
  l.grid_stride = info.launch.grid_stride;
  l.bounded = random_launch_bounded(plan, info);
  // Vector accesses: every array operand contiguous (or one broadcast value) and aligned.
  // (OpenCL's vector types hold no struct: complex plans there move one element at a time; CUDA's
  // aligned vector structs take them.)
  if (l.grid_stride && info.launch.vector_bytes > 0 && l.output == Access::contiguous && !l.in.any_strided() &&
      (info.dialect == Dialect::cuda || !plan_uses_complex(plan))) {
    std::size_t widest = itemsize(plan.output.dtype), narrowest = widest;
    for (std::size_t k = 0; k < plan.inputs.size(); ++k)
      if (l.in.access[k] == Access::contiguous) {
        widest = std::max(widest, itemsize(plan.inputs[k].dtype));
        narrowest = std::min(narrowest, itemsize(plan.inputs[k].dtype));
      }
    const std::size_t bytes = static_cast<std::size_t>(info.launch.vector_bytes);
    int v = static_cast<int>(bytes / widest);
    if (ew_vector_narrowest()) v = static_cast<int>(std::min<std::size_t>({16, bytes / narrowest, 4 * bytes / widest}));
    bool aligned = plan.output.offset % std::max(v, 1) == 0;
    for (std::size_t k = 0; k < plan.inputs.size(); ++k)
      if (l.in.access[k] == Access::contiguous && plan.inputs[k].offset % std::max(v, 1) != 0) aligned = false;
    if (v >= 2 && aligned && n >= v) l.vec = v;
    if (l.vec > 1 && !plan_uses_random(plan)) l.unroll = ew_unroll(info);
  } else if (!l.grid_stride && info.dialect == Dialect::opencl && l.output == Access::contiguous && !l.in.any_strided() &&
             vector_plan(plan)) {
    // One OpenCL vector per work-item (vloadN: any element alignment); see generate().
    const std::size_t widest = std::max(itemsize(plan.output.dtype), widest_input(plan));
    // Random numbers: 64 bytes a work-item, so that several Philox blocks run as one vector.
    // (at most 16 lanes, OpenCL's widest vector: 16 bytes of uint8)
    const int v = static_cast<int>(std::min<std::size_t>(16, (plan_uses_random(plan) ? kCpuRandomVectorBytes : kCpuVectorBytes) / widest));
    if (v == 2 || v == 4 || v == 8 || v == 16) l.vec = v;
    if (l.vec > 1 && plan_uses_random(plan)) l.sub = kCpuRandomSubVectors;
    // Vectors narrower than kCpuVectorBytes (the 16 lanes of 1- and 2-byte integers): several a
    // work-item, so that each moves 64 bytes of its widest operand as the float kernels do (not
    // timed against one vector a work-item).
    else if (l.vec > 1 && static_cast<std::size_t>(l.vec) * widest < kCpuVectorBytes)
      l.sub = static_cast<int>(kCpuVectorBytes / (static_cast<std::size_t>(l.vec) * widest));
    l.stream = l.vec > 1 && ew_stream() && n * static_cast<std::int64_t>(itemsize(plan.output.dtype)) >= kCpuStreamBytes;
    // Work-items run past n to the end of their group: e and e + V * sub must not overflow.
    if (n > kNarrow - v * l.sub * kCpuGroup) l.in.wide = true;
  }
  // Work-items of the last group run up to a group past n (one element per work-item).
  if (!l.grid_stride && l.vec == 1 && n > kNarrow - kCpuGroup) l.in.wide = true;
  // Where the grid has a work-item for every vector, each runs its vector (and at most one
  // element of the tail) without the loops. A replayed CUDA graph of 10 adds of 1024 float32 on
  // the H200 (scripts/dev/graph_probe.cpp, 2026-12-02) cost 1.19-1.22 us an add with the loops
  // and 1.06-1.10 without, where PyTorch's cost 1.05. Random plans keep their loop.
  if (l.grid_stride && !plan_uses_random(plan))
    l.once = grid_items(n, l.vec) <= static_cast<std::int64_t>(grid_limit(info) * grid_group(info));
  if (plan.shape.size() == 2 && l.any_strided() && l.vec == 1 && (l.grid_stride || plan.shape[1] >= kMinCols2d)) {
    l.two_d = true;
    if (l.output == Access::strided) l.out_terms = classify_2d(plan.output.strides);
    for (std::size_t k = 0; k < plan.inputs.size(); ++k)
      if (l.in.access[k] == Access::strided && classify_2d(plan.inputs[k].strides).transposed()) l.tiled = true;
    // Without a full tile on one-element-per-work-item devices, the plain 2-D kernel does it all.
    if (!l.grid_stride && (plan.shape[0] < kTile || plan.shape[1] < kTile)) l.tiled = false;
    std::string terms;
    for (std::size_t k = 0; k < plan.inputs.size(); ++k)
      if (l.in.access[k] == Access::strided) terms += classify_2d(plan.inputs[k].strides).key();
    l.key.reserve(kKeyReserve + 18 * plan.code.size());
    append_all(l.key, "ew2|", l.in.wide ? 'w' : 'n', l.grid_stride ? 'g' : 'p', "|", l.in.key(), "|", terms, "|",
               static_cast<char>(l.output), l.out_terms.key(), static_cast<int>(plan.output.dtype), "|");
    append_instruction_key(l.key, plan);
    return l;
  }
  l.key.reserve(kKeyReserve + 18 * plan.code.size());  // one allocation for the whole key
  append_all(l.key, "ew|", l.in.wide ? 'w' : 'n', l.grid_stride ? (l.once ? 'o' : 'g') : 'p', l.vec, "x", l.sub, "u", l.unroll, l.bounded ? "b" : "", l.stream ? "s" : "", "|", plan.shape.size(), "|", l.in.key(),
             "|", static_cast<char>(l.output), static_cast<int>(plan.output.dtype), "|");
  append_instruction_key(l.key, plan);
  return l;
}

std::string vec_struct_name(DType t, int v) { return cat("porta_vec_", static_cast<int>(t), "_", v); }

std::string lane_name(int l) { return cat("s", "0123456789abcdef"[l]); }

// Lane l of a vector loaded from storage of dtype t, as a compute value.
std::string lane_value(const DialectText& d, DType t, const std::string& var, int l) {
  std::string raw = d.cuda() ? cat(var, ".v[", l, "]") : cat(var, ".", lane_name(l));
  if (!d.cuda() && t == DType::float16) return raw;  // vload_halfN gave floats
  switch (t) {
    case DType::boolean: return cat("(", raw, " != 0)");
    case DType::float16: return cat("porta_h2f(", raw, ")");
    case DType::bfloat16: return cat("porta_bf2f(", raw, ")");
    default: return raw;
  }
}

std::string lane_store_value(const DialectText& d, DType t, const std::string& v) {
  switch (t) {
    case DType::boolean: return cat("(", d.storage_type(t), ")(", v, ")");
    case DType::float16: return cat("porta_f2h(", v, ")");  // CUDA only; OpenCL uses vstore_halfN
    case DType::bfloat16: return cat("porta_f2bf(", v, ")");
    default: return v;
  }
}

// The vectorised loop body: V lanes per iteration, 16-byte loads and stores. `j`: which of the
// unrolled vectors (its element `e<j>` and names `x<k>_<j>`): the loads of all come first.
struct VectorCode {
  std::string loads, compute;
};
VectorCode vector_code(const ElementwisePlan& plan, const Layout& l, const DialectText& d, int j) {
  const int V = l.vec;
  const DType out_t = plan.output.dtype;
  const std::string e = j < 0 ? "e" : cat("e", j), sfx = j < 0 ? "" : cat("_", j);
  std::string s;
  std::vector<std::vector<std::string>> lanes(static_cast<std::size_t>(V));
  for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
    DType t = plan.inputs[k].dtype;
    if (l.in.access[k] != Access::contiguous) {
      for (auto& lane : lanes) lane.push_back(cat("u", k));
      continue;
    }
    std::string var = cat("x", k, sfx), at = cat("in", k, " + off", k, " + ", e);
    if (d.cuda()) {
      std::string vs = vec_struct_name(t, V);
      s += cat("    const ", vs, " ", var, " = *(const ", vs, "*)(", at, ");\n");
    } else if (t == DType::float16) {
      s += cat("    const float", V, " ", var, " = vload_half", V, "(0, ", at, ");\n");
    } else {
      std::string vt = cat(d.storage_type(t), V);
      s += cat("    const ", vt, " ", var, " = *((__global const ", vt, "*)(", at, "));\n");
    }
    for (int ln = 0; ln < V; ++ln) lanes[static_cast<std::size_t>(ln)].push_back(lane_value(d, t, var, ln));
  }
  VectorCode c{s, ""};
  s.clear();
  // Random numbers: one Philox block for every four (float64: two) lanes, not one per lane.
  std::vector<std::vector<std::string>> words;
  if (plan_uses_random(plan)) s += emit_random_blocks(plan, "e", V, words);
  for (int ln = 0; ln < V; ++ln)
    s += emit_instructions(d, plan, lanes[static_cast<std::size_t>(ln)], cat("(", e, " + ", ln, ")"), cat(sfx, "_", ln),
                           words.empty() ? nullptr : &words[static_cast<std::size_t>(ln)]);
  std::vector<std::string> results;
  for (int ln = 0; ln < V; ++ln) results.push_back(cat("v", plan.result, sfx, "_", ln));
  if (!d.cuda() && out_t == DType::float16) {
    s += cat("    vstore_half", V, "_rte((float", V, ")(", join(results, ", "), "), 0, out + off_out + ", e, ");\n");
  } else {
    std::string vt = d.cuda() ? vec_struct_name(out_t, V) : cat(d.storage_type(out_t), V), y = cat("y", sfx);
    s += cat("    ", vt, " ", y, ";\n");
    for (int ln = 0; ln < V; ++ln)
      s += cat("    ", y, ".", d.cuda() ? cat("v[", ln, "]") : lane_name(ln), " = ",
               lane_store_value(d, out_t, results[static_cast<std::size_t>(ln)]), ";\n");
    s += d.cuda() ? cat("    *(", vt, "*)(out + off_out + ", e, ") = ", y, ";\n")
                  : cat("    *((__global ", vt, "*)(out + off_out + ", e, ")) = ", y, ";\n");
  }
  c.compute = s;
  return c;
}

std::string vector_loop(const ElementwisePlan& plan, const Layout& l, const DialectText& d, const std::string& idx) {
  const int V = l.vec;
  const VectorCode one = vector_code(plan, l, d, -1);
  const std::string s = one.loads + one.compute;
  const std::string head = cat("  const ", idx, " nv = n / ", V, ";\n");
  if (plan_uses_random(plan)) return head + random_vector_loop(idx, V, s);
  if (l.once) return cat(head, "  if (gid < nv) {\n    const ", idx, " e = gid * ", V, ";\n", s, "  }\n");
  const std::string loop = cat("  for (; t < nv; t += gsz) {\n    const ", idx, " e = t * ", V, ";\n", s, "  }\n");
  if (l.unroll <= 1) return cat(head, "  ", idx, " t = gid;\n", loop);
  // `unroll` vectors a grid stride apart: every load before the first compute and store, so that
  // a work-item has them all in flight (the compiler may not move a load above a store to `out`).
  std::string u = cat("  for (; t + ", l.unroll - 1, " * gsz < nv; t += ", l.unroll, " * gsz) {\n");
  std::string compute;
  for (int j = 0; j < l.unroll; ++j) {
    const VectorCode c = vector_code(plan, l, d, j);
    u += cat("    const ", idx, " e", j, " = (t + ", j, " * gsz) * ", V, ";\n", c.loads);
    compute += c.compute;
  }
  return cat(head, "  ", idx, " t = gid;\n", u, compute, "  }\n", loop);
}

// PORTA_PREFETCH: __builtin_prefetch where the OpenCL compiler is clang (PoCL), else nothing.
std::string cpu_prefetch_macro() { return std::string(kernel_section(kPreludeOpenclSource, "prefetch")); }

// The vector code of one work-item at element e. `tail`: the last, partial vector (e < n < e + V):
// lanes read at min(e + lane, n - 1) and stored while e + lane < n. A scalar loop there instead
// kept its own constants in registers across the work-item loop, and the whole vector path then
// reloaded its constants on every work-item (1.37x x + y instead of 1.07x).
// `random_words`: the lanes' random values, computed for several vectors at once (the work-item's
// Philox blocks, see generate()); null: this vector computes its own.
// PoCL's vloadN and vstoreN of 1- and 2-byte integers move one element at a time (uint8 x + y
// with uchar16 through them: 21 GB/s, through a plain vector access 55, copy 54; 2-core build
// machine, 2^24): integer vectors are read and written through a typedef of the vector type
// aligned to its element (clang then emits one unaligned vector access), declared before the
// kernel (unaligned_types).
std::string unaligned_type(const std::string& elem, int lanes) { return cat("porta_", elem, lanes, "_u"); }
std::string unaligned_types(const ElementwisePlan& plan, const Layout& l, const DialectText& d) {
  std::vector<DType> seen;
  std::string s;
  auto add = [&](DType t) {
    if (!is_integral(t) || std::find(seen.begin(), seen.end(), t) != seen.end()) return;
    seen.push_back(t);
    const std::string ct = d.compute_type(t);
    s += cat("typedef ", ct, l.vec, " __attribute__((aligned(sizeof(", ct, ")))) ", unaligned_type(ct, l.vec), ";\n");
  };
  for (std::size_t k = 0; k < plan.inputs.size(); ++k)
    if (l.in.access[k] == Access::contiguous) add(plan.inputs[k].dtype);
  add(plan.output.dtype);
  return s;
}

// The store of a whole vector r of `lanes` components (`ptr`: their pointer type) at out + off_out
// + e: vstoreN, or with l.stream a non-temporal store where the address is aligned to the vector
// (PORTA_STORE_NT needs it; an output at an odd offset takes vstoreN).
// Integer vectors go through unaligned_types' types instead of vstoreN.
std::string whole_store(const Layout& l, const std::string& r, const std::string& ptr, int lanes, const std::string& int_type = "") {
  const std::string at = cat("(", ptr, "*)(out + off_out + e)");
  const std::string plain = int_type.empty() ? cat("vstore", lanes, "(", r, ", 0, ", at, ");\n")
                                             : cat("*(__global ", unaligned_type(int_type, lanes), "*)(out + off_out + e) = ", r, ";\n");
  if (!l.stream) return cat("    ", plain);
  return cat("    if (((ulong)(out + off_out + e) & (sizeof(", r, ") - 1)) == 0) PORTA_STORE_NT(", r, ", (", ptr, lanes,
             "*)(out + off_out + e));\n    else ", plain);
}

std::string vector_body(const ElementwisePlan& plan, const Layout& l, const DialectText& d, bool tail,
                        const RandomWords* random_words = nullptr) {
  const int V = l.vec;
  std::string s;
  std::vector<std::string> reads;
  for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
    const DType t = plan.inputs[k].dtype;
    // A complex operand is read as 2V interleaved components (emit_vector_instructions splits them).
    const bool cx = is_complex(t);
    const std::string comp = d.compute_type(cx ? real_dtype(t) : t), vt = cat(comp, cx ? 2 * V : V);
    if (l.in.access[k] == Access::uniform) {
      reads.push_back(cx ? cat("(", vt, ")(", join(std::vector<std::string>(static_cast<std::size_t>(V), cat("u", k, ".re, u", k, ".im")), ", "), ")")
                         : cat("(", vt, ")(u", k, ")"));
      continue;
    }
    const std::string at = cat("in", k, " + off", k, " + e");
    if (tail) {
      std::vector<std::string> lanes;
      for (int ln = 0; ln < V; ++ln) {
        const std::string x = cat("in", k, "[off", k, " + min(e + ", ln, ", n - 1)]");
        lanes.push_back(cx ? cat(x, ".re, ", x, ".im") : x);
      }
      s += cat("    const ", vt, " x", k, " = (", vt, ")(", join(lanes, ", "), ");\n");
      reads.push_back(cat("x", k));
      continue;
    }
    s += cat("    PORTA_PREFETCH(", at, " + ", kPrefetchBytes / static_cast<int>(itemsize(t)), ", 0);\n");
    reads.push_back(cx              ? cat("vload", 2 * V, "(0, (__global const ", comp, "*)(", at, "))")
                    : is_integral(t) ? cat("*(__global const ", unaligned_type(comp, V), "*)(", at, ")")
                                     : cat("vload", V, "(0, ", at, ")"));
  }
  if (!tail && !l.stream)
    s += cat("    PORTA_PREFETCH(out + off_out + e + ", kPrefetchBytes / static_cast<int>(itemsize(plan.output.dtype)), ", 1);\n");
  std::vector<std::vector<std::string>> words;
  if (random_words) words = *random_words;
  else if (plan_uses_random(plan)) s += emit_random_blocks(plan, "e", V, words, true);
  s += emit_vector_instructions(d, plan, reads, V, words);
  const DType out_t = plan.output.dtype;
  if (is_complex(out_t)) {  // the pair of vectors interleaved back into storage order
    const std::string comp = d.compute_type(real_dtype(out_t)), r = cat("r", plan.result);
    s += cat("    ", comp, 2 * V, " ", r, ";\n    ", r, ".even = v", plan.result, "_re;\n    ", r, ".odd = v", plan.result, "_im;\n");
    if (!tail) return s + whole_store(l, r, cat("__global ", comp), 2 * V);
    for (int ln = 0; ln < V; ++ln)
      s += cat("    ", ln > 0 ? cat("if (e + ", ln, " < n) ") : "", "out[off_out + e + ", ln, "] = porta_c_", csuffix(out_t), "(", r, ".", lane_name(2 * ln), ", ", r, ".", lane_name(2 * ln + 1), ");\n");
    return s;
  }
  const std::string r = cat("v", plan.result);
  if (!tail) return s + whole_store(l, r, cat("__global ", d.compute_type(out_t)), V, is_integral(out_t) ? d.compute_type(out_t) : "");
  s += cat("    out[off_out + e] = ", r, ".s0;\n");
  for (int ln = 1; ln < V; ++ln) s += cat("    if (e + ", ln, " < n) out[off_out + e + ", ln, "] = ", r, ".", lane_name(ln), ";\n");
  return s;
}

// `guarded` (one-element-per-work-item devices): the variant with a bounds test, for the last,
// partial group.
KernelSource generate(const ElementwisePlan& plan, const Layout& l, const DialectText& d, bool guarded = false) {
  const std::string idx = d.index_type(l.in.wide);
  const int nd = static_cast<int>(plan.shape.size());
  const bool strided_out = l.output == Access::strided;
  std::string src = d.prelude(plan_uses_fp64(plan), plan_uses_random(plan), plan_uses_complex(plan));
  if (d.cuda() && l.vec > 1) {  // CUDA vector accesses go through aligned structs
    std::vector<DType> types{plan.output.dtype};
    for (std::size_t k = 0; k < plan.inputs.size(); ++k)
      if (l.in.access[k] == Access::contiguous) types.push_back(plan.inputs[k].dtype);
    std::sort(types.begin(), types.end());
    types.erase(std::unique(types.begin(), types.end()), types.end());
    for (DType t : types)
      src += cat("struct __align__(", itemsize(t) * static_cast<std::size_t>(l.vec), ") ", vec_struct_name(t, l.vec), " { ",
                 d.storage_type(t), " v[", l.vec, "]; };\n");
  }
  InputCode ic = input_code(d, plan, l.in, "e", "    ", strided_out);
  std::vector<std::string> params = ic.params;
  params.push_back(cat(d.global_out_ptr(plan.output.dtype), " out"));
  params.push_back(cat("const ", idx, " off_out"));
  if (strided_out)
    for (int dd = 0; dd < nd; ++dd) params.push_back(cat("const ", idx, " sto_", dd));
  params.push_back(cat("const ", idx, " n"));
  if (l.any_strided())
    for (auto& p : dim_params(d, plan, l.in.wide)) params.push_back(p);
  if (!l.grid_stride && l.vec == 1) params.push_back(cat("const ", idx, " base"));

  src += cat(d.kernel_prefix(), l.bounded ? "__launch_bounds__(256, 8) " : "", "porta_elementwise(", join(params, ", "), ") {\n",
             ic.uniform_loads);
  if (!l.grid_stride && l.vec > 1 && l.sub > 1) {  // `sub` vectors a work-item (random plans: their Philox blocks at once)
    auto body = [&](bool tail, const RandomWords* words) { return vector_body(plan, l, d, tail, words); };
    return {cpu_prefetch_macro() + unaligned_types(plan, l, d) + src + random_work_item(plan, d, idx, l.vec, l.sub, body), "porta_elementwise", {}};
  }
  if (!l.grid_stride && l.vec > 1) {
    src = cpu_prefetch_macro() + unaligned_types(plan, l, d) + src;
    src += cat("  const ", idx, " e = (", idx, ")", d.global_id(), " * ", l.vec, ";\n  if (e + ", l.vec, " <= n) {\n",
               vector_body(plan, l, d, false), "  } else if (e < n) {\n", vector_body(plan, l, d, true), "  }\n}\n");
    return {src, "porta_elementwise", {}};
  }
  std::string body = ic.position_code + emit_instructions(d, plan, ic.reads, "e", "") + "    " +
                     d.store(plan.output.dtype, "out", strided_out ? "po" : "off_out + e", cat("v", plan.result)) + "\n";
  if (!l.grid_stride) {
    // Exactly one work-item per element, from `base`: no bounds test, which keeps PoCL's
    // vectoriser working (a branch cost 4x on x + y, a clamping select 25%). The host launches
    // whole groups, then one group of the guarded variant from its own base.
    src += cat("  const ", idx, " e = base + (", idx, ")", d.global_id(), ";\n  ", guarded ? "if (e < n) " : "", "{\n", body,
               "  }\n}\n");
    return {src, "porta_elementwise", {}};
  }
  src += cat("  const ", idx, " gid = (", idx, ")", d.global_id(), ";\n");
  if (!l.once) src += cat("  const ", idx, " gsz = (", idx, ")", d.global_size(), ";\n");
  std::string tail_start = "gid";
  if (l.vec > 1) {
    src += vector_loop(plan, l, d, idx);
    tail_start = cat("nv * ", l.vec, " + gid");
  }
  // With `once`, the grid has a work-item for every vector and so for each of the fewer than V
  // elements of the tail.
  src += l.once ? cat("  {\n    const ", idx, " e = ", tail_start, ";\n    if (e < n) {\n", body, "    }\n  }\n}\n")
                : cat("  for (", idx, " e = ", tail_start, "; e < n; e += gsz) {\n", body, "  }\n}\n");
  return {src, "porta_elementwise", {}};
}

}  // namespace

void run_elementwise(DeviceImpl& device, const std::shared_ptr<QueueImpl>& q, const ElementwisePlan& plan) {
  std::int64_t n = 1;
  for (auto s : plan.shape) n *= s;
  if (n == 0) return;
  const DeviceInfo& info = device.info();
  if (info.dialect == Dialect::none) {
    device.execute(*q, plan);
    return;
  }
  Layout l = analyse(plan, info);
  DialectText d{info.dialect};
  if (l.two_d) {
    run_2d(device, q, plan, l, d);
    return;
  }
  auto kernel = [&] { return device.state().kernels().get(l.key, [&] { return generate(plan, l, d); }); };

  KernelArgs args(l.in.wide);
  push_input_args(args, plan, l.in);
  args.memory(plan.output.handle);
  args.index(plan.output.offset);
  if (l.output == Access::strided)
    for (auto st : plan.output.strides) args.index(st);
  args.index(n);
  if (l.any_strided())
    for (auto s : plan.shape) args.index(s);

  LaunchDims dims;
  if (l.grid_stride) {
    const std::size_t group = grid_group(info);
    const std::int64_t items = grid_items(n, l.vec);
    std::size_t groups = static_cast<std::size_t>((items + static_cast<std::int64_t>(group) - 1) / static_cast<std::int64_t>(group));
    groups = std::clamp<std::size_t>(groups, 1, grid_limit(info));
    dims.global[0] = groups * group;
    dims.local[0] = group;
    device.launch(*q, *kernel(), dims, args.args());
    return;
  }
  if (l.vec > 1) {
    // One vector per work-item in groups of a fixed size (PoCL compiles a kernel once per local
    // size); the work-items past the end do nothing.
    const std::int64_t items = (n + l.vec * l.sub - 1) / (l.vec * l.sub);
    const std::int64_t groups = (items + kCpuGroup - 1) / kCpuGroup;
    dims.global[0] = static_cast<std::size_t>(groups * kCpuGroup);
    dims.local[0] = static_cast<std::size_t>(kCpuGroup);
    device.launch(*q, *kernel(), dims, args.args());
    return;
  }
  // One work-item per element: whole groups of a fixed size, then one group of the guarded
  // variant over the rest. PoCL compiles a kernel once per local size: with the runtime's
  // choice (local = NULL) every new remainder and size class cost a compile; now at most two.
  const std::int64_t group = kCpuGroup;
  const std::int64_t main_part = n / group * group;
  dims.local[0] = static_cast<std::size_t>(group);
  if (main_part > 0) {
    KernelArgs part = args;
    part.index(0);
    dims.global[0] = static_cast<std::size_t>(main_part);
    device.launch(*q, *kernel(), dims, part.args());
  }
  if (main_part < n) {
    auto guarded = device.state().kernels().get(l.key + "|g", [&] { return generate(plan, l, d, true); });
    KernelArgs part = args;
    part.index(main_part);
    dims.global[0] = static_cast<std::size_t>(group);
    device.launch(*q, *guarded, dims, part.args());
  }
}

}  // namespace porta::detail
