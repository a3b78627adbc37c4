// The parameters and fitting rules of porta's tensor-core GEMM (gemm/tc.hpp); the kernel is
// kernels/gemm_tc.cl.
#include "opencl/gemm/tc.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>

#include "porta_backend/strings.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {
namespace {

bool half_type(DType t) { return t == DType::float16 || t == DType::bfloat16; }
int elem_bytes(DType t) { return static_cast<int>(itemsize(t)); }
int vec_elems(DType t) { return 16 / elem_bytes(t); }                   // elements of a 16-byte load
int pad_elems(DType t) { return t == DType::float64 ? 4 : vec_elems(t); }  // the kernel's PAD
int pad_b_elems(DType t) { return t == DType::float32 ? 8 : pad_elems(t); }  // and PAD_B
int mma_k(DType t) { return half_type(t) ? 16 : 8; }

}  // namespace

std::string TcParams::text() const {
  return detail::cat("tc", tile_m, "x", tile_n, "x", tile_k, ":w", warp_m, "x", warp_n, ldsm ? ":ldsm" : "",
                     swizzle ? ":xor" : "", stages ? detail::cat(":s", stages) : "", regs ? detail::cat(":r", regs) : "");
}

std::size_t TcParams::local_bytes(DType t, bool emulate) const {
  const std::size_t e = static_cast<std::size_t>(elem_bytes(t)), pad = swizzle ? 0 : static_cast<std::size_t>(pad_elems(t)),
                    pad_b = swizzle ? 0 : static_cast<std::size_t>(pad_b_elems(t));
  const std::size_t bm = static_cast<std::size_t>(tile_m), bn = static_cast<std::size_t>(tile_n),
                    bk = static_cast<std::size_t>(tile_k);
  std::size_t tiles = static_cast<std::size_t>(std::max(stages, 2)) * (bm * (bk + pad) + bk * (bn + pad_b)) * e;
  std::size_t scratch = 2 * static_cast<std::size_t>(threads() / 32) *
                        static_cast<std::size_t>(warp_m + warp_n) * bk * (t == DType::float64 ? 8 : 4);
  return tiles + (emulate ? scratch : 0);
}

std::string TcParams::invalid_reason(DType t) const {
  if (!tc_dtype(t)) return detail::cat("the tensor-core kernel does not take ", name(t));
  if (tile_m <= 0 || tile_n <= 0 || tile_k <= 0 || warp_m <= 0 || warp_n <= 0) return "sizes must be positive";
  if (tile_m % warp_m || tile_n % warp_n) return "BM must be a multiple of WM and BN of WN";
  if (warp_m % 16 || warp_n % 16) return "WM and WN must be multiples of 16";
  if (tile_k % mma_k(t)) return detail::cat("BK must be a multiple of ", mma_k(t), " for ", name(t));
  if (ldsm && t == DType::float64) return "ldmatrix serves float16, bfloat16 and TF32 only";
  if (stages != 0 && (stages < 2 || stages > 4)) return "cp.async takes 2 to 4 stages";
  if (auto r = register_bound_reason(regs); !r.empty()) return r;
  auto pow2 = [](int x) { return x > 0 && (x & (x - 1)) == 0; };
  if (swizzle && (!pow2(tile_k / vec_elems(t)) || !pow2(tile_n / vec_elems(t))))
    return "the XOR layout needs BK and BN of a power of two 16-byte pieces";
  const int nt = threads(), v = vec_elems(t);
  if (nt > 1024) return "more than 1024 work-items";
  if (tile_k % v || tile_n % v || (tile_m * tile_k / v) % nt || (tile_k * tile_n / v) % nt)
    return detail::cat("the ", nt, " work-items must copy the A and B slices in whole 16-byte pieces");
  return {};
}

std::optional<TcParams> parse_tc_params(const std::string& text) {
  TcParams p;
  int used = 0;
  if (std::sscanf(text.c_str(), "tc%dx%dx%d:w%dx%d%n", &p.tile_m, &p.tile_n, &p.tile_k, &p.warp_m, &p.warp_n, &used) != 5)
    return std::nullopt;
  std::string rest = text.substr(static_cast<std::size_t>(used));
  if (rest.starts_with(":ldsm")) {
    p.ldsm = true;
    rest = rest.substr(5);
  }
  if (rest.starts_with(":xor")) {
    p.swizzle = true;
    rest = rest.substr(4);
  }
  if (rest.size() >= 3 && rest.starts_with(":s") && rest[2] >= '2' && rest[2] <= '4') {
    p.stages = rest[2] - '0';
    rest = rest.substr(3);
  }
  p.regs = parse_register_bound(rest);
  if (p.text() != text) return std::nullopt;  // nothing after the last field, no leading zeros or signs
  for (DType t : {DType::float16, DType::float32, DType::float64})
    if (p.invalid_reason(t).empty()) return p;
  return std::nullopt;  // valid for no dtype
}

// The candidates, fastest first by the searches' event timings on an H200 through NVIDIA's OpenCL
// (2026-12-01 15:11 UTC, scripts/dev/gemm_sweep.sh: PORTA_OPENCL_GEMM_CANDIDATES with
// PORTA_OPENCL_GEMM_SEARCH=4096,8192), TFLOP/s at 4096 / 8192; cuBLAS on cuda:0 in the same run
// (porta-bench, one repetition): float16 616.1 / 644.4, bfloat16 669.1 / 662.6, TF32 339.7 / 349.0,
// float64 60.8 / 60.9.
//  float16:  tc128x128x32:w64x64:ldsm:xor 287.1 / 304.7, tc128x128x32:w64x64:ldsm 278.0 / 296.2,
//            tc128x128x16:w64x64:ldsm:s4 267.5 / 298.9, tc128x128x32:w64x64:ldsm:xor:s3 257.5 / 274.4,
//            tc128x128x16:w64x64:ldsm:xor:s4 237.3 / 270.9, tc128x256x32:w64x64:ldsm:xor:s2 234.3 / 254.2;
//            not kept: tc128x256x16:w64x64:ldsm 187.2 / 194.4 (:s3 237.0 / 233.3, :xor:s4 222.7 / 234.9),
//            tc256x128x16:w64x64:ldsm:xor:s4 192.1 / 196.3, tc256x128x32:w64x64:ldsm:xor:s2 227.5 / 242.2,
//            tc128x128x32:w64x32:ldsm:xor:s3 251.8 / 267.9; the small tiles (for products of up to
//            1536^2, ranked at 1024, where the 128x64 and 64x64 tiles won at 12:08 UTC: 104.5, 102.1
//            against 86.3 for 128x128): tc64x128x32:w32x64:ldsm:xor:s4 190.0 / 197.1,
//            tc128x64x32:w64x32:ldsm:xor:s4 178.9 / 196.0, tc64x64x32:w32x32:ldsm 171.3 / 175.8;
//  bfloat16: tc128x128x32:w64x64:ldsm 290.7 / 305.4, :xor:s3 265.2 / 277.6,
//            tc128x128x16:w64x64:ldsm:xor:s4 246.4 / 274.2, tc128x256x32:w64x64:ldsm:xor:s2 240.0 / 250.7;
//  TF32:     tc128x128x16:w64x64:ldsm (A through ldmatrix) 126.4 / 128.2, tc128x128x16:w64x64 116.3 /
//            117.8, :ldsm:xor:s3 110.1 / 112.3, :xor:s3 107.9 / 108.9, :xor 75.1 / 73.2,
//            tc128x256x16:w64x64:ldsm:xor:s2 106.6 / 108.5, tc128x128x8:w64x64:ldsm:xor:s4 105.5 / 106.5,
//            tc128x256x8:w64x64:ldsm:xor:s4 99.3 / 100.2, tc128x64x16:w64x32 88.6 / 95.4,
//            tc64x64x16:w32x32 73.3 / 75.1 (these with 16 bytes of padding on B's rows, 32 since);
//  float64:  tc128x64x8:w32x32 45.1 / 44.8, tc64x128x8:w32x64 44.5 / 43.8, tc64x64x16:w32x32 43.2 /
//            43.7, tc128x128x8:w64x32 41.9 / 42.2 (the FP64 kernel's mma16x8x8:128x128x8:w64x32 44.4 /
//            44.9); cp.async made float64 slower: tc64x128x8:w32x64:xor:s4 39.8 / 40.8,
//            tc128x64x8:w32x32:xor:s4 37.7 / 38.6, tc64x64x16:w32x32:xor:s3 36.0 / 36.9, :s2 34.5 / 35.9.
//  float64, register bounds (2026-12-04 18:56-21:27, scripts/dev/gpu_gemm_data.sh and
//            gpu_f64_scan.sh): tc64x64x16:w32x32:r168 47.4 / 48.7 and 47.3 / 48.9 in two calls
//            (unbounded 43.2 / 43.7; cuBLAS 60.4 / 60.1 and, in porta-bench with it ranked first,
//            59.4 / 60.9 against porta's 45.7 / 46.3: 0.77x / 0.76x; as the default's first, 58.1 /
//            59.9 against 44.2 / 45.9, 0.76x / 0.77x, 21:30); tighter bounds spilled:
//            :r144 41.5 / 39.9, :r128 32.0 / 33.4, :r96 16.3 / 14.6; tc128x64x8:w32x32:r128 45.2 /
//            44.8 (no gain over unbounded), tc64x64x8:w32x32:r128 40.0 / 42.7, :r168 33.2 / 34.7,
//            tc64x128x8:w32x64:r168 28.4 / 30.7; cp.async with bounds 22.9-36.6.
// NVIDIA's OpenCL gives a work-group 48 KiB of local memory (49152 bytes), so the deeper cp.async
// pipelines of the larger tiles fit only with the XOR layout (no padding): 128x128x32 three
// stages, 128x256x16 four. ptxas (-cl-nv-verbose) reports no spills: 252 registers for
// tc128x128x32:w64x64:ldsm, 236 with :xor:s3, 188 for tc128x256x16:w64x64:ldsm:xor:s4 (256
// work-items), 255 for TF32's tc128x128x16:w64x64:xor:s3.
std::vector<TcParams> gemm_tc_candidates(DType t) {
  // {BM, BN, BK, WM, WN, ldmatrix, cp.async stages, XOR layout}
  if (half_type(t))
    return {
        {128, 128, 32, 64, 64, true, 0, true}, {128, 128, 32, 64, 64, true},         {128, 128, 16, 64, 64, true, 4},
        {128, 128, 32, 64, 64, true, 3, true}, {128, 128, 16, 64, 64, true, 4, true}, {128, 256, 32, 64, 64, true, 2, true},
        {128, 64, 32, 64, 32, true},           {64, 128, 32, 32, 64, true},           {64, 64, 32, 32, 32, true},
    };
  if (t == DType::float32)  // TF32: ldmatrix for A only
    return {
        {128, 128, 16, 64, 64, true},          {128, 128, 16, 64, 64, false},         {128, 128, 16, 64, 64, true, 3, true},
        {128, 256, 16, 64, 64, true, 2, true}, {128, 64, 16, 64, 32, true},           {64, 128, 16, 32, 64, true},
        {64, 64, 16, 32, 32, false},
    };
  if (t == DType::float64)  // {..., register bound}: 168 registers leave room for three work-groups of 128 an SM
    return {
        {64, 64, 16, 32, 32, false, 0, false, 168}, {128, 64, 8, 32, 32, false},        {64, 128, 8, 32, 64, false},
        {64, 64, 16, 32, 32, false},                 {128, 128, 8, 64, 32, false},
    };
  return {};
}

bool tc_dtype(DType t) { return half_type(t) || t == DType::float32 || t == DType::float64; }

bool tc_native(DType t, const std::string& platform_name, int compute_capability) {
  if (platform_name.find("NVIDIA") == std::string::npos || !tc_dtype(t)) return false;
  return compute_capability >= (t == DType::float64 ? 90 : 80);
}

std::string tc_unfit_reason(const TcParams& p, const detail::MatmulArgs& g) {
  if (!tc_dtype(g.dtype)) return detail::cat(name(g.dtype), " has no tensor-core kernel");
  if (g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX) return "a size of 2^31 or more";
  if (g.batch > 65535) return "a batch above 65535";  // the grid's second dimension on NVIDIA
  const std::int64_t blocks = ((g.m + p.tile_m - 1) / p.tile_m) * ((g.n + p.tile_n - 1) / p.tile_n);
  if (blocks > INT_MAX / p.threads()) return "too many blocks";
  return {};
}

bool tc_fits_fast(const TcParams& p, const detail::MatmulArgs& g) {
  const std::int64_t v = vec_elems(g.dtype);
  auto aligned = [&](std::int64_t x) { return x % v == 0; };
  return !g.trans_a && !g.trans_b && g.k > 0 && g.m % p.tile_m == 0 && g.n % p.tile_n == 0 && g.k % p.tile_k == 0 &&
         aligned(g.lda) && aligned(g.ldb) && aligned(g.ldc) && aligned(g.a_offset) && aligned(g.b_offset) &&
         aligned(g.c_offset) && (g.batch == 1 || (aligned(g.stride_a) && aligned(g.stride_b) && aligned(g.stride_c)));
}

std::vector<std::string> tc_options(const TcParams& p, DType t, bool fast, bool emulate, bool subtract) {
  const int elem = t == DType::float16 ? 16 : t == DType::bfloat16 ? 17 : t == DType::float32 ? 32 : 64;
  std::vector<std::string> o = {detail::cat("-DELEM=", elem),       detail::cat("-DFAST=", fast ? 1 : 0),
                                detail::cat("-DLDSM=", p.ldsm ? 1 : 0), detail::cat("-DBM=", p.tile_m),
                                detail::cat("-DBN=", p.tile_n),     detail::cat("-DBK=", p.tile_k),
                                detail::cat("-DWM=", p.warp_m),     detail::cat("-DWN=", p.warp_n),
                                detail::cat("-DSWZ=", p.swizzle ? 1 : 0), detail::cat("-DSUBTRACT=", subtract ? 1 : 0)};
  if (fast && p.stages) {
    o.push_back(detail::cat("-DSTAGES=", p.stages));
    o.push_back(detail::cat("-DSTAGES_WAIT=", p.stages - 2));
  }
  if (emulate) o.push_back("-DMMA_EMULATE");
  else if (p.regs) o.push_back(detail::cat(kPtxMaxnregOption, p.regs));
  return o;
}

}  // namespace porta::opencl
