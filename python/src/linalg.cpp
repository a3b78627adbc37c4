// Binds linalg.hpp: matmul, dot and the @ operator.
#include "bindings.hpp"

namespace porta::python {

void bind_linalg(nb::module_& m) {
  m.def("matmul", [](const Array& a, const Array& b) { return porta::matmul(a, b); }, nb::arg("x1"), nb::arg("x2"),
        release_gil());
  m.def("dot", [](const Array& a, const Array& b) {
    return a.ndim() == 1 && b.ndim() == 1 ? porta::dot(a, b) : porta::matmul(a, b);
  }, nb::arg("a"), nb::arg("b"), release_gil());
  nb::handle cls = nb::type<Array>();
  nb::cpp_function_def([](const Array& a, const Array& b) { return porta::matmul(a, b); }, nb::scope(cls),
                       nb::name("__matmul__"), nb::is_method(), nb::is_operator(), release_gil());
  nb::cpp_function_def([](const Array& a, const Array& b) { return porta::matmul(b, a); }, nb::scope(cls),
                       nb::name("__rmatmul__"), nb::is_method(), nb::is_operator(), release_gil());
}

}  // namespace porta::python
