// The one timed search that ranks GEMM kernel configurations on an OpenCL device: the tiled
// kernel's parameter sets (gemm/tiled.cpp takes the fastest) and the tensor-core kernels'
// configurations (gemm/tensor.cpp: a product takes the fastest that fits it).
//
// Small products (kSmallGemmElements) are ranked apart from large ones. Each candidate runs on
// square products of each search size (1024 for small products, 2048 for large ones, unless
// PORTA_OPENCL_GEMM_SEARCH=N,... says otherwise; =off: no search, the candidates in their given
// order) with random inputs in the product's dtype; it is timed with device events, and 64
// entries of its result are checked against a double-precision host product, so that a
// configuration the driver miscompiles is dropped rather than chosen. The ranking (fastest first)
// goes to the disk cache under a key of the device, the driver, the kernel source, the candidates
// and the sizes; PORTA_LOG=info prints every candidate's TFLOP/s and the choice.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "opencl/gemm/kernel.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {

// What the searches found on a device (gemm/tiled.cpp makes it).
struct Device::GemmTuning {
  std::mutex m;                                            // one search at a time; others wait for its result
  // Per dtype and size class (small_gemm):
  std::map<std::pair<DType, bool>, GemmParams> chosen;                      // the tiled kernel's parameters
  std::map<std::pair<DType, bool>, std::vector<std::string>> tensor_ranked;  // tensor-core configurations, fastest first
};

// Products with at most this many elements of C (over the batch) are ranked apart, on 1024^2
// products: on the H200 (2026-12-01) the tiles that won at 2048 left most of it idle at 1024
// (float32 tiled: 21.3 TFLOP/s against 35.7 for 128x64 tiles; float16 on the tensor cores: 86.3
// against 104.5), while at 8192 the 2048 winners stayed the fastest.
constexpr double kSmallGemmElements = 1536.0 * 1536.0;
inline bool small_gemm(const MatmulArgs& g) {
  return static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.batch) <= kSmallGemmElements;
}

struct GemmCandidate {
  std::string name;  // the configuration's text, as the environment variables take it
  // Compiles (the kernel cache keeps it) and launches the candidate on `g`; returns why it cannot
  // run (empty when it was launched). A porta error it throws counts as a failure too.
  std::function<std::string(const MatmulArgs& g)> launch;
};

struct GemmSearch {
  std::string what;       // "opencl:1 (NVIDIA H200): float16 GEMM on the tensor cores", for messages
  std::string kind;       // names the kernel family in the disk-cache key ("tiled", "tensor")
  const char* source;     // the kernel source: a change to it invalidates cached rankings
  DType dtype;            // of the products
  bool tf32 = false;      // float32 products with TF32 inputs (the check's tolerance)
  std::int64_t round_to;  // search sizes are rounded up to a multiple of this (every candidate's tile)
  bool small = false;     // the ranking of small products (small_gemm)
};

// The search sizes of a size class (PORTA_OPENCL_GEMM_SEARCH, else 1024 or 2048); empty for "off".
// Throws InvalidArgument for a bad value.
std::vector<std::int64_t> gemm_search_sizes(bool small);

// The candidates' indices, fastest first; those that failed are left out (empty when all did,
// which is not kept on disk, so that the next process tries again). With no search sizes, every
// index in the given order.
std::vector<std::size_t> rank_gemm_candidates(Device& dev, QueueImpl& q, const GemmSearch& s,
                                              const std::vector<GemmCandidate>& candidates);

}  // namespace porta::opencl
