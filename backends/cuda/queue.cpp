// Streams and events: a non-blocking CUstream per (host thread, device) with its cuBLAS handle,
// and the events that order work between streams and with the host.
#include "cuda/cuda.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {

EventPool::~EventPool() {
  if (!ctx_->make_current_noexcept()) return;
  for (auto& list : free_)
    for (CUevent e : list) log_failure(cuEventDestroy(e), "cuEventDestroy", ctx_->label());
}

CUevent EventPool::acquire(bool timing) {
  {
    std::lock_guard lock(m_);
    auto& list = free_[timing ? 1 : 0];
    if (!list.empty()) {
      CUevent e = list.back();
      list.pop_back();
      return e;
    }
  }
  ctx_->make_current();
  CUevent e = nullptr;
  PORTA_CU_AT(ctx_->label(), cuEventCreate(&e, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING));
  return e;
}

void EventPool::release(CUevent e, bool timing) noexcept {
  {
    std::lock_guard lock(m_);
    auto& list = free_[timing ? 1 : 0];
    if (list.size() < kKeep) {
      list.push_back(e);  // re-recording it later is fine: waits already queued keep their point
      return;
    }
  }
  if (ctx_->make_current_noexcept()) log_failure(cuEventDestroy(e), "cuEventDestroy", ctx_->label());
}

Event::~Event() { pool_->release(event_, timing_); }

bool Event::done() {
  CUresult r = cuEventQuery(event_);
  if (r == CUDA_SUCCESS) return true;
  if (r == CUDA_ERROR_NOT_READY) return false;
  throw_error(r, "cuEventQuery", pool_->context().label());
}

void Event::synchronize() {
  pool_->context().make_current();
  PORTA_CU_AT(pool_->context().label(), cuEventSynchronize(event_));
}

double Event::elapsed_ms_since(detail::EventImpl& start) {
  auto* begin = dynamic_cast<Event*>(&start);
  if (!begin) throw InvalidArgument("elapsed_ms_since: the start event is not a CUDA event");
  if (!timing_ || !begin->timing_)
    throw InvalidArgument("elapsed_ms_since: both events must be recorded with timing = true");
  // cuEventElapsedTime answers CUDA_ERROR_NOT_READY until both events completed: wait for them,
  // as OpenCL's profiling query does.
  begin->synchronize();
  synchronize();
  float ms = 0;
  PORTA_CU_AT(pool_->context().label(), cuEventElapsedTime(&ms, begin->event_, event_));
  return ms;
}

Queue::Queue(std::shared_ptr<Context> ctx, std::shared_ptr<EventPool> events)
    : ctx_(std::move(ctx)), events_(std::move(events)) {
  ctx_->make_current();
  // Non-blocking: no implicit ordering with the legacy default stream that other libraries use.
  PORTA_CU_AT(ctx_->label(), cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING));
}

Queue::~Queue() {
  launcher_.stop();  // makes the launches still recorded, then stops the thread
  if (!ctx_->make_current_noexcept()) return;  // the driver is gone (process exit)
  log_failure(cuStreamSynchronize(stream_), "cuStreamSynchronize", ctx_->label());
  if (blas_) log_failure(cublasDestroy(blas_), "cublasDestroy", ctx_->label());
  if (solver_) log_failure(cusolverDnDestroy(solver_), "cusolverDnDestroy", ctx_->label());
  if (blas_workspace_) log_failure(cuMemFree(blas_workspace_), "cuMemFree", ctx_->label());
  log_failure(cuStreamDestroy(stream_), "cuStreamDestroy", ctx_->label());
}

std::shared_ptr<detail::EventImpl> Queue::record(bool timing) {
  ctx_->make_current();  // record may come from a thread other than the queue's owner
  CUevent e = events_->acquire(timing);
  auto event = std::make_shared<Event>(events_, e, timing);  // returns e to the pool if recording fails
  PORTA_CU_AT(ctx_->label(), cuEventRecord(e, native()));
  return event;
}

void Queue::wait(detail::EventImpl& e) {
  auto* event = dynamic_cast<Event*>(&e);
  if (!event) throw InvalidArgument(detail::cat(ctx_->label(), ": wait() was given an event of another backend"));
  ctx_->make_current();
  PORTA_CU_AT(ctx_->label(), cuStreamWaitEvent(native(), event->native(), CU_EVENT_WAIT_DEFAULT));
}

void Queue::synchronize() {
  if (capturing()) throw InvalidArgument(detail::refusal(ctx_->label(), "waiting for the queue (synchronize)"));
  ctx_->make_current();
  PORTA_CU_AT(ctx_->label(), cuStreamSynchronize(native()));
}

cublasHandle_t Queue::blas() {
  // Called with blas_m_ held, before each use: cuBLAS queues on the stream directly.
  native();
  if (blas_) return blas_;
  ctx_->make_current();  // cuBLAS binds the handle to the current (primary) context's device
  cublasHandle_t handle = nullptr;
  PORTA_CUBLAS_AT(ctx_->label(), cublasCreate(&handle));
  cublasStatus_t r = cublasSetStream(handle, stream_);
  if (r != CUBLAS_STATUS_SUCCESS) {
    cublasDestroy(handle);
    throw_error(r, "cublasSetStream", ctx_->label());
  }
  // A workspace of our own, as PyTorch gives each handle (32 MiB on Hopper): with it cuBLAS may
  // pick its split-k and stream-k kernels for every product, and never allocates during a call.
  constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;
  CUdeviceptr workspace = 0;
  if (cuMemAlloc(&workspace, kWorkspaceBytes) == CUDA_SUCCESS) {
    r = cublasSetWorkspace(handle, reinterpret_cast<void*>(workspace), kWorkspaceBytes);
    if (r != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(handle);
      cuMemFree(workspace);
      throw_error(r, "cublasSetWorkspace", ctx_->label());
    }
    blas_workspace_ = workspace;
  }  // else: out of memory now; cuBLAS falls back to its own default workspace
  blas_ = handle;
  return blas_;
}

cusolverDnHandle_t Queue::solver() {
  // Called with blas_m_ held, as blas(): cuSOLVER queues on the stream directly.
  native();
  if (solver_) return solver_;
  ctx_->make_current();
  cusolverDnHandle_t handle = nullptr;
  PORTA_CUSOLVER_AT(ctx_->label(), cusolverDnCreate(&handle));
  cusolverStatus_t r = cusolverDnSetStream(handle, stream_);
  if (r != CUSOLVER_STATUS_SUCCESS) {
    cusolverDnDestroy(handle);
    throw_error(r, "cusolverDnSetStream", ctx_->label());
  }
  solver_ = handle;
  return solver_;
}

void Queue::make_launch(LaunchItem& item) {
  ctx_->make_current();  // cheap on the launch thread; a thread that drains may have none current
  std::array<void*, LaunchItem::kMaxParams> params;
  for (unsigned i = 0; i < item.count; ++i) params[i] = &item.params[i];
  CUresult r = launch_kernel(*item.kernel, item.grid, item.block, item.shared, stream_, item.count ? params.data() : nullptr);
  if (r != CUDA_SUCCESS)
    throw_error(r, detail::cat("cuLaunchKernel of '", item.kernel->entry(), "' with grid (", item.grid[0], ", ",
                               item.grid[1], ", ", item.grid[2], "), block (", item.block[0], ", ", item.block[1], ", ",
                               item.block[2], "), ", item.shared,
                               " bytes of shared memory (made on the queue's launch thread, so reported at the "
                               "next call on this thread; PORTA_LAUNCH=sync reports it at the launch),"),
                ctx_->label());
}

}  // namespace porta::cuda
