// porta's GEMM on Hopper's warpgroup MMA through OpenCL, for float16, bfloat16 and float32 as TF32
// (kernels/gemm_wg.cl): its parameters and which products and devices it serves.
//
// NVIDIA's OpenCL C compiler emits PTX for `.target sm_90`, where ptxas refuses wgmma.* (the
// instructions cuBLAS uses on Hopper). The kernel therefore writes them as marked comments; the
// plugin takes the program's PTX (CL_PROGRAM_BINARIES), removes the marks, retargets it to
// `sm_90a` and builds that with clCreateProgramWithBinary (compile.cpp, kSm90aPtxOption), which
// NVIDIA's driver accepts (H200, driver 580, 2026-12-01, scripts/dev/wgmma_probe.cpp). The kernel
// takes any M, N and K > 0 (a variant with guarded edges for products that are not whole tiles)
// whose leading dimensions, offsets and batch strides are multiples of 16 bytes, either operand
// transposed for the 16-bit types; TF32's instruction takes
// both operands K-major only, so a row-major B is first transposed into a scratch buffer
// (gemm/tensor.cpp). Every other product takes the next configuration of the ranking,
// gemm/tc.hpp's kernel, which serves any shape. With
// -DMMA_EMULATE (any OpenCL device: PoCL in CI) the instructions are replaced by their reference
// semantics, descriptors and swizzles included, so every index of the kernel is tested without
// the GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "porta_backend/backend.hpp"

namespace porta::opencl {

struct WgParams {
  int tile_m = 0, tile_n = 0, tile_k = 0;  // BM, BN, BK: the block of C and the k-slice of a work-group
  int groups = 0;                          // WGS: warpgroups (128 work-items each) of a work-group
  int stages = 0;                          // cp.async stages of the slices (2 to 6)
  bool overlap = false;                    // the MMAs of a slice overlap the next one's wait (3+ stages)
  int regs = 0;                            // a register bound (.maxnreg in the PTX), 0 for none
  bool mma_first = false;                  // a slice's MMAs are issued before the next slice's loads

  int threads() const { return groups * 128; }
  // "wg128x128x32:g2:s3" or "wg128x128x32:g2:s3:o:m:r128", the form PORTA_OPENCL_GEMM=mma:... takes.
  std::string text() const;
  std::size_t local_bytes(DType dtype) const;  // the stages of both slices (the emulation needs no more)
  std::string invalid_reason(DType dtype) const;  // empty when the parameters compile for `dtype`
  bool operator==(const WgParams&) const = default;
};

// Parses "wgBMxBNxBK:gG:sS[:o][:m][:rR]"; nullopt when malformed or valid for neither float16 nor TF32.
std::optional<WgParams> parse_wg_params(const std::string& text);

// The configurations of the search for float16 and bfloat16, and for float32 as TF32, fastest
// first as measured on an H200.
std::vector<WgParams> gemm_wg_candidates(DType dtype);

// Whether the device has the instructions: NVIDIA's OpenCL platform, compute capability 9.0 (the
// sm_90a PTX runs on no other architecture).
bool wg_native(DType dtype, const std::string& platform_name, int compute_capability);

// Why the product cannot take the kernel with `p` (empty when it can): another dtype, TF32 with A
// transposed or B not transposed (gemm/tensor.cpp transposes B into a scratch buffer for it),
// k = 0, rows, offsets or batch strides not multiples of 16 bytes, too large a grid.
std::string wg_unfit_reason(const WgParams& p, const detail::MatmulArgs& g);

extern const char* const kWgSource;  // kernels/gemm_wg.cl, embedded at build time
constexpr const char* kWgEntry = "porta_gemm_wg";

// The text built before kernels/gemm_wg.cl: the WGMMA macro of the configuration's n and dtype
// (its 64-to-128 accumulator operands spelled out), used where the instructions are not emulated.
std::string wg_prelude(const WgParams& p, DType dtype);

// -D options of one configuration for `dtype` and the operands' transposes (16-bit types: any;
// TF32: B transposed only); `emulate` replaces the instructions. The native
// build carries kSm90aPtxOption, which makes compile.cpp retarget the program's PTX, and with a
// register bound kPtxMaxnregOption.
std::vector<std::string> wg_options(const WgParams& p, DType dtype, bool trans_a, bool trans_b, bool edge, bool emulate);

// Whether the product is whole tiles of `p` (else it takes the variant with guarded edges, EDGE).
bool wg_whole_tiles(const WgParams& p, const detail::MatmulArgs& g);

}  // namespace porta::opencl
