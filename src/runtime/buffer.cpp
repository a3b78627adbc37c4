// Buffers and the ordering of work on them across queues.
#include "runtime/buffer.hpp"

#include <algorithm>

#include "runtime/caching_allocator.hpp"
#include "runtime/device_state.hpp"
#include "runtime/graph_recording.hpp"
#include "porta_backend/log.hpp"

namespace porta::detail {

Buffer::Buffer(Device device, std::size_t bytes) : device_(std::move(device)), bytes_(bytes), owned_(true) {
  const auto& q = thread_queue_shared(device_);
  handle_ = allocate_memory(device_.impl(), bytes_, *q);
  writer_ = {q, q.get()};
  readers_.push_back(writer_);
}

Buffer::Buffer(Device device, Handle handle, std::size_t bytes, std::function<void()> release)
    : device_(std::move(device)), handle_(handle), bytes_(bytes), owned_(false), release_(std::move(release)) {}

Buffer::~Buffer() {
  if (!owned_) {
    release_foreign();
    return;
  }
  try {
    // Free on the order of one queue that used the buffer, after the others' work.
    std::shared_ptr<QueueImpl> last = writer_.queue.lock();
    for (auto& r : readers_) {
      auto q = r.queue.lock();
      if (!q || q == last) continue;
      if (!last) last = q;
      else last->wait(*q->record());
    }
    release_memory(device_.impl(), handle_, bytes_, last);
  } catch (const std::exception& e) {
    PORTA_LOG(error, "freeing ", bytes_, " bytes on ", device_.spec(), " failed: ", e.what());
  }
}

void Buffer::release_foreign() noexcept {
  // The owner may free the memory as soon as it is told: porta's work on it must be done first.
  std::vector<std::shared_ptr<QueueImpl>> pending;
  if (auto w = writer_.queue.lock()) pending.push_back(std::move(w));
  for (auto& r : readers_)
    if (auto q = r.queue.lock()) pending.push_back(std::move(q));
  for (auto& q : pending) {
    try {
      q->record()->synchronize();
    } catch (const std::exception& e) {
      PORTA_LOG(error, "waiting for porta's work on foreign memory of ", device_.spec(), " failed: ", e.what());
    }
  }
  device_.impl().release_import(handle_);
  if (!release_) return;
  try {
    release_();
  } catch (const std::exception& e) {
    PORTA_LOG(error, "the release callback of foreign memory on ", device_.spec(), " threw: ", e.what());
  } catch (...) {
    PORTA_LOG(error, "the release callback of foreign memory on ", device_.spec(), " threw");
  }
}

void Buffer::before_read(const std::shared_ptr<QueueImpl>& q) {
  if (GraphRecording* r = t_graph_recording) r->touch(*this, q.get(), true);
  std::lock_guard lock(m_);
  for (auto& r : readers_)
    if (r.id == q.get() && !r.queue.expired()) return;  // already ordered after the last write
  if (auto w = writer_.queue.lock(); w && w != q) q->wait(*w->record());
  readers_.push_back({q, q.get()});
}

void Buffer::before_write(const std::shared_ptr<QueueImpl>& q) {
  if (GraphRecording* r = t_graph_recording) r->touch(*this, q.get(), true);
  std::lock_guard lock(m_);
  if (auto w = writer_.queue.lock(); w && w != q) q->wait(*w->record());
  for (auto& r : readers_) {
    auto rq = r.queue.lock();
    if (rq && rq != q) q->wait(*rq->record());
  }
}

void Buffer::after_write(const std::shared_ptr<QueueImpl>& q) {
  if (GraphRecording* r = t_graph_recording) r->touch(*this, q.get(), false);
  std::lock_guard lock(m_);
  writer_ = {q, q.get()};
  readers_.clear();
  readers_.push_back(writer_);
}

std::vector<std::shared_ptr<QueueImpl>> Buffer::users() {
  std::lock_guard lock(m_);
  std::vector<std::shared_ptr<QueueImpl>> out;
  if (auto w = writer_.queue.lock()) out.push_back(std::move(w));
  for (auto& r : readers_)
    if (auto q = r.queue.lock(); q && std::find(out.begin(), out.end(), q) == out.end()) out.push_back(std::move(q));
  return out;
}

}  // namespace porta::detail
