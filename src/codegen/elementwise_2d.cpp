// Elementwise kernels of 2-D plans with a strided or broadcast operand: row and column indices
// without a division per element, transposed inputs through a local-memory tile, and their
// launches on both launch styles.
#include <algorithm>

#include "codegen/elementwise.hpp"
#include "runtime/device_state.hpp"
#include "runtime/kernel_args.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail::elementwise {
namespace {

// Work-item indices along dimension `dim` of the launch (CUDA: threadIdx / blockIdx; the 2-D
// kernels launch 1-D grids of 2-D blocks on GPUs).
std::string local_id(const DialectText& d, int dim) {
  return d.cuda() ? cat("threadIdx.", "xyz"[dim]) : cat("get_local_id(", dim, ")");
}
std::string group_id(const DialectText& d, int dim) {
  return d.cuda() ? cat("blockIdx.", "xyz"[dim]) : cat("get_group_id(", dim, ")");
}
std::string global_id(const DialectText& d, int dim) {
  return d.cuda() ? cat("(blockIdx.", "xyz"[dim], " * (long long)blockDim.", "xyz"[dim], " + threadIdx.", "xyz"[dim], ")")
                  : cat("get_global_id(", dim, ")");
}

// The 2-D kernels: plain (every operand read at its row and column) or tiled (transposed
// inputs copied through a kTile x kTile local tile: read down their columns, used along rows).
// Parameters after the inputs, scalars and output:
//   one element per work-item: plain (cols, rbase, cbase) over a {cols, rows} range from
//   (rbase, cbase); tiled (cols) over whole tiles, groups {kTile, kTileRows}.
//   grid-stride: plain (n, cols): row and column stepped without a division per element;
//   tiled (rows, cols): groups {kTile, kTileRows} stride over the tiles, bounds tested.
// `guarded` (plain, one element per work-item): only rows below rend and columns below cend,
// for groups that pass the end of a row or of the plan.
KernelSource generate_2d(const ElementwisePlan& plan, const Layout& l, const DialectText& d, bool tiled, bool guarded = false) {
  const std::string idx = d.index_type(l.in.wide);
  const bool strided_out = l.output == Access::strided;
  std::string src = d.prelude(plan_uses_fp64(plan), plan_uses_random(plan), plan_uses_complex(plan));
  InputCode ic = input_code_2d(d, plan, l.in);
  std::vector<std::string> params = ic.params;
  params.push_back(cat(d.global_out_ptr(plan.output.dtype), " out"));
  params.push_back(cat("const ", idx, " off_out"));
  if (l.out_terms.row == Term::param) params.push_back(cat("const ", idx, " sto_0"));
  if (l.out_terms.col == Term::param) params.push_back(cat("const ", idx, " sto_1"));
  if (l.grid_stride) params.push_back(cat("const ", idx, tiled ? " rows" : " n"));
  params.push_back(cat("const ", idx, " cols"));
  if (!l.grid_stride && !tiled) {
    params.push_back(cat("const ", idx, " rbase"));
    params.push_back(cat("const ", idx, " cbase"));
    if (guarded) {
      params.push_back(cat("const ", idx, " rend"));
      params.push_back(cat("const ", idx, " cend"));
    }
  }
  const std::string name = tiled ? "porta_elementwise_tiled" : "porta_elementwise";
  src += cat(d.kernel_prefix(), name, "(", join(params, ", "), ") {\n", ic.uniform_loads);

  // Tiles: element (a, b) of the tile (row r0 + a, column c0 + b) at [b * (kTile + 1) + a].
  std::vector<std::string> reads = ic.reads;
  std::string fill;
  const std::string pitch = std::to_string(kTile + 1);
  if (tiled) {
    for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
      if (l.in.access[k] != Access::strided) continue;
      Terms2 terms = classify_2d(plan.inputs[k].strides);
      if (!terms.transposed()) continue;
      const DType t = plan.inputs[k].dtype;
      const bool flag = t == DType::boolean;  // bool is no type for local memory: uchar 0/1
      src += cat("  ", d.local_array(flag ? d.storage_type(t) : d.compute_type(t), cat("t", k), std::to_string(kTile * (kTile + 1))), "\n");
      std::string value = d.load(t, cat("in", k), position_2d(terms, cat("off", k), cat("st", k, "_"), "row", "col"));
      fill += cat("      t", k, "[(ly + j) * ", pitch, " + lx] = ", flag ? cat("(", d.storage_type(t), ")(", value, ")") : value, ";\n");
      std::string at = cat("t", k, "[lx * ", pitch, " + ly + j]");
      reads[k] = flag ? cat("(", at, " != 0)") : at;
    }
  }
  const std::string store_at = strided_out ? position_2d(l.out_terms, "off_out", "sto_", "row", "col") : "off_out + e";
  const std::string element = cat("    const ", idx, " e = row * cols + col;\n", emit_instructions(d, plan, reads, "e", ""), "    ",
                                  d.store(plan.output.dtype, "out", store_at, cat("v", plan.result)), "\n");

  if (!tiled && !l.grid_stride) {
    // One work-item per element and no bounds test (see generate()).
    src += cat("  const ", idx, " col = cbase + (", idx, ")", global_id(d, 0), ";\n  const ", idx, " row = rbase + (", idx, ")",
               global_id(d, 1), ";\n  ", guarded ? "if (row < rend && col < cend) " : "", "{\n", element, "  }\n}\n");
    return {src, name, {}};
  }
  if (!tiled) {
    // Grid-stride over the linear index; the row and column advance by the grid's size, which
    // is gq rows and gr columns, with at most one carry.
    src += cat("  const ", idx, " gid = (", idx, ")", d.global_id(), ";\n  const ", idx, " gsz = (", idx, ")", d.global_size(), ";\n",
               "  const ", idx, " gq = gsz / cols, gr = gsz - gq * cols;\n",
               "  ", idx, " row = gid / cols, col = gid - row * cols;\n",
               "  for (", idx, " e_ = gid; e_ < n; e_ += gsz) {\n  {\n", element, "  }\n",
               "    col += gr; row += gq;\n    if (col >= cols) { col -= cols; ++row; }\n  }\n}\n");
    return {src, name, {}};
  }
  src += cat("  const int lx = (int)", local_id(d, 0), ", ly = (int)", local_id(d, 1), ";\n");
  std::string guard, end_tile;
  if (l.grid_stride) {
    src += cat("  const ", idx, " tiles_c = (cols + ", kTile - 1, ") / ", kTile, ";\n  const ", idx, " tiles = tiles_c * ((rows + ",
               kTile - 1, ") / ", kTile, ");\n  for (", idx, " tile = (", idx, ")", group_id(d, 0), "; tile < tiles; tile += (", idx, ")",
               d.cuda() ? "gridDim.x" : "get_num_groups(0)", ") {\n",
               "    const ", idx, " tr = tile / tiles_c;\n    const ", idx, " r0 = tr * ", kTile, ", c0 = (tile - tr * tiles_c) * ", kTile, ";\n");
    guard = "if (row < rows && col < cols) ";
    end_tile = cat("    ", d.barrier(), "\n  }\n}\n");  // the next tile overwrites the tiles
  } else {
    src += cat("  {\n    const ", idx, " r0 = (", idx, ")", group_id(d, 1), " * ", kTile, ", c0 = (", idx, ")", group_id(d, 0), " * ",
               kTile, ";\n");
    end_tile = "  }\n}\n";
  }
  src += cat("    for (int j = 0; j < ", kTile, "; j += ", kTileRows, ") {\n      const ", idx, " row = r0 + lx, col = c0 + ly + j;\n      ",
             guard, "{\n", fill, "      }\n    }\n    ", d.barrier(), "\n");
  src += cat("    for (int j = 0; j < ", kTile, "; j += ", kTileRows, ") {\n      const ", idx, " row = r0 + ly + j, col = c0 + lx;\n      ",
             guard, "{\n", element, "      }\n    }\n", end_tile);
  return {src, name, {}};
}

// CPU devices (one work-item per element, OpenCL): a plan that only copies one transposed input
// (stride 1 down its columns) of 4 or 8 bytes into a contiguous output, as `a.T = y` and
// `x.T.copy()` are, goes through registers instead of the local tile: a work-item reads T
// columns of a T x T tile as T vectors (each T consecutive elements of the input's memory) and
// writes the tile's T rows as vectors built lane by lane. 4096 x 4096 float32 on PoCL (2 cores):
// 8.7 GB/s read + write against 2.4 for the local tile (copy 22 in the same run).
int cpu_transpose_tile(const ElementwisePlan& plan, const Layout& l, const DialectText& d) {
  if (l.grid_stride || d.dialect != Dialect::opencl || plan.shape.size() != 2 || plan.inputs.size() != 1) return 0;
  if (plan.code.size() != 1 || plan.code[0].op != Op::load || plan.result != 0 || l.output != Access::contiguous) return 0;
  const PlanInput& in = plan.inputs[0];
  if (in.dtype != plan.output.dtype || in.strides.size() != 2 || in.strides[0] != 1 || in.strides[1] < plan.shape[0]) return 0;
  if (is_complex(in.dtype)) return 0;  // no OpenCL vectors of the complex structs
  const std::size_t size = itemsize(in.dtype);
  const int t = size == 4 ? 16 : size == 8 ? 8 : 0;
  if (t == 0 || plan.shape[0] < t || plan.shape[1] < t) return 0;
  return t;
}

KernelSource generate_cpu_transpose(DType dtype, int t, const DialectText& d) {
  const std::string T = cat(d.storage_type(dtype), t), n = std::to_string(t);
  std::string s = d.prelude(dtype == DType::float64, false);
  s += cat(d.kernel_prefix(), "porta_transpose_cpu(", d.global_ptr(dtype), " in0, const long off0, const long st0_1, ",
           d.global_out_ptr(dtype), " out, const long off_out, const long cols) {\n  const long c0 = (long)get_global_id(0) * ", t,
           ", r0 = (long)get_global_id(1) * ", t, ";\n");
  for (int k = 0; k < t; ++k) s += cat("  const ", T, " a", k, " = vload", n, "(0, in0 + off0 + r0 + (c0 + ", k, ") * st0_1);\n");
  for (int j = 0; j < t; ++j) {
    s += cat("  vstore", n, "((", T, ")(");
    for (int k = 0; k < t; ++k) s += cat(k ? ", " : "", "a", k, ".s", "0123456789abcdef"[j]);
    s += cat("), 0, out + off_out + (r0 + ", j, ") * cols + c0);\n");
  }
  s += "}\n";
  return {s, "porta_transpose_cpu", {}};
}

}  // namespace

void run_2d(DeviceImpl& device, const std::shared_ptr<QueueImpl>& q, const ElementwisePlan& plan, const Layout& l,
            const DialectText& d) {
  const DeviceInfo& info = device.info();
  const std::int64_t rows = plan.shape[0], cols = plan.shape[1];
  KernelArgs common(l.in.wide);
  push_input_args_2d(common, plan, l.in);
  common.memory(plan.output.handle);
  common.index(plan.output.offset);
  if (l.out_terms.row == Term::param) common.index(plan.output.strides[0]);
  if (l.out_terms.col == Term::param) common.index(plan.output.strides[1]);
  auto plain = [&] { return device.state().kernels().get(l.key, [&] { return generate_2d(plan, l, d, false); }); };
  auto tiled = [&] { return device.state().kernels().get(l.key + "|t", [&] { return generate_2d(plan, l, d, true); }); };

  if (l.grid_stride) {
    const std::size_t max_groups = std::max<std::size_t>(info.launch.max_groups, 1);
    LaunchDims dims;
    KernelArgs args = common;
    if (l.tiled) {
      const std::int64_t tiles = ((rows + kTile - 1) / kTile) * ((cols + kTile - 1) / kTile);
      const auto groups = std::min<std::size_t>(static_cast<std::size_t>(tiles), max_groups);
      args.index(rows);
      args.index(cols);
      dims.global = {groups * kTile, kTileRows, 1};
      dims.local = {kTile, kTileRows, 1};
      device.launch(*q, *tiled(), dims, args.args());
      return;
    }
    const std::size_t group = info.launch.group_size ? info.launch.group_size : 256;
    const std::int64_t n = rows * cols;
    const std::size_t groups = std::clamp<std::size_t>(static_cast<std::size_t>((n + static_cast<std::int64_t>(group) - 1) /
                                                                              static_cast<std::int64_t>(group)),
                                                       1, max_groups);
    args.index(n);
    args.index(cols);
    dims.global[0] = groups * group;
    dims.local[0] = group;
    device.launch(*q, *plain(), dims, args.args());
    return;
  }
  // One work-item per element: the whole tiles, then the plain kernel over the rest (the
  // columns right of them, the rows below them), each a {cols, rows} range from its corner.
  std::int64_t tile_rows = 0, tile_cols = 0;
  if (const int t = cpu_transpose_tile(plan, l, d)) {
    tile_rows = rows / t * t;
    tile_cols = cols / t * t;
    const PlanInput& in = plan.inputs[0];
    auto kernel = device.state().kernels().get(cat("ewT|", static_cast<int>(in.dtype), "|", t),
                                               [&] { return generate_cpu_transpose(in.dtype, t, d); });
    KernelArgs args(true);
    args.memory(in.handle);
    args.index(in.offset);
    args.index(in.strides[1]);
    args.memory(plan.output.handle);
    args.index(plan.output.offset);
    args.index(cols);
    const std::size_t gx = static_cast<std::size_t>(tile_cols / t), gy = static_cast<std::size_t>(tile_rows / t);
    std::size_t lx = 16;
    while (gx % lx) lx /= 2;
    LaunchDims dims;
    dims.global = {gx, gy, 1};
    dims.local = {lx, 1, 1};
    device.launch(*q, *kernel, dims, args.args());
  } else if (l.tiled) {
    tile_rows = rows / kTile * kTile;
    tile_cols = cols / kTile * kTile;
    KernelArgs args = common;
    args.index(cols);
    LaunchDims dims;
    dims.global = {static_cast<std::size_t>(tile_cols), static_cast<std::size_t>(tile_rows / kTile * kTileRows), 1};
    dims.local = {kTile, kTileRows, 1};
    device.launch(*q, *tiled(), dims, args.args());
  }
  // Rows of whole groups of kCpuGroup work-items (PoCL vectorises along them), then the rest of
  // the rows through the guarded variant in groups of kGuard x kGuard (fixed local sizes: PoCL
  // compiles a kernel once per local size).
  auto launch = [&](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1, bool guarded) {
    if (r1 <= r0 || c1 <= c0) return;
    KernelArgs args = common;
    args.index(cols);
    args.index(r0);
    args.index(c0);
    LaunchDims dims;
    if (guarded) {
      constexpr std::int64_t kGuard = 16;
      args.index(r1);
      args.index(c1);
      auto up = [](std::int64_t v) { return static_cast<std::size_t>((v + kGuard - 1) / kGuard * kGuard); };
      dims.global = {up(c1 - c0), up(r1 - r0), 1};
      dims.local = {kGuard, kGuard, 1};
    } else {
      dims.global = {static_cast<std::size_t>(c1 - c0), static_cast<std::size_t>(r1 - r0), 1};
      dims.local = {static_cast<std::size_t>(kCpuGroup), 1, 1};
    }
    auto kernel = guarded ? device.state().kernels().get(l.key + "|g", [&] { return generate_2d(plan, l, d, false, true); })
                          : plain();
    device.launch(*q, *kernel, dims, args.args());
  };
  auto part = [&](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
    const std::int64_t whole = (c1 - c0) / kCpuGroup * kCpuGroup;
    launch(r0, r1, c0, c0 + whole, false);
    launch(r0, r1, c0 + whole, c1, true);
  };
  part(0, rows, tile_cols, cols);
  part(tile_rows, rows, 0, tile_cols);
}

}  // namespace porta::detail::elementwise
