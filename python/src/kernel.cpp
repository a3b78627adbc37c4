// Binds kernel.hpp: ElementwiseKernel (CuPy's) and RawKernel (CuPy's RawKernel, PyCUDA's
// SourceModule), launched with CuPy's grid and block tuples.
#include "bindings.hpp"

namespace porta::python {
namespace {

// An int, a tuple of 1 to 3 ints, or (OpenCL) None / all zeros: the runtime chooses the work-group.
Dim3 to_dim3(nb::handle h, const char* what) {
  if (h.is_none()) return Dim3{0, 0, 0};
  if (PyLong_Check(h.ptr())) return Dim3{nb::cast<std::uint32_t>(h), 1, 1};
  std::vector<std::uint32_t> v;
  for (nb::handle e : h) v.push_back(nb::cast<std::uint32_t>(nb::int_(e)));
  if (v.empty() || v.size() > 3)
    throw InvalidArgument(std::string(what) + " has " + std::to_string(v.size()) +
                          " entries: give an int or a tuple of 1 to 3 ints, as (4, 4, 1)");
  bool all_zero = true;
  for (std::uint32_t x : v) all_zero = all_zero && x == 0;
  v.resize(3, all_zero ? 0 : 1);
  return Dim3{v[0], v[1], v[2]};
}

// CuPy's rule for kernel arguments: arrays by pointer, NumPy scalars with their own C type,
// Python int as int64 and float as double (pass numpy.int32(n) to an `int n` parameter).
RawArg to_raw_arg(nb::handle h) {
  Array* a = nullptr;
  if (nb::try_cast<Array*>(h, a, false) && a) return RawArg(*a);
  if (PyBool_Check(h.ptr())) return RawArg(std::int32_t(h.ptr() == Py_True));
  if (PyLong_Check(h.ptr())) return RawArg(nb::cast<std::int64_t>(h));
  if (PyFloat_Check(h.ptr())) return RawArg(nb::cast<double>(h));
  if (nb::hasattr(h, "dtype") && nb::hasattr(h, "item")) {
    std::string t = nb::cast<std::string>(h.attr("dtype").attr("name"));
    nb::object v = h.attr("item")();
    if (t == "float32") return RawArg(static_cast<float>(nb::cast<double>(v)));
    if (t == "float64") return RawArg(nb::cast<double>(v));
    if (t == "int32" || t == "int16" || t == "int8" || t == "bool") return RawArg(nb::cast<std::int32_t>(nb::int_(v)));
    if (t == "int64") return RawArg(nb::cast<std::int64_t>(v));
    if (t == "uint32" || t == "uint16" || t == "uint8") return RawArg(nb::cast<std::uint32_t>(v));
    if (t == "uint64") return RawArg(nb::cast<std::uint64_t>(v));
  }
  throw InvalidArgument("kernel argument " + nb::cast<std::string>(nb::repr(h)) +
                        " is not a porta array or a number: pass arrays, Python numbers or NumPy scalars");
}

std::vector<Operand> operands(const nb::args& args) {
  std::vector<Operand> out;
  out.reserve(args.size());
  for (nb::handle h : args) {
    Operand o = Array();
    if (!nb::try_cast<Operand>(h, o))
      throw nb::type_error(("ElementwiseKernel argument " + nb::cast<std::string>(nb::repr(h)) +
                            " is not a porta array or a Python number (use porta.asarray for host data)").c_str());
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace

void bind_kernel(nb::module_& m) {
  nb::class_<ElementwiseKernel>(m, "ElementwiseKernel",
                                "ElementwiseKernel(in_params, out_params, operation, name='elementwise_kernel', preamble=''): "
                                "one body for every device that compiles at run time.")
      .def(nb::init<std::string, std::string, std::string, std::string, std::string>(), nb::arg("in_params"),
           nb::arg("out_params"), nb::arg("operation"), nb::arg("name") = "elementwise_kernel", nb::arg("preamble") = "",
           release_gil())
      .def("__call__", [](const ElementwiseKernel& k, nb::args args) -> nb::object {
        std::vector<Operand> ops = operands(args);
        std::vector<Array> out;
        {
          nb::gil_scoped_release unlocked;
          out = k.call(ops);
        }
        if (out.size() == 1) return nb::cast(out[0]);
        nb::list l;
        for (Array& a : out) l.append(nb::cast(a));
        return nb::tuple(l);
      });

  nb::class_<RawKernel>(m, "_RawKernel")
      .def("__init__", [](RawKernel* self, std::string code, std::string name, std::vector<std::string> options,
                          std::string backend) {
        Backend b = backend == "cuda" ? Backend::cuda : Backend::opencl;
        if (backend != "cuda" && backend != "opencl")
          throw InvalidArgument("RawKernel backend '" + backend + "': use 'cuda' (CUDA C++) or 'opencl' (OpenCL C)");
        new (self) RawKernel(b, std::move(code), std::move(name), std::move(options));
      })
      .def("__call__", [](const RawKernel& k, nb::handle grid, nb::handle block, nb::handle args,
                          std::size_t shared_mem, nb::handle device) {
        Dim3 g = to_dim3(grid, "grid"), b = to_dim3(block, "block");
        std::vector<RawArg> raw;
        for (nb::handle h : args) raw.push_back(to_raw_arg(h));
        Device d = device.is_none() ? Device() : to_device(device);
        nb::gil_scoped_release unlocked;
        k.launch(g, b, raw, shared_mem, d);
      }, nb::arg("grid"), nb::arg("block").none(), nb::arg("args"), nb::arg("shared_mem") = 0, nb::arg("device") = nb::none())
      .def("compile", [](const RawKernel& k, nb::handle device) {
        Device d = to_device(device);
        nb::gil_scoped_release unlocked;
        k.compile(d);
      }, nb::arg("device") = nb::none());
}

}  // namespace porta::python
