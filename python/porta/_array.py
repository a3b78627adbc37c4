"""NumPy's spellings on porta.ndarray: dtype objects, indexing, host copies, methods."""
import numpy as np

from . import _core
from ._core import ndarray

_NUMPY_DTYPES = {n: np.dtype(n) for n in ("bool", "int32", "int64", "float16", "float32", "float64")}


class _BFloat16:
    """Stands for bfloat16, which NumPy has no dtype for."""
    name = "bfloat16"
    itemsize = 2

    def __repr__(self):
        return "porta.bfloat16"


bfloat16 = _BFloat16()


def _dtype(self):
    n = self._dtype_name
    return _NUMPY_DTYPES[n] if n != "bfloat16" else bfloat16


def _to_numpy(a, dtype=None):
    if a._dtype_name == "bfloat16":
        a = a.astype("float32")
    out = np.empty(a.shape, dtype=_NUMPY_DTYPES[a._dtype_name])
    a._to_host(out.reshape(-1) if out.ndim != 1 else out)
    return out if dtype is None else out.astype(dtype, copy=False)


def _normalize_index(a, key):
    """The axes of `key` as (slices for the leading axes, axes to drop, where None adds axes)."""
    if not isinstance(key, tuple):
        key = (key,)
    if any(isinstance(k, (ndarray, np.ndarray, list)) for k in key):
        raise IndexError("porta indexes with integers, slices, None and Ellipsis; "
                         "advanced (array) indexing is not supported")
    n_real = len([k for k in key if k is not None and k is not Ellipsis])
    if n_real > a.ndim:
        raise IndexError(f"too many indices: {n_real} for an array of {a.ndim} dimensions {a.shape}")
    if builtin_sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single Ellipsis ('...')")
    expanded = []
    for k in key:
        if k is Ellipsis:
            expanded.extend([slice(None)] * (a.ndim - n_real))
        else:
            expanded.append(k)
    if Ellipsis not in key:
        expanded.extend([slice(None)] * (a.ndim - n_real))
    return expanded


builtin_sum = sum


def _getitem(self, key):
    items = _normalize_index(self, key)
    slices, out_shape, axis = [], [], 0
    for k in items:
        if k is None:
            out_shape.append(1)
            continue
        n = self.shape[axis]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            if step < 0 and stop < 0:
                stop = None  # runs through element 0
            slices.append((start, stop, step))
            out_shape.append(len(range(*k.indices(n))))
        else:
            try:
                i = k.__index__()
            except AttributeError:
                raise IndexError(f"index {k!r} is not an integer, a slice, None or Ellipsis") from None
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            i %= n
            slices.append((i, i + 1, 1))
        axis += 1
    r = self._slice(slices) if slices and any(s != (0, self.shape[j], 1) for j, s in enumerate(slices)) else self
    return r.reshape(tuple(out_shape)) if tuple(out_shape) != r.shape else r


def _setitem(self, key, value):
    raise TypeError("porta arrays are values and cannot be written in place yet: build a new array "
                    "(porta.where, porta.concatenate) instead of a[...] = b")


def _repr(self):
    body = np.array2string(_to_numpy(self), separator=", ", prefix="array(")
    return f"array({body}, dtype={self._dtype_name}, device={self.device.spec})"


def _array_protocol(self, dtype=None, copy=None):
    return _to_numpy(self, dtype)


def _item(self):
    if self.size != 1:
        raise ValueError(f"item() needs an array of one element, this one has shape {self.shape}")
    return _to_numpy(self).reshape(-1)[0].item()


def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d porta array")
    for i in range(self.shape[0]):
        yield self._index(i)


def _floordiv(self, other):
    from ._creation import floor_divide
    return floor_divide(self, other)


def _rfloordiv(self, other):
    from ._creation import floor_divide
    return floor_divide(other, self)


def _method(name):
    def f(self, *args, **kwargs):
        import porta
        return getattr(porta, name)(self, *args, **kwargs)
    f.__name__ = name
    return f


ndarray.dtype = property(_dtype)
ndarray.__getitem__ = _getitem
ndarray.__setitem__ = _setitem
ndarray.__repr__ = _repr
ndarray.__str__ = lambda self: str(_to_numpy(self))
ndarray.__array__ = _array_protocol
ndarray.__array_ufunc__ = None  # numpy_array + porta_array is porta's business (and refused), not NumPy's
ndarray.__array_priority__ = 100
ndarray.__hash__ = None
ndarray.__iter__ = _iter
ndarray.__floordiv__ = _floordiv
ndarray.__rfloordiv__ = _rfloordiv
ndarray.__bool__ = lambda self: bool(_item(self))
ndarray.__float__ = lambda self: float(_item(self))
ndarray.__int__ = lambda self: int(_item(self))
ndarray.__index__ = lambda self: _item(self).__index__()
ndarray.get = lambda self: _to_numpy(self)
ndarray.item = _item
ndarray.tolist = lambda self: _to_numpy(self).tolist()
for _name in ("sum", "mean", "prod", "min", "max", "argmin", "argmax", "all", "any", "clip", "round", "dot"):
    setattr(ndarray, _name, _method(_name))
del _name
