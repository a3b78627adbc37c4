// The core's side of interface/porta_backend/services.hpp: what plugins may call, implemented
// over the core's kernel cache and exit guard, and the messages of check.hpp (the interpreter's
// entry points are in src/interpreter/, the disk cache in src/runtime/disk_cache.cpp).
#include "porta_backend/services.hpp"

#include "porta_backend/check.hpp"

#include "runtime/device_state.hpp"
#include "base/exit_guard.hpp"

namespace porta::detail {

std::shared_ptr<Kernel> cached_kernel(DeviceImpl& device, const std::string& key,
                                      const std::function<KernelSource()>& make_source) {
  return device.state().kernels().get(key, make_source);
}

void watch_exit() { ExitGuard::instance().watch(); }

std::shared_lock<std::shared_mutex> enter_build(const std::string& where, const std::string& entry) {
  return ExitGuard::instance().enter(where, entry);
}

std::string failure_message(std::string_view call, std::string_view status, std::string_view where) {
  std::string msg;
  if (!where.empty()) append_all(msg, where, ": ");
  append_all(msg, call_name(call), " failed: ", status);
  return msg;
}

bool log_failure_message(std::string_view call, std::string_view status, std::string_view where) noexcept {
  try {
    PORTA_LOG(error, failure_message(call, status, where));
  } catch (...) {
  }
  return false;
}

}  // namespace porta::detail
