// DevicePool: a thread-safe pool of workers over devices (ThreadPoolExecutor over GPUs).
//
// Each device gets its own worker threads; each worker makes its device current (DeviceScope),
// so arrays a task creates land on that device. Tasks wait in one queue and an idle worker takes
// the next, so a faster device takes more tasks and none is left with a tail of work: the
// least-loaded device gets the next task. A task counts as finished when its device work has
// finished (the worker synchronizes its queue after each task), so in_flight() is true load.
// One physical GPU listed twice (the same non-empty Device::pci_bus_id(), e.g. cuda:0 and NVIDIA's
// OpenCL device of that GPU) is said once through PORTA_LOG (warn). By default (SharedGpu::preferred)
// the pool keeps both devices (devices(), submit_to, the counts) but runs submit() and map() tasks
// only on the one porta prefers (first in porta::devices(): CUDA before OpenCL), which gets the
// workers of both; the other keeps one worker for its submit_to() tasks. Two contexts feeding one
// GPU time-slice it: a pool over both ran 5x slower than one over cuda:0 alone on an H200.
// SharedGpu::each lets every listed device take shared tasks (to compare the APIs under load).
// Exceptions thrown by a task travel through its future; the worker carries on.
// Destruction drains: it waits for every task submitted, then joins the workers. Call cancel()
// first to drop the tasks that have not started (their futures throw porta::Cancelled).
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <type_traits>
#include <vector>

#include <porta/device.hpp>
#include <porta/error.hpp>

namespace porta {

// What a DevicePool does with two listed devices that are one physical GPU (see above).
enum class SharedGpu { preferred, each };

class DevicePool {
 public:
  // workers_per_device 0 chooses: 2 for GPUs (one prepares while the other waits), 1 otherwise.
  explicit DevicePool(std::vector<Device> devices, int workers_per_device = 0, SharedGpu shared_gpu = SharedGpu::preferred);
  // Each physical GPU once (the same GPU seen through CUDA and OpenCL is taken through CUDA,
  // the preferred backend). Throws DeviceError when there is no GPU.
  static std::vector<Device> all_gpus();
  // Every GPU once (as all_gpus) and every other device.
  static std::vector<Device> all_devices();
  ~DevicePool();
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;

  // Runs f(device) on the first free worker. The future holds f's result or exception.
  template <class F> auto submit(F&& f) -> std::future<std::invoke_result_t<std::decay_t<F>&, const Device&>> {
    return submit_impl(-1, std::forward<F>(f));
  }
  // Runs f(device) on a worker of `d`, which must be one of the pool's devices.
  template <class F>
  auto submit_to(const Device& d, F&& f) -> std::future<std::invoke_result_t<std::decay_t<F>&, const Device&>> {
    return submit_impl(index_of(d), std::forward<F>(f));
  }
  // f(device, i) for i in [0, n) across the pool; the results in order of i. The first
  // exception (in order of i) is rethrown once every task has ended.
  template <class F> auto map(std::int64_t n, F&& f) {
    using R = std::invoke_result_t<std::decay_t<F>&, const Device&, std::int64_t>;
    std::vector<std::future<R>> futures;
    futures.reserve(static_cast<std::size_t>(n));
    auto shared = std::make_shared<std::decay_t<F>>(std::forward<F>(f));
    for (std::int64_t i = 0; i < n; ++i) futures.push_back(submit([shared, i](const Device& d) { return (*shared)(d, i); }));
    std::exception_ptr first;
    if constexpr (std::is_void_v<R>) {
      for (auto& fu : futures) try { fu.get(); } catch (...) { if (!first) first = std::current_exception(); }
      if (first) std::rethrow_exception(first);
    } else {
      std::vector<R> out;
      out.reserve(futures.size());
      for (auto& fu : futures) {
        try {
          out.push_back(fu.get());
        } catch (...) {
          if (!first) first = std::current_exception();
        }
      }
      if (first) std::rethrow_exception(first);
      return out;
    }
  }

  // Blocks until every task submitted so far has finished and what it captured is released.
  void wait();
  // Drops the tasks not yet started; returns how many. Their futures throw Cancelled.
  std::size_t cancel();

  const std::vector<Device>& devices() const;
  std::vector<std::int64_t> in_flight() const;   // per device: running now
  std::vector<std::int64_t> completed() const;   // per device: finished so far
  std::size_t pending() const;                   // waiting for a worker

 private:
  struct Impl;
  using Task = std::function<void(const Device&)>;
  using Drop = std::function<void(std::exception_ptr)>;
  void enqueue(int device_index, Task task, Drop drop);
  int index_of(const Device& d) const;

  template <class F> auto submit_impl(int device_index, F&& f) {
    using R = std::invoke_result_t<std::decay_t<F>&, const Device&>;
    auto promise = std::make_shared<std::promise<R>>();
    auto future = promise->get_future();
    enqueue(
        device_index,
        [promise, fn = std::decay_t<F>(std::forward<F>(f))](const Device& d) mutable {
          try {
            if constexpr (std::is_void_v<R>) {
              fn(d);
              promise->set_value();
            } else {
              promise->set_value(fn(d));
            }
          } catch (...) {
            promise->set_exception(std::current_exception());
          }
        },
        [promise](std::exception_ptr e) { promise->set_exception(e); });
    return future;
  }

  std::unique_ptr<Impl> impl_;
};

}  // namespace porta
