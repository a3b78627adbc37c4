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

// DLPack's tensors (the structs are in <porta/dlpack.hpp>, or the user's own dlpack.h).
struct DLManagedTensor;
struct DLManagedTensorVersioned;

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
  std::vector<std::int64_t> strides;  // in elements, one per dimension (0 and negative ones too)
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

// DLPack: zero-copy exchange with CuPy, PyTorch, NumPy, JAX and every library that speaks it.
// to_dlpack's tensor keeps porta's memory alive until the consumer calls its deleter (from any
// thread, at any time: also after the array, its thread and the backend's queues are gone).
struct DLPackExport {
  // The consumer's stream or queue (a CUstream, CU_STREAM_LEGACY included, or a cl_command_queue of
  // the array's device): it waits on the device for porta's pending work on the array, as Python's
  // __dlpack__(stream=...) asks of a producer. Null: the host waits instead, before the call returns.
  void* consumer_queue = nullptr;
  bool synchronize = true;  // false: no ordering at all (__dlpack__(stream=-1)); the consumer orders
  // Export to the host (kDLCPU) instead of the array's own device type: zero-copy where the memory
  // is host memory (Kokkos, a buffer over host memory), else a copy (flag IS_COPIED).
  bool to_host = false;
  bool read_only = false;  // flag READ_ONLY (also set for views with a 0 stride, whose elements alias)
};
// The array (evaluated first) as a DLPack 1.x tensor: data is the element (0, 0, ...)'s address
// (kDLCUDA, kDLCPU) with byte_offset 0, or a cl_mem with the byte offset (kDLOpenCL); strides in
// elements, as porta keeps them (0 and negative ones too).
DLManagedTensorVersioned* to_dlpack(const Array& a, const DLPackExport& options = {});
// The same as DLPack 0.x's DLManagedTensor, for consumers without the versioned form.
DLManagedTensor* to_dlpack_legacy(const Array& a, const DLPackExport& options = {});

struct DLPackImport {
  // For kDLCPU and kDLCUDAHost tensors: the device whose arrays use the memory. Empty: the current
  // device if it uses host memory in place (Kokkos, an OpenCL CPU device), else the first that does.
  Device host_device;
  // The producer's stream or queue: porta's later work on the array waits for it (wait_for_queue).
  void* producer_queue = nullptr;
};
// A porta array over the tensor's memory, zero-copy: kDLCUDA and kDLCUDAManaged (device_id N:
// cuda:N), kDLCPU and kDLCUDAHost (on a device that uses host memory in place; CUDA devices for
// page-locked memory), kDLOpenCL (data a cl_mem of porta's cl_context of opencl:N). The tensor's
// deleter runs exactly once: when the last porta array using the memory is gone, or, when the
// tensor is refused (a typed error: null pointers, a device porta does not have, a dtype porta
// lacks, a major version above 1, a misaligned pointer, strides outside the memory), before the
// error is thrown.
Array from_dlpack(DLManagedTensorVersioned* tensor, const DLPackImport& options = {});
Array from_dlpack(DLManagedTensor* tensor, const DLPackImport& options = {});

}  // namespace porta
