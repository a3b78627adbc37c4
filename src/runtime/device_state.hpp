// The core's state per device: the compiled-kernel cache and the caching allocator, and the
// memory the core takes through them. (The per-(thread, device) queues are runtime/thread_queues.hpp,
// included here for the many files that use both.)
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "runtime/caching_allocator.hpp"
#include "runtime/fft_plan_cache.hpp"
#include "porta_backend/backend.hpp"
#include "runtime/kernel_cache.hpp"
#include "runtime/thread_queues.hpp"

namespace porta::detail {

class DeviceState {
 public:
  explicit DeviceState(DeviceImpl& device);
  DeviceImpl& device() { return device_; }
  KernelCache& kernels() { return kernels_; }
  CachingAllocator& allocator() { return allocator_; }
  FftPlanCache& fft_plans() { return fft_plans_; }
  // Frees cached memory and compiled kernels while the backend can still free them.
  void release();

 private:
  DeviceImpl& device_;
  KernelCache kernels_;
  CachingAllocator allocator_;
  FftPlanCache fft_plans_;
};

// Memory for the core: through the device's caching allocator where the backend asks for it,
// else straight from the backend (CUDA's stream-ordered pool).
Handle allocate_memory(DeviceImpl& device, std::size_t bytes, QueueImpl& q);
void release_memory(DeviceImpl& device, Handle h, std::size_t bytes, const std::shared_ptr<QueueImpl>& last);

}  // namespace porta::detail
