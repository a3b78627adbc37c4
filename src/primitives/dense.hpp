// porta's own dense factorizations and solves (primitives/dense.cpp), for devices that compile
// kernels at run time: those without a vendor solver (OpenCL GPUs), CUDA's small matrices, and
// any compiling device where PORTA_SOLVER=porta (PoCL's included, which is how they are tested
// here). LAPACK's semantics on a contiguous
// batch of column-major matrices: matrix b of the batch at a.offset + b * m * n, A(i, j) at
// i + j * m (lda = m); dtypes float32, float64, complex64, complex128 (DTypeError otherwise, or
// where the device lacks the dtype); ipiv and info int32, ipiv 1-based (n a matrix), info one a
// matrix, as LAPACK's (0: done; k > 0: getrf's U(k-1, k-1) is exactly zero, potrf's leading
// minor of order k is not positive definite). Results are written in place, in the calling
// thread's queue order, as every primitive. Other devices: BackendUnavailable.
//
// Matrices of order up to kDenseSmall (64 for dtypes of up to 8 bytes where the device's local
// memory holds 32 KiB) take one work-group each with the whole matrix in local memory (many small
// matrices: one launch); larger ones go in blocks of PORTA_DENSE_BLOCK columns (16 for LU and
// QR, 64 for Cholesky unless set): a panel kernel (one work-group a matrix), triangular solves,
// and the updates of the rest through the device's GEMM (DeviceImpl::matmul), as LAPACK's blocked getrf, getrs, potrf, potrs, geqrf and
// orgqr. Scratch matrices come from the device's allocator (OutOfMemory as any array).
// docs/design/linalg.md ("porta's own solvers") says more.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codegen/codegen.hpp"
#include "lazy/node.hpp"
#include "porta_backend/backend.hpp"

namespace porta::detail::dense {

inline constexpr std::int64_t kDenseSmall = 32;

// Whether this device runs these kernels: devices that compile kernels (OpenCL, CUDA).
bool available(const Device& device);
// auto's choice of the one-launch kernels on CUDA: matrices up to this order.
inline constexpr std::int64_t kAutoFusedOrder = 16;
// gesv_small's warp kernel (registers and shuffles, a sub-warp a matrix): orders up to kWarpOrder
// with PORTA_SMALL_SOLVE=warp, up to kAutoWarpOrder on CUDA with auto; the work-group kernel (local
// memory) otherwise.
inline constexpr std::int64_t kWarpOrder = 32;
inline constexpr std::int64_t kAutoWarpOrder = 16;
// Whether a device that also has a vendor solver takes these kernels for `batch` matrices of
// `order` (the larger dimension) in t, `fused` when the call would be gesv_small or potrf_small:
// PORTA_SOLVER=porta; auto: those one-launch kernels for float32/float64 up to kAutoFusedOrder on
// CUDA, the vendor's elsewhere.
bool chosen(const Device& device, DType t, std::int64_t batch, std::int64_t order, bool fused);
// auto's choice of porta's geqrf and orgqr for stacks on CUDA (cuSOLVER has no batched ones): up to
// this order.
inline constexpr std::int64_t kAutoBatchedQrOrder = 64;
// Whether a device with a vendor solver takes porta's geqrf and orgqr for a stack of `batch`
// matrices of `order`: PORTA_SOLVER=porta, or auto on CUDA for stacks up to kAutoBatchedQrOrder.
bool chosen_for_batched_qr(const Device& device, std::int64_t batch, std::int64_t order);
// The largest order gesv_small and potrf_small take for t on device (64, or 32 for complex128).
std::int64_t fused_order(DType t, const Device& device);

// One launch a solve (n <= fused_order), a work-group a matrix in local memory or, as
// PORTA_SMALL_SOLVE says, a sub-warp a matrix in registers (n <= kWarpOrder): A X = B for a
// batch of n x n matrices a ([batch, n, n], any strides: View::strides, the row-major input as
// it is, broadcasts and views included), b ([batch, n, nrhs], any strides) into x (contiguous
// row-major [batch, n, nrhs]); info [batch] as getrf's (every entry written). a and b are only read.
void gesv_small(DType t, const View& a, const View& b, const View& x, const View& info, std::int64_t batch, std::int64_t n,
                std::int64_t nrhs);
// One launch a Cholesky (n <= fused_order): A = L L^H from the lower triangle of a ([batch, n, n],
// any strides, only read) into l (contiguous row-major [batch, n, n], zeros above the diagonal);
// info [batch] as potrf's.
void potrf_small(DType t, const View& a, const View& l, const View& info, std::int64_t batch, std::int64_t n);

// LU with partial pivoting of n x n matrices: L (unit, below the diagonal) and U over a; ipiv
// [batch, n]; info [batch].
void getrf(DType t, const View& a, const View& ipiv, const View& info, std::int64_t batch, std::int64_t n);
// Solves A X = B in place of b ([batch, nrhs, n]: each matrix's nrhs columns of n) with getrf's lu and ipiv.
void getrs(DType t, const View& lu, const View& ipiv, const View& b, std::int64_t batch, std::int64_t n, std::int64_t nrhs);
// Solves A X = B in place of b with the triangle of a (upper or lower; unit: its diagonal taken as
// ones, not read), the other triangle not read: QR's R for least squares (no pivoting, no check:
// a zero on the diagonal gives infinities and NaNs, as LAPACK's trsm).
void trtrs(DType t, const View& a, const View& b, std::int64_t batch, std::int64_t n, std::int64_t nrhs, bool upper, bool unit);
// Cholesky, lower: A = L L^H, L over a's lower triangle, the strict upper triangle untouched; info [batch].
void potrf(DType t, const View& a, const View& info, std::int64_t batch, std::int64_t n);
// Solves A X = B in place of b with potrf's l.
void potrs(DType t, const View& l, const View& b, std::int64_t batch, std::int64_t n, std::int64_t nrhs);
// Householder QR of m x n matrices: R on and above the diagonal, the reflectors below it, their
// scalars in tau [batch, min(m, n)].
void geqrf(DType t, const View& a, const View& tau, std::int64_t batch, std::int64_t m, std::int64_t n);
// The first n columns of Q = H(1) ... H(k) from geqrf's reflectors, in place of a (m x n, whose
// first k columns hold them: m >= n >= k; InvalidArgument otherwise); tau [batch, k].
void orgqr(DType t, const View& a, const View& tau, std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k);
// Reduces Hermitian n x n matrices (only the triangle `lower`, or the upper one, read) to real
// symmetric tridiagonal T = Q^H A Q (LAPACK's sytrd/hetrd, lower): d [batch, n] T's diagonal, e
// [batch, n] its subdiagonal in e[0, n - 1) (e[n - 1] = 0), both of t's real dtype; Q = H(0) ...
// H(n - 2), H(k) = I - tau[k] v v^H with v = (0, ..., 0, 1, A(k+2:n, k)) from row k + 1, the
// reflectors written over A(k+1:n, k) with their unit first elements (orgqr of the (n - 1) x
// (n - 1) block from A(1, 0) gives Q's trailing block); tau [batch, n] (tau[n - 1] = 0). The rest
// of a is scratch (both triangles are updated). Unblocked: a step is four kernels over the
// trailing block (its product with v in parts, the rank-2 update).
void sytrd(DType t, const View& a, const View& d, const View& e, const View& tau, std::int64_t batch, std::int64_t n, bool lower);
// Reduces m x n matrices (m >= n; InvalidArgument otherwise) to real upper bidiagonal B = Q^H A P
// (LAPACK's gebrd/gebd2): d [batch, n] B's diagonal, e [batch, n] its superdiagonal in e[0, n - 1)
// (e[n - 1] not written), of t's real dtype; Q = H(0) ... H(n - 1), H(k) = I - tauq[k] v v^H with v
// from row k over A(k:m, k) (its unit head written): geqrf's layout, orgqr's input; P = G(0) ...
// G(n - 2), G(k) = I - taup[k] u u^H with u from column k + 1 over row k, A(k, k+1:n), unit head
// written, stored as it is (not conjugated: LAPACK stores the conjugate), so that the (n - 1) x
// (n - 1) block of rows [0, n - 1), columns [1, n), transposed, is orgqr's input for P's trailing
// block. tauq, taup [batch, n] (taup[n - 1] not written). Unblocked: seven launches a column.
void gebrd(DType t, const View& a, const View& d, const View& e, const View& tauq, const View& taup, std::int64_t batch, std::int64_t m,
           std::int64_t n);

// A tuning hook (porta_dense_timing --phases): where set, called on the calling thread with the
// name of each kernel (dense.cl's kind) or product ("gemm_deep": k >= 1024 with a side of the
// output at most 256; "gemm_split": the parts of such a product split along k; "gemm_update":
// k <= 256; "gemm") just before the blocked drivers enqueue it, so
// that a tool can record a device event there and charge the time to the step it names. Not
// thread-safe to change while solvers run; nullptr (the default) calls nothing.
using PhaseHook = void (*)(const char* step);
void set_phase_hook(PhaseHook hook);

}  // namespace porta::detail::dense

namespace porta::detail::primitives {
// The solvers' kernels for the NVRTC check (tests/codegen_cuda_text_test.cpp), as work.hpp's lists.
std::vector<std::pair<std::string, std::string>> dense_kernel_sources(const DialectText& d);
}  // namespace porta::detail::primitives
