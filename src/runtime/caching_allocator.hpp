// The caching allocator, CuPy's idea, for every backend. Sizes are rounded up to 512 bytes;
// freed blocks are kept per device and handed out again best-fit. A block remembers the queue
// that last used it: the same queue reuses it at once (its queue is in order); another queue
// first waits for that queue's work. Small blocks that a thread frees on its own queue stay
// with that queue (LocalBlocks, runtime/thread_queues.hpp) and come back without a lock: a small op then costs
// no allocator lock and no driver call, and threads do not contend (on CUDA, a
// cuMemAllocFromPoolAsync + cuMemFreeAsync pair cost 2.1 us on the H200 from one thread and got
// slower with each thread added: 4.2 us at 8 threads).
// PORTA_ALLOC=direct turns caching off, so sanitizers and leak checkers see every allocation.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>

#include "porta_backend/backend.hpp"

namespace porta::detail {

struct LocalBlocks;

class CachingAllocator {
 public:
  explicit CachingAllocator(DeviceImpl& device);
  ~CachingAllocator();

  // Rounds `bytes` up and returns memory usable on `q`. On out-of-memory it frees the cache
  // (and the backend's) and retries once before throwing OutOfMemory.
  Handle allocate(std::size_t bytes, QueueImpl& q);
  // `last` is the queue on whose order the block becomes free (null: no work pending).
  void release(Handle h, std::size_t bytes, const std::shared_ptr<QueueImpl>& last);
  void free_cached();
  // A thread's LocalBlocks of queue `q`, given back to the shared cache when the thread exits.
  void release_local(LocalBlocks& local, const std::shared_ptr<QueueImpl>& q);

  std::size_t cached_bytes() const;
  std::size_t in_use_bytes() const;
  static std::size_t round_size(std::size_t bytes);

 private:
  struct Block {
    Handle handle;
    std::weak_ptr<QueueImpl> queue;
    QueueImpl* queue_id;
  };
  Handle allocate_from_device(std::size_t bytes, QueueImpl& q);
  void free_local(QueueImpl& q);

  DeviceImpl& device_;
  bool caching_;
  mutable std::mutex m_;
  std::multimap<std::size_t, Block> free_;
  std::size_t cached_bytes_ = 0;
  std::size_t in_use_bytes_ = 0;
};

}  // namespace porta::detail
