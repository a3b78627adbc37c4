// porta's float64 GEMM on NVIDIA's FP64 tensor cores through OpenCL: its source text, its
// parameters and which products and devices it serves.
//
// NVIDIA's OpenCL compiler passes inline PTX through, so the kernel issues
// mma.sync.aligned.m16n8k{4,8,16}.row.col.f64 (sm_90) from OpenCL C; the tiled kernel
// (kernels/gemm_tiled.cl) cannot reach these units and stays at about 0.4x cuBLAS on an H200, this one
// reached 0.78x (45.7 of 58.9 TFLOP/s at 4096, the measurements of gemm_mma_candidates). A
// work-group computes a BM x BN block of C with (BM / WM) x (BN / WN) warps, each a WM x WN tile
// held as 16 x 8 MMA tiles in registers; BK-deep slices of A and B are double-buffered in local
// memory, the next one loaded into registers during the MMAs of the current one.
//
// Elsewhere the same text compiles with -DMMA_EMULATE: the MMAs are done through local memory
// with the instruction's fragment layouts (each MMA stores its fragments there, and after the
// slice's barrier every lane adds the products to its accumulators). That runs on any OpenCL
// device (PoCL in CI), so every index of the kernel is tested without the GPU; only the two macros
// that issue the instruction differ (kernels/gemm_mma.cl). Products it does not fit (transposed,
// edges, odd strides) take the general tensor-core kernel (gemm/tc.hpp), which also serves float64.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "porta_backend/backend.hpp"

namespace porta::opencl {

struct MmaParams {
  int mma_m = 16, mma_k = 8;               // the instruction: mma.sync m16n8k{4,8,16} .f64
  int tile_m = 0, tile_n = 0, tile_k = 0;  // BM, BN, BK: the block of C and the k-slice of a work-group
  int warp_m = 0, warp_n = 0;              // WM, WN: the tile of C of one warp

  int threads() const { return warp_m > 0 && warp_n > 0 ? (tile_m / warp_m) * (tile_n / warp_n) * 32 : 0; }
  // "mma16x8x8:128x128x8:w64x32", the form PORTA_OPENCL_GEMM=mma:... takes.
  std::string text() const;
  // Bytes of local memory: both stages of both tiles, and the emulation's copies when emulated.
  std::size_t local_bytes(bool emulate) const;
  // Why these parameters cannot be compiled at all (empty when they can).
  std::string invalid_reason() const;
  bool operator==(const MmaParams&) const = default;
};

// Parses "mma16x8xK:BMxBNxBK:wWMxWN"; nullopt when malformed or invalid.
std::optional<MmaParams> parse_mma_params(const std::string& text);

// The configurations, fastest first as measured on an H200 (NVIDIA OpenCL, 4096^3).
std::vector<MmaParams> gemm_mma_candidates();

// Why the product cannot take the kernel with `p` (empty when it can): float64, neither operand
// transposed, m, n, k whole multiples of the tile, and every leading dimension, offset and batch
// stride even, since the kernel reads and writes pairs of doubles.
std::string mma_unfit_reason(const MmaParams& p, const detail::MatmulArgs& g);

// Whether the device runs it: tc_native(DType::float64, ...) of gemm/tc.hpp (sm_90's m16n8k8/k16).

extern const char* const kMmaSource;  // kernels/gemm_mma.cl, embedded at build time
constexpr const char* kMmaEntry = "porta_gemm_mma";

// -D options of one configuration; `emulate` replaces the instruction (see above).
std::vector<std::string> mma_options(const MmaParams& p, bool emulate, bool subtract = false);

}  // namespace porta::opencl
