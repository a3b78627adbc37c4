// A pool of five workers returning futures, results handled as they complete (Python:
// ThreadPoolExecutor(max_workers=5), submit, as_completed).
//
// porta::DevicePool (DESIGN.md section 6, include/porta/pool.hpp) is not finished yet. Until it is,
// WorkerPool below gives the same shape from the standard library (std::thread, std::packaged_task,
// std::future): workers bound to devices, one task queue, submit(f) returning a std::future that
// carries f's result or exception, f called with the worker's porta::Device, destruction that
// drains the queue. Its constructor and submit() match DevicePool's, so switching is deleting the
// class and writing `porta::DevicePool pool({porta::default_device()}, 5);`.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <porta/porta.hpp>

class WorkerPool {
 public:
  WorkerPool(std::vector<porta::Device> devices, int workers_per_device) {
    for (const porta::Device& d : devices)
      for (int w = 0; w < workers_per_device; ++w) threads_.emplace_back([this, d] { work(d); });
  }
  // Drains the queue: every submitted task runs before the workers stop.
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_) t.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs f(device) on the first free worker.
  template <class F>
  auto submit(F f) -> std::future<std::invoke_result_t<F&, const porta::Device&>> {
    using R = std::invoke_result_t<F&, const porta::Device&>;
    auto task = std::make_shared<std::packaged_task<R(const porta::Device&)>>(std::move(f));
    std::future<R> result = task->get_future();
    {
      std::lock_guard lock(mutex_);
      tasks_.emplace_back([task](const porta::Device& d) { (*task)(d); });
    }
    ready_.notify_one();
    return result;
  }

 private:
  void work(const porta::Device& d) {
    porta::DeviceScope scope(d);  // arrays a task makes land on the worker's device
    for (;;) {
      std::function<void(const porta::Device&)> task;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;  // stopping, and the queue is drained
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      task(d);
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void(const porta::Device&)>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

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
  WorkerPool pool({porta::default_device()}, 5);  // five workers on the default device

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
