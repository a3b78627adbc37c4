"""The array API standard's (2024.12) names that NumPy spells otherwise or lacks: the constants,
astype, concat, permute_dims, matrix_transpose, clip with optional bounds, __array_namespace_info__
and ndarray.to_device. NumPy's names stay beside them (concatenate, transpose, a.astype, ...)."""
import math

from . import _core
from ._array import _astype_method
from ._core import ndarray
from ._creation import _same_device
from ._dtypes import isdtype
from ._helpers import ALL_DTYPES, as_int, check_array, dtype_name, dtype_object

# (__array_namespace_info__ too, which __all__ leaves out as it does every name that starts with _)
__all__ = ["e", "inf", "nan", "newaxis", "pi", "astype", "concat", "permute_dims", "matrix_transpose", "clip"]

e = math.e
inf = math.inf
nan = math.nan
newaxis = None
pi = math.pi


def astype(x, dtype, /, *, copy=True, device=None):
    """x in `dtype` (the array API's function form of x.astype), on `device` if given: a new array
    unless copy=False and x is of that dtype on that device already."""
    check_array(x, "astype")
    if not copy and dtype_name(dtype) == x._dtype_name and _same_device(x, device):
        return x  # (C++ gives the same array, but in a new Python object)
    r = _astype_method(x, dtype, copy=copy and _same_device(x, device))
    return r if _same_device(r, device) else r.to(device)


def concat(arrays, /, *, axis=0):
    """The arrays joined along `axis` (NumPy's concatenate); axis=None joins them flattened."""
    arrays = list(arrays)
    for a in arrays:
        check_array(a, "concat")
    if axis is None:
        return _core.concatenate([a.reshape(-1) for a in arrays], axis=0)
    return _core.concatenate(arrays, axis=as_int(axis, "concat"))


def permute_dims(x, /, axes):
    """A view of x with its axes in the order `axes` (NumPy's transpose with every axis named)."""
    check_array(x, "permute_dims")
    axes = [as_int(a, "permute_dims") for a in axes]
    if len(axes) != x.ndim:
        raise _core.InvalidArgument(f"permute_dims: axes {tuple(axes)} for an array of {x.ndim} dimensions "
                                    f"{x.shape}; name every axis once")
    return x.transpose(axes) if axes else x


def matrix_transpose(x, /):
    """A view of x with its last two axes swapped (x.mT): a stack of matrices, each transposed."""
    check_array(x, "matrix_transpose")
    if x.ndim < 2:
        raise _core.InvalidArgument(f"matrix_transpose: an array of {x.ndim} dimensions {x.shape}; it needs at least "
                                    f"two (a matrix or a stack of them)")
    return x.mT


def _lowest(name, high):
    """The bound that clips nothing in the real or integer dtype `name`, as a Python number that keeps
    the result's dtype (NumPy 2's weak scalars): its lowest value, or its highest."""
    if name.startswith(("int", "uint")):
        info = _core._iinfo(name)
        return info[2] if high else info[1]
    return inf if high else -inf


def clip(a, /, min=None, max=None, out=None, *, a_min=None, a_max=None):  # noqa: A002 (the standard's names)
    """The array API's clip: a's elements limited to [min, max], either bound None (unbounded on
    that side); a_min and a_max are NumPy's older names for them, by keyword."""
    if out is not None:
        raise _core.InvalidArgument("clip: porta has no out= (the result is a new array)")
    if a_min is not None:
        if min is not None:
            raise TypeError("clip: give a_min or min, not both")
        min = a_min
    if a_max is not None:
        if max is not None:
            raise TypeError("clip: give a_max or max, not both")
        max = a_max
    a_min, a_max = min, max
    if a_min is None or a_max is None:
        name = a._dtype_name if isinstance(a, ndarray) else None
        if name is None or name == "bool" or name.startswith("complex"):
            if a_min is None and a_max is None:
                return _core.positive(a) if name != "bool" else a.copy()
            return _core.minimum(a, a_max) if a_min is None else _core.maximum(a, a_min)
        # The unbounded side gets the dtype's own extreme, so the result's dtype is clip's.
        a_min = _lowest(name, False) if a_min is None else a_min
        a_max = _lowest(name, True) if a_max is None else a_max
    return _core.clip(a, a_min, a_max)


_KIND_NAMES = ("bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating",
               "numeric")


class _Info:
    """What __array_namespace_info__() answers (the array API's inspection namespace)."""

    __module__ = "porta"

    def capabilities(self):
        """porta indexes with bool masks, and has functions whose result's shape depends on the data
        (nonzero, unique_*, a[mask]); arrays have at most 64 dimensions (NumPy's limit, which
        every host copy goes through)."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self):
        """The device porta's functions use where none is given: this thread's current device."""
        return _core.current_device()

    def default_dtypes(self, *, device=None):
        """The dtypes porta's functions give where none is asked for (porta.zeros: float64,
        porta.arange of integers: int64, indices: int64), the same on every device."""
        _device(device)
        return {"real floating": dtype_object("float64"), "complex floating": dtype_object("complex128"),
                "integral": dtype_object("int64"), "indexing": dtype_object("int64")}

    def dtypes(self, *, device=None, kind=None):
        """The array API's dtypes `device` (default: the current device) has, by name, of `kind`
        (one of the standard's kinds, or a tuple of them; None: all of them). porta's float16 and
        bfloat16 are not the standard's, so not here (Device.supports tells of them)."""
        d = _device(device)
        kinds = kind if isinstance(kind, tuple) else (kind,)
        for k in kinds:
            if k is not None and k not in _KIND_NAMES:
                raise _core.InvalidArgument(f"dtypes: kind={k!r}; use None, one of {', '.join(map(repr, _KIND_NAMES))} "
                                            f"or a tuple of them")
        out = {}
        for n in ALL_DTYPES:
            if n not in ("float16", "bfloat16") and d.supports(n) and (kind is None or isdtype(dtype_object(n), kind)):
                out[n] = dtype_object(n)
        return out

    def devices(self):
        """Every device porta found (porta.devices())."""
        return _core.devices()


def _device(device):
    return _core.current_device() if device is None else _core.get_device(device)


def __array_namespace_info__():
    """The array API's inspection namespace: capabilities(), default_device(), default_dtypes(),
    dtypes() and devices()."""
    return _Info()


def _to_device(self, device, /, *, stream=None):
    """The array on `device` (the array API's name for a.to(device)): itself where it is there already."""
    if stream is not None:
        raise _core.InvalidArgument("to_device: porta orders its work on each device itself and takes no stream; "
                                    "pass stream=None")
    return self if _same_device(self, device) else self.to(device)


ndarray.to_device = _to_device
