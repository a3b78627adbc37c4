// FFT plans per device (docs/design/fft.md): a bounded cache, least recently used out first (as
// CuPy's plan cache), keyed by the whole FftDesc. Plans are shared: a plan taken from the cache
// stays alive while a caller executes it, even when the cache drops it meanwhile.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>

#include "porta_backend/backend.hpp"

namespace porta::detail {

class FftPlanCache {
 public:
  explicit FftPlanCache(DeviceImpl& device) : device_(device) {}
  // The plan for `desc`, made on a miss by the device (OutOfMemory: the core frees its cached
  // memory and these plans, and tries once more). Thread-safe; plans are made outside the lock.
  std::shared_ptr<FftPlanImpl> get(const FftDesc& desc);
  void clear();

  struct Stats {
    std::size_t plans = 0, hits = 0, misses = 0, capacity = 0;
  };
  Stats stats() const;

 private:
  struct Entry {
    FftDesc desc;
    std::shared_ptr<FftPlanImpl> plan;
  };
  DeviceImpl& device_;
  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // most recently used first
  std::size_t hits_ = 0, misses_ = 0;
};

}  // namespace porta::detail
