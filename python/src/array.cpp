// Binds array.hpp: porta.ndarray (shape, views, astype, to, host copies) and the creation
// functions. NumPy's spellings (dtype objects, indexing, repr) are added in porta/_array.py.
#include "bindings.hpp"
#include "gil.hpp"

#include <nanobind/stl/tuple.h>

namespace porta::python {
namespace {

// A C-contiguous host buffer (a NumPy array) through the buffer protocol, held while porta
// copies without the GIL.
class HostBuffer {
 public:
  HostBuffer(nb::handle h, bool writable) {
    if (PyObject_GetBuffer(h.ptr(), &view_, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) != 0)
      throw nb::python_error();
  }
  ~HostBuffer() { PyBuffer_Release(&view_); }
  HostBuffer(const HostBuffer&) = delete;
  void* data() const { return view_.buf; }
  std::size_t nbytes() const { return static_cast<std::size_t>(view_.len); }
  std::size_t size() const { return view_.itemsize ? nbytes() / static_cast<std::size_t>(view_.itemsize) : 0; }

 private:
  Py_buffer view_{};
};

nb::tuple shape_tuple(const Shape& s) {
  nb::list l;
  for (std::int64_t d : s) l.append(d);
  return nb::tuple(l);
}

Shape shape_args(const nb::args& args) {
  if (args.size() == 1) return to_shape(args[0]);
  Shape s;
  for (nb::handle a : args) s.push_back(nb::cast<std::int64_t>(a));
  return s;
}

std::vector<int> axes_args(const nb::args& args) {
  std::vector<int> axes;
  if (args.size() == 1 && !PyLong_Check(args[0].ptr())) {
    if (args[0].is_none()) return axes;
    for (nb::handle a : args[0]) axes.push_back(nb::cast<int>(a));
  } else {
    for (nb::handle a : args) axes.push_back(nb::cast<int>(a));
  }
  return axes;
}

std::vector<Array> array_list(nb::handle seq) {
  std::vector<Array> out;
  for (nb::handle h : seq) out.push_back(nb::cast<Array>(h));
  return out;
}

// A dtype argument of the creation functions: None (the array API's default) is float64, NumPy's.
DType dtype_or_float64(nb::handle dtype) { return dtype.is_none() ? DType::float64 : to_dtype(dtype); }

}  // namespace

void bind_array(nb::module_& m) {
  nb::class_<Array> cls(m, "ndarray", "An n-dimensional array on one device (cupy.ndarray's counterpart).");
  cls.def_prop_ro("shape", [](const Array& a) { return shape_tuple(a.shape()); })
      .def_prop_ro("ndim", &Array::ndim)
      .def_prop_ro("size", &Array::size)
      .def_prop_ro("nbytes", &Array::nbytes)
      .def_prop_ro("itemsize", [](const Array& a) { return itemsize(a.dtype()); })
      .def_prop_ro("device", &Array::device)
      .def_prop_ro("_dtype_name", [](const Array& a) { return std::string(name(a.dtype())); })
      .def_prop_ro("T", [](const Array& a) { return a.transpose(); }, release_gil())
      .def_prop_ro("mT", [](const Array& a) {
        std::vector<int> axes(static_cast<std::size_t>(a.ndim()));
        for (int i = 0; i < a.ndim(); ++i) axes[static_cast<std::size_t>(i)] = i;
        if (a.ndim() >= 2) std::swap(axes[axes.size() - 1], axes[axes.size() - 2]);
        return a.transpose(axes);
      }, release_gil())
      .def("__len__", [](const Array& a) {
        if (a.ndim() == 0) throw nb::type_error("len() of a 0-d porta array");
        return a.dim(0);
      })
      // Returns the same Python object: no new wrapper on the small-op path `(a + b).eval()`.
      // Without the GIL, except a repeat of a short evaluation (gil.hpp).
      .def("eval", [](nb::handle self) {
        gil::eval(nb::cast<const Array&>(self));
        return nb::borrow(self);
      }, "Runs a pending expression now; returns the array.")
      .def_prop_ro("is_evaluated", &Array::is_evaluated)
      .def_prop_ro("is_contiguous", &Array::is_contiguous)
      .def("reshape", [](const Array& a, nb::args shape) {
        Shape s = shape_args(shape);
        nb::gil_scoped_release unlocked;
        return a.reshape(std::move(s));
      })
      .def("transpose", [](const Array& a, nb::args axes) {
        std::vector<int> ax = axes_args(axes);
        nb::gil_scoped_release unlocked;
        return ax.empty() ? a.transpose() : a.transpose(ax);
      })
      .def("flatten", [](const Array& a) { return a.flatten().copy(); }, release_gil())
      .def("ravel", &Array::flatten, release_gil())
      .def("squeeze", [](const Array& a) { return a.squeeze(); }, release_gil())
      .def("_expand_dims", &Array::expand_dims, release_gil())
      .def("_broadcast_to", &Array::broadcast_to, release_gil())
      .def("astype", [](const Array& a, nb::handle dtype, bool copy) {
        DType t = to_dtype(dtype);
        nb::gil_scoped_release unlocked;
        if (t == a.dtype()) return copy ? a.copy() : a;
        return a.astype(t);
      }, nb::arg("dtype"), nb::arg("copy") = true)
      .def("copy", &Array::copy, release_gil())
      .def("to", [](const Array& a, nb::handle d) {
        Device dev = to_device(d);
        nb::gil_scoped_release unlocked;
        return a.to(dev);
      }, nb::arg("device"), "The array on another device (also across backends).")
      .def("_slice", [](const Array& a, const std::vector<std::tuple<std::optional<std::int64_t>, std::optional<std::int64_t>, std::int64_t>>& s) {
        std::vector<Slice> slices;
        for (const auto& [start, stop, step] : s) slices.push_back(Slice{start, stop, step});
        nb::gil_scoped_release unlocked;
        return a.slice(std::move(slices));
      })
      .def("_index", [](const Array& a, std::int64_t i) { return a[i]; }, release_gil())
      .def("_to_host", [](const Array& a, nb::handle host) {
        HostBuffer out(host, true);
        void* dst = out.data();
        std::size_t bytes = out.nbytes();
        nb::gil_scoped_release unlocked;
        a.to_host(a.dtype(), dst, bytes);
      }, "Copies into a C-contiguous host buffer of the array's dtype and size.");

  m.def("_from_host", [](nb::handle host, nb::handle dtype, nb::handle shape, nb::handle device) {
    HostBuffer src(host, false);
    DType t = to_dtype(dtype);
    Shape s = to_shape(shape);
    Device d = to_device(device);
    const void* data = src.data();
    std::size_t count = src.size();
    nb::gil_scoped_release unlocked;
    return from_host(data, t, std::move(s), std::move(d), count);
  }, nb::arg("host"), nb::arg("dtype"), nb::arg("shape"), nb::arg("device").none());
  // NumPy's promotion of two dtypes, by name (porta/_dtypes.py: result_type, can_cast).
  m.def("_promote_types", [](std::string_view a, std::string_view b) {
    return std::string(name(promote_types(parse_dtype(a), parse_dtype(b))));
  }, nb::arg("a"), nb::arg("b"));
  // The name of the dtype anything names (module.cpp's to_dtype: NumPy's spellings, C++'s short names).
  m.def("_dtype_name", [](nb::handle dtype) { return std::string(name(to_dtype(dtype))); }, nb::arg("dtype"));
  // porta::iinfo and porta::finfo by name (porta/_dtypes.py makes NumPy's iinfo and finfo of them).
  m.def("_iinfo", [](std::string_view t) {
    IntInfo i = iinfo(parse_dtype(t));
    return nb::make_tuple(i.bits, i.min, i.max);
  }, nb::arg("dtype"));
  m.def("_finfo", [](std::string_view t) {
    FloatInfo f = finfo(parse_dtype(t));
    nb::dict d;
    d["dtype"] = std::string(name(f.dtype));
    d["bits"] = f.bits;
    d["eps"] = f.eps;
    d["max"] = f.max;
    d["min"] = f.min;
    d["smallest_normal"] = f.smallest_normal;
    d["smallest_subnormal"] = f.smallest_subnormal;
    d["nmant"] = f.mantissa_bits;
    d["nexp"] = f.exponent_bits;
    return d;
  }, nb::arg("dtype"));
  m.def("empty", [](nb::handle shape, nb::handle dtype, nb::handle device) {
    Shape s = to_shape(shape);
    DType t = dtype_or_float64(dtype);
    Device d = to_device(device);
    nb::gil_scoped_release unlocked;
    return empty(std::move(s), t, std::move(d));
  }, nb::arg("shape"), nb::arg("dtype").none() = nb::none(), nb::arg("device") = nb::none());
  m.def("zeros", [](nb::handle shape, nb::handle dtype, nb::handle device) {
    Shape s = to_shape(shape);
    DType t = dtype_or_float64(dtype);
    Device d = to_device(device);
    nb::gil_scoped_release unlocked;
    return zeros(std::move(s), t, std::move(d));
  }, nb::arg("shape"), nb::arg("dtype").none() = nb::none(), nb::arg("device") = nb::none());
  m.def("ones", [](nb::handle shape, nb::handle dtype, nb::handle device) {
    Shape s = to_shape(shape);
    DType t = dtype_or_float64(dtype);
    Device d = to_device(device);
    nb::gil_scoped_release unlocked;
    return ones(std::move(s), t, std::move(d));
  }, nb::arg("shape"), nb::arg("dtype").none() = nb::none(), nb::arg("device") = nb::none());
  m.def("_full", [](nb::handle shape, double value, nb::handle dtype, nb::handle device) {
    Shape s = to_shape(shape);
    DType t = to_dtype(dtype);
    Device d = to_device(device);
    nb::gil_scoped_release unlocked;
    return full(std::move(s), value, t, std::move(d));
  }, nb::arg("shape"), nb::arg("value"), nb::arg("dtype"), nb::arg("device").none());
  m.def("_arange", [](double start, double stop, double step, nb::handle dtype, nb::handle device) {
    DType t = to_dtype(dtype);
    Device d = to_device(device);
    nb::gil_scoped_release unlocked;
    return arange(start, stop, step, t, std::move(d));
  }, nb::arg("start"), nb::arg("stop"), nb::arg("step"), nb::arg("dtype"), nb::arg("device").none());
  m.def("_linspace", [](double start, double stop, std::int64_t num, bool endpoint, nb::handle dtype, nb::handle device) {
    DType t = to_dtype(dtype);
    Device d = to_device(device);
    nb::gil_scoped_release unlocked;
    return linspace(start, stop, num, t, std::move(d), endpoint);
  }, nb::arg("start"), nb::arg("stop"), nb::arg("num"), nb::arg("endpoint"), nb::arg("dtype"), nb::arg("device").none());
  m.def("eye", [](std::int64_t n, std::optional<std::int64_t> mcols, std::int64_t k, nb::handle dtype, nb::handle device) {
    DType t = dtype_or_float64(dtype);
    Device d = to_device(device);
    nb::gil_scoped_release unlocked;
    return eye(n, mcols.value_or(n), k, t, std::move(d));
  }, nb::arg("N"), nb::arg("M") = nb::none(), nb::arg("k") = 0, nb::arg("dtype").none() = nb::none(), nb::arg("device") = nb::none());
  m.def("concatenate", [](nb::handle arrays, int axis) {
    std::vector<Array> v = array_list(arrays);
    nb::gil_scoped_release unlocked;
    return concatenate(v, axis);
  }, nb::arg("arrays"), nb::arg("axis") = 0);
  m.def("stack", [](nb::handle arrays, int axis) {
    std::vector<Array> v = array_list(arrays);
    nb::gil_scoped_release unlocked;
    return stack(v, axis);
  }, nb::arg("arrays"), nb::arg("axis") = 0);
}

}  // namespace porta::python
