// Matrix products: cuBLAS on CUDA; porta's tiled kernel (or CLBlast) on OpenCL GPUs; the host's
// OpenBLAS on CPU devices (PoCL, Kokkos on the host), on the device memory without a copy.
// Decompositions and solvers (porta::linalg): cuSOLVER on CUDA, LAPACK on CPU devices
// (docs/design/linalg.md); NumPy's numpy.linalg and the array API's linalg extension.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <porta/array.hpp>
#include <porta/manip.hpp>

namespace porta {

enum class MatmulPrecision {
  exact,    // float32 is computed in float32 (the default)
  tf32,     // float32 may use TF32 tensor cores (CUDA); same as exact elsewhere
  from_env, // PORTA_MATMUL=exact|tf32, exact when unset
  // complex64 and complex128 may use the 3M (Gauss) form, 3 real products in place of 4 (cuBLAS's
  // cgemm3m, zgemm3m: faster, with errors relative to the operands' norms rather than to each
  // part); the same as exact elsewhere and for real dtypes.
  complex_3m,
};

// NumPy's matmul: 2-D x 2-D; 1-D operands become a row (left) or a column (right) and that
// axis is dropped; 3-D and higher operands are stacks of matrices whose leading dimensions
// broadcast ((2, 1, m, k) with (3, k, n) is (2, 3, m, n)). Operands are promoted to
// a common dtype (NumPy's) and the result has it: float32, float64, and float16/bfloat16 where the
// device has them (accumulated in float32); complex64 and complex128 (no conjugation; tf32 lets
// complex64 use TF32 as float32 does); integers exact, wrapping modulo 2^bits as NumPy's (int8 @
// int8 is int8); bool: whether any pair is true in both.
Array matmul(const Array& a, const Array& b, MatmulPrecision precision = MatmulPrecision::from_env);
// Inner product of two 1-D arrays: a 0-d array.
Array dot(const Array& a, const Array& b);
// The array API's vecdot: sums of conj(a) * b along `axis` of each (of one length), the other
// dimensions broadcast, in their promoted dtype (bool: whether any pair is true in both, as NumPy's).
Array vecdot(const Array& a, const Array& b, int axis = -1);
// NumPy's tensordot: sums of products over a's last `axes` axes and b's first `axes` (or over the
// axes a_axes of a and b_axes of b, matched in order); the result has a's other axes, then b's.
// Every dtype goes through matmul.
Array tensordot(const Array& a, const Array& b, int axes = 2);
Array tensordot(const Array& a, const Array& b, const std::vector<int>& a_axes, const std::vector<int>& b_axes);

// NumPy's einsum: subscripts explicit ("ij,jk->ik") or implicit ("ij,jk": the letters seen once,
// in order), "..." for broadcast axes, repeated letters in one operand as diagonals. Operands are
// contracted a pair at a time, the cheapest pair first, each pair as one batched matmul.
Array einsum(const std::string& subscripts, const std::vector<Array>& operands);

// numpy.linalg. Every function takes stacks of matrices (..., m, n) and works on each; the
// dtype is float32, float64, complex64 or complex128 (integers and bool become float64; float16
// and bfloat16 are refused, as NumPy does). Inputs are never modified. A matrix without the
// decomposition throws LinAlgError naming its index in the stack; a device without solvers a
// DTypeError (DeviceInfo's solver line in porta-info says which devices have them).
namespace linalg {

using porta::matmul;
using porta::tensordot;
using porta::vecdot;

// x with A x = b for each matrix: b is (..., n, k), or (n,) / (..., n) as NumPy 2's 1-D rule (b
// is a vector only when 1-D); the leading dimensions broadcast. LU with partial pivoting.
Array solve(const Array& a, const Array& b);
Array inv(const Array& a);
Array det(const Array& a);
struct SlogdetResult {
  Array sign, logabsdet;  // sign: +-1 (complex: a number of modulus 1), 0 for a singular matrix
};
SlogdetResult slogdet(const Array& a);
// L with A = L L^H (lower), or U = L^H with A = U^H U (upper); only the lower triangle of A is read.
Array cholesky(const Array& a, bool upper = false);
enum class QrMode { reduced, complete, r };
struct QrResult {
  Array Q, R;  // mode r: Q is not valid
};
QrResult qr(const Array& a, QrMode mode = QrMode::reduced);
struct EighResult {
  Array eigenvalues, eigenvectors;  // ascending; the columns of eigenvectors
};
// Hermitian eigenproblem from the lower (upper: the upper) triangle, as NumPy's UPLO.
EighResult eigh(const Array& a, bool upper = false);
Array eigvalsh(const Array& a, bool upper = false);
struct SvdResult {
  Array U, S, Vh;  // A = U diag(S) Vh; S descending
};
SvdResult svd(const Array& a, bool full_matrices = true);
Array svdvals(const Array& a);
struct LstsqResult {
  Array x, residuals;  // residuals: empty unless rank == n and m > n
  std::int64_t rank = 0;
  Array s;
};
// numpy.linalg.lstsq of one (m, n) matrix: the minimum-norm least-squares solution through the SVD,
// singular values below rcond * max(s) taken as 0 (default: eps * max(m, n)).
LstsqResult lstsq(const Array& a, const Array& b, std::optional<double> rcond = std::nullopt);
// Pseudo-inverse through the SVD; singular values at most rtol * max(s) are dropped (default
// max(m, n) * eps, the array API's; NumPy's rcond=1e-15 is rtol=1e-15).
Array pinv(const Array& a, std::optional<double> rtol = std::nullopt);
// The same with an rtol per matrix: an array that broadcasts against a's leading dimensions (the
// array API's `rtol: float | array`, NumPy's array rcond).
Array pinv(const Array& a, const Array& rtol);
// Singular values above rtol * max(s) (default max(m, n) * eps), or above `tol` when given.
Array matrix_rank(const Array& a, std::optional<double> rtol = std::nullopt, std::optional<double> tol = std::nullopt);
// How matrix_rank reads a tolerance array: relative (rtol, times each matrix's largest singular
// value) or absolute (NumPy's tol).
enum class Tolerance { relative, absolute };
// The same with a tolerance per matrix: an array that broadcasts against a's leading dimensions.
Array matrix_rank(const Array& a, const Array& tolerance, Tolerance kind = Tolerance::relative);

// Compositions of the operations above and porta's elementwise ones and reductions.
using porta::matrix_transpose;  // the last two axes swapped (a view; manip.hpp)
Array diagonal(const Array& a, std::int64_t offset = 0);  // of the last two axes
Array trace(const Array& a, std::int64_t offset = 0);
Array outer(const Array& a, const Array& b);  // of two 1-D arrays
Array cross(const Array& a, const Array& b, int axis = -1);  // 3-vectors along `axis`, broadcast
// ord: 2 (default), 1, 0 (count of non-zeros), inf, -inf, any p; axes empty: every axis.
Array vector_norm(const Array& a, double ord = 2, const std::vector<int>& axes = {}, bool keepdims = false);
// ord: "fro", "nuc", "1", "-1", "2", "-2", "inf", "-inf" (NumPy's ord values as text).
Array matrix_norm(const Array& a, const std::string& ord = "fro", bool keepdims = false);
Array matrix_power(const Array& a, std::int64_t n);  // n < 0: of the inverse

}  // namespace linalg
}  // namespace porta
