// Plugin loading (dlopen, RTLD_NOW | RTLD_LOCAL) and the backend registry.
#include "plugin/registry.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <type_traits>

#include "porta_backend/backend.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/log.hpp"

namespace porta::detail {
namespace {

// What each of porta's own backends declared in its porta_add_backend call
// (cmake/PortaBackends.cmake), named backends first in the order of porta::Backend.
struct BackendEntry {
  std::optional<Backend> backend;  // its enumerator; nullopt for one porta::Backend does not name
  const char* name;          // "cuda": PORTA_BACKEND's word, the plugin's file name
  const char* file;          // "libporta_cuda.so"
  const char* option;        // "PORTA_CUDA": the CMake option that builds it
  const char* install_hint;  // what a machine needs for it to load
  bool built;                // whether this build made the plugin
};

const std::vector<BackendEntry>& backend_table() {
  static const std::vector<BackendEntry> table{
#include "porta_backend_table.inc"
  };
  return table;
}

// A backend the registry knows: one of the table's, or a plugin of another kind found as
// libporta_<name>.so in a plugin directory. Each has its own porta::Backend value: the table's
// named ones their enumerator, every other the next free value, in the order found (the default
// preference order is the order of the values).
struct Candidate {
  Backend backend{};
  std::string name, file, option, install_hint;
  bool built = false;
  bool found = false;  // a plugin of a kind porta's build did not declare, found in a plugin directory
};

// Whether the file names the plugin entry point (in its dynamic symbol table's strings): porta's
// other libraries beside libporta (libporta_mpi.so) are no plugins, and are not opened to find
// that out (dlopen would load their dependencies, MPI's).
bool names_entry_point(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  const std::string needle = PORTA_PLUGIN_ENTRY_NAME;
  std::string chunk(std::size_t{1} << 20, '\0'), carry;
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    std::string window = carry + chunk.substr(0, static_cast<std::size_t>(in.gcount()));
    if (window.find(needle) != std::string::npos) return true;
    carry = window.size() >= needle.size() ? window.substr(window.size() - needle.size()) : window;
  }
  return false;
}

// The plugin files "libporta_<name>.so" in `dirs` (in order, then by name), as {name, file};
// files that do not name the entry point are left out.
std::vector<std::pair<std::string, std::string>> plugin_files(const std::vector<std::string>& dirs) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string prefix = "libporta_", suffix = ".so";
  for (const auto& d : dirs) {
    std::error_code ec;
    std::vector<std::pair<std::string, std::string>> here;
    for (const auto& e : std::filesystem::directory_iterator(d, ec)) {
      std::string f = e.path().filename().string();
      if (f.size() <= prefix.size() + suffix.size() || f.rfind(prefix, 0) != 0 ||
          f.compare(f.size() - suffix.size(), suffix.size(), suffix) != 0)
        continue;
      std::string n = f.substr(prefix.size(), f.size() - prefix.size() - suffix.size());
      if (std::all_of(n.begin(), n.end(), [](char c) { return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)); }))
        here.emplace_back(n, f);
    }
    std::sort(here.begin(), here.end());
    for (auto& [n, f] : here) {
      const bool known = std::any_of(backend_table().begin(), backend_table().end(), [&](const BackendEntry& e) { return n == e.name; });
      if (known || names_entry_point(std::filesystem::path(d) / f)) out.emplace_back(n, f);
    }
  }
  return out;
}

// Every backend, by value: the table's, then the plugins of other kinds in `dirs`.
std::vector<Candidate> candidates(const std::vector<std::string>& dirs) {
  std::vector<Candidate> out;
  int next = 0;
  for (const BackendEntry& e : backend_table())
    if (e.backend) next = std::max(next, static_cast<int>(*e.backend) + 1);
  auto add = [&](std::optional<Backend> value, std::string name, std::string file, std::string option, std::string hint, bool built,
                 bool found) {
    if (!value) {
      if (next > std::numeric_limits<std::underlying_type_t<Backend>>::max()) return;
      value = static_cast<Backend>(next++);
    }
    out.push_back({*value, std::move(name), std::move(file), std::move(option), std::move(hint), built, found});
  };
  for (const BackendEntry& e : backend_table()) add(e.backend, e.name, e.file, e.option, e.install_hint, e.built, false);
  for (auto& [n, f] : plugin_files(dirs)) {
    bool known = std::any_of(out.begin(), out.end(), [&](const Candidate& c) { return c.name == n; });
    if (!known) add(std::nullopt, n, f, "", "", true, true);
  }
  std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) { return a.backend < b.backend; });
  return out;
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

std::optional<Backend> parse_backend(const std::vector<Candidate>& all, std::string_view s) {
  for (const Candidate& c : all)
    if (lower(trim(s)) == c.name) return c.backend;
  return std::nullopt;
}

std::string known_backends(const std::vector<Candidate>& all) {
  std::vector<std::string> names;
  for (const Candidate& c : all) names.push_back(c.name);
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
  for (const BackendStatus& st : Registry::get().statuses())
    if (st.built) out.push_back(st.backend);
  return out;
}

std::string_view backend_name(Backend b) {
  // porta's own backends without the registry (messages while it is being made); the others
  // from it, which keeps their names for the life of the process.
  for (const BackendEntry& e : backend_table())
    if (e.backend == b) return e.name;
  for (const auto& [value, n] : Registry::get().names())
    if (value == b) return n;
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

  // Names are said from the candidates here, never through name(Backend): that asks the registry.
  const std::vector<Candidate> all = candidates(plugin_dirs_);
  for (const Candidate& c : all) names_.emplace_back(c.backend, c.name);

  std::vector<std::pair<Backend, std::shared_ptr<LoadedPlugin>>> loaded;
  std::vector<Backend> wanted;
  for (const Candidate& c : all) wanted.push_back(c.backend);
  std::string wanted_text;
  if (auto v = setting_text("PORTA_BACKEND")) {
    wanted.clear();
    wanted_text = *v;
    for (auto& part : split(*v, ',')) {
      if (trim(part).empty()) continue;
      auto b = parse_backend(all, part);
      if (!b) {
        config_error_ = cat("PORTA_BACKEND=", *v, ": '", trim(part), "' names no backend. porta knows ", known_backends(all),
                            "; this build has ", [&] {
                              std::vector<std::string> names;
                              for (const Candidate& c : all)
                                if (c.built && !c.found) names.push_back(c.name);
                              return names.empty() ? std::string("none") : join(names, ", ");
                            }());
        wanted.clear();
        break;
      }
      wanted.push_back(*b);
    }
  }
  order_ = wanted;
  auto name_of = [&](Backend b) -> std::string {
    for (const Candidate& c : all)
      if (c.backend == b) return c.name;
    return "?";
  };

  for (const Candidate& declared : all) {
    const Backend b = declared.backend;
    const std::string& bname = declared.name;
    BackendStatus st;
    st.backend = b;
    st.built = declared.built;
    const std::string& file = declared.file;
    std::string install_hint = declared.install_hint;
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
        st.reason = cat("cannot open ", path, ": ", error, install_hint.empty() ? std::string() : cat(". It needs ", install_hint));
        PORTA_LOG(info, bname, " backend unavailable: ", st.reason);
      } else {
        st.reason = cat("cannot open ", path, ": ", error, ". The file itself is damaged or was built for another porta: ",
                        "rebuild and reinstall porta, or remove the file (PORTA_PLUGIN_PATH: ",
                        setting_text("PORTA_PLUGIN_PATH").value_or("unset"), ")");
        PORTA_LOG(warn, bname, " backend unavailable: ", st.reason);
      }
      statuses_.push_back(st);
      continue;
    }
    using EntryFn = const PluginEntry* (*)();
    auto entry_fn = reinterpret_cast<EntryFn>(dlsym(plugin->library, PORTA_PLUGIN_ENTRY_NAME));
    const PluginEntry* entry = entry_fn ? entry_fn() : nullptr;
    if (!entry) {
      st.reason = cat(path, " has no ", PORTA_PLUGIN_ENTRY_NAME, " entry point: it is not a porta plugin; remove it or fix PORTA_PLUGIN_PATH");
      PORTA_LOG(warn, bname, " backend unavailable: ", st.reason);
      statuses_.push_back(st);
      continue;
    }
    // The version first: the rest of the entry's layout is that version's.
    if (entry->api_version != kBackendApiVersion) {
      st.reason = cat(path, " was built for backend interface version ", entry->api_version, " but libporta has ",
                      kBackendApiVersion, ": rebuild porta and its plugins together");
      PORTA_LOG(warn, bname, " backend unavailable: ", st.reason);
      statuses_.push_back(st);
      continue;
    }
    const std::string entry_name = entry->name ? entry->name : "";
    if (entry_name != bname) {
      st.reason = cat(path, " is a plugin of the ", entry_name.empty() ? std::string("unnamed") : entry_name, " backend, not of ", bname,
                      ": the file was renamed or copied over; reinstall porta's plugins");
      PORTA_LOG(warn, bname, " backend unavailable: ", st.reason);
      statuses_.push_back(st);
      continue;
    }
    if (entry->install_hint && *entry->install_hint) install_hint = entry->install_hint;
    try {
      plugin->backend = entry->create(b);
      if (!plugin->backend) throw BackendUnavailable(cat(path, " made no backend"));
    } catch (const std::exception& e) {
      st.reason = cat(e.what(), install_hint.empty() ? std::string() : cat(". It needs ", install_hint));
      PORTA_LOG(info, bname, " backend unavailable: ", st.reason);
      statuses_.push_back(st);
      continue;
    }
    bool consistent = plugin->backend->kind() == b;
    for (auto& d : plugin->backend->devices()) consistent = consistent && d && d->backend() == b;
    if (!consistent) {
      st.reason = cat(path, " made a backend whose kind() or devices are not the value the registry gave it (",
                      static_cast<int>(b), "): its create() must pass its argument on");
      PORTA_LOG(warn, bname, " backend unavailable: ", st.reason);
      statuses_.push_back(st);
      continue;
    }
    st.loaded = true;
    st.version = plugin->backend->version();
    st.notes = plugin->backend->notes();
    st.device_count = static_cast<int>(plugin->backend->devices().size());
    statuses_.push_back(st);
    PORTA_LOG(info, bname, " backend loaded from ", path, " with ", st.device_count, " device(s)");
    loaded.emplace_back(b, std::move(plugin));
  }

  // Devices in the preference order of PORTA_BACKEND (or the order of the values: cuda, opencl,
  // kokkos, then others). Each Device keeps its plugin loaded (an aliasing shared_ptr), so arrays
  // may outlive the registry.
  for (Backend b : wanted)
    for (auto& [backend, plugin] : loaded)
      if (backend == b)
        for (auto& d : plugin->backend->devices()) devices_.emplace_back(std::shared_ptr<DeviceImpl>(plugin, d.get()));
  if (!config_error_ && setting_text("PORTA_BACKEND") && devices_.empty()) {
    std::vector<std::string> why;
    for (auto& st : statuses_)
      if (std::find(wanted.begin(), wanted.end(), st.backend) != wanted.end())
        why.push_back(cat(name_of(st.backend), ": ", st.loaded ? std::string("no devices") : st.reason));
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
