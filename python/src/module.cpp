// porta._core: the compiled part of the Python package. The pure-Python part (porta/__init__.py)
// adds NumPy's conveniences on top.
#include "bindings.hpp"
#include "gil.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

namespace porta::python {

DType to_dtype(nb::handle h) {
  if (nb::isinstance<nb::str>(h)) return parse_dtype(nb::cast<std::string>(h));
  // numpy.dtype objects and porta.bfloat16 carry their name.
  if (!PyType_Check(h.ptr()) && nb::hasattr(h, "name") && nb::isinstance<nb::str>(h.attr("name")))
    return parse_dtype(nb::cast<std::string>(h.attr("name")));
  nb::object np_dtype = nb::module_::import_("numpy").attr("dtype");
  std::string n;
  try {
    n = nb::cast<std::string>(np_dtype(h).attr("name"));
  } catch (const nb::python_error&) {
    throw DTypeError("dtype " + nb::cast<std::string>(nb::repr(h)) +
                     " is not a dtype: use bool, int32, int64, float16, bfloat16, float32 or float64");
  }
  return parse_dtype(n);
}

Shape to_shape(nb::handle h) {
  if (PyLong_Check(h.ptr())) return Shape{nb::cast<std::int64_t>(h)};
  if (PyObject_HasAttrString(h.ptr(), "__index__")) return Shape{nb::cast<std::int64_t>(nb::int_(h))};
  Shape s;
  for (nb::handle e : h) s.push_back(nb::cast<std::int64_t>(nb::int_(e)));
  return s;
}

Device to_device(nb::handle h) {
  if (h.is_none()) return current_device();
  Device* d = nullptr;
  if (nb::try_cast<Device*>(h, d, false) && d) return *d;
  if (nb::isinstance<nb::str>(h)) {
    std::string spec = nb::cast<std::string>(h);
    nb::gil_scoped_release unlocked;
    return device(spec);
  }
  if (PyLong_Check(h.ptr())) {
    std::int64_t i = nb::cast<std::int64_t>(h);
    std::vector<Device> all = devices();
    if (i < 0 || i >= static_cast<std::int64_t>(all.size()))
      throw DeviceError("device index " + std::to_string(i) + " is out of range: there are " +
                        std::to_string(all.size()) + " devices (porta.devices() lists them)");
    return all[static_cast<std::size_t>(i)];
  }
  throw InvalidArgument("device " + nb::cast<std::string>(nb::repr(h)) +
                        " is not a device: pass a porta.Device, a spec such as \"opencl:0\", or an index");
}

}  // namespace porta::python

NB_MODULE(_core, m) {
  using namespace porta::python;
  m.doc() = "porta: one array API over CUDA, OpenCL and Kokkos devices";
  bind_error(m);
  bind_device(m);
  bind_array(m);
  bind_ops(m);
  bind_reduce(m);
  bind_linalg(m);
  bind_random(m);
  bind_kernel(m);
  bind_pool(m);
  bind_interop(m);
  bind_event(m);
  bind_graph(m);
  bind_array_api(m);
  m.def("_gil_counts", [] {
    auto [held, released] = gil::counts();
    return std::make_pair(held, released);
  }, "This thread's eval() calls of pending arrays: (kept the GIL, released it). See README, Python: the GIL.");
  m.def("_gil_ops_held", &gil::ops_held, "This thread's elementwise operations that kept the GIL.");
  m.attr("_gil_hold_us") = static_cast<double>(gil::hold_limit_ns()) / 1000.0;
}
