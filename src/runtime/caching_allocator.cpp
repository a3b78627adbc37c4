// The caching allocator.
#include "runtime/caching_allocator.hpp"

#include "runtime/thread_queues.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/services.hpp"

namespace porta::detail {
namespace {

bool caching_enabled() {
  static const bool enabled = setting_choice("PORTA_ALLOC") == "cached";
  return enabled;
}

// A block bigger than the request by more than this is left for a bigger request.
bool fits(std::size_t block, std::size_t want) { return block <= want + want / 8 + 4096; }

// What a thread keeps for its own queue on one device (LocalBlocks): blocks of at most 1 MiB,
// 64 of them and 16 MiB in all. Larger blocks are rare enough that the lock costs nothing.
constexpr std::size_t kLocalBlockBytes = std::size_t{1} << 20;
constexpr std::size_t kLocalBlocks = 64;
constexpr std::size_t kLocalBytes = std::size_t{16} << 20;

}  // namespace

CachingAllocator::CachingAllocator(DeviceImpl& device) : device_(device), caching_(caching_enabled()) {}

CachingAllocator::~CachingAllocator() { free_cached(); }

std::size_t CachingAllocator::round_size(std::size_t bytes) {
  constexpr std::size_t kRound = 512;
  if (bytes == 0) bytes = 1;
  return (bytes + kRound - 1) / kRound * kRound;
}

Handle CachingAllocator::allocate_from_device(std::size_t bytes, QueueImpl& q) {
  try {
    return device_.allocate(bytes, q);
  } catch (const OutOfMemory&) {
    PORTA_LOG(info, "out of memory for ", format_bytes(bytes), " on ", name(device_.backend()), ":", device_.index(),
              "; freeing ", format_bytes(cached_bytes()), " of cached blocks and retrying");
    free_local(q);
    release_memory_of_physical_gpu(device_);
    return device_.allocate(bytes, q);
  }
}

Handle CachingAllocator::allocate(std::size_t bytes, QueueImpl& q) {
  std::size_t size = round_size(bytes);
  if (caching_) {
    if (LocalBlocks* local = thread_local_blocks(device_, &q)) {
      auto& v = local->blocks;
      for (std::size_t i = v.size(); i-- > 0;) {
        if (v[i].first != size) continue;
        Handle h = v[i].second;
        v[i] = v.back();
        v.pop_back();
        local->bytes -= size;
        return h;  // last used on q: no wait, no lock
      }
    }
    std::unique_lock lock(m_);
    auto it = free_.lower_bound(size);
    if (it != free_.end() && fits(it->first, size)) {
      // Prefer a block last used on this queue among blocks of the same size.
      auto same = it;
      for (auto j = it; j != free_.end() && j->first == it->first; ++j) {
        if (j->second.queue_id == &q) {
          same = j;
          break;
        }
      }
      Block block = same->second;
      std::size_t block_size = same->first;
      free_.erase(same);
      cached_bytes_ -= block_size;
      in_use_bytes_ += block_size;
      lock.unlock();
      if (auto owner = block.queue.lock(); owner && owner.get() != &q) {
        // The block's earlier users were on another queue: start after their work.
        q.wait(*owner->record());
      }
      return block.handle;
    }
  }
  Handle h = allocate_from_device(size, q);
  std::lock_guard lock(m_);
  in_use_bytes_ += size;
  return h;
}

void CachingAllocator::release(Handle h, std::size_t bytes, const std::shared_ptr<QueueImpl>& last) {
  std::size_t size = round_size(bytes);
  if (!caching_) {
    std::lock_guard lock(m_);
    in_use_bytes_ -= size;
    device_.deallocate(h, size, last.get());
    return;
  }
  if (size <= kLocalBlockBytes) {
    LocalBlocks* local = thread_local_blocks(device_, last.get());
    if (local && local->blocks.size() < kLocalBlocks && local->bytes + size <= kLocalBytes) {
      if (!local->give_back)  // once per thread and queue: this allocator outlives both (DeviceState)
        local->give_back = [this](LocalBlocks& l, const std::shared_ptr<QueueImpl>& queue) { release_local(l, queue); };
      local->blocks.emplace_back(size, h);  // still counted in use
      local->bytes += size;
      return;
    }
  }
  std::lock_guard lock(m_);
  in_use_bytes_ -= size;
  cached_bytes_ += size;
  free_.emplace(size, Block{h, last, last.get()});
}

void CachingAllocator::release_local(LocalBlocks& local, const std::shared_ptr<QueueImpl>& q) {
  std::lock_guard lock(m_);
  for (auto& [size, h] : local.blocks) {
    in_use_bytes_ -= size;
    cached_bytes_ += size;
    free_.emplace(size, Block{h, q, q.get()});
  }
  local.blocks.clear();
  local.bytes = 0;
}

void CachingAllocator::free_local(QueueImpl& q) {
  LocalBlocks* local = thread_local_blocks(device_, &q);
  if (!local) return;
  for (auto& [size, h] : local->blocks) device_.deallocate(h, size, &q);
  std::lock_guard lock(m_);
  for (auto& [size, h] : local->blocks) in_use_bytes_ -= size;
  local->blocks.clear();
  local->bytes = 0;
}

void CachingAllocator::free_cached() {
  std::multimap<std::size_t, Block> blocks;
  {
    std::lock_guard lock(m_);
    blocks.swap(free_);
    cached_bytes_ = 0;
  }
  for (auto& [size, block] : blocks) {
    auto q = block.queue.lock();
    device_.deallocate(block.handle, size, q.get());
  }
}

std::size_t CachingAllocator::cached_bytes() const {
  std::lock_guard lock(m_);
  return cached_bytes_;
}

std::size_t CachingAllocator::in_use_bytes() const {
  std::lock_guard lock(m_);
  return in_use_bytes_;
}

}  // namespace porta::detail
