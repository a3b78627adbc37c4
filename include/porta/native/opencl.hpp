// Opt-in: porta's native OpenCL objects with their types. Include it only in code that includes
// <CL/cl.h> itself; <porta/interop.hpp> has the same as opaque pointers.
#pragma once

#include <CL/cl.h>

#include <porta/error.hpp>
#include <porta/interop.hpp>

namespace porta::native {

namespace detail {
inline void require_opencl(const Device& d, const char* what) {
  if (d.backend() != Backend::opencl)
    throw InvalidArgument(std::string(what) + ": " + d.spec() + " is not an OpenCL device; use <porta/native/cuda.hpp> or "
                          "porta::native_memory for other backends");
}
}  // namespace detail

// This thread's in-order queue on `d` (porta's; valid until the thread exits).
inline cl_command_queue opencl_queue(const Device& d = current_device()) {
  detail::require_opencl(d, "opencl_queue");
  return static_cast<cl_command_queue>(native_queue(d));
}
inline cl_context opencl_context(const Device& d) {
  detail::require_opencl(d, "opencl_context");
  return static_cast<cl_context>(native_device(d).context);
}
inline cl_device_id opencl_device(const Device& d) {
  detail::require_opencl(d, "opencl_device");
  return static_cast<cl_device_id>(native_device(d).device);
}
inline cl_platform_id opencl_platform(const Device& d) {
  detail::require_opencl(d, "opencl_platform");
  return static_cast<cl_platform_id>(native_device(d).platform);
}
// The buffer holding `a` (evaluated first) and the byte offset of its element (0, 0, ...) in it:
// kernels take the cl_mem and the offset as separate arguments.
struct OpenCLMemory {
  cl_mem buffer = nullptr;
  std::size_t offset_bytes = 0;
};
inline OpenCLMemory opencl_memory(const Array& a) {
  detail::require_opencl(a.device(), "opencl_memory");
  NativeMemory m = native_memory(a);
  return {static_cast<cl_mem>(m.handle), m.offset_bytes};
}
// `queue` waits for porta's pending work on `a`; porta's later work on `a` waits for `queue`.
inline void queue_wait_for(cl_command_queue queue, const Array& a) { porta::queue_wait_for(static_cast<void*>(queue), a); }
inline void wait_for_queue(const Array& a, cl_command_queue queue) { porta::wait_for_queue(a, static_cast<void*>(queue)); }

}  // namespace porta::native
