// Binds pool.hpp: porta's worker threads run Python callables, taking the GIL only to run them.
// porta/_pool.py turns this into a concurrent.futures.Executor.
#include "bindings.hpp"

#include <memory>

namespace porta::python {
namespace {

class PoolHandle {
 public:
  PoolHandle(std::vector<Device> devices, int workers) : pool_(std::make_unique<DevicePool>(std::move(devices), workers)) {}
  ~PoolHandle() {
    // Workers may be waiting for the GIL to run a task: drain without it.
    nb::gil_scoped_release unlocked;
    pool_.reset();
  }
  DevicePool& pool() {
    if (!pool_) throw InvalidArgument("this DevicePool was shut down: make a new one");
    return *pool_;
  }
  void shutdown() {
    std::unique_ptr<DevicePool> p = std::move(pool_);
    nb::gil_scoped_release unlocked;
    p.reset();
  }

 private:
  std::unique_ptr<DevicePool> pool_;
};

}  // namespace

void bind_pool(nb::module_& m) {
  nb::class_<PoolHandle>(m, "_DevicePool")
      .def("__init__", [](PoolHandle* self, nb::handle devices, int workers) {
        std::vector<Device> ds;
        if (devices.is_none()) {
          nb::gil_scoped_release unlocked;
          ds = DevicePool::all_devices();
        } else {
          for (nb::handle h : devices) ds.push_back(to_device(h));
        }
        nb::gil_scoped_release unlocked;
        new (self) PoolHandle(std::move(ds), workers);
      }, nb::arg("devices") = nb::none(), nb::arg("workers_per_device") = 0)
      .def("submit", [](PoolHandle& p, nb::handle fn, nb::handle device) {
        auto ref = std::make_shared<PyRef>(fn);
        auto task = [ref](const Device&) {
          nb::gil_scoped_acquire locked;
          PyObject* r = PyObject_CallNoArgs(ref->obj);
          if (r) Py_DECREF(r);
          else PyErr_WriteUnraisable(ref->obj);
        };
        DevicePool& pool = p.pool();
        if (device.is_none()) {
          nb::gil_scoped_release unlocked;
          pool.submit(std::move(task));
        } else {
          Device d = to_device(device);
          nb::gil_scoped_release unlocked;
          pool.submit_to(d, std::move(task));
        }
      }, nb::arg("fn"), nb::arg("device") = nb::none())
      .def("wait", [](PoolHandle& p) { p.pool().wait(); }, release_gil())
      .def("cancel", [](PoolHandle& p) { return p.pool().cancel(); }, release_gil())
      .def("shutdown", &PoolHandle::shutdown)
      .def_prop_ro("devices", [](PoolHandle& p) { return p.pool().devices(); })
      .def_prop_ro("pending", [](PoolHandle& p) { return p.pool().pending(); })
      .def_prop_ro("in_flight", [](PoolHandle& p) { return p.pool().in_flight(); })
      .def_prop_ro("completed", [](PoolHandle& p) { return p.pool().completed(); });
}

}  // namespace porta::python
