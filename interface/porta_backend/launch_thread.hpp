// A queue's launch thread: the calling thread records a kernel launch in a ring and returns,
// and this thread makes the driver call (cuLaunchKernel, clEnqueueNDRangeKernel). A small op
// then costs the caller porta's own work plus a copy into the ring, not the driver's 3-4 us as
// well: the two run side by side on two cores (JAX's asynchronous dispatch does the same).
//
// Ordering: work a backend queues directly on the stream (copies, fills, events, cuBLAS, frees)
// first calls drain(), which returns once every launch recorded before it has been made (making
// those the thread has not taken yet itself), so the stream sees the calls in program order.
// Errors the driver reports at a launch are kept and rethrown by the next push() or
// rethrow_failure() on the queue, as CUDA reports asynchronous errors; backends check everything
// they can (sizes, limits, arguments) before they push, so those stay at the call.
//
// The thread spins for about 20 us when the ring runs empty, then sleeps. A launch that finds it
// asleep is made by the caller (a launch now and then costs what it costs without the thread);
// the second of a burst wakes it. PORTA_LAUNCH=sync makes every launch on the calling thread.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace porta::detail {

// Whether launches on `device` go through a launch thread: PORTA_LAUNCH=thread (any device) or
// sync (none); unset, on GPUs of a host with at least 4 hardware threads (on fewer the thread
// would take a core from the caller; on a CPU device the cores run the kernels). Read once.
struct DeviceInfo;
bool launch_thread_enabled(const DeviceInfo& device);

template <class Item, std::size_t Capacity = 512>
class LaunchThread {
 public:
  // `start` runs once on the new thread (make a context current); `run` makes one launch and
  // may throw. `run` also runs on threads that call drain(): it must not assume the new thread.
  LaunchThread(std::function<void()> start, std::function<void(Item&)> run)
      : run_(std::move(run)), thread_([this, start = std::move(start)] { loop(start); }) {}

  ~LaunchThread() {
    {
      std::lock_guard lock(sleep_m_);
      stop_.store(true, std::memory_order_seq_cst);
    }
    wake_.notify_one();
    thread_.join();  // the loop makes every recorded launch before it returns
  }
  LaunchThread(const LaunchThread&) = delete;
  LaunchThread& operator=(const LaunchThread&) = delete;

  // Records a launch: `fill(Item&)` writes it into a free slot. Waits while the ring is full.
  // When the thread sleeps and no other launch came shortly before (no burst), the launch is made
  // here and now instead, as without the thread: waking it would cost the caller a system call
  // and a program that launches and then reads would wait for the wake-up.
  template <class Fill>
  void push(Fill&& fill) {
    rethrow_failure();
    std::lock_guard producer(push_m_);
    std::uint64_t head = head_.load(std::memory_order_relaxed);
    const std::int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
    if (sleeping_.load(std::memory_order_seq_cst) && !burst(now)) {
      std::unique_lock consumer(consume_m_, std::try_to_lock);
      if (consumer.owns_lock() && tail_.load(std::memory_order_acquire) == head) {
        last_inline_ = now;
        drained_.store(false, std::memory_order_relaxed);
        Item item{};
        fill(item);
        run_(item);  // an error is thrown at the call
        return;
      }
    }
    for (int spins = 0; head - tail_.load(std::memory_order_acquire) >= Capacity; ++spins)
      if (spins > 64) std::this_thread::yield();
    fill(items_[head % Capacity]);
    head_.store(head + 1, std::memory_order_seq_cst);
    if (sleeping_.load(std::memory_order_seq_cst)) {
      std::lock_guard lock(sleep_m_);
      wake_.notify_one();
    }
  }

  // Returns once every launch recorded before this call has been made. Any thread may call it.
  // The caller makes the launches the thread has not taken yet itself, so a program that reads
  // a result right after a launch never waits for a sleeping thread to wake.
  void drain() noexcept {
    drained_.store(true, std::memory_order_relaxed);
    std::uint64_t head = head_.load(std::memory_order_seq_cst);
    for (int spins = 0; tail_.load(std::memory_order_acquire) < head; ++spins) {
      std::unique_lock consumer(consume_m_, std::try_to_lock);  // never sleeps on the lock: a wake-up costs more
      if (consumer.owns_lock()) {
        for (std::uint64_t t = tail_.load(std::memory_order_relaxed); t < head; ++t) make(t);
        return;
      }
      if (spins > 256) std::this_thread::yield();
    }
  }

  // Throws the first error a launch met since the last call (once).
  void rethrow_failure() {
    if (!failed_.load(std::memory_order_acquire)) return;
    std::exception_ptr e;
    {
      std::lock_guard lock(failure_m_);
      e = std::exchange(failure_, nullptr);
      failed_.store(false, std::memory_order_release);
    }
    if (e) std::rethrow_exception(e);
  }

 private:
  void loop(const std::function<void()>& start) {
    try {
      start();
    } catch (...) {
      keep(std::current_exception());
    }
    for (int busy = 0;;) {
      std::uint64_t tail = tail_.load(std::memory_order_acquire);
      if (head_.load(std::memory_order_acquire) == tail && !wait_for_work(tail)) return;
      std::unique_lock consumer(consume_m_, std::try_to_lock);  // a drain() may be making launches
      if (!consumer.owns_lock()) {
        if (++busy > 64) std::this_thread::yield();
        continue;
      }
      busy = 0;
      tail = tail_.load(std::memory_order_relaxed);
      if (tail != head_.load(std::memory_order_acquire)) make(tail);  // else a drain() made it
    }
  }

  // Two launches within 100 us with no drain() between: a loop of launches, worth the thread.
  bool burst(std::int64_t now) const {
    constexpr std::int64_t kBurstNs = 100'000;
    return !drained_.load(std::memory_order_relaxed) &&
           now - last_inline_ < std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::nanoseconds(kBurstNs)).count();
  }

  // Makes launch `t`, the oldest not made yet; called with consume_m_ held.
  void make(std::uint64_t t) noexcept {
    Item& item = items_[t % Capacity];
    try {
      run_(item);
    } catch (...) {
      keep(std::current_exception());
    }
    item = Item{};  // lets go of what the launch held (a kernel, and so its module)
    tail_.store(t + 1, std::memory_order_release);
  }

  // False once stopped with nothing left to launch.
  bool wait_for_work(std::uint64_t tail) {
    // About 20 us of spinning: a program of small ops pushes again well within that.
    for (int i = 0; i < 4000; ++i) {
      if (head_.load(std::memory_order_acquire) != tail) return true;
      if ((i & 63) == 63) std::this_thread::yield();
    }
    std::unique_lock lock(sleep_m_);
    sleeping_.store(true, std::memory_order_seq_cst);
    wake_.wait(lock, [&] {
      return head_.load(std::memory_order_seq_cst) != tail || stop_.load(std::memory_order_seq_cst);
    });
    sleeping_.store(false, std::memory_order_seq_cst);
    return head_.load(std::memory_order_seq_cst) != tail;
  }

  void keep(std::exception_ptr e) {
    std::lock_guard lock(failure_m_);
    if (!failure_) failure_ = std::move(e);
    failed_.store(true, std::memory_order_release);
  }

  std::function<void(Item&)> run_;
  std::array<Item, Capacity> items_{};
  std::atomic<std::uint64_t> head_{0};  // launches recorded
  std::atomic<std::uint64_t> tail_{0};  // launches made; advanced with consume_m_ held
  std::mutex consume_m_;                // the thread, or a drain() that makes launches itself
  std::mutex push_m_;                   // one producer at a time (a queue is its thread's, but record() is anyone's)
  std::int64_t last_inline_ = 0;        // steady_clock ticks of the last launch made in push(); push_m_ guards it
  std::atomic<bool> drained_{true};     // a drain() since then
  std::mutex sleep_m_;
  std::condition_variable wake_;
  std::atomic<bool> sleeping_{false};
  std::atomic<bool> stop_{false};
  std::mutex failure_m_;
  std::exception_ptr failure_;
  std::atomic<bool> failed_{false};
  std::thread thread_;  // last: starts once everything above exists
};

// A queue's launch thread, started by the queue's first launch: what each backend's queue holds.
template <class Item>
class QueueLauncher {
 public:
  QueueLauncher(std::function<void()> start, std::function<void(Item&)> run)
      : start_(std::move(start)), run_(std::move(run)) {}

  // Records a launch (see LaunchThread::push).
  template <class Fill>
  void push(Fill&& fill) {
    std::call_once(once_, [this] {
      thread_ = std::make_unique<LaunchThread<Item>>(start_, run_);
      started_.store(true, std::memory_order_release);
    });
    thread_->push(std::forward<Fill>(fill));
  }
  // Before work queued on the stream directly: the launches recorded before are made, and an
  // error one of them met is thrown.
  void before_direct_work() {
    if (!started_.load(std::memory_order_acquire)) return;
    thread_->drain();
    thread_->rethrow_failure();
  }
  // The same for frees and destructors: never throws (an error stays for the next call).
  void before_direct_work_noexcept() noexcept {
    if (started_.load(std::memory_order_acquire)) thread_->drain();
  }
  // Makes the launches still recorded and stops the thread; call before the stream goes.
  void stop() noexcept { thread_.reset(); }

 private:
  std::function<void()> start_;
  std::function<void(Item&)> run_;
  std::once_flag once_;
  std::atomic<bool> started_{false};
  std::unique_ptr<LaunchThread<Item>> thread_;
};

}  // namespace porta::detail
