// FFT on CUDA devices through cuFFT (cufftMakePlanMany64: 1-3 axes, batches, C2C / R2C / C2R in
// float32 and float64). A cuFFT plan owns a work area and is bound to one stream at a time
// (cufftSetStream), so a porta plan keeps one cuFFT plan per stream it has run on: threads with
// their own queues then run the same transform at once without sharing a work area. Work areas
// come from cuMemAlloc (cufftSetAutoAllocation off), so a plan that does not fit is OutOfMemory
// and the core frees its caches and tries again.
//
// PORTA_CUDA_FFT=vkfft takes VkFFT's CUDA backend instead (fft_vkfft.cpp), where porta was built
// with VkFFT's header: the issue asks for both, measured on the GPU host.
#include <cufft.h>

#include <map>
#include <mutex>

#include "cuda/cuda.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {
namespace {

using detail::FftDesc;
using detail::FftKind;

const char* cufft_name(cufftResult r) {
  switch (r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "a cuFFT error";
  }
}

std::string describe(const FftDesc& d) {
  std::string lengths;
  for (std::size_t i = 0; i < d.lengths.size(); ++i) lengths += detail::cat(i ? "x" : "", d.lengths[i]);
  const char* kind = d.kind == FftKind::c2c ? "c2c" : d.kind == FftKind::r2c ? "r2c" : "c2r";
  return detail::cat(kind, " ", name(d.dtype), " lengths ", lengths, " batch ", d.batch);
}

cufftType type_of(const FftDesc& d) {
  const bool dbl = d.dtype == DType::complex128;
  switch (d.kind) {
    case FftKind::c2c: return dbl ? CUFFT_Z2Z : CUFFT_C2C;
    case FftKind::r2c: return dbl ? CUFFT_D2Z : CUFFT_R2C;
    case FftKind::c2r: return dbl ? CUFFT_Z2D : CUFFT_C2R;
  }
  return CUFFT_C2C;
}

class Plan final : public detail::FftPlanImpl {
 public:
  Plan(Device& device, std::shared_ptr<Context> ctx, const FftDesc& d)
      : device_(device), ctx_(std::move(ctx)), desc_(d) {}
  ~Plan() override {
    if (!ctx_->make_current_noexcept()) return;  // the driver is gone: nothing to free
    // Transforms queued on any stream may still use the work areas: wait for them first (plans
    // go rarely: when the cache drops one, or the device's state is released).
    cuCtxSynchronize();
    for (auto& [stream, e] : plans_) {
      cufftDestroy(e.handle);
      if (e.work) cuMemFree(e.work);
    }
  }

  void execute(detail::QueueImpl& q, detail::Handle in, detail::Handle out, bool forward) override {
    auto* queue = dynamic_cast<Queue*>(&q);
    if (!queue) throw InvalidArgument(detail::cat(device_.label(), ": an FFT was given a queue of another device"));
    CUstream stream = queue->native();
    ctx_->make_current();
    std::lock_guard lock(mutex_);  // cufftSetStream and the launch of one cuFFT plan
    cufftHandle h = plan_for(stream);
    void* pi = reinterpret_cast<void*>(device_ptr(in));
    void* po = reinterpret_cast<void*>(device_ptr(out));
    const int dir = forward ? CUFFT_FORWARD : CUFFT_INVERSE;
    cufftResult r = CUFFT_SUCCESS;
    switch (type_of(desc_)) {
      case CUFFT_C2C: r = cufftExecC2C(h, static_cast<cufftComplex*>(pi), static_cast<cufftComplex*>(po), dir); break;
      case CUFFT_Z2Z:
        r = cufftExecZ2Z(h, static_cast<cufftDoubleComplex*>(pi), static_cast<cufftDoubleComplex*>(po), dir);
        break;
      case CUFFT_R2C: r = cufftExecR2C(h, static_cast<cufftReal*>(pi), static_cast<cufftComplex*>(po)); break;
      case CUFFT_D2Z: r = cufftExecD2Z(h, static_cast<cufftDoubleReal*>(pi), static_cast<cufftDoubleComplex*>(po)); break;
      case CUFFT_C2R: r = cufftExecC2R(h, static_cast<cufftComplex*>(pi), static_cast<cufftReal*>(po)); break;
      case CUFFT_Z2D: r = cufftExecZ2D(h, static_cast<cufftDoubleComplex*>(pi), static_cast<cufftDoubleReal*>(po)); break;
      default: break;
    }
    if (r != CUFFT_SUCCESS)
      throw DeviceError(detail::cat(device_.label(), ": cuFFT failed to run the FFT (", describe(desc_), "): ", cufft_name(r)));
  }
  // cuFFT's C2R (multi-dimensional always, 1-D at some lengths) overwrites its input.
  bool overwrites_input() const override { return desc_.kind == FftKind::c2r; }
  std::size_t bytes() const override { return work_bytes_; }

  // Makes the cuFFT plan for the first stream now, so that a size cuFFT cannot plan fails at
  // plan time (and the core's cache keeps no plan that cannot run).
  void make_first(CUstream stream) {
    ctx_->make_current();
    std::lock_guard lock(mutex_);
    plan_for(stream);
  }

 private:
  struct Entry {
    cufftHandle handle = 0;
    CUdeviceptr work = 0;
  };

  // With mutex_ held and the context current.
  cufftHandle plan_for(CUstream stream) {
    if (auto it = plans_.find(stream); it != plans_.end()) {
      check(cufftSetStream(it->second.handle, stream), "cufftSetStream");
      return it->second.handle;
    }
    // The plan make_first() made serves the first stream that runs it.
    if (auto it = plans_.find(nullptr); it != plans_.end() && stream != nullptr) {
      Entry spare = it->second;
      plans_.erase(it);
      plans_.emplace(stream, spare);
      check(cufftSetStream(spare.handle, stream), "cufftSetStream");
      return spare.handle;
    }
    Entry e;
    check(cufftCreate(&e.handle), "cufftCreate");
    auto fail = [&](cufftResult r, const char* call) {
      cufftDestroy(e.handle);
      if (e.work) cuMemFree(e.work);
      if (r == CUFFT_ALLOC_FAILED)
        throw OutOfMemory(detail::cat(device_.label(), ": cuFFT could not plan the FFT (", describe(desc_), "): ", call,
                                      " answered CUFFT_ALLOC_FAILED"),
                          work_bytes_, device_.free_memory());
      throw InvalidArgument(detail::cat(device_.label(), ": cuFFT could not plan the FFT (", describe(desc_), "): ", call,
                                        " answered ", cufft_name(r)));
    };
    cufftResult r = cufftSetAutoAllocation(e.handle, 0);
    if (r != CUFFT_SUCCESS) fail(r, "cufftSetAutoAllocation");
    std::vector<long long> n(desc_.lengths.begin(), desc_.lengths.end());
    std::size_t work = 0;
    r = cufftMakePlanMany64(e.handle, static_cast<int>(n.size()), n.data(), nullptr, 1, 0, nullptr, 1, 0, type_of(desc_),
                            desc_.batch, &work);
    if (r != CUFFT_SUCCESS) fail(r, "cufftMakePlanMany64");
    if (work > 0) {
      const CUresult a = cuMemAlloc(&e.work, work);
      if (a == CUDA_ERROR_OUT_OF_MEMORY) {
        e.work = 0;
        cufftDestroy(e.handle);
        throw OutOfMemory(detail::cat(device_.label(), ": the work area of a cuFFT plan (", describe(desc_), ") needs ",
                                      detail::format_bytes(work)),
                          work, device_.free_memory());
      }
      if (a != CUDA_SUCCESS) {
        e.work = 0;
        cufftDestroy(e.handle);
        throw_error(a, "cuMemAlloc", device_.label());
      }
      r = cufftSetWorkArea(e.handle, reinterpret_cast<void*>(e.work));
      if (r != CUFFT_SUCCESS) fail(r, "cufftSetWorkArea");
    }
    r = cufftSetStream(e.handle, stream);
    if (r != CUFFT_SUCCESS) fail(r, "cufftSetStream");
    work_bytes_ += work;
    plans_.emplace(stream, e);
    return e.handle;
  }

  void check(cufftResult r, const char* call) {
    if (r != CUFFT_SUCCESS)
      throw DeviceError(detail::cat(device_.label(), ": ", call, " failed for the FFT (", describe(desc_), "): ", cufft_name(r)));
  }

  Device& device_;
  std::shared_ptr<Context> ctx_;
  FftDesc desc_;
  std::mutex mutex_;
  std::map<CUstream, Entry> plans_;
  std::size_t work_bytes_ = 0;
};

}  // namespace

std::string cufft_library_name() {
  int v = 0;
  if (cufftGetVersion(&v) != CUFFT_SUCCESS) return "cuFFT";
  return detail::cat("cuFFT ", v / 1000, ".", (v / 100) % 10, ".", v % 100);
}

std::shared_ptr<detail::FftPlanImpl> Device::make_fft_plan(const FftDesc& desc) {
  if (desc.lengths.empty() || desc.lengths.size() > 3)
    throw InvalidArgument(detail::cat(label(), ": cuFFT plans 1 to 3 axes, not ", desc.lengths.size()));
  if (desc.dtype != DType::complex64 && desc.dtype != DType::complex128)
    throw DTypeError(detail::cat("fft on ", label(), " of ", name(desc.dtype), ": the transforms are complex64 or complex128"));
#ifdef PORTA_HAVE_VKFFT
  if (info().caps.fft.starts_with("VkFFT"))
    return make_vkfft_plan(label(), ctx_, desc, free_memory(), detail::cat(info().name, "\n", compiler_id()));
#endif
  auto plan = std::make_shared<Plan>(*this, ctx_, desc);
  plan->make_first(nullptr);  // checks the size now; the first stream to run the plan takes it
  return plan;
}

}  // namespace porta::cuda
