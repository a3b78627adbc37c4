// A pool of five workers returning futures, results handled as they complete (Python:
// ThreadPoolExecutor(max_workers=5), submit, as_completed).
//
// porta::DevicePool (include/porta/pool.hpp): workers bound to devices, submit(f) returning a
// std::future that carries f's result or exception, f called with the worker's porta::Device
// (arrays it makes land there), least-loaded placement, destruction that drains the queue.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <future>
#include <string>
#include <vector>

#include <porta/porta.hpp>

// Calls on_ready(index, future) for each future in the order they complete (as_completed).
template <class T, class F>
void as_completed(std::vector<std::future<T>>& futures, F on_ready) {
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < futures.size(); ++i) pending.push_back(i);
  while (!pending.empty()) {
    for (auto it = pending.begin(); it != pending.end();) {
      if (futures[*it].wait_for(std::chrono::milliseconds(1)) == std::future_status::ready) {
        on_ready(*it, futures[*it]);
        it = pending.erase(it);
      } else {
        ++it;
      }
    }
  }
}

struct TaskResult {
  std::int64_t n;
  std::int64_t sum_of_squares;
  std::string device;
};

int main() try {
  constexpr int kTasks = 12;
  porta::DevicePool pool({porta::default_device()}, 5);  // five workers on the default device

  std::vector<std::future<TaskResult>> futures;
  for (int k = 0; k < kTasks; ++k) {
    // Sizes that differ by task, so tasks finish out of order.
    std::int64_t n = 1000 * ((k * 7) % kTasks + 1);
    futures.push_back(pool.submit([n](const porta::Device& d) {
      porta::Array i = porta::arange(n, porta::DType::int64, d);
      return TaskResult{n, porta::sum(i * i).item<std::int64_t>(), d.spec()};
    }));
  }

  int failed = 0;
  as_completed(futures, [&](std::size_t k, std::future<TaskResult>& f) {
    try {
      TaskResult r = f.get();
      std::int64_t want = (r.n - 1) * r.n * (2 * r.n - 1) / 6;
      bool ok = r.sum_of_squares == want;
      std::printf("task %2zu on %s: sum of i*i for i < %lld = %lld%s\n", k, r.device.c_str(), static_cast<long long>(r.n),
                  static_cast<long long>(r.sum_of_squares), ok ? "" : "  WRONG");
      if (!ok) ++failed;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "FAIL: task %zu threw: %s\n", k, e.what());
      ++failed;
    }
  });
  if (failed) {
    std::fprintf(stderr, "FAIL: %d of %d tasks\n", failed, kTasks);
    return 1;
  }
  std::printf("OK\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "FAIL: %s\n", e.what());
  return 1;
}
