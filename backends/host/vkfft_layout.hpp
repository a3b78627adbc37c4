// What a VkFFT plan and launch look like for porta's FftDesc, the same for each VkFFT backend
// (backends/cuda/fft_vkfft.cpp, backends/opencl/fft.cpp): the lengths fastest first, batches,
// precision, R2C/C2R's buffers and strides, the buffers' sizes; and a launch's direction and which
// buffer plays which part. Include after <vkFFT.h>, whose backend macro the includer sets.
#pragma once

#include <cstdint>
#include <string>

#include "porta_backend/backend.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail::vkfft {

inline std::string describe(const FftDesc& d) {
  std::string lengths;
  for (std::size_t i = 0; i < d.lengths.size(); ++i) lengths += cat(i ? "x" : "", d.lengths[i]);
  const char* kind = d.kind == FftKind::c2c ? "c2c" : d.kind == FftKind::r2c ? "r2c" : "c2r";
  return cat(kind, " ", name(d.dtype), " lengths ", lengths, " batch ", d.batch);
}

// Fills c's layout for d and the sizes VkFFT is told of its buffers (the complex one, `buffer`, and
// the real one of R2C/C2R, `input`); the backend fills its device, queue and buffer pointers.
template <class Config>
void layout(Config& c, const FftDesc& d, std::uint64_t& buffer_bytes, std::uint64_t& input_bytes) {
  const std::uint64_t real_bytes = d.dtype == DType::complex128 ? 8 : 4;
  c.FFTdim = d.lengths.size();
  std::uint64_t total = 1;
  for (std::size_t i = 0; i < d.lengths.size(); ++i) {
    c.size[i] = static_cast<std::uint64_t>(d.lengths[d.lengths.size() - 1 - i]);  // fastest first
    total *= c.size[i];
  }
  c.numberBatches = static_cast<std::uint64_t>(d.batch);
  c.doublePrecision = d.dtype == DType::complex128 ? 1 : 0;
  c.isInputFormatted = 1;
  const std::uint64_t batch = static_cast<std::uint64_t>(d.batch), half = c.size[0] / 2 + 1, rest = total / c.size[0];
  if (d.kind == FftKind::c2c) {
    buffer_bytes = input_bytes = total * batch * 2 * real_bytes;
    return;
  }
  c.performR2C = 1;
  c.inverseReturnToInputBuffer = 1;
  c.inputBufferStride[0] = c.size[0];
  for (std::size_t i = 1; i < d.lengths.size(); ++i) c.inputBufferStride[i] = c.inputBufferStride[i - 1] * c.size[i];
  buffer_bytes = half * rest * batch * 2 * real_bytes;
  input_bytes = total * batch * real_bytes;
  if (d.kind == FftKind::r2c) c.makeForwardPlanOnly = 1;
  else c.makeInversePlanOnly = 1;
}

// Sets p's buffers for a transform from `in` to `out` (C2R: the complex input is VkFFT's buffer,
// which it overwrites) and returns VkFFT's direction (-1 forward).
template <class Params, class Buffer>
int launch(Params& p, const FftDesc& d, Buffer* in, Buffer* out, bool forward) {
  if (d.kind == FftKind::c2r) {
    p.buffer = in;
    p.inputBuffer = out;
    return 1;
  }
  p.inputBuffer = in;
  p.buffer = out;
  return d.kind == FftKind::r2c ? -1 : (forward ? -1 : 1);
}

}  // namespace porta::detail::vkfft
