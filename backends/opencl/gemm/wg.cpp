// The parameters and fitting rules of porta's warpgroup-MMA GEMM (gemm/wg.hpp); the kernel is
// kernels/gemm_wg.cl.
#include "opencl/gemm/wg.hpp"

#include <climits>
#include <cstdio>

#include "porta_backend/strings.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {

std::string WgParams::text() const {
  return detail::cat("wg", tile_m, "x", tile_n, "x", tile_k, ":g", groups, ":s", stages, overlap ? ":o" : "",
                     mma_first ? ":m" : "", regs ? detail::cat(":r", regs) : "");
}

namespace {
int elem_bytes(DType t) { return static_cast<int>(itemsize(t)); }
}  // namespace

std::size_t WgParams::local_bytes(DType t) const {
  return static_cast<std::size_t>(stages) * static_cast<std::size_t>(elem_bytes(t)) *
         (static_cast<std::size_t>(tile_m) * tile_k + static_cast<std::size_t>(tile_k) * tile_n);
}

std::string WgParams::invalid_reason(DType t) const {
  if (t != DType::float16 && t != DType::bfloat16 && t != DType::float32)
    return detail::cat("the warpgroup-MMA kernel takes float16, bfloat16 and float32 (as TF32), not ", name(t));
  const int kb = tile_k * elem_bytes(t);
  if (kb != 32 && kb != 64 && kb != 128)
    return detail::cat("BK must make rows of 32, 64 or 128 bytes (the swizzles): 16, 32 or 64 for 16-bit types, 8, 16 or 32 for TF32");
  if (tile_n <= 0 || tile_n % 64 || tile_n > 256) return "BN must be 64, 128, 192 or 256";
  if (groups < 1 || groups > 4) return "1 to 4 warpgroups";
  if (tile_m <= 0 || tile_m % (64 * groups)) return "BM must be a multiple of 64 times the warpgroups";
  if (tile_m / (64 * groups) * tile_n / 2 > 128) return "more than 128 accumulators a work-item";
  if (stages < 2 || stages > 6) return "2 to 6 stages";
  if (overlap && stages < 3) return "overlapping the MMAs with the next slice's wait takes 3 or more stages";
  if (auto r = register_bound_reason(regs); !r.empty()) return r;
  const int piece = 16 / elem_bytes(t);
  if ((tile_m * tile_k / piece) % threads() || (tile_k * tile_n / piece) % threads())
    return detail::cat("the ", threads(), " work-items must copy the A and B slices in whole 16-byte pieces");
  return {};
}

std::optional<WgParams> parse_wg_params(const std::string& text) {
  WgParams p;
  int used = 0;
  if (std::sscanf(text.c_str(), "wg%dx%dx%d:g%d:s%d%n", &p.tile_m, &p.tile_n, &p.tile_k, &p.groups, &p.stages, &used) != 5)
    return std::nullopt;
  std::string rest = text.substr(static_cast<std::size_t>(used));
  if (rest.starts_with(":o")) {
    p.overlap = true;
    rest = rest.substr(2);
  }
  if (rest.starts_with(":m")) {
    p.mma_first = true;
    rest = rest.substr(2);
  }
  p.regs = parse_register_bound(rest);
  if (p.text() != text) return std::nullopt;  // nothing after the last field, no leading zeros or signs
  if (!p.invalid_reason(DType::float16).empty() && !p.invalid_reason(DType::float32).empty()) return std::nullopt;
  return p;
}

// The candidates, fastest first by the searches' timings on an H200 through NVIDIA's OpenCL
// (2026-12-01 22:54-23:32 UTC, PORTA_OPENCL_GEMM_CANDIDATES with PORTA_OPENCL_GEMM_SEARCH=4096,8192),
// TFLOP/s at 4096 / 8192; cuBLAS on cuda:0 in porta-bench in the same calls: float16 645 / 647,
// bfloat16 680 / 680, TF32 343 / 362. {BM, BN, BK, warpgroups, stages, overlap, register bound};
// NVIDIA's OpenCL gives a work-group 48 KiB of local memory.
//  float16: wg128x128x32:g2:s3 432.0 / 476.3 (110 registers: two work-groups an SM),
//           wg128x128x32:g1:s3 389.7 / 436.0 (214 registers), wg64x128x64:g1:s2 365.1 / 422.2,
//           wg128x128x16:g2:s4 357.8 / 392.7; bfloat16 takes the same (420.3 / 450.9 for the first, 22:54).
//           Not kept: wg128x256x16:g2:s4 375.8 / 412.3, wg128x256x32:g2:s2 287.9 / 307.3,
//           wg64x256x32:g1:s2 289.4 / 310.0, wg128x128x32:g2:s2 306.6 / 323.3, wg256x128x16:g2:s4:o
//           279.6 / 302.3; the MMAs overlapping the next slice's wait (:o, wgmma.wait_group 1),
//           313-337, where ptxas serializes the MMAs (C7514: "non wgmma instructions reading
//           accumulator registers"); register bounds: :r128 no change (430.8 / 465.1), below 110
//           ptxas refuses the PTX. :o with no accumulator zeroing (the first k step's MMA takes
//           scale-d 0) is still serialized (C7514; 2026-12-02 02:14, float16): g2:s3:o 317.5 /
//           336.2, g1:s3:o 316.2 / 340.4, wg128x128x16:g1:s4:o 346.1 / 401.4, g2:s4:o 317.0 / 339.8,
//           against wg128x128x32:g1:s3 447.7 / 492.0 and g2:s3 432.1 / 462.3 in the same search.
//           2026-12-04 19:04, the same search with the MMAs' final waits hoisted (gemm/ptx_edit.hpp:
//           no C7514 left): float16 wg128x128x32:g1:s3 451.0 / 494.1, g2:s3 435.5 / 472.6, :o
//           318-358 / 340-421 (wg128x128x16:g1:s4:o the best), wg128x256x16:g2:s3:o 180.6 / 188.1;
//           bfloat16 g1:s3 498.1 / 524.1. NVIDIA's OpenCL refuses a work-group more than 48 KiB of
//           local memory, dynamic (a __local argument) too: CL_OUT_OF_RESOURCES for every size from
//           48 KiB up (scripts/dev/local_mem_probe.cpp), so no deeper pipeline is open to these tiles.
//           2026-12-04 20:30 (scripts/dev/gpu_gemm_data.sh), float16: g1:s3 433.4 / 483.9 first
//           again; not kept: :m 428.5 / 465.3, :r168 359.7 / 427.3, :m:r168 398.1 / 445.2, g2:s3:m
//           419.6 / 449.4, wg64x128x32:g1:s4:m 394.0 / 405.7 (:o:m 394.0 / 417.0), wg64x192x32:g1:s3:m
//           285.9 / 300.4, wg64x128x64:g1:s2:m 339.1 / 393.5, wg128x128x16:g1:s6:o 352.2 / 400.9
//           (:o:m 354.2 / 408.3, g2:s6:o:m 364.8 / 404.8), wg128x256x16:g2:s4:m 384.6 / 430.3. A
//           TMA-fed kernel with a producer warp and mbarriers (scripts/dev/tma_gemm_probe.cpp, 21:41,
//           correct, no serialized MMAs) ran 310-336 at 4096 and 8192, with cp.async in the producer
//           226-314: in 48 KiB two work-groups an SM hold at most 64 KiB of slices in flight,
//           whoever issues the loads (the 484 here is 57 GB/s of slices an SM over that, about
//           1.1 us of latency; cuBLAS's 640 would need about 85 KiB in flight at the same latency).
//  TF32:    wg128x128x16:g2:s3 180.2 / 229.5 (98 registers), wg64x128x32:g1:s2 168.5 / 202.9 (128);
//           not kept: wg256x128x16:g2:s2 121.3 / 141.8, wg128x128x8:g2:s4 115.5 / 129.0,
//           wg128x256x16:g2:s2 109.0 / 135.4 (gemm_tc's best, tc128x128x16:w64x64:ldsm: 128.7 / 127.5).
//           These include the transpose of B (a row-major B) into the queue's scratch buffer.
//           2026-12-04 19:04: wg128x128x16:g2:s3 243.1 / 258.6; the :o ones 130-155 / 139-162.
//           2026-12-04 20:30 and 21:27: :m 246.4 / 265.0 and 245.3 / 258.9 against 243.0 / 261.7 and
//           243.0 / 259.6 (within 2%, not taken); wg128x128x8:g2:s6:o(:m) 133-135, wg64x128x16:g1:s4:m
//           176.3 / 166.0, wg64x128x32:g1:s2:m 176.7 / 199.9.
std::vector<WgParams> gemm_wg_candidates(DType t) {
  if (t == DType::float32) return {{128, 128, 16, 2, 3}, {64, 128, 32, 1, 2}};
  if (t != DType::float16 && t != DType::bfloat16) return {};
  return {{128, 128, 32, 2, 3}, {128, 128, 32, 1, 3}, {64, 128, 64, 1, 2}, {128, 128, 16, 2, 4}};
}

bool wg_native(DType t, const std::string& platform_name, int compute_capability) {
  return (t == DType::float16 || t == DType::bfloat16 || t == DType::float32) &&
         platform_name.find("NVIDIA") != std::string::npos && compute_capability == 90;
}

std::string wg_unfit_reason(const WgParams& p, const detail::MatmulArgs& g) {
  if (auto r = p.invalid_reason(g.dtype); !r.empty()) return r;
  if (g.dtype == DType::float32 && (g.trans_a || !g.trans_b))
    return "TF32 takes A row-major and B transposed (both K-major; gemm/tensor.cpp transposes B for it)";
  if (g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX) return "a size of 2^31 or more";
  if (g.k == 0) return "k = 0";
  const std::int64_t piece = 16 / elem_bytes(g.dtype);
  auto aligned = [&](std::int64_t x) { return x % piece == 0; };
  if (!aligned(g.lda) || !aligned(g.ldb) || !aligned(g.ldc) || !aligned(g.a_offset) || !aligned(g.b_offset) ||
      !aligned(g.c_offset) || (g.batch > 1 && (!aligned(g.stride_a) || !aligned(g.stride_b) || !aligned(g.stride_c))))
    return "rows, offsets or batch strides not multiples of 16 bytes";
  if (g.batch > 65535) return "a batch above 65535";
  if (((g.m + p.tile_m - 1) / p.tile_m) * ((g.n + p.tile_n - 1) / p.tile_n) > INT_MAX / p.threads()) return "too many blocks";
  return {};
}

std::string wg_prelude(const WgParams& p, DType t) {
  const int n = p.tile_n, regs = n / 2;
  std::string list, operands;
  for (int i = 0; i < regs; ++i) {
    list += detail::cat(i ? ", %" : "%", i);
    operands += detail::cat(i ? ", " : "", "\"+f\"(ACC[", i, "])");
  }
  // One m64nNk16 step of 16-bit values (imm-trans-a / -b: IMM_TRANS_A / _B, the MN-major operands) or
  // m64nNk8 of TF32 (both K-major, no transpose operands), A and B from local memory; scale-d a
  // predicate from SCALE (0: D = A B, else D += A B).
  const std::string shape = t == DType::float32 ? detail::cat("m64n", n, "k8.f32.tf32.tf32")
                                                : detail::cat("m64n", n, "k16.f32.", t == DType::bfloat16 ? "bf16.bf16" : "f16.f16");
  const std::string tail = t == DType::float32 ? "p, 1, 1;\")" : "p, 1, 1, \" STR(IMM_TRANS_A) \", \" STR(IMM_TRANS_B) \";\")";
  return detail::cat("#ifndef MMA_EMULATE\n#define WGMMA(ACC, DA, DB, SCALE) asm volatile(A90(\"{\") A90(\".reg .pred p;\") ",
                     "A90(\"setp.ne.b32 p, %", regs + 2, ", 0;\") A90(\"wgmma.mma_async.sync.aligned.", shape, " {", list, "}, %",
                     regs, ", %", regs + 1, ", ", tail, " A90(\"}\") : ", operands,
                     " : \"l\"(DA), \"l\"(DB), \"r\"(SCALE) : \"memory\")\n#endif\n#line 1\n");
}

bool wg_whole_tiles(const WgParams& p, const detail::MatmulArgs& g) {
  return g.m % p.tile_m == 0 && g.n % p.tile_n == 0 && g.k % p.tile_k == 0;
}

std::vector<std::string> wg_options(const WgParams& p, DType t, bool trans_a, bool trans_b, bool edge, bool emulate) {
  const int ahead = p.overlap ? p.stages - 2 : p.stages - 1;  // slices in flight ahead of the MMAs
  std::vector<std::string> o = {detail::cat("-DELEM=", t == DType::bfloat16 ? 17 : t == DType::float32 ? 32 : 16),
                                detail::cat("-DTA=", trans_a ? 1 : 0), detail::cat("-DTB=", trans_b ? 1 : 0),
                                detail::cat("-DEDGE=", edge ? 1 : 0),
                                detail::cat("-DBM=", p.tile_m),
                                detail::cat("-DBN=", p.tile_n), detail::cat("-DBK=", p.tile_k),
                                detail::cat("-DWGS=", p.groups), detail::cat("-DSTAGES=", p.stages),
                                detail::cat("-DAHEAD=", ahead), detail::cat("-DSTAGES_WAIT=", ahead - 1),
                                detail::cat("-DOVERLAP=", p.overlap ? 1 : 0),
                                detail::cat("-DMMA_FIRST=", p.mma_first ? 1 : 0)};
  if (emulate) {
    o.push_back("-DMMA_EMULATE");
  } else {
    o.push_back(kSm90aPtxOption);
    if (p.regs) o.push_back(detail::cat(kPtxMaxnregOption, p.regs));
  }
  return o;
}

}  // namespace porta::opencl
