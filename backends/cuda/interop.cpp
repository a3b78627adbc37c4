// Interop with CUDA work porta does not own: the device's native objects, and events between
// porta's streams and foreign ones (a CUstream of the CUDA runtime, CuPy, PyTorch, NCCL).
#include "cuda.hpp"
#include "strings.hpp"

namespace porta::cuda {

detail::NativeObjects Device::native_objects() {
  detail::NativeObjects o;
  o.context = ctx_->handle();
  o.ordinal = static_cast<int>(ctx_->device());
  return o;
}

// The libraries people combine with porta queue on the primary context (the runtime's), as porta
// does. A stream of another context cannot record porta's events (cuEventRecord needs one
// context), so it is refused rather than half supported.
CUstream Device::foreign_stream(void* foreign, const char* what) {
  ctx_->make_current();  // the legacy and per-thread default streams (0, 1, 2) mean the current context's
  auto stream = static_cast<CUstream>(foreign);
  CUcontext owner = nullptr;
  PORTA_CU_AT(label(), cuStreamGetCtx(stream, &owner));
  if (owner != ctx_->handle())
    throw InvalidArgument(detail::cat(what, ": stream ", foreign, " belongs to CUDA context ", static_cast<void*>(owner),
                                      ", not to ", label(), "'s primary context ", static_cast<void*>(ctx_->handle()),
                                      "; give a stream of the primary context (the CUDA runtime's, which CuPy and "
                                      "PyTorch use) of the array's device"));
  return stream;
}

std::shared_ptr<detail::EventImpl> Device::record_foreign(void* foreign) {
  CUstream stream = foreign_stream(foreign, "waiting for a foreign stream");
  CUevent e = events_->acquire(false);
  auto event = std::make_shared<Event>(events_, e, false);
  PORTA_CU_AT(label(), cuEventRecord(e, stream));
  return event;
}

void Device::foreign_wait(void* foreign, detail::EventImpl& e) {
  auto* event = dynamic_cast<Event*>(&e);
  if (!event) throw InvalidArgument(detail::cat(label(), ": a foreign stream was asked to wait on an event of another backend"));
  CUstream stream = foreign_stream(foreign, "ordering a foreign stream after porta's work");
  PORTA_CU_AT(label(), cuStreamWaitEvent(stream, event->native(), CU_EVENT_WAIT_DEFAULT));
}

}  // namespace porta::cuda
