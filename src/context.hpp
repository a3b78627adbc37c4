// The core's state per device: the compiled-kernel cache and the caching allocator; and the
// per-(thread, device) queues.
#pragma once

#include <memory>

#include "allocator.hpp"
#include "backend.hpp"
#include "kernel_cache.hpp"

namespace porta::detail {

class DeviceContext {
 public:
  explicit DeviceContext(DeviceImpl& device);
  DeviceImpl& device() { return device_; }
  KernelCache& kernels() { return kernels_; }
  CachingAllocator& allocator() { return allocator_; }
  // Frees cached memory and compiled kernels while the backend can still free them.
  void release();

 private:
  DeviceImpl& device_;
  KernelCache kernels_;
  CachingAllocator allocator_;
};

// This thread's queue on `device`, created on first use and destroyed (after its work
// finishes) when the thread exits.
QueueImpl& thread_queue(const Device& device);
const std::shared_ptr<QueueImpl>& thread_queue_shared(const Device& device);
// Synchronises every queue this thread has made.
void synchronize_thread_queues();

}  // namespace porta::detail
