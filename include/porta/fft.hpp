// Discrete Fourier transforms: NumPy's numpy.fft and the array API's fft extension, on every
// device with an FFT library (cuFFT or VkFFT on CUDA, VkFFT on OpenCL, porta's own on the host:
// porta-info names it per device; docs/design/fft.md). Plans are cached per device.
//
// Results have NumPy's dtypes: float32, float16 (and bfloat16) and complex64 inputs give
// complex64 (float32 for the real results of irfft and hfft); float64, integers, bool and
// complex128 give complex128 (float64), which needs a device with float64 (DTypeError naming the
// device elsewhere). `n` / `s` crop or zero-pad the input along the transformed axes; `norm`
// scales as NumPy's: backward (1/n on the inverse), ortho (1/sqrt(n) both ways), forward (1/n on
// the forward transform). The scale is a lazy multiply, fused into the next elementwise work.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <porta/array.hpp>

namespace porta::fft {

enum class Norm { backward, ortho, forward };
// "backward", "ortho", "forward" (InvalidArgument for anything else).
Norm norm_from_string(std::string_view s);

using Lengths = std::optional<std::vector<std::int64_t>>;
using Axes = std::optional<std::vector<int>>;

// One axis. n: the length transformed (the input is cropped or zero-padded to it; default the
// axis' length; irfft's default 2 (m - 1) and hfft's likewise, for an input axis of length m).
Array fft(const Array& a, std::optional<std::int64_t> n = std::nullopt, int axis = -1, Norm norm = Norm::backward);
Array ifft(const Array& a, std::optional<std::int64_t> n = std::nullopt, int axis = -1, Norm norm = Norm::backward);
// Real input (DTypeError for complex); n / 2 + 1 outputs along the axis.
Array rfft(const Array& a, std::optional<std::int64_t> n = std::nullopt, int axis = -1, Norm norm = Norm::backward);
// The inverse of rfft: n real outputs from a Hermitian half spectrum.
Array irfft(const Array& a, std::optional<std::int64_t> n = std::nullopt, int axis = -1, Norm norm = Norm::backward);
// The transform of a signal with a Hermitian spectrum (real output), and its inverse.
Array hfft(const Array& a, std::optional<std::int64_t> n = std::nullopt, int axis = -1, Norm norm = Norm::backward);
Array ihfft(const Array& a, std::optional<std::int64_t> n = std::nullopt, int axis = -1, Norm norm = Norm::backward);

// Several axes. s: the lengths (default the axes' lengths); axes: default every axis, or the last
// s.size() when s is given. rfftn's last axis is the real one; irfftn's last output length
// defaults to 2 (m - 1). fftn and ifftn transform an axis named twice twice, in NumPy's order;
// rfftn and irfftn refuse it (InvalidArgument).
Array fftn(const Array& a, Lengths s = std::nullopt, Axes axes = std::nullopt, Norm norm = Norm::backward);
Array ifftn(const Array& a, Lengths s = std::nullopt, Axes axes = std::nullopt, Norm norm = Norm::backward);
Array rfftn(const Array& a, Lengths s = std::nullopt, Axes axes = std::nullopt, Norm norm = Norm::backward);
Array irfftn(const Array& a, Lengths s = std::nullopt, Axes axes = std::nullopt, Norm norm = Norm::backward);
// The same over two axes, by default the last two.
Array fft2(const Array& a, Lengths s = std::nullopt, std::vector<int> axes = {-2, -1}, Norm norm = Norm::backward);
Array ifft2(const Array& a, Lengths s = std::nullopt, std::vector<int> axes = {-2, -1}, Norm norm = Norm::backward);
Array rfft2(const Array& a, Lengths s = std::nullopt, std::vector<int> axes = {-2, -1}, Norm norm = Norm::backward);
Array irfft2(const Array& a, Lengths s = std::nullopt, std::vector<int> axes = {-2, -1}, Norm norm = Norm::backward);

// The sample frequencies of an n-point fft ([0, 1, ..., -(n / 2), ..., -1] / (d n)) and of rfft
// ([0, 1, ..., n / 2] / (d n)), float64 unless t says otherwise; n >= 1.
Array fftfreq(std::int64_t n, double d = 1.0, DType t = DType::float64, Device device = current_device());
Array rfftfreq(std::int64_t n, double d = 1.0, DType t = DType::float64, Device device = current_device());
// The zero frequency moved to the middle of each of `axes` (default every axis), and back.
Array fftshift(const Array& a, Axes axes = std::nullopt);
Array ifftshift(const Array& a, Axes axes = std::nullopt);

}  // namespace porta::fft
