// Compiled kernels per device, keyed by the structure they were generated from (CuPy's and
// ArrayFire's JIT caches). A hit costs a hash and a lookup in this thread's own front table,
// touching nothing another thread writes; the first request of a key on a thread looks in the
// shared table under a shared lock. A miss generates the source and compiles it outside the
// lock, once per key even when many threads ask at the same time.
#pragma once

#include <cstdint>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "porta_backend/backend.hpp"

namespace porta::detail {

class KernelCache {
 public:
  explicit KernelCache(DeviceImpl& device);

  // The kernel for `key`; on a miss `make_source` is called and its result compiled.
  // A compile error is remembered for the key and thrown again on later requests.
  // A hit is looked up before `make_source` becomes a std::function (which allocates for a
  // lambda of more than two references, on every call).
  template <class Make> std::shared_ptr<Kernel> get(const std::string& key, Make&& make_source) {
    if (auto k = find_front(key)) return k;
    return get_shared(key, std::function<KernelSource()>(std::forward<Make>(make_source)));
  }

  std::uint64_t compiles() const { return compiles_.load(std::memory_order_relaxed); }
  std::uint64_t hits() const;
  std::uint64_t disk_hits() const { return disk_hits_.load(std::memory_order_relaxed); }
  std::size_t size() const;
  void clear();

 private:
  struct Entry {
    std::mutex m;
    // Set (release) once kernel or error is final; a hit reads it (acquire) without taking m,
    // so threads launching one kernel do not serialise on its entry.
    std::atomic<bool> done{false};
    std::shared_ptr<Kernel> kernel;
    std::exception_ptr error;
  };
  // A hit counter in cache-line-sized slots, one chosen per thread: counting costs no contention.
  struct alignas(64) HitSlot {
    std::atomic<std::uint64_t> n{0};
  };
  static constexpr std::size_t kHitSlots = 16;
  void count_hit();
  // This thread's copy of the kernel for `key`, or null.
  std::shared_ptr<Kernel> find_front(const std::string& key);
  std::shared_ptr<Kernel> get_shared(const std::string& key, const std::function<KernelSource()>& make_source);
  std::shared_ptr<Kernel> remember(const std::string& key, std::shared_ptr<Kernel> kernel);

  DeviceImpl& device_;
  const std::uint64_t id_;                 // names this cache in the threads' front tables
  std::atomic<std::uint64_t> generation_{0};  // clear() bumps it; front tables then start afresh
  mutable std::shared_mutex m_;
  std::unordered_map<std::string, std::shared_ptr<Entry>> entries_;
  std::atomic<std::uint64_t> compiles_{0};
  HitSlot hits_[kHitSlots];
  std::atomic<std::uint64_t> disk_hits_{0};
};

}  // namespace porta::detail
