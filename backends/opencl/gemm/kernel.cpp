// porta's OpenCL GEMM kernel source and its parameter sets (see gemm/kernel.hpp).
#include "opencl/gemm/kernel.hpp"

#include <cstdio>

#include "porta_backend/strings.hpp"

namespace porta::opencl {

std::string GemmParams::text() const {
  return detail::cat(tile_m, "x", tile_n, "x", tile_k, ":", per_item_m, "x", per_item_n, ":v", vector);
}

std::size_t GemmParams::local_bytes(std::size_t elem) const {
  return 2 * static_cast<std::size_t>(tile_k) * static_cast<std::size_t>(tile_m + tile_n + 2 * vector) * elem;
}

std::string GemmParams::invalid_reason() const {
  if (tile_m <= 0 || tile_n <= 0 || tile_k <= 0 || per_item_m <= 0 || per_item_n <= 0) return "sizes must be positive";
  if (vector != 1 && vector != 2 && vector != 4) return "the vector width must be 1, 2 or 4";
  if (tile_m % per_item_m || tile_n % per_item_n) return "TM must be a multiple of WM and TN of WN";
  if (per_item_m % vector || per_item_n % vector || tile_k % vector)
    return "WM, WN and TK must be multiples of the vector width";
  const int threads = group();
  if ((tile_m * tile_k / vector) % threads || (tile_n * tile_k / vector) % threads)
    return detail::cat("the ", threads, " work-items must divide the TMxTK and TNxTK tiles into whole vectors of ", vector);
  return {};
}

std::optional<GemmParams> parse_gemm_params(const std::string& text) {
  GemmParams p;
  char tail = 0;
  int got = std::sscanf(text.c_str(), "%dx%dx%d:%dx%d:v%d%c", &p.tile_m, &p.tile_n, &p.tile_k, &p.per_item_m,
                        &p.per_item_n, &p.vector, &tail);
  if (got == 5) {
    // The older form without a vector width: the widest of 4, 2, 1 the shape allows.
    for (int v : {4, 2, 1}) {
      p.vector = v;
      if (p.invalid_reason().empty()) break;
    }
  } else if (got != 6) {
    return std::nullopt;
  }
  if (!p.invalid_reason().empty()) return std::nullopt;
  return p;
}

std::vector<GemmParams> gemm_gpu_candidates(DType dtype) {
  // Complex and integer products: VW 1 (a complex64 is already a float2), fewer registers of C per
  // work-item for complex (each is two). Integers are not searched (tiled.cpp): the first that fits
  // runs.
  if (dtype == DType::complex64)
    return {{64, 64, 8, 4, 4, 1},  {64, 64, 16, 4, 4, 1}, {128, 64, 8, 8, 4, 1}, {64, 128, 8, 4, 8, 1},
            {128, 128, 8, 8, 8, 1}, {32, 32, 16, 4, 4, 1}, {32, 32, 8, 2, 2, 1}};
  if (dtype == DType::complex128)
    return {{32, 64, 8, 4, 4, 1}, {64, 64, 8, 4, 4, 1}, {32, 32, 8, 2, 2, 1}, {32, 32, 16, 4, 4, 1}};
  if (is_integral(dtype))
    return {{64, 64, 16, 4, 4, 1}, {64, 64, 8, 4, 4, 1}, {32, 32, 16, 4, 4, 1}, {32, 32, 8, 2, 2, 1}};
  if (dtype == DType::float64)
    return {
        {64, 64, 8, 4, 4, 2},    {64, 64, 16, 4, 4, 2},  {128, 64, 8, 8, 4, 2}, {64, 128, 8, 4, 8, 2},
        {128, 128, 8, 8, 8, 2},  {32, 32, 16, 4, 4, 2},  {32, 64, 16, 4, 4, 2},
    };
  return {
      {128, 128, 8, 8, 8, 4},  {128, 128, 16, 8, 8, 4}, {128, 64, 16, 8, 4, 4}, {64, 128, 16, 4, 8, 4},
      {64, 128, 8, 8, 8, 4},   {128, 128, 8, 8, 8, 2},  {64, 64, 16, 4, 4, 4},  {32, 32, 16, 4, 4, 4},
  };
}

GemmParams gemm_cpu_params(DType dtype) {
  // On PoCL (2 cores, 131x45x259) 64x64 tiles of 4x4 per work-item ran 3-10x faster than 128x128
  // of 8x8 and took a third of the time to build (PoCL turns the work-group into loops at the
  // first launch: 5 against 16 s for float32, 10 against 39 s for float16). Integer products take
  // the same tiles with VW 1; complex ones 32x32 of 2x2, which PoCL built in a tenth of the time
  // of 64x64 of 4x4 (their default is the host's cgemm/zgemm anyway).
  if (is_complex(dtype)) return {32, 32, 8, 2, 2, 1};
  if (is_integral(dtype)) return {64, 64, 16, 4, 4, 1};
  return {64, 64, 16, 4, 4, 4};
}

std::vector<std::string> gemm_options(const GemmParams& p, DType dtype, bool fast, bool trans_a, bool trans_b,
                                      bool subtract) {
  // kernels/gemm_tiled.cl's ELEM codes.
  int elem = dtype == DType::float64      ? 1
             : dtype == DType::float16    ? 2
             : dtype == DType::bfloat16   ? 3
             : dtype == DType::complex64  ? 4
             : dtype == DType::complex128 ? 5
             : is_integral(dtype)         ? 100 + static_cast<int>(dtype)
                                          : 0;
  return {detail::cat("-DELEM=", elem),           detail::cat("-DFAST=", fast ? 1 : 0),
          detail::cat("-DTRANS_A=", fast && trans_a ? 1 : 0), detail::cat("-DTRANS_B=", fast && trans_b ? 1 : 0),
          detail::cat("-DTM=", p.tile_m),         detail::cat("-DTN=", p.tile_n),
          detail::cat("-DTK=", p.tile_k),         detail::cat("-DWM=", p.per_item_m),
          detail::cat("-DWN=", p.per_item_n),     detail::cat("-DVW=", p.vector),
          detail::cat("-DSUBTRACT=", subtract ? 1 : 0)};
}

}  // namespace porta::opencl
