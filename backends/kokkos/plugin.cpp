// The Kokkos plugin's entry point and the backend: initialises Kokkos unless the program already
// did, and finalises it only if porta initialised it.
#include <Kokkos_Core.hpp>

#include "kokkos/error.hpp"
#include "kokkos/kokkos.hpp"
#include "porta_backend/log.hpp"

namespace porta::kokkos {

std::string kokkos_version() {
  return detail::cat(KOKKOS_VERSION / 10000, ".", KOKKOS_VERSION / 100 % 100, ".", KOKKOS_VERSION % 100);
}

void require_kokkos() {
  if (!Kokkos::is_initialized())
    throw DeviceError("kokkos:0: the program has finalised Kokkos while porta still uses it; call Kokkos::finalize "
                      "only after porta's last array on kokkos:0 is gone");
}

namespace {

// At process exit, finalise Kokkos before its own static objects are destroyed. Made after
// Kokkos::initialize, so it is destroyed before them; without it, a Device kept in a global
// outlives them and Kokkos::finalize crashes in ~Backend. A static object rather than
// std::atexit: its destructor is registered with this plugin's DSO handle, so it also runs when
// the plugin is closed (by which time ~Backend has finalised Kokkos) and never after. An
// atexit handler can outlive the plugin: under ThreadSanitizer, whose atexit interceptor drops
// the DSO, the process jumped into the closed plugin at exit.
// The core's cached blocks are freed first, while Kokkos can free them (LeakSanitizer found them
// lost when a test framework kept a Device alive past this point); memory freed after this is
// left to the process's exit (Device::deallocate).
const Backend* live_backend = nullptr;  // set while the backend exists

struct FinalizeAtExit {
  ~FinalizeAtExit() {
    try {
      if (live_backend)
        for (auto& d : live_backend->devices()) d->release_state();
      if (Kokkos::is_initialized()) Kokkos::finalize();
    } catch (const std::exception& e) {
      log_failure(e, "Kokkos::finalize at exit");
    }
  }
};

}  // namespace

Backend::Backend() {
  if (!Kokkos::is_initialized()) {
    try {
      Kokkos::initialize();
    } catch (const std::exception& e) {
      throw BackendUnavailable(detail::failure_message("Kokkos::initialize", describe(e), {}));
    }
    initialized_here_ = true;
    static FinalizeAtExit finalize_at_exit;
    PORTA_LOG(debug, "kokkos: initialised Kokkos ", kokkos_version(), " on ", Kokkos::DefaultHostExecutionSpace::name());
  } else {
    PORTA_LOG(debug, "kokkos: the program initialised Kokkos already; porta will leave finalising it to the program");
  }
  devices_.push_back(std::make_shared<Device>());
  live_backend = this;
}

Backend::~Backend() {
  live_backend = nullptr;
  // Devices free their memory (the core's cached blocks) while Kokkos is still up.
  devices_.clear();
  if (!initialized_here_) return;
  if (Kokkos::is_initialized()) PORTA_KOKKOS_LOG(Kokkos::finalize());
}

std::string Backend::version() const { return detail::cat("Kokkos ", kokkos_version()); }

namespace {

// `self` is porta::Backend::kokkos, the value the public enum names it by (the registry checks kind()).
std::unique_ptr<detail::BackendImpl> create_backend(porta::Backend /*self*/) { return std::make_unique<Backend>(); }

}  // namespace
}  // namespace porta::kokkos

extern "C" __attribute__((visibility("default"))) const porta::detail::PluginEntry* porta_plugin_entry() {
  // Name and install hint from its porta_add_backend call (cmake/PortaBackends.cmake).
  static const porta::detail::PluginEntry entry{porta::detail::kBackendApiVersion, PORTA_PLUGIN_NAME, PORTA_PLUGIN_INSTALL_HINT,
                                                &porta::kokkos::create_backend};
  return &entry;
}
