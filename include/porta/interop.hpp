// Working with other libraries: the native objects behind porta's devices, queues and arrays
// (opaque here; <porta/native/cuda.hpp> and <porta/native/opencl.hpp> give them their vendor
// types), and the ordering of porta's work with work queued on streams and queues porta does not
// own. No vendor header is needed to use this one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <porta/array.hpp>
#include <porta/device.hpp>

namespace porta {

// The vendor objects behind a device. porta owns them; they stay valid while the device's
// backend is loaded (until the process exits).
struct NativeDevice {
  Backend backend = Backend::cuda;
  void* context = nullptr;   // CUcontext (the device's primary context), cl_context; null on Kokkos
  void* device = nullptr;    // cl_device_id; null elsewhere
  void* platform = nullptr;  // cl_platform_id; null elsewhere
  int ordinal = 0;           // the CUdevice (its ordinal); the device's index elsewhere
};
NativeDevice native_device(const Device& d);

// This thread's CUstream or cl_command_queue on `d`, made on first use and owned by porta (valid
// until the thread exits). The launches porta has recorded so far are submitted to it first, so
// work queued on it directly runs after them, in program order. Null on Kokkos, where porta's
// work is finished when its call returns.
void* native_queue(const Device& d = current_device());

// Where an evaluated array's elements live.
struct NativeMemory {
  // CUdeviceptr (the integer, cast), cl_mem, or a host pointer (Kokkos) of the whole allocation.
  void* handle = nullptr;
  // Bytes from `handle` to the array's element at index (0, 0, ...). An array with negative
  // strides also has elements below it.
  std::size_t offset_bytes = 0;
  std::size_t buffer_bytes = 0;  // the size of the allocation behind `handle`
  // The host address of element (0, 0, ...) where the memory is host memory that needs no map
  // (Kokkos; an OpenCL buffer porta made over host memory), else null.
  void* host = nullptr;
};
// Evaluates `a` first. The memory stays valid while `a` (or any array sharing its buffer) lives.
// Before other work uses it, order that work after porta's: queue_wait_for(), or use it on
// native_queue() of the same thread.
NativeMemory native_memory(const Array& a);

// Ordering with foreign streams and queues. `foreign` is a CUstream (0, CU_STREAM_LEGACY and
// CU_STREAM_PER_THREAD included) of the array's CUDA device, or a cl_command_queue of the array's
// OpenCL device (any cl_context), or null for the host: queue_wait_for(nullptr, a) returns once
// porta's work on `a` is done, and wait_for_queue(a, nullptr) says the host has written `a`. On
// Kokkos every queue is the host, where porta's work is done when its call returns.

// Work queued on `foreign` after this call starts only once porta's pending work on `a`'s memory
// (its writes, and reads, since the foreign work may write) is done. CUDA: an event and
// cuStreamWaitEvent, no host wait. OpenCL: a marker in a barrier of the same cl_context; a host
// wait for the marker when `foreign` belongs to another cl_context.
void queue_wait_for(void* foreign, const Array& a);
// porta's later work on `a`'s memory, from any thread, starts only once the work queued on
// `foreign` so far is done (the foreign work wrote it, say). This thread's queue waits on the
// device where the driver allows it.
void wait_for_queue(const Array& a, void* foreign);
// This thread's queue on `d` waits for the work queued on `foreign` so far.
void wait_for_queue(const Device& d, void* foreign);

// Memory porta does not own, as a porta::Array (zero-copy). porta never frees it: `release` runs
// exactly once, on whichever thread drops the last array using the memory, after porta's work on
// it has finished; and also when wrap_memory throws (bad input), so that nothing leaks.
enum class MemoryKind : std::uint8_t {
  device,  // CUdeviceptr (cast) on CUDA; cl_mem on OpenCL; a host pointer on Kokkos
  host,    // a host pointer: Kokkos; OpenCL CPU devices (PoCL), through a buffer over it
           // (CL_MEM_USE_HOST_PTR); CUDA, for page-locked memory (cudaMallocHost) the GPU can reach
};
struct ExternalMemory {
  void* pointer = nullptr;  // the allocation: a CUdeviceptr, cl_mem or host pointer, by `kind`
  MemoryKind kind = MemoryKind::device;
  // The bytes from `pointer` the caller owns and porta may touch; 0 when not known (then porta
  // checks what the driver can tell: a CUDA allocation's range, a cl_mem's size).
  std::size_t bytes = 0;
};
// An array of `dtype` and `shape` whose element (i, j, ...) is at byte
// offset_bytes + (i * strides[0] + j * strides[1] + ...) * itemsize from memory.pointer. Strides
// are in elements and may be 0 or negative; empty means row-major. Throws InvalidArgument for
// memory of another device, a misaligned first element, or elements outside the memory;
// DTypeError when the device lacks the dtype.
Array wrap_memory(const ExternalMemory& memory, DType dtype, Shape shape, std::vector<std::int64_t> strides,
                  std::size_t offset_bytes, const Device& device, std::function<void()> release);

}  // namespace porta
