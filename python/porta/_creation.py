"""Creation and shape functions with NumPy's argument names; host data crosses through NumPy.
Also the conversions that indexing and writes make with asarray (_indices, _value), which
porta._array and porta._arrayapi import."""
import builtins
import warnings

import numpy as np
from numpy.exceptions import ComplexWarning

from . import _core
from ._core import ndarray
from ._helpers import ALL_DTYPES, HOST_DTYPES, NUMPY_DTYPES, bfloat16, dtype_name, to_numpy
from ._interop import from_cuda_array_interface, from_dlpack

__all__ = ["array", "asarray", "asnumpy", "full", "arange", "linspace", "zeros_like", "ones_like", "full_like",
           "empty_like", "reshape", "transpose", "expand_dims", "squeeze", "broadcast_to", "bool_", "int8", "int16",
           "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "bfloat16", "float32", "float64",
           "complex64", "complex128"]

# The dtypes NumPy has are NumPy's scalar types (as CuPy's); bfloat16 is porta's own object.
bool_ = np.bool_
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
complex64, complex128 = np.complex64, np.complex128


def asarray(obj, dtype=None, device=None, copy=None):
    """A porta array of `obj` (a porta array, a NumPy array, a list, a number, another library's
    device array) on `device`, of NumPy's dtype for it (np.uint8 stays uint8, complex stays complex)
    or `dtype`. copy (the array API's): True always gives a new array; None reuses obj's memory where
    it can (a porta array of that dtype and device is returned as it is; another library's device
    array is shared through DLPack); False reuses it or raises ValueError (porta.InvalidArgument)
    where that needs a copy (host data always does: porta's arrays live in the device's memory)."""
    name = dtype_name(dtype)
    if copy is False:
        _check_no_copy(obj, name, device)
    r, shared = _asarray(obj, name, device)
    return r.copy() if copy and shared else r


def _same_device(a, device):
    return device is None or a.device == _core.get_device(device)


def _check_no_copy(obj, name, device):
    """asarray(copy=False)'s refusal, before any work: ValueError where obj's memory cannot be used."""
    if isinstance(obj, ndarray):
        src = obj
    elif not isinstance(obj, np.ndarray) and (hasattr(obj, "__cuda_array_interface__") or hasattr(obj, "__dlpack__")):
        src = from_dlpack(obj) if hasattr(obj, "__dlpack__") else from_cuda_array_interface(obj)
    else:
        raise _core.InvalidArgument(f"asarray(copy=False): a {type(obj).__name__} is host data, which porta copies "
                                    f"into the device's memory; use copy=None (or True)")
    if name is not None and name != src._dtype_name:
        raise _core.InvalidArgument(f"asarray(copy=False): the array is {src._dtype_name}, dtype={name} needs a copy; "
                                    f"use copy=None")
    if not _same_device(src, device):
        raise _core.InvalidArgument(f"asarray(copy=False): the array is on {src.device.spec}, device={device} needs "
                                    f"a copy; use copy=None")


def _asarray(obj, name, device):
    """asarray's array, and whether it shares obj's memory (obj itself, or a DLPack view of it)."""
    if isinstance(obj, ndarray):
        r = obj if name is None or name == obj._dtype_name else obj.astype(name)
        r = r if _same_device(r, device) else r.to(device)
        return r, r is obj
    if not isinstance(obj, np.ndarray) and (hasattr(obj, "__cuda_array_interface__") or hasattr(obj, "__dlpack__")):
        # Device arrays of other libraries (CuPy, PyTorch): zero-copy, then converted or moved.
        r = from_dlpack(obj) if hasattr(obj, "__dlpack__") else from_cuda_array_interface(obj)
        out, shared = _asarray(r, name, device)
        return out, shared
    host = np.asarray(obj) if name in (None, "bfloat16") else np.asarray(obj, dtype=name)
    if host.dtype.name == "bfloat16":  # ml_dtypes' bfloat16: its bits are porta's
        host_name, host = "bfloat16", host.view(np.uint16)
    elif host.dtype.name in HOST_DTYPES:
        host_name = host.dtype.name
    else:
        raise _core.DTypeError(f"porta has no dtype for NumPy's {host.dtype.name}: use one of {', '.join(ALL_DTYPES)} "
                               f"(astype on the NumPy array first)")
    if not host.dtype.isnative:
        host = host.astype(host.dtype.newbyteorder("="))  # porta's memory is in this host's byte order
    if not host.flags.c_contiguous:
        host = host.copy(order="C")  # (np.ascontiguousarray would make a 0-d array 1-d)
    r = _core._from_host(host.reshape(-1), host_name, host.shape, device)
    return (r.astype(name) if name is not None and name != host_name else r), False


def array(obj, dtype=None, copy=True, device=None):
    """As cupy.array: a new array (copy=True, the default), or asarray's copy=None and False."""
    return asarray(obj, dtype, device, copy=copy)


def asnumpy(a, dtype=None):
    """A NumPy copy of a porta array (cupy.asnumpy); other objects go through numpy.asarray."""
    return to_numpy(a, dtype) if isinstance(a, ndarray) else np.asarray(a, dtype)


def _host_value(v):
    """A fill value as a Python number (NumPy scalars, 0-d NumPy and porta arrays by their value)."""
    if isinstance(v, (ndarray, np.generic)) or (isinstance(v, np.ndarray) and v.ndim == 0):
        return v.item()
    return v


def _check_int_fits(value, name, what):
    """NumPy 2's OverflowError (porta.NumberOutOfRange) for a Python int that the integer dtype
    `name` cannot hold; other values and dtypes pass."""
    if isinstance(value, int) and not isinstance(value, bool) and name not in _NOT_INTEGER:
        _, lo, hi = _core._iinfo(name)
        if not lo <= value <= hi:
            raise _core.NumberOutOfRange(f"{what}: Python integer {value} does not fit in {name} ([{lo}, {hi}]; "
                                         f"NumPy 2 raises OverflowError); use a wider dtype")


_NOT_INTEGER = ("bool", "float16", "bfloat16", "float32", "float64", "complex64", "complex128")


def _fill_into(a, value, what):
    """Writes the number `value` into every element of `a`, as NumPy's fill and full: an integer the
    integer dtype cannot hold is an OverflowError (porta.NumberOutOfRange), as NumPy 2's; a complex
    number into a real array keeps the real part, with NumPy's ComplexWarning."""
    value = _host_value(value)
    kind = np.dtype("float32" if a._dtype_name == "bfloat16" else a._dtype_name).kind
    if isinstance(value, complex) and kind != "c":
        if kind == "b":
            value = value != 0
        else:
            warnings.warn(f"{what}: casting the complex value {value!r} to {a._dtype_name} discards the imaginary part",
                          ComplexWarning, stacklevel=3)
            value = value.real
    if isinstance(value, complex):
        _core._assign(a, value)
    elif isinstance(value, bool):
        _core._fill(a, 0.0, int(value), False)
    elif not isinstance(value, int):
        _core._fill(a, float(value), 0, True)
    elif kind in "iu":
        _check_int_fits(value, a._dtype_name, what)
        _core._fill(a, 0.0, value if value < 2 ** 63 else value - 2 ** 64, False)  # uint64: the bits
    elif -2 ** 63 <= value < 2 ** 63:
        _core._fill(a, 0.0, value, False)
    else:
        _core._fill(a, float(value), 0, True)  # an integer beyond int64 into a float array
    return a


def _default_dtype(value):
    """NumPy's dtype for an array of the number `value` (np.full's, np.asarray's)."""
    return "bfloat16" if isinstance(value, ndarray) and value._dtype_name == "bfloat16" else \
        np.asarray(_host_value(value)).dtype.name


def full(shape, fill_value, dtype=None, device=None):
    """An array of `shape` whose elements are all `fill_value` (of NumPy's dtype for it unless `dtype`):
    integers exact at every width, complex numbers too."""
    name = dtype_name(dtype) if dtype is not None else _default_dtype(fill_value)
    value = _host_value(fill_value)
    if not isinstance(value, complex) and (isinstance(value, float) or name in _REAL_INEXACT):
        return _core._full(shape, float(value), name, device)  # (C++ refuses a fraction for an integer dtype)
    return _fill_into(_core.empty(shape, name, device), value, "full")


_REAL_INEXACT = ("bool", "float16", "bfloat16", "float32", "float64")


def arange(start, stop=None, step=1, dtype=None, device=None):
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        ints = builtins.all(isinstance(v, (int, np.integer)) for v in (start, stop, step))
        dtype = "int64" if ints else "float64"
    return _core._arange(float(start), float(stop), float(step), dtype_name(dtype), device)


def linspace(start, stop, num=50, endpoint=True, dtype=None, device=None):
    return _core._linspace(float(start), float(stop), int(num), endpoint, dtype_name(dtype) or "float64", device)


# The *_like functions: a's shape, dtype and device unless dtype or device says otherwise.

def zeros_like(a, dtype=None, *, device=None):
    return _core.zeros(a.shape, dtype_name(dtype) or a._dtype_name, device if device is not None else a.device)


def ones_like(a, dtype=None, *, device=None):
    return _core.ones(a.shape, dtype_name(dtype) or a._dtype_name, device if device is not None else a.device)


def empty_like(a, dtype=None, *, device=None):
    return _core.empty(a.shape, dtype_name(dtype) or a._dtype_name, device if device is not None else a.device)


def full_like(a, fill_value, dtype=None, *, device=None):
    return full(a.shape, fill_value, dtype_name(dtype) or a._dtype_name, device if device is not None else a.device)


def reshape(a, /, shape=None, *, newshape=None, copy=None):
    """a in `shape` (NumPy 2.1's arguments; newshape is NumPy's older name): a view where a's layout
    allows, else a copy. copy=True always copies; copy=False raises ValueError (porta.InvalidArgument)
    unless it can be a view: a's elements already in row-major order, or only axes of length 1
    added or removed."""
    if newshape is not None:
        if shape is not None:
            raise TypeError("reshape: give shape or newshape (NumPy's older name), not both")
        shape = newshape
    if shape is None:
        raise TypeError("reshape: the new shape is missing")
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if copy is False and a.size > 1 and not a.eval().is_contiguous and \
            tuple(n for n in a.shape if n != 1) != tuple(n for n in shape if n != 1):
        raise _core.InvalidArgument(f"reshape(copy=False): the array of shape {a.shape} is a strided view, and "
                                    f"shape {shape} needs its elements copied; use copy=None")
    r = a.reshape(shape)
    return r.copy() if copy else r


def transpose(a, axes=None):
    return a.transpose(axes)


def expand_dims(a, axis):
    return a._expand_dims(axis)


def squeeze(a, axis=None):
    if axis is None:
        return a.squeeze()
    axes = (axis,) if isinstance(axis, int) else axis
    axes = {x % a.ndim for x in axes}
    for x in axes:
        if a.shape[x] != 1:
            raise _core.ShapeError(f"cannot squeeze axis {x} of shape {a.shape}: its size is not 1")
    return a.reshape(tuple(n for i, n in enumerate(a.shape) if i not in axes))


def broadcast_to(a, shape):
    return a._broadcast_to(tuple(shape))


def _indices(obj, device, what):
    """Indices (or a mask) as a porta array on `device`: porta arrays as they are, lists, tuples,
    NumPy arrays and integers copied there (an empty list is int64)."""
    if isinstance(obj, ndarray):
        return obj
    host = np.asarray(obj)
    if host.size == 0 and host.dtype.kind == "f":
        host = host.astype(np.int64)
    if host.dtype.kind not in "biu":
        raise _core.DTypeError(f"{what}: indices of NumPy dtype {host.dtype.name}; they must be integers "
                               f"or a bool mask")
    if host.dtype.kind in "iu" and host.dtype.name not in ("int32", "int64"):
        # Indexing takes int32 and int64 indices: narrower ones widen, uint64 above int64's range
        # is out of bounds anyway.
        if host.dtype.name == "uint64" and host.size and host.max() > np.iinfo(np.int64).max:
            raise IndexError(f"{what}: index {int(host.max())} is out of bounds")
        host = host.astype(np.int32 if host.dtype.itemsize < 4 else np.int64)
    return asarray(host, device=device)


def _value(v, like):
    """A value to write: porta arrays and numbers as they are, NumPy arrays and lists copied to
    `like`'s device (in `like`'s dtype where the device lacks theirs: the write casts to it anyway)."""
    if isinstance(v, (ndarray, bool, int, float, complex)) or (isinstance(v, np.generic)):
        return v
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return v.item()
    host = np.asarray(v)
    if host.dtype.name in HOST_DTYPES and not like.device.supports(host.dtype.name):
        host = host.astype(NUMPY_DTYPES[like._dtype_name] if like._dtype_name != "bfloat16" else np.float32)
    return asarray(host, device=like.device)
