// The dtypes beyond float32 (issue 37): 1-byte integers added and fused (moved 16 bytes a
// work-item, so their GB/s should reach copy's), the image-loading conversion uint8 -> float32,
// and complex64 x * y + z. Each row's bytes are the bytes its arrays hold; frac_copy compares them
// with the float32 copy, the device's ceiling.
#include "suite_common.hpp"

namespace porta_bench {
namespace {

// Whole numbers spread over the dtype's range (uniform [-1, 1) inputs scaled), made once.
Array int_input(const DeviceConfig& c, int slot, std::int64_t n, DType t) {
  const double scale = t == DType::uint8 ? 127.0 : 100.0;
  Array x = input(c, slot, {n});
  return (t == DType::uint8 ? (x + 1.0f) * static_cast<float>(scale) : x * static_cast<float>(scale)).astype(t).eval();
}

Array complex_input(const DeviceConfig& c, int slot, std::int64_t n) {
  return (input(c, slot, {n}).astype(DType::complex64) + input(c, slot + 1, {n}) * std::complex<float>(0, 1)).eval();
}

void register_dtypes(const DeviceConfig& c) {
  const std::int64_t n = c.n;
  const double dn = static_cast<double>(n);
  add_report_row({"x + y uint8 (bytes of x, y, out)", "add_u8", "", "GB/s", "cupy_add_u8_GBps", "torch_add_u8_GBps", "", ""});
  add_report_row({"x + y int8", "add_i8", "", "GB/s", "cupy_add_i8_GBps", "torch_add_i8_GBps", "", ""});
  add_report_row({"x * 3 + y - (x >> 1) uint8, fused (CuPy: cupy.fuse; PyTorch: eager)", "fused_u8", "", "GB/s",
                  "cupy_fused_u8_GBps", "torch_fused_u8_GBps", "", ""});
  add_report_row({"uint8 -> float32 (1 + 4 bytes an element)", "u8_to_f32", "", "GB/s", "cupy_u8_to_f32_GBps",
                  "torch_u8_to_f32_GBps", "", ""});
  add_report_row({"x * y + z complex64 (CuPy: cupy.fuse; PyTorch: eager)", "fma_c64", "", "GB/s", "cupy_fma_c64_GBps",
                  "torch_fma_c64_GBps", "", ""});
  for (DType t : {DType::uint8, DType::int8}) {
    if (!c.device.supports(t)) continue;
    const char* family = t == DType::uint8 ? "add_u8" : "add_i8";
    add(c, nm(family, c, n), [c, n, dn, t](benchmark::State& st) {
      Array x = int_input(c, 0, n, t), y = int_input(c, 1, n, t);
      time_on_device(st, c, {3 * dn, dn}, [&] { return (x + y).eval(); });
    });
  }
  if (c.device.supports(DType::uint8)) {
    add(c, nm("fused_u8", c, n), [c, n, dn](benchmark::State& st) {
      Array x = int_input(c, 0, n, DType::uint8), y = int_input(c, 1, n, DType::uint8);
      time_on_device(st, c, {3 * dn, 4 * dn}, [&] { return (x * 3 + y - (x >> 1)).eval(); });
    });
    add(c, nm("u8_to_f32", c, n), [c, n, dn](benchmark::State& st) {
      Array x = int_input(c, 0, n, DType::uint8);
      time_on_device(st, c, {5 * dn, 0}, [&] { return x.astype(DType::float32).eval(); });
    });
  }
  if (c.device.supports(DType::complex64)) {
    add(c, nm("fma_c64", c, n), [c, n, dn](benchmark::State& st) {
      Array x = complex_input(c, 0, n), y = complex_input(c, 2, n), z = complex_input(c, 4, n);
      time_on_device(st, c, {32 * dn, 8 * dn}, [&] { return (x * y + z).eval(); });
    });
  }
}

}  // namespace

PORTA_BENCH_SUITE(register_dtypes, 55);

}  // namespace porta_bench
