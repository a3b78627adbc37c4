// porta::linalg's decompositions: each input copied (transposed) into a column-major workspace of
// the batch (or as they are, where the solver takes C order), the device's solver run
// on it (DeviceImpl::solver, LAPACK's meaning), results read back as transposed views; info read
// once per call, a non-zero entry a LinAlgError naming the matrix. docs/design/linalg.md says why
// the layout and the copies are as they are.
#include <porta/error.hpp>
#include <porta/linalg.hpp>
#include <porta/manip.hpp>
#include <porta/ops.hpp>
#include <porta/reduce.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "lazy/expr.hpp"
#include "primitives/dense.hpp"
#include "runtime/thread_queues.hpp"
#include "porta_backend/strings.hpp"

namespace porta::linalg {

using detail::cat;
using detail::SolverArgs;
using detail::SolverOp;

namespace {

// The dtype a decomposition of `t` runs in: NumPy's (integers and bool: float64; float16 refused).
DType solver_dtype(DType t, const char* what) {
  if (t == DType::float32 || t == DType::float64 || t == DType::complex64 || t == DType::complex128) return t;
  if (t == DType::float16 || t == DType::bfloat16)
    throw DTypeError(cat(what, ": ", name(t), " has no decomposition (NumPy refuses it too); use astype(float32)"));
  return DType::float64;
}

Shape leading(const Shape& s) { return Shape(s.begin(), s.end() - 2); }
Shape with(Shape s, std::initializer_list<std::int64_t> tail) {
  s.insert(s.end(), tail);
  return s;
}

void check_matrix(const Array& a, const char* what, bool square) {
  detail::node_of(a, what);
  if (a.ndim() < 2)
    throw ShapeError(cat(what, ": a of shape ", to_string(a.shape()), " is not a matrix; give at least 2 dimensions"));
  if (square && a.dim(-1) != a.dim(-2))
    throw ShapeError(cat(what, ": the matrices of shape ", to_string(a.shape()), " are not square (", a.dim(-2), " x ",
                         a.dim(-1), ")"));
}

// The ops porta's own solvers (primitives/dense.hpp) have: no eigh and no SVD.
bool dense_has(SolverOp op) {
  switch (op) {
    case SolverOp::getrf:
    case SolverOp::getrs:
    case SolverOp::potrf:
    case SolverOp::potrs:
    case SolverOp::geqrf:
    case SolverOp::orgqr: return true;
    default: return false;
  }
}

// Whether porta's own solvers run `op` here for `batch` matrices of `order` in t (`fused`: as
// one of the one-launch kernels): devices that compile kernels and have no vendor solver for it
// (OpenCL GPUs), and those that have one as PORTA_SOLVER says (dense::chosen).
bool dense_runs(const Device& d, SolverOp op, DType t, std::int64_t batch, std::int64_t order, bool fused = false) {
  if (!dense_has(op) || !detail::dense::available(d)) return false;
  if (!(d.impl().info().caps.solvers & detail::solver_bit(op))) return true;
  if ((op == SolverOp::geqrf || op == SolverOp::orgqr) && batch > 1) return detail::dense::chosen_for_batched_qr(d, batch, order);
  return detail::dense::chosen(d, t, batch, order, fused);
}

void check_solvers(const Device& d, SolverOp op, const char* what) {
  const auto& info = d.impl().info();
  if (!(info.caps.solvers & detail::solver_bit(op)) && !(dense_has(op) && detail::dense::available(d)))
    throw DTypeError(cat(what, " on ", d.spec(), ": this device has no dense solver (", to_string(op),
                         "); move the array to a device that has one (porta-info's solver line lists them)"));
}

// A stack of matrices (B, rows, cols) from (..., rows, cols).
Array stack3(const Array& a) {
  const Shape& s = a.shape();
  return a.reshape({element_count(leading(s)), s[s.size() - 2], s[s.size() - 1]});
}

// The column-major workspace of a (B, m, n) stack: a new buffer of shape (B, n, m), in `t`.
Array column_major(const Array& a3, DType t) { return a3.transpose({0, 2, 1}).astype(t).copy(); }
// A workspace (B, n, m) read as the row-major stack (B, m, n) it holds (a view).
Array row_major(const Array& w) { return w.transpose({0, 2, 1}); }

// One solver call on fresh buffers (each Array here is a contiguous buffer of its own): the
// device's DeviceImpl::solver, or porta's own solvers where dense_runs says so.
struct Call {
  SolverArgs g;
  std::vector<std::pair<detail::Handle SolverArgs::*, Array>> by_field;
  std::vector<Array> reads;
  // `batch` matrices of m x n (the solves: n x n, with nrhs and k set after).
  Call(SolverOp op, DType t, std::int64_t batch, std::int64_t m, std::int64_t n) {
    g.op = op;
    g.dtype = t;
    g.batch = batch;
    g.m = m;
    g.n = n;
  }
  // An operand the op writes (set) or only reads (read: SolverArgs::src).
  void set(detail::Handle SolverArgs::*h, std::int64_t SolverArgs::*off, const Array& x) {
    bind(h, off, x);
    by_field.emplace_back(h, x);
  }
  void read(detail::Handle SolverArgs::*h, std::int64_t SolverArgs::*off, const Array& x) {
    bind(h, off, x);
    reads.push_back(x);
  }
  void bind(detail::Handle SolverArgs::*h, std::int64_t SolverArgs::*off, const Array& x) {
    const detail::View& v = detail::evaluate(x.node());
    g.*h = v.buffer->handle();
    g.*off = v.offset;
  }
  const detail::View& view(detail::Handle SolverArgs::*h) {
    for (const auto& [field, x] : by_field)
      if (field == h) return detail::evaluate(x.node());
    throw InvalidArgument(cat(to_string(g.op), ": an operand was not given (porta's bug)"));
  }
  void run(const Device& d) {
    if (dense_runs(d, g.op, g.dtype, g.batch, std::max(g.m, g.n))) {
      run_dense();
      return;
    }
    const auto& q = detail::thread_queue_shared(d);
    for (const Array& x : reads) detail::evaluate(x.node()).buffer->before_read(q);
    for (const auto& [field, x] : by_field) detail::evaluate(x.node()).buffer->before_write(q);
    d.impl().solver(*q, g);
    for (const auto& [field, x] : by_field) detail::evaluate(x.node()).buffer->after_write(q);
  }
  // primitives/dense.hpp's functions order their work in the calling thread's queue themselves.
  void run_dense() {
    namespace dense = detail::dense;
    switch (g.op) {
      case SolverOp::getrf:
        dense::getrf(g.dtype, view(&SolverArgs::a), view(&SolverArgs::ipiv), view(&SolverArgs::info), g.batch, g.n);
        return;
      case SolverOp::getrs:
        dense::getrs(g.dtype, view(&SolverArgs::a), view(&SolverArgs::ipiv), view(&SolverArgs::b), g.batch, g.n, g.nrhs);
        return;
      case SolverOp::potrf:
        dense::potrf(g.dtype, view(&SolverArgs::a), view(&SolverArgs::info), g.batch, g.n);
        return;
      case SolverOp::potrs:
        dense::potrs(g.dtype, view(&SolverArgs::a), view(&SolverArgs::b), g.batch, g.n, g.nrhs);
        return;
      case SolverOp::geqrf: dense::geqrf(g.dtype, view(&SolverArgs::a), view(&SolverArgs::tau), g.batch, g.m, g.n); return;
      case SolverOp::orgqr:
        dense::orgqr(g.dtype, view(&SolverArgs::a), view(&SolverArgs::tau), g.batch, g.m, g.n, g.k);
        return;
      default: throw InvalidArgument(cat("porta's own solvers have no ", to_string(g.op)));
    }
  }
};

// Whether `op` takes the C-order matrices as they are here (Capabilities::row_major_solvers:
// LAPACKE's through the transpose, host/solver.hpp), sparing the transposing copy: one strided
// kernel over the whole stack, on PoCL 0.9 ms of a 2.4 ms solve of 1000 x 16 x 16
// (docs/design/linalg.md).
bool in_rows(const Device& d, SolverOp op, DType t, std::int64_t batch, std::int64_t order) {
  return (d.impl().info().caps.row_major_solvers & detail::solver_bit(op)) && !dense_runs(d, op, t, batch, order);
}
// A solver's workspace for the stack a3 (B, m, n) in t: a copy in C order (`rows`), else the
// column-major (B, n, m); and the C-order stack (B, m, n) a workspace holds.
Array workspace(const Array& a3, DType t, bool rows) { return rows ? a3.astype(t).copy() : column_major(a3, t); }
Array stack_of(const Array& w, bool rows) { return rows ? w : row_major(w); }
// The workspace of c's op when its solver copies the input in, matrix by matrix just before it
// works on it (Capabilities::copy_in_solvers), from x, a C-order stack in the op's dtype: x is bound
// as SolverArgs::src and an uninitialised stack of x's shape returned. Otherwise (C order not taken,
// no copy-in, x a view that is not contiguous) an invalid Array: the caller copies x first, one pass
// over the stack (a kernel launch on PoCL) that the copy-in spares.
Array copy_in(Call& c, const Device& d, bool rows, const Array& x) {
  if (!rows || x.size() == 0 || !(d.impl().info().caps.copy_in_solvers & detail::solver_bit(c.g.op))) return Array();
  if (!x.eval().is_contiguous()) return Array();
  c.read(&SolverArgs::src, &SolverArgs::src_offset, x);
  return empty(x.shape(), x.dtype(), d);
}

// Where matrix i of a stack is, for an error's text (nothing for a single matrix).
std::string stack_place(const Shape& batch, std::size_t i) {
  return batch.empty() ? std::string() : cat(" (matrix ", i, " of the stack of shape ", to_string(batch), ", flat index)");
}

// LinAlgError for the first matrix whose info is not 0.
void check_info(const Array& info, const Shape& batch, const char* what, const char* problem) {
  if (info.size() == 0) return;
  const std::vector<std::int32_t> v = info.to_vector<std::int32_t>();
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] != 0)
      throw LinAlgError(cat(what, ": ", problem, stack_place(batch, i), "; LAPACK info ", v[i]), static_cast<std::int64_t>(i));
}

// The SVD's non-finite input, from one read of it before any work, the same answer on every
// device: a matrix holding a NaN (in either part of a complex) is NumPy's LinAlgError (LAPACK's
// gesdd refuses it, info -4; cuSOLVER and porta's kernels would turn it into NaNs); one holding an
// infinity is not refused (NumPy returns NaNs for it, and so does svd_impl): returned, one flag a
// matrix (empty where there is none).
std::vector<std::uint8_t> infinite_matrices(const Array& a, const Shape& batch, const char* what) {
  if (a.size() == 0 || !(is_floating(a.dtype()) || is_complex(a.dtype()))) return {};
  const Array x = stack3(a);
  const std::vector<std::int8_t> kind =
      max(isnan(x).astype(DType::int8) * 2 + isinf(x).astype(DType::int8), std::vector<int>{1, 2}).astype(DType::int8).to_vector<std::int8_t>();
  std::vector<std::uint8_t> inf(kind.size(), 0);
  bool any_inf = false;
  for (std::size_t i = 0; i < kind.size(); ++i) {
    if (kind[i] >= 2)
      throw LinAlgError(cat(what, ": the SVD did not converge: the matrix holds a NaN", stack_place(batch, i), "; NumPy raises the same"),
                        static_cast<std::int64_t>(i));
    any_inf = any_inf || kind[i] == 1;
    inf[i] = kind[i] == 1;
  }
  if (!any_inf) inf.clear();
  return inf;
}

struct Lu {
  Array lu, ipiv, info;  // lu: workspace (B, n, n); ipiv (B, n) int32; info (B)
  bool rows;             // lu in C order (in_rows)
};

Lu factor_lu(const Array& a3, DType t, const Device& d) {
  const std::int64_t batch = a3.dim(0), n = a3.dim(1);
  const bool rows = in_rows(d, SolverOp::getrf, t, batch, n);
  Call c(SolverOp::getrf, t, batch, n, n);
  c.g.row_major = rows;
  Array w = copy_in(c, d, rows, a3.astype(t));
  // info: written for every matrix by a solver that copies in; zeros first otherwise.
  Array info = w.valid() ? empty({batch}, DType::int32, d) : zeros({batch}, DType::int32, d).copy();
  if (!w.valid()) w = workspace(a3, t, rows);
  Lu f{w, empty({batch, n}, DType::int32, d), info, rows};
  c.set(&SolverArgs::a, &SolverArgs::a_offset, f.lu);
  c.set(&SolverArgs::ipiv, &SolverArgs::ipiv_offset, f.ipiv);
  c.set(&SolverArgs::info, &SolverArgs::info_offset, f.info);
  c.run(d);
  return f;
}

// The diagonals (B, n) of an LU workspace, and the permutation's parity as +-1 (B).
Array lu_diagonal(const Lu& f) {
  const std::int64_t batch = f.lu.dim(0), n = f.lu.dim(1);
  return f.lu.reshape({batch, n * n}).slice({span, every(n + 1)});
}
Array lu_sign(const Lu& f, DType t) {
  const std::int64_t n = f.lu.dim(1);
  const Device d = f.lu.device();
  Array swaps = sum(not_equal(f.ipiv, add(arange(n, DType::int32, d), 1)).astype(DType::int32), 1);
  return subtract(1, multiply(remainder(swaps, 2), 2)).astype(t);
}

Array solve_impl(const Array& a, const Array& b, bool vector_b, const char* what) {
  const DType t = solver_dtype(promote_types(a.dtype(), b.dtype()), what);
  const Device d = a.device();
  check_solvers(d, SolverOp::getrf, what);
  const std::int64_t n = a.dim(-1);
  Shape batch;
  try {
    batch = detail::broadcast_shapes(leading(a.shape()), vector_b ? Shape(b.shape().begin(), b.shape().end() - 1) : leading(b.shape()));
  } catch (const ShapeError&) {
    throw ShapeError(cat(what, ": a of shape ", to_string(a.shape()), " and b of shape ", to_string(b.shape()),
                         ": their leading dimensions do not broadcast"));
  }
  const std::int64_t nrhs = vector_b ? 1 : b.dim(-1);
  const std::int64_t count = element_count(batch);
  Array a3 = a.broadcast_to(with(batch, {n, n})).reshape({count, n, n});
  Array b3 = vector_b ? b.broadcast_to(with(batch, {n})).reshape({count, n, 1})
                      : b.broadcast_to(with(batch, {n, nrhs})).reshape({count, n, nrhs});
  if (count * n * nrhs > 0 && dense_runs(d, SolverOp::getrf, t, count, n, true) && n <= detail::dense::fused_order(t, d)) {
    // porta's one-launch solve: a and b read where they are (any strides), x written row-major,
    // no workspace copies and no LU or pivots in global memory; then the one read of info.
    Array ac = a3.astype(t), bc = b3.astype(t);
    Array x = empty({count, n, nrhs}, t, d), info = empty({count}, DType::int32, d);
    detail::dense::gesv_small(t, detail::evaluate(ac.node()), detail::evaluate(bc.node()), detail::evaluate(x.node()),
                              detail::evaluate(info.node()), count, n, nrhs);
    check_info(info, batch, what, "the matrix is singular (an exact zero pivot in its LU factors)");
    return vector_b ? x.reshape(with(batch, {n})) : x.reshape(with(batch, {n, nrhs}));
  }
  Lu f = factor_lu(a3, t, d);
  // info is read once, after the solve: a singular matrix's solve divides by its zero pivot (infs
  // and NaNs in an x that is then thrown away) rather than the host waiting between the two calls
  // (on PoCL a round trip through its worker threads, on GPUs a sync).
  Call c(SolverOp::getrs, t, count, n, n);
  c.g.nrhs = nrhs;
  c.g.row_major = f.rows;
  Array x = copy_in(c, d, f.rows, b3.astype(t));
  if (!x.valid()) x = workspace(b3, t, f.rows);
  c.set(&SolverArgs::a, &SolverArgs::a_offset, f.lu);
  c.set(&SolverArgs::ipiv, &SolverArgs::ipiv_offset, f.ipiv);
  c.set(&SolverArgs::b, &SolverArgs::b_offset, x);
  c.run(d);
  check_info(f.info, batch, what, "the matrix is singular (an exact zero pivot in its LU factors)");
  Array out = stack_of(x, f.rows);
  return vector_b ? out.reshape(with(batch, {n})) : out.reshape(with(batch, {n, nrhs}));
}

// A @ B of stacks (..., m, k) and (..., k, n) whose leading dimensions broadcast (matmul takes 3-D).
Array bmm(const Array& x, const Array& y) {
  const Shape batch = detail::broadcast_shapes(leading(x.shape()), leading(y.shape()));
  const std::int64_t count = element_count(batch);
  Array x3 = x.broadcast_to(with(batch, {x.dim(-2), x.dim(-1)})).reshape({count, x.dim(-2), x.dim(-1)});
  Array y3 = y.broadcast_to(with(batch, {y.dim(-2), y.dim(-1)})).reshape({count, y.dim(-2), y.dim(-1)});
  return porta::matmul(x3, y3, MatmulPrecision::exact).reshape(with(batch, {x.dim(-2), y.dim(-1)}));
}

Array conj_t(const Array& x) { return conj(matrix_transpose(x)); }

struct Svd {
  Array u, s, vh;  // stacks (..., ...); u and vh invalid without vectors
};

// Q from k reflectors in x (the column-major workspace of count rows x cols matrices, geqrf's
// layout) and tau (count, k), in place of x: the device's orgqr or porta's. With `from` (a stack of
// x's shape, layout and batch stride) the solver copies each matrix of it into x first
// (copy_in_solvers), x's contents left to it.
void orgqr_in(const Device& d, DType t, std::int64_t count, const Array& x, const Array& tau, std::int64_t rows, std::int64_t cols,
              std::int64_t k, const Array& from = Array()) {
  if (count * rows * cols == 0) return;
  Call c(SolverOp::orgqr, t, count, rows, cols);
  c.g.k = k;
  if (from.valid()) c.read(&SolverArgs::src, &SolverArgs::src_offset, from);
  c.set(&SolverArgs::a, &SolverArgs::a_offset, x);
  c.set(&SolverArgs::tau, &SolverArgs::tau_offset, tau);  // k reflectors a matrix: stride k
  c.run(d);
}
const detail::View& view_of(const Array& x) { return detail::evaluate(x.node()); }
// The backend's stedc or bdsdc (op) on count real tridiagonal or bidiagonal matrices of order n:
// diag and off in, the values out in diag; vectors into u (and vt: bdsdc) where given, (count, n, n)
// each; LinAlgError naming the first matrix that did not converge.
void small_problem(const Device& d, SolverOp op, DType rt, std::int64_t count, std::int64_t n, const Array& diag, const Array& off,
                   const Array* u, const Array* vt, const Shape& batch, const char* what, const char* problem) {
  Array info = zeros({count}, DType::int32, d).copy();
  Call c(op, rt, count, n, n);
  c.g.vectors = u != nullptr;
  c.g.nrhs = 1;
  c.set(&SolverArgs::w, &SolverArgs::w_offset, diag);
  c.set(&SolverArgs::b, &SolverArgs::b_offset, off);
  if (u) c.set(&SolverArgs::u, &SolverArgs::u_offset, *u);
  if (vt) c.set(&SolverArgs::vt, &SolverArgs::vt_offset, *vt);
  c.set(&SolverArgs::info, &SolverArgs::info_offset, info);
  c.run(d);
  check_info(info, batch, what, problem);
}

// Whether eigh (own: syevd, small: stedc) or the SVD (gesvd, bdsdc) runs on porta's kernels here
// (eigh_kernels, svd_kernels): devices that compile kernels and whose backend solves the small
// tridiagonal or bidiagonal problem, where they have no routine of their own for the whole (OpenCL
// GPUs) or PORTA_SOLVER says so (porta: PoCL too, which is how CI tests them).
bool on_kernels(const Device& d, SolverOp own, SolverOp small, DType t, std::int64_t batch, std::int64_t n) {
  const auto& caps = d.impl().info().caps;
  if (!detail::dense::available(d) || !(caps.solvers & detail::solver_bit(small))) return false;
  if (!(caps.solvers & detail::solver_bit(own))) return true;
  return detail::dense::chosen(d, t, batch, n, false);
}

// The SVD of m x n matrices (m >= n) as LAPACK's gesdd: B = Q^H A P by dense::gebrd on the device,
// B's SVD Ub diag(s) VTb by the backend's bdsdc (the host's LAPACK), Q and P from gebrd's
// reflectors by orgqr, then U = Q Ub (full: Q's other columns beside) and Vh = VTb P^H by matmul
// (P = diag(1, P'): Vh's first column is VTb's).
Svd svd_kernels(const Array& a, DType t, bool vectors, bool full, const Shape& batch, const char* what) {
  const Device d = a.device();
  const DType rt = real_dtype(t);
  const std::int64_t count = element_count(batch), m = a.dim(-2), n = a.dim(-1);
  Array w = column_major(stack3(a), t);
  Array diag = empty({count, n}, rt, d), off = zeros({count, n}, rt, d).copy();
  Array tq = empty({count, n}, t, d), tp = zeros({count, n}, t, d).copy();
  detail::dense::gebrd(t, view_of(w), view_of(diag), view_of(off), view_of(tq), view_of(tp), count, m, n);
  Array ub, vtb;
  if (vectors) {
    ub = empty({count, n, n}, rt, d);
    vtb = empty({count, n, n}, rt, d);
  }
  small_problem(d, SolverOp::bdsdc, rt, count, n, diag, off, vectors ? &ub : nullptr, vectors ? &vtb : nullptr, batch, what,
                "the SVD did not converge");
  Svd out;
  out.s = diag.reshape(with(batch, {n}));
  if (!vectors) return out;
  // Q: orgqr of the column reflectors (m x qcols, k = n), as qr's complete mode pads with zero columns.
  const std::int64_t qcols = full ? m : n;
  Array q = qcols == n ? w.copy() : concatenate({w, zeros({count, qcols - n, m}, t, d)}, 1);
  orgqr_in(d, t, count, q, tq, m, qcols, n);
  Array qr = row_major(q), ubr = row_major(ub).astype(t), vtr = row_major(vtb).astype(t);
  Array u = matmul(qcols == n ? qr : qr.slice({porta::span, porta::span, porta::upto(n)}), ubr);
  if (qcols > n) u = concatenate({u, qr.slice({porta::span, porta::span, porta::from(n)})}, 2);
  Array vh = vtr;
  if (n > 1) {
    // P's reflectors: row k's columns [k+1, n) for k < n - 1, transposed into geqrf's layout.
    Array p = w.slice({porta::span, porta::from(1), porta::upto(n - 1)}).transpose({0, 2, 1}).copy();
    orgqr_in(d, t, count, p, tp.slice({porta::span, porta::upto(n - 1)}).copy(), n - 1, n - 1, n - 1);
    vh = concatenate({vtr.slice({porta::span, porta::span, porta::upto(1)}),
                      matmul(vtr.slice({porta::span, porta::span, porta::from(1)}), conj_t(row_major(p)))},
                     2);
  }
  out.u = u.reshape(with(batch, {m, qcols}));
  out.vh = vh.reshape(with(batch, {n, n}));
  return out;
}

// The SVD of (..., m, n) with m >= n through gesvd (or porta's kernels); of a wide matrix through
// its conjugate transpose.
Svd svd_impl(const Array& a, bool vectors, bool full, const char* what) {
  check_matrix(a, what, false);
  const DType t = solver_dtype(a.dtype(), what);
  const Device d = a.device();
  const std::int64_t m = a.dim(-2), n = a.dim(-1);
  if (m < n) {
    Svd h = svd_impl(conj_t(a.astype(t)), vectors, full, what);
    if (!vectors) return h;
    return {conj_t(h.vh), h.s, conj_t(h.u)};
  }
  const Shape batch = leading(a.shape());
  const std::int64_t count = element_count(batch), ucols = full ? m : n;
  // A matrix holding an infinity: NumPy's gesdd answers it with NaNs, where Debian's LAPACK gesdd
  // with vectors did not return (the build machine, 2026-12-07) and porta's bdsdc does not
  // converge; so it is solved as zeros and its answer made NaNs, the same on every device.
  const std::vector<std::uint8_t> inf = infinite_matrices(a, batch, what);
  if (!inf.empty()) {
    const Array mask = from_host(inf, with(batch, {1, 1}), d).astype(DType::boolean);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    Svd out = svd_impl(where(mask, 0.0, a).astype(a.dtype()), vectors, full, what);
    out.s = where(mask.reshape(with(batch, {1})), nan, out.s).astype(out.s.dtype());
    if (vectors) {
      out.u = where(mask, nan, out.u).astype(out.u.dtype());
      out.vh = where(mask, nan, out.vh).astype(out.vh.dtype());
    }
    return out;
  }
  if (on_kernels(d, SolverOp::gesvd, SolverOp::bdsdc, t, count, m)) return svd_kernels(a, t, vectors, full, batch, what);
  check_solvers(d, SolverOp::gesvd, what);
  const DType rt = real_dtype(t);
  Array w = column_major(stack3(a), t);
  Array s = empty({count, n}, rt, d), info = zeros({count}, DType::int32, d).copy();
  Call c(SolverOp::gesvd, t, count, m, n);
  c.g.vectors = vectors;
  c.g.full_matrices = full;
  c.set(&SolverArgs::a, &SolverArgs::a_offset, w);
  c.set(&SolverArgs::w, &SolverArgs::w_offset, s);
  c.set(&SolverArgs::info, &SolverArgs::info_offset, info);
  Array u, vt;
  if (vectors && count * m * n > 0) {
    u = empty({count, ucols, m}, t, d);
    vt = empty({count, n, n}, t, d);
    c.set(&SolverArgs::u, &SolverArgs::u_offset, u);
    c.set(&SolverArgs::vt, &SolverArgs::vt_offset, vt);
  }
  c.run(d);
  check_info(info, batch, what, "the SVD did not converge");
  Svd out;
  out.s = s.reshape(with(batch, {n}));
  if (vectors) {
    if (count * m * n > 0) {
      out.u = row_major(u).reshape(with(batch, {m, ucols}));
      out.vh = row_major(vt).reshape(with(batch, {n, n}));
    } else {  // an empty matrix: U and Vh are identities of their sizes (NumPy's)
      out.u = eye(m, ucols, 0, t, d).broadcast_to(with(batch, {m, ucols})).copy();
      out.vh = eye(n, n, 0, t, d).broadcast_to(with(batch, {n, n})).copy();
    }
  }
  return out;
}

// eigh as LAPACK's syevd: T = Q^H A Q by dense::sytrd on the device, T's eigenvalues and vectors Z
// by the backend's stedc (the host's LAPACK: O(n^2) data each way, against the reduction's O(n^3)
// work on the device), Q from sytrd's reflectors by orgqr, the vectors Q Z by matmul (Q = diag(1,
// Q'), so the first row of the vectors is Z's).
EighResult eigh_kernels(const Array& a, DType t, bool upper, bool vectors, const Shape& batch, const char* what) {
  const Device d = a.device();
  const DType rt = real_dtype(t);
  const std::int64_t count = element_count(batch), n = a.dim(-1);
  Array w = column_major(stack3(a), t);
  Array diag = empty({count, n}, rt, d), off = empty({count, n}, rt, d), tau = empty({count, n}, t, d);
  detail::dense::sytrd(t, view_of(w), view_of(diag), view_of(off), view_of(tau), count, n, !upper);
  Array z = vectors ? empty({count, n, n}, rt, d) : Array();
  small_problem(d, SolverOp::stedc, rt, count, n, diag, off, vectors ? &z : nullptr, nullptr, batch, what,
                "the eigenvalues did not converge");
  EighResult r;
  r.eigenvalues = diag.reshape(with(batch, {n}));
  if (!vectors) return r;
  Array zr = row_major(z).astype(t), x = zr;
  if (n > 1) {
    // The reflectors below the subdiagonal: columns [0, n - 1) of rows [1, n) of each column-major matrix.
    Array q = w.slice({porta::span, porta::upto(n - 1), porta::from(1)}).copy();
    orgqr_in(d, t, count, q, tau.slice({porta::span, porta::upto(n - 1)}).copy(), n - 1, n - 1, n - 1);
    x = concatenate({zr.slice({porta::span, porta::upto(1)}), matmul(row_major(q), zr.slice({porta::span, porta::from(1)}))}, 1);
  }
  r.eigenvectors = x.reshape(with(batch, {n, n}));
  return r;
}

EighResult eigh_impl(const Array& a, bool upper, bool vectors, const char* what) {
  check_matrix(a, what, true);
  const DType t = solver_dtype(a.dtype(), what);
  const Device d = a.device();
  const Shape batch = leading(a.shape());
  const std::int64_t count = element_count(batch), n = a.dim(-1);
  if (on_kernels(d, SolverOp::syevd, SolverOp::stedc, t, count, n)) return eigh_kernels(a, t, upper, vectors, batch, what);
  check_solvers(d, SolverOp::syevd, what);
  // A real symmetric matrix's C-order copy is, read column-major, its transpose, whose other
  // triangle holds the same values: syevd takes the copy with the triangle named the other way,
  // and no transpose is made. (A complex one's would be its conjugate, whose vectors are the
  // conjugates: those take the transposed copy.)
  const bool real = !is_complex(t);
  Array w = real ? stack3(a).astype(t).copy() : column_major(stack3(a), t);
  Array values = empty({count, n}, real_dtype(t), d), info = zeros({count}, DType::int32, d).copy();
  Call c(SolverOp::syevd, t, count, n, n);
  c.g.lower = real ? upper : !upper;
  c.g.vectors = vectors;
  c.set(&SolverArgs::a, &SolverArgs::a_offset, w);
  c.set(&SolverArgs::w, &SolverArgs::w_offset, values);
  c.set(&SolverArgs::info, &SolverArgs::info_offset, info);
  c.run(d);
  check_info(info, batch, what, "the eigenvalues did not converge");
  EighResult r;
  r.eigenvalues = values.reshape(with(batch, {n}));
  if (vectors) r.eigenvectors = row_major(w).reshape(with(batch, {n, n}));
  return r;
}

double eps_of(DType t) { return finfo(real_dtype(t)).eps; }

}  // namespace

Array solve(const Array& a, const Array& b) {
  check_matrix(a, "solve", true);
  detail::node_of(b, "solve");
  detail::check_same_device(a.node(), b.node(), "solve");
  const std::int64_t n = a.dim(-1);
  if (b.ndim() == 0) throw ShapeError("solve: b is a 0-d array; give a vector (n,) or matrices (..., n, k)");
  const bool vector_b = b.ndim() == 1;
  const std::int64_t rows = vector_b ? b.dim(0) : (b.ndim() >= 2 ? b.dim(-2) : -1);
  if (rows != n)
    throw ShapeError(cat("solve: a of shape ", to_string(a.shape()), " and b of shape ", to_string(b.shape()), ": b has ",
                         rows, " rows where a's matrices have ", n, " (b is a vector only when 1-D, as in NumPy 2)"));
  return solve_impl(a, b, vector_b, "solve");
}

Array inv(const Array& a) {
  check_matrix(a, "inv", true);
  const DType t = solver_dtype(a.dtype(), "inv");
  const std::int64_t n = a.dim(-1);
  return solve_impl(a, eye(n, n, 0, t, a.device()), false, "inv");
}

Array det(const Array& a) {
  check_matrix(a, "det", true);
  const DType t = solver_dtype(a.dtype(), "det");
  check_solvers(a.device(), SolverOp::getrf, "det");
  Lu f = factor_lu(stack3(a), t, a.device());  // a singular matrix has det 0: info is not an error
  return multiply(prod(lu_diagonal(f), 1), lu_sign(f, t)).reshape(leading(a.shape()));
}

SlogdetResult slogdet(const Array& a) {
  check_matrix(a, "slogdet", true);
  const DType t = solver_dtype(a.dtype(), "slogdet");
  check_solvers(a.device(), SolverOp::getrf, "slogdet");
  Lu f = factor_lu(stack3(a), t, a.device());
  Array diag = lu_diagonal(f), mag = abs(diag);
  Array unit = is_complex(t) ? where(equal(mag, 0), zeros({}, t, a.device()), divide(diag, mag.astype(t))) : sign(diag);
  const Shape batch = leading(a.shape());
  return {multiply(prod(unit, 1), lu_sign(f, t)).reshape(batch), sum(log(mag), 1).reshape(batch)};
}

Array cholesky(const Array& a, bool upper) {
  check_matrix(a, "cholesky", true);
  const DType t = solver_dtype(a.dtype(), "cholesky");
  const Device d = a.device();
  check_solvers(d, SolverOp::potrf, "cholesky");
  const Shape batch = leading(a.shape());
  const std::int64_t count = element_count(batch), n = a.dim(-1);
  if (count * n > 0 && dense_runs(d, SolverOp::potrf, t, count, n, true) && n <= detail::dense::fused_order(t, d)) {
    // porta's one-launch Cholesky: a read where it is, L written row-major with its zeros.
    Array l = empty({count, n, n}, t, d), info = empty({count}, DType::int32, d);
    detail::dense::potrf_small(t, detail::evaluate(stack3(a).astype(t).node()), detail::evaluate(l.node()),
                               detail::evaluate(info.node()), count, n);
    check_info(info, batch, "cholesky", "the matrix is not positive definite");
    Array lr = l.reshape(with(batch, {n, n}));
    return upper ? conj_t(lr) : lr;
  }
  // The workspace holds the lower triangle and zeros: potrf reads only that triangle and leaves the
  // other, so L comes out with its zeros, without a pass of its own (on PoCL and Kokkos 0.2 ms of a
  // 1 ms Cholesky of 1000 x 16 x 16). A solver that copies its input in (copy_in_solvers) does that
  // matrix by matrix from the caller's C-order stack; otherwise one fused kernel copies it first.
  const bool rows = in_rows(d, SolverOp::potrf, t, count, n);
  Call c(SolverOp::potrf, t, count, n, n);
  Array w = copy_in(c, d, rows, stack3(a).astype(t)), info;
  if (w.valid()) {
    info = empty({count}, DType::int32, d);  // written for every matrix
  } else {
    w = workspace(tril(stack3(a)), t, rows);
    info = zeros({count}, DType::int32, d).copy();
  }
  c.g.lower = true;
  c.g.row_major = rows;
  c.set(&SolverArgs::a, &SolverArgs::a_offset, w);
  c.set(&SolverArgs::info, &SolverArgs::info_offset, info);
  c.run(d);
  check_info(info, batch, "cholesky", "the matrix is not positive definite");
  Array l = stack_of(w, rows).reshape(with(batch, {n, n}));
  return upper ? conj_t(l) : l;
}

QrResult qr(const Array& a, QrMode mode) {
  check_matrix(a, "qr", false);
  const DType t = solver_dtype(a.dtype(), "qr");
  const Device d = a.device();
  check_solvers(d, SolverOp::geqrf, "qr");
  const Shape batch = leading(a.shape());
  const std::int64_t count = element_count(batch), m = a.dim(-2), n = a.dim(-1), k = std::min(m, n);
  // Where the solver copies its input in (copy_in_solvers: the host solver's, matrix by matrix in
  // cache), geqrf transposes the C-order stack into an uninitialised workspace and orgqr copies
  // geqrf's output into Q's: no copy kernels first (on PoCL as long as the QR of 1000 x 16 x 16).
  const bool copies = count * m * n > 0 && (d.impl().info().caps.copy_in_solvers & detail::solver_bit(SolverOp::geqrf)) &&
                      !dense_runs(d, SolverOp::geqrf, t, count, std::max(m, n));
  Array src = copies ? stack3(a).astype(t) : Array();
  const bool copy_a = copies && src.eval().is_contiguous();
  Array w = copy_a ? empty({count, n, m}, t, d) : column_major(stack3(a), t);  // (count, n, m)
  Array tau = empty({count, k}, t, d);
  {
    Call c(SolverOp::geqrf, t, count, m, n);
    if (copy_a) c.read(&SolverArgs::src, &SolverArgs::src_offset, src);
    c.set(&SolverArgs::a, &SolverArgs::a_offset, w);
    c.set(&SolverArgs::tau, &SolverArgs::tau_offset, tau);
    c.run(d);
  }
  Array r_full = triu(row_major(w));  // (count, m, n)
  QrResult out;
  const bool complete = mode == QrMode::complete;
  out.R = (complete ? r_full : r_full.slice({span, upto(k)})).reshape(with(batch, {complete ? m : k, n}));
  if (mode == QrMode::r) return out;
  // Q's columns: k (reduced) or m (complete); their first k reflectors are w's first k columns.
  const std::int64_t qcols = complete ? m : k;
  Array q, from;
  if (qcols == n && copies && (d.impl().info().caps.copy_in_solvers & detail::solver_bit(SolverOp::orgqr))) {
    q = empty(w.shape(), t, d);  // orgqr copies w in
    from = w;
  } else if (qcols <= n) {
    q = w.slice({span, upto(qcols)}).copy();  // (count, qcols, m): column-major m x qcols
  } else {
    q = concatenate({w, zeros({count, qcols - n, m}, t, d)}, 1);
  }
  orgqr_in(d, t, count, q, tau, m, qcols, k, from);
  out.Q = row_major(q).reshape(with(batch, {m, qcols}));
  return out;
}

EighResult eigh(const Array& a, bool upper) { return eigh_impl(a, upper, true, "eigh"); }
Array eigvalsh(const Array& a, bool upper) { return eigh_impl(a, upper, false, "eigvalsh").eigenvalues; }

SvdResult svd(const Array& a, bool full_matrices) {
  Svd s = svd_impl(a, true, full_matrices, "svd");
  return {s.u, s.s, s.vh};
}

Array svdvals(const Array& a) { return svd_impl(a, false, false, "svdvals").s; }

namespace {

// A tolerance per matrix, (..., 1): `tol` broadcast against the stack's leading dimensions `batch`.
Array per_matrix(const Array& tol, const Shape& batch, const char* what) {
  try {
    return tol.broadcast_to(batch).expand_dims(-1);
  } catch (const ShapeError&) {
    throw ShapeError(cat(what, ": a tolerance of shape ", to_string(tol.shape()),
                         " does not broadcast against the stack's leading dimensions ", to_string(batch),
                         "; give a number or an array of that shape"));
  }
}

// The pseudo-inverse through the SVD, singular values at most cut(s) (a cutoff (..., 1)) dropped.
template <class Cut> Array pinv_impl(const Array& a, Cut cut) {
  check_matrix(a, "pinv", false);
  const DType t = solver_dtype(a.dtype(), "pinv");
  const std::int64_t m = a.dim(-2), n = a.dim(-1);
  if (m == 0 || n == 0) return zeros(with(leading(a.shape()), {n, m}), t, a.device());
  Svd s = svd_impl(a, true, false, "pinv");
  Array keep = greater(s.s, cut(s.s));
  Array inv_s = where(keep, reciprocal(where(keep, s.s, 1)), 0).astype(t);  // (..., k)
  return bmm(multiply(conj_t(s.vh), inv_s.expand_dims(-2)), conj_t(s.u));
}

// The singular values above cut(s) (a cutoff (..., 1)), counted.
template <class Cut> Array matrix_rank_impl(const Array& a, Cut cut) {
  check_matrix(a, "matrix_rank", false);
  if (a.dim(-2) == 0 || a.dim(-1) == 0) return zeros(leading(a.shape()), DType::int64, a.device());
  Array s = svdvals(a);
  return sum(greater(s, cut(s)).astype(DType::int64), -1);
}

// max(m, n) * eps: the array API's default rtol for the matrices of a whose singular values are s.
double default_rtol(const Array& a, const Array& s) {
  return static_cast<double>(std::max(a.dim(-2), a.dim(-1))) * eps_of(s.dtype());
}

}  // namespace

Array pinv(const Array& a, std::optional<double> rtol) {
  return pinv_impl(a, [&](const Array& s) { return multiply(max(s, -1, true), rtol.value_or(default_rtol(a, s))); });
}

Array pinv(const Array& a, const Array& rtol) {
  return pinv_impl(a, [&](const Array& s) { return multiply(max(s, -1, true), per_matrix(rtol, leading(a.shape()), "pinv")); });
}

Array matrix_rank(const Array& a, std::optional<double> rtol, std::optional<double> tol) {
  return matrix_rank_impl(a, [&](const Array& s) {
    return tol ? full({}, *tol, s.dtype(), a.device()) : multiply(max(s, -1, true), rtol.value_or(default_rtol(a, s)));
  });
}

Array matrix_rank(const Array& a, const Array& tolerance, Tolerance kind) {
  return matrix_rank_impl(a, [&](const Array& s) {
    Array t = per_matrix(tolerance, leading(a.shape()), "matrix_rank");
    return kind == Tolerance::absolute ? t : multiply(max(s, -1, true), t);
  });
}

LstsqResult lstsq(const Array& a, const Array& b, std::optional<double> rcond) {
  detail::node_of(a, "lstsq");
  detail::node_of(b, "lstsq");
  if (a.ndim() != 2 || (b.ndim() != 1 && b.ndim() != 2))
    throw ShapeError(cat("lstsq: a of shape ", to_string(a.shape()), " and b of shape ", to_string(b.shape()),
                         ": a must be 2-D and b 1-D or 2-D (as NumPy's)"));
  const std::int64_t m = a.dim(0), n = a.dim(1);
  if (b.dim(0) != m)
    throw ShapeError(cat("lstsq: a of shape ", to_string(a.shape()), " and b of shape ", to_string(b.shape()),
                         ": b has ", b.dim(0), " rows where a has ", m));
  const DType t = solver_dtype(promote_types(a.dtype(), b.dtype()), "lstsq");
  const Device d = a.device();
  const bool vector_b = b.ndim() == 1;
  Array b2 = (vector_b ? b.reshape({m, 1}) : b).astype(t);
  const std::int64_t nrhs = b2.dim(1);
  LstsqResult r;
  if (m == 0 || n == 0) {
    r.x = zeros(vector_b ? Shape{n} : Shape{n, nrhs}, t, d);
    r.s = zeros({0}, real_dtype(t), d);
    r.residuals = (m > n && n == 0) ? sum(real(multiply(conj(b2), b2)), 0) : zeros({0}, real_dtype(t), d);
    if (vector_b && r.residuals.size() > 0) r.residuals = r.residuals.reshape({1});
    return r;
  }
  Svd s = svd_impl(a.astype(t), true, false, "lstsq");
  const double rc = rcond.value_or(eps_of(t) * static_cast<double>(std::max(m, n)));
  Array keep = greater(s.s, multiply(max(s.s), rc));
  r.rank = sum(keep.astype(DType::int64)).item<std::int64_t>();
  Array inv_s = where(keep, reciprocal(where(keep, s.s, 1)), 0).astype(t);
  Array x = porta::matmul(conj_t(s.vh), multiply(inv_s.reshape({-1, 1}), porta::matmul(conj_t(s.u), b2)));
  r.s = s.s;
  if (r.rank == n && m > n) {
    Array res = subtract(porta::matmul(a.astype(t), x), b2);
    r.residuals = sum(real(multiply(conj(res), res)), 0);
  } else {
    r.residuals = zeros({0}, real_dtype(t), d);
  }
  r.x = vector_b ? x.reshape({n}) : x;
  return r;
}

Array matrix_power(const Array& a, std::int64_t n) {
  check_matrix(a, "matrix_power", true);
  Array base = n < 0 ? inv(a) : a;
  std::uint64_t e = n < 0 ? static_cast<std::uint64_t>(-(n + 1)) + 1 : static_cast<std::uint64_t>(n);
  if (e == 0) {
    const std::int64_t k = a.dim(-1);
    return eye(k, k, 0, a.dtype(), a.device()).broadcast_to(a.shape()).copy();
  }
  Array result;
  while (true) {  // binary powering: about 2 log2(n) products
    if (e & 1) result = result.valid() ? bmm(result, base) : base.copy();
    e >>= 1;
    if (!e) break;
    base = bmm(base, base);
  }
  return result;
}

}  // namespace porta::linalg
