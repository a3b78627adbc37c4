// HostInput / HostOutput: see host_view.hpp. The zero-copy cases use porta's interop handles only
// (native_memory, native_queue, queue_wait_for, wait_for_queue), like any user's code.
#include "host_view.hpp"

#include <porta/interop.hpp>

#include <cstdio>

#if defined(PORTA_MPI_OPENCL)
#include <CL/cl.h>
#endif

namespace porta::mpi::detail {
namespace {

std::size_t bytes_of(DType t, const Shape& s) { return static_cast<std::size_t>(element_count(s)) * itemsize(t); }

// CUDA memory handed to a CUDA-aware MPI as it is (after a host wait for porta's work on it, since
// MPI does not know porta's stream).
bool cuda_aware(const Device& d) { return d.backend() == Backend::cuda && mpi_cuda_aware(); }
void* cuda_address(const Array& a) {
  const NativeMemory m = native_memory(a);
  return static_cast<std::byte*>(m.handle) + m.offset_bytes;
}

// Where porta's interop gives a host address without a map (Kokkos).
bool host_addressable(const Device& d) { return d.backend() == Backend::kokkos; }
// OpenCL CPU devices (PoCL): buffers are host memory, and a map hands out their address.
bool mappable(const Device& d) {
#if defined(PORTA_MPI_OPENCL)
  return d.backend() == Backend::opencl && d.kind() == DeviceKind::cpu;
#else
  (void)d;
  return false;
#endif
}

#if defined(PORTA_MPI_OPENCL)
void check_cl(cl_int rc, const char* call) {
  if (rc != CL_SUCCESS) throw DeviceError(std::string("porta::mpi: ") + call + " failed with OpenCL error " + std::to_string(rc));
}
void* map(const Array& a, void* queue, cl_map_flags flags) {
  const NativeMemory m = native_memory(a);
  cl_int rc = CL_SUCCESS;
  void* p = clEnqueueMapBuffer(static_cast<cl_command_queue>(queue), static_cast<cl_mem>(m.handle), CL_TRUE, flags,
                               m.offset_bytes, bytes_of(a.dtype(), a.shape()), 0, nullptr, nullptr, &rc);
  check_cl(rc, "clEnqueueMapBuffer");
  return p;
}
void unmap(const Array& a, void* queue, void* p) noexcept {
  const NativeMemory m = native_memory(a);
  const cl_int rc = clEnqueueUnmapMemObject(static_cast<cl_command_queue>(queue), static_cast<cl_mem>(m.handle), p, 0,
                                            nullptr, nullptr);
  if (rc != CL_SUCCESS) std::fprintf(stderr, "porta::mpi: clEnqueueUnmapMemObject failed with OpenCL error %d\n", rc);
}
#endif

}  // namespace

HostInput::HostInput(const Array& x) {
  const std::size_t bytes = bytes_of(x.dtype(), x.shape());
  const Device d = x.device();
  if (bytes > 0 && host_addressable(d)) {
    array_ = x.contiguous();
    queue_wait_for(nullptr, array_);
    data_ = static_cast<const std::byte*>(native_memory(array_).host);
    direct_ = data_ != nullptr;
  }
  if (!data_ && bytes > 0 && cuda_aware(d)) {
    array_ = x.contiguous();
    queue_wait_for(nullptr, array_);
    data_ = static_cast<const std::byte*>(cuda_address(array_));
    direct_ = true;
  }
#if defined(PORTA_MPI_OPENCL)
  if (!data_ && bytes > 0 && mappable(d)) {
    array_ = x.contiguous();
    queue_ = native_queue(d);
    // The map is on this thread's queue: it follows this thread's work, and waits here for the
    // other threads' pending writes of the array.
    queue_wait_for(queue_, array_);
    mapped_ = map(array_, queue_, CL_MAP_READ);
    data_ = static_cast<const std::byte*>(mapped_);
  }
#endif
  if (!data_) {
    auto* staging = thread_staging(0, bytes);
    if (bytes > 0) x.to_host(x.dtype(), staging, bytes);
    data_ = staging;
  }
}

HostInput::~HostInput() {
#if defined(PORTA_MPI_OPENCL)
  if (mapped_) unmap(array_, queue_, mapped_);
#endif
}

HostOutput::HostOutput(DType t, Shape shape, const Device& d) : dtype_(t), shape_(std::move(shape)), device_(d) {
  const std::size_t bytes = bytes_of(t, shape_);
  if (bytes > 0 && host_addressable(d)) {
    array_ = empty(shape_, t, d);
    queue_wait_for(nullptr, array_);
    data_ = static_cast<std::byte*>(native_memory(array_).host);
  }
  if (!data_ && bytes > 0 && cuda_aware(d)) {
    array_ = empty(shape_, t, d);
    queue_wait_for(nullptr, array_);
    data_ = static_cast<std::byte*>(cuda_address(array_));
  }
#if defined(PORTA_MPI_OPENCL)
  if (!data_ && bytes > 0 && mappable(d)) {
    array_ = empty(shape_, t, d);
    queue_ = native_queue(d);
    queue_wait_for(queue_, array_);
    mapped_ = map(array_, queue_, CL_MAP_WRITE_INVALIDATE_REGION);
    data_ = static_cast<std::byte*>(mapped_);
  }
#endif
  if (!data_) {
    array_ = Array();
    data_ = thread_staging(1, bytes);
  }
}

Array HostOutput::finish() {
  finished_ = true;
  if (!array_.valid()) return from_host(data_, dtype_, shape_, device_);
#if defined(PORTA_MPI_OPENCL)
  if (mapped_) {
    unmap(array_, queue_, mapped_);
    mapped_ = nullptr;
    // porta's later work on the array, on any thread's queue, waits for the unmap.
    wait_for_queue(array_, queue_);
  }
#endif
  if (!queue_) wait_for_queue(array_, nullptr);
  return array_;
}

HostOutput::~HostOutput() {
#if defined(PORTA_MPI_OPENCL)
  if (mapped_) unmap(array_, queue_, mapped_);
#endif
}

}  // namespace porta::mpi::detail
