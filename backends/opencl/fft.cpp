// FFT on OpenCL devices through VkFFT's OpenCL backend (Debian's libvkfft-dev, header-only, MIT):
// one source for NVIDIA's OpenCL, PoCL and any other OpenCL 1.2 device; radix 2-13 and
// Bluestein for other lengths; C2C, R2C and C2R in float32 and float64, 1-3 axes a plan.
// (CPU devices run porta's host FFT instead unless PORTA_OPENCL_FFT=vkfft: fft_host.cpp.)
//
// Out of place as pyvkfft does it: `inputBuffer` is read and `buffer` written (isInputFormatted),
// for C2R (inverseReturnToInputBuffer) `buffer` holds the complex input, which the transform
// overwrites, and the real output goes to `inputBuffer`. VkFFTAppend writes the launch's queue
// and buffers into the application, so one plan's launches are serialised by its mutex (they
// only enqueue).
//
// Compiled programs go into porta's disk cache through VkFFT's two OpenCL compile calls, which
// this file routes to its own functions (the macros below, before vkFFT.h): a program whose
// source (and device, driver, VkFFT version) is in the cache is made from its binary instead of
// compiled. VkFFT's own saveApplicationToString / loadApplicationFromString cannot do it on
// OpenCL in 1.2.26: the save writes each program binary with sprintf("%s"), so a binary with a
// NUL byte (PoCL's, any ELF) is cut short, and the load copies codeSize - 2 bytes of it and
// writes a NUL over the last but one (made for NUL-terminated PTX text: NVIDIA's binaries);
// PoCL then refuses the binary (VKFFT_ERROR_FAILED_TO_CREATE_PROGRAM).
#include <cstring>
#include <mutex>
#include <vector>

#include "host/vkfft_layout.hpp"
#include "opencl/opencl.hpp"
#include "opencl/pocl_lock.hpp"
#include "porta_backend/disk_cache.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::opencl::vkfft_programs {
cl_program create_with_source(cl_context context, cl_uint count, const char** strings, const size_t* lengths,
                              cl_int* status);
cl_int build(cl_program program, cl_uint count, const cl_device_id* devices, const char* options,
             void(CL_CALLBACK* notify)(cl_program, void*), void* user_data);
}  // namespace porta::opencl::vkfft_programs

#define clCreateProgramWithSource porta::opencl::vkfft_programs::create_with_source
#define clBuildProgram porta::opencl::vkfft_programs::build
#define VKFFT_BACKEND 3
#include <vkFFT.h>
#undef clCreateProgramWithSource
#undef clBuildProgram

namespace porta::opencl {

namespace vkfft_programs {
namespace {

// The plan being made on this thread (set around initializeVkFFT), and the programs it made:
// those loaded from the disk cache (already built) and those compiled (stored once built).
struct Making {
  Device* device = nullptr;
  struct Program {
    cl_program program;
    std::string key;  // empty: not for the disk cache
    bool built;       // from a cached binary, built in create_with_source
  };
  std::vector<Program> programs;
  int loaded = 0, compiled = 0;
};
thread_local Making* making = nullptr;

Making::Program* find(cl_program p) {
  if (!making) return nullptr;
  for (auto& e : making->programs)
    if (e.program == p) return &e;
  return nullptr;
}

}  // namespace

cl_program create_with_source(cl_context context, cl_uint count, const char** strings, const size_t* lengths,
                              cl_int* status) {
  if (!making || count != 1) return ::clCreateProgramWithSource(context, count, strings, lengths, status);
  Device& d = *making->device;
  const std::string source(strings[0], lengths && lengths[0] ? lengths[0] : std::strlen(strings[0]));
  const detail::DiskCache& disk = detail::DiskCache::get();
  std::string key;
  if (disk.enabled()) {
    // The whole source is in the key, as in the kernel cache: a hit can only be this program.
    key = detail::cat("porta-vkfft-v1\n", vkfft_name(), "\n", d.info().name, "\n", d.compiler_id(), "\n", source);
    if (auto bin = disk.load(key)) {
      cl_device_id dev = d.native();
      const unsigned char* bytes = bin->data();
      std::size_t length = bin->size();
      cl_int binary_status = CL_SUCCESS, s = CL_SUCCESS;
      cl_program p = ::clCreateProgramWithBinary(context, 1, &dev, &length, &bytes, &binary_status, &s);
      if (s == CL_SUCCESS && binary_status == CL_SUCCESS && p) {
        s = ::clBuildProgram(p, 1, &dev, nullptr, nullptr, nullptr);
        if (s == CL_SUCCESS) {
          making->programs.push_back({p, "", true});
          ++making->loaded;
          if (status) *status = CL_SUCCESS;
          return p;
        }
      }
      if (p) clReleaseProgram(p);
      PORTA_LOG(info, d.label(), ": a VkFFT program in the disk cache was not accepted (", describe(s),
                "); compiling it again");
    }
  }
  cl_program p = ::clCreateProgramWithSource(context, count, strings, lengths, status);
  if (p) making->programs.push_back({p, std::move(key), false});
  return p;
}

cl_int build(cl_program program, cl_uint count, const cl_device_id* devices, const char* options,
             void(CL_CALLBACK* notify)(cl_program, void*), void* user_data) {
  Making::Program* e = find(program);
  if (e && e->built) return CL_SUCCESS;
  const cl_int s = ::clBuildProgram(program, count, devices, options, notify, user_data);
  if (!e || s != CL_SUCCESS) return s;
  ++making->compiled;
  if (!e->key.empty()) {
    std::string why;
    std::vector<std::uint8_t> bin = program_binary(program, making->device->native(), why);
    if (bin.empty())
      PORTA_LOG(info, making->device->label(), ": no binary of a VkFFT program for the disk cache (", why, ")");
    else
      detail::DiskCache::get().store(e->key, bin);
  }
  return s;
}

}  // namespace vkfft_programs

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

    vkfft_programs::Making making{&device};
    VkFFTResult r = VKFFT_SUCCESS;
    {
      PoclBuildLock one_build(device.info().platform, describe(d));  // VkFFT builds its kernels here
      vkfft_programs::making = &making;
      r = initializeVkFFT(&app_, c);  // and frees what it took when it fails
      vkfft_programs::making = nullptr;
    }
    if (r != VKFFT_SUCCESS) fail(r);
    PORTA_LOG(info, device.label(), ": VkFFT plan ", describe(d), ": ", making.compiled, " programs compiled, ",
              making.loaded, " loaded from the disk cache");
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
