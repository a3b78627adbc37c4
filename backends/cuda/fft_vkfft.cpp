// VkFFT's CUDA backend (header-only, MIT; the same library as OpenCL devices' FFT,
// opencl/fft.cpp), the alternative to cuFFT on CUDA devices: PORTA_CUDA_FFT=vkfft (fft.cpp
// chooses at each new plan). The issue asks for both, measured on the GPU host.
//
// Out of place as on OpenCL (isInputFormatted: `inputBuffer` read, `buffer` written; C2R with
// inverseReturnToInputBuffer overwrites the complex input). VkFFT 1.2.26's CUDA backend takes the
// stream from the application's configuration, not the launch, so each launch sets it with the
// plan's mutex held (VkFFTAppend only enqueues). VkFFT compiles its kernels with NVRTC and
// allocates its tables and temporary buffers with cudaMalloc in the primary context, which the
// plan makes current first.
#define VKFFT_BACKEND 1
#include <vkFFT.h>

#include <mutex>

#include "cuda/cuda.hpp"
#include "host/vkfft_layout.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {
namespace {

using detail::FftDesc;
using detail::FftKind;

using detail::vkfft::describe;

class VkPlan final : public detail::FftPlanImpl {
 public:
  VkPlan(const std::string& label, std::shared_ptr<Context> ctx, CUdevice device, const FftDesc& d, std::uint64_t free)
      : label_(label), ctx_(std::move(ctx)), device_(device), desc_(d) {
    ctx_->make_current();
    VkFFTConfiguration c{};
    detail::vkfft::layout(c, d, buffer_bytes_, input_bytes_);
    c.device = &device_;
    c.stream = &stream_;
    c.num_streams = 1;
    c.bufferSize = &buffer_bytes_;
    c.inputBufferSize = &input_bytes_;
    c.buffer = &buffer_;
    c.inputBuffer = &input_;
    const VkFFTResult r = initializeVkFFT(&app_, c);  // frees what it took when it fails
    if (r != VKFFT_SUCCESS) {
      const std::string what = detail::cat(label_, ": VkFFT could not plan the FFT (", describe(d), "): VkFFTResult ",
                                           static_cast<int>(r));
      if (r == VKFFT_ERROR_MALLOC_FAILED || r == VKFFT_ERROR_FAILED_TO_ALLOCATE) throw OutOfMemory(what, buffer_bytes_, free);
      throw InvalidArgument(what);
    }
    PORTA_LOG(info, label_, ": VkFFT plan ", describe(d));
  }
  ~VkPlan() override {
    if (!ctx_->make_current_noexcept()) return;
    cuCtxSynchronize();  // transforms still queued may use VkFFT's buffers
    deleteVkFFT(&app_);
  }

  void execute(detail::QueueImpl& q, detail::Handle in, detail::Handle out, bool forward) override {
    auto* queue = dynamic_cast<Queue*>(&q);
    if (!queue) throw InvalidArgument(detail::cat(label_, ": an FFT was given a queue of another device"));
    CUstream stream = queue->native();
    ctx_->make_current();
    void* pi = reinterpret_cast<void*>(device_ptr(in));
    void* po = reinterpret_cast<void*>(device_ptr(out));
    VkFFTLaunchParams p{};
    const int direction = detail::vkfft::launch(p, desc_, &pi, &po, forward);
    std::lock_guard lock(mutex_);
    stream_ = reinterpret_cast<cudaStream_t>(stream);
    app_.configuration.stream = &stream_;
    const VkFFTResult r = VkFFTAppend(&app_, direction, &p);
    if (r != VKFFT_SUCCESS)
      throw DeviceError(detail::cat(label_, ": VkFFT failed to run the FFT (", describe(desc_), "): VkFFTResult ",
                                    static_cast<int>(r)));
  }
  bool overwrites_input() const override { return desc_.kind == FftKind::c2r; }

 private:
  std::string label_;
  std::shared_ptr<Context> ctx_;
  CUdevice device_;
  FftDesc desc_;
  cudaStream_t stream_ = nullptr;
  void* buffer_ = nullptr;
  void* input_ = nullptr;
  std::uint64_t buffer_bytes_ = 0, input_bytes_ = 0;
  VkFFTApplication app_{};
  std::mutex mutex_;
};

}  // namespace

std::string vkfft_cuda_name() {
  const int v = VkFFTGetVersion();
  return detail::cat("VkFFT ", v / 10000, ".", (v / 100) % 100, ".", v % 100, " (CUDA)");
}

std::shared_ptr<detail::FftPlanImpl> make_vkfft_plan(const std::string& label, std::shared_ptr<Context> ctx,
                                                     const detail::FftDesc& desc, std::uint64_t free) {
  CUdevice dev = ctx->device();
  return std::make_shared<VkPlan>(label, std::move(ctx), dev, desc, free);
}

}  // namespace porta::cuda
