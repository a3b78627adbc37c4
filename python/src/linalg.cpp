// Binds linalg.hpp: matmul, dot, the @ operator, vecdot and tensordot (porta/_compose.py wraps
// the last two with NumPy's arguments), and porta::linalg's functions as _linalg_* (porta/linalg.py
// gives them NumPy's names, arguments and result tuples).
#include "bindings.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/tuple.h>

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
  namespace la = porta::linalg;
  m.def("_linalg_solve", &la::solve, nb::arg("a"), nb::arg("b"), release_gil());
  m.def("_linalg_inv", &la::inv, nb::arg("a"), release_gil());
  m.def("_linalg_det", &la::det, nb::arg("a"), release_gil());
  m.def("_linalg_slogdet", [](const Array& a) {
    auto r = la::slogdet(a);
    return std::make_pair(r.sign, r.logabsdet);
  }, nb::arg("a"), release_gil());
  m.def("_linalg_cholesky", &la::cholesky, nb::arg("a"), nb::arg("upper"), release_gil());
  m.def("_linalg_qr", [](const Array& a, const std::string& mode) {
    la::QrMode q = mode == "reduced" ? la::QrMode::reduced : mode == "complete" ? la::QrMode::complete
                 : mode == "r" ? la::QrMode::r
                 : throw InvalidArgument("qr: mode '" + mode + "' is not one of 'reduced', 'complete', 'r'");
    auto r = la::qr(a, q);
    return std::make_pair(r.Q, r.R);
  }, nb::arg("a"), nb::arg("mode"), release_gil());
  m.def("_linalg_eigh", [](const Array& a, bool upper) {
    auto r = la::eigh(a, upper);
    return std::make_pair(r.eigenvalues, r.eigenvectors);
  }, nb::arg("a"), nb::arg("upper"), release_gil());
  m.def("_linalg_eigvalsh", &la::eigvalsh, nb::arg("a"), nb::arg("upper"), release_gil());
  m.def("_linalg_svd", [](const Array& a, bool full) {
    auto r = la::svd(a, full);
    return std::make_tuple(r.U, r.S, r.Vh);
  }, nb::arg("a"), nb::arg("full_matrices"), release_gil());
  m.def("_linalg_svdvals", &la::svdvals, nb::arg("a"), release_gil());
  m.def("_linalg_lstsq", [](const Array& a, const Array& b, std::optional<double> rcond) {
    auto r = la::lstsq(a, b, rcond);
    return std::make_tuple(r.x, r.residuals, r.rank, r.s);
  }, nb::arg("a"), nb::arg("b"), nb::arg("rcond").none(), release_gil());
  m.def("_linalg_pinv", nb::overload_cast<const Array&, std::optional<double>>(&la::pinv), nb::arg("a"),
        nb::arg("rtol").none(), release_gil());
  m.def("_linalg_pinv_array", nb::overload_cast<const Array&, const Array&>(&la::pinv), nb::arg("a"), nb::arg("rtol"),
        release_gil());
  m.def("_linalg_matrix_rank", nb::overload_cast<const Array&, std::optional<double>, std::optional<double>>(&la::matrix_rank),
        nb::arg("a"), nb::arg("rtol").none(), nb::arg("tol").none(), release_gil());
  m.def("_linalg_matrix_rank_array", [](const Array& a, const Array& tol, bool absolute) {
    return la::matrix_rank(a, tol, absolute ? la::Tolerance::absolute : la::Tolerance::relative);
  }, nb::arg("a"), nb::arg("tol"), nb::arg("absolute"), release_gil());
  m.def("_linalg_matrix_transpose", &la::matrix_transpose, nb::arg("x"));
  m.def("_linalg_diagonal", &la::diagonal, nb::arg("x"), nb::arg("offset"), release_gil());
  m.def("_linalg_trace", &la::trace, nb::arg("x"), nb::arg("offset"), release_gil());
  m.def("_linalg_outer", &la::outer, nb::arg("a"), nb::arg("b"), release_gil());
  m.def("_linalg_cross", &la::cross, nb::arg("a"), nb::arg("b"), nb::arg("axis"), release_gil());
  m.def("_linalg_vector_norm", &la::vector_norm, nb::arg("x"), nb::arg("ord"), nb::arg("axes"), nb::arg("keepdims"),
        release_gil());
  m.def("_linalg_matrix_norm", &la::matrix_norm, nb::arg("x"), nb::arg("ord"), nb::arg("keepdims"), release_gil());
  m.def("_linalg_matrix_power", &la::matrix_power, nb::arg("a"), nb::arg("n"), release_gil());

  m.def("_einsum", &porta::einsum, nb::arg("subscripts"), nb::arg("operands"), release_gil());

  nb::handle cls = nb::type<Array>();
  nb::cpp_function_def([](const Array& a, const Array& b) { return porta::matmul(a, b); }, nb::scope(cls),
                       nb::name("__matmul__"), nb::is_method(), nb::is_operator(), release_gil());
  nb::cpp_function_def([](const Array& a, const Array& b) { return porta::matmul(b, a); }, nb::scope(cls),
                       nb::name("__rmatmul__"), nb::is_method(), nb::is_operator(), release_gil());
}

}  // namespace porta::python
