// What the suite files share: a device's resolved options (DeviceConfig), the timing helpers
// (device events around each operation, medians), the shared random inputs, and the one way to
// register a benchmark (add). Internal to bench/: porta-bench's report sees only suite.hpp.
//
// Adding a suite file: write bench/suite_<kind>.cpp with a `void register_<kind>(const
// DeviceConfig&)` that calls add() for each benchmark, and register it at the end of that file:
//     PORTA_BENCH_SUITE(register_<kind>, 60);   // 60: its place in the order (see suite.cpp)
// and list the file in bench/CMakeLists.txt's porta_bench_suite. Nothing else changes: suite.cpp
// runs every registered suite for every device. Rows for porta-bench's table come from
// add_report_rows (suite.hpp), called from the same file.
#pragma once

#include <algorithm>
#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <porta/porta.hpp>

#include "suite.hpp"

namespace porta_bench {

using Clock = std::chrono::steady_clock;
using porta::Array;
using porta::DType;

// What one device runs: the options resolved for its kind.
struct DeviceConfig {
  porta::Device device;
  std::string spec;
  bool gpu = false;
  std::int64_t n = 0;
  std::int64_t rows = 0, cols = 0;  // the matrix of the 2-D benchmarks, rows * cols <= n
  std::vector<std::int64_t> matmul;
  std::int64_t linalg = 0;  // the one-matrix linalg rows' order
  int iterations = 0;     // timed runs per repetition; 0: as many as fill min_time
  double min_time = 0.2;  // seconds of timed runs per repetition when iterations is 0
  int repetitions = 0, small_ops = 0;
  std::vector<int> threads;
  int batch = 1;       // operations between one pair of events (see event_ms)
  int occurrence = 0;  // earlier devices of this backend with the same name and platform
  bool quick = false;
  std::int64_t pool_tasks = 0, pool_size = 0;  // tasks of the pool runs, and elements of each
  std::string filter;
  bool progress = false;
};

// Bytes each run must move through device memory (each input read once, each output written
// once) and floating-point operations it must do; the counters divide them by the median time.
struct Work {
  double bytes = 0;
  double flops = 0;
};

double median(std::vector<double> v);

// Copy bandwidth measured in this process, per device: the ceiling the other bandwidths are
// given as a fraction of (0 until measured).
double measured_copy_gbps(const std::string& spec);
void set_copy_gbps(const std::string& spec, double gbps, bool overwrite);

// The generator of every random input (seeded once).
porta::random::Generator& generator();

// Random inputs on [-1, 1), made once per (device, slot, shape, dtype) and shared by every
// benchmark and repetition: benchmarks only read them, and Philox on a CPU device is slow
// enough (PoCL, 2 cores: ~2 s for 2^24 floats) to dominate the suite's time otherwise.
Array input(const DeviceConfig& c, int slot, const porta::Shape& shape, DType t = DType::float32);

void set_rate_counters(benchmark::State& st, const DeviceConfig& c, double seconds, Work w);

// Runs `timed_ms` (one timed run; returns its device milliseconds) once per iteration, and sets
// the counters: ms (median device time), wall_ms (median host time of the same span, including
// the wait), GB/s, GFLOP/s, frac_copy.
template <class Timed>
void time_loop(benchmark::State& st, const DeviceConfig& c, Work w, Timed&& timed_ms) {
  std::vector<double> ms, wall;
  for (auto _ : st) {
    auto h0 = Clock::now();
    double t = timed_ms();
    wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - h0).count());
    st.SetIterationTime(t * 1e-3);
    ms.push_back(t);
  }
  double t = median(ms);
  st.counters["ms"] = t;
  st.counters["wall_ms"] = median(wall);
  set_rate_counters(st, c, t * 1e-3, w);
}

// Device milliseconds of one `op` (which queues work on c.device and returns what it made):
// c.batch operations back to back between two events, divided by c.batch. On GPUs batch = 4,
// so the host's launch time before the first kernel (the device idles between the start event
// and it) is a quarter of what it would be: at 2^28 floats it is 1-4% of a kernel otherwise.
template <class Op>
double event_ms(const DeviceConfig& c, Op&& op) {
  auto e0 = porta::Event::record(c.device);
  for (int i = 0; i < c.batch; ++i) {
    auto result = op();
    (void)result;
  }
  auto e1 = porta::Event::record(c.device);
  return e1.elapsed_ms(e0) / c.batch;
}

// Times `op` with device events (event_ms): a warm-up first (compiles, allocator), then one
// timed batch per iteration.
template <class Op>
void time_on_device(benchmark::State& st, const DeviceConfig& c, Work w, Op&& op) {
  for (int i = 0; i < 2; ++i) {
    auto h0 = Clock::now();
    auto warm = op();
    (void)warm;
    porta::synchronize(c.device);
    if (Clock::now() - h0 > std::chrono::milliseconds(200)) break;  // slow enough that one is plenty
  }
  time_loop(st, c, w, [&] { return event_ms(c, op); });
}

using Body = std::function<void(benchmark::State&)>;

// Registers one benchmark; a porta error (a dtype the device lacks, a backend that cannot run
// it) skips it with the message instead of ending the suite.
// `iterations` fixes the timed runs per repetition (else c.iterations, else Google Benchmark
// runs as many as fill c.min_time: one for a slow matmul, hundreds for a fast GPU kernel).
// Benchmarks that porta-bench's --filter does not select are not registered.
void add(const DeviceConfig& c, const std::string& name, Body body, int iterations = 0);

// "<what>/<device>/<size>[/<extra>]", the name every benchmark has.
std::string nm(const std::string& what, const DeviceConfig& c, std::int64_t size, const std::string& extra = "");

// One launch shape of a reference kernel: grid blocks of `block` work-items.
struct LaunchShape {
  porta::Dim3 grid, block;
  std::string label;
};

// Whether the device runs the float4 reference kernels (GPUs, CUDA) or the scalar ones.
inline bool vector_reference(const DeviceConfig& c) { return c.device.backend() == porta::Backend::cuda || c.gpu; }

// The launch shapes tried for the reference kernels; porta-bench compares with the fastest.
std::vector<LaunchShape> reference_shapes(const DeviceConfig& c, std::int64_t n);
porta::RawKernel reference_kernel(const DeviceConfig& c, const std::string& what);
// The vector kernels' last argument: the float4 count (ulong). The scalar ones take none.
std::vector<porta::RawArg> with_count(const DeviceConfig& c, std::vector<porta::RawArg> args, std::int64_t n);

struct MatmulKind {
  const char* name;
  DType dtype;
  porta::MatmulPrecision precision;
  double flops_per_mac = 2;  // real FLOPs of one multiply-add: 8 for complex (4 products, 4 sums)
};

// The matmul benchmarks of a device, before the test of whether it supports the dtype.
std::vector<MatmulKind> matmul_kinds(const porta::Device& d);

// The suites, registered by their files (PORTA_BENCH_SUITE) and run by register_suite in `order`
// for each device; a suite over all the devices at once (the pool) takes the whole list.
using DeviceSuite = void (*)(const DeviceConfig&);
using AllDevicesSuite = void (*)(const std::vector<DeviceConfig>&);
struct SuiteRegistrar {
  SuiteRegistrar(const char* name, int order, DeviceSuite per_device);
  SuiteRegistrar(const char* name, int order, AllDevicesSuite all_devices);
};
#define PORTA_BENCH_SUITE(fn, order) \
  static const ::porta_bench::SuiteRegistrar porta_bench_suite_##fn(#fn, order, fn)

}  // namespace porta_bench
