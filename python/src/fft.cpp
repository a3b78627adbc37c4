// Binds fft.hpp as private functions of _core; porta/fft.py gives them NumPy's and the array
// API's signatures.
#include "bindings.hpp"

namespace porta::python {

namespace {

using Lengths = std::optional<std::vector<std::int64_t>>;
using Axes = std::optional<std::vector<int>>;
using One = Array (*)(const Array&, std::optional<std::int64_t>, int, fft::Norm);
using Many = Array (*)(const Array&, fft::Lengths, fft::Axes, fft::Norm);

}  // namespace

void bind_fft(nb::module_& m) {
  auto one = [&](const char* name, One f) {
    m.def(name, [f](const Array& a, std::optional<std::int64_t> n, int axis, const std::string& norm) {
      return f(a, n, axis, fft::norm_from_string(norm));
    }, nb::arg("a"), nb::arg("n").none(), nb::arg("axis"), nb::arg("norm"), release_gil());
  };
  one("_fft_fft", &fft::fft);
  one("_fft_ifft", &fft::ifft);
  one("_fft_rfft", &fft::rfft);
  one("_fft_irfft", &fft::irfft);
  one("_fft_hfft", &fft::hfft);
  one("_fft_ihfft", &fft::ihfft);
  auto many = [&](const char* name, Many f) {
    m.def(name, [f](const Array& a, Lengths s, Axes axes, const std::string& norm) {
      return f(a, std::move(s), std::move(axes), fft::norm_from_string(norm));
    }, nb::arg("a"), nb::arg("s").none(), nb::arg("axes").none(), nb::arg("norm"), release_gil());
  };
  many("_fft_fftn", &fft::fftn);
  many("_fft_ifftn", &fft::ifftn);
  many("_fft_rfftn", &fft::rfftn);
  many("_fft_irfftn", &fft::irfftn);
  m.def("_fft_fftfreq", [](std::int64_t n, double d, nb::handle dtype, nb::handle device, bool real) {
    const DType t = to_dtype(dtype);
    const Device dev = to_device(device);
    nb::gil_scoped_release unlocked;
    return real ? fft::rfftfreq(n, d, t, dev) : fft::fftfreq(n, d, t, dev);
  }, nb::arg("n"), nb::arg("d"), nb::arg("dtype"), nb::arg("device").none(), nb::arg("real"));
  m.def("_fft_shift", [](const Array& a, Axes axes, bool inverse) {
    return inverse ? fft::ifftshift(a, std::move(axes)) : fft::fftshift(a, std::move(axes));
  }, nb::arg("a"), nb::arg("axes").none(), nb::arg("inverse"), release_gil());
}

}  // namespace porta::python
