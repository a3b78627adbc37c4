// The per-device FFT plan cache (fft_plan_cache.hpp).
#include "runtime/fft_plan_cache.hpp"

#include "runtime/device_state.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {
namespace {

std::size_t capacity() {
  static const std::size_t n = static_cast<std::size_t>(setting_int("PORTA_FFT_CACHE").value_or(16));
  return n;
}

}  // namespace

std::shared_ptr<FftPlanImpl> FftPlanCache::get(const FftDesc& desc) {
  {
    std::lock_guard lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->desc == desc) {
        entries_.splice(entries_.begin(), entries_, it);
        ++hits_;
        return it->plan;
      }
    ++misses_;
  }
  // Made outside the lock: VkFFT compiles kernels for a new plan (seconds on PoCL), and other
  // threads' plans need not wait for that. Two threads missing at once both make the plan; the
  // second one's is the one kept.
  std::shared_ptr<FftPlanImpl> plan;
  try {
    plan = device_.make_fft_plan(desc);
  } catch (const OutOfMemory& e) {
    PORTA_LOG(info, "FFT plan: ", e.what(), "; freeing cached memory and plans, then trying again");
    clear();
    device_.state().allocator().free_cached();
    device_.release_cached_memory();
    plan = device_.make_fft_plan(desc);
  }
  std::lock_guard lock(mutex_);
  const std::size_t cap = capacity();
  if (cap == 0) return plan;
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->desc == desc) {
      entries_.erase(it);
      break;
    }
  entries_.push_front({desc, plan});
  while (entries_.size() > cap) entries_.pop_back();
  return plan;
}

void FftPlanCache::clear() {
  std::list<Entry> dropped;
  {
    std::lock_guard lock(mutex_);
    dropped.swap(entries_);
  }
  // Plans are destroyed outside the lock (their destructors may wait for the device).
}

FftPlanCache::Stats FftPlanCache::stats() const {
  std::lock_guard lock(mutex_);
  return {entries_.size(), hits_, misses_, capacity()};
}

}  // namespace porta::detail
