// Dense solvers on host memory through LAPACKE (over OpenBLAS's LAPACK): the solvers of CPU
// devices (PoCL's CPU device on mapped buffers, Kokkos on the host), and of OpenCL GPUs through a
// mapped copy until porta's own GPU solvers take them (docs/design/linalg.md).
#pragma once

#include "porta_backend/backend.hpp"

namespace porta::detail {

// Runs `args` whose handles are host pointers to the start of each buffer (offsets as in args).
// A batch of small matrices is spread over up to `threads` threads (the device's compute units),
// each matrix one LAPACK call (OpenBLAS runs calls on small matrices in the calling thread; NumPy's
// batched linalg loops over them in one), or for LU, Cholesky and QR up to small::kMaxOrder none
// (host/small_solvers.hpp). Throws InvalidArgument for sizes
// beyond LAPACK's 32-bit integers or a bad argument LAPACK reports, DTypeError for a dtype other
// than float32, float64, complex64, complex128.
void host_solver(const SolverArgs& args, int threads = 1);
// What host_solver runs, for porta-info.
const char* host_solver_name();
// Every op host_solver runs (Capabilities::solvers).
inline constexpr std::uint32_t kHostSolvers = (1u << static_cast<unsigned>(SolverOp::count)) - 1;
// The ops host_solver also runs on square C-order matrices (Capabilities::row_major_solvers),
// without transposing them: a C-order A is the Fortran-order A^T. getrf factors A^T (the pivots and
// factors of the transpose, whose determinant is A's); getrs then solves A X = B as LAPACK's
// transposed solve of those factors (B and X in C order); potrf of the lower triangle is LAPACK's of
// the upper triangle of A^T (A^T = conj(A) = U^H U gives A = U^T conj(U), so L = U^T, which is U read
// in C order).
inline constexpr std::uint32_t kHostRowMajorSolvers =
    solver_bit(SolverOp::getrf) | solver_bit(SolverOp::getrs) | solver_bit(SolverOp::potrf);
// The ops host_solver takes from SolverArgs::src (Capabilities::copy_in_solvers): getrf and potrf
// copy each matrix (potrf its triangle) into the workspace just before factoring it, getrs each
// right-hand side into b before solving, in cache, where a copy of the whole stack first was a pass
// over memory of its own (a kernel launch on PoCL).
// geqrf copies each C-order matrix transposed into its column-major workspace, orgqr each matrix
// of geqrf's output into Q's workspace: on PoCL each copy spared is a kernel launch and a pass over
// the stack (the two took about as long as the QR of 1000 x 16 x 16 itself).
inline constexpr std::uint32_t kHostCopyInSolvers = solver_bit(SolverOp::getrf) | solver_bit(SolverOp::getrs) |
                                                    solver_bit(SolverOp::potrf) | solver_bit(SolverOp::geqrf) |
                                                    solver_bit(SolverOp::orgqr);

}  // namespace porta::detail
