// matmul in every dtype the device has (TF32 on CUDA; complex64 and complex128, counted as 8 real
// FLOPs a multiply-add as cuBLAS's cgemm and the peers' rows are), and CLBlast called directly
// beside porta's OpenCL GEMM where it was found.
#include "suite_common.hpp"
#ifdef PORTA_BENCH_CLBLAST
#include "native.hpp"
#endif

namespace porta_bench {

// The matmul benchmarks of a device, before the test of whether it supports the dtype.
std::vector<MatmulKind> matmul_kinds(const porta::Device& d) {
  std::vector<MatmulKind> kinds = {{"matmul_f32", DType::float32, porta::MatmulPrecision::exact},
                                   {"matmul_f64", DType::float64, porta::MatmulPrecision::exact},
                                   {"matmul_f16", DType::float16, porta::MatmulPrecision::exact},
                                   {"matmul_bf16", DType::bfloat16, porta::MatmulPrecision::exact},
                                   {"matmul_c64", DType::complex64, porta::MatmulPrecision::exact, 8},
                                   {"matmul_c128", DType::complex128, porta::MatmulPrecision::exact, 8}};
  // TF32 where it exists: cuBLAS, and porta's tensor-core kernel on NVIDIA's OpenCL.
  if (d.backend() == porta::Backend::cuda ||
      (d.backend() == porta::Backend::opencl && d.platform().find("NVIDIA") != std::string::npos))
    kinds.insert(kinds.begin() + 1, {"matmul_tf32", DType::float32, porta::MatmulPrecision::tf32});
  return kinds;
}

namespace {

void register_matmul(const DeviceConfig& c) {
  for (std::int64_t m : c.matmul) {
    for (const MatmulKind& k : matmul_kinds(c.device)) {
      if (!c.device.supports(k.dtype)) continue;
      const double dm = static_cast<double>(m);
      Work w{0, k.flops_per_mac * dm * dm * dm};
      add(c, nm(k.name, c, m), [c, m, k, w](benchmark::State& st) {
        Array a = input(c, 0, {m, m}, k.dtype), b = input(c, 1, {m, m}, k.dtype);
        time_on_device(st, c, w, [&] { return porta::matmul(a, b, k.precision); });
        st.counters["TFLOP/s"] = st.counters["GFLOP/s"] / 1e3;
        st.counters.erase("GFLOP/s");
      });
    }
#ifdef PORTA_BENCH_CLBLAST
    // CLBlast called directly on the same OpenCL device, beside porta's own GEMM. On CPU devices
    // (where it runs 16-25x slower than the host BLAS porta uses) only when a filter asks for it.
    if (c.device.backend() == porta::Backend::opencl && (c.gpu || !c.filter.empty())) {
      native::Target target{c.device.name(), c.device.platform(), c.occurrence};
      for (const MatmulKind& k : matmul_kinds(c.device)) {
        const bool f64 = k.dtype == DType::float64;
        if ((k.dtype != DType::float32 && !f64) || k.precision == porta::MatmulPrecision::tf32 || !c.device.supports(k.dtype))
          continue;  // CLBlast has no TF32: its SGEMM is matmul_f32_clblast
        const double dm = static_cast<double>(m);
        Work w{0, 2 * dm * dm * dm};
        add(c, nm(std::string(k.name) + "_clblast", c, m), [c, m, f64, w, target](benchmark::State& st) {
          native::ClblastGemm gemm(target, static_cast<std::size_t>(m), f64);
          for (int i = 0; i < 2; ++i) gemm.time_ms();
          time_loop(st, c, w, [&] { return gemm.time_ms(); });
          st.counters["TFLOP/s"] = st.counters["GFLOP/s"] / 1e3;
          st.counters.erase("GFLOP/s");
          st.SetLabel("CLBlast Gemm, called directly");
        });
      }
    }
#endif
  }
}

}  // namespace

PORTA_BENCH_SUITE(register_matmul, 60);

}  // namespace porta_bench
