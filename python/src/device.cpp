// Binds device.hpp: porta.Device (also `with porta.Device("opencl:0"):` and CuPy's .use()),
// devices(), backends(), default/current device, synchronize(); and settings.hpp's settings(), the
// Python side of porta-info's settings (the package ships no porta-info).
#include "bindings.hpp"

#include <porta/settings.hpp>

#include <memory>
#include <vector>

namespace porta::python {
namespace {

// This thread's DeviceScopes, innermost last. `with` pops back to the depth it found; use()
// pushes one that lasts until the thread ends (or an enclosing `with` ends).
struct ThreadScopes {
  std::vector<std::unique_ptr<DeviceScope>> scopes;
  std::vector<std::size_t> with_depths;
};

// Called only after a DeviceScope was made on this thread: porta's own per-thread device then
// exists before this table, so at thread exit it is destroyed after the scopes that restore it.
ThreadScopes& thread_scopes() {
  thread_local ThreadScopes t;
  return t;
}

void push_scope(const Device& d, bool with) {
  auto scope = std::make_unique<DeviceScope>(d);
  ThreadScopes& t = thread_scopes();
  if (with) t.with_depths.push_back(t.scopes.size());
  t.scopes.push_back(std::move(scope));
}

}  // namespace

void bind_device(nb::module_& m) {
  nb::class_<BackendStatus>(m, "BackendStatus", "One backend: built with this porta? loaded? why not?")
      .def_prop_ro("backend", [](const BackendStatus& s) { return std::string(name(s.backend)); })
      .def_ro("built", &BackendStatus::built)
      .def_ro("loaded", &BackendStatus::loaded)
      .def_ro("device_count", &BackendStatus::device_count)
      .def_ro("plugin_path", &BackendStatus::plugin_path)
      .def_ro("reason", &BackendStatus::reason)
      .def_ro("version", &BackendStatus::version)
      .def_ro("notes", &BackendStatus::notes)
      .def("__repr__", [](const BackendStatus& s) {
        return "BackendStatus(" + std::string(name(s.backend)) + ", built=" + (s.built ? "True" : "False") +
               ", loaded=" + (s.loaded ? "True" : "False") + ", devices=" + std::to_string(s.device_count) +
               (s.reason.empty() ? "" : ", reason=" + s.reason) + ")";
      });

  nb::class_<SettingInfo>(m, "Setting", "One PORTA_* setting: its row of the table and its value now.")
      .def_ro("name", &SettingInfo::name)
      .def_ro("type", &SettingInfo::type)
      .def_ro("values", &SettingInfo::values)
      .def_ro("default", &SettingInfo::default_value)
      .def_ro("read", &SettingInfo::read)
      .def_ro("audience", &SettingInfo::audience)
      .def_ro("bad_value", &SettingInfo::bad_value)
      .def_ro("why_error", &SettingInfo::why_error)
      .def_ro("meaning", &SettingInfo::meaning)
      .def_ro("value", &SettingInfo::value)
      .def_ro("source", &SettingInfo::source)
      .def_ro("problem", &SettingInfo::problem)
      .def("__repr__", [](const SettingInfo& s) {
        return "Setting(" + s.name + "=" + s.value + ", source=" + s.source + (s.problem.empty() ? "" : ", problem=" + s.problem) +
               ")";
      });
  m.def("settings", [] { return porta::settings(); },
        "Every PORTA_* setting, in the table's order, with its value now and where it came from (porta-info's list).");

  nb::class_<Device>(m, "Device", "A device of one backend: Device('opencl:0'), Device('gpu'), Device(i).")
      .def("__init__", [](Device* self, nb::handle spec) { new (self) Device(to_device(spec)); }, nb::arg("spec") = nb::none())
      .def_prop_ro("spec", &Device::spec)
      .def_prop_ro("id", &Device::index)
      .def_prop_ro("index", &Device::index)
      .def_prop_ro("backend", [](const Device& d) { return std::string(name(d.backend())); })
      .def_prop_ro("kind", [](const Device& d) { return std::string(name(d.kind())); })
      .def_prop_ro("name", &Device::name)
      .def_prop_ro("vendor", &Device::vendor)
      .def_prop_ro("platform", &Device::platform)
      .def_prop_ro("driver_version", &Device::driver_version)
      .def_prop_ro("memory_bytes", &Device::memory_bytes)
      .def_prop_ro("compute_units", &Device::compute_units)
      .def_prop_ro("pci_bus_id", &Device::pci_bus_id)
      .def_prop_ro("matmul_path", &Device::matmul_path)
      .def_prop_ro("solver_path", &Device::solver_path)
      .def_prop_ro("compiles_at_runtime", &Device::compiles_at_runtime)
      .def("supports", [](const Device& d, nb::handle t) { return d.supports(to_dtype(t)); }, nb::arg("dtype"))
      .def("synchronize", [](const Device& d) { porta::synchronize(d); }, release_gil(),
           "Waits for this thread's work on the device.")
      .def("use", [](const Device& d) { push_scope(d, false); },
           "Makes this the thread's current device (cp.cuda.Device(i).use()).")
      .def("__enter__", [](const Device& d) {
        push_scope(d, true);
        return d;
      })
      .def("__exit__", [](const Device&, nb::args) {
        ThreadScopes& t = thread_scopes();
        if (t.with_depths.empty()) return;
        std::size_t depth = t.with_depths.back();
        t.with_depths.pop_back();
        while (t.scopes.size() > depth) t.scopes.pop_back();
      })
      .def("__eq__", [](const Device& a, const Device& b) { return a == b; })
      .def("__ne__", [](const Device& a, const Device& b) { return a != b; })
      .def("__hash__", [](const Device& d) { return std::hash<std::string>()(d.spec()); })
      .def("__repr__", [](const Device& d) { return "<porta.Device " + d.spec() + ": " + d.name() + ">"; })
      .def("__str__", &Device::spec);

  m.def("devices", &porta::devices, release_gil(), "Every device of every loaded backend, in preference order.");
  m.def("backends", &porta::backends, release_gil(), "Every backend porta knows: built? loaded? why not?");
  m.def("default_device", &porta::default_device, release_gil());
  m.def("current_device", &porta::current_device, release_gil(),
        "This thread's device: the innermost `with porta.Device(...)`, else the default device.");
  m.def("get_device", [](nb::handle spec) { return to_device(spec); }, nb::arg("spec") = nb::none());
  m.def("synchronize", [](nb::handle d) {
        if (d.is_none()) {
          nb::gil_scoped_release unlocked;
          porta::synchronize();
        } else {
          Device dev = to_device(d);
          nb::gil_scoped_release unlocked;
          porta::synchronize(dev);
        }
      }, nb::arg("device") = nb::none(), "Waits for this thread's work (on one device, or on every one it used).");
}

}  // namespace porta::python
