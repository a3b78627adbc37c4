// porta's FP64 tensor-core GEMM kernel source and its parameter sets (see gemm/mma.hpp).
#include "opencl/gemm/mma.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>

#include "porta_backend/strings.hpp"

namespace porta::opencl {

std::string MmaParams::text() const {
  return detail::cat("mma", mma_m, "x8x", mma_k, ":", tile_m, "x", tile_n, "x", tile_k, ":w", warp_m, "x", warp_n);
}

std::size_t MmaParams::local_bytes(bool emulate) const {
  std::size_t tiles = 2 * static_cast<std::size_t>(tile_m * tile_k + tile_k * tile_n) * sizeof(double);
  std::size_t scratch = 2 * static_cast<std::size_t>(threads() / 32) * (warp_m + warp_n) * tile_k * sizeof(double);
  return tiles + (emulate ? scratch : 0);
}

std::string MmaParams::invalid_reason() const {
  if (mma_m != 16 || (mma_k != 4 && mma_k != 8 && mma_k != 16))
    return "the instruction must be mma16x8x4, mma16x8x8 or mma16x8x16";
  if (tile_m <= 0 || tile_n <= 0 || tile_k <= 0 || warp_m <= 0 || warp_n <= 0) return "sizes must be positive";
  if (tile_m % warp_m || tile_n % warp_n) return "BM must be a multiple of WM and BN of WN";
  if (warp_m % mma_m || warp_n % 16) return detail::cat("WM must be a multiple of ", mma_m, " and WN of 16");
  // A lane reads k in groups of max(8, MMA_K) (the k permutation of the kernel's comment).
  if ((tile_k != 8 && tile_k != 16 && tile_k != 32) || tile_k % std::max(8, mma_k))
    return detail::cat("BK must be 8, 16 or 32 and a multiple of ", std::max(8, mma_k));
  const int nt = threads();
  if (nt > 1024) return "more than 1024 work-items";
  if ((tile_m * tile_k / 2) % nt || (tile_k * tile_n / 2) % nt || nt % (tile_k / 2) || nt % (tile_n / 2) ||
      (nt / (tile_k / 2)) % 2)
    return detail::cat("the ", nt, " work-items must copy the A and B tiles in whole rows of pairs of doubles");
  return {};
}

std::optional<MmaParams> parse_mma_params(const std::string& text) {
  MmaParams p;
  int n8 = 0;
  char tail = 0;
  int got = std::sscanf(text.c_str(), "mma%dx%dx%d:%dx%dx%d:w%dx%d%c", &p.mma_m, &n8, &p.mma_k, &p.tile_m, &p.tile_n,
                        &p.tile_k, &p.warp_m, &p.warp_n, &tail);
  if (got != 8 || n8 != 8 || !p.invalid_reason().empty()) return std::nullopt;
  return p;
}

std::vector<MmaParams> gemm_mma_candidates() {
  // TFLOP/s at 4096^3 on an H200 (NVIDIA OpenCL 3.0, PTX ISA 9.0; cuBLAS 58.9): 45.7, 45.2, 43.8,
  // 42.4, 42.3, 41.5. A cp.async variant of mma16x8x16:128x64x16:w64x32 (43.8) is not kept: it
  // needs more PTX for no gain over these.
  return {
      {16, 8, 128, 128, 8, 64, 32}, {16, 4, 64, 64, 16, 32, 32}, {16, 4, 128, 128, 8, 64, 32},
      {16, 16, 64, 64, 16, 32, 32}, {16, 8, 64, 64, 16, 32, 32}, {16, 8, 128, 64, 16, 32, 32},
  };
}

std::string mma_unfit_reason(const MmaParams& p, const detail::MatmulArgs& g) {
  if (g.dtype != DType::float64) return "not float64";
  if (g.trans_a || g.trans_b) return "a transposed operand";
  if (g.m % p.tile_m || g.n % p.tile_n || g.k % p.tile_k || g.k == 0)
    return detail::cat(g.m, "x", g.n, "x", g.k, " is not a multiple of the tile ", p.tile_m, "x", p.tile_n, "x", p.tile_k);
  auto odd = [](std::int64_t v) { return v % 2 != 0; };
  if (odd(g.lda) || odd(g.ldb) || odd(g.ldc) || odd(g.a_offset) || odd(g.b_offset) || odd(g.c_offset))
    return "an odd leading dimension or offset";
  if (g.batch > 1 && (odd(g.stride_a) || odd(g.stride_b) || odd(g.stride_c))) return "an odd batch stride";
  if (g.batch > 65535) return "a batch above 65535";  // the grid's second dimension on NVIDIA
  if ((g.m / p.tile_m) * (g.n / p.tile_n) > INT_MAX / p.threads()) return "too many blocks";
  return {};
}

std::vector<std::string> mma_options(const MmaParams& p, bool emulate, bool subtract) {
  std::vector<std::string> o = {detail::cat("-DMMA_M=", p.mma_m), detail::cat("-DMMA_K=", p.mma_k),
                                detail::cat("-DBM=", p.tile_m),   detail::cat("-DBN=", p.tile_n),
                                detail::cat("-DBK=", p.tile_k),   detail::cat("-DWM=", p.warp_m),
                                detail::cat("-DWN=", p.warp_n),   detail::cat("-DSUBTRACT=", subtract ? 1 : 0)};
  if (emulate) o.push_back("-DMMA_EMULATE");
  return o;
}

}  // namespace porta::opencl
