// Interop with CUDA work porta does not own: the device's native objects, and events between
// porta's streams and foreign ones (a CUstream of the CUDA runtime, CuPy, PyTorch, NCCL).
#include "cuda/cuda.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {

detail::NativeObjects Device::native_objects() {
  detail::NativeObjects o;
  o.context = ctx_->native();
  o.ordinal = static_cast<int>(ctx_->device());
  return o;
}

// The libraries people combine with porta queue on the primary context (the runtime's), as porta
// does. A stream of another context cannot record porta's events (cuEventRecord needs one
// context), so it is refused rather than half supported.
CUstream Device::foreign_stream(void* foreign, const char* what) {
  ctx_->make_current();
  auto stream = static_cast<CUstream>(foreign);
  // The legacy and per-thread default streams (0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD) are the
  // current context's, which is the primary context now.
  if (stream == nullptr || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD) return stream;
  CUcontext owner = nullptr;
  PORTA_CU_AT(label(), cuStreamGetCtx(stream, &owner));
  if (owner != ctx_->native())
    throw InvalidArgument(detail::cat(what, ": stream ", foreign, " belongs to CUDA context ", static_cast<void*>(owner),
                                      ", not to ", label(), "'s primary context ", static_cast<void*>(ctx_->native()),
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

// A pointer is checked with the driver: memory of this device (device or managed memory), or
// page-locked host memory (its device address), and the bytes porta will touch inside one
// allocation. Unknown addresses are refused: a kernel reading them would fault the context.
detail::DeviceImpl::Imported Device::import_memory(void* native, MemoryKind kind, std::size_t begin, std::size_t end) {
  ctx_->make_current();
  CUdeviceptr p = device_ptr(native);
  if (kind == MemoryKind::host) {
    CUdeviceptr mapped = 0;
    CUresult r = cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p);
    if (r != CUDA_SUCCESS)
      throw InvalidArgument(detail::cat("host memory at ", native, " is not page-locked memory that ", label(),
                                        " can reach (", describe(r),
                                        "); allocate it with cudaMallocHost or register it with cuMemHostRegister"));
    p = mapped;
  }
  if (end > begin) {
    CUdeviceptr first = p + begin;
    unsigned int type = 0;
    int ordinal = -1, managed = 0;
    CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                   CU_POINTER_ATTRIBUTE_IS_MANAGED};
    void* values[] = {&type, &ordinal, &managed};
    CUresult r = cuPointerGetAttributes(3, attrs, values, first);
    if (r != CUDA_SUCCESS || type == 0)
      throw InvalidArgument(detail::cat("address ", reinterpret_cast<void*>(first), " is not memory the CUDA driver knows (",
                                        r != CUDA_SUCCESS ? describe(r) : std::string("no allocation there"),
                                        "); give memory of ", label(), " from cuMemAlloc, cudaMalloc or a library on them"));
    if (kind == MemoryKind::device && !managed && (type != CU_MEMORYTYPE_DEVICE || ordinal != static_cast<int>(ctx_->device())))
      throw InvalidArgument(detail::cat("address ", reinterpret_cast<void*>(first), " is ",
                                        type == CU_MEMORYTYPE_DEVICE ? detail::cat("memory of CUDA device ", ordinal)
                                                                     : std::string("host memory"),
                                        ", not of ", label(), "; wrap it on the device that holds it"));
    CUdeviceptr base = 0;
    std::size_t size = 0;
    if (cuMemGetAddressRange(&base, &size, first) == CUDA_SUCCESS && p + end > base + size)
      throw InvalidArgument(detail::cat("the elements reach ", (p + end) - (base + size), " bytes past the end of the ",
                                        size, "-byte allocation at ", reinterpret_cast<void*>(base), " on ", label(),
                                        "; check the shape, strides and offset"));
  }
  return detail::aligned_import(to_handle(p));
}

}  // namespace porta::cuda
