// FFT rows (issue 39): complex64 C2C over 2^28 elements (GPUs; 2^22 on CPU devices) as batches of
// 256, 4096 and 65536, one transform of 2^24 and of 2^28 (GPUs) and of 2^20, R2C float32 in batches of 4096,
// complex128 in batches of 4096, and a 1024 x 1024 fft2. GB/s are effective: the input read and
// the output written once per transform (cuFFT's own measure; 2^28 complex64 at the copy
// bandwidth is the ceiling). peers.py measures cupy.fft, torch.fft and numpy.fft on the
// same shapes under the same names.
#include <porta/fft.hpp>

#include "suite_common.hpp"

namespace porta_bench {
namespace {

namespace pf = porta::fft;

Array complex_data(const DeviceConfig& c, int slot, std::int64_t n, DType t) {
  const DType real = t == DType::complex128 ? DType::float64 : DType::float32;
  return (input(c, slot, {n}, real).astype(t) + input(c, slot + 1, {n}, real).astype(t) * std::complex<float>(0, 1)).eval();
}

void register_fft(const DeviceConfig& c) {
  add_report_row({"fft complex64, batches of 256 (2^28 elements on GPUs, 2^22 on CPUs)", "fft_c64_b256", "", "GB/s",
                  "cupy_fft_c64_b256_GBps", "torch_fft_c64_b256_GBps", "numpy_fft_c64_b256_GBps"});
  add_report_row({"fft complex64, batches of 4096", "fft_c64_b4096", "", "GB/s", "cupy_fft_c64_b4096_GBps",
                  "torch_fft_c64_b4096_GBps", "numpy_fft_c64_b4096_GBps"});
  add_report_row({"fft complex64, batches of 65536", "fft_c64_b65536", "", "GB/s", "cupy_fft_c64_b65536_GBps",
                  "torch_fft_c64_b65536_GBps", "numpy_fft_c64_b65536_GBps"});
  add_report_row({"fft complex64, one transform of 2^24 (GPUs)", "fft_c64_2p24", "", "GB/s", "cupy_fft_c64_2p24_GBps",
                  "torch_fft_c64_2p24_GBps", ""});
  add_report_row({"fft complex64, one transform of 2^28 (GPUs)", "fft_c64_2p28", "", "GB/s", "cupy_fft_c64_2p28_GBps",
                  "torch_fft_c64_2p28_GBps", ""});
  add_report_row({"fft complex64, one transform of 2^20", "fft_c64_2p20", "", "GB/s", "cupy_fft_c64_2p20_GBps",
                  "torch_fft_c64_2p20_GBps", "numpy_fft_c64_2p20_GBps"});
  add_report_row({"rfft float32, batches of 4096 (read 4 B, write 8 B of n/2+1)", "rfft_f32", "", "GB/s",
                  "cupy_rfft_f32_GBps", "torch_rfft_f32_GBps", "numpy_rfft_f32_GBps"});
  add_report_row({"fft complex128, batches of 4096", "fft_c128_b4096", "", "GB/s", "cupy_fft_c128_b4096_GBps",
                  "torch_fft_c128_b4096_GBps", "numpy_fft_c128_b4096_GBps"});
  add_report_row({"fft2 complex64 1024 x 1024 (a batch of them on GPUs)", "fft2_c64_1024", "", "GB/s",
                  "cupy_fft2_c64_1024_GBps", "torch_fft2_c64_1024_GBps", "numpy_fft2_c64_1024_GBps"});
  if (!c.device.supports(DType::complex64)) return;
  const std::int64_t total = c.gpu ? (c.quick ? (std::int64_t{1} << 24) : (std::int64_t{1} << 28)) : (std::int64_t{1} << 22);
  auto c2c = [c](const std::string& family, std::int64_t total, std::int64_t len, DType t) {
    add(c, nm(family, c, total), [c, total, len, t](benchmark::State& st) {
      Array x = complex_data(c, 0, total, t).reshape({total / len, len});
      const double bytes = 2.0 * static_cast<double>(total) * static_cast<double>(itemsize(t));
      time_on_device(st, c, {bytes, 0}, [&] { return pf::fft(x).eval(); });
    });
  };
  c2c("fft_c64_b256", total, 256, DType::complex64);
  c2c("fft_c64_b4096", total, 4096, DType::complex64);
  c2c("fft_c64_b65536", total, 65536, DType::complex64);
  if (c.gpu) c2c("fft_c64_2p24", std::int64_t{1} << 24, std::int64_t{1} << 24, DType::complex64);
  if (c.gpu && !c.quick) c2c("fft_c64_2p28", total, total, DType::complex64);
  c2c("fft_c64_2p20", std::int64_t{1} << 20, std::int64_t{1} << 20, DType::complex64);
  if (c.device.supports(DType::complex128)) c2c("fft_c128_b4096", total / 2, 4096, DType::complex128);
  add(c, nm("rfft_f32", c, total), [c, total](benchmark::State& st) {
    Array x = input(c, 0, {total / 4096, 4096});
    const double bytes = 4.0 * static_cast<double>(total) + 8.0 * static_cast<double>(total / 4096 * 2049);
    time_on_device(st, c, {bytes, 0}, [&] { return pf::rfft(x).eval(); });
  });
  const std::int64_t images = c.gpu ? total / (1 << 20) / 4 : 1;
  add(c, nm("fft2_c64_1024", c, images << 20), [c, images](benchmark::State& st) {
    Array x = complex_data(c, 2, images << 20, DType::complex64).reshape({images, 1024, 1024});
    const double bytes = 2.0 * 8.0 * static_cast<double>(images << 20);
    time_on_device(st, c, {bytes, 0}, [&] { return pf::fft2(x).eval(); });
  });
}

}  // namespace

PORTA_BENCH_SUITE(register_fft, 58);

}  // namespace porta_bench
