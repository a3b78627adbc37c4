// Defaults of the backend interface: what a backend that lacks a capability answers.
#include "porta_backend/backend.hpp"

#include <thread>

#include "runtime/device_state.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/launch_thread.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/services.hpp"
#include "porta_backend/strings.hpp"
#include "plugin/registry.hpp"

namespace porta::detail {

KernelArg KernelArg::memory(Handle h, std::size_t offset_bytes) {
  KernelArg a;
  a.kind = Kind::memory;
  a.handle = h;
  a.offset_bytes = offset_bytes;
  return a;
}

KernelArg KernelArg::local(std::size_t bytes) {
  KernelArg a;
  a.kind = Kind::local_memory;
  a.size = bytes;
  return a;
}

bool launch_thread_enabled(const DeviceInfo& info) {
  enum class Mode { automatic, thread, sync };
  static const Mode mode = [] {
    std::string m = setting_choice("PORTA_LAUNCH");
    return m == "sync" ? Mode::sync : m == "thread" ? Mode::thread : Mode::automatic;
  }();
  static const bool many_cores = std::thread::hardware_concurrency() >= 4;
  if (mode != Mode::automatic) return mode == Mode::thread;
  return info.kind != DeviceKind::cpu && many_cores;
}

DeviceImpl::DeviceImpl(Backend backend, int index) : backend_(backend), index_(index) {}

DeviceImpl::~DeviceImpl() = default;

DeviceState& DeviceImpl::state() {
  std::call_once(state_once_, [this] { state_ = std::make_unique<DeviceState>(*this); });
  return *state_;
}

void DeviceImpl::release_state() {
  if (state_) state_->release();
}

void release_memory_of_physical_gpu(DeviceImpl& d, bool include_self) noexcept {
  try {
    const std::string bus = d.info().pci_bus_id;
    for (const Device& other : Registry::get().devices()) {
      DeviceImpl& o = other.impl();
      if (&o == &d ? !include_self : (bus.empty() || o.info().pci_bus_id != bus)) continue;
      const std::size_t cached = o.state().allocator().cached_bytes();
      PORTA_LOG(info, "freeing ", format_bytes(cached), " of cached blocks on ", name(o.backend()), ":", o.index(),
                &o == &d ? "" : " (the same GPU through another API)");
      o.state().allocator().free_cached();
      o.release_cached_memory();
    }
  } catch (const std::exception& e) {
    PORTA_LOG(warn, "freeing cached memory failed: ", e.what());
  }
}

std::shared_ptr<Kernel> DeviceImpl::compile(const KernelSource&) {
  throw BackendUnavailable(cat(name(backend()), ":", index(), " cannot compile kernels at run time"));
}

std::shared_ptr<Kernel> DeviceImpl::load_binary(const KernelSource&, std::span<const std::uint8_t>) { return nullptr; }

void DeviceImpl::launch(QueueImpl&, Kernel&, const LaunchDims&, std::span<const KernelArg>) {
  throw BackendUnavailable(cat(name(backend()), ":", index(), " cannot launch compiled kernels"));
}

void DeviceImpl::execute(QueueImpl&, const ElementwisePlan&) {
  throw BackendUnavailable(cat(name(backend()), ":", index(), " does not interpret plans; it compiles kernels"));
}

std::shared_ptr<FftPlanImpl> DeviceImpl::make_fft_plan(const FftDesc&) {
  throw DTypeError(cat("fft on ", name(backend()), ":", index(), " (", info().name,
                       "): this device has no FFT library; move the array to another device with .to()"));
}

void DeviceImpl::solver(QueueImpl&, const SolverArgs& args) {
  throw DTypeError(cat(name(backend()), ":", index(), " has no dense solver (", to_string(args.op), " of ",
                       porta::name(args.dtype), "); move the array to a device that has one (porta-info lists them)"));
}

DeviceImpl::Imported DeviceImpl::import_memory(void*, MemoryKind kind, std::size_t, std::size_t) {
  throw BackendUnavailable(cat(name(backend()), ":", index(), " cannot use ", kind == MemoryKind::host ? "host" : "device",
                               " memory porta does not own"));
}

DeviceImpl::Imported aligned_import(void* native) {
  constexpr std::uintptr_t kAlign = 256;  // what cuMemAlloc and porta's allocators give
  auto p = reinterpret_cast<std::uintptr_t>(native);
  std::uintptr_t base = p / kAlign * kAlign;
  return {reinterpret_cast<Handle>(base), static_cast<std::int64_t>(p - base)};
}

void DeviceImpl::execute(QueueImpl&, const ReductionPlan&) {
  throw BackendUnavailable(cat(name(backend()), ":", index(), " does not interpret plans; it compiles kernels"));
}

}  // namespace porta::detail

namespace porta::detail {

void QueueImpl::begin_capture() {
  throw InvalidArgument("this backend's queues cannot record graphs (porta::record); call the functions directly");
}

std::unique_ptr<GraphImpl> QueueImpl::end_capture(std::span<const MemoryRange>) {
  throw InvalidArgument("this backend's queues cannot record graphs (porta::record)");
}

}  // namespace porta::detail
