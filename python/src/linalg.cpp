// Binds linalg.hpp: matmul, dot, the @ operator, vecdot and tensordot (porta/_compose.py wraps
// the last two with NumPy's arguments).
#include "bindings.hpp"

namespace porta::python {

void bind_linalg(nb::module_& m) {
  m.def("matmul", [](const Array& a, const Array& b) { return porta::matmul(a, b); }, nb::arg("x1"), nb::arg("x2"),
        release_gil());
  m.def("dot", [](const Array& a, const Array& b) {
    return a.ndim() == 1 && b.ndim() == 1 ? porta::dot(a, b) : porta::matmul(a, b);
  }, nb::arg("a"), nb::arg("b"), release_gil());
  m.def("_vecdot", &porta::vecdot, nb::arg("x1"), nb::arg("x2"), nb::arg("axis"), release_gil());
  m.def("_tensordot", nb::overload_cast<const Array&, const Array&, int>(&porta::tensordot), nb::arg("a"), nb::arg("b"),
        nb::arg("axes"), release_gil());
  m.def("_tensordot_axes",
        nb::overload_cast<const Array&, const Array&, const std::vector<int>&, const std::vector<int>&>(&porta::tensordot),
        nb::arg("a"), nb::arg("b"), nb::arg("a_axes"), nb::arg("b_axes"), release_gil());
  nb::handle cls = nb::type<Array>();
  nb::cpp_function_def([](const Array& a, const Array& b) { return porta::matmul(a, b); }, nb::scope(cls),
                       nb::name("__matmul__"), nb::is_method(), nb::is_operator(), release_gil());
  nb::cpp_function_def([](const Array& a, const Array& b) { return porta::matmul(b, a); }, nb::scope(cls),
                       nb::name("__rmatmul__"), nb::is_method(), nb::is_operator(), release_gil());
}

}  // namespace porta::python
