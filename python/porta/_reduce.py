"""Reductions with NumPy's arguments: axis (an int, a tuple or None), dtype, keepdims."""
import builtins

from . import _core
from ._helpers import dtype_name

__all__ = ["sum", "mean", "prod", "min", "max", "amin", "amax", "argmin", "argmax", "all", "any"]


def _normalize_axes(a, axis):
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for x in axes:
        if not -a.ndim <= x < builtins.max(a.ndim, 1):
            raise _core.ShapeError(f"axis {x} is out of bounds for an array of {a.ndim} dimensions {a.shape}")
        out.append(x % builtins.max(a.ndim, 1))
    return sorted(set(out), reverse=True)


def _reduce(fn, a, axis, keepdims, dtype=None, single_axis=False):
    if dtype is not None:
        a = a.astype(dtype_name(dtype))
    axes = _normalize_axes(a, axis)
    if single_axis:
        if axes is not None and len(axes) != 1:
            raise _core.InvalidArgument("this reduction takes one axis or None")
        if axes is None:
            r = fn(a)
            return r.reshape((1,) * a.ndim) if keepdims else r
        return fn(a, axes[0], keepdims)
    if axes is not None and len(axes) == 1:
        return fn(a, axes[0], keepdims)
    if axes is None and not keepdims:
        return fn(a)
    # Several axes, or keepdims over all of them: porta's reductions over axis lists (manip.hpp).
    return getattr(_core, fn.__name__ + "_axes")(a, None if axes is None else sorted(axes), keepdims)


def _in_dtype(r, dtype):
    """A sum's or product's result in the dtype= asked for (NumPy's: sum(int32, dtype='int32') is
    int32; porta accumulates integers in 64 bits, which wraps to the same bits)."""
    if dtype is None:
        return r
    name = dtype_name(dtype)
    return r if r._dtype_name == name else r.astype(name)


def sum(a, axis=None, dtype=None, keepdims=False):  # noqa: A001
    return _in_dtype(_reduce(_core._sum, a, axis, keepdims, dtype), dtype)


def mean(a, axis=None, dtype=None, keepdims=False):
    return _reduce(_core._mean, a, axis, keepdims, dtype)


def prod(a, axis=None, dtype=None, keepdims=False):
    return _in_dtype(_reduce(_core._prod, a, axis, keepdims, dtype), dtype)


def min(a, axis=None, keepdims=False):  # noqa: A001
    return _reduce(_core._min, a, axis, keepdims)


def max(a, axis=None, keepdims=False):  # noqa: A001
    return _reduce(_core._max, a, axis, keepdims)


amin, amax = min, max


def argmin(a, axis=None, keepdims=False):
    return _reduce(_core._argmin, a, axis, keepdims, single_axis=True)


def argmax(a, axis=None, keepdims=False):
    return _reduce(_core._argmax, a, axis, keepdims, single_axis=True)


def all(a, axis=None, keepdims=False):  # noqa: A001
    return _reduce(_core._all, a, axis, keepdims)


def any(a, axis=None, keepdims=False):  # noqa: A001
    return _reduce(_core._any, a, axis, keepdims)
