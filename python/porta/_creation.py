"""Creation and shape functions with NumPy's argument names; host data crosses through NumPy.
Also the conversions that indexing and writes make with asarray (_indices, _value), which
porta._array and porta._arrayapi import."""
import builtins

import numpy as np

from . import _core
from ._core import ndarray
from ._helpers import HOST_DTYPES, bfloat16, dtype_name, to_numpy
from ._interop import from_cuda_array_interface, from_dlpack

__all__ = ["array", "asarray", "asnumpy", "full", "arange", "linspace", "zeros_like", "ones_like", "full_like",
           "empty_like", "reshape", "transpose", "expand_dims", "squeeze", "broadcast_to", "float16", "float32",
           "float64", "int32", "int64", "bool_", "bfloat16"]

float16, float32, float64 = np.float16, np.float32, np.float64
int32, int64, bool_ = np.int32, np.int64, np.bool_


def asarray(obj, dtype=None, device=None):
    """A porta array of `obj` (a porta array, a NumPy array, a list, a number) on `device`."""
    name = dtype_name(dtype)
    if isinstance(obj, ndarray):
        r = obj if name is None or name == obj._dtype_name else obj.astype(name)
        return r if device is None else r.to(device)
    if not isinstance(obj, np.ndarray) and (hasattr(obj, "__cuda_array_interface__") or hasattr(obj, "__dlpack__")):
        # Device arrays of other libraries (CuPy, PyTorch): zero-copy, then converted or moved.
        r = from_dlpack(obj) if hasattr(obj, "__dlpack__") else from_cuda_array_interface(obj)
        return asarray(r, dtype, device)
    host = np.asarray(obj) if name in (None, "bfloat16") else np.asarray(obj, dtype=name)
    if host.dtype.name not in HOST_DTYPES:
        if host.dtype.kind in "iu" and host.dtype.itemsize <= 4 and host.dtype.name != "uint32":
            host = host.astype(np.int32)
        elif host.dtype.kind in "iu":
            host = host.astype(np.int64)
        else:
            raise _core.DTypeError(f"porta has no dtype for NumPy's {host.dtype.name}: use bool, int32, int64, "
                                   f"float16, bfloat16, float32 or float64")
    if not host.flags.c_contiguous:
        host = host.copy(order="C")  # (np.ascontiguousarray would make a 0-d array 1-d)
    r = _core._from_host(host.reshape(-1), host.dtype.name, host.shape, device)
    return r.astype("bfloat16") if name == "bfloat16" else r


def array(obj, dtype=None, copy=True, device=None):
    """As cupy.array: always a new array."""
    r = asarray(obj, dtype, device)
    return r.copy() if copy and r is obj else r


def asnumpy(a, dtype=None):
    """A NumPy copy of a porta array (cupy.asnumpy); other objects go through numpy.asarray."""
    return to_numpy(a, dtype) if isinstance(a, ndarray) else np.asarray(a, dtype)


def full(shape, fill_value, dtype=None, device=None):
    if dtype is None:
        dtype = "bool" if isinstance(fill_value, bool) else "int64" if isinstance(fill_value, int) else "float64"
    return _core._full(shape, float(fill_value), dtype_name(dtype), device)


def arange(start, stop=None, step=1, dtype=None, device=None):
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        ints = builtins.all(isinstance(v, (int, np.integer)) for v in (start, stop, step))
        dtype = "int64" if ints else "float64"
    return _core._arange(float(start), float(stop), float(step), dtype_name(dtype), device)


def linspace(start, stop, num=50, endpoint=True, dtype=None, device=None):
    return _core._linspace(float(start), float(stop), int(num), endpoint, dtype_name(dtype) or "float64", device)


def zeros_like(a, dtype=None):
    return _core.zeros(a.shape, dtype_name(dtype) or a._dtype_name, a.device)


def ones_like(a, dtype=None):
    return _core.ones(a.shape, dtype_name(dtype) or a._dtype_name, a.device)


def empty_like(a, dtype=None):
    return _core.empty(a.shape, dtype_name(dtype) or a._dtype_name, a.device)


def full_like(a, fill_value, dtype=None):
    return _core._full(a.shape, float(fill_value), dtype_name(dtype) or a._dtype_name, a.device)


def reshape(a, newshape):
    return a.reshape(newshape)


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
                               f"(int32 or int64) or a bool mask")
    return asarray(host, device=device)


def _value(v, like):
    """A value to write: porta arrays and numbers as they are, NumPy arrays and lists copied to
    `like`'s device."""
    if isinstance(v, (ndarray, bool, int, float)) or (isinstance(v, np.generic)):
        return v
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return v.item()
    return asarray(v, device=like.device)
