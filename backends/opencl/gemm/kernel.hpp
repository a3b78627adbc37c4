// porta's OpenCL GEMM kernel: its source text and the parameters it is compiled with.
//
// The design follows CLBlast's Xgemm and CNugteren's myGEMM kernels 6-10 (and the CUDA SGEMM
// write-ups that reach 90% of cuBLAS): a work-group computes a TM x TN block of C, each
// work-item WM x WN of it in registers; both operands' TK-deep slices live in local memory,
// double-buffered, and the next slice is loaded from global memory into registers while the
// current one is multiplied, so there is one barrier per slice. A work-item's rows and columns
// are interleaved in runs of VW (rows (i*GM + ly)*VW + v, columns (j*GN + lx)*VW + v), so that
// its reads of the local tiles are VW-wide vector reads and those of a quarter-warp are
// consecutive (no bank conflicts). Two variants of one source:
//  fast    - every dimension a multiple of the tile, leading dimensions, offsets and batch strides
//            multiples of VW: VW-wide global loads and stores, transposes fixed at compile time;
//  guarded - any shape: scalar loads with bounds checks, each operand read through a (row, column)
//            stride pair, so one kernel serves all four transpose combinations.
// Complex products keep float2 / double2 elements and accumulators (VW 1), integers uint / ulong
// accumulators truncated into C: exact, wrapping as NumPy's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <porta/dtype.hpp>

namespace porta::opencl {

struct GemmParams {
  int tile_m = 0, tile_n = 0, tile_k = 0;  // TM, TN, TK: the block of C and the k-slice of a work-group
  int per_item_m = 0, per_item_n = 0;      // WM, WN: the registers of C per work-item
  int vector = 1;                          // VW: width of global and local vector accesses (1, 2, 4)

  int group_m() const { return tile_m / per_item_m; }
  int group_n() const { return tile_n / per_item_n; }
  int group() const { return group_m() * group_n(); }
  // "128x128x16:8x8:v4", the form PORTA_OPENCL_GEMM_SHAPE takes.
  std::string text() const;
  // Bytes of local memory for elements of `elem` bytes (both buffers of both tiles).
  std::size_t local_bytes(std::size_t elem) const;
  // Why these parameters cannot be compiled at all (empty when they can).
  std::string invalid_reason() const;
  bool operator==(const GemmParams&) const = default;
};

// Parses "TMxTNxTK:WMxWN" or "TMxTNxTK:WMxWN:vV"; nullopt when malformed.
std::optional<GemmParams> parse_gemm_params(const std::string& text);

// The candidates of the per-device search on GPUs (and other non-CPU devices), best guess first.
std::vector<GemmParams> gemm_gpu_candidates(DType dtype);
// The parameters used on CPU devices (no search there: float32, float64, complex and integers take
// the host BLAS or loop by default).
GemmParams gemm_cpu_params(DType dtype);

extern const char* const kGemmSource;  // kernels/gemm_tiled.cl, embedded at build time

// -D options for one variant; `fast` selects the variant, the transposes matter only for it.
std::vector<std::string> gemm_options(const GemmParams& p, DType dtype, bool fast, bool trans_a, bool trans_b,
                                      bool subtract = false);

}  // namespace porta::opencl
