// Plugin loading (dlopen, RTLD_NOW | RTLD_LOCAL) and the backend registry.
#include "plugin/registry.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <memory>

#include "porta_backend/backend.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/log.hpp"

namespace porta::detail {
namespace {

// What each backend declared in its porta_add_backend call (cmake/PortaBackends.cmake), in the
// order of porta::Backend, which is the default preference order.
struct BackendEntry {
  Backend backend;
  const char* name;          // "cuda": PORTA_BACKEND's word, the plugin's file name
  const char* file;          // "libporta_cuda.so"
  const char* option;        // "PORTA_CUDA": the CMake option that builds it
  const char* install_hint;  // what a machine needs for it to load
  bool built;                // whether this build made the plugin
};

const std::vector<BackendEntry>& backend_table() {
  static const std::vector<BackendEntry> table = [] {
    std::vector<BackendEntry> t{
#include "porta_backend_table.inc"
    };
    std::sort(t.begin(), t.end(), [](const BackendEntry& a, const BackendEntry& b) { return a.backend < b.backend; });
    return t;
  }();
  return table;
}

// A plugin's library handle and the backend it made. The backend is destroyed before the
// library is closed; devices hold this alive through aliasing shared_ptrs.
struct LoadedPlugin {
  void* library = nullptr;
  std::unique_ptr<BackendImpl> backend;
  ~LoadedPlugin() {
    // The core's per-device state holds backend objects (cached memory, kernels): release it
    // while the backend is whole.
    if (backend)
      for (auto& d : backend->devices()) d->release_state();
    backend.reset();
    if (library) dlclose(library);
  }
};


std::string libporta_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&libporta_dir), &info) && info.dli_fname)
    return std::filesystem::path(info.dli_fname).parent_path().string();
  return {};
}

std::optional<Backend> parse_backend(std::string_view s) {
  for (const BackendEntry& e : backend_table())
    if (lower(trim(s)) == e.name) return e.backend;
  return std::nullopt;
}

std::string known_backends() {
  std::vector<std::string> names;
  for (const BackendEntry& e : backend_table()) names.emplace_back(e.name);
  return join(names, ", ");
}

// dlopen failed because a library the plugin needs is missing (the driver, on a machine without
// that vendor's hardware: expected, said at info level) rather than because the file itself is
// broken (truncated, not an ELF object, built against another libporta: worth a warning).
bool missing_dependency(const std::string& error, const std::string& path) {
  const std::string marker = ": cannot open shared object file";
  auto at = error.find(marker);
  if (at == std::string::npos) return false;
  return error.substr(0, at) != path && error.substr(0, at) != std::filesystem::path(path).filename().string();
}

}  // namespace

std::vector<Backend> built_backends() {
  std::vector<Backend> out;
  for (const BackendEntry& e : backend_table())
    if (e.built) out.push_back(e.backend);
  return out;
}

std::string_view backend_name(Backend b) {
  for (const BackendEntry& e : backend_table())
    if (e.backend == b) return e.name;
  return "?";
}

const Registry& Registry::get() {
  static const Registry registry;
  return registry;
}

Registry::Registry() {
  if (auto p = setting_text("PORTA_PLUGIN_PATH"))
    for (auto& d : split(*p, ':'))
      if (!d.empty()) plugin_dirs_.push_back(d);
  if (auto d = libporta_dir(); !d.empty()) plugin_dirs_.push_back(d);

  std::vector<std::pair<Backend, std::shared_ptr<LoadedPlugin>>> loaded;
  std::vector<Backend> wanted;
  for (const BackendEntry& e : backend_table()) wanted.push_back(e.backend);
  std::string wanted_text;
  if (auto v = setting_text("PORTA_BACKEND")) {
    wanted.clear();
    wanted_text = *v;
    for (auto& part : split(*v, ',')) {
      if (trim(part).empty()) continue;
      auto b = parse_backend(part);
      if (!b) {
        config_error_ = cat("PORTA_BACKEND=", *v, ": '", trim(part),
                            "' names no backend. porta knows ", known_backends(), "; this build has ",
                            [&] {
                              std::vector<std::string> names;
                              for (Backend x : built_backends()) names.emplace_back(name(x));
                              return names.empty() ? std::string("none") : join(names, ", ");
                            }());
        wanted.clear();
        break;
      }
      wanted.push_back(*b);
    }
  }
  order_ = wanted;

  for (const BackendEntry& declared : backend_table()) {
    const Backend b = declared.backend;
    BackendStatus st;
    st.backend = b;
    st.built = declared.built;
    const std::string file = declared.file;
    const char* install_hint = declared.install_hint;
    bool is_wanted = std::find(wanted.begin(), wanted.end(), b) != wanted.end();
    if (!st.built) {
      st.reason = cat("not built: configure porta with -D", declared.option, "=ON where its SDK is installed");
      statuses_.push_back(st);
      continue;
    }
    if (!is_wanted) {
      st.reason = cat("not selected: PORTA_BACKEND=", wanted_text);
      statuses_.push_back(st);
      continue;
    }
    std::string path;
    for (auto& d : plugin_dirs_) {
      auto p = std::filesystem::path(d) / file;
      if (std::filesystem::exists(p)) {
        path = p.string();
        break;
      }
    }
    if (path.empty()) {
      st.plugin_path = file;
      st.reason = cat(file, " was not found in ", plugin_dirs_.empty() ? std::string("(no directory)") : join(plugin_dirs_, ":"),
                      "; set PORTA_PLUGIN_PATH to the directory that holds it");
      statuses_.push_back(st);
      continue;
    }
    st.plugin_path = path;
    auto plugin = std::make_shared<LoadedPlugin>();
    plugin->library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!plugin->library) {
      const char* err = dlerror();
      const std::string error = err ? err : "unknown error";
      if (missing_dependency(error, path)) {
        st.reason = cat("cannot open ", path, ": ", error, ". It needs ", install_hint);
        PORTA_LOG(info, name(b), " backend unavailable: ", st.reason);
      } else {
        st.reason = cat("cannot open ", path, ": ", error, ". The file itself is damaged or was built for another porta: ",
                        "rebuild and reinstall porta, or remove the file (PORTA_PLUGIN_PATH: ",
                        setting_text("PORTA_PLUGIN_PATH").value_or("unset"), ")");
        PORTA_LOG(warn, name(b), " backend unavailable: ", st.reason);
      }
      statuses_.push_back(st);
      continue;
    }
    using EntryFn = const PluginEntry* (*)();
    auto entry_fn = reinterpret_cast<EntryFn>(dlsym(plugin->library, PORTA_PLUGIN_ENTRY_NAME));
    const PluginEntry* entry = entry_fn ? entry_fn() : nullptr;
    if (!entry) {
      st.reason = cat(path, " has no ", PORTA_PLUGIN_ENTRY_NAME, " entry point: it is not a porta plugin; remove it or fix PORTA_PLUGIN_PATH");
      PORTA_LOG(warn, name(b), " backend unavailable: ", st.reason);
      statuses_.push_back(st);
      continue;
    }
    if (entry->api_version != kBackendApiVersion) {
      st.reason = cat(path, " was built for backend interface version ", entry->api_version, " but libporta has ",
                      kBackendApiVersion, ": rebuild porta and its plugins together");
      PORTA_LOG(warn, name(b), " backend unavailable: ", st.reason);
      statuses_.push_back(st);
      continue;
    }
    if (entry->backend != b) {
      st.reason = cat(path, " is a plugin of the ", name(entry->backend), " backend, not of ", name(b),
                      ": the file was renamed or copied over; reinstall porta's plugins");
      PORTA_LOG(warn, name(b), " backend unavailable: ", st.reason);
      statuses_.push_back(st);
      continue;
    }
    try {
      plugin->backend = entry->create();
    } catch (const std::exception& e) {
      st.reason = cat(e.what(), ". It needs ", install_hint);
      PORTA_LOG(info, name(b), " backend unavailable: ", st.reason);
      statuses_.push_back(st);
      continue;
    }
    st.loaded = true;
    st.version = plugin->backend->version();
    st.device_count = static_cast<int>(plugin->backend->devices().size());
    statuses_.push_back(st);
    PORTA_LOG(info, name(b), " backend loaded from ", path, " with ", st.device_count, " device(s)");
    loaded.emplace_back(b, std::move(plugin));
  }

  // Devices in the preference order of PORTA_BACKEND (or cuda, opencl, kokkos). Each Device
  // keeps its plugin loaded (an aliasing shared_ptr), so arrays may outlive the registry.
  for (Backend b : wanted)
    for (auto& [backend, plugin] : loaded)
      if (backend == b)
        for (auto& d : plugin->backend->devices()) devices_.emplace_back(std::shared_ptr<DeviceImpl>(plugin, d.get()));
  if (!config_error_ && setting_text("PORTA_BACKEND") && devices_.empty()) {
    std::vector<std::string> why;
    for (auto& st : statuses_)
      if (std::find(wanted.begin(), wanted.end(), st.backend) != wanted.end())
        why.push_back(cat(name(st.backend), ": ", st.loaded ? std::string("no devices") : st.reason));
    config_error_ = cat("PORTA_BACKEND=", wanted_text, " but none of those backends has a device (", join(why, "; "), ")");
  }
}

std::string describe_devices(const std::vector<Device>& devices) {
  if (devices.empty()) return "no devices";
  std::vector<std::string> parts;
  for (auto& d : devices) parts.push_back(cat(d.spec(), " (", d.name(), ")"));
  return join(parts, ", ");
}

}  // namespace porta::detail
