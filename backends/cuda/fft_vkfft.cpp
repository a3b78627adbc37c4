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
//
// The PTX NVRTC makes goes into porta's disk cache, as OpenCL's programs do (opencl/fft.cpp):
// VkFFT's NVRTC calls are routed to the functions below (the macros before vkFFT.h), which take a
// program whose source (and device, NVRTC, driver, VkFFT version) is in the cache from there and
// compile the others, storing their PTX. cuModuleLoadDataEx still turns PTX into the GPU's code,
// which the driver caches itself (its compute cache).
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include <nvrtc.h>

namespace porta::cuda::vkfft_programs {
nvrtcResult create(nvrtcProgram* prog, const char* src, const char* name, int headers, const char* const* sources,
                   const char* const* includes);
nvrtcResult compile(nvrtcProgram prog, int count, const char* const* options);
nvrtcResult ptx_size(nvrtcProgram prog, size_t* size);
nvrtcResult ptx(nvrtcProgram prog, char* out);
nvrtcResult destroy(nvrtcProgram* prog);
}  // namespace porta::cuda::vkfft_programs

#define nvrtcCreateProgram porta::cuda::vkfft_programs::create
#define nvrtcCompileProgram porta::cuda::vkfft_programs::compile
#define nvrtcGetPTXSize porta::cuda::vkfft_programs::ptx_size
#define nvrtcGetPTX porta::cuda::vkfft_programs::ptx
#define nvrtcDestroyProgram porta::cuda::vkfft_programs::destroy
#define VKFFT_BACKEND 1
#include <vkFFT.h>
#undef nvrtcCreateProgram
#undef nvrtcCompileProgram
#undef nvrtcGetPTXSize
#undef nvrtcGetPTX
#undef nvrtcDestroyProgram

#include "cuda/cuda.hpp"
#include "host/vkfft_layout.hpp"
#include "porta_backend/disk_cache.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {

std::string vkfft_cuda_name() {
  const int v = VkFFTGetVersion();
  return detail::cat("VkFFT ", v / 10000, ".", (v / 100) % 100, ".", v % 100, " (CUDA)");
}

namespace vkfft_programs {
namespace {

// The plan being made on this thread (set around initializeVkFFT) and its programs: the disk
// cache's key of each and, where the cache had it or NVRTC made it, its PTX.
struct Making {
  std::string device_id;  // the device's name and compiler (Device::compiler_id)
  struct Program {
    std::string key;   // empty: not for the disk cache
    std::string ptx;   // with its terminating NUL, as nvrtcGetPTX writes it
    bool loaded = false;
  };
  std::map<nvrtcProgram, Program> programs;
  int loaded = 0, compiled = 0;
};
thread_local Making* making = nullptr;

Making::Program* find(nvrtcProgram p) {
  if (!making) return nullptr;
  auto it = making->programs.find(p);
  return it == making->programs.end() ? nullptr : &it->second;
}

}  // namespace

nvrtcResult create(nvrtcProgram* prog, const char* src, const char* name, int headers, const char* const* sources,
                   const char* const* includes) {
  const nvrtcResult r = ::nvrtcCreateProgram(prog, src, name, headers, sources, includes);
  if (r != NVRTC_SUCCESS || !making || headers != 0) return r;
  Making::Program e;
  const detail::DiskCache& disk = detail::DiskCache::get();
  if (disk.enabled()) {
    // The whole source is in the key, as in the kernel cache: a hit can only be this program.
    e.key = detail::cat("porta-vkfft-cuda-v1\n", vkfft_cuda_name(), "\n", making->device_id, "\n", src);
    if (auto bin = disk.load(e.key); bin && !bin->empty() && bin->back() == 0) {
      e.ptx.assign(bin->begin(), bin->end());
      e.loaded = true;
    }
  }
  making->programs[*prog] = std::move(e);
  return r;
}

nvrtcResult compile(nvrtcProgram prog, int count, const char* const* options) {
  Making::Program* e = find(prog);
  if (e && e->loaded) {
    ++making->loaded;
    return NVRTC_SUCCESS;
  }
  const nvrtcResult r = ::nvrtcCompileProgram(prog, count, options);
  if (!e || r != NVRTC_SUCCESS) return r;
  ++making->compiled;
  size_t size = 0;
  if (e->key.empty() || ::nvrtcGetPTXSize(prog, &size) != NVRTC_SUCCESS || size == 0) return r;
  e->ptx.assign(size, '\0');
  if (::nvrtcGetPTX(prog, e->ptx.data()) != NVRTC_SUCCESS) {
    e->ptx.clear();
    return r;
  }
  detail::DiskCache::get().store(e->key, std::span(reinterpret_cast<const std::uint8_t*>(e->ptx.data()), e->ptx.size()));
  return r;
}

nvrtcResult ptx_size(nvrtcProgram prog, size_t* size) {
  const Making::Program* e = find(prog);
  if (!e || e->ptx.empty()) return ::nvrtcGetPTXSize(prog, size);
  *size = e->ptx.size();
  return NVRTC_SUCCESS;
}

nvrtcResult ptx(nvrtcProgram prog, char* out) {
  const Making::Program* e = find(prog);
  if (!e || e->ptx.empty()) return ::nvrtcGetPTX(prog, out);
  std::memcpy(out, e->ptx.data(), e->ptx.size());
  return NVRTC_SUCCESS;
}

nvrtcResult destroy(nvrtcProgram* prog) {
  if (making && prog) making->programs.erase(*prog);
  return ::nvrtcDestroyProgram(prog);
}

}  // namespace vkfft_programs

namespace {

using detail::FftDesc;
using detail::FftKind;

using detail::vkfft::describe;

class VkPlan final : public detail::FftPlanImpl {
 public:
  VkPlan(const std::string& label, std::shared_ptr<Context> ctx, CUdevice device, const FftDesc& d, std::uint64_t free,
         const std::string& device_id)
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
    vkfft_programs::Making making{device_id};
    vkfft_programs::making = &making;
    const VkFFTResult r = initializeVkFFT(&app_, c);  // frees what it took when it fails
    vkfft_programs::making = nullptr;
    if (r != VKFFT_SUCCESS) {
      const std::string what = detail::cat(label_, ": VkFFT could not plan the FFT (", describe(d), "): VkFFTResult ",
                                           static_cast<int>(r));
      if (r == VKFFT_ERROR_MALLOC_FAILED || r == VKFFT_ERROR_FAILED_TO_ALLOCATE) throw OutOfMemory(what, buffer_bytes_, free);
      throw InvalidArgument(what);
    }
    PORTA_LOG(info, label_, ": VkFFT plan ", describe(d), ": ", making.compiled, " programs compiled, ", making.loaded,
              " loaded from the disk cache");
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

std::shared_ptr<detail::FftPlanImpl> make_vkfft_plan(const std::string& label, std::shared_ptr<Context> ctx,
                                                     const detail::FftDesc& desc, std::uint64_t free,
                                                     const std::string& device_id) {
  CUdevice dev = ctx->device();
  return std::make_shared<VkPlan>(label, std::move(ctx), dev, desc, free, device_id);
}

}  // namespace porta::cuda
