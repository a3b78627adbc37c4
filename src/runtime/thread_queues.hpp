// The per-(thread, device) queues, and the blocks each thread keeps with its own queue for the
// caching allocator. Below the allocator: it knows nothing of it (the allocator that puts blocks
// in a LocalBlocks says how to take them back).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <porta/device.hpp>

#include "porta_backend/backend.hpp"

namespace porta::detail {

// Blocks this thread freed in the order of its own queue on a device, kept with that queue so
// that it reuses them without taking the allocator's lock (the allocator's fast path, which
// matters to many small operations from many threads). They count as in use until the thread
// exits, when give_back returns them to the device's shared cache.
struct LocalBlocks {
  std::vector<std::pair<std::size_t, Handle>> blocks;  // (rounded size, handle)
  std::size_t bytes = 0;
  // Set by the allocator that put the blocks here; called once, when the thread exits, with the
  // queue they were last used on.
  std::function<void(LocalBlocks&, const std::shared_ptr<QueueImpl>&)> give_back;
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
