// The per-(thread, device) queues and their LocalBlocks (runtime/thread_queues.hpp).
#include "runtime/thread_queues.hpp"

#include <deque>
#include <exception>

#include "porta_backend/log.hpp"

namespace porta::detail {

namespace {

// This thread's queues. Declared so that each queue is destroyed (waiting for its work)
// before the device it belongs to is released.
struct ThreadQueues;
// Set while this thread's ThreadQueues exists: a buffer freed after it is gone (an array in a
// static destroyed at exit) must not reach for it.
thread_local ThreadQueues* t_queues = nullptr;

struct ThreadQueues {
  struct Entry {
    Device device;
    std::shared_ptr<QueueImpl> queue;
    LocalBlocks local;
  };
  std::deque<Entry> entries;  // a deque: references stay valid as it grows
  ThreadQueues() { t_queues = this; }
  ~ThreadQueues() {
    t_queues = nullptr;
    for (auto& e : entries) {
      if (!e.local.blocks.empty() && e.local.give_back) e.local.give_back(e.local, e.queue);
      // Buffers name their last writer's queue by a weak reference: once it expires, a reader on
      // another thread no longer waits for it. The queue's work is finished first, so that a
      // thread that ends (Python's Thread.join returns before its thread_locals are gone) leaves
      // nothing in flight that another thread could read too early.
      try {
        if (e.queue) e.queue->synchronize();
      } catch (const std::exception& ex) {
        PORTA_LOG(warn, "waiting for a thread's queue on ", e.device.spec(), " as the thread ends: ", ex.what());
      }
      e.queue.reset();
    }
  }
};

ThreadQueues& queues() {
  thread_local ThreadQueues q;
  return q;
}

}  // namespace

const std::shared_ptr<QueueImpl>& thread_queue_shared(const Device& device) {
  auto& tq = queues();
  DeviceImpl* key = &device.impl();
  for (auto& e : tq.entries)
    if (&e.device.impl() == key) return e.queue;
  tq.entries.push_back({device, key->create_queue()});
  return tq.entries.back().queue;
}

LocalBlocks* thread_local_blocks(const DeviceImpl& device, const QueueImpl* q) {
  ThreadQueues* tq = t_queues;
  if (!tq || !q) return nullptr;
  for (auto& e : tq->entries)
    if (e.queue.get() == q) return &e.device.impl() == &device ? &e.local : nullptr;
  return nullptr;
}

QueueImpl& thread_queue(const Device& device) { return *thread_queue_shared(device); }

void synchronize_thread_queues() {
  for (auto& e : queues().entries) e.queue->synchronize();
}

}  // namespace porta::detail
