// Shared by the binding files: one bind_* function per public header, and the conversions from
// Python objects that several of them need (operands, dtypes, shapes, devices).
#pragma once

#include <cstdint>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <porta/porta.hpp>

namespace porta::python {

namespace nb = nanobind;
// Calls into porta run without the GIL, so other Python threads run meanwhile; the elementwise
// operations and eval() decide for themselves (gil.hpp).
using release_gil = nb::call_guard<nb::gil_scoped_release>;

void bind_error(nb::module_& m);
void bind_device(nb::module_& m);
void bind_array(nb::module_& m);
void bind_ops(nb::module_& m);
void bind_reduce(nb::module_& m);
void bind_linalg(nb::module_& m);
void bind_fft(nb::module_& m);
void bind_random(nb::module_& m);
void bind_kernel(nb::module_& m);
void bind_pool(nb::module_& m);
void bind_interop(nb::module_& m);
void bind_event(nb::module_& m);
void bind_graph(nb::module_& m);
void bind_array_api(nb::module_& m);  // index.hpp, scan.hpp, sort.hpp, manip.hpp

// A dtype as NumPy spells it: a string ("float32", "f4"), a numpy.dtype, a scalar type
// (numpy.float32, float, int, bool) or anything numpy.dtype() accepts.
DType to_dtype(nb::handle h);
// An int or a sequence of ints.
Shape to_shape(nb::handle h);
// None (this thread's current device), a Device, a spec ("opencl:0") or an index into devices().
Device to_device(nb::handle h);

// A NumPy scalar's (or 0-d NumPy array's) dtype where porta has it; nullopt for anything else
// (porta arrays, Python numbers, other objects). Never throws.
std::optional<DType> numpy_scalar_dtype(nb::handle h) noexcept;

// An operand of an elementwise function from Python: porta's Operand (NumPy scalars in it as their
// Python value, weak) and, for a NumPy scalar, its dtype, which NumPy 2 promotes strongly (NEP 50):
// ops.cpp's promote_numpy_scalars casts the arrays for it.
struct PyOperand {
  Operand op = Array();
  std::optional<DType> numpy_dtype;
  // A Python int beyond every 64-bit dtype: op holds it as a float (for float arrays, where NumPy
  // takes it so); ops.cpp's promote_numpy_scalars refuses it beside integer arrays (OverflowError).
  bool huge_int = false;
  std::string huge_text;  // its digits, for the message
};

// A Python object held by porta (a pool task, a producer's array under a zero-copy import):
// dropped with the GIL, from whichever thread drops it.
struct PyRef {
  PyObject* obj;
  explicit PyRef(nb::handle h) : obj(h.inc_ref().ptr()) {}
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  ~PyRef() {
    if (!Py_IsInitialized()) return;
    nb::gil_scoped_acquire locked;
    Py_DECREF(obj);
  }
};

}  // namespace porta::python

// Python numbers become porta's weakly typed host numbers (NumPy 2's rule for Python scalars);
// NumPy scalars go through __index__ / __float__. Anything else is not an operand, so an
// operator returns NotImplemented and a function raises TypeError.
namespace nanobind::detail {
template <> struct type_caster<porta::Operand> {
  NB_TYPE_CASTER(porta::Operand, const_name("ndarray | bool | int | float | complex"))
  type_caster() : value(porta::Array()) {}

  bool from_python(handle src, uint8_t flags, cleanup_list* cleanup) noexcept {
    if (nanobind::isinstance<porta::Array>(src)) {  // the common case, first and without a generic cast
      value = porta::Operand(*nanobind::inst_ptr<porta::Array>(src));
      return true;
    }
    PyObject* o = src.ptr();
    if (PyBool_Check(o)) {
      value = porta::Operand(o == Py_True);
      return true;
    }
    if (PyLong_Check(o)) {
      // int64, else (up to 2^64 - 1) an unsigned number for uint64 arrays (Operand's big_unsigned);
      // beyond that no porta dtype holds it, and the operator is not porta's.
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (overflow > 0) {
        unsigned long long u = PyLong_AsUnsignedLongLong(o);
        if (u == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
          PyErr_Clear();
          return false;
        }
        value = porta::Operand(u);
        return true;
      }
      if (overflow || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return false;
      }
      value = porta::Operand(static_cast<std::int64_t>(v));
      return true;
    }
    if (PyFloat_Check(o)) {
      value = porta::Operand(PyFloat_AS_DOUBLE(o));
      return true;
    }
    if (PyComplex_Check(o)) {  // weak as Python's float: complex64 arrays stay complex64
      value = porta::Operand(std::complex<double>(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)));
      return true;
    }
    // NumPy scalars and 0-d arrays, through their Python value (weakly typed); not NumPy arrays,
    // which would be a silent copy to the device (CuPy refuses them too).
    if (PyObject_HasAttrString(o, "dtype") && PyObject_HasAttrString(o, "item") &&
        PyObject_HasAttrString(o, "ndim")) {
      PyObject* nd = PyObject_GetAttrString(o, "ndim");
      long n = nd ? PyLong_AsLong(nd) : -1;
      Py_XDECREF(nd);
      if (n != 0) {
        PyErr_Clear();
        return false;
      }
      PyObject* item = PyObject_CallMethod(o, "item", nullptr);
      if (!item) {
        PyErr_Clear();
        return false;
      }
      bool ok = from_python(item, flags, cleanup);
      Py_DECREF(item);
      return ok;
    }
    return false;
  }
  static handle from_cpp(const porta::Operand&, rv_policy, cleanup_list*) noexcept { return handle(); }
};

template <> struct type_caster<porta::python::PyOperand> {
  NB_TYPE_CASTER(porta::python::PyOperand, const_name("ndarray | bool | int | float | complex"))

  bool from_python(handle src, uint8_t flags, cleanup_list* cleanup) noexcept {
    make_caster<porta::Operand> inner;
    if (!inner.from_python(src, flags, cleanup)) {
      if (!PyLong_Check(src.ptr())) return false;
      double d = PyLong_AsDouble(src.ptr());  // beyond float64's range: OverflowError, not porta's
      if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
      }
      value.op = porta::Operand(d);
      value.numpy_dtype.reset();
      value.huge_int = true;
      value.huge_text.clear();
      if (PyObject* text = PyObject_Str(src.ptr())) {
        if (const char* utf8 = PyUnicode_AsUTF8(text)) value.huge_text = utf8;
        Py_DECREF(text);
      }
      PyErr_Clear();
      return true;
    }
    value.op = std::move(inner.value);
    value.huge_int = false;
    value.numpy_dtype = value.op.kind() == porta::Operand::Kind::array ? std::nullopt
                                                                       : porta::python::numpy_scalar_dtype(src);
    return true;
  }
  static handle from_cpp(const porta::python::PyOperand&, rv_policy, cleanup_list*) noexcept { return handle(); }
};
}  // namespace nanobind::detail
