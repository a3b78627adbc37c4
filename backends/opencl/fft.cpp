// FFT on OpenCL devices through VkFFT's OpenCL backend (Debian's libvkfft-dev, header-only, MIT):
// one source for NVIDIA's OpenCL, PoCL and any other OpenCL 1.2 device; radix 2-13 and
// Bluestein for other lengths; C2C, R2C and C2R in float32 and float64, 1-3 axes a plan.
//
// Out of place as pyvkfft does it: `inputBuffer` is read and `buffer` written (isInputFormatted),
// for C2R (inverseReturnToInputBuffer) `buffer` holds the complex input, which the transform
// overwrites, and the real output goes to `inputBuffer`. VkFFTAppend writes the launch's queue
// and buffers into the application, so one plan's launches are serialised by its mutex (they
// only enqueue).
//
// Compiled programs: VkFFT 1.2.26's loadApplicationFromString cannot load what its
// saveApplicationToString saved on OpenCL (it copies a program binary as a NUL-terminated string
// of codeSize - 2 bytes; clCreateProgramWithBinary then fails with VKFFT_ERROR_FAILED_TO_CREATE_PROGRAM,
// seen on PoCL), so porta does not keep them in its disk cache: VkFFT builds from source, and the
// drivers' own program caches (PoCL's kernel cache, NVIDIA's ComputeCache) spare a second process
// the compile (PoCL: 60 s cold, 2 s warm for the nine plans of fft_test's length sweep).
#define VKFFT_BACKEND 3
#include <vkFFT.h>

#include <cstring>
#include <mutex>

#include "host/vkfft_layout.hpp"
#include "opencl/opencl.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::opencl {
namespace {

using detail::FftDesc;
using detail::FftKind;

using detail::vkfft::describe;

bool out_of_memory(VkFFTResult r) {
  return r == VKFFT_ERROR_MALLOC_FAILED || r == VKFFT_ERROR_FAILED_TO_ALLOCATE || r == VKFFT_ERROR_FAILED_TO_ALLOCATE_MEMORY;
}

class Plan final : public detail::FftPlanImpl {
 public:
  Plan(Device& device, const FftDesc& d) : device_(device), desc_(d) {
    context_ = device.native_context();
    device_id_ = device.native();
    platform_ = device.native_platform();
    VkFFTConfiguration c{};
    detail::vkfft::layout(c, d, buffer_bytes_, input_bytes_);
    c.device = &device_id_;
    c.context = &context_;
    c.platform = &platform_;
    c.bufferSize = &buffer_bytes_;
    c.inputBufferSize = &input_bytes_;
    // Buffers are given at each launch; initializeVkFFT needs pointers to something.
    c.buffer = &buffer_;
    c.inputBuffer = &input_;

    const VkFFTResult r = initializeVkFFT(&app_, c);  // frees what it took when it fails
    if (r != VKFFT_SUCCESS) fail(r);
    PORTA_LOG(info, device.label(), ": VkFFT plan ", describe(d));
  }
  ~Plan() override { deleteVkFFT(&app_); }

  void execute(detail::QueueImpl& q, detail::Handle in, detail::Handle out, bool forward) override {
    cl_command_queue queue = device_.queue_of(q).native();
    cl_mem in_mem = static_cast<cl_mem>(in), out_mem = static_cast<cl_mem>(out);
    VkFFTLaunchParams p{};
    p.commandQueue = &queue;
    const int direction = detail::vkfft::launch(p, desc_, &in_mem, &out_mem, forward);
    std::lock_guard lock(mutex_);
    const VkFFTResult r = VkFFTAppend(&app_, direction, &p);
    if (r != VKFFT_SUCCESS)
      throw DeviceError(detail::cat(device_.label(), ": VkFFT failed to run the FFT (", describe(desc_), "): ",
                                    "VkFFTResult ", static_cast<int>(r)));
  }
  bool overwrites_input() const override { return desc_.kind == FftKind::c2r; }

 private:
  [[noreturn]] void fail(VkFFTResult r) {
    const std::string what = detail::cat(device_.label(), ": VkFFT could not plan the FFT (", describe(desc_), "): ",
                                         "VkFFTResult ", static_cast<int>(r));
    if (out_of_memory(r)) throw OutOfMemory(what, buffer_bytes_, device_.free_memory());
    throw InvalidArgument(what);
  }

  Device& device_;
  FftDesc desc_;
  cl_context context_{};
  cl_device_id device_id_{};
  cl_platform_id platform_{};
  cl_mem buffer_{}, input_{};
  std::uint64_t buffer_bytes_ = 0, input_bytes_ = 0;
  VkFFTApplication app_{};
  std::mutex mutex_;
};

}  // namespace

std::string vkfft_name() {
  const int v = VkFFTGetVersion();
  return detail::cat("VkFFT ", v / 10000, ".", (v / 100) % 100, ".", v % 100, " (OpenCL)");
}

std::shared_ptr<detail::FftPlanImpl> Device::make_vkfft_plan(const FftDesc& desc) {
  if (desc.lengths.empty() || desc.lengths.size() > 3)
    throw InvalidArgument(detail::cat(label(), ": VkFFT plans 1 to 3 axes, not ", desc.lengths.size()));
  if (desc.dtype != DType::complex64 && desc.dtype != DType::complex128)
    throw DTypeError(detail::cat("fft on ", label(), " of ", name(desc.dtype), ": the transforms are complex64 or complex128"));
  if (!info().dtypes[static_cast<std::size_t>(desc.dtype)])
    throw DTypeError(detail::cat("fft of ", name(desc.dtype), " on ", label(), " (", info().name,
                                 "): the device has no double precision; use float32 / complex64"));
  return std::make_shared<Plan>(*this, desc);
}

}  // namespace porta::opencl
