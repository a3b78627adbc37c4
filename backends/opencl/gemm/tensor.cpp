// Matrix products on NVIDIA's tensor cores through OpenCL: which kernel and configuration a
// product takes, and the launches. Three kernels serve them:
//  gemm/mma.hpp  float64 only, whole tiles of row-major operands with even strides (the FP64
//                kernel measured first, kept for the products it fits);
//  gemm/tc.hpp   float16, bfloat16, float32 as TF32 and float64, any shape, transpose, offset and
//                leading dimension (a guarded variant beside the fast one), on mma.sync;
//  gemm/wg.hpp   float16, bfloat16 and TF32 on Hopper's warpgroup MMA (compute capability 9.0),
//                any shape and transpose whose rows are 16-byte aligned (TF32 through a transposed
//                copy of a row-major B); other products take the next configuration ranked.
// On a device that has the instructions (tc_native: NVIDIA's platform, compute capability 8.0+,
// 9.0+ for float64) every product of those dtypes goes to them (float32 only when TF32 is
// allowed: PORTA_MATMUL=tf32 or the API), unless PORTA_OPENCL_GEMM_SHAPE asks for the tiled
// kernel. The configurations of a dtype are ranked by the timed, checked search of
// gemm/search.hpp on its first product (kept in the disk cache); a product takes the fastest
// that fits it. PORTA_OPENCL_GEMM=mma takes these kernels on any device, the instructions
// emulated where the device lacks them (PoCL in CI: a test of the indexing, not a fast path);
// =mma:CONFIG (mma16x8x8:128x128x8:w64x32, tc128x128x32:w64x64:ldsm, ...) uses that one
// configuration, and a product of its dtypes that it does not fit is an error.
// PORTA_OPENCL_GEMM_CANDIDATES=CONFIG,... replaces the searched configurations (for tuning).
#include <algorithm>
#include <cctype>
#include <climits>
#include <map>

#include "porta_backend/services.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"
#include "opencl/gemm/kernel.hpp"
#include "opencl/gemm/mma.hpp"
#include "opencl/gemm/search.hpp"
#include "opencl/gemm/tc.hpp"
#include "opencl/gemm/wg.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {
namespace {

// One configuration of any of the kernels.
struct TensorConfig {
  std::optional<MmaParams> mma;  // the FP64 kernel
  TcParams tc;                   // the mma.sync kernel, unless `mma` or `wg` is set
  std::optional<WgParams> wg;    // the warpgroup-MMA kernel
  std::string text() const { return mma ? mma->text() : wg ? wg->text() : tc.text(); }
  int threads() const { return mma ? mma->threads() : wg ? wg->threads() : tc.threads(); }
  int tile_m() const { return mma ? mma->tile_m : wg ? wg->tile_m : tc.tile_m; }
  int tile_n() const { return mma ? mma->tile_n : wg ? wg->tile_n : tc.tile_n; }
  // Which dtypes it serves.
  bool serves(DType t) const {
    return mma ? t == DType::float64 : wg ? wg->invalid_reason(t).empty() : tc.invalid_reason(t).empty();
  }
};

std::optional<TensorConfig> parse_tensor_config(const std::string& text) {
  if (auto m = parse_mma_params(text)) return TensorConfig{m, {}, std::nullopt};
  if (auto w = parse_wg_params(text)) return TensorConfig{std::nullopt, {}, w};
  if (auto p = parse_tc_params(text)) {
    for (DType t : {DType::float16, DType::float32, DType::float64})
      if (p->invalid_reason(t).empty()) return TensorConfig{std::nullopt, *p, std::nullopt};
  }
  return std::nullopt;
}

std::vector<TensorConfig> tensor_candidates(DType t) {
  std::vector<TensorConfig> all;
  for (const WgParams& w : gemm_wg_candidates(t)) all.push_back({std::nullopt, {}, w});
  if (t == DType::float64)
    for (const MmaParams& m : gemm_mma_candidates()) all.push_back({m, {}, std::nullopt});
  for (const TcParams& p : gemm_tc_candidates(t)) all.push_back({std::nullopt, p, std::nullopt});
  return all;
}

// The configurations a search ranks: tensor_candidates, or those of PORTA_OPENCL_GEMM_CANDIDATES
// (a list of configurations separated by commas or white space, for tuning: the ones that serve `t`
// are ranked; the ranking's disk-cache key holds the list).
std::vector<TensorConfig> searched_candidates(DType t) {
  auto v = setting_text("PORTA_OPENCL_GEMM_CANDIDATES");
  if (!v) return tensor_candidates(t);
  std::string text = *v;
  for (char& ch : text)
    if (ch == ',' || std::isspace(static_cast<unsigned char>(ch))) ch = ' ';
  std::vector<TensorConfig> all;
  for (const std::string& item : detail::split(text, ' ')) {
    if (item.empty()) continue;
    auto c = parse_tensor_config(item);
    if (!c) {
      detail::bad_setting("PORTA_OPENCL_GEMM_CANDIDATES", *v,
                          detail::cat("'", item, "' names no tensor-core configuration (such as tc128x128x32:w64x64:ldsm:s3)"));
      return tensor_candidates(t);  // a bad value under a warning policy: the default
    }
    if (c->serves(t)) all.push_back(*c);
  }
  return all;
}

// `wgmma`: whether the device runs the warpgroup-MMA kernel natively (wg_native).
std::string unfit_device(const TensorConfig& c, DType t, bool emulate, bool wgmma, std::uint64_t local_mem,
                         std::size_t max_group) {
  std::string r = c.mma ? c.mma->invalid_reason() : c.wg ? c.wg->invalid_reason(t) : c.tc.invalid_reason(t);
  if (!r.empty()) return r;
  if (!c.serves(t)) return detail::cat("does not serve ", name(t));
  if (c.wg && !emulate && !wgmma) return "needs wgmma (NVIDIA's OpenCL on a GPU of compute capability 9.0)";
  const std::size_t local = c.mma ? c.mma->local_bytes(emulate) : c.wg ? c.wg->local_bytes(t) : c.tc.local_bytes(t, emulate);
  if (local > local_mem)
    return detail::cat("needs ", detail::format_bytes(local), " of local memory, the device has ", detail::format_bytes(local_mem));
  if (static_cast<std::size_t>(c.threads()) > max_group)
    return detail::cat("needs work-groups of ", c.threads(), ", the device allows ", max_group);
  return {};
}

// TF32's warpgroup MMA takes B K-major only (transposed): a row-major B is first copied transposed
// into a scratch buffer of batch x N x K (one, when every product of the batch shares B), and the
// product runs as `transposed_b` says.
bool needs_b_transposed(const TensorConfig& c, const MatmulArgs& g) {
  return c.wg && g.dtype == DType::float32 && !g.trans_b;
}
// Its rows are k rounded up to 4 floats (16 bytes, as the kernel's loads need).
MatmulArgs transposed_b(const MatmulArgs& g, Handle scratch) {
  MatmulArgs t = g;
  t.b = scratch;
  t.trans_b = true;
  t.ldb = (g.k + 3) / 4 * 4;
  t.b_offset = 0;
  t.stride_b = g.stride_b == 0 ? 0 : g.n * t.ldb;
  return t;
}

std::string unfit_product(const TensorConfig& c, const MatmulArgs& g) {
  if (!c.serves(g.dtype)) return detail::cat("does not serve ", name(g.dtype));
  if (c.wg) return wg_unfit_reason(*c.wg, needs_b_transposed(c, g) ? transposed_b(g, nullptr) : g);
  return c.mma ? mma_unfit_reason(*c.mma, g) : tc_unfit_reason(c.tc, g);
}

// B (float32, K x N rows of ldb) copied to N x K rows of lds, per product of the batch: 32 x 32
// tiles through local memory, so that both the reads and the writes are coalesced.
const char* const kTransposeSource = R"(
__kernel __attribute__((reqd_work_group_size(32, 8, 1)))
void porta_transpose_b(__global const float* restrict B, const long b_off, const long ldb, const long stride_b,
                       __global float* restrict S, const long lds, const int K, const int N) {
  __local float tile[32][33];
  const long z = get_group_id(2);
  B += b_off + z * stride_b;
  S += z * (long)N * lds;
  const int n0 = get_group_id(0) * 32, k0 = get_group_id(1) * 32, tx = get_local_id(0), ty = get_local_id(1);
  for (int j = ty; j < 32; j += 8)
    if (k0 + j < K && n0 + tx < N) tile[j][tx] = B[(long)(k0 + j) * ldb + n0 + tx];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int j = ty; j < 32; j += 8)
    if (n0 + j < N && k0 + tx < K) S[(long)(n0 + j) * lds + k0 + tx] = tile[tx][j];
}
)";

void transpose_b(Device& dev, QueueImpl& q, const MatmulArgs& g, Handle scratch, std::int64_t lds) {
  auto kernel = detail::cached_kernel(dev, "opencl-gemm-transpose-b",
                                      [] { return KernelSource{kTransposeSource, "porta_transpose_b", {}}; });
  const std::int64_t batch = g.stride_b == 0 ? 1 : g.batch;
  LaunchDims dims;
  dims.global = {static_cast<std::size_t>((g.n + 31) / 32 * 32), static_cast<std::size_t>((g.k + 31) / 32 * 8),
                 static_cast<std::size_t>(batch)};
  dims.local = {32, 8, 1};
  const KernelArg args[] = {KernelArg::memory(g.b), KernelArg::scalar<std::int64_t>(g.b_offset),
                            KernelArg::scalar<std::int64_t>(g.ldb), KernelArg::scalar<std::int64_t>(g.stride_b),
                            KernelArg::memory(scratch), KernelArg::scalar<std::int64_t>(lds),
                            KernelArg::scalar<std::int32_t>(static_cast<std::int32_t>(g.k)),
                            KernelArg::scalar<std::int32_t>(static_cast<std::int32_t>(g.n))};
  dev.launch(q, *kernel, dims, args);
}

std::shared_ptr<Kernel> tensor_program(Device& dev, const TensorConfig& c, const MatmulArgs& g, bool emulate) {
  KernelSource src;
  if (c.mma) {
    src.source = std::string(kGemmCommonSource) + kMmaSource;
    src.entry = kMmaEntry;
    src.options = mma_options(*c.mma, emulate, g.subtract);
  } else if (c.wg) {
    src.source = std::string(kGemmCommonSource) + wg_prelude(*c.wg, g.dtype) + kWgSource;
    src.entry = kWgEntry;
    src.options = wg_options(*c.wg, g.dtype, g.trans_a, g.trans_b || needs_b_transposed(c, g), !wg_whole_tiles(*c.wg, g), emulate);
  } else {
    src.source = std::string(kGemmCommonSource) + kTcSource;
    src.entry = kTcEntry;
    src.options = tc_options(c.tc, g.dtype, tc_fits_fast(c.tc, g), emulate, g.subtract);
  }
  std::string key =
      detail::cat(c.mma ? "opencl-gemm-mma|" : c.wg ? "opencl-gemm-wg|" : "opencl-gemm-tc|", detail::join(src.options, " "));
  return std::static_pointer_cast<Kernel>(detail::cached_kernel(dev, key, [&] { return src; }));
}

// One launch for the whole batch: work-groups of the kernel's warps along dimension 0, one row of
// them per product of the batch along dimension 1 (after B's transpose where needs_b_transposed).
void tensor_launch(Device& dev, QueueImpl& q, Kernel& kernel, const TensorConfig& c, const MatmulArgs& product) {
  if (needs_b_transposed(c, product)) {
    MatmulArgs t = transposed_b(product, nullptr);
    const std::size_t bytes = static_cast<std::size_t>((product.stride_b == 0 ? 1 : product.batch) * product.n * t.ldb) * 4;
    t.b = dev.queue_of(q).scratch(bytes);
    transpose_b(dev, q, product, t.b, t.ldb);
    tensor_launch(dev, q, kernel, TensorConfig{std::nullopt, {}, c.wg}, t);
    return;
  }
  const MatmulArgs& g = product;
  using I32 = std::int32_t;
  using I64 = std::int64_t;
  const auto threads = static_cast<std::size_t>(c.threads());
  const int bm = c.tile_m(), bn = c.tile_n();
  const auto blocks = static_cast<std::size_t>(((g.m + bm - 1) / bm) * ((g.n + bn - 1) / bn));
  LaunchDims dims;
  dims.global = {blocks * threads, static_cast<std::size_t>(g.batch), 1};
  dims.local = {threads, 1, 1};
  const KernelArg args[] = {
      KernelArg::scalar<I32>(static_cast<I32>(g.m)), KernelArg::scalar<I32>(static_cast<I32>(g.n)),
      KernelArg::scalar<I32>(static_cast<I32>(g.k)),
      KernelArg::memory(g.a), KernelArg::scalar<I64>(g.a_offset), KernelArg::scalar<I64>(g.lda),
      KernelArg::scalar<I64>(g.stride_a),
      KernelArg::memory(g.b), KernelArg::scalar<I64>(g.b_offset), KernelArg::scalar<I64>(g.ldb),
      KernelArg::scalar<I64>(g.stride_b),
      KernelArg::memory(g.c), KernelArg::scalar<I64>(g.c_offset), KernelArg::scalar<I64>(g.ldc),
      KernelArg::scalar<I64>(g.stride_c),
      KernelArg::scalar<I32>(g.trans_a ? 1 : 0), KernelArg::scalar<I32>(g.trans_b ? 1 : 0),
  };
  // The FP64 and warpgroup-MMA kernels take the first 15 arguments (no transposes).
  dev.launch(q, kernel, dims, std::span<const KernelArg>(args, c.mma || c.wg ? 15 : 17));
}

// The work-items of a compiled kernel's group, or why the configuration cannot run (empty when it can).
std::string group_unfit(const Kernel& k, const TensorConfig& c) {
  if (k.max_group_size() >= static_cast<std::size_t>(c.threads())) return {};
  return detail::cat(c.text(), " needs work-groups of ", c.threads(), ", the compiled kernel allows ", k.max_group_size());
}

// "float16", or "float32 as TF32".
std::string dtype_text(DType t) { return t == DType::float32 ? "float32 as TF32" : std::string(name(t)); }

}  // namespace

bool Device::matmul_tensor(QueueImpl& q, const MatmulArgs& g, bool forced, const std::string& only) {
  if (!tc_dtype(g.dtype) || (g.dtype == DType::float32 && !g.allow_tf32)) return false;
  // The FP64 and tc kernels subtract (MatmulArgs::subtract) float32 and float64 products; the
  // warpgroup kernel does not (a subtracting product skips its configurations).
  if (g.subtract && g.dtype != DType::float64 && g.dtype != DType::float32) return false;
  if (g.dtype == DType::float64 && !info_.dtypes[static_cast<int>(DType::float64)]) return false;
  const bool native = tc_native(g.dtype, info_.platform, nv_compute_capability_);
  const bool wgmma = wg_native(g.dtype, info_.platform, nv_compute_capability_);
  if (!native && !forced) return false;
  const auto local_mem = device_value<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE);
  const auto max_group = device_value<std::size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  const std::string product = detail::cat(dtype_text(g.dtype), " matmul ", g.batch, "x", g.m, "x", g.n, "x", g.k);
  std::vector<TensorConfig> order;
  if (!only.empty()) {
    auto c = parse_tensor_config(only);
    if (!c) throw InvalidArgument(detail::cat("PORTA_OPENCL_GEMM=mma:", only, " names no tensor-core configuration"));
    if (!c->serves(g.dtype))
      throw InvalidArgument(detail::cat("PORTA_OPENCL_GEMM=mma:", only, ": the ", product, " on ", label_,
                                        " is not of a dtype this configuration serves; use PORTA_OPENCL_GEMM=mma"));
    if (auto r = unfit_device(*c, g.dtype, !native, wgmma, local_mem, max_group); !r.empty())
      throw InvalidArgument(detail::cat("PORTA_OPENCL_GEMM=mma:", only, " does not fit ", label_, ": it ", r));
    order.push_back(*c);
  } else if (native) {
    for (const std::string& text : tensor_ranking(q, g.dtype, small_gemm(g)))
      if (auto c = parse_tensor_config(text)) order.push_back(*c);
  } else {
    // Emulated: the configurations with the fewest MMAs a warp first (the cheapest to compile;
    // the warpgroup kernel's last).
    for (const TensorConfig& c : tensor_candidates(g.dtype))
      if (unfit_device(c, g.dtype, true, false, local_mem, max_group).empty()) order.push_back(c);
    std::stable_sort(order.begin(), order.end(), [](const TensorConfig& a, const TensorConfig& b) {
      auto size = [](const TensorConfig& c) {
        return c.mma ? c.mma->warp_m * c.mma->warp_n : c.wg ? INT_MAX : c.tc.warp_m * c.tc.warp_n;
      };
      return size(a) < size(b);
    });
  }
  const TensorConfig* chosen = nullptr;
  std::string why = order.empty() ? "no configuration fits the device" : "";
  for (const TensorConfig& c : order) {
    if (g.subtract && c.wg) continue;
    std::string r = unfit_product(c, g);
    if (r.empty()) {
      chosen = &c;
      break;
    }
    if (why.empty()) why = detail::cat(c.text(), ": ", r);
  }
  if (!chosen && !only.empty())
    throw InvalidArgument(detail::cat("PORTA_OPENCL_GEMM=mma:", only, ": the ", product, " on ", label_,
                                      " does not fit this configuration (", why,
                                      "); use PORTA_OPENCL_GEMM=mma to let such products take another kernel"));
  if (!chosen) {
    PORTA_LOG(debug, label_, ": ", product, " not on the tensor cores (", why, ")");
    return false;
  }
  auto kernel = tensor_program(*this, *chosen, g, !native);
  if (auto r = group_unfit(*kernel, *chosen); !r.empty()) {
    if (forced) throw DeviceError(detail::cat(label_, ": ", r, "; use another PORTA_OPENCL_GEMM"));
    PORTA_LOG(info, label_, ": ", r, "; the product takes the tiled kernel");
    return false;
  }
  PORTA_LOG(debug, label_, ": ", product, " on the tensor cores with ", chosen->text(),
            chosen->mma || (chosen->wg ? wg_whole_tiles(*chosen->wg, g) : tc_fits_fast(chosen->tc, g)) ? "" : " (guarded edges)",
            native ? "" : " (emulated)");
  tensor_launch(*this, q, *kernel, *chosen, g);
  return true;
}

std::vector<std::string> Device::tensor_ranking(QueueImpl& q, DType t, bool small) {
  GemmTuning& tuning = gemm_tuning();
  std::lock_guard lock(tuning.m);
  if (auto it = tuning.tensor_ranked.find({t, small}); it != tuning.tensor_ranked.end()) return it->second;
  const auto local_mem = device_value<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE);
  const auto max_group = device_value<std::size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  GemmSearch s;
  s.what = detail::cat(label_, ": ", dtype_text(t), " GEMM on the tensor cores, ", small ? "small" : "large", " products");
  s.kind = "tensor";
  s.dtype = t;
  s.tf32 = t == DType::float32;
  s.round_to = 256;
  s.small = small;
  // Both kernels' sources key the ranking.
  static const std::string sources = std::string(kGemmCommonSource) + kMmaSource + kTcSource + kWgSource;
  s.source = sources.c_str();
  std::vector<TensorConfig> configs;
  std::vector<GemmCandidate> candidates;
  std::string skipped;
  const bool wgmma = wg_native(t, info_.platform, nv_compute_capability_);
  for (const TensorConfig& c : searched_candidates(t)) {
    if (auto r = unfit_device(c, t, false, wgmma, local_mem, max_group); !r.empty()) {
      skipped += detail::cat(" ", c.text(), " (", r, ")");
      continue;
    }
    configs.push_back(c);
  }
  for (const TensorConfig& c : configs) {
    candidates.push_back({c.text(), [this, &q, c](const MatmulArgs& g) -> std::string {
                            if (auto r = unfit_product(c, g); !r.empty()) return r;
                            auto kernel = tensor_program(*this, c, g, false);
                            if (auto r = group_unfit(*kernel, c); !r.empty()) return r;
                            tensor_launch(*this, q, *kernel, c, g);
                            return {};
                          }});
  }
  if (!skipped.empty()) PORTA_LOG(info, s.what, ": did not fit the device:", skipped);
  std::vector<std::string> ranked;
  for (std::size_t i : rank_gemm_candidates(*this, q, s, candidates)) ranked.push_back(configs[i].text());
  if (ranked.empty()) PORTA_LOG(info, s.what, ": no configuration ran; ", name(t), " takes the tiled kernel");
  return tuning.tensor_ranked[{t, small}] = ranked;
}

}  // namespace porta::opencl
