"""What the package's modules share: porta's dtype names and objects, host copies, and the checks of
array and axis arguments. The leaf of the package: it imports porta._core, NumPy and the standard
library only, and every other module imports it at the top (tests/test_imports.py keeps it so)."""
import builtins
import operator

import numpy as np

from . import _core
from ._core import ndarray

__all__ = ["bfloat16", "HOST_DTYPES", "NUMPY_DTYPES", "ALL_DTYPES", "dtype_name", "dtype_object", "to_numpy", "check_array",
           "as_int", "axis_index", "axes_list"]

# porta's dtypes that NumPy has too (all but bfloat16): host data crosses in these.
HOST_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
               "float64", "complex64", "complex128")
NUMPY_DTYPES = {n: np.dtype(n) for n in HOST_DTYPES}
# Every porta dtype in NumPy's order (C++'s all_dtypes()): bool, signed, unsigned, floating, complex.
ALL_DTYPES = HOST_DTYPES[:10] + ("bfloat16",) + HOST_DTYPES[10:]


class _BFloat16:
    """Stands for bfloat16, which NumPy has no dtype for."""
    name = "bfloat16"
    itemsize = 2

    def __repr__(self):
        return "porta.bfloat16"


bfloat16 = _BFloat16()


def dtype_name(dtype):
    """porta's name for a dtype argument (None stays None): porta.bfloat16, 'bfloat16' or 'bf16',
    a host dtype's name, or anything numpy.dtype takes (np.uint8, 'u1', Python's complex, ml_dtypes'
    bfloat16; a string as NumPy reads it: 'i8' is int64), else one of C++'s short names ('f32'). A
    NumPy dtype porta lacks keeps NumPy's name; the callers refuse it."""
    if dtype is None:
        return None
    if dtype is bfloat16 or (isinstance(dtype, str) and dtype in ("bfloat16", "bf16")):
        return "bfloat16"
    if isinstance(dtype, str) and dtype in HOST_DTYPES:
        return dtype
    if isinstance(dtype, str) and dtype == "f16":  # (NumPy's 'f16' is 16 bytes, a float128 porta has not)
        return "float16"
    try:
        return np.dtype(dtype).name
    except TypeError:
        if isinstance(dtype, str):  # C++'s short names NumPy lacks ('f32', 'c64'); else a DTypeError
            return _core._dtype_name(dtype)
        raise


def dtype_object(name):
    """The dtype ndarray.dtype gives for porta's dtype `name`: NumPy's, or porta.bfloat16."""
    return NUMPY_DTYPES[name] if name != "bfloat16" else bfloat16


def to_numpy(a, dtype=None):
    """A NumPy copy of the porta array `a` in NumPy's dtype of it (bfloat16 comes as float32), cast
    to `dtype` if given (as NumPy casts: complex to real warns and keeps the real part)."""
    if a._dtype_name == "bfloat16":
        a = a.astype("float32")
    out = np.empty(a.shape, dtype=NUMPY_DTYPES[a._dtype_name])
    a._to_host(out.reshape(-1) if out.ndim != 1 else out)
    return out if dtype is None else out.astype(dtype, copy=False)


def check_array(a, what):
    """TypeError naming `what` where `a` is not a porta array."""
    if not isinstance(a, ndarray):
        raise TypeError(f"{what}: {type(a).__name__} is not a porta.ndarray (porta.asarray makes one)")


def as_int(axis, what):
    """An axis argument as an int (TypeError naming it where it is not an integer)."""
    try:
        return operator.index(axis)
    except TypeError:
        raise TypeError(f"{what}: axis {axis!r} is not an integer") from None


def axis_index(a, axis, what):
    """One axis, range-checked (InvalidArgument naming it), as a non-negative int."""
    n = builtins.max(a.ndim, 1)
    x = as_int(axis, what)
    if not -n <= x < n:
        raise _core.InvalidArgument(f"{what}: axis {x} is out of range for an array of {a.ndim} dimensions {a.shape}")
    return x % n


def axes_list(a, axis, what):
    """None, an int or a tuple of ints, as a sorted list of distinct non-negative axes (None: None)."""
    if axis is None:
        return None
    items = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    out = [axis_index(a, x, what) for x in items]
    if len(set(out)) != len(out):
        raise _core.InvalidArgument(f"{what}: axis {axis!r} names an axis more than once")
    return sorted(out)
