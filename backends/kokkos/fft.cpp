// FFT on the Kokkos device: porta's host FFT (host/fft.hpp) on the device memory, which is host
// memory. Work runs on the calling thread, as the device's other work does.
#include "host/fft.hpp"
#include "kokkos/kokkos.hpp"

namespace porta::kokkos {
namespace {

// The host plan, checking first that the program has not finalised Kokkos.
class Plan final : public detail::FftPlanImpl {
 public:
  explicit Plan(std::shared_ptr<detail::FftPlanImpl> host) : host_(std::move(host)) {}
  void execute(detail::QueueImpl& q, Handle in, Handle out, bool forward) override {
    require_kokkos();
    host_->execute(q, in, out, forward);
  }

 private:
  std::shared_ptr<detail::FftPlanImpl> host_;
};

}  // namespace

std::shared_ptr<detail::FftPlanImpl> Device::make_fft_plan(const detail::FftDesc& desc) {
  return std::make_shared<Plan>(detail::make_host_fft_plan(desc, "kokkos:0"));
}

}  // namespace porta::kokkos
