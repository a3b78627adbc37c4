"""meshgrid, broadcast_arrays, moveaxis, vecdot and tensordot with NumPy's arguments, over porta's
C++ functions of those names (src/api/compose.cpp), which check every argument before any device work
and raise porta's errors naming the values."""
import operator

from . import _core
from ._helpers import as_int, check_array

__all__ = ["meshgrid", "broadcast_arrays", "moveaxis", "vecdot", "tensordot", "einsum"]


def _ints(axes, what):
    """An int or a sequence of ints, as a list (TypeError naming what is not an integer)."""
    return [as_int(x, what) for x in (axes if isinstance(axes, (tuple, list)) else [axes])]


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from 1-D coordinate vectors (other arrays are flattened, as NumPy does):
    with indexing='xy' the first two dimensions are (len(xi[1]), len(xi[0])), with 'ij' they follow
    the arguments. copy=True (the default, as NumPy's) gives new arrays; copy=False gives broadcast
    views of the inputs, in which a write reaches every element that shares the input's memory;
    sparse=True gives shapes with ones in place of the broadcast dimensions."""
    if indexing not in ("xy", "ij"):
        raise _core.InvalidArgument(f"meshgrid: indexing={indexing!r}; use 'xy' or 'ij'")
    for x in xi:
        check_array(x, "meshgrid")
    return tuple(_core._meshgrid(list(xi), indexing == "ij", bool(sparse), bool(copy)))


def broadcast_arrays(*args):
    """The arrays broadcast to one shape, as views of them (a write into one reaches its input and
    every element that shares its memory), in a tuple as NumPy 2's."""
    for a in args:
        check_array(a, "broadcast_arrays")
    return tuple(_core._broadcast_arrays(list(args)))


def moveaxis(a, source, destination):
    """A view of `a` with the axes `source` (an int or a sequence) moved to `destination`, the
    others in their order."""
    check_array(a, "moveaxis")
    return _core._moveaxis(a, _ints(source, "moveaxis"), _ints(destination, "moveaxis"))


def vecdot(x1, x2, /, *, axis=-1):
    """The dot products of x1's and x2's vectors along `axis` (of each array, as NumPy's vecdot;
    the sizes there must be equal), the other dimensions broadcast: sum(x1 * x2) along it, in
    result_type(x1, x2) (bool: whether any pair is true in both, as NumPy's)."""
    check_array(x1, "vecdot")
    check_array(x2, "vecdot")
    return _core._vecdot(x1, x2, as_int(axis, "vecdot"))


def tensordot(a, b, axes=2):
    """Sums of products over the axes `axes` names: an int N (a's last N with b's first N) or a pair
    of sequences (a's axes, b's axes, matched in order); the result has a's other axes, then b's.
    Floats go through porta's matmul; integers and bool are summed as products, so their work and
    memory grow with the product of all three sizes."""
    check_array(a, "tensordot")
    check_array(b, "tensordot")
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise _core.InvalidArgument(f"tensordot: axes={axes!r}; give an int or a pair (a's axes, b's axes)")
        return _core._tensordot_axes(a, b, _ints(axes[0], "tensordot"), _ints(axes[1], "tensordot"))
    try:
        count = operator.index(axes)
    except TypeError:
        raise TypeError(f"tensordot: axes={axes!r}; give an int or a pair of sequences of ints") from None
    return _core._tensordot(a, b, count)


def einsum(subscripts, *operands):
    """NumPy's einsum: explicit ('ij,jk->ik') or implicit ('ij,jk') subscripts, '...' for broadcast
    axes, repeated letters in one operand as its diagonal. The operands are contracted a pair at a
    time, the pair whose product touches the fewest elements first, each pair as one batched matmul
    (porta::einsum, src/api/einsum.cpp)."""
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a string such as 'ij,jk->ik', not {type(subscripts).__name__}")
    for a in operands:
        check_array(a, "einsum")
    return _core._einsum(subscripts, list(operands))
