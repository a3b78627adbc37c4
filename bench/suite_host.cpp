// Host-side costs: small-op overhead (one thread, several threads, a RawKernel launch), the
// DLPack round trip, and DevicePool throughput (each device alone, and one pool over all).
#include <future>
#include <latch>
#include <map>
#include <thread>

#include <porta/dlpack.hpp>
#include <porta/interop.hpp>

#include "suite_common.hpp"

namespace porta_bench {
namespace {

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
  auto size_tag = [](const DeviceConfig& c) { return std::to_string(c.pool_size).insert(0, 1, 'n'); };  // "n<size>"
  for (const DeviceConfig& c : configs)
    add(c, nm("pool", c, c.pool_tasks, size_tag(c)), [c](benchmark::State& st) { time_pool(st, {c}); }, iterations);
  DeviceConfig all = configs.front();
  all.spec = "all";
  add(all, nm("pool_all", all, all.pool_tasks, size_tag(all)),
      [configs](benchmark::State& st) { time_pool(st, configs); }, iterations);
}

}  // namespace

PORTA_BENCH_SUITE(register_small_ops, 70);
PORTA_BENCH_SUITE(register_interop, 80);
PORTA_BENCH_SUITE(register_pool, 90);

}  // namespace porta_bench
