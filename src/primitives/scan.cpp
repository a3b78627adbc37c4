// Row and column scans (primitives/primitives.hpp: scan_rows, scan_columns): generated kernels in both
// dialects (primitives/work.hpp runs them) and host loops for Kokkos.
//
// Long rows: one pass, a chained scan with decoupled look-back (Merrill & Garland 2016). Each
// work-group takes its tile from an atomic counter (so it only ever waits on tiles that started
// before it: safe where work-groups run a few at a time, as on PoCL), scans the tile in local
// memory (each work-item its ITEMS consecutive elements, then a fixed Hillis-Steele tree over the
// work-items' totals), publishes the tile's aggregate, looks back for its exclusive prefix and
// publishes its inclusive prefix. The order of accumulation is fixed: the inclusive prefix of
// tile i is defined as P(i) = P(i-1) + A(i) (P(0) = A(0)), and the look-back, wherever it finds
// a published P(j), folds the aggregates after it left to right, P(j) + A(j+1) + ... + A(i-1):
// the same operations in the same order as the chain, so the same bits whichever tile's status
// was visible when (a reverse fold, as the paper's, would round differently from run to run).
// Short rows: a work-group loads whole rows of one tile, each work-item scans one row in local
// memory. Columns (a scan over an axis that is not the last): one work-item per column.
#include <porta/error.hpp>

#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "codegen/codegen.hpp"
#include "primitives/primitives.hpp"
#include "primitives/work.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {

using namespace primitives;

namespace {

// Tuning, for benchmarks (scripts/dev/gpu_scan.sh sweeps them; src/base/settings.cpp has their ranges):
// PORTA_SCAN_ITEMS, 4-byte elements a GPU work-item (2 to 32, a power of two; 8-byte values take
// half; unset: scan_items chooses), and PORTA_SCAN_WINDOW, the look-back's window (1 to 256
// tiles). Each setting is its own kernel and its own fixed order of accumulation.
std::optional<int> requested_scan_items() {
  static const std::optional<int> items = setting_int("PORTA_SCAN_ITEMS");
  return items;
}
// A tile is 256 work-items' ITEMS values: 32 KiB for every dtype with 32 items (8192 float32), so
// that 2^28 floats are 32768 tiles and the look-back has few to walk.
std::int64_t tile_of(DType t, int items) { return std::int64_t{256} * (itemsize(t) >= 8 ? items / 2 : items); }
// Work-items a tile: 256 on GPUs; one on CPU devices, where a work-group of many work-items runs
// as a loop between each two barriers (PoCL) and one work-item's plain loop over the tile is the
// fast way through it. PORTA_SCAN=group or serial forces either on any compiling device, for tests
// (CI runs the GPU look-back on PoCL so).
int scan_group(const DeviceInfo& info) {
  static const std::string forced = setting_choice("PORTA_SCAN");
  if (forced == "group") return 256;
  if (forced == "serial") return 1;
  return info.kind == DeviceKind::cpu ? 1 : 256;
}

// Work-groups of the GPU look-back an SM that its register bound makes room for (CUDA's
// __launch_bounds__, NVIDIA's OpenCL's .maxnreg; PORTA_SCAN_BLOCKS, 1 to 8, for tuning), for
// 4-byte values. Six (40 registers, no spills; 6 x 35 KiB of local memory) ran cumsum of 2^28
// float32 at 3171-3176 / 3120-3139 GB/s on cuda:0 / opencl:1, five 3077 / 3048, four 2967 / 2948,
// against 3064-3088 / 3025-3056 for the kernel before, which kept a work-item's values in
// registers (55 of them: four groups an SM; H200, 2026-12-04, alternating runs). Tiles loaded by
// cp.async straight into local memory (39 registers, no value in flight held in one) ran slower:
// 2966 / 2952 against 3197 / 3114 in the same call (2026-12-04 21:27; five groups 2937 / 2983);
// so did 16 items with six to eight groups an SM (1833-1899; with a window of 128, 2683 /
// 2706) and a window of 128 with 32 items (3124 / 3048).
int scan_blocks() {
  static const int blocks = *setting_int("PORTA_SCAN_BLOCKS");
  return blocks;
}
// Predecessors a look-back step reads at once. A prefix moves on by up to WINDOW tiles each round
// trip of a look-back (a status read, two barriers, a fence): at 2^28 floats on the H200 tiles
// start some 50 a microsecond, and 32 a round did not keep up (2165 GB/s); past 64 each round's
// reads and atomics cost more than the reach gains (lookback_source's figures).
int scan_window() {
  static const int window = *setting_int("PORTA_SCAN_WINDOW");
  return window;
}

// The scans' starting value: 1 for products; for float sums -0.0, which adds to any x as x does,
// so that a row of -0.0 scans to -0.0 as NumPy's (which starts from the first element) and not to
// +0.0 (+0.0 + -0.0 is +0.0); 0 for integers.
const char* sum_identity(DType t, bool product) {
  if (product) return "((T)1)";
  return t == DType::float32 ? "((T)-0.0f)" : t == DType::float64 ? "((T)-0.0)" : "((T)0)";
}
template <class T> T host_identity(bool product) {
  if (product) return T(1);
  if constexpr (std::is_floating_point_v<T>) return T(-0.0);
  return T(0);
}

std::string scan_defs(const DialectText& d, DType t, bool product, int group, std::int64_t tile) {
  return cat(d.prelude(t == DType::float64, false), "\n", "typedef ", d.storage_type(t), " T;\n#define OP(a, b) ",
             product ? "((a) * (b))" : "((a) + (b))", "\n#define IDENT ", sum_identity(t, product), "\n#define GROUP ", group,
             "\n#define ITEMS ", tile / group, "\n#define TILE ", tile, "\n#define WINDOW ", scan_window(),
             "\n#define PAD(e) ((e) + ((e) >> 5))\n#define LID ((int)", d.local_id(), ")\n#define GROUP_ID ((i64)", d.group_id(),
             ")\n#define BARRIER ", d.barrier(), "\n#define FENCE ", d.cuda() ? "__threadfence();" : "mem_fence(CLK_GLOBAL_MEM_FENCE);",
             "\n#define TAKE_TILE(p) ", d.cuda() ? "atomicAdd((int*)(p), 1)" : "atomic_add((p), 1)",
             "\n#define LOCAL_MIN(p, v) ", d.cuda() ? "atomicMin((p), (v))" : "atomic_min((p), (v))", "\n");
}

// GPUs: a tile's state and value in one 16-byte word (state 0: nothing yet, 1: its aggregate, 2:
// its inclusive prefix; the value's bits beside it), stored and loaded as one transaction, so that
// a reader never sees a state with another value (as CUB's tile descriptors). A value and a flag
// apart, ordered by fences, gave NVIDIA's OpenCL a stale value now and then; and CUDA's
// __threadfence() on every look-back read was slow. CUDA: relaxed gpu-scope vector accesses;
// OpenCL: volatile ulong2.
std::string descriptor_defs(const DialectText& d, DType t) {
  std::string to_bits, from_bits;
  if (t == DType::float32) {
    to_bits = d.cuda() ? "((u64)__float_as_uint(v))" : "((u64)as_uint(v))";
    from_bits = d.cuda() ? "__uint_as_float((unsigned int)(b))" : "as_float((uint)(b))";
  } else if (t == DType::float64) {
    to_bits = d.cuda() ? "((u64)__double_as_longlong(v))" : "as_ulong(v)";
    from_bits = d.cuda() ? "__longlong_as_double((long long)(b))" : "as_double(b)";
  } else {
    to_bits = "((u64)(v))";
    from_bits = "((T)(b))";
  }
  // TAG and STATE_OF, then the dialect's DESC_PTR, DESC_STORE, DESC_LOAD (kernels/scan.cl, scan_cuda.cuh).
  return cat("#define TO_BITS(v) ", to_bits, "\n#define FROM_BITS(b) ", from_bits, "\n", kernel_text(d, kScanSource, "descriptor"),
             d.cuda() ? kernel_text(d, kScanCudaSource, "descriptor_cuda") : kernel_text(d, kScanSource, "descriptor_opencl"));
}

// The GPU look-back kernel: scan_local_bytes counts its local arrays (keep the two in step).
// Every work-item of the group takes part in the look-back's rounds: a round reads the window,
// one descriptor a work-item, finds the nearest entry that is not an aggregate (shared_i[2], the
// least such w, through local atomics), and where that is an inclusive prefix one work-item folds
// forward from it (kFold). Before, one work-item walked the window through local memory entry by
// entry, which bounded the scan to about one tile per 27 ns on the H200 (2411 GB/s with tiles of
// 8192 float32, 1235 with half that tile: a rate of tiles, not of bytes); now 3047-3093 GB/s with
// a window of 64 (2936 with 128, 2835 with 256, 2165 with 32; H200, 2026-12-01). Chunks of WINDOW
// tiles, each tile's prefix the previous chunk's end (extended by one addition a chunk) plus its
// chunk-mates' aggregates, which took the serial fold off the prefix's path, ran 2.5% slower on
// cuda:0 and 1.5% on opencl:1 in alternating runs (3049-3051 against 3120-3131 GB/s; with smaller
// tiles 2202-2360 at 16 items, 1303-1494 at 8; H200, 2026-12-04): at 32 items the tiles are not
// waiting on the prefix's pace, and the chunked kernel had more registers (80 on CUDA, 64 bounded).
// Work-groups that stayed resident and took their next tile before looking back (its loads in
// flight through the look-back and the writes), with the chunks, ran at 1333 / 1262 GB/s against
// this kernel's 3087-3092 / 3053-3058 (1856 / 1526 with three groups an SM and no spills; H200,
// 2026-12-04): a tile taken early publishes its aggregate only once its group has finished the
// tile before, so the aggregates ahead of the prefix wait on the prefix itself. Nsight Compute
// (cuda:0, 2026-12-04): 675 us for 2^28 float32 (3.15 TB/s, DRAM 65% busy), 50% occupancy (four
// groups an SM, by registers and local memory alike), warps waiting at barriers for 43% of their
// cycles; yet the totals scanned in runs of 16 (two barriers where this tree takes 16) ran no
// faster (3093-3100 / 3018-3032 against 3088-3120 / 3050-3083, alternating). A variant with
// warp votes and shuffles (warp 0 alone looking back, 32 descriptors a round; the totals scanned
// with shuffles) measured 2554-2741 and was not kept; nor were register bounds for five or six
// blocks an SM while each work-item held its values in registers (CUDA's __launch_bounds__: 3029
// and 2375, against 3065 with NVRTC's 55 registers; scan_blocks says what the bound does now).
std::string lookback_source(const DialectText& d, DType t, bool product, int group, std::int64_t tile) {
  return cat(scan_defs(d, t, product, group, tile), descriptor_defs(d, t),
             "KERNEL ", d.cuda() && itemsize(t) == 4 ? cat("__launch_bounds__(GROUP, ", scan_blocks(), ") ") : std::string(),
             kernel_text(d, kScanSource, "lookback"));
}

// CPU devices: one work-item a tile, straight from global memory (through local memory, PoCL
// ran 2.7x slower). The tile is kCpuScanParts parts, each folded left to right, the folds
// interleaved (independent chains of adds where one chain waited on each add: 2^24 float32 on
// PoCL, 2-core build machine, went from 7.3 to 12.6-14.5 GB/s with four parts; two gave 11-12,
// eight 8-11): the parts' folds combined in order are the tile's aggregate; after the look-back
// each part's elements are its prefix (the tile's, combined with the parts before it) combined
// with the part's fold so far (the tile is in cache by now). The same order every run; a tile's
// last element and the inclusive value the next tile starts from may differ in rounding. Its
// local arrays, the window's, are scan_local_bytes' CPU case.
constexpr int kCpuScanParts = 4;

// The K parts' code of lookback_cpu_source: part j holds [j * q, j * q + n<j>), n0 >= n1 >= ...;
// `step(j)` is part j's statement for element i. The loops run while every part still has an
// element, then while one fewer has, and so on.
std::string cpu_scan_parts(int parts, const std::function<std::string(int)>& step) {
  std::string s = "  i = 0;\n";
  for (int live = parts; live >= 1; --live) {
    s += cat("  for (; i < n", live - 1, "; ++i) {");
    for (int j = 0; j < live; ++j) s += cat(" ", step(j));
    s += " }\n";
  }
  return s;
}

std::string lookback_cpu_source(const DialectText& d, DType t, bool product, std::int64_t tile) {
  constexpr int K = kCpuScanParts;
  std::string parts = cat("  const int q = (count + ", K - 1, ") / ", K, ";\n  int i;\n");
  for (int j = 0; j < K; ++j)
    parts += cat("  const int n", j, " = count - ", j, " * q < 0 ? 0 : count - ", j, " * q < q ? count - ", j, " * q : q;\n",
                 "  GLOBAL const T* in", j, " = in + ", j, " * q;\n  GLOBAL T* out", j, " = out + ", j, " * q;\n  T s", j,
                 " = IDENT, r", j, " = IDENT;\n");
  parts += cpu_scan_parts(K, [](int j) { return cat("s", j, " = OP(s", j, ", in", j, "[i]);"); });
  std::string aggregate = "s0";
  for (int j = 1; j < K; ++j) aggregate = cat("OP(", aggregate, ", s", j, ")");
  std::string prefixes = "  const T p0 = prefix;\n  const T p1 = t > 0 ? OP(prefix, s0) : s0;\n";
  for (int j = 2; j < K; ++j) prefixes += cat("  const T p", j, " = OP(p", j - 1, ", s", j - 1, ");\n");
  const std::string outputs = cpu_scan_parts(K, [](int j) {
    return cat("r", j, " = OP(r", j, ", in", j, "[i]); out", j, "[i] = ", j == 0 ? "t > 0 ? OP(p0, r0) : r0" : cat("OP(p", j, ", r", j, ")"), ";");
  });
  return cat(scan_defs(d, t, product, 1, tile), kernel_text(d, kScanSource, "lookback_cpu"), parts, "  T aggregate = ", aggregate,
             ";\n", kernel_text(d, kScanSource, "lookback_cpu_publish"), prefixes, outputs, kernel_text(d, kScanSource, "lookback_cpu_end"));
}

// Whole rows of one tile a work-group; work-item r scans row r left to right in local memory.
std::string short_rows_source(const DialectText& d, DType t, bool product, int group, std::int64_t tile) {
  // CPU devices: straight from global memory, row after row.
  return cat(scan_defs(d, t, product, group, tile), kernel_text(d, kScanSource, group == 1 ? "short_rows_cpu" : "short_rows"));
}

// One work-item a column (scan_columns).
std::string columns_source(const DialectText& d, DType t, bool product, std::int64_t tile) {
  return cat(scan_defs(d, t, product, 1, tile), kernel_text(d, kScanSource, "columns"));
}

// The host loops: left to right, integers wrapping as the devices' int64.
template <class T> T host_op(T acc, T v, bool product) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(product ? static_cast<U>(acc) * static_cast<U>(v) : static_cast<U>(acc) + static_cast<U>(v));
  } else {
    return product ? acc * v : acc + v;
  }
}

template <class F> void by_dtype(DType t, F&& f) {
  if (t == DType::int64) f(std::int64_t{0});
  else if (t == DType::float32) f(0.0f);
  else f(0.0);
}

void check_scan_dtype(DType t, const char* what) {
  if (t != DType::int64 && t != DType::uint64 && t != DType::float32 && t != DType::float64 && !is_complex(t))
    throw DTypeError(cat(what, ": scans run on int64, uint64, float32, float64, complex64 and complex128, not ", name(t),
                         " (cast first)"));
}

// uint64 scans are int64's: sums and products wrap to the same bits.
DType scan_kernel_dtype(DType t) { return t == DType::uint64 ? DType::int64 : t; }

// Complex scans: one work-item a column (rows: a column of one), left to right from the column's
// first element (NumPy's order; an identity would turn (inf, 0) * ... into NaNs through 0 * inf),
// products as NumPy's (a.x b.x - a.y b.y, a.x b.y + a.y b.x), each product rounded before the
// sum (no fused multiply-add: CUDA's __fmul_rn, OpenCL's FP_CONTRACT OFF), as the host loop.
// Rows longer than kComplexChunk on compiling devices go in chunks of it, a work-item each: every
// chunk scanned from its first element (writing its total), the totals scanned a row at a time,
// then each chunk's elements combined with the prefix before it, P(c - 1) op y: a fixed order on
// every device (within a chunk, NumPy's), though not NumPy's left-to-right order for products
// past the first chunk (sums of whole numbers, infinities and NaNs come out the same).
constexpr std::int64_t kComplexChunk = 512;

// The complex scans' operation `cop` and T, for complex_scan_source's kernels.
std::string complex_ops(const DialectText& d, DType t, bool product) {
  const bool f64 = t == DType::complex128;
  const std::string ty = f64 ? "double2" : "float2", part = f64 ? "double" : "float";
  std::string ops;
  if (d.cuda()) {
    const std::string mul = f64 ? "__dmul_rn" : "__fmul_rn";
    ops = cat("__device__ __forceinline__ ", ty, " cop(", ty, " a, ", ty, " b) { return ",
              product ? cat("make_", ty, "(", mul, "(a.x, b.x) - ", mul, "(a.y, b.y), ", mul, "(a.x, b.y) + ", mul, "(a.y, b.x))")
                      : cat("make_", ty, "(a.x + b.x, a.y + b.y)"),
              "; }\n");
  } else {
    ops = cat(f64 ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "", "#pragma OPENCL FP_CONTRACT OFF\n",
              ty, " cop(", ty, " a, ", ty, " b) { ",
              product ? cat(part, " xx = a.x * b.x, yy = a.y * b.y, xy = a.x * b.y, yx = a.y * b.x; return (", ty, ")(xx - yy, xy + yx);")
                      : "return a + b;",
              " }\n");
  }
  return cat(ops, "typedef ", ty, " T;\n#define CHUNK ", kComplexChunk, "\n");
}

// kind 0: one work-item a column; 1: a chunk of a row (and its total); 2: the prefixes into the chunks.
std::string complex_scan_source(const DialectText& d, DType t, bool product, int kind = 0) {
  if (kind == 1)
    return cat(complex_ops(d, t, product),
               "KERNEL porta_k(GLOBAL const T* x, GLOBAL T* y, GLOBAL T* tot, i64 x_off, i64 y_off, i64 outer, i64 len, i64 chunks) {\n"
               "  for (i64 c = GID; c < outer * chunks; c += GSIZE) {\n"
               "    i64 o = c / chunks, k0 = (c - o * chunks) * CHUNK, k1 = k0 + CHUNK < len ? k0 + CHUNK : len, p = o * len + k0;\n"
               "    T run = x[x_off + p];\n"
               "    y[y_off + p] = run;\n"
               "    for (i64 k = k0 + 1; k < k1; ++k) { ++p; run = cop(run, x[x_off + p]); y[y_off + p] = run; }\n"
               "    tot[c] = run;\n"
               "  }\n}\n");
  if (kind == 2)
    return cat(complex_ops(d, t, product),
               "KERNEL porta_k(GLOBAL const T* tot, GLOBAL T* y, i64 y_off, i64 outer, i64 len, i64 chunks) {\n"
               "  for (i64 e = GID; e < outer * len; e += GSIZE) {\n"
               "    i64 o = e / len, c = (e - o * len) / CHUNK;\n"
               "    if (c > 0) y[y_off + e] = cop(tot[o * chunks + c - 1], y[y_off + e]);\n"
               "  }\n}\n");
  return cat(complex_ops(d, t, product),
             "KERNEL porta_k(GLOBAL const T* x, GLOBAL T* y, i64 x_off, i64 y_off, i64 outer, i64 len, i64 inner) {\n"
             "  for (i64 c = GID; c < outer * inner; c += GSIZE) {\n"
             "    i64 o = c / inner, i = c - o * inner, p = o * len * inner + i;\n"
             "    T run = x[x_off + p];\n"
             "    y[y_off + p] = run;\n"
             "    for (i64 k = 1; k < len; ++k) { p += inner; run = cop(run, x[x_off + p]); y[y_off + p] = run; }\n"
             "  }\n}\n");
}

// The host's complex scan of `outer` x `inner` columns of `len` (complex_scan_source's order and formula).
template <class F>
void host_complex_scan(const F* in, F* out, std::int64_t outer, std::int64_t len, std::int64_t inner, bool product) {
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      std::int64_t p = (o * len) * inner + i;
      F rx = in[2 * p], ry = in[2 * p + 1];
      out[2 * p] = rx;
      out[2 * p + 1] = ry;
      for (std::int64_t k = 1; k < len; ++k) {
        p += inner;
        const F bx = in[2 * p], by = in[2 * p + 1];
        if (product) {
          // volatile: each product rounded before the sum, as the kernels (no contraction to an FMA).
          volatile F xx = rx * bx, yy = ry * by, xy = rx * by, yx = ry * bx;
          rx = xx - yy;
          ry = xy + yx;
        } else {
          rx += bx;
          ry += by;
        }
        out[2 * p] = rx;
        out[2 * p + 1] = ry;
      }
    }
}

// Complex scans, any device: the kernel of complex_scan_source or the host loop.
void complex_scan(DType t, const View& x, const View& y, std::int64_t outer, std::int64_t len, std::int64_t inner, bool product) {
  const Device& device = x.buffer->device();
  if (inner == 1 && len > kComplexChunk && device.impl().info().dialect != Dialect::none) {
    // Long rows in chunks (kComplexChunk says how): chunk scans and totals, the totals' scan in
    // place (the column kernel over rows of `chunks`), the prefixes into the chunks.
    const std::int64_t chunks = (len + kComplexChunk - 1) / kComplexChunk;
    auto tot = make_buffer_node({outer * chunks}, t, device);
    const View& tv = tot->view();
    Work a;
    a.reads = {&x};
    a.write = &y;
    a.write2 = &tv;
    a.items = outer * chunks;
    a.key = cat("scan_complex_chunks|", static_cast<int>(t), "|", product);
    a.source = [t, product](const DialectText& d) { return complex_scan_source(d, t, product, 1); };
    a.args = [&](std::vector<KernelArg>& g) { g = {mem(x), mem(y), mem(tv), i64(x.offset), i64(y.offset), i64(outer), i64(len), i64(chunks)}; };
    run(a, t);
    complex_scan(t, tv, tv, outer, chunks, 1, product);
    Work b;
    b.reads = {&tv};
    b.write = &y;
    b.items = outer * len;
    b.key = cat("scan_complex_prefix|", static_cast<int>(t), "|", product);
    b.source = [t, product](const DialectText& d) { return complex_scan_source(d, t, product, 2); };
    b.args = [&](std::vector<KernelArg>& g) { g = {mem(tv), mem(y), i64(y.offset), i64(outer), i64(len), i64(chunks)}; };
    run(b, t);
    return;
  }
  Work w;
  w.reads = {&x};
  w.write = &y;
  w.items = outer * inner;
  w.key = cat("scan_complex|", static_cast<int>(t), "|", product);
  w.source = [t, product](const DialectText& d) { return complex_scan_source(d, t, product); };
  w.args = [&](std::vector<KernelArg>& g) {
    g = {mem(x), mem(y), i64(x.offset), i64(y.offset), i64(outer), i64(len), i64(inner)};
  };
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    if (t == DType::complex64)
      host_complex_scan(reinterpret_cast<const float*>(p[0]) + 2 * x.offset, reinterpret_cast<float*>(p[1]) + 2 * y.offset, outer, len,
                        inner, product);
    else
      host_complex_scan(reinterpret_cast<const double*>(p[0]) + 2 * x.offset, reinterpret_cast<double*>(p[1]) + 2 * y.offset, outer,
                        len, inner, product);
  };
  run(w, t);
}

}  // namespace

std::uint64_t scan_local_bytes(const DeviceInfo& info, DType t, int items, int window) {
  // The look-back kernels' local arrays (lookback_source, lookback_cpu_source), each rounded up to
  // 16 bytes for the compiler's alignment.
  auto array = [](std::uint64_t count, std::uint64_t size) { return (count * size + 15) / 16 * 16; };
  const std::uint64_t v = itemsize(t), w = static_cast<std::uint64_t>(window);
  const auto group = static_cast<std::uint64_t>(scan_group(info));
  if (group == 1) return array(w, v) + array(w, 4);
  const auto tile = static_cast<std::uint64_t>(tile_of(t, items));
  return array(tile + tile / 32, v) + array(group, v) + array(w, v) + array(w, 4) + array(3, 4) + array(1, v);
}

std::uint64_t scan_local_limit(const DeviceInfo& info) {
  // CUDA: the kernels' arrays are static __shared__ memory, of which a block may have 48 KiB
  // whatever the opt-in maximum that max_local_bytes reports (that one is for dynamic memory).
  constexpr std::uint64_t kCudaStatic = 48 * 1024;
  return info.dialect == Dialect::cuda && info.max_local_bytes > kCudaStatic ? kCudaStatic : info.max_local_bytes;
}

int scan_items(const DeviceInfo& info, DType t, std::optional<int> requested, int window) {
  const std::uint64_t limit = scan_local_limit(info);
  auto fits = [&](int items) { return limit == 0 || scan_local_bytes(info, t, items, window) <= limit; };
  int best = kScanMaxItems;
  while (best > 2 && !fits(best)) best /= 2;
  const int items = requested.value_or(best);
  if (fits(items)) return items;
  const std::string what = requested ? cat("PORTA_SCAN_ITEMS=", items, ": the scan's") : "the scan's smallest";
  const std::string fix = fits(best) ? cat("set PORTA_SCAN_ITEMS to ", best, " or less, or unset it and porta chooses")
                                     : "set PORTA_SCAN_WINDOW lower";
  throw InvalidArgument(cat(what, " tiles of ", tile_of(t, items), " ", name(t), " take ", scan_local_bytes(info, t, items, window),
                            " bytes of local memory a work-group (PORTA_SCAN_WINDOW=", window, "), and ", info.name, " has ", limit,
                            "; ", fix));
}

void scan_rows(DType t, const View& x, const View& y, std::int64_t outer, std::int64_t len, bool product) {
  check_scan_dtype(t, "scan_rows");
  if (outer * len == 0) return;
  if (is_complex(t)) return complex_scan(t, x, y, outer, len, 1, product);
  t = scan_kernel_dtype(t);
  DeviceImpl& dev = x.buffer->device().impl();
  if (dev.info().dialect == Dialect::none) {
    Work w;
    w.reads = {&x};
    w.write = &y;
    w.items = outer * len;
    w.host = [&](const std::vector<std::uint8_t*>& p) {
      by_dtype(t, [&](auto zero) {
        using T = decltype(zero);
        const T* in = reinterpret_cast<const T*>(p[0]) + x.offset;
        T* out = reinterpret_cast<T*>(p[1]) + y.offset;
        for (std::int64_t o = 0; o < outer; ++o) {
          T acc = host_identity<T>(product);
          for (std::int64_t i = 0; i < len; ++i) out[o * len + i] = acc = host_op(acc, in[o * len + i], product);
        }
      });
    };
    run(w, t);
    return;
  }
  const std::int64_t tile = tile_of(t, scan_items(dev.info(), t, requested_scan_items(), scan_window()));
  const int group = scan_group(dev.info());
  if (len <= tile / 8) {
    const std::int64_t rows_per = tile / len;
    Work w;
    w.reads = {&x};
    w.write = &y;
    w.items = outer * len;
    w.groups = static_cast<std::size_t>((outer + rows_per - 1) / rows_per);
    w.group = static_cast<std::size_t>(group);
    w.key = cat("scan_short|", static_cast<int>(t), "|", product, "|", group, "|", tile);
    w.source = [t, product, group, tile](const DialectText& d) { return short_rows_source(d, t, product, group, tile); };
    w.args = [&](std::vector<KernelArg>& g) {
      g = {mem(x), mem(y), i64(x.offset), i64(y.offset), i64(outer), i64(len), i64(rows_per)};
    };
    run(w, t);
    return;
  }
  const std::int64_t row_tiles = (len + tile - 1) / tile, tiles = outer * row_tiles;
  if (tiles >= (std::int64_t{1} << 31) - 1)
    throw InvalidArgument(cat("scan: ", outer, " rows of ", len, " elements are more tiles (", tiles,
                              ") than the look-back's 32-bit tile counter holds"));
  const Device& device = x.buffer->device();
  // status: [0] the tile counter; CPU devices: [1 + g] tile g's state (0: nothing yet, 1: aggregate,
  // 2: inclusive).
  // CPU devices: agg and incl, a value each a tile, beside status (x86 orders the stores). GPUs:
  // agg holds the tiles' 16-byte descriptors (two int64 a tile, zeroed); incl is not read.
  auto status = make_buffer_node({tiles + 1}, DType::int32, device);
  NodePtr agg, incl;
  if (group == 1) {
    agg = make_buffer_node({tiles}, t, device);
    incl = make_buffer_node({tiles}, t, device);
  } else {
    agg = make_buffer_node({2 * tiles}, DType::int64, device);
    incl = agg;
    zero_fill(agg->view(), 8, static_cast<std::size_t>(2 * tiles));
  }
  zero_fill(status->view(), 4, static_cast<std::size_t>(group == 1 ? tiles + 1 : 1));
  Work w;
  w.reads = {&x, &status->view(), &agg->view(), &incl->view()};
  w.write = &y;
  w.items = outer * len;
  w.groups = static_cast<std::size_t>(tiles);
  w.group = static_cast<std::size_t>(group);
  w.key = cat("scan_lookback2|", static_cast<int>(t), "|", product, "|", group, "|", tile, "|", scan_window(), "|", scan_blocks());
  w.source = [t, product, group, tile](const DialectText& d) {
    return group == 1 ? lookback_cpu_source(d, t, product, tile) : lookback_source(d, t, product, group, tile);
  };
  // NVIDIA's OpenCL gave the float32 look-back kernel 72 registers a work-item (three groups of
  // 256 an SM) where NVRTC gave CUDA's 55 (four): cumsum of 2^28 float32 ran at 0.70x copy on
  // opencl:1 against 0.78x on cuda:0 (H200, 2026-12-01). Its .maxnreg (in the PTX, ignored
  // elsewhere) is now what scan_blocks() groups an SM leave, as CUDA's __launch_bounds__.
  if (group > 1 && itemsize(t) == 4) w.options = ptx_maxnreg_option(group * scan_blocks());
  w.args = [&](std::vector<KernelArg>& g) {
    g = {mem(x), mem(y), mem(status->view()), mem(agg->view()), mem(incl->view()), i64(x.offset), i64(y.offset), i64(len),
         i64(row_tiles)};
  };
  run(w, t);
}

void scan_columns(DType t, const View& x, const View& y, std::int64_t outer, std::int64_t len, std::int64_t inner,
                  bool product) {
  check_scan_dtype(t, "scan_columns");
  if (outer * len * inner == 0) return;
  if (is_complex(t)) return complex_scan(t, x, y, outer, len, inner, product);
  t = scan_kernel_dtype(t);
  Work w;
  w.reads = {&x};
  w.write = &y;
  w.items = outer * inner;
  w.key = cat("scan_columns|", static_cast<int>(t), "|", product);
  // The column kernel reads neither TILE nor ITEMS (nor local memory): its text keeps the
  // requested or default tile whatever the device.
  const std::int64_t tile = tile_of(t, requested_scan_items().value_or(kScanMaxItems));
  w.source = [t, product, tile](const DialectText& d) { return columns_source(d, t, product, tile); };
  w.args = [&](std::vector<KernelArg>& g) {
    g = {mem(x), mem(y), i64(x.offset), i64(y.offset), i64(outer), i64(len), i64(inner)};
  };
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    by_dtype(t, [&](auto zero) {
      using T = decltype(zero);
      const T* in = reinterpret_cast<const T*>(p[0]) + x.offset;
      T* out = reinterpret_cast<T*>(p[1]) + y.offset;
      for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
          T acc = host_identity<T>(product);
          for (std::int64_t k = 0; k < len; ++k) {
            std::int64_t q = (o * len + k) * inner + i;
            out[q] = acc = host_op(acc, in[q], product);
          }
        }
    });
  };
  run(w, t);
}

namespace primitives {
NamedSources scan_kernel_sources(const DialectText& d) {
  NamedSources out;
  for (DType t : {DType::int64, DType::float32, DType::float64})
    for (bool product : {false, true}) {
      const std::int64_t tile = tile_of(t, kScanMaxItems);
      const std::string what = cat(name(t), product ? " product" : " sum");
      out.emplace_back(cat("scan look-back ", what), lookback_source(d, t, product, 256, tile));
      out.emplace_back(cat("scan look-back (CPU) ", what), lookback_cpu_source(d, t, product, tile));
      out.emplace_back(cat("scan short rows ", what), short_rows_source(d, t, product, 256, tile));
      out.emplace_back(cat("scan short rows (CPU) ", what), short_rows_source(d, t, product, 1, tile));
      out.emplace_back(cat("scan columns ", what), columns_source(d, t, product, tile));
    }
  for (DType t : {DType::complex64, DType::complex128})
    for (bool product : {false, true})
      for (int kind : {0, 1, 2})
        out.emplace_back(cat("scan ", name(t), product ? " product" : " sum", " kind ", kind), complex_scan_source(d, t, product, kind));
  for (auto& [what, text] : out) text = common_prelude(d) + text;
  return out;
}
}  // namespace primitives

}  // namespace porta::detail
