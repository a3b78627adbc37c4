// Queues and events: an in-order cl_command_queue with profiling per (host thread, device),
// markers as events, and waits between queues through barriers on those markers.
#include "porta_backend/log.hpp"
#include "porta_backend/services.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {
namespace {

Event& event_of(EventImpl& e, const char* use = "an OpenCL queue was asked to wait on an event of another backend") {
  auto* ce = dynamic_cast<Event*>(&e);
  if (!ce) throw InvalidArgument(use);
  return *ce;
}

cl_ulong profiling_end(cl_event e) {
  cl_ulong t = 0;
  PORTA_CL_AT(detail::cat("timing an event (was it recorded with timing = true on a profiling queue?)"),
              clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t, &t, nullptr));
  return t;
}

}  // namespace

Event::~Event() {
  log_failure(clReleaseEvent(event_), "clReleaseEvent");
}

bool Event::done() {
  cl_int status = 0;
  PORTA_CL(clGetEventInfo(event_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
  if (status < 0)
    throw DeviceError(detail::cat("an OpenCL command before this event failed: ", describe(status)));
  return status == CL_COMPLETE;
}

void Event::synchronize() { PORTA_CL(clWaitForEvents(1, &event_)); }

double Event::elapsed_ms_since(EventImpl& start) {
  auto& s = event_of(start, "elapsed_ms_since: the start event is not an OpenCL event");
  // Profiling information exists only once both markers have completed.
  s.synchronize();
  synchronize();
  auto t0 = profiling_end(s.event_);
  auto t1 = profiling_end(event_);
  return (static_cast<double>(t1) - static_cast<double>(t0)) * 1e-6;
}

Queue::Queue(Device& device) : device_(device) {
  cl_int status = CL_SUCCESS;
  queue_ = clCreateCommandQueue(device.native_context(), device.native(), CL_QUEUE_PROFILING_ENABLE, &status);
  if (status != CL_SUCCESS) throw_error(status, "clCreateCommandQueue", detail::cat("creating a queue on ", device.label()));
}

Queue::~Queue() {
  launcher_.stop();  // makes the launches still recorded, then stops the thread
  log_failure(clFinish(queue_), "clFinish of a queue being destroyed", device_.label());
  log_failure(clReleaseCommandQueue(queue_), "clReleaseCommandQueue", device_.label());
  device_.deallocate(scratch_, scratch_bytes_, nullptr);
}

Handle Queue::scratch(std::size_t bytes) {
  std::lock_guard lock(scratch_m_);
  if (scratch_ && scratch_bytes_ >= bytes) return scratch_;
  Handle grown = device_.allocate(bytes, *this);  // throws OutOfMemory, the old buffer kept
  device_.deallocate(scratch_, scratch_bytes_, this);  // OpenCL keeps it until its commands are done
  scratch_ = grown;
  scratch_bytes_ = bytes;
  return scratch_;
}

std::shared_ptr<EventImpl> Queue::record(bool) {
  // Every queue profiles, so every marker can be timed.
  cl_event e = nullptr;
  cl_command_queue queue = native();
  PORTA_CL(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &e));
  auto event = std::make_shared<Event>(e, device_.native_context());
  // Another queue may wait on this marker, and the host may poll it: neither sees it complete
  // unless the commands before it have been submitted to the device.
  PORTA_CL(clFlush(queue));
  return event;
}

void Queue::wait(EventImpl& e) {
  auto& ce = event_of(e);
  if (ce.context() != device_.native_context()) {
    // An event of another device (another cl_context) cannot be in a wait list: wait on the host.
    ce.synchronize();
    return;
  }
  cl_event ev = ce.native();
  PORTA_CL(clEnqueueBarrierWithWaitList(native(), 1, &ev, nullptr));
}

void Queue::begin_capture() {
  recorder_.begin(device_.label());
  commands_.clear();
  opaque_ = false;
}

std::unique_ptr<detail::GraphImpl> Queue::end_capture(std::span<const detail::MemoryRange> rebindable) {
  auto replay = recorder_.end(rebindable);
  std::vector<RecordedCommand> commands = std::move(commands_);
  commands_.clear();
  if (opaque_ || commands.empty()) return replay;
  return command_buffer_graph(*this, std::move(commands), rebindable, std::move(replay));
}

void Queue::abort_capture() noexcept {
  recorder_.abort();
  commands_.clear();
  opaque_ = false;
}

void Queue::synchronize() {
  recorder_.refuse(device_.label(), "waiting for the queue (synchronize)");
  device_.check_usable();
  if (cl_int s = clFinish(native()); s != CL_SUCCESS) {
    const std::string what = detail::cat("waiting for the work queued on ", device_.label());
    device_.note_failure(s, what);
    device_.check_usable();
    throw_error(s, "clFinish", what);
  }
}

void Queue::make_launch(LaunchItem& item) {
  Kernel& kernel = *item.kernel;
  auto lease = kernel.take();
  cl_kernel ck = lease.native();
  for (cl_uint i = 0; i < item.count; ++i)
    PORTA_CL_AT(detail::cat("setting argument ", i, " of kernel '", kernel.entry(), "' on ", device_.label()),
                lease.set(i, item.sizes[i], item.local_memory[i] ? nullptr : &item.values[i], item.memory[i]));
  const std::size_t* local = item.any_local ? item.local.data() : nullptr;
  cl_int status = clEnqueueNDRangeKernel(queue_, ck, item.work_dim, nullptr, item.global.data(), local, 0, nullptr, nullptr);
  if (status == CL_MEM_OBJECT_ALLOCATION_FAILURE) {
    // NVIDIA's OpenCL allocates a buffer's memory at its first launch, which then fails when the
    // GPU is full; nothing was queued, so free what porta caches of the GPU through other APIs
    // (CUDA's pool) and launch once more. Not this device's own cache: freeing it drains this
    // queue's launch ring, whose lock this launch holds (services.hpp).
    detail::release_memory_of_physical_gpu(device_, false);
    status = clEnqueueNDRangeKernel(queue_, ck, item.work_dim, nullptr, item.global.data(), local, 0, nullptr, nullptr);
  }
  if (status != CL_SUCCESS)
    throw_error(status, "clEnqueueNDRangeKernel",
                detail::cat("launching '", kernel.entry(), "' on ", device_.label(), " over ", item.global[0], "x",
                            item.global[1], "x", item.global[2],
                            " (made on the queue's launch thread, so reported at the next call on this thread; "
                            "PORTA_LAUNCH=sync reports it at the launch)"));
}

}  // namespace porta::opencl
