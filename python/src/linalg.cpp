// Binds linalg.hpp: matmul, dot, the @ operator, vecdot and tensordot (porta/_compose.py wraps
// the last two with NumPy's arguments).
#include "bindings.hpp"

namespace porta::python {

void bind_linalg(nb::module_& m) {
  m.def("matmul", [](const Array& a, const Array& b) { return porta::matmul(a, b); }, nb::arg("x1"), nb::arg("x2"),
        release_gil());
  // NumPy's dot: 0-d operands multiply; up to 2-D it is matmul; beyond, the sum over a's last axis
  // and b's second-to-last (its only one when 1-D), the free axes of a then of b (not matmul's
  // broadcast batches).
  m.def("dot", [](const Array& a, const Array& b) {
    if (a.ndim() == 0 || b.ndim() == 0) return porta::multiply(a, b);
    if (a.ndim() == 1 && b.ndim() == 1) return porta::dot(a, b);
    if (a.ndim() <= 2 && b.ndim() <= 2) return porta::matmul(a, b);
    return porta::tensordot(a, b, std::vector<int>{a.ndim() - 1}, std::vector<int>{b.ndim() >= 2 ? b.ndim() - 2 : 0});
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
