// A device allocation shared by the arrays that view it, with the bookkeeping that orders work on
// it across queues (docs/design/threading.md#ordering-buffers-across-queues): the queue that last
// wrote it, and the queues that have read it since. A queue that reads after another queue's write
// first waits on an event recorded on the writer's queue; a write waits for the earlier readers and
// writer. Events are recorded only when a second queue appears, so one thread's work pays nothing.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include <porta/device.hpp>

#include "porta_backend/backend.hpp"

namespace porta::detail {

class ArrayNode;

class Buffer : public std::enable_shared_from_this<Buffer> {
 public:
  // Allocates `bytes` on `device` for first use on `q` (this thread's queue).
  Buffer(Device device, std::size_t bytes);
  // Memory porta does not own, imported by the device (DeviceImpl::import_memory). When the last
  // array using it is gone, porta's work on it is waited for, the import is released and then
  // `release` runs (once, on whichever thread drops the last reference); it is never freed here.
  Buffer(Device device, Handle handle, std::size_t bytes, std::function<void()> release);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  const Device& device() const { return device_; }
  Handle handle() const { return handle_; }
  std::size_t bytes() const { return bytes_; }

  // Call before queueing work on `q` that reads (or writes) this buffer, and after_write once
  // the writing work is queued.
  void before_read(const std::shared_ptr<QueueImpl>& q);
  void before_write(const std::shared_ptr<QueueImpl>& q);
  void after_write(const std::shared_ptr<QueueImpl>& q);
  // The queues whose work on this buffer may still be pending: the last writer and the readers
  // since (interop: a foreign queue that is to use the memory waits for all of them).
  std::vector<std::shared_ptr<QueueImpl>> users();

  // Lazy expressions that read this buffer directly
  // (docs/design/threading.md#writes-and-lazy-readers): a write into the buffer evaluates them
  // first, so that they compute with the values from before it.
  void add_pending_reader(const std::shared_ptr<ArrayNode>& node);
  // The pending readers still alive and not yet evaluated; the list is emptied.
  std::vector<std::shared_ptr<ArrayNode>> take_pending_readers();

 private:
  void release_foreign() noexcept;
  struct QueueRef {
    std::weak_ptr<QueueImpl> queue;
    QueueImpl* id;
  };
  Device device_;
  Handle handle_;
  std::size_t bytes_;
  bool owned_;
  std::function<void()> release_;  // memory porta does not own
  std::mutex m_;
  QueueRef writer_{};
  std::vector<QueueRef> readers_;  // queues ordered after the last write (the writer included)
  std::mutex pending_m_;
  std::vector<std::weak_ptr<ArrayNode>> pending_readers_;
  std::size_t pending_prune_at_ = 16;  // sweep dead entries when the list reaches this size
};

}  // namespace porta::detail
