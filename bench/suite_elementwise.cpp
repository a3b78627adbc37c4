// Elementwise suites: copy, add, saxpy, the fused five-op expression, broadcast and strided
// adds; the hand-written reference kernels (RawKernel, and plain OpenCL / CUDA where built) in
// several launch shapes; and the pairwise-timed ratios (fused / add, hand-written / add).
#include <stdexcept>

#include "suite_common.hpp"
#if defined(PORTA_BENCH_NATIVE_OPENCL) || defined(PORTA_BENCH_NATIVE_CUDA)
#include "native.hpp"
#endif

namespace porta_bench {
namespace {

void register_elementwise(const DeviceConfig& c) {
  const std::int64_t n = c.n;
  const double dn = static_cast<double>(n), f = 4.0;  // float32 bytes
  add(c, nm("copy", c, n), [c, n, dn, f](benchmark::State& st) {
    Array x = input(c, 0, {n});
    time_on_device(st, c, {2 * f * dn, 0}, [&] { return x.copy(); });
    set_copy_gbps(c.spec, st.counters["GB/s"], false);  // the ceiling measured first, where it was
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

}  // namespace

PORTA_BENCH_SUITE(register_elementwise, 10);
PORTA_BENCH_SUITE(register_references, 20);
#ifdef PORTA_BENCH_NATIVE_OPENCL
PORTA_BENCH_SUITE(register_native, 30);
#endif
#ifdef PORTA_BENCH_NATIVE_CUDA
PORTA_BENCH_SUITE(register_native_cuda, 31);
#endif
PORTA_BENCH_SUITE(register_pairs, 40);

}  // namespace porta_bench
