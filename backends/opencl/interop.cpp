// Interop with OpenCL work porta does not own: the device's native objects, host addresses of
// buffers over host memory, and markers between porta's queues and foreign ones (any cl_context
// of the same device: within one context a barrier on the marker, across contexts a host wait).
#include "porta_backend/log.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {

detail::NativeObjects Device::native_objects() {
  detail::NativeObjects o;
  o.context = context_;
  o.device = device_;
  o.platform = platform_;
  o.ordinal = index();
  return o;
}

void* Device::host_address(Handle h) {
  void* host = nullptr;
  PORTA_CL_AT(detail::cat("asking a buffer of ", label_, " for its host memory"),
              clGetMemObjectInfo(static_cast<cl_mem>(h), CL_MEM_HOST_PTR, sizeof host, &host, nullptr));
  return host;
}

cl_command_queue Device::foreign_queue(void* foreign, const char* what, cl_context* context) const {
  auto queue = static_cast<cl_command_queue>(foreign);
  if (!queue) throw InvalidArgument(detail::cat(what, ": the cl_command_queue is null; give a queue of ", label_));
  cl_device_id dev = nullptr;
  PORTA_CL_AT(detail::cat(what, " (queue ", foreign, ", for ", label_, ")"),
              clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr));
  if (dev != device_)
    throw InvalidArgument(detail::cat(what, ": cl_command_queue ", foreign, " is of OpenCL device '",
                                      device_string(dev, CL_DEVICE_NAME), "', not of ", label_,
                                      "; give a queue of the array's device"));
  PORTA_CL_AT(detail::cat(what), clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof *context, context, nullptr));
  return queue;
}

std::shared_ptr<EventImpl> Device::record_foreign(void* foreign) {
  cl_context context = nullptr;
  cl_command_queue queue = foreign_queue(foreign, "waiting for a foreign queue", &context);
  cl_event e = nullptr;
  PORTA_CL_AT(detail::cat("a marker in a foreign queue of ", label_),
              clEnqueueMarkerWithWaitList(queue, 0, nullptr, &e));
  auto event = std::make_shared<Event>(e, context);
  // porta's queue waits on the marker, which completes only once the commands before it are
  // submitted: the foreign queue's owner may not flush it soon.
  PORTA_CL_AT(detail::cat("flushing a foreign queue of ", label_), clFlush(queue));
  return event;
}

void Device::foreign_wait(void* foreign, EventImpl& e) {
  auto* event = dynamic_cast<Event*>(&e);
  if (!event) throw InvalidArgument(detail::cat(label_, ": a foreign queue was asked to wait on an event of another backend"));
  cl_context context = nullptr;
  cl_command_queue queue = foreign_queue(foreign, "ordering a foreign queue after porta's work", &context);
  if (context != event->context()) {
    // A wait list takes only events of the queue's own context.
    event->synchronize();
    return;
  }
  cl_event ev = event->native();
  PORTA_CL_AT(detail::cat("ordering a foreign queue after porta's work on ", label_),
              clEnqueueBarrierWithWaitList(queue, 1, &ev, nullptr));
}

// A cl_mem is retained (its owner may release its reference while porta still uses it) and must
// be of porta's cl_context: kernels and copies take only buffers of their own context. Host
// memory becomes a buffer over it (CL_MEM_USE_HOST_PTR) on CPU devices, whose kernels then read
// and write it in place; its start is aligned down to the device's base alignment, which such
// drivers need to use the memory without a copy (within the same page, so nothing is touched that
// a kernel does not address).
detail::DeviceImpl::Imported Device::import_memory(void* native, MemoryKind kind, std::size_t begin, std::size_t end) {
  if (kind == MemoryKind::device) {
    auto m = static_cast<cl_mem>(native);
    cl_context owner = nullptr;
    std::size_t size = 0;
    PORTA_CL_AT(detail::cat("asking cl_mem ", native, " for its context (is it a cl_mem?)"),
                clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof owner, &owner, nullptr));
    if (owner != context_)
      throw InvalidArgument(detail::cat("cl_mem ", native, " belongs to cl_context ", static_cast<void*>(owner), ", not to ",
                                        label_, "'s context ", static_cast<void*>(context_),
                                        "; create it in porta's context (porta::native_device(d).context)"));
    PORTA_CL(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, nullptr));
    if (end > size)
      throw InvalidArgument(detail::cat("the elements reach byte ", end, " of cl_mem ", native, ", which holds ", size,
                                        " bytes; check the shape, strides and offset"));
    PORTA_CL(clRetainMemObject(m));
    return {m, 0};
  }
  if (!info_.host_memory)
    throw InvalidArgument(detail::cat(label_, " is not a CPU device: it cannot use host memory in place; copy it with "
                                              "porta::from_host, or wrap a cl_mem of its context"));
  auto align = static_cast<std::uintptr_t>(device_value<cl_uint>(device_, CL_DEVICE_MEM_BASE_ADDR_ALIGN) / 8);
  if (align < 1) align = 1;
  auto first = reinterpret_cast<std::uintptr_t>(native) + begin;
  std::uintptr_t lo = first / align * align;
  std::size_t size = reinterpret_cast<std::uintptr_t>(native) + end - lo;
  cl_int status = CL_SUCCESS;
  cl_mem m = clCreateBuffer(context_, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size ? size : 1, reinterpret_cast<void*>(lo),
                            &status);
  if (status != CL_SUCCESS)
    throw_error(status, "clCreateBuffer", detail::cat("a buffer over ", size, " bytes of host memory at ",
                                                       reinterpret_cast<void*>(lo), " on ", label_));
  return {m, static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(native) - lo)};
}

void Device::release_import(Handle h) noexcept {
  if (!h) return;
  note_memory_released();
  log_failure(clReleaseMemObject(static_cast<cl_mem>(h)), "clReleaseMemObject of foreign memory", label_);
}

}  // namespace porta::opencl
