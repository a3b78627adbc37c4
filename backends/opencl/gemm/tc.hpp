// porta's GEMM on NVIDIA's tensor cores through OpenCL for float16, bfloat16, float32 as TF32 and
// float64 (kernels/gemm_tc.cl): its parameters and which products and devices it serves.
//
// NVIDIA's OpenCL compiler passes inline PTX through, as for the FP64 kernel (gemm/mma.hpp): this
// kernel issues mma.sync m16n8k16 (float16, bfloat16, float32 accumulation), m16n8k8 TF32 and
// m16n8k8 .f64, with ldmatrix for the 16-bit types where a configuration asks for it. Unlike the
// FP64 kernel it takes every product: a guarded variant reads any shape, transposes, offsets and
// leading dimensions, and a fast one takes whole tiles of row-major operands with 16-byte rows.
// With -DMMA_EMULATE (any OpenCL device: PoCL in CI) the instruction and ldmatrix are replaced by
// their reference semantics, so that every index of the kernel is tested without the GPU.
//
// Hopper's wgmma is refused in OpenCL C (H200, driver 580.159.04, 2026-12-01, built with
// scripts/dev/cl_probe.cpp): NVIDIA's OpenCL compiler emits PTX 9.0 for `.target sm_90`, not
// sm_90a, and ptxas refuses wgmma.* and setmaxnreg there ("not supported on .target 'sm_90'");
// -cl-nv-arch sm_90a changes nothing. The program's own PTX retargeted to sm_90a and built from
// binary does run them: gemm/wg.hpp's kernel, ranked beside this one for float16 and bfloat16.
// This kernel's best: 304.7 TFLOP/s for float16 at 8192 against cuBLAS's 644.4 (0.47x).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "porta_backend/backend.hpp"

namespace porta::opencl {

struct TcParams {
  int tile_m = 0, tile_n = 0, tile_k = 0;  // BM, BN, BK: the block of C and the k-slice of a work-group
  int warp_m = 0, warp_n = 0;              // WM, WN: the tile of C of one warp
  bool ldsm = false;                       // fragments through ldmatrix (16-bit types; TF32's A)
  int stages = 0;                          // 2-4: the fast variant's slices by cp.async, that many stages
  bool swizzle = false;                    // local tiles unpadded, their 16-byte chunks permuted (XOR)
  int regs = 0;                            // a register bound (.maxnreg in the PTX), 0 for none

  int threads() const { return warp_m > 0 && warp_n > 0 ? (tile_m / warp_m) * (tile_n / warp_n) * 32 : 0; }
  // "tc128x128x32:w64x64:ldsm" or "tc128x128x32:w64x64:ldsm:xor:s3:r128", the form PORTA_OPENCL_GEMM=mma:... takes.
  std::string text() const;
  // Bytes of local memory for `dtype`: both stages of both tiles, and the emulation's copies.
  std::size_t local_bytes(DType dtype, bool emulate) const;
  // Why these parameters cannot be compiled for `dtype` (empty when they can).
  std::string invalid_reason(DType dtype) const;
  bool operator==(const TcParams&) const = default;
};

// Parses "tcBMxBNxBK:wWMxWN[:ldsm][:xor][:sS][:rR]"; nullopt when malformed or valid for no dtype.
std::optional<TcParams> parse_tc_params(const std::string& text);

// The configurations of the search for `dtype` (float16 and bfloat16 share theirs; float32 means
// TF32), fastest first as measured on an H200 (gemm/tc.cpp lists the figures). cp.async stages
// and the XOR layout are among them for the 16-bit types and TF32; for float64 cp.async was slower
// and is left out (PORTA_OPENCL_GEMM=mma:CONFIG or PORTA_OPENCL_GEMM_CANDIDATES take any).
std::vector<TcParams> gemm_tc_candidates(DType dtype);

// Whether the device has the instructions for `dtype`: NVIDIA's OpenCL platform and compute
// capability (major * 10 + minor) 8.0 or newer for float16, bfloat16 and TF32, 9.0 for float64.
bool tc_native(DType dtype, const std::string& platform_name, int compute_capability);

// Which dtypes the kernel serves at all: float16, bfloat16, float32 (as TF32) and float64.
bool tc_dtype(DType dtype);

// Why the product cannot take the kernel with `p` (empty when it can): a batch or block count
// the grid cannot hold. Every shape, transpose, offset and leading dimension fits.
std::string tc_unfit_reason(const TcParams& p, const detail::MatmulArgs& g);

// Whether the product takes the fast variant: whole tiles, row-major operands, k > 0, and
// leading dimensions, offsets and batch strides multiples of 16 bytes.
bool tc_fits_fast(const TcParams& p, const detail::MatmulArgs& g);

extern const char* const kTcSource;  // kernels/gemm_tc.cl, embedded at build time
// kernels/gemm_common.cl: the prologue gemm_tc.cl and gemm_mma.cl share, built before each of them.
extern const char* const kGemmCommonSource;
constexpr const char* kTcEntry = "porta_gemm_tc";

// -D options of one configuration for `dtype`, variant `fast`; `emulate` replaces the instructions.
std::vector<std::string> tc_options(const TcParams& p, DType dtype, bool fast, bool emulate, bool subtract = false);

}  // namespace porta::opencl
