// Opt-in: porta's native CUDA objects with their driver-API types. Include it only in code that
// includes <cuda.h> itself (the CUDA toolkit's headers); <porta/interop.hpp> has the same as
// opaque pointers.
#pragma once

#include <cuda.h>

#include <cstdint>

#include <porta/error.hpp>
#include <porta/interop.hpp>

namespace porta::native {

namespace detail {
inline void require_cuda(const Device& d, const char* what) {
  if (d.backend() != Backend::cuda)
    throw InvalidArgument(std::string(what) + ": " + d.spec() + " is not a CUDA device; use <porta/native/opencl.hpp> or "
                          "porta::native_memory for other backends");
}
}  // namespace detail

// This thread's stream on `d` (porta's; valid until the thread exits).
inline CUstream cuda_stream(const Device& d = current_device()) {
  detail::require_cuda(d, "cuda_stream");
  return static_cast<CUstream>(native_queue(d));
}
// The device's primary context, the one the CUDA runtime, cuBLAS and NCCL use.
inline CUcontext cuda_context(const Device& d) {
  detail::require_cuda(d, "cuda_context");
  return static_cast<CUcontext>(native_device(d).context);
}
inline CUdevice cuda_device(const Device& d) {
  detail::require_cuda(d, "cuda_device");
  return static_cast<CUdevice>(native_device(d).ordinal);
}
// The address of `a`'s element (0, 0, ...), after evaluating it.
inline CUdeviceptr cuda_pointer(const Array& a) {
  detail::require_cuda(a.device(), "cuda_pointer");
  NativeMemory m = native_memory(a);
  return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(m.handle)) + m.offset_bytes;
}
// `stream` waits for porta's pending work on `a`; porta's later work on `a` waits for `stream`.
inline void stream_wait_for(CUstream stream, const Array& a) { queue_wait_for(static_cast<void*>(stream), a); }
inline void wait_for_stream(const Array& a, CUstream stream) { wait_for_queue(a, static_cast<void*>(stream)); }

}  // namespace porta::native
