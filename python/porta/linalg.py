"""porta.linalg: numpy.linalg's functions and the array API's linalg extension over porta's C++
porta::linalg (cuSOLVER on CUDA, porta's own kernels there with PORTA_SOLVER=porta, LAPACK on CPU devices;
Device.solver_path says which). Every function takes stacks of matrices (..., M, N); float32,
float64, complex64 and complex128 (integers and bool become float64). A matrix without the decomposition raises LinAlgError, which is also
numpy.linalg.LinAlgError, with .batch_index the flat index of the matrix in the stack."""
import math as _math
from collections import namedtuple as _namedtuple

from . import _core
from ._compose import moveaxis as _moveaxis
from ._compose import tensordot, vecdot
from ._core import LinAlgError, matmul
from ._creation import asarray as _asarray
from ._helpers import as_int as _as_int
from ._helpers import check_array as _check_array
from ._reduce import any as _any

__all__ = [
    "LinAlgError", "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "lstsq", "matmul",
    "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "norm", "outer", "pinv", "qr", "slogdet",
    "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
    "EighResult", "QRResult", "SlogdetResult", "SVDResult",
]

EighResult = _namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = _namedtuple("QRResult", ["Q", "R"])
SlogdetResult = _namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = _namedtuple("SVDResult", ["U", "S", "Vh"])

_no_value = object()


def _arr(a, what):
    _check_array(a, what)
    return a


def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise ValueError(f"UPLO argument must be 'L' or 'U', not {UPLO!r}")
    return UPLO == "U"


def solve(a, b):
    """x with a @ x == b for each matrix of the stack; b is a vector only when 1-D (NumPy 2's rule)."""
    return _core._linalg_solve(_arr(a, "solve"), _arr(b, "solve"))


def inv(a):
    return _core._linalg_inv(_arr(a, "inv"))


def det(a):
    return _core._linalg_det(_arr(a, "det"))


def slogdet(a):
    return SlogdetResult(*_core._linalg_slogdet(_arr(a, "slogdet")))


def cholesky(a, /, *, upper=False):
    """L with a = L @ L^H (upper=True: U = L^H); only the lower triangle of a is read."""
    return _core._linalg_cholesky(_arr(a, "cholesky"), bool(upper))


def qr(a, mode="reduced"):
    """QRResult(Q, R) for mode 'reduced' or 'complete'; R alone for mode 'r'."""
    q, r = _core._linalg_qr(_arr(a, "qr"), str(mode))
    return r if mode == "r" else QRResult(q, r)


def eigh(a, UPLO="L"):
    return EighResult(*_core._linalg_eigh(_arr(a, "eigh"), _uplo(UPLO)))


def eigvalsh(a, UPLO="L"):
    return _core._linalg_eigvalsh(_arr(a, "eigvalsh"), _uplo(UPLO))


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """SVDResult(U, S, Vh) with a = U @ diag(S) @ Vh, S descending; S alone when compute_uv=False.
    hermitian is accepted for NumPy's signature; the general SVD serves it."""
    _arr(a, "svd")
    if not compute_uv:
        return _core._linalg_svdvals(a)
    return SVDResult(*_core._linalg_svd(a, bool(full_matrices)))


def svdvals(x, /):
    return _core._linalg_svdvals(_arr(x, "svdvals"))


def lstsq(a, b, rcond=None):
    """(x, residuals, rank, s) as numpy.linalg.lstsq, through the SVD (rcond None: eps * max(M, N))."""
    x, residuals, rank, s = _core._linalg_lstsq(_arr(a, "lstsq"), _arr(b, "lstsq"),
                                                None if rcond is None else float(rcond))
    return x, residuals, int(rank), s


def _tolerance(a, tol):
    """A number as a float; anything else (an array, a list, a NumPy array) as a porta array on a's
    device, which broadcasts against a's leading dimensions (the array API's `float | array`)."""
    if isinstance(tol, (int, float)) and not isinstance(tol, bool):
        return float(tol)
    if getattr(tol, "ndim", None) == 0 and not hasattr(tol, "device"):
        return float(tol)  # a NumPy scalar or 0-d NumPy array
    return _asarray(tol, device=a.device)


def pinv(a, rcond=None, hermitian=False, *, rtol=_no_value):
    """The pseudo-inverse through the SVD; the cutoff as NumPy's (rcond 1e-15 by default; rtol=None:
    max(M, N) * eps); rcond or rtol a number or an array broadcasting against the stack."""
    _arr(a, "pinv")
    if rcond is not None and rtol is not _no_value:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    if rcond is None:
        rcond = 1e-15 if rtol is _no_value else rtol
    if rcond is None:
        return _core._linalg_pinv(a, None)
    cut = _tolerance(a, rcond)
    return _core._linalg_pinv(a, cut) if isinstance(cut, float) else _core._linalg_pinv_array(a, cut)


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """The singular values above tol (absolute) or rtol * max(s) (default max(M, N) * eps); either a
    number or an array broadcasting against the stack."""
    _arr(A, "matrix_rank")
    if tol is not None and rtol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    if A.ndim < 2:
        return _any(_core.not_equal(A, 0)).astype("int64")
    given = tol if tol is not None else rtol
    if given is None:
        return _core._linalg_matrix_rank(A, None, None)
    cut = _tolerance(A, given)
    if isinstance(cut, float):
        return _core._linalg_matrix_rank(A, None, cut) if tol is not None else _core._linalg_matrix_rank(A, cut, None)
    return _core._linalg_matrix_rank_array(A, cut, tol is not None)


def matrix_transpose(x, /):
    return _core._linalg_matrix_transpose(_arr(x, "matrix_transpose"))


def diagonal(x, /, *, offset=0):
    return _core._linalg_diagonal(_arr(x, "diagonal"), _as_int(offset, "diagonal: offset"))


def trace(x, /, *, offset=0, dtype=None):
    t = _core._linalg_trace(_arr(x, "trace"), _as_int(offset, "trace: offset"))
    return t if dtype is None else t.astype(dtype)


def outer(x1, x2, /):
    return _core._linalg_outer(_arr(x1, "outer"), _arr(x2, "outer"))


def cross(x1, x2, /, *, axis=-1):
    return _core._linalg_cross(_arr(x1, "cross"), _arr(x2, "cross"), _as_int(axis, "cross: axis"))


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    _arr(x, "vector_norm")
    axes = [] if axis is None else [_as_int(a, "vector_norm: axis") for a in (axis if isinstance(axis, (tuple, list)) else [axis])]
    return _core._linalg_vector_norm(x, float(ord), axes, bool(keepdims))


_MATRIX_ORDS = {"fro": "fro", "nuc": "nuc", 1: "1", -1: "-1", 2: "2", -2: "-2", _math.inf: "inf", -_math.inf: "-inf"}


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    _arr(x, "matrix_norm")
    if ord not in _MATRIX_ORDS:
        raise ValueError(f"matrix_norm: invalid norm order {ord!r}; use 'fro', 'nuc', 1, -1, 2, -2, inf or -inf")
    return _core._linalg_matrix_norm(x, _MATRIX_ORDS[ord], bool(keepdims))


def norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm: the 2-norm of the flattened array by default; a vector norm along one axis,
    a matrix norm over two."""
    _arr(x, "norm")
    if axis is None:
        if ord is None:
            return vector_norm(x, keepdims=keepdims)
        axis = tuple(range(x.ndim))
    if isinstance(axis, int):
        axis = (axis,)
    if len(axis) == 2:
        if x.ndim != 2 or tuple(a % x.ndim for a in axis) != (0, 1):
            x = _moveaxis(x, list(axis), [-2, -1])
        return matrix_norm(x, keepdims=False, ord="fro" if ord is None else ord)
    return vector_norm(x, axis=axis, keepdims=keepdims, ord=2 if ord is None else ord)


def matrix_power(a, n):
    return _core._linalg_matrix_power(_arr(a, "matrix_power"), _as_int(n, "matrix_power: n"))
