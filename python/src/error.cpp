// porta's exceptions as Python exceptions under porta.Error. ShapeError is also a ValueError,
// DTypeError a TypeError, OutOfMemory a MemoryError, so code that catches the built-in kinds
// keeps working; CompileError carries the build log and the source.
#include "bindings.hpp"

namespace porta::python {
namespace {

struct ErrorTypes {
  nb::object error, backend_unavailable, device_error, shape_error, dtype_error, invalid_argument, cancelled,
      compile_error, out_of_memory, out_of_range, linalg_error;
};

// src/lazy/expr.cpp's InvalidArgument for a host integer the array's dtype cannot hold says so;
// NumPy 2 raises OverflowError there, so porta's is one too (a NumberOutOfRange).
bool is_overflow(const InvalidArgument& e) {
  return std::string_view(e.what()).find("raises OverflowError") != std::string_view::npos;
}

// Created once under the GIL at import; lives as long as the module.
ErrorTypes* types = nullptr;

nb::object make_type(nb::module_& m, const char* name, std::initializer_list<nb::handle> bases, const char* doc) {
  nb::list b;
  for (nb::handle h : bases) b.append(h);
  nb::dict ns;
  ns["__module__"] = "porta";
  ns["__doc__"] = doc;
  nb::object t = nb::module_::import_("builtins").attr("type")(name, nb::tuple(b), ns);
  m.attr(name) = t;
  return t;
}

void raise(const nb::object& type, const std::exception& e) { PyErr_SetString(type.ptr(), e.what()); }

}  // namespace

void bind_error(nb::module_& m) {
  types = new ErrorTypes;
  nb::handle exc = PyExc_Exception;
  types->error = make_type(m, "Error", {exc}, "Base of every exception porta raises.");
  const nb::object& base = types->error;
  types->backend_unavailable = make_type(m, "BackendUnavailable", {base},
                                         "A backend that was asked for is not built, not loaded, or lacks a driver.");
  types->device_error = make_type(m, "DeviceError", {base}, "A device call failed, or a named device does not exist.");
  types->shape_error = make_type(m, "ShapeError", {base, nb::handle(PyExc_ValueError)}, "Shapes do not fit.");
  types->dtype_error = make_type(m, "DTypeError", {base, nb::handle(PyExc_TypeError)}, "A dtype is not allowed here.");
  types->invalid_argument = make_type(m, "InvalidArgument", {base, nb::handle(PyExc_ValueError)},
                                      "An argument has a value porta cannot use.");
  types->out_of_range = make_type(m, "NumberOutOfRange", {types->invalid_argument, nb::handle(PyExc_OverflowError)},
                                  "A Python integer that the array's dtype cannot hold (uint8 array + 300); also an "
                                  "OverflowError, as NumPy 2 raises.");
  nb::object cancelled_base = nb::module_::import_("concurrent.futures").attr("CancelledError");
  types->cancelled = make_type(m, "Cancelled", {base, cancelled_base}, "A pool task cancelled before it started.");
  types->compile_error = make_type(m, "CompileError", {base},
                                   "Kernel source failed to compile; .log has the build log, .source the source.");
  types->out_of_memory = make_type(m, "OutOfMemory", {base, nb::handle(PyExc_MemoryError)},
                                   "A device allocation failed; .requested_bytes and .available_bytes say how much.");

  // numpy.linalg.LinAlgError as a base, so that code written for NumPy catches porta's; a
  // ValueError (NumPy's base of it) where NumPy is not installed.
  nb::object numpy_linalg_error = nb::borrow<nb::object>(PyExc_ValueError);
  try {
    numpy_linalg_error = nb::module_::import_("numpy.linalg").attr("LinAlgError");
  } catch (const nb::python_error&) {
  }
  types->linalg_error = make_type(m, "LinAlgError", {base, numpy_linalg_error},
                                  "A matrix without the decomposition asked for (singular, not positive definite, no "
                                  "convergence); .batch_index is its flat index in the stack. Also "
                                  "numpy.linalg.LinAlgError.");

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const CompileError& e) {
      nb::object ex = types->compile_error(e.what());
      ex.attr("log") = e.log();
      ex.attr("source") = e.source();
      PyErr_SetObject(types->compile_error.ptr(), ex.ptr());
    } catch (const OutOfMemory& e) {
      nb::object ex = types->out_of_memory(e.what());
      ex.attr("requested_bytes") = e.requested_bytes();
      ex.attr("available_bytes") = e.available_bytes();
      PyErr_SetObject(types->out_of_memory.ptr(), ex.ptr());
    } catch (const BackendUnavailable& e) {
      raise(types->backend_unavailable, e);
    } catch (const DeviceError& e) {
      raise(types->device_error, e);
    } catch (const ShapeError& e) {
      raise(types->shape_error, e);
    } catch (const DTypeError& e) {
      raise(types->dtype_error, e);
    } catch (const InvalidArgument& e) {
      raise(is_overflow(e) ? types->out_of_range : types->invalid_argument, e);
    } catch (const LinAlgError& e) {
      nb::object ex = types->linalg_error(e.what());
      ex.attr("batch_index") = e.batch_index();
      PyErr_SetObject(types->linalg_error.ptr(), ex.ptr());
    } catch (const Cancelled& e) {
      raise(types->cancelled, e);
    } catch (const Error& e) {
      raise(types->error, e);
    }
  });
}

}  // namespace porta::python
