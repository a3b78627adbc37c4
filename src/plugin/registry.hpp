// The backend registry: opens each plugin once (a function-local static, which C++ initialises
// once even when threads race), records why a plugin is absent, and lists devices in preference
// order. Safe to read from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <porta/device.hpp>

namespace porta::detail {

class Registry {
 public:
  static const Registry& get();

  const std::vector<BackendStatus>& statuses() const { return statuses_; }
  // Devices of the loaded backends allowed by PORTA_BACKEND, in its order.
  const std::vector<Device>& devices() const { return devices_; }
  // The problem with PORTA_BACKEND, if any; thrown at first use of a device.
  const std::optional<std::string>& config_error() const { return config_error_; }
  const std::vector<Backend>& order() const { return order_; }
  std::vector<std::string> plugin_dirs() const { return plugin_dirs_; }
  // Every backend's value and name: porta's own and the plugins of other kinds found.
  const std::vector<std::pair<Backend, std::string>>& names() const { return names_; }

 private:
  Registry();
  std::vector<BackendStatus> statuses_;
  std::vector<Device> devices_;
  std::vector<Backend> order_;
  std::vector<std::string> plugin_dirs_;
  std::vector<std::pair<Backend, std::string>> names_;
  std::optional<std::string> config_error_;
};

// "cuda, opencl, kokkos" and the like, for messages.
std::string describe_devices(const std::vector<Device>& devices);
std::vector<Backend> built_backends();
// The backend's name as its plugin declares it ("cuda"); "?" for a value no backend has.
std::string_view backend_name(Backend b);

}  // namespace porta::detail
