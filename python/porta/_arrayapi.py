"""The array API beyond elementwise work with NumPy's names and arguments: indexing (take, put,
nonzero, ...), scans, sorting and search, unique, rearranging (flip, roll, tile, repeat, pad,
split, tril/triu) and var/std. Each calls porta's C++ function (porta._core, without the GIL); this
file turns NumPy's arguments (axis tuples, lists of indices, scalars) into what C++ takes."""
import builtins
import collections
import operator

import numpy as np

from . import _core
from ._core import ndarray
from ._creation import _indices, _value, asarray, broadcast_to
from ._helpers import axes_list, axis_index, check_array, dtype_name

__all__ = ["take", "take_along_axis", "put", "scatter_add", "compress", "nonzero", "flatnonzero", "count_nonzero",
           "cumsum", "cumprod", "cumulative_sum", "cumulative_prod", "diff", "sort", "argsort", "unique", "unique_all",
           "unique_counts", "unique_inverse", "unique_values", "searchsorted", "topk", "flip", "roll", "tile",
           "repeat", "pad", "split", "unstack", "tril", "triu", "var", "std", "real", "imag", "conj",
           "conjugate", "angle"]

UniqueAllResult = collections.namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = collections.namedtuple("UniqueInverseResult", ["values", "inverse_indices"])
TopkResult = collections.namedtuple("TopkResult", ["values", "indices"])
# (The result types come with the functions' results; porta exports the functions only.)


# Indexing.

def take(a, indices, axis=None, out=None, mode="raise"):
    """NumPy's take: elements of `a` (flattened without an axis) at integer `indices`; an index
    outside [-n, n) raises InvalidArgument."""
    check_array(a, "take")
    if out is not None or mode != "raise":
        raise _core.InvalidArgument("take: porta has no out= and only mode='raise'")
    idx = _indices(indices, a.device, "take")
    return _core._take(a, idx, None if axis is None else axis_index(a, axis, "take"))


def take_along_axis(arr, indices, axis=-1):
    """NumPy's take_along_axis; axis=None indexes the flattened array with 1-D indices."""
    check_array(arr, "take_along_axis")
    idx = _indices(indices, arr.device, "take_along_axis")
    if axis is None:
        return _core._take_along_axis(arr.reshape(-1), idx, 0)
    return _core._take_along_axis(arr, idx, axis_index(arr, axis, "take_along_axis"))


def put(a, ind, v, mode="raise"):
    """NumPy's put, in place: a.flat[ind] = v (v broadcast to ind's shape). Where an index repeats,
    one of its values lands (which is unspecified, as CuPy's)."""
    check_array(a, "put")
    if mode != "raise":
        raise _core.InvalidArgument("put: porta has only mode='raise'")
    _core._put(a, _indices(ind, a.device, "put"), _value(v, a))


def scatter_add(a, indices, values):
    """a.flat[indices] += values in place, every repeated index counted (NumPy's np.add.at over the
    flattened array); the order of the additions is fixed, so the result never depends on timing."""
    check_array(a, "scatter_add")
    _core._scatter_add(a, _indices(indices, a.device, "scatter_add"), _value(values, a))


def compress(condition, a, axis=None):
    """a[condition] for a bool mask of a's shape (or 1-D over the flattened array), as a 1-D array."""
    check_array(a, "compress")
    if axis is not None:
        raise _core.InvalidArgument("compress: porta's compress has no axis (it takes a mask of the array's shape)")
    return _core._compress(_indices(condition, a.device, "compress"), a)


def nonzero(a):
    check_array(a, "nonzero")
    if a.ndim == 0:  # (NumPy 2.1 and the array API refuse it too)
        raise _core.InvalidArgument("nonzero of a 0-d array is not defined; use nonzero(atleast_1d) (a.reshape(1))")
    return tuple(_core._nonzero(a))


def flatnonzero(a):
    check_array(a, "flatnonzero")
    return _core._flatnonzero(a)


def count_nonzero(a, axis=None, *, keepdims=False):
    check_array(a, "count_nonzero")
    axes = axes_list(a, axis, "count_nonzero")
    if axes is not None and len(axes) == 1:
        return _core._count_nonzero(a, axes[0], keepdims)
    if axes is None and not keepdims:
        return _core._count_nonzero(a, None, False)
    return _core._sum_axes(_core.not_equal(a, 0), axes, keepdims)


# Scans.

def cumsum(a, axis=None, dtype=None, out=None):
    """NumPy's cumsum: over the flattened array without an axis; integers and bool give int64."""
    check_array(a, "cumsum")
    a = _cast(a, dtype, out, "cumsum")
    return _core._cumsum(a, None if axis is None else axis_index(a, axis, "cumsum"))


def cumprod(a, axis=None, dtype=None, out=None):
    check_array(a, "cumprod")
    a = _cast(a, dtype, out, "cumprod")
    return _core._cumprod(a, None if axis is None else axis_index(a, axis, "cumprod"))


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The array API's cumulative_sum: axis required unless x is 1-D; include_initial puts 0 first."""
    check_array(x, "cumulative_sum")
    x = _cast(x, dtype, None, "cumulative_sum")
    return _core._cumulative_sum(x, None if axis is None else axis_index(x, axis, "cumulative_sum"), include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    check_array(x, "cumulative_prod")
    x = _cast(x, dtype, None, "cumulative_prod")
    return _core._cumulative_prod(x, None if axis is None else axis_index(x, axis, "cumulative_prod"), include_initial)


def real(x, /):
    """The real part: of a complex array the parts' dtype (complex64: float32); of a real-valued
    array a new array of x's values (bool too, as NumPy's; the standard asks numeric arrays only)."""
    check_array(x, "real")
    if x._dtype_name == "bool":
        return x.astype("bool", copy=True)
    return _core._real(x) if x._dtype_name.startswith("complex") else _core.positive(x)


def imag(x, /):
    """The imaginary part: of a complex array the parts' dtype; of a real-valued array zeros of x's dtype."""
    check_array(x, "imag")
    return _core._imag(x)


def conj(x, /):
    """The complex conjugate; of a real-valued array a new array of x's values (of bool: int8, as NumPy's)."""
    check_array(x, "conj")
    return _core._conj(x) if x._dtype_name.startswith("complex") else _core.positive(x) if x._dtype_name != "bool" \
        else _core._conj(x)


conjugate = conj


def angle(z, deg=False):
    """NumPy's angle: atan2(imag, real) of each element (0 or pi for real arrays: atan2(0, z), so
    int8 gives float16, int16 float32, int32 and bool float64), in degrees with deg=True."""
    check_array(z, "angle")
    a = _core.angle(z)
    return _core.multiply(a, 180.0 / np.pi) if deg else a


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """NumPy's diff; prepend/append (numbers or arrays) are joined along the axis first."""
    check_array(a, "diff")
    ax = axis_index(a, axis, "diff")
    if a.ndim == 0:
        raise _core.InvalidArgument("diff: a 0-d array has no axis to take differences along")
    if operator.index(n) < 0:
        raise _core.InvalidArgument(f"diff: order n={n} must be non-negative")
    if n == 0:  # NumPy returns the input itself, without prepend/append
        return a
    if prepend is not None or append is not None:
        # NumPy makes arrays of them (np.asanyarray: a Python int is int64, a float float64), which
        # then take part in the join's promotion as any array does.
        def edge(v):
            e = v if isinstance(v, ndarray) else asarray(np.asarray(v), device=a.device)
            if e.ndim == 0:
                shape = list(a.shape)
                shape[ax] = 1
                e = broadcast_to(e, tuple(shape))
            return e
        parts = ([edge(prepend)] if prepend is not None else []) + [a] + ([edge(append)] if append is not None else [])
        a = _core.concatenate(parts, axis=ax)
    return _core._diff(a, int(n), ax)


def _cast(a, dtype, out, what):
    if out is not None:
        raise _core.InvalidArgument(f"{what}: porta has no out= (the result is a new array)")
    if dtype is None:
        return a
    return a.astype(dtype_name(dtype), copy=False)


# Sorting and search.

def sort(a, axis=-1, kind=None, order=None, *, descending=False, stable=True):
    """A stable sort along `axis` (None: the flattened array), NaNs last (first when descending)."""
    check_array(a, "sort")
    if order is not None:
        raise _core.InvalidArgument("sort: porta has no structured dtypes (order=)")
    if axis is None:
        return _core._sort(a.reshape(-1), 0, descending)
    return _core._sort(a, axis_index(a, axis, "sort"), descending)


def argsort(a, axis=-1, kind=None, order=None, *, descending=False, stable=True):
    """The int64 indices that sort `a` stably along `axis` (None: the flattened array)."""
    check_array(a, "argsort")
    if order is not None:
        raise _core.InvalidArgument("argsort: porta has no structured dtypes (order=)")
    if axis is None:
        return _core._argsort(a.reshape(-1), 0, descending)
    return _core._argsort(a, axis_index(a, axis, "argsort"), descending)


def unique_all(x):
    """The array API's unique_all: values, first indices, inverse (x's shape) and counts; each NaN
    is a value of its own (NumPy 2)."""
    check_array(x, "unique_all")
    return UniqueAllResult(*_core._unique_all(x, False))


def unique_counts(x):
    check_array(x, "unique_counts")
    v, _, _, c = _core._unique_all(x, False)
    return UniqueCountsResult(v, c)


def unique_inverse(x):
    check_array(x, "unique_inverse")
    v, _, inv, _ = _core._unique_all(x, False)
    return UniqueInverseResult(v, inv)


def unique_values(x):
    check_array(x, "unique_values")
    return _core._unique_values(x, False)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *, equal_nan=True):
    """NumPy's unique over the flattened array: NaNs count as one value (equal_nan=True, NumPy's
    default) or each as its own (equal_nan=False)."""
    check_array(ar, "unique")
    if axis is not None:
        raise _core.InvalidArgument("unique: porta has no axis= (it takes the distinct values of the whole array)")
    if not (return_index or return_inverse or return_counts):
        return _core._unique_values(ar, bool(equal_nan))
    v, first, inv, counts = _core._unique_all(ar, bool(equal_nan))
    out = [v]
    if return_index:
        out.append(first)
    if return_inverse:
        out.append(inv)
    if return_counts:
        out.append(counts)
    return tuple(out)


def searchsorted(a, v, side="left", sorter=None):
    """Where v's elements go in the sorted 1-D array `a` (int64, v's shape; a number gives a 0-d array)."""
    check_array(a, "searchsorted")
    if side not in ("left", "right"):
        raise _core.InvalidArgument(f"searchsorted: side={side!r}; use 'left' or 'right'")
    if sorter is not None:
        a = take(a, sorter)
    if not isinstance(v, ndarray):
        # Python numbers and lists take a's dtype, unless they hold fractions and a holds integers
        # (NumPy compares 2.5 with integers as 2.5, not as 2); NumPy arrays keep theirs.
        host = np.asarray(v)
        keep = isinstance(v, np.ndarray) or (host.dtype.kind == "f" and a._dtype_name.startswith(("bool", "int", "uint")))
        v = asarray(host, dtype=None if keep else a._dtype_name, device=a.device)
    return _core._searchsorted(a, v, side)


def topk(a, k, axis=-1, largest=True):
    """The k largest (largest=False: smallest) elements along `axis` in order, and their int64 indices
    (torch.topk's values, indices); NaNs count as the largest, ties keep their order."""
    check_array(a, "topk")
    k = operator.index(k)
    return TopkResult(*_core._topk(a, k, axis_index(a, axis, "topk"), largest))


# Rearranging.

def flip(m, axis=None):
    """A view with the axes (every axis without one; an int or a tuple) reversed."""
    check_array(m, "flip")
    if axis is None:
        return _core._flip(m, None)
    r = m
    for x in axes_list(m, axis, "flip"):
        r = _core._flip(r, x)
    return r


def roll(a, shift, axis=None):
    """Elements shifted by `shift` along `axis` (without one: the flattened array), wrapping round;
    shift and axis may be tuples (each shift along its axis)."""
    check_array(a, "roll")
    if axis is None:
        if isinstance(shift, (tuple, list)):
            shift = builtins.sum(operator.index(s) for s in shift)
        return _core._roll(a, operator.index(shift), None)
    axes = list(axis) if isinstance(axis, (tuple, list)) else [axis]
    shifts = list(shift) if isinstance(shift, (tuple, list)) else [shift]
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(axes) != len(shifts):
        raise _core.ShapeError(f"roll: {len(shifts)} shifts for {len(axes)} axes; give one shift per axis")
    r = a
    for s, x in zip(shifts, axes):
        r = _core._roll(r, operator.index(s), axis_index(a, x, "roll"))
    return r


def tile(A, reps):
    check_array(A, "tile")
    reps = [operator.index(reps)] if not isinstance(reps, (tuple, list)) else [operator.index(r) for r in reps]
    return _core._tile(A, reps)


def repeat(a, repeats, axis=None):
    """Each element repeated `repeats` times (an int, or one count per element of the axis)."""
    check_array(a, "repeat")
    ax = None if axis is None else axis_index(a, axis, "repeat")
    if isinstance(repeats, (int, np.integer)):
        return _core._repeat(a, int(repeats), ax)
    r = _indices(repeats, a.device, "repeat")
    if r.ndim == 0 or r.size == 1:
        return _core._repeat(a, int(r.reshape(-1).get()[0]) if r.size else 0, ax)
    return _core._repeat_each(a, r, ax)


def pad(array, pad_width, mode="constant", constant_values=0):
    """NumPy's pad in mode 'constant': pad_width an int, (before, after) or one pair per axis."""
    check_array(array, "pad")
    if mode != "constant":
        raise _core.InvalidArgument(f"pad: mode {mode!r}; porta pads with mode='constant' only")
    if not isinstance(constant_values, (bool, int, float, np.generic)):
        raise _core.InvalidArgument("pad: constant_values must be one number in porta")
    w = np.asarray(pad_width)
    if w.dtype.kind not in "iu":
        raise TypeError(f"pad: pad_width {pad_width!r} must be integers")
    try:
        w = np.broadcast_to(w, (array.ndim, 2))
    except ValueError:
        raise _core.ShapeError(f"pad: pad_width of shape {np.shape(pad_width)} for an array of {array.ndim} "
                               f"dimensions; give an int, (before, after) or one pair per axis") from None
    if (w < 0).any():
        raise _core.InvalidArgument(f"pad: negative pad widths {pad_width!r}")
    return _core._pad(array, [(int(b), int(e)) for b, e in w], float(constant_values))


def split(ary, indices_or_sections, axis=0):
    """Views of equal sections along `axis` (an int that divides it), or of the parts between the
    given indices (a list)."""
    check_array(ary, "split")
    ax = axis_index(ary, axis, "split")
    if isinstance(indices_or_sections, (int, np.integer)):
        if indices_or_sections <= 0:
            raise _core.InvalidArgument(f"split: {indices_or_sections} sections; give a positive number")
        return list(_core._split(ary, int(indices_or_sections), ax))
    return list(_core._split_at(ary, [operator.index(i) for i in indices_or_sections], ax))


def unstack(x, /, *, axis=0):
    """The array API's unstack: a tuple of views of x's slices along `axis`, each without it."""
    check_array(x, "unstack")
    return tuple(_core._unstack(x, axis_index(x, axis, "unstack")))


def tril(m, k=0):
    check_array(m, "tril")
    return _core._tril(m, operator.index(k))


def triu(m, k=0):
    check_array(m, "triu")
    return _core._triu(m, operator.index(k))


# Statistics.

def _ddof(ddof, correction, what):
    if correction is not None:
        if ddof not in (0, None):
            raise _core.InvalidArgument(f"{what}: give ddof or correction, not both")
        return float(correction)
    return float(ddof or 0)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
    """sum((a - mean)^2) / (N - ddof) (the array API's correction is ddof); integers give float64."""
    check_array(a, "var")
    a = _cast(a, dtype, out, "var")
    axes = axes_list(a, axis, "var")
    return _core._var(a, axes if axes is not None or not keepdims else list(range(a.ndim)),
                      _ddof(ddof, correction, "var"), keepdims)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, correction=None):
    check_array(a, "std")
    a = _cast(a, dtype, out, "std")
    axes = axes_list(a, axis, "std")
    return _core._std(a, axes if axes is not None or not keepdims else list(range(a.ndim)),
                      _ddof(ddof, correction, "std"), keepdims)
