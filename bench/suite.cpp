// The suite as a whole: each device's options resolved (configure), every registered suite file
// run for every selected device (register_suite), the devices as reports show them, and the
// ceilings porta-bench measures first (copy bandwidth, FMA peak).
//
// Device benchmarks are timed with porta::Event (the device's own clock) around each operation
// after a warm-up, and report the median of their runs; the small-op benchmarks measure host wall
// time, which is what they are about. Inputs are random, never zeros.
#include "suite.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <stdexcept>

#include "reference_kernels.hpp"
#include "suite_common.hpp"

namespace porta_bench {
namespace {

struct Registered {
  std::string name;
  int order = 0;
  DeviceSuite per_device = nullptr;
  AllDevicesSuite all_devices = nullptr;
};

std::vector<Registered>& registered() {
  static std::vector<Registered> r;
  return r;
}

// Median device milliseconds of `runs` timed runs of `op`, after a warm-up.
template <class Op>
double ceiling_ms(const DeviceConfig& c, int runs, Op&& op) {
  for (int i = 0; i < 2; ++i) op();
  porta::synchronize(c.device);
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) ms.push_back(event_ms(c, op));
  return median(ms);
}

// Peak FLOP/s of the FMA-chain kernel in dtype `t` (float32 or float64), in TFLOP/s.
double fma_tflops(const DeviceConfig& c, DType t) {
  const bool cuda = c.device.backend() == porta::Backend::cuda;
  std::vector<std::string> options;
  if (t == DType::float64) options.emplace_back("-DPORTA_F64");
  porta::RawKernel k(cuda ? porta::Backend::cuda : porta::Backend::opencl, cuda ? reference::kCudaFma : reference::kOpenCLFma,
                     "fma_chain", options);
  const auto cu = static_cast<std::uint32_t>(std::max(c.device.compute_units(), 1));
  const std::uint32_t block = c.gpu ? 256 : 64, groups = cu * (c.gpu ? 8 : 16);
  const std::int32_t iters = c.quick ? 256 : cuda ? 16384 : 4096;
  Array out = porta::empty({static_cast<std::int64_t>(groups) * block}, t, c.device).eval();
  std::vector<porta::RawArg> args = {out};
  if (t == DType::float64) args.insert(args.end(), {0.999, 0.001});
  else args.insert(args.end(), {0.999f, 0.001f});
  args.emplace_back(iters);
  double ms = ceiling_ms(c, c.quick ? 3 : 5, [&] {
    k.launch({groups, 1, 1}, {block, 1, 1}, args);
    return 0;
  });
  double total = porta::sum(out.astype(DType::float64)).item<double>();
  if (!std::isfinite(total)) throw std::runtime_error("the FMA kernel gave a non-finite result");
  double flops = static_cast<double>(groups) * block * iters * (cuda ? reference::kCudaFmaFlopsPerStep : reference::kOpenCLFmaFlopsPerStep);
  return flops / (ms * 1e-3) / 1e12;
}

std::vector<porta::Device> devices_of(const Options& o) {
  if (o.devices.empty()) return porta::devices();
  std::vector<porta::Device> out;
  for (auto& spec : o.devices) out.push_back(porta::device(spec));
  return out;
}

DeviceConfig configure(const porta::Device& d, const Options& o) {
  DeviceConfig c;
  c.device = d;
  c.spec = d.spec();
  c.gpu = d.kind() == porta::DeviceKind::gpu;
  c.quick = o.quick;
  c.filter = o.filter;
  c.progress = o.progress;
  c.batch = c.gpu && !o.quick ? 4 : 1;
  c.pool_tasks = o.pool_tasks ? o.pool_tasks : o.quick ? 100 : 1000;
  c.pool_size = std::int64_t{1} << (o.quick ? 16 : 18);
  if (o.quick) {
    c.n = o.size ? o.size : std::int64_t{1} << 20;
    c.matmul = o.matmul.empty() ? std::vector<std::int64_t>{256} : o.matmul;
    c.linalg = o.linalg ? o.linalg : 64;
    c.iterations = 2;
    c.repetitions = 1;
    c.small_ops = 200;
    c.threads = {1, 2};
  } else {
    c.n = o.size ? o.size : std::int64_t{1} << (c.gpu ? 28 : 24);
    c.matmul = !o.matmul.empty() ? o.matmul
               : c.gpu       ? std::vector<std::int64_t>{1024, 4096, 8192}
                             : std::vector<std::int64_t>{256, 1024};
    c.linalg = o.linalg ? o.linalg : c.gpu ? 4096 : 512;
    c.iterations = 0;
    c.min_time = c.gpu ? 0.2 : 0.15;
    c.repetitions = 3;
    c.small_ops = c.gpu ? 20000 : 2000;
    c.threads = c.gpu ? std::vector<int>{1, 2, 4, 8} : std::vector<int>{1, 2};
  }
  if (o.iterations) c.iterations = o.iterations;
  if (o.repetitions) c.repetitions = o.repetitions;
  if (o.small_ops) c.small_ops = o.small_ops;
  if (!o.threads.empty()) c.threads = o.threads;
  // The largest power-of-two square (or 1:2 rectangle) that fits in n elements.
  c.cols = 1;
  while (c.cols * c.cols * 4 <= c.n) c.cols *= 2;
  c.rows = std::max<std::int64_t>(c.n / c.cols, 1);
  return c;
}

}  // namespace

SuiteRegistrar::SuiteRegistrar(const char* name, int order, DeviceSuite per_device) {
  registered().push_back({name, order, per_device, nullptr});
}

SuiteRegistrar::SuiteRegistrar(const char* name, int order, AllDevicesSuite all_devices) {
  registered().push_back({name, order, nullptr, all_devices});
}

std::string DeviceSummary::text() const {
  return name + " (" + backend + ", " + kind + ", " + platform + ", driver " + driver + ", " + std::to_string(compute_units) +
         " compute units; 1-D size " + std::to_string(size) + ")";
}

std::vector<DeviceSummary> selected_devices(const Options& o) {
  std::vector<DeviceSummary> out;
  for (auto& d : devices_of(o)) {
    DeviceConfig c = configure(d, o);
    DeviceSummary x{c.spec, d.name(), std::string(porta::name(d.backend())), std::string(porta::name(d.kind())), d.platform(),
                    d.driver_version(), d.compute_units(), c.n, {}, d.pci_bus_id()};
    for (const MatmulKind& k : matmul_kinds(d))
      if (d.supports(k.dtype)) x.matmul_families.push_back(k.name);
    out.push_back(std::move(x));
  }
  return out;
}

int register_suite(const Options& o) {
  auto devices = devices_of(o);
  if (devices.empty()) throw std::runtime_error("porta found no device: run porta-info to see why");
  auto all = porta::devices();
  std::vector<DeviceConfig> configs;
  for (auto& d : devices) {
    DeviceConfig c = configure(d, o);
    for (auto& other : all)
      if (other.backend() == d.backend() && other.index() < d.index() && other.name() == d.name() &&
          other.platform() == d.platform())
        ++c.occurrence;
    configs.push_back(c);
  }
  // Every suite file's benchmarks, device after device, in the files' order (PORTA_BENCH_SUITE).
  std::vector<Registered> suites = registered();
  std::stable_sort(suites.begin(), suites.end(), [](auto& a, auto& b) { return a.order < b.order; });
  for (const DeviceConfig& c : configs)
    for (auto& s : suites)
      if (s.per_device) s.per_device(c);
  for (auto& s : suites)
    if (s.all_devices) s.all_devices(configs);
  return static_cast<int>(devices.size());
}

std::vector<Ceilings> measure_ceilings(const Options& o) {
  std::vector<Ceilings> out;
  for (auto& d : devices_of(o)) {
    DeviceConfig c = configure(d, o);
    Ceilings x;
    x.spec = c.spec;
    auto note = [&](const std::string& what) {
      if (o.progress) std::cerr << "porta-bench [ceilings] " << c.spec << "  " << what << std::endl;
    };
    try {
      note("copy bandwidth");
      Array a = input(c, 0, {c.n});
      double ms = ceiling_ms(c, c.quick ? 5 : 9, [&] { return a.copy(); });
      x.copy_gbps = 2.0 * 4.0 * static_cast<double>(c.n) / (ms * 1e-3) / 1e9;
      x.copy_source = "copy, measured first";
      set_copy_gbps(c.spec, x.copy_gbps, true);
    } catch (const std::exception& e) {
      std::cerr << "porta-bench: copy ceiling on " << c.spec << ": " << e.what() << "\n";
    }
    if (c.device.compiles_at_runtime() && c.device.backend() != porta::Backend::kokkos) {
      try {
        note("FLOP/s, float32 FMA chains");
        x.f32_tflops = fma_tflops(c, DType::float32);
        x.flops_source = "FMA-chain RawKernel";
        if (c.device.supports(DType::float64)) {
          note("FLOP/s, float64 FMA chains");
          x.f64_tflops = fma_tflops(c, DType::float64);
          x.f64_source = "FMA-chain RawKernel";
        }
      } catch (const std::exception& e) {
        std::cerr << "porta-bench: FLOP ceiling on " << c.spec << ": " << e.what() << "\n";
      }
    }
    out.push_back(x);
  }
  return out;
}

}  // namespace porta_bench
