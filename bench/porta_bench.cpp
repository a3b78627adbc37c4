// The benchmark suite: elementwise work (copy, add, saxpy, a fused five-op expression,
// broadcast and strided adds), hand-written reference kernels, reductions (sum, argmax),
// matmul, random numbers, small-op overhead and DevicePool throughput, registered at run time
// for every device porta finds; and the ceilings (copy bandwidth, FMA peak) porta-bench
// measures first.
//
// Device benchmarks are timed with porta::Event (the device's own clock) around each operation
// after a warm-up, and report the median of their runs; the small-op benchmarks measure host wall
// time, which is what they are about. Inputs are random, never zeros.
#include "suite.hpp"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <charconv>
#include <chrono>
#include <cmath>
#include <functional>
#include <future>
#include <iostream>
#include <latch>
#include <map>
#include <mutex>
#include <regex>
#include <stdexcept>
#include <thread>
#include <utility>

#include <porta/dlpack.hpp>
#include <porta/interop.hpp>
#include <porta/porta.hpp>

#include "reference_kernels.hpp"
#if defined(PORTA_BENCH_NATIVE_OPENCL) || defined(PORTA_BENCH_NATIVE_CUDA)
#include "native.hpp"
#endif

namespace porta_bench {
namespace {

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

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// Copy bandwidth measured in this process, per device: the ceiling the other bandwidths are
// given as a fraction of.
std::mutex copy_mutex;
std::map<std::string, double> copy_gbps;

double measured_copy_gbps(const std::string& spec) {
  std::lock_guard lock(copy_mutex);
  auto it = copy_gbps.find(spec);
  return it == copy_gbps.end() ? 0.0 : it->second;
}

porta::random::Generator& generator() {
  static porta::random::Generator g(20261129);
  return g;
}

// Random inputs on [-1, 1), made once per (device, slot, shape, dtype) and shared by every
// benchmark and repetition: benchmarks only read them, and Philox on a CPU device is slow
// enough (PoCL, 2 cores: ~2 s for 2^24 floats) to dominate the suite's time otherwise.
std::mutex input_mutex;
std::map<std::string, Array> input_cache;

Array input(const DeviceConfig& c, int slot, const porta::Shape& shape, DType t = DType::float32) {
  auto& cache = input_cache;
  std::string key = c.spec + "|" + std::to_string(slot) + "|" + porta::to_string(shape) + "|" + std::string(porta::name(t));
  std::lock_guard lock(input_mutex);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  Array a = generator().uniform(shape, -1.0, 1.0, DType::float32, c.device);
  if (t != DType::float32) a = a.astype(t);
  a.eval();
  cache.emplace(key, a);
  return a;
}

void set_rate_counters(benchmark::State& st, const DeviceConfig& c, double seconds, Work w) {
  if (w.bytes > 0) {
    double gbps = w.bytes / seconds / 1e9;
    st.counters["GB/s"] = gbps;
    if (double copy = measured_copy_gbps(c.spec); copy > 0) st.counters["frac_copy"] = gbps / copy;
    st.SetBytesProcessed(static_cast<std::int64_t>(w.bytes * static_cast<double>(st.iterations())));
  }
  if (w.flops > 0) st.counters["GFLOP/s"] = w.flops / seconds / 1e9;
}

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

// "[k/m] device benchmark (repetition r/R)" on stderr as each repetition starts. Google
// Benchmark calls a body several times in one repetition while it grows the iteration count to
// fill the minimum time, and repeats from the final count: a call starts a new repetition when
// the previous call was of another benchmark or asked for no more iterations than it.
class Progress {
 public:
  void expect(int repetitions) {
    std::lock_guard lock(mutex_);
    total_ += std::max(repetitions, 1);
  }
  void start(const std::string& name, std::int64_t iterations, int repetitions) {
    std::lock_guard lock(mutex_);
    auto& seen = seen_[name];
    if (name == last_ && iterations > seen.iterations) {
      seen.iterations = iterations;
      return;
    }
    last_ = name;
    seen.iterations = iterations;
    ++seen.repetition;
    started_ = std::min(started_ + 1, total_);
    // "<family>/<device>/<size>[/<detail>]" shown as "<device>  <family>/<size>[/<detail>]"
    std::string shown = name;
    if (auto a = name.find('/'); a != std::string::npos)
      if (auto b = name.find('/', a + 1); b != std::string::npos)
        shown = name.substr(a + 1, b - a - 1) + "  " + name.substr(0, a) + name.substr(b);
    std::cerr << "porta-bench [" << started_ << "/" << total_ << "] " << shown;
    if (repetitions > 1) std::cerr << " (repetition " << std::min(seen.repetition, repetitions) << "/" << repetitions << ")";
    std::cerr << std::endl;
  }
  static Progress& instance() {
    static Progress p;
    return p;
  }

 private:
  struct Seen {
    std::int64_t iterations = 0;
    int repetition = 0;
  };
  std::mutex mutex_;
  int total_ = 0, started_ = 0;
  std::string last_;
  std::map<std::string, Seen> seen_;
};

// Whether `name` passes porta-bench's --filter (Google Benchmark's rule: a regex searched in
// the name; a leading '-' negates it).
bool selected(const std::string& filter, const std::string& name) {
  if (filter.empty() || filter == "." || filter == "all") return true;
  bool negate = filter[0] == '-';
  std::regex re(negate ? filter.substr(1) : filter);
  return std::regex_search(name, re) != negate;
}

// Registers one benchmark; a porta error (a dtype the device lacks, a backend that cannot run
// it) skips it with the message instead of ending the suite.
// `iterations` fixes the timed runs per repetition (else c.iterations, else Google Benchmark
// runs as many as fill c.min_time: one for a slow matmul, hundreds for a fast GPU kernel).
void add(const DeviceConfig& c, const std::string& name, Body body, int iterations = 0) {
  if (!selected(c.filter, name)) return;
  const bool progress = c.progress;
  const int repetitions = c.repetitions;
  if (progress) Progress::instance().expect(repetitions);
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [body, name, progress, repetitions](benchmark::State& st) {
    if (progress) Progress::instance().start(name, st.max_iterations, repetitions);
    try {
      body(st);
    } catch (const std::exception& e) {
      st.SkipWithError(e.what());
    }
  });
  b->UseManualTime()->Unit(benchmark::kMillisecond);
  if (int it = iterations ? iterations : c.iterations) b->Iterations(it);
  else b->MinTime(c.min_time);
  b->Repetitions(c.repetitions);
  if (c.repetitions > 1) b->ReportAggregatesOnly(true);
}

std::string nm(const std::string& what, const DeviceConfig& c, std::int64_t size, const std::string& extra = "") {
  std::string s = what + "/" + c.spec + "/" + std::to_string(size);
  if (!extra.empty()) s += "/" + extra;
  return s;
}

void register_elementwise(const DeviceConfig& c) {
  const std::int64_t n = c.n;
  const double dn = static_cast<double>(n), f = 4.0;  // float32 bytes
  add(c, nm("copy", c, n), [c, n, dn, f](benchmark::State& st) {
    Array x = input(c, 0, {n});
    time_on_device(st, c, {2 * f * dn, 0}, [&] { return x.copy(); });
    std::lock_guard lock(copy_mutex);
    copy_gbps.emplace(c.spec, st.counters["GB/s"]);  // the ceiling measured first, where it was
    st.counters.erase("frac_copy");
  });
  add(c, nm("add", c, n), [c, n, dn, f](benchmark::State& st) {
    Array x = input(c, 0, {n}), y = input(c, 1, {n});
    time_on_device(st, c, {3 * f * dn, dn}, [&] { return (x + y).eval(); });
  });
  add(c, nm("saxpy", c, n), [c, n, dn, f](benchmark::State& st) {
    Array x = input(c, 0, {n}), y = input(c, 1, {n});
    time_on_device(st, c, {3 * f * dn, 2 * dn}, [&] { return (2.5f * x + y).eval(); });
  });
  // Reads x and y once and writes once when fused; 8 operations an element, exp counted as one.
  add(c, nm("fused", c, n), [c, n, dn, f](benchmark::State& st) {
    Array x = input(c, 0, {n}), y = input(c, 1, {n});
    time_on_device(st, c, {3 * f * dn, 8 * dn},
                   [&] { return (2.5f * x * x + 1.5f * x + 0.5f * porta::exp(-y)).eval(); });
  });
  const std::int64_t rows = c.rows, cols = c.cols;
  const double dm = static_cast<double>(rows * cols);
  add(c, nm("add_broadcast", c, rows * cols, std::to_string(rows) + "x" + std::to_string(cols)),
      [c, rows, cols, dm, f](benchmark::State& st) {
        Array m = input(c, 0, {rows, cols}), v = input(c, 1, {cols});
        time_on_device(st, c, {2 * f * dm + f * static_cast<double>(cols), dm}, [&] { return (m + v).eval(); });
      });
  add(c, nm("add_strided", c, rows * cols, std::to_string(rows) + "x" + std::to_string(cols)),
      [c, rows, cols, dm, f](benchmark::State& st) {
        Array mt = input(c, 0, {cols, rows}), m = input(c, 1, {rows, cols});
        time_on_device(st, c, {3 * f * dm, dm}, [&] { return (mt.transpose() + m).eval(); });
      });
}

// One launch shape of a reference kernel: grid blocks of `block` work-items.
struct LaunchShape {
  porta::Dim3 grid, block;
  std::string label;
};

bool vector_reference(const DeviceConfig& c) { return c.device.backend() == porta::Backend::cuda || c.gpu; }

// The launch shapes tried for the reference kernels; porta-bench compares with the fastest.
// CPU OpenCL: one element per work-item, in work-groups of several sizes (RawKernel takes an
// explicit local size; PoCL picks its own when porta's generated kernels pass none).
// GPUs: float4 grid-stride loops of 256-thread blocks, 4 to 32 blocks per compute unit.
std::vector<LaunchShape> reference_shapes(const DeviceConfig& c, std::int64_t n) {
  std::vector<LaunchShape> shapes;
  if (vector_reference(c)) {
    const std::uint32_t cu = static_cast<std::uint32_t>(std::max(c.device.compute_units(), 1));
    const std::int64_t needed = (n / 4 + 255) / 256;
    for (std::uint32_t k : {4u, 8u, 16u, 32u}) {
      if (c.quick && k != 8u) continue;
      std::uint32_t g = static_cast<std::uint32_t>(std::min<std::int64_t>(cu * k, std::max<std::int64_t>(needed, 1)));
      shapes.push_back({{g, 1, 1}, {256, 1, 1}, "grid:" + std::to_string(g) + "x256"});
      if (g == needed) break;
    }
  } else {
    for (std::uint32_t b : {64u, 256u, 1024u, 4096u}) {
      if (b > n || n % b != 0) continue;  // exactly n work-items: the kernels have no bounds test
      if (c.quick && b != 1024u) continue;
      auto g = static_cast<std::uint32_t>(n / b);
      shapes.push_back({{g, 1, 1}, {b, 1, 1}, "local:" + std::to_string(b)});
    }
  }
  return shapes;
}

porta::RawKernel reference_kernel(const DeviceConfig& c, const std::string& what) {
  if (c.device.backend() == porta::Backend::cuda)
    return porta::RawKernel(porta::Backend::cuda, reference::kCudaVector, "ref_" + what + "4");
  if (vector_reference(c)) return porta::RawKernel(porta::Backend::opencl, reference::kOpenCLVector, "ref_" + what + "4");
  return porta::RawKernel(porta::Backend::opencl, reference::kOpenCLScalar, "ref_" + what);
}

// The vector kernels' last argument: the float4 count (ulong). The scalar ones take none.
std::vector<porta::RawArg> with_count(const DeviceConfig& c, std::vector<porta::RawArg> args, std::int64_t n) {
  if (vector_reference(c)) args.emplace_back(static_cast<std::uint64_t>(n / 4));
  return args;
}

void check_equal(const Array& got, const Array& want, const char* what) {
  float err = porta::max(porta::abs(got - want)).item<float>();
  if (!(err == 0.0f)) throw std::runtime_error(std::string(what) + " reference kernel gave a wrong result (max error " +
                                               std::to_string(err) + ")");
}

void register_references(const DeviceConfig& c) {
  if (!c.device.compiles_at_runtime() || c.device.backend() == porta::Backend::kokkos) return;
  const std::int64_t n = c.n;
  if (vector_reference(c) && n % 4 != 0) return;
  const double dn = static_cast<double>(n), f = 4.0;
  for (const LaunchShape& s : reference_shapes(c, n)) {
    add(c, nm("ref_copy", c, n, s.label), [c, n, dn, f, s](benchmark::State& st) {
      Array x = input(c, 0, {n}), out = porta::empty({n}, DType::float32, c.device).eval();
      auto k = reference_kernel(c, "copy");
      auto args = with_count(c, {x, out}, n);
      time_on_device(st, c, {2 * f * dn, 0}, [&] {
        k.launch(s.grid, s.block, args);
        return 0;
      });
      check_equal(out, x, "copy");
    });
    add(c, nm("ref_add", c, n, s.label), [c, n, dn, f, s](benchmark::State& st) {
      Array x = input(c, 0, {n}), y = input(c, 1, {n}), out = porta::empty({n}, DType::float32, c.device).eval();
      auto k = reference_kernel(c, "add");
      auto args = with_count(c, {x, y, out}, n);
      time_on_device(st, c, {3 * f * dn, dn}, [&] {
        k.launch(s.grid, s.block, args);
        return 0;
      });
      check_equal(out, x + y, "add");
    });
    add(c, nm("ref_saxpy", c, n, s.label), [c, n, dn, f, s](benchmark::State& st) {
      Array x = input(c, 0, {n}), y = input(c, 1, {n}), out = porta::empty({n}, DType::float32, c.device).eval();
      auto k = reference_kernel(c, "saxpy");
      auto args = with_count(c, {2.5f, x, y, out}, n);
      time_on_device(st, c, {3 * f * dn, 2 * dn}, [&] {
        k.launch(s.grid, s.block, args);
        return 0;
      });
      // The kernel may contract a * x + y into one rounding; porta need not: compare loosely.
      float err = porta::max(porta::abs(out - (2.5f * x + y))).item<float>();
      if (!(err <= 1e-5f)) throw std::runtime_error("saxpy reference kernel gave a wrong result");
    });
  }
}

#if defined(PORTA_BENCH_NATIVE_OPENCL) || defined(PORTA_BENCH_NATIVE_CUDA)
// A bare launch loop: `seconds(k)` runs k launches and waits; 10 as a warm-up, then `ops` per
// iteration, reported as host us per launch.
template <class F> void time_launch_loop(benchmark::State& st, int ops, F seconds) {
  seconds(10);
  std::vector<double> us;
  for (auto _ : st) {
    double s = seconds(ops);
    st.SetIterationTime(s);
    us.push_back(s * 1e6 / ops);
  }
  st.counters["us_per_op"] = median(us);
  st.counters["kops/s"] = 1e3 / median(us);
}
#endif

#ifdef PORTA_BENCH_NATIVE_OPENCL
// The same one-element kernels through plain OpenCL with local = NULL, and a bare enqueue loop.
void register_native(const DeviceConfig& c) {
  if (c.device.backend() != porta::Backend::opencl) return;
  native::Target target{c.device.name(), c.device.platform(), c.occurrence};
  const std::int64_t n = c.n;
  const double dn = static_cast<double>(n), f = 4.0;
  struct K {
    const char* what;
    Work w;
  };
  for (K k : {K{"copy", {2 * f * dn, 0}}, K{"add", {3 * f * dn, dn}}, K{"saxpy", {3 * f * dn, 2 * dn}}}) {
    add(c, nm(std::string("ref_") + k.what, c, n, "native-local:NULL"), [c, n, k, target](benchmark::State& st) {
      native::OpenCLReference ref(target, static_cast<std::size_t>(n));
      for (int i = 0; i < 2; ++i) ref.time_ms(k.what);
      time_loop(st, c, k.w, [&] { return ref.time_ms(k.what); });
    });
  }
  const int ops = c.small_ops;
  add(c, nm("small_native_add", c, 1024), [target, ops](benchmark::State& st) {
    native::OpenCLReference ref(target, 1024);
    time_launch_loop(st, ops, [&](int k) { return ref.launch_loop_seconds(k); });
  }, 3);
}
#endif

#ifdef PORTA_BENCH_NATIVE_CUDA
// A bare cuLaunchKernel loop of the same 1024-element add: the floor for porta's per-op cost.
void register_native_cuda(const DeviceConfig& c) {
  if (c.device.backend() != porta::Backend::cuda) return;
  const int ops = c.small_ops;
  add(c, nm("small_native_add", c, 1024), [c, ops](benchmark::State& st) {
    native::CudaLaunchLoop loop(c.device.pci_bus_id(), c.device.index());
    time_launch_loop(st, ops, [&](int k) { return loop.seconds(k); });
  }, 3);
}
#endif

// Two operations timed alternately (A B, then B A) in every iteration, so that both see the same
// machine: on a shared build machine a drift in load between two separate benchmarks would
// otherwise bias their ratio. Counters: ratio (median over iterations of time B / time A),
// ms_a, ms_b (medians).
template <class A, class B>
void time_pair(benchmark::State& st, A&& time_a, B&& time_b) {
  for (int i = 0; i < 2; ++i) time_a(), time_b();
  std::vector<double> ta, tb, ratio;
  bool a_first = true;
  for (auto _ : st) {
    double a = 0, b = 0;
    if (a_first) a = time_a(), b = time_b();
    else b = time_b(), a = time_a();
    a_first = !a_first;
    st.SetIterationTime((a + b) * 1e-3);
    ta.push_back(a);
    tb.push_back(b);
    ratio.push_back(b / a);
  }
  st.counters["ratio"] = median(ratio);
  st.counters["ms_a"] = median(ta);
  st.counters["ms_b"] = median(tb);
}

// The two ratios the foundation issue sets targets for, measured pairwise: the fused expression's
// time over x + y's, and the hand-written add's time over porta's x + y (= porta's bandwidth as
// a share of the hand-written kernel's; the plain-OpenCL local = NULL kernel where it is built).
void register_pairs(const DeviceConfig& c) {
  const std::int64_t n = c.n;
  const int iterations = c.iterations ? std::max(c.iterations * 3, 6) : c.gpu ? 30 : 6;
  add(c, nm("pair_fused_over_add", c, n), [c, n](benchmark::State& st) {
    Array x = input(c, 0, {n}), y = input(c, 1, {n});
    time_pair(st, [&] { return event_ms(c, [&] { return (x + y).eval(); }); },
              [&] { return event_ms(c, [&] { return (2.5f * x * x + 1.5f * x + 0.5f * porta::exp(-y)).eval(); }); });
  }, iterations);
  if (!c.device.compiles_at_runtime() || c.device.backend() == porta::Backend::kokkos) return;
  if (vector_reference(c) && n % 4 != 0) return;
  add(c, nm("pair_ref_over_add", c, n), [c, n](benchmark::State& st) {
    Array x = input(c, 0, {n}), y = input(c, 1, {n});
    auto porta_add = [&] { return event_ms(c, [&] { return (x + y).eval(); }); };
#ifdef PORTA_BENCH_NATIVE_OPENCL
    if (c.device.backend() == porta::Backend::opencl && !vector_reference(c)) {
      native::OpenCLReference ref({c.device.name(), c.device.platform(), c.occurrence}, static_cast<std::size_t>(n));
      time_pair(st, porta_add, [&] { return ref.time_ms("add"); });
      st.SetLabel("reference: plain OpenCL, local = NULL");
      return;
    }
#endif
    Array out = porta::empty({n}, DType::float32, c.device).eval();
    auto k = reference_kernel(c, "add");
    auto args = with_count(c, {x, y, out}, n);
    auto shapes = reference_shapes(c, n);
    if (shapes.empty()) throw std::runtime_error("no launch shape covers exactly n work-items");
    const LaunchShape& s = shapes[shapes.size() / 2];
    time_pair(st, porta_add, [&] {
      return event_ms(c, [&] {
        k.launch(s.grid, s.block, args);
        return 0;
      });
    });
    st.SetLabel("reference: RawKernel " + s.label);
  }, iterations);
}

void register_reductions(const DeviceConfig& c) {
  const std::int64_t n = c.n, rows = c.rows, cols = c.cols;
  const double dn = static_cast<double>(n), dm = static_cast<double>(rows * cols), f = 4.0;
  add(c, nm("sum", c, n), [c, n, dn, f](benchmark::State& st) {
    Array x = input(c, 0, {n});
    time_on_device(st, c, {f * dn, dn}, [&] { return porta::sum(x).eval(); });
  });
  add(c, nm("sum_rows", c, rows * cols, std::to_string(rows) + "x" + std::to_string(cols)),
      [c, rows, cols, dm, f](benchmark::State& st) {
        Array m = input(c, 0, {rows, cols});
        time_on_device(st, c, {f * dm + f * static_cast<double>(rows), dm}, [&] { return porta::sum(m, 1).eval(); });
      });
  add(c, nm("sum_cols", c, rows * cols, std::to_string(rows) + "x" + std::to_string(cols)),
      [c, rows, cols, dm, f](benchmark::State& st) {
        Array m = input(c, 0, {rows, cols});
        time_on_device(st, c, {f * dm + f * static_cast<double>(cols), dm}, [&] { return porta::sum(m, 0).eval(); });
      });
  // argmax reads every element once and writes one int64.
  add(c, nm("argmax", c, n), [c, n, dn, f](benchmark::State& st) {
    Array x = input(c, 0, {n});
    time_on_device(st, c, {f * dn, dn}, [&] { return porta::argmax(x).eval(); });
  });
  // Write-only: full(...) evaluated into a new buffer, as the random rows are. The ceiling of a
  // generator (a kernel that only writes), which copy (reads as much as it writes) is not.
  add(c, nm("fill", c, n), [c, n, dn, f](benchmark::State& st) {
    time_on_device(st, c, {f * dn, 0}, [&] { return porta::full({n}, 1.5, DType::float32, c.device).eval(); });
  });
  add(c, nm("uniform", c, n), [c, n, dn, f](benchmark::State& st) {
    time_on_device(st, c, {f * dn, 0}, [&] {
      Array u = generator().uniform({n}, 0.0, 1.0, DType::float32, c.device);
      u.eval();
      return u;
    });
  });
  add(c, nm("normal", c, n), [c, n, dn, f](benchmark::State& st) {
    time_on_device(st, c, {f * dn, 0}, [&] {
      Array z = generator().normal({n}, 0.0, 1.0, DType::float32, c.device);
      z.eval();
      return z;
    });
  });
}

struct MatmulKind {
  const char* name;
  DType dtype;
  porta::MatmulPrecision precision;
};

// The matmul benchmarks of a device, before the test of whether it supports the dtype.
std::vector<MatmulKind> matmul_kinds(const porta::Device& d) {
  std::vector<MatmulKind> kinds = {{"matmul_f32", DType::float32, porta::MatmulPrecision::exact},
                                   {"matmul_f64", DType::float64, porta::MatmulPrecision::exact},
                                   {"matmul_f16", DType::float16, porta::MatmulPrecision::exact},
                                   {"matmul_bf16", DType::bfloat16, porta::MatmulPrecision::exact}};
  // TF32 where it exists: cuBLAS, and porta's tensor-core kernel on NVIDIA's OpenCL.
  if (d.backend() == porta::Backend::cuda ||
      (d.backend() == porta::Backend::opencl && d.platform().find("NVIDIA") != std::string::npos))
    kinds.insert(kinds.begin() + 1, {"matmul_tf32", DType::float32, porta::MatmulPrecision::tf32});
  return kinds;
}

void register_matmul(const DeviceConfig& c) {
  for (std::int64_t m : c.matmul) {
    for (const MatmulKind& k : matmul_kinds(c.device)) {
      if (!c.device.supports(k.dtype)) continue;
      const double dm = static_cast<double>(m);
      Work w{0, 2 * dm * dm * dm};
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

// Host wall time per evaluated 1024-element add, N at a time, then one wait: what a program of
// many small operations pays per operation (launch, codegen-cache lookup, allocation).
void register_small_ops(const DeviceConfig& c) {
  constexpr std::int64_t kSmall = 1024;
  const int ops = c.small_ops;
  auto per_op = [ops, c](benchmark::State& st, const std::function<void()>& op) {
    // Warm for 0.1 s, not ten calls, so that host and GPU clocks settle before the clock starts
    // (on one H200 host this benchmark read 7.65 us an op where a standalone loop read 5.13).
    for (auto w0 = Clock::now(); Clock::now() - w0 < std::chrono::milliseconds(100);) {
      for (int i = 0; i < 100; ++i) op();
      porta::synchronize(c.device);
    }
    std::vector<double> us;
    for (auto _ : st) {
      auto t0 = Clock::now();
      for (int i = 0; i < ops; ++i) op();
      porta::synchronize(c.device);
      double s = std::chrono::duration<double>(Clock::now() - t0).count();
      st.SetIterationTime(s);
      us.push_back(s * 1e6 / ops);
    }
    st.counters["us_per_op"] = median(us);
    st.counters["kops/s"] = 1e3 / median(us);
  };
  add(c, nm("small_add", c, kSmall), [c, per_op](benchmark::State& st) {
    Array x = input(c, 0, {kSmall}), y = input(c, 1, {kSmall});
    per_op(st, [&] { (x + y).eval(); });
  }, 3);
  if (c.device.compiles_at_runtime() && c.device.backend() != porta::Backend::kokkos) {
    add(c, nm("small_rawkernel_add", c, kSmall), [c, per_op](benchmark::State& st) {
      Array x = input(c, 0, {kSmall}), y = input(c, 1, {kSmall}), out = porta::empty({kSmall}, DType::float32, c.device).eval();
      auto k = reference_kernel(c, "add");
      auto args = with_count(c, {x, y, out}, kSmall);
      LaunchShape s = vector_reference(c) ? LaunchShape{{1, 1, 1}, {256, 1, 1}, ""} : LaunchShape{{4, 1, 1}, {256, 1, 1}, ""};
      per_op(st, [&] { k.launch(s.grid, s.block, args); });
    }, 3);
  }
  // T host threads, each with its own arrays and queue, each running ops / 4 small adds.
  for (int threads : c.threads) {
    add(c, nm("small_add_threads", c, threads), [c, threads, ops](benchmark::State& st) {
      const int per_thread = std::max(ops / 4, 1);
      std::vector<std::pair<Array, Array>> inputs;
      for (int t = 0; t < threads; ++t) inputs.emplace_back(input(c, 2 * t, {kSmall}), input(c, 2 * t + 1, {kSmall}));
      std::vector<double> rate;
      for (auto _ : st) {
        std::latch ready(threads), go(1);
        std::vector<std::thread> pool;
        std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
        for (int t = 0; t < threads; ++t) {
          pool.emplace_back([&, t] {
            try {
              auto& [x, y] = inputs[static_cast<std::size_t>(t)];
              (x + y).eval();  // this thread's queue and the kernel exist before the clock starts
              porta::synchronize(c.device);
              ready.count_down();
              go.wait();
              for (int i = 0; i < per_thread; ++i) (x + y).eval();
              porta::synchronize(c.device);
            } catch (...) {
              errors[static_cast<std::size_t>(t)] = std::current_exception();
              ready.count_down();
            }
          });
        }
        ready.wait();
        auto t0 = Clock::now();
        go.count_down();
        for (auto& th : pool) th.join();
        double s = std::chrono::duration<double>(Clock::now() - t0).count();
        for (auto& e : errors)
          if (e) std::rethrow_exception(e);
        st.SetIterationTime(s);
        rate.push_back(threads * per_thread / s);
      }
      st.counters["kops/s"] = median(rate) / 1e3;
      st.counters["us_per_op"] = 1e6 / median(rate);
    }, 3);
  }
}

// Host time per DLPack round trip of an evaluated 1024-element array: to_dlpack for a consumer
// on this thread's own queue (the ordering is an event on the queue, no host wait), from_dlpack of
// that tensor, and the release of both (the import's deleter frees the export). The issue's
// target is 2 us each way with no device synchronisation or allocation; PyTorch's
// torch.from_dlpack(cupy_array) (peers.py: torch_from_dlpack_cupy_us) is the peer figure.
void register_interop(const DeviceConfig& c) {
  constexpr std::int64_t kSmall = 1024;
  add(c, nm("interop_dlpack_roundtrip", c, kSmall), [c](benchmark::State& st) {
    Array x = input(c, 0, {kSmall}).eval();
    porta::DLPackExport to;
    to.consumer_queue = porta::native_queue(c.device);
    porta::DLPackImport from;
    from.host_device = c.device;
    auto trip = [&] {
      Array y = porta::from_dlpack(porta::to_dlpack(x, to), from);
      benchmark::DoNotOptimize(y);
    };
    for (int i = 0; i < 1000; ++i) trip();
    porta::synchronize(c.device);
    const int ops = std::max(c.small_ops, 1);
    std::vector<double> us;
    for (auto _ : st) {
      auto t0 = Clock::now();
      for (int i = 0; i < ops; ++i) trip();
      double s = std::chrono::duration<double>(Clock::now() - t0).count();
      st.SetIterationTime(s);
      us.push_back(s * 1e6 / ops);
    }
    porta::synchronize(c.device);
    st.counters["us_per_op"] = median(us);
  }, 3);
}

// DevicePool throughput: many independent medium tasks (the fused expression over pool_size
// floats, then its sum), host wall time from the first submit until every task's device work
// has finished (the pool synchronizes after each task); tasks/s. Once for each device alone (a
// pool of that one device, family "pool") and once for one pool over all the selected devices
// (family "pool_all", device "all"): the pool issue wants the second at >= 0.9x the sum of the
// first. Warm-up tasks on every device first, so compiles are not timed.
void time_pool(benchmark::State& st, const std::vector<DeviceConfig>& configs) {
  const std::int64_t tasks = configs.front().pool_tasks, n = configs.front().pool_size;
  std::vector<porta::Device> devices;
  std::map<std::string, std::pair<Array, Array>> inputs;
  for (auto& c : configs) {
    devices.push_back(c.device);
    inputs.emplace(c.spec, std::pair{input(c, 0, {n}), input(c, 1, {n})});
  }
  porta::DevicePool pool(devices);
  auto task = [&inputs](const porta::Device& d) {
    const auto& [x, y] = inputs.at(d.spec());
    porta::sum(2.5f * x * x + 1.5f * x + 0.5f * porta::exp(-y)).eval();
  };
  {
    std::vector<std::future<void>> warm;
    for (int k = 0; k < 4; ++k)
      for (auto& d : devices) warm.push_back(pool.submit_to(d, task));
    for (auto& f : warm) f.get();
  }
  std::vector<double> rate;
  std::vector<std::int64_t> before = pool.completed();
  for (auto _ : st) {
    std::vector<std::future<void>> futures;
    futures.reserve(static_cast<std::size_t>(tasks));
    auto t0 = Clock::now();
    for (std::int64_t i = 0; i < tasks; ++i) futures.push_back(pool.submit(task));
    for (auto& f : futures) f.get();
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    st.SetIterationTime(s);
    rate.push_back(static_cast<double>(tasks) / s);
  }
  st.counters["tasks/s"] = median(rate);
  if (devices.size() > 1) {  // which device took how many of the timed tasks
    std::vector<std::int64_t> after = pool.completed();
    std::string label;
    for (std::size_t i = 0; i < devices.size(); ++i)
      label += (i ? ", " : "") + devices[i].spec() + " " + std::to_string(after[i] - before[i]);
    st.SetLabel("tasks per device: " + label);
  }
}

void register_pool(const std::vector<DeviceConfig>& configs) {
  if (configs.empty()) return;
  const int iterations = configs.front().quick ? 1 : 2;
  for (const DeviceConfig& c : configs)
    add(c, nm("pool", c, c.pool_tasks, "n" + std::to_string(c.pool_size)),
        [c](benchmark::State& st) { time_pool(st, {c}); }, iterations);
  DeviceConfig all = configs.front();
  all.spec = "all";
  add(all, nm("pool_all", all, all.pool_tasks, "n" + std::to_string(all.pool_size)),
      [configs](benchmark::State& st) { time_pool(st, configs); }, iterations);
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

std::vector<std::int64_t> parse_list(std::string_view v) {
  std::vector<std::int64_t> out;
  while (!v.empty()) {
    auto comma = v.find(',');
    std::string_view item = v.substr(0, comma);
    std::int64_t x = 0;
    // 2^N is accepted as well as a plain number.
    if (item.starts_with("2^")) {
      int e = 0;
      auto [p, ec] = std::from_chars(item.data() + 2, item.data() + item.size(), e);
      if (ec != std::errc() || p != item.data() + item.size() || e < 0 || e > 40)
        throw std::invalid_argument("bad number '" + std::string(item) + "'");
      x = std::int64_t{1} << e;
    } else {
      auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), x);
      if (ec != std::errc() || p != item.data() + item.size() || x <= 0)
        throw std::invalid_argument("bad number '" + std::string(item) + "'");
    }
    out.push_back(x);
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return out;
}

std::vector<std::string> parse_strings(std::string_view v) {
  std::vector<std::string> out;
  while (!v.empty()) {
    auto comma = v.find(',');
    out.emplace_back(v.substr(0, comma));
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return out;
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
    c.iterations = 2;
    c.repetitions = 1;
    c.small_ops = 200;
    c.threads = {1, 2};
  } else {
    c.n = o.size ? o.size : std::int64_t{1} << (c.gpu ? 28 : 24);
    c.matmul = !o.matmul.empty() ? o.matmul
               : c.gpu       ? std::vector<std::int64_t>{1024, 4096, 8192}
                             : std::vector<std::int64_t>{256, 1024};
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

bool parse_flag(std::string_view arg, Options& o) {
  if (!arg.starts_with("--porta_")) return false;
  arg.remove_prefix(8);
  auto eq = arg.find('=');
  std::string_view key = arg.substr(0, eq), value = eq == std::string_view::npos ? "" : arg.substr(eq + 1);
  auto one = [&](std::string_view what) {
    auto v = parse_list(value);
    if (v.size() != 1) throw std::invalid_argument("--porta_" + std::string(what) + " takes one number");
    return v[0];
  };
  if (key == "quick") o.quick = value.empty() || value == "true" || value == "1";
  else if (key == "filter") o.filter = std::string(value);
  else if (key == "size") o.size = one(key);
  else if (key == "matmul") o.matmul = parse_list(value);
  else if (key == "devices") o.devices = parse_strings(value);
  else if (key == "iterations") o.iterations = static_cast<int>(one(key));
  else if (key == "repetitions") o.repetitions = static_cast<int>(one(key));
  else if (key == "small_ops") o.small_ops = static_cast<int>(one(key));
  else if (key == "pool_tasks") o.pool_tasks = one(key);
  else if (key == "threads") {
    o.threads.clear();
    for (auto t : parse_list(value)) o.threads.push_back(static_cast<int>(t));
  } else
    throw std::invalid_argument("unknown flag --porta_" + std::string(key) + "\n" + flag_help());
  return true;
}

std::string flag_help() {
  return "  --porta_devices=SPEC,...   devices to run (default: every device porta finds)\n"
         "  --porta_size=N             elements of the 1-D benchmarks, N or 2^K (default: 2^28 on GPUs, 2^24 elsewhere)\n"
         "  --porta_matmul=N,...       matmul sizes (default: 1024,4096,8192 on GPUs, 256,1024 elsewhere)\n"
         "  --porta_iterations=N       timed runs per repetition (default: as many as fill 0.2 s, at least one)\n"
         "  --porta_repetitions=N      repetitions; medians are reported (default: 3)\n"
         "  --porta_small_ops=N        small adds per timed batch (default: 20000 on GPUs, 2000 elsewhere)\n"
         "  --porta_threads=T,...      host threads of the small-op throughput runs (default: 1,2,4,8 on GPUs, 1,2)\n"
         "  --porta_pool_tasks=N       tasks of the DevicePool throughput runs (default: 1000 of 2^18 elements)\n"
         "  --porta_filter=REGEX       register only benchmarks whose name matches ('-REGEX': those that do not)\n"
         "  --porta_quick              smoke test: 2^20 elements, matmul 256, one repetition of two runs,\n"
         "                             100 pool tasks of 2^16 elements\n";
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

void release_inputs() {
  std::lock_guard lock(input_mutex);
  input_cache.clear();
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
    register_elementwise(c);
    register_references(c);
#ifdef PORTA_BENCH_NATIVE_OPENCL
    register_native(c);
#endif
#ifdef PORTA_BENCH_NATIVE_CUDA
    register_native_cuda(c);
#endif
    register_pairs(c);
    register_reductions(c);
    register_matmul(c);
    register_small_ops(c);
    register_interop(c);
    configs.push_back(c);
  }
  register_pool(configs);
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
      std::lock_guard lock(copy_mutex);
      copy_gbps[c.spec] = x.copy_gbps;
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
