// The FFT of OpenCL devices: on CPU devices whose memory is the host's (PoCL), porta's host FFT
// (host/fft.hpp) on the mapped buffers, as the host solvers do (solver.cpp): the map is the
// memory itself, no copy. On PoCL it is 4-18x faster than VkFFT's OpenCL kernels on every
// porta-bench FFT row (docs/design/fft.md), and it builds no program. Other devices, and CPU devices with PORTA_OPENCL_FFT=vkfft, plan through
// VkFFT (fft.cpp).
#include <algorithm>

#include "host/fft.hpp"
#include "opencl/opencl.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/strings.hpp"

namespace porta::opencl {
namespace {

using detail::FftDesc;
using detail::FftKind;

class MappedPlan final : public detail::FftPlanImpl {
 public:
  MappedPlan(Device& device, std::mutex& map_m, const FftDesc& d, std::shared_ptr<detail::FftPlanImpl> host)
      : device_(device), map_m_(map_m), desc_(d), host_(std::move(host)) {
    // One axis (make_host_fft_plan refuses more): complex lines of n, or real ones of n and
    // complex ones of n/2 + 1.
    const std::size_t batch = static_cast<std::size_t>(d.batch), n = static_cast<std::size_t>(d.lengths.back());
    const std::size_t item = itemsize(d.dtype), real = batch * n * (item / 2), half = batch * (n / 2 + 1) * item;
    in_bytes_ = d.kind == FftKind::c2c ? batch * n * item : d.kind == FftKind::r2c ? real : half;
    out_bytes_ = d.kind == FftKind::c2c ? batch * n * item : d.kind == FftKind::r2c ? half : real;
  }

  void execute(detail::QueueImpl& q, detail::Handle in, detail::Handle out, bool forward) override {
    cl_command_queue queue = device_.queue_of(q).native();
    // Unmaps what was mapped, also when a map fails, and waits for the unmaps.
    struct Mapped {
      cl_command_queue queue;
      std::mutex& m;
      cl_mem mem[2] = {};
      void* ptr[2] = {};
      ~Mapped() {
        std::lock_guard lock(m);
        for (int i = 0; i < 2; ++i) {
          if (!ptr[i]) continue;
          cl_event done = nullptr;
          cl_int s = clEnqueueUnmapMemObject(queue, mem[i], ptr[i], 0, nullptr, &done);
          if (s == CL_SUCCESS) {
            s = clWaitForEvents(1, &done);
            clReleaseEvent(done);
          }
          if (s != CL_SUCCESS) PORTA_LOG(error, "unmapping memory after a host FFT failed: ", describe(s));
        }
      }
    } mapped{queue, map_m_};
    PORTA_CL_AT(detail::cat("waiting for the work before an FFT on ", device_.label()), clFinish(queue));
    {
      std::lock_guard lock(map_m_);
      const cl_map_flags flags[2] = {CL_MAP_READ, CL_MAP_WRITE_INVALIDATE_REGION};
      const std::size_t bytes[2] = {in_bytes_, out_bytes_};
      detail::Handle handles[2] = {in, out};
      for (int i = 0; i < 2; ++i) {
        cl_int status = CL_SUCCESS;
        mapped.mem[i] = static_cast<cl_mem>(handles[i]);
        mapped.ptr[i] = clEnqueueMapBuffer(queue, mapped.mem[i], CL_TRUE, flags[i], 0, bytes[i], 0, nullptr, nullptr, &status);
        if (status != CL_SUCCESS) {
          mapped.ptr[i] = nullptr;
          throw_error(status, "clEnqueueMapBuffer",
                      detail::cat("mapping ", detail::format_bytes(bytes[i]), " for an FFT on ", device_.label()));
        }
      }
    }
    host_->execute(q, mapped.ptr[0], mapped.ptr[1], forward);
  }

 private:
  Device& device_;
  std::mutex& map_m_;
  FftDesc desc_;
  std::shared_ptr<detail::FftPlanImpl> host_;
  std::size_t in_bytes_ = 0, out_bytes_ = 0;
};

}  // namespace

bool Device::host_fft(const DeviceInfo& in) {
  return in.kind == DeviceKind::cpu && in.host_memory && setting_choice("PORTA_OPENCL_FFT") != "vkfft";
}

std::shared_ptr<detail::FftPlanImpl> Device::make_fft_plan(const FftDesc& desc) {
  if (host_fft_) {
    if (desc.dtype == DType::complex128 && !info().dtypes[static_cast<std::size_t>(desc.dtype)])
      throw DTypeError(detail::cat("fft of complex128 on ", label(), " (", info().name,
                                   "): the device has no double precision; use float32 / complex64"));
    return std::make_shared<MappedPlan>(*this, map_m_, desc,
                                        detail::make_host_fft_plan(desc, label(), std::max(info().compute_units, 1)));
  }
#ifdef PORTA_HAVE_VKFFT
  return make_vkfft_plan(desc);
#else
  return DeviceImpl::make_fft_plan(desc);
#endif
}

}  // namespace porta::opencl
