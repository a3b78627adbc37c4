// Device memory: cl_mem buffers, host <-> device copies, fills and maps, ordered on a queue.
// Handles are cl_mem objects; byte offsets go to the enqueue calls.
#include <algorithm>
#include <array>
#include <cstring>

#include "porta_backend/log.hpp"
#include "porta_backend/services.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {

namespace {
std::atomic<std::uint64_t> released_buffers{0};
}  // namespace

std::uint64_t memory_generation() noexcept { return released_buffers.load(std::memory_order_acquire); }
void note_memory_released() noexcept { released_buffers.fetch_add(1, std::memory_order_acq_rel); }

namespace {

cl_mem mem(Handle h) { return static_cast<cl_mem>(h); }

bool is_allocation_failure(cl_int s) {
  return s == CL_MEM_OBJECT_ALLOCATION_FAILURE || s == CL_OUT_OF_RESOURCES || s == CL_OUT_OF_HOST_MEMORY ||
         s == CL_INVALID_BUFFER_SIZE;
}

}  // namespace

Handle Device::allocate(std::size_t bytes, QueueImpl&) {
  const auto& in = info_;
  auto fail = [&](const std::string& why) -> OutOfMemory {
    return OutOfMemory(detail::cat(label_, " cannot allocate ", detail::format_bytes(bytes), " (", bytes, " bytes): ", why,
                                   ". The device has ", detail::format_bytes(in.memory_bytes),
                                   " in total and allocates at most ", detail::format_bytes(in.max_alloc_bytes),
                                   " at once (CL_DEVICE_MAX_MEM_ALLOC_SIZE). Free arrays you no longer need, "
                                   "split the work into smaller arrays, or use a device with more memory"),
                       bytes, in.memory_bytes);
  };
  if (bytes > in.max_alloc_bytes) throw fail("larger than the largest single allocation");
  cl_int status = CL_SUCCESS;
  // OpenCL refuses zero-sized buffers; a one-byte buffer stands in for an empty allocation.
  cl_mem m = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes ? bytes : 1, nullptr, &status);
  if (is_allocation_failure(status)) throw fail(detail::cat("clCreateBuffer returned ", describe(status)));
  if (status != CL_SUCCESS)
    throw_error(status, "clCreateBuffer", detail::cat("allocating ", detail::format_bytes(bytes), " on ", label_));
  PORTA_LOG(debug, label_, ": allocated ", detail::format_bytes(bytes));
  return m;
}

void Device::deallocate(Handle h, std::size_t bytes, QueueImpl* q) noexcept {
  if (!h) return;
  // A launch still in the queue's launch thread is not enqueued yet: it holds no reference.
  if (auto* queue = q ? dynamic_cast<Queue*>(q) : nullptr) queue->native_noexcept();
  // OpenCL keeps the buffer alive until the commands queued on it have finished.
  note_memory_released();
  if (cl_int s = clReleaseMemObject(mem(h)); s != CL_SUCCESS)
    log_failure(s, "clReleaseMemObject", detail::cat(label_, ", ", bytes, " bytes"));
}

void Device::write(QueueImpl& q, Handle dst, std::size_t dst_offset, const void* src, std::size_t bytes) {
  if (auto* r = queue_of(q).recording()) r->refuse(label_, "copying host memory to the device (from_host, a write of host data)");
  if (bytes == 0) return;
  PORTA_CL_AT(detail::cat("writing ", bytes, " bytes at offset ", dst_offset, " to ", label_),
              clEnqueueWriteBuffer(queue_of(q).native(), mem(dst), CL_TRUE, dst_offset, bytes, src, 0, nullptr, nullptr));
}

void Device::read(QueueImpl& q, Handle src, std::size_t src_offset, void* dst, std::size_t bytes) {
  if (auto* r = queue_of(q).recording()) r->refuse(label_, "reading device memory to the host (to_vector, item, to_host)");
  if (bytes == 0) return;
  cl_int s = clEnqueueReadBuffer(queue_of(q).native(), mem(src), CL_TRUE, src_offset, bytes, dst, 0, nullptr, nullptr);
  if (s != CL_SUCCESS) {
    const std::string what = detail::cat("reading ", bytes, " bytes at offset ", src_offset, " from ", label_);
    note_failure(s, what);
    check_usable();
    throw_error(s, "clEnqueueReadBuffer", what);
  }
}

void Device::copy(QueueImpl& q, Handle src, std::size_t src_offset, Handle dst, std::size_t dst_offset,
                        std::size_t bytes) {
  if (bytes == 0) return;
  if (auto* r = queue_of(q).recording()) {
    RecordedCommand c;
    c.kind = RecordedCommand::Kind::copy;
    c.src = src, c.dst = dst, c.src_offset = src_offset, c.dst_offset = dst_offset, c.bytes = bytes;
    queue_of(q).record_command(std::move(c));
    r->add([=, this](QueueImpl& rq, const detail::HandleMap& m) { copy(rq, m(src), src_offset, m(dst), dst_offset, bytes); });
    return;
  }
  PORTA_CL_AT(detail::cat("copying ", bytes, " bytes on ", label_),
              clEnqueueCopyBuffer(queue_of(q).native(), mem(src), mem(dst), src_offset, dst_offset, bytes, 0, nullptr,
                                  nullptr));
}

namespace {

// GPUs: the body of a large fill as 16-byte stores of porta's own kernel. NVIDIA's
// clEnqueueFillBuffer wrote 1693 GB/s on the H200 (2^28 float32, porta-bench's fill row) where a
// kernel that also computes its values (random::uniform) wrote 3494.
constexpr const char* kFillSource = R"(__kernel void porta_fill16(__global uint4* restrict out, const ulong first, const ulong count,
                           const ulong lo, const ulong hi) {
  const uint4 v = (uint4)((uint)lo, (uint)(lo >> 32), (uint)hi, (uint)(hi >> 32));
  const ulong step = get_global_size(0);
  for (ulong i = get_global_id(0); i < count; i += step) out[first + i] = v;
}
)";
// CPU devices: no loop (PoCL runs a work-group's items one after another, so a grid-stride loop
// strides through memory); each work-item stores kCpuFillPer consecutive 16-byte words (256
// bytes). PoCL's clEnqueueFillBuffer wrote 5.2 GB/s on the 2-core build machine (2^24 float32),
// this 12.4 (its copy wrote 10.5 while reading as much).
constexpr const char* kCpuFillSource = R"(__kernel void porta_fill16_cpu(__global uint4* restrict out, const ulong first,
                               const ulong lo, const ulong hi) {
  const uint4 v = (uint4)((uint)lo, (uint)(lo >> 32), (uint)hi, (uint)(hi >> 32));
  __global uint4* p = out + first + get_global_id(0) * 16;
  for (int k = 0; k < 16; ++k) p[k] = v;
}
)";
constexpr std::size_t kFillKernelMinBytes = std::size_t{1} << 20;
constexpr std::size_t kFillGroup = 256;
constexpr std::size_t kCpuFillPer = 16;

}  // namespace

void Device::fill(QueueImpl& q, Handle dst, std::size_t offset, const void* pattern, std::size_t pattern_size,
                        std::size_t bytes) {
  if (bytes == 0) return;
  if (pattern_size == 0 || offset % pattern_size || bytes % pattern_size)
    throw InvalidArgument(detail::cat("fill on ", label_, ": offset ", offset, " and size ", bytes,
                                      " must be multiples of the ", pattern_size, "-byte pattern"));
  if (auto* r = queue_of(q).recording()) {
    if (pattern_size > 8) throw InvalidArgument(detail::cat("fill on ", label_, ": a ", pattern_size, "-byte pattern cannot be recorded (at most 8)"));
    std::array<std::uint8_t, 8> word{};
    std::memcpy(word.data(), pattern, pattern_size);
    RecordedCommand c;
    c.kind = RecordedCommand::Kind::fill;
    c.dst = dst, c.dst_offset = offset, c.bytes = bytes, c.pattern_size = pattern_size, c.pattern = word;
    queue_of(q).record_command(std::move(c));
    r->add([=, this](QueueImpl& rq, const detail::HandleMap& m) { fill(rq, m(dst), offset, word.data(), pattern_size, bytes); });
    return;
  }
  auto driver_fill = [&](std::size_t at, std::size_t n) {
    if (n == 0) return;
    PORTA_CL_AT(detail::cat("filling ", n, " bytes with a ", pattern_size, "-byte pattern on ", label_),
                clEnqueueFillBuffer(queue_of(q).native(), mem(dst), pattern, pattern_size, at, n, 0, nullptr, nullptr));
  };
  const bool kernel_fill = 16 % pattern_size == 0 && bytes >= kFillKernelMinBytes;
  if (!kernel_fill) {
    driver_fill(offset, bytes);
    return;
  }
  // [offset, begin) and [end, offset + bytes) through the driver, [begin, end) 16 bytes at a
  // time. begin is a multiple of the pattern's size (16 is), so the pattern starts there whole.
  const std::size_t begin = (offset + 15) / 16 * 16;
  const bool cpu = info_.kind == DeviceKind::cpu;
  // CPU devices: whole groups of kFillGroup work-items of kCpuFillPer words; the rest as above.
  const std::size_t unit = cpu ? 16 * kCpuFillPer * kFillGroup : 16;
  const std::size_t end = begin + (offset + bytes - begin) / unit * unit;
  std::uint8_t word[16];
  for (std::size_t k = 0; k < 16; ++k) word[k] = static_cast<const std::uint8_t*>(pattern)[k % pattern_size];
  std::uint64_t lo = 0, hi = 0;
  std::memcpy(&lo, word, 8);
  std::memcpy(&hi, word + 8, 8);
  const std::uint64_t count = (end - begin) / 16;
  // The CPU kernel's work-items each store kCpuFillPer words and take no count; the GPUs' loop
  // over `count` words from a grid of at most max_groups groups.
  auto kernel = cpu ? detail::cached_kernel(*this, "opencl-fill16-cpu", [] { return KernelSource{kCpuFillSource, "porta_fill16_cpu", {}}; })
                    : detail::cached_kernel(*this, "opencl-fill16", [] { return KernelSource{kFillSource, "porta_fill16", {}}; });
  const KernelArg gpu_args[] = {KernelArg::memory(dst), KernelArg::scalar<std::uint64_t>(begin / 16), KernelArg::scalar<std::uint64_t>(count),
                                KernelArg::scalar<std::uint64_t>(lo), KernelArg::scalar<std::uint64_t>(hi)};
  const KernelArg cpu_args[] = {gpu_args[0], gpu_args[1], gpu_args[3], gpu_args[4]};
  const std::uint64_t gpu_groups = std::clamp<std::uint64_t>((count + kFillGroup - 1) / kFillGroup, 1,
                                                             std::max<std::uint64_t>(info_.launch.max_groups, 1));
  LaunchDims dims;
  dims.global[0] = static_cast<std::size_t>(cpu ? count / kCpuFillPer : gpu_groups * kFillGroup);
  dims.local[0] = kFillGroup;
  driver_fill(offset, begin - offset);
  if (cpu) launch(q, *kernel, dims, cpu_args);
  else launch(q, *kernel, dims, gpu_args);
  driver_fill(end, offset + bytes - end);
}

void* Device::map(QueueImpl& q, Handle h, std::size_t bytes) {
  if (auto* r = queue_of(q).recording()) r->refuse(label_, "mapping device memory for the host");
  if (bytes == 0) return nullptr;
  cl_command_queue queue = queue_of(q).native();
  // The queue's earlier work is waited for outside the lock, so the map under it is quick.
  PORTA_CL_AT(detail::cat("waiting for the work before mapping memory of ", label_), clFinish(queue));
  std::lock_guard lock(map_m_);
  cl_int status = CL_SUCCESS;
  void* p = clEnqueueMapBuffer(queue, mem(h), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr,
                               nullptr, &status);
  if (status != CL_SUCCESS) throw_error(status, "clEnqueueMapBuffer", detail::cat("mapping ", bytes, " bytes of ", label_));
  return p;
}

void Device::unmap(QueueImpl& q, Handle h, void* p) {
  if (!p) return;
  cl_command_queue queue = queue_of(q).native();
  std::lock_guard lock(map_m_);
  cl_event done = nullptr;
  PORTA_CL_AT(detail::cat("unmapping memory of ", label_), clEnqueueUnmapMemObject(queue, mem(h), p, 0, nullptr, &done));
  cl_int status = clWaitForEvents(1, &done);
  clReleaseEvent(done);
  if (status != CL_SUCCESS) throw_error(status, "clWaitForEvents", detail::cat("unmapping memory of ", label_));
}

}  // namespace porta::opencl
