// Queues and events: an in-order cl_command_queue with profiling per (host thread, device),
// markers as events, and waits between queues through barriers on those markers.
#include "porta_backend/log.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {
namespace {

OpenCLEvent& event_of(EventImpl& e, const char* use = "an OpenCL queue was asked to wait on an event of another backend") {
  auto* ce = dynamic_cast<OpenCLEvent*>(&e);
  if (!ce) throw InvalidArgument(use);
  return *ce;
}

cl_ulong profiling_end(cl_event e) {
  cl_ulong t = 0;
  PORTA_CL_CHECK_CTX(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr),
                     "timing an event (was it recorded with timing = true on a profiling queue?)");
  return t;
}

}  // namespace

OpenCLEvent::~OpenCLEvent() {
  if (cl_int s = clReleaseEvent(event_); s != CL_SUCCESS)
    PORTA_LOG(error, "clReleaseEvent failed: ", describe_status(s));
}

bool OpenCLEvent::done() {
  cl_int status = 0;
  PORTA_CL_CHECK(clGetEventInfo(event_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  if (status < 0)
    throw DeviceError(detail::cat("an OpenCL command before this event failed: ", describe_status(status)));
  return status == CL_COMPLETE;
}

void OpenCLEvent::synchronize() { PORTA_CL_CHECK(clWaitForEvents(1, &event_)); }

double OpenCLEvent::elapsed_ms_since(EventImpl& start) {
  auto& s = event_of(start, "elapsed_ms_since: the start event is not an OpenCL event");
  // Profiling information exists only once both markers have completed.
  s.synchronize();
  synchronize();
  auto t0 = profiling_end(s.event_);
  auto t1 = profiling_end(event_);
  return (static_cast<double>(t1) - static_cast<double>(t0)) * 1e-6;
}

OpenCLQueue::OpenCLQueue(OpenCLDevice& device) : device_(device) {
  cl_int status = CL_SUCCESS;
  queue_ = clCreateCommandQueue(device.context_handle(), device.id(), CL_QUEUE_PROFILING_ENABLE, &status);
  if (status != CL_SUCCESS) throw_status(status, "clCreateCommandQueue", detail::cat("creating a queue on ", device.label()));
}

OpenCLQueue::~OpenCLQueue() {
  launcher_.stop();  // makes the launches still recorded, then stops the thread
  if (cl_int s = clFinish(queue_); s != CL_SUCCESS)
    PORTA_LOG(error, "clFinish of a queue of ", device_.label(), " failed while destroying it: ", describe_status(s));
  if (cl_int s = clReleaseCommandQueue(queue_); s != CL_SUCCESS)
    PORTA_LOG(error, "clReleaseCommandQueue on ", device_.label(), " failed: ", describe_status(s));
}

std::shared_ptr<EventImpl> OpenCLQueue::record(bool) {
  // Every queue profiles, so every marker can be timed.
  cl_event e = nullptr;
  cl_command_queue queue = get();
  PORTA_CL_CHECK(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &e));
  auto event = std::make_shared<OpenCLEvent>(e, device_.context_handle());
  // Another queue may wait on this marker, and the host may poll it: neither sees it complete
  // unless the commands before it have been submitted to the device.
  PORTA_CL_CHECK(clFlush(queue));
  return event;
}

void OpenCLQueue::wait(EventImpl& e) {
  auto& ce = event_of(e);
  if (ce.context() != device_.context_handle()) {
    // An event of another device (another cl_context) cannot be in a wait list: wait on the host.
    ce.synchronize();
    return;
  }
  cl_event ev = ce.get();
  PORTA_CL_CHECK(clEnqueueBarrierWithWaitList(get(), 1, &ev, nullptr));
}

void OpenCLQueue::synchronize() {
  device_.check_usable();
  if (cl_int s = clFinish(get()); s != CL_SUCCESS) {
    const std::string what = detail::cat("waiting for the work queued on ", device_.label());
    device_.note_failure(s, what);
    device_.check_usable();
    throw_status(s, "clFinish", what);
  }
}

void OpenCLQueue::make_launch(LaunchItem& item) {
  OpenCLKernel& kernel = *item.kernel;
  auto lease = kernel.take();
  cl_kernel ck = lease.get();
  for (cl_uint i = 0; i < item.count; ++i)
    PORTA_CL_CHECK_CTX(lease.set(i, item.sizes[i], item.local_memory[i] ? nullptr : &item.values[i], item.memory[i]),
                       "setting argument ", i, " of kernel '", kernel.entry(), "' on ", device_.label());
  PORTA_CL_CHECK_CTX(clEnqueueNDRangeKernel(queue_, ck, item.work_dim, nullptr, item.global.data(),
                                            item.any_local ? item.local.data() : nullptr, 0, nullptr, nullptr),
                     "launching '", kernel.entry(), "' on ", device_.label(), " over ", item.global[0], "x",
                     item.global[1], "x", item.global[2],
                     " (made on the queue's launch thread, so reported at the next call on this thread; "
                     "PORTA_LAUNCH=sync reports it at the launch)");
}

}  // namespace porta::opencl
