// Devices: the public Device, selection by name or kind, the default device, DeviceScope.
#include <porta/device.hpp>
#include <porta/error.hpp>

#include <algorithm>
#include <charconv>

#include "porta_backend/backend.hpp"
#include "runtime/device_state.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/log.hpp"
#include "plugin/registry.hpp"

namespace porta {

using detail::cat;

// From the registry's table, which the backends' porta_add_backend calls generate.
std::string_view name(Backend b) { return detail::backend_name(b); }

std::string_view name(DeviceKind k) {
  switch (k) {
    case DeviceKind::gpu: return "gpu";
    case DeviceKind::cpu: return "cpu";
    case DeviceKind::accelerator: return "accelerator";
    case DeviceKind::other: return "other";
  }
  return "?";
}

detail::DeviceImpl& Device::impl() const {
  if (!impl_) throw InvalidArgument("this porta::Device is empty (default-constructed); get one from porta::device()");
  return *impl_;
}

Backend Device::backend() const { return impl().backend(); }
int Device::index() const { return impl().index(); }
std::string Device::spec() const { return cat(porta::name(backend()), ":", index()); }
std::string Device::name() const { return impl().info().name; }
std::string Device::vendor() const { return impl().info().vendor; }
std::string Device::platform() const { return impl().info().platform; }
std::string Device::driver_version() const { return impl().info().driver_version; }
DeviceKind Device::kind() const { return impl().info().kind; }
std::uint64_t Device::memory_bytes() const { return impl().info().memory_bytes; }
std::uint64_t Device::max_local_bytes() const { return impl().info().max_local_bytes; }
int Device::compute_units() const { return impl().info().compute_units; }
std::string Device::pci_bus_id() const { return impl().info().pci_bus_id; }
std::string Device::matmul_path() const { return impl().info().matmul; }
std::string Device::solver_path() const { return impl().info().solver; }
bool Device::supports(DType t) const { return is_valid(t) && impl().info().dtypes[static_cast<int>(t)]; }
bool Device::compiles_at_runtime() const { return impl().info().dialect != detail::Dialect::none; }

std::vector<BackendStatus> backends() { return detail::Registry::get().statuses(); }

namespace {

const detail::Registry& checked_registry() {
  const auto& r = detail::Registry::get();
  if (r.config_error()) throw BackendUnavailable(*r.config_error());
  return r;
}

[[noreturn]] void no_such_device(std::string_view spec, const std::string& why) {
  const auto& r = detail::Registry::get();
  std::vector<std::string> absent;
  for (auto& st : r.statuses())
    if (!st.loaded) absent.push_back(cat(name(st.backend), " (", st.reason, ")"));
  throw DeviceError(cat("no device matches '", spec, "': ", why, ". Devices here: ", detail::describe_devices(r.devices()),
                        absent.empty() ? std::string() : cat(". Unavailable: ", detail::join(absent, "; "))));
}

Device find_device(std::string_view spec_in) {
  const auto& reg = checked_registry();
  const auto& all = reg.devices();
  std::string spec = detail::lower(detail::trim(spec_in));
  if (spec == "gpu" || spec == "cpu") {
    DeviceKind k = spec == "gpu" ? DeviceKind::gpu : DeviceKind::cpu;
    for (auto& d : all)
      if (d.kind() == k) return d;
    no_such_device(spec_in, cat("there is no ", spec, " device"));
  }
  std::string backend_name = spec;
  int index = 0;
  if (spec.find(':') == std::string::npos) {
    // A bare backend name is that backend's preferred device, the rule of the default device:
    // its first GPU, else its first device ("opencl" is the H200, not PoCL, on a GPU machine).
    for (auto& d : all)
      if (name(d.backend()) == spec && d.kind() == DeviceKind::gpu) return d;
  }
  if (auto colon = spec.find(':'); colon != std::string::npos) {
    backend_name = spec.substr(0, colon);
    std::string idx = spec.substr(colon + 1);
    auto [p, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), index);
    if (ec != std::errc() || p != idx.data() + idx.size() || index < 0)
      no_such_device(spec_in, cat("'", idx, "' is not a device index"));
  }
  for (auto& d : all)
    if (name(d.backend()) == backend_name && d.index() == index) return d;
  std::vector<std::string> names;
  for (auto& [value, n] : reg.names()) names.push_back(n);
  bool known = std::find(names.begin(), names.end(), backend_name) != names.end();
  no_such_device(spec_in, known ? cat(backend_name, ":", index, " does not exist")
                                : cat("'", backend_name, "' is not a backend (", detail::join(names, ", "), ") or a kind (gpu, cpu)"));
}

Device choose_default() {
  const auto& reg = checked_registry();
  if (auto spec = setting_text("PORTA_DEVICE")) {
    try {
      return find_device(*spec);
    } catch (const DeviceError& e) {
      throw DeviceError(cat("PORTA_DEVICE=", *spec, ": ", e.what()));
    }
  }
  const auto& all = reg.devices();
  if (all.empty()) no_such_device("default", "no backend has a device");
  // In the order of the backends (cuda, opencl, kokkos, then others; PORTA_BACKEND's order when
  // it is set), each backend's first GPU, else its first device.
  for (Backend b : reg.order()) {
    for (auto& d : all)
      if (d.backend() == b && d.kind() == DeviceKind::gpu) return d;
    for (auto& d : all)
      if (d.backend() == b) return d;
  }
  return all.front();
}

// Set when this thread's ThreadDevice is destroyed at thread exit. A DeviceScope held in a
// thread_local made before porta's own (a binding's table of scopes) is destroyed after it, and
// must not touch it then. A bool with constant initialisation outlives every thread_local object.
thread_local bool t_thread_device_gone = false;

struct ThreadDevice {
  Device device;
  bool set = false;
  ThreadDevice() = default;
  ThreadDevice(const ThreadDevice&) = delete;
  ThreadDevice& operator=(const ThreadDevice&) = delete;
  ~ThreadDevice() { t_thread_device_gone = true; }
};

ThreadDevice& thread_device() {
  thread_local ThreadDevice t;
  return t;
}

}  // namespace

std::vector<Device> devices() { return checked_registry().devices(); }

Device device(std::string_view spec) { return find_device(spec); }

Device default_device() {
  static const Device d = [] {
    Device chosen = choose_default();
    PORTA_LOG(info, "default device: ", chosen.spec(), " (", chosen.name(), ")");
    return chosen;
  }();
  return d;
}

Device current_device() {
  if (t_thread_device_gone) return default_device();
  auto& t = thread_device();
  if (t.set) return t.device;
  return default_device();
}

namespace detail {
// Whether this thread's current device is one a DeviceScope set (graph_capture.cpp: a replay must run there).
bool thread_device_set() { return !t_thread_device_gone && thread_device().set; }
}  // namespace detail

DeviceScope::DeviceScope(Device d) {
  if (!d.valid()) throw InvalidArgument("DeviceScope needs a device; this one is empty");
  if (t_thread_device_gone) return;  // made by a thread_local destructor at thread exit: nothing to scope
  auto& t = thread_device();
  previous_ = t.device;
  had_previous_ = t.set;
  t.device = std::move(d);
  t.set = true;
}

DeviceScope::~DeviceScope() {
  if (t_thread_device_gone) return;
  auto& t = thread_device();
  t.device = previous_;
  t.set = had_previous_;
}

void synchronize(const Device& d) { detail::thread_queue(d).synchronize(); }

void synchronize() { detail::synchronize_thread_queues(); }

}  // namespace porta
