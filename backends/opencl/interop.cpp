// Interop with OpenCL work porta does not own: the device's native objects, host addresses of
// buffers over host memory, and markers between porta's queues and foreign ones (any cl_context
// of the same device: within one context a barrier on the marker, across contexts a host wait).
#include "opencl/opencl.hpp"

namespace porta::opencl {

detail::NativeObjects OpenCLDevice::native_objects() {
  detail::NativeObjects o;
  o.context = context_;
  o.device = device_;
  o.platform = platform_;
  o.ordinal = index();
  return o;
}

void* OpenCLDevice::host_address(Handle h) {
  void* host = nullptr;
  PORTA_CL_CHECK_CTX(clGetMemObjectInfo(static_cast<cl_mem>(h), CL_MEM_HOST_PTR, sizeof host, &host, nullptr),
                     "asking a buffer of ", label_, " for its host memory");
  return host;
}

cl_command_queue OpenCLDevice::foreign_queue(void* foreign, const char* what, cl_context* context) const {
  auto queue = static_cast<cl_command_queue>(foreign);
  if (!queue) throw InvalidArgument(detail::cat(what, ": the cl_command_queue is null; give a queue of ", label_));
  cl_device_id dev = nullptr;
  PORTA_CL_CHECK_CTX(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof dev, &dev, nullptr), what, " (queue ", foreign,
                     ", for ", label_, ")");
  if (dev != device_)
    throw InvalidArgument(detail::cat(what, ": cl_command_queue ", foreign, " is of OpenCL device '",
                                      device_string(dev, CL_DEVICE_NAME), "', not of ", label_,
                                      "; give a queue of the array's device"));
  PORTA_CL_CHECK_CTX(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof *context, context, nullptr), what);
  return queue;
}

std::shared_ptr<EventImpl> OpenCLDevice::record_foreign(void* foreign) {
  cl_context context = nullptr;
  cl_command_queue queue = foreign_queue(foreign, "waiting for a foreign queue", &context);
  cl_event e = nullptr;
  PORTA_CL_CHECK_CTX(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &e), "a marker in a foreign queue of ", label_);
  auto event = std::make_shared<OpenCLEvent>(e, context);
  // porta's queue waits on the marker, which completes only once the commands before it are
  // submitted: the foreign queue's owner may not flush it soon.
  PORTA_CL_CHECK_CTX(clFlush(queue), "flushing a foreign queue of ", label_);
  return event;
}

void OpenCLDevice::foreign_wait(void* foreign, EventImpl& e) {
  auto* event = dynamic_cast<OpenCLEvent*>(&e);
  if (!event) throw InvalidArgument(detail::cat(label_, ": a foreign queue was asked to wait on an event of another backend"));
  cl_context context = nullptr;
  cl_command_queue queue = foreign_queue(foreign, "ordering a foreign queue after porta's work", &context);
  if (context != event->context()) {
    // A wait list takes only events of the queue's own context.
    event->synchronize();
    return;
  }
  cl_event ev = event->get();
  PORTA_CL_CHECK_CTX(clEnqueueBarrierWithWaitList(queue, 1, &ev, nullptr), "ordering a foreign queue after porta's work on ",
                     label_);
}

}  // namespace porta::opencl
