// The core's side of interface/porta_backend/services.hpp: what plugins may call, implemented
// over the core's kernel cache and exit guard (the interpreter's entry points are in
// src/interpreter_*.cpp, the disk cache in src/disk_cache.cpp).
#include "porta_backend/services.hpp"

#include "context.hpp"
#include "exit_guard.hpp"

namespace porta::detail {

std::shared_ptr<Kernel> cached_kernel(DeviceImpl& device, const std::string& key,
                                      const std::function<KernelSource()>& make_source) {
  return device.context().kernels().get(key, make_source);
}

void watch_exit() { ExitGuard::instance().watch(); }

std::shared_lock<std::shared_mutex> enter_build(const std::string& where, const std::string& entry) {
  return ExitGuard::instance().enter(where, entry);
}

}  // namespace porta::detail
