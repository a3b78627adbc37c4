"""Array API functions made of porta's own operations: meshgrid, broadcast_arrays, moveaxis, vecdot
and tensordot, with NumPy's arguments. Each checks its arguments first (porta's errors, naming the
values), so that a bad call does no device work; then it uses views (reshape, transpose,
broadcast_to) and porta's multiply, sum and matmul."""
import math
import operator

from . import _core, _reduce
from ._arrayapi import _check
from ._dtypes import _KIND, _result_name


def _axis(axis, ndim, shape, what):
    """One axis of an array of `ndim` dimensions `shape`, as a non-negative int."""
    try:
        i = operator.index(axis)
    except TypeError:
        raise TypeError(f"{what}: axis {axis!r} is not an integer") from None
    if not -ndim <= i < ndim:
        raise _core.InvalidArgument(f"{what}: axis {i} is out of range for an array of {ndim} dimensions {shape}")
    return i % ndim


def _axis_list(a, axes, what):
    """An int or a sequence of ints: a list of distinct non-negative axes of `a`, in the given order."""
    items = list(axes) if isinstance(axes, (tuple, list)) else [axes]
    out = [_axis(x, a.ndim, a.shape, what) for x in items]
    if len(set(out)) != len(out):
        raise _core.InvalidArgument(f"{what}: axes {axes!r} name an axis more than once")
    return out


def _broadcast_shape(shapes, what):
    """NumPy's broadcast of several shapes (ShapeError naming two that do not fit)."""
    ndim = max((len(s) for s in shapes), default=0)
    out, source = [1] * ndim, [None] * ndim
    for s in shapes:
        for i, n in enumerate(s, ndim - len(s)):
            if n == 1 or n == out[i]:
                continue
            if out[i] != 1:
                raise _core.ShapeError(f"{what}: shapes {source[i]} and {tuple(s)} do not broadcast to one shape "
                                       f"(sizes {out[i]} and {n} in one dimension, neither 1)")
            out[i], source[i] = n, tuple(s)
    return tuple(out)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-D coordinate vectors (other arrays are flattened, as NumPy does):
    with indexing='xy' the first two dimensions are (len(xi[1]), len(xi[0])), with 'ij' they follow
    the arguments. copy=True (the default, as NumPy's) gives new arrays; copy=False gives broadcast
    views of the inputs, in which a write reaches every element that shares the input's memory;
    sparse=True gives shapes with ones in place of the broadcast dimensions."""
    if indexing not in ("xy", "ij"):
        raise _core.InvalidArgument(f"meshgrid: indexing={indexing!r}; use 'xy' or 'ij'")
    for x in xi:
        _check(x, "meshgrid")
    n = len(xi)
    axes = list(range(n))
    if indexing == "xy" and n > 1:
        axes[0], axes[1] = 1, 0
    shape = [1] * n
    for x, ax in zip(xi, axes):
        shape[ax] = x.size
    out = []
    for x, ax in zip(xi, axes):
        one = [1] * n
        one[ax] = x.size
        r = x.reshape(tuple(one))
        if not sparse:
            r = r._broadcast_to(tuple(shape))
        out.append(r.copy() if copy else r)
    return tuple(out)


def broadcast_arrays(*args):
    """The arrays broadcast to one shape, as views of them (a write into one reaches its input and
    every element that shares its memory), in a tuple as NumPy 2's."""
    for a in args:
        _check(a, "broadcast_arrays")
    shape = _broadcast_shape([a.shape for a in args], "broadcast_arrays")
    return tuple(a._broadcast_to(shape) for a in args)


def moveaxis(a, source, destination):
    """A view of `a` with the axes `source` (an int or a sequence) moved to `destination`, the
    others in their order."""
    _check(a, "moveaxis")
    src = _axis_list(a, source, "moveaxis (source)")
    dst = _axis_list(a, destination, "moveaxis (destination)")
    if len(src) != len(dst):
        raise _core.InvalidArgument(f"moveaxis: {len(src)} source axes {source!r} and {len(dst)} destination axes "
                                    f"{destination!r}; give as many of each")
    order = [i for i in range(a.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return a.transpose(order)


def vecdot(x1, x2, /, *, axis=-1):
    """The dot products of x1's and x2's vectors along `axis` (of each array, as NumPy's vecdot;
    the sizes there must be equal), the other dimensions broadcast: sum(x1 * x2) along it, in
    result_type(x1, x2) (bool: whether any pair is true in both, as NumPy's)."""
    _check(x1, "vecdot")
    _check(x2, "vecdot")
    a1 = _axis(axis, x1.ndim, x1.shape, "vecdot (x1)")
    a2 = _axis(axis, x2.ndim, x2.shape, "vecdot (x2)")
    if x1.shape[a1] != x2.shape[a2]:
        raise _core.ShapeError(f"vecdot: axis {axis} has {x1.shape[a1]} elements in x1 of shape {x1.shape} and "
                               f"{x2.shape[a2]} in x2 of shape {x2.shape}; they must be equal")
    try:
        _broadcast_shape([_without(x1.shape, a1), _without(x2.shape, a2)], "vecdot")
    except _core.ShapeError:
        raise _core.ShapeError(f"vecdot: x1 of shape {x1.shape} and x2 of shape {x2.shape}: their dimensions "
                               f"other than axis {axis} do not broadcast to one shape") from None
    dtype = _result_name((x1, x2), "vecdot")
    y1, y2 = moveaxis(x1, a1, -1), moveaxis(x2, a2, -1)
    if dtype == "bool":
        return _reduce.any(_core.logical_and(y1, y2), axis=-1)
    return _reduce.sum(_core.multiply(y1, y2), axis=-1).astype(dtype, copy=False)


def _without(shape, axis):
    return tuple(n for i, n in enumerate(shape) if i != axis)


def tensordot(a, b, axes=2):
    """Sums of products over the axes `axes` names: an int N (a's last N with b's first N) or a pair
    of sequences (a's axes, b's axes, matched in order); the result has a's other axes, then b's. It
    moves the summed axes together (transpose), makes both arrays 2-D (reshape) and multiplies them
    with porta's matmul in result_type(a, b). porta's matmul multiplies floats only: integers and
    bool are summed elementwise instead (sum of products; bool: any of both true), so their work and
    memory grow with the product of all three sizes."""
    _check(a, "tensordot")
    _check(b, "tensordot")
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise _core.InvalidArgument(f"tensordot: axes={axes!r}; give an int or a pair (a's axes, b's axes)")
        ax_a = _axis_list(a, axes[0], "tensordot (a's axes)")
        ax_b = _axis_list(b, axes[1], "tensordot (b's axes)")
        if len(ax_a) != len(ax_b):
            raise _core.InvalidArgument(f"tensordot: axes={axes!r} names {len(ax_a)} axes of a and {len(ax_b)} of b; "
                                        f"give as many of each")
    else:
        try:
            count = operator.index(axes)
        except TypeError:
            raise TypeError(f"tensordot: axes={axes!r}; give an int or a pair of sequences of ints") from None
        if not 0 <= count <= min(a.ndim, b.ndim):
            raise _core.InvalidArgument(f"tensordot: axes={count}, for a of shape {a.shape} and b of shape {b.shape}; "
                                        f"give a number from 0 to {min(a.ndim, b.ndim)}")
        ax_a, ax_b = list(range(a.ndim - count, a.ndim)), list(range(count))
    for i, j in zip(ax_a, ax_b):
        if a.shape[i] != b.shape[j]:
            raise _core.ShapeError(f"tensordot: axis {i} of a (shape {a.shape}) has {a.shape[i]} elements and axis "
                                   f"{j} of b (shape {b.shape}) {b.shape[j]}; summed axes must be equal")
    dtype = _result_name((a, b), "tensordot")
    free_a = [i for i in range(a.ndim) if i not in ax_a]
    free_b = [j for j in range(b.ndim) if j not in ax_b]
    m = math.prod(a.shape[i] for i in free_a)
    k = math.prod(a.shape[i] for i in ax_a)
    n = math.prod(b.shape[j] for j in free_b)
    out_shape = tuple(a.shape[i] for i in free_a) + tuple(b.shape[j] for j in free_b)
    a2 = a.transpose(free_a + ax_a).reshape((m, k))
    b2 = b.transpose(ax_b + free_b).reshape((k, n))
    if _KIND[dtype] == "f":
        r = _core.matmul(a2.astype(dtype, copy=False), b2.astype(dtype, copy=False))
    elif dtype == "bool":
        r = _reduce.any(_core.logical_and(a2.reshape((m, k, 1)), b2.reshape((1, k, n))), axis=1)
    else:
        r = _reduce.sum(_core.multiply(a2.reshape((m, k, 1)), b2.reshape((1, k, n))), axis=1).astype(dtype, copy=False)
    return r.reshape(out_shape)
