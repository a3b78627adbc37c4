// Device memory: CUDA's stream-ordered allocator on a pool per device, behind the core's caching
// allocator (which serves repeated sizes without a driver call), and the copies and fills
// between host and device.
#include <algorithm>
#include <cstring>
#include <limits>

#include "cuda/cuda.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {
namespace {

// Fill patterns cuMemsetD8/16/32 cannot express: 8-byte words, and any pattern at an address
// not aligned to its size.
constexpr const char* kFillSource = R"(
extern "C" __global__ void porta_fill_words(unsigned long long* dst, unsigned long long value, unsigned long long count) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x)
    dst[i] = value;
}
extern "C" __global__ void porta_fill_bytes(unsigned char* dst, unsigned long long bytes, unsigned long long pattern,
                                            unsigned int pattern_size) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < bytes;
       i += (unsigned long long)gridDim.x * blockDim.x)
    dst[i] = (unsigned char)(pattern >> (8 * (i % pattern_size)));
}
)";

}  // namespace

CUmemoryPool Device::pool() {
  if (pool_ready_.load(std::memory_order_acquire)) return pool_;
  std::lock_guard lock(pool_m_);
  if (pool_ready_.load(std::memory_order_relaxed)) return pool_;
  ctx_->make_current();
  if (memory_pools_) {
    // A pool of porta's own, so that its release threshold does not change the default pool
    // that other libraries in the process (the CUDA runtime's cudaMallocAsync) share.
    CUmemPoolProps props{};
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = static_cast<int>(ctx_->device());
    CUmemoryPool pool = nullptr;
    PORTA_CU_AT(label(), cuMemPoolCreate(&pool, &props));
    // Freed memory stays in the pool (the caching) unless PORTA_ALLOC=direct asks for every
    // free to return to the driver at the next synchronisation.
    cuuint64_t threshold = keep_freed_memory_ ? std::numeric_limits<cuuint64_t>::max() : 0;
    CUresult r = cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold);
    if (r != CUDA_SUCCESS) {
      log_failure(cuMemPoolDestroy(pool), "cuMemPoolDestroy", label());
      throw_error(r, "cuMemPoolSetAttribute", label());
    }
    pool_ = pool;
  }
  pool_ready_.store(true, std::memory_order_release);
  return pool_;
}

std::uint64_t Device::available_bytes(std::uint64_t* total) const {
  ctx_->make_current();
  std::size_t free = 0, all = 0;
  PORTA_CU_AT(label(), cuMemGetInfo(&free, &all));
  *total = all;
  std::uint64_t available = free;
  if (pool_ready_.load(std::memory_order_acquire) && pool_) {
    cuuint64_t reserved = 0, used = 0;
    if (cuMemPoolGetAttribute(pool_, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved) == CUDA_SUCCESS &&
        cuMemPoolGetAttribute(pool_, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used) == CUDA_SUCCESS && reserved > used)
      available += reserved - used;
  }
  return available;
}

std::uint64_t Device::free_memory() const {
  std::uint64_t total = 0;
  return available_bytes(&total);
}

Handle Device::allocate(std::size_t bytes, detail::QueueImpl& q) {
  Queue& queue = own(q);
  CUmemoryPool memory_pool = pool();  // makes the context current
  std::size_t size = std::max<std::size_t>(bytes, 1);  // the driver rejects 0 bytes
  auto out_of_memory = [&](const std::string& why) {
    std::uint64_t total = info_.memory_bytes, available = 0;
    try {
      available = available_bytes(&total);
    } catch (const Error&) {
    }
    return OutOfMemory(detail::cat(label(), " (", info_.name, "): out of memory allocating ", detail::format_bytes(bytes),
                                   " (", bytes, " bytes); ", detail::format_bytes(available), " of ",
                                   detail::format_bytes(total), " are free", why,
                                   ". Free arrays that are no longer needed, or work on smaller pieces"),
                       bytes, available);
  };
  if (size > info_.memory_bytes) throw out_of_memory(", and the device has less than that in all");
  CUdeviceptr p = 0;
  // While the queue's stream records a graph, an allocation on it would become a node of the
  // graph: allocate on a stream that does not record, and wait for it.
  const bool capturing = queue.capturing();
  CUstream stream = capturing ? side_stream() : queue.native();
  CUresult r = memory_pool ? cuMemAllocFromPoolAsync(&p, size, memory_pool, stream) : cuMemAlloc(&p, size);
  if (r == CUDA_SUCCESS && capturing && memory_pool) r = cuStreamSynchronize(stream);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) throw out_of_memory(detail::cat(" (", describe(r), ")"));
  if (r != CUDA_SUCCESS) throw_error(r, memory_pool ? "cuMemAllocFromPoolAsync" : "cuMemAlloc", label());
  return to_handle(p);
}

void Device::deallocate(Handle h, std::size_t bytes, detail::QueueImpl* q) noexcept {
  (void)bytes;
  if (!h || !ctx_->make_current_noexcept()) return;
  auto* queue = q ? dynamic_cast<Queue*>(q) : nullptr;
  if (queue && queue->capturing()) {
    queue->defer_free(device_ptr(h));
    return;
  }
  if (pool_ && queue) {
    log_failure(cuMemFreeAsync(device_ptr(h), queue->native_noexcept()), "cuMemFreeAsync", label());
    return;
  }
  // No pending work (q is null), or memory from cuMemAlloc, whose free must follow the queue's work.
  if (queue) log_failure(cuStreamSynchronize(queue->native_noexcept()), "cuStreamSynchronize", label());
  log_failure(cuMemFree(device_ptr(h)), "cuMemFree", label());
}

CUstream Device::side_stream() {
  std::lock_guard lock(side_m_);
  if (!side_stream_) {
    ctx_->make_current();
    PORTA_CU_AT(label(), cuStreamCreate(&side_stream_, CU_STREAM_NON_BLOCKING));
  }
  return side_stream_;
}

void Device::release_cached_memory() {
  if (!pool_ready_.load(std::memory_order_acquire) || !pool_) return;
  ctx_->make_current();
  // Frees queued on other streams return their memory to the pool only once those streams
  // reach them: wait for all of this device's work, then give the unused memory back.
  PORTA_CU_AT(label(), cuCtxSynchronize());
  PORTA_CU_AT(label(), cuMemPoolTrimTo(pool_, 0));
}

void Device::write(detail::QueueImpl& q, Handle dst, std::size_t dst_offset, const void* src, std::size_t bytes) {
  Queue& queue = own(q);
  if (queue.capturing()) throw InvalidArgument(detail::refusal(label(), "copying host memory to the device (from_host, a write of host data)"));
  if (bytes == 0) return;
  ctx_->make_current();
  PORTA_CU_AT(label(), cuMemcpyHtoDAsync(device_ptr(dst, dst_offset), src, bytes, queue.native()));
  // From pageable memory the driver stages the data before it returns, but from page-locked
  // memory the copy is truly asynchronous and `src` must stay untouched until it has run. The
  // contract is that `src` may be reused on return, so wait in every case.
  PORTA_CU_AT(label(), cuStreamSynchronize(queue.native()));
}

void Device::read(detail::QueueImpl& q, Handle src, std::size_t src_offset, void* dst, std::size_t bytes) {
  Queue& queue = own(q);
  if (queue.capturing()) throw InvalidArgument(detail::refusal(label(), "reading device memory to the host (to_vector, item, to_host)"));
  if (bytes == 0) return;
  ctx_->make_current();
  PORTA_CU_AT(label(), cuMemcpyDtoHAsync(dst, device_ptr(src, src_offset), bytes, queue.native()));
  PORTA_CU_AT(label(), cuStreamSynchronize(queue.native()));
}

void Device::copy(detail::QueueImpl& q, Handle src, std::size_t src_offset, Handle dst, std::size_t dst_offset,
                  std::size_t bytes) {
  if (bytes == 0) return;
  Queue& queue = own(q);
  ctx_->make_current();
  PORTA_CU_AT(label(), cuMemcpyDtoDAsync(device_ptr(dst, dst_offset), device_ptr(src, src_offset), bytes,
                                         queue.native()));
}

Kernel& Device::fill_kernel(bool bytewise) {
  std::lock_guard lock(fill_m_);
  if (!fill_words_) {
    auto module = build(kFillSource, "porta_fill", {});
    fill_words_ = std::make_shared<Kernel>(module, "porta_fill_words", kFillSource);
    fill_bytes_ = std::make_shared<Kernel>(module, "porta_fill_bytes", kFillSource);
  }
  return bytewise ? *fill_bytes_ : *fill_words_;
}

void Device::launch_1d(Queue& q, Kernel& k, std::uint64_t items, void** params) {
  constexpr std::uint64_t kBlock = 256;
  std::uint64_t blocks = std::min<std::uint64_t>((items + kBlock - 1) / kBlock, info_.launch.max_groups);
  blocks = std::max<std::uint64_t>(blocks, 1);
  PORTA_CU_AT(label(), cuLaunchKernel(k.native(), static_cast<unsigned>(blocks), 1, 1, kBlock, 1, 1, 0, q.native(),
                                      params, nullptr));
}

void Device::fill(detail::QueueImpl& q, Handle dst, std::size_t offset, const void* pattern, std::size_t pattern_size,
                  std::size_t bytes) {
  if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4 && pattern_size != 8)
    throw InvalidArgument(detail::cat(label(), ": fill pattern of ", pattern_size, " bytes; it must be 1, 2, 4 or 8"));
  if (bytes % pattern_size != 0)
    throw InvalidArgument(detail::cat(label(), ": fill of ", bytes, " bytes is not a whole number of ", pattern_size,
                                      "-byte patterns"));
  if (bytes == 0) return;
  Queue& queue = own(q);
  ctx_->make_current();
  std::uint8_t b[8] = {};
  std::memcpy(b, pattern, pattern_size);
  CUdeviceptr p = device_ptr(dst, offset);
  CUstream s = queue.native();
  bool uniform = std::all_of(b, b + pattern_size, [&](std::uint8_t x) { return x == b[0]; });
  if (uniform) {
    PORTA_CU_AT(label(), cuMemsetD8Async(p, b[0], bytes, s));
    return;
  }
  std::uint16_t u16;
  std::uint32_t u32[2];
  std::uint64_t u64;
  std::memcpy(&u16, b, 2);
  std::memcpy(u32, b, 8);
  std::memcpy(&u64, b, 8);
  if (pattern_size == 2 && p % 2 == 0) {
    PORTA_CU_AT(label(), cuMemsetD16Async(p, u16, bytes / 2, s));
    return;
  }
  if ((pattern_size == 4 || (pattern_size == 8 && u32[0] == u32[1])) && p % 4 == 0) {
    PORTA_CU_AT(label(), cuMemsetD32Async(p, u32[0], bytes / 4, s));
    return;
  }
  if (pattern_size == 8 && p % 8 == 0) {
    unsigned long long count = bytes / 8, value = u64;
    void* params[] = {&p, &value, &count};
    launch_1d(queue, fill_kernel(false), count, params);
    return;
  }
  // Unaligned: byte by byte, the pattern starting at dst + offset (little-endian host order).
  unsigned long long total = bytes, value = u64;
  unsigned int size = static_cast<unsigned int>(pattern_size);
  void* params[] = {&p, &total, &value, &size};
  launch_1d(queue, fill_kernel(true), total, params);
}


// Peer access, once per pair of devices: where the hardware allows it (NVLink, PCIe P2P), each
// device's pool (and, without pools, each context) grants the other read/write access, so a
// copy between them is one DMA with no stop in host memory. Where it does not, cuMemcpyPeerAsync
// still copies, staged by the driver.
void Device::open_peer(Device& other) {
  std::lock_guard lock(peer_m_);
  CUdevice theirs = other.ctx_->device();
  if (std::find(peers_checked_.begin(), peers_checked_.end(), theirs) != peers_checked_.end()) return;
  int forward = 0, backward = 0;
  PORTA_CU_AT(label(), cuDeviceCanAccessPeer(&forward, ctx_->device(), theirs));
  PORTA_CU_AT(label(), cuDeviceCanAccessPeer(&backward, theirs, ctx_->device()));
  if (forward && backward) {
    for (Device* owner : {this, &other}) {
      Device* user = owner == this ? &other : this;
      if (CUmemoryPool p = owner->pool()) {
        CUmemAccessDesc desc{};
        desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        desc.location.id = static_cast<int>(user->ctx_->device());
        desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        PORTA_CU_AT(owner->label(), cuMemPoolSetAccess(p, &desc, 1));
      }
      user->ctx_->make_current();
      CUresult r = cuCtxEnablePeerAccess(owner->ctx_->native(), 0);
      if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) throw_error(r, "cuCtxEnablePeerAccess", user->label());
    }
    detail::log(detail::LogLevel::info, detail::cat(label(), " and ", other.label(), ": peer access enabled"));
  } else {
    detail::log(detail::LogLevel::info,
                detail::cat(label(), " and ", other.label(), ": no peer access; copies between them are staged by the driver"));
  }
  peers_checked_.push_back(theirs);
}

bool Device::copy_to_peer(detail::QueueImpl& q, Handle src, std::size_t src_offset, detail::DeviceImpl& dst_device,
                          Handle dst, std::size_t dst_offset, std::size_t bytes) {
  auto* peer = dynamic_cast<Device*>(&dst_device);
  if (!peer) return false;
  if (bytes == 0) return true;
  Queue& queue = own(q);
  open_peer(*peer);
  ctx_->make_current();
  PORTA_CU_AT(label(), cuMemcpyPeerAsync(device_ptr(dst, dst_offset), peer->ctx_->native(), device_ptr(src, src_offset),
                                         ctx_->native(), bytes, queue.native()));
  return true;
}

}  // namespace porta::cuda
