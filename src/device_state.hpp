// The core's state per device: the compiled-kernel cache and the caching allocator; and the
// per-(thread, device) queues.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "allocator.hpp"
#include "porta_backend/backend.hpp"
#include "kernel_cache.hpp"

namespace porta::detail {

class DeviceState {
 public:
  explicit DeviceState(DeviceImpl& device);
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

// Blocks this thread freed in the order of its own queue on a device, kept with that queue so
// that it reuses them without taking the allocator's lock (the allocator's fast path, which
// matters to many small operations from many threads). They count as in use until the thread
// exits, when they go back to the device's shared cache.
struct LocalBlocks {
  std::vector<std::pair<std::size_t, Handle>> blocks;  // (rounded size, handle)
  std::size_t bytes = 0;
};
// This thread's LocalBlocks for queue `q` of `device`; null when `q` is not this thread's queue
// on `device`, or when the thread is exiting.
LocalBlocks* thread_local_blocks(const DeviceImpl& device, const QueueImpl* q);

// This thread's queue on `device`, created on first use and destroyed (after its work
// finishes) when the thread exits.
QueueImpl& thread_queue(const Device& device);
const std::shared_ptr<QueueImpl>& thread_queue_shared(const Device& device);
// Synchronises every queue this thread has made.
void synchronize_thread_queues();

}  // namespace porta::detail
