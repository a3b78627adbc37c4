// porta._core: the compiled part of the Python package. The pure-Python part (porta/__init__.py)
// adds NumPy's conveniences on top.
#include "bindings.hpp"
#include "gil.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

namespace porta::python {

// Python names dtypes as NumPy reads them: 'i8' is int64, 'u1' uint8, 'float' float64 (C++'s
// parse_dtype reads 'i8' as int8 and 'float' as float32, ArrayFire's and C's way). So strings other
// than porta's own names, 'bf16' and 'f16' go through numpy.dtype, as every other object does;
// C++'s short names that NumPy does not know ('f32', 'c64') then work too.
DType to_dtype(nb::handle h) {
  std::string n;
  if (nb::isinstance<nb::str>(h)) {
    n = nb::cast<std::string>(h);
    if (n == "bf16") return DType::bfloat16;
    if (n == "f16") return DType::float16;  // NumPy's 'f16' is 16 bytes, a float128 porta has not
  } else if (!PyType_Check(h.ptr()) && nb::hasattr(h, "name") && nb::isinstance<nb::str>(h.attr("name"))) {
    n = nb::cast<std::string>(h.attr("name"));  // numpy.dtype objects and porta.bfloat16 carry their name
  }
  for (DType t : all_dtypes())
    if (name(t) == n) return t;
  nb::object np_dtype = nb::module_::import_("numpy").attr("dtype");
  try {
    n = nb::cast<std::string>(np_dtype(h).attr("name"));
  } catch (const nb::python_error&) {
    // A string NumPy does not know may be one of C++'s short names ("f32", "c64").
    if (nb::isinstance<nb::str>(h)) {
      try {
        return parse_dtype(nb::cast<std::string>(h));
      } catch (const DTypeError&) {
      }
    }
    throw DTypeError("dtype " + nb::cast<std::string>(nb::repr(h)) +
                     " is not a dtype: use bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, "
                     "bfloat16, float32, float64, complex64 or complex128 (or NumPy's dtype of one)");
  }
  for (DType t : all_dtypes())
    if (name(t) == n) return t;
  throw DTypeError("porta has no dtype for NumPy's " + n + " (from " + nb::cast<std::string>(nb::repr(h)) +
                   "): use bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, "
                   "float32, float64, complex64 or complex128");
}

std::optional<DType> numpy_scalar_dtype(nb::handle h) noexcept {
  PyObject* o = h.ptr();
  // Python's own numbers first (np.float64 and np.complex128 subclass float and complex, so no
  // CheckExact shortcut there).
  if (PyBool_Check(o) || PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyComplex_CheckExact(o)) return std::nullopt;
  try {
    if (!nb::hasattr(h, "dtype") || !nb::hasattr(h, "ndim") || nb::cast<long>(h.attr("ndim")) != 0) return std::nullopt;
    nb::object dt = h.attr("dtype");
    if (!nb::hasattr(dt, "name")) return std::nullopt;
    // A dtype porta lacks (longdouble, datetime64...): the scalar stays weak, as its Python value.
    std::string n = nb::cast<std::string>(dt.attr("name"));
    for (DType t : all_dtypes())
      if (name(t) == n) return t;
  } catch (...) {
    PyErr_Clear();
  }
  return std::nullopt;
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
  bind_fft(m);
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
