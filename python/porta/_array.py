"""NumPy's spellings on porta.ndarray: dtype objects, indexing, host copies, methods. Importing it
sets them on the class; it exports no names of its own."""
import builtins
import sys
import warnings

import numpy as np
from numpy.exceptions import ComplexWarning

from . import _arrayapi, _core, _dtypes, _reduce
from ._core import ndarray
from ._creation import _check_int_fits, _fill_into, _indices, _value, arange, asarray
from ._helpers import dtype_name, dtype_object, to_numpy

__all__ = []



def _int_index(k):
    """An index that is neither a slice, None, Ellipsis nor an array: its integer (IndexError else)."""
    try:
        return k.__index__()
    except AttributeError:
        raise IndexError(f"index {k!r} is not an integer, a slice, None, Ellipsis, an integer array "
                         f"or a bool mask") from None

def _dtype(self):
    return dtype_object(self._dtype_name)


def _is_advanced(k):
    return isinstance(k, (ndarray, np.ndarray, list))


def _normalize_index(a, key):
    """The axes of a basic `key` (ints, slices, None, Ellipsis), with the Ellipsis expanded."""
    if not isinstance(key, tuple):
        key = (key,)
    n_real = len([k for k in key if k is not None and k is not Ellipsis])
    if n_real > a.ndim:
        raise IndexError(f"too many indices: {n_real} for an array of {a.ndim} dimensions {a.shape}")
    if builtins.sum(1 for k in key if k is Ellipsis) > 1:
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


def _basic(self, key):
    """a[key] for a basic key: a view of a's memory (writes through it reach a)."""
    items = _normalize_index(self, key)
    slices, out_shape, axis = [], [], 0
    for k in items:
        if k is None:
            out_shape.append(1)
            continue
        n = self.shape[axis]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            count = len(range(start, stop, step))
            if count == 0:
                slices.append((0, 0, 1))  # (a negative step's start -1 from indices() is "before 0", not "last")
            else:
                slices.append((start, None if step < 0 and stop < 0 else stop, step))  # (None: through element 0)
            out_shape.append(count)
        else:
            i = _int_index(k)
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for axis {axis} with size {n}")
            i %= n
            slices.append((i, i + 1, 1))
        axis += 1
    r = self._slice(slices) if slices and any(s != (0, self.shape[j], 1) for j, s in enumerate(slices)) else self
    return r.reshape(tuple(out_shape)) if tuple(out_shape) != r.shape else r


def _advanced(self, key):
    """Splits a key with one integer array or bool mask: (the key's entries, where the array is,
    the array on self's device). (None, None, None) for a basic key; ("multi", None, None) for a key
    with several (_several_indices)."""
    keys = key if isinstance(key, tuple) else (key,)
    where = [i for i, k in enumerate(keys) if _is_advanced(k)]
    if not where:
        return None, None, None
    if len(where) > 1:
        return "multi", None, None
    try:
        idx = _indices(keys[where[0]], self.device, "indexing")
    except _core.DTypeError as e:
        raise IndexError(str(e)) from e
    if not idx._dtype_name.startswith(("int", "uint", "bool")):  # (an empty float array too, as NumPy)
        raise IndexError(f"an index array of dtype {idx._dtype_name}: arrays used as indices must be of integer "
                         f"or bool dtype (astype('int64') first)")
    return keys, where[0], idx


def _axis_before(self, keys, pos):
    """The axis of a[keys] at which the entries before keys[pos] leave the next axis."""
    n_real = len([k for k in keys if k is not None and k is not Ellipsis])
    axis = 0
    for k in keys[:pos]:
        if k is Ellipsis:
            axis += self.ndim - n_real
        elif k is None or isinstance(k, slice):
            axis += 1
    return axis


def _input_axis(self, keys, pos):
    """The axis of self that keys[pos] indexes: ints and slices before it take one each, ... the rest."""
    n_real = len([k for k in keys if k is not None and k is not Ellipsis])
    axis = 0
    for k in keys[:pos]:
        if k is Ellipsis:
            axis += self.ndim - n_real
        elif k is not None:
            axis += 1
    return axis


def _dims_first(keys, pos):
    """NumPy's rule: integers beside an index array are advanced indices too; when one stands apart
    from the array (a slice, None or ... between them) the indexed dimensions go first."""
    ints = [i for i, k in enumerate(keys) if i != pos and not isinstance(k, slice) and k is not None
            and k is not Ellipsis]
    if not ints:
        return False
    lo, hi = min(ints + [pos]), max(ints + [pos])
    return any(isinstance(k, slice) or k is None or k is Ellipsis for k in keys[lo:hi + 1])


def _mask_as_index(self, keys, pos, mask):
    """A bool mask in a key: alone, of self's shape (or its leading axes), it stays a mask (full:
    broadcast to self's shape); a 1-D mask beside other entries becomes its nonzero indices."""
    first = _input_axis(self, keys, pos)
    lead = self.shape[first:first + mask.ndim]
    if mask.ndim == 0 or tuple(mask.shape) != tuple(lead):
        raise IndexError(f"boolean index of shape {mask.shape} does not match the indexed array of shape "
                         f"{self.shape} at axis {first}: the mask must have the shape of the axes it indexes")
    if len(keys) == 1 or (len(keys) == 2 and keys[1 - pos] is Ellipsis and pos == 0):
        return "mask", mask
    if mask.ndim != 1:
        raise IndexError("porta takes an n-d bool mask alone (a[mask]); beside other indices only a 1-D one")
    return "index", _core._flatnonzero(mask)


def _full_mask(self, mask):
    """A mask of self's leading axes broadcast to self's shape, and the shape NumPy gives a[mask]
    (the number of true elements, then the axes the mask leaves)."""
    rest = tuple(self.shape[mask.ndim:])
    count = int(_core._count_nonzero(mask, None, False))
    if mask.ndim < self.ndim:
        mask = mask.reshape(tuple(mask.shape) + (1,) * (self.ndim - mask.ndim))._broadcast_to(self.shape)
    return mask, (count,) + rest


def _several_indices(self, key):
    """NumPy's advanced indexing with several index arrays (bool masks as their nonzero indices,
    ints beside them as 0-d index arrays): the arrays broadcast to one shape B, and a[key] holds
    the elements at each combination. Returns (moved, n, linear, B, p): `moved` a view of self
    with the n indexed axes first (then the others, sliced), `linear` int64 positions in those
    axes' row-major order (shape B), and p where B's dimensions go in the result (0: first,
    NumPy's rule where the advanced indices are apart)."""
    keys = key if isinstance(key, tuple) else (key,)
    items = []  # ("adv", array) per indexed axis, ("basic", key) for slices and None, Ellipsis as is
    masks = []  # (where a mask's first axis is in items, its shape)
    for k in keys:
        if _is_advanced(k):
            try:
                idx = _indices(k, self.device, "indexing")
            except _core.DTypeError as e:
                raise IndexError(str(e)) from e
            if idx._dtype_name == "bool":
                if idx.ndim == 0:
                    raise IndexError("a 0-d bool index beside index arrays; porta takes bool masks of one or more "
                                     "dimensions")
                masks.append((len(items), tuple(idx.shape)))
                items += [("adv", i) for i in _core._nonzero(idx)]
            elif idx._dtype_name.startswith(("int", "uint")):
                items.append(("adv", idx))
            else:
                raise IndexError(f"an index array of dtype {idx._dtype_name}: arrays used as indices must be of "
                                 f"integer or bool dtype (astype('int64') first)")
        elif k is None or k is Ellipsis or isinstance(k, slice):
            items.append(("basic", k))
        else:
            i = _int_index(k)
            items.append(("adv", asarray(i, dtype="int64", device=self.device)))
    n_real = builtins.sum(1 for kind, k in items if kind == "adv" or isinstance(k, slice))
    if n_real > self.ndim:
        raise IndexError(f"too many indices: {n_real} for an array of {self.ndim} dimensions {self.shape}")
    if builtins.sum(1 for _, k in items if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single Ellipsis ('...')")
    expanded = []
    for kind, k in items:
        expanded += [("basic", slice(None))] * (self.ndim - n_real) if k is Ellipsis and kind == "basic" else [(kind, k)]
    if not any(k is Ellipsis for kind, k in items if kind == "basic"):
        expanded += [("basic", slice(None))] * (self.ndim - n_real)
    view = _basic(self, tuple(slice(None) if kind == "adv" else k for kind, k in expanded))
    adv_axes, arrays, axis, at_item = [], [], 0, {}
    for kind, k in expanded:
        at_item[id(k)] = axis
        if kind == "adv":
            adv_axes.append(axis)
            arrays.append(k)
        axis += 1
    for first, shape in masks:  # a mask must have the shape of the axes it stands for
        ax = at_item[id(items[first][1])]
        if tuple(view.shape[ax:ax + len(shape)]) != shape:
            raise IndexError(f"boolean index of shape {shape} does not match the indexed array of shape {self.shape} "
                             f"at axis {ax}: the mask must have the shape of the axes it indexes")
    try:
        shape = np.broadcast_shapes(*[tuple(a.shape) for a in arrays])
    except ValueError:
        raise IndexError(f"shape mismatch: index arrays of shapes {', '.join(str(tuple(a.shape)) for a in arrays)} "
                         f"could not be broadcast together") from None
    linear = None
    for ax, a in zip(adv_axes, arrays):
        n = view.shape[ax]
        if a._dtype_name == "uint64" and a.size and int(_core._max(a)) >= 2 ** 63:
            raise IndexError(f"index {int(_core._max(a))} is out of bounds for axis {ax} with size {n}")
        a = a.astype("int64", copy=False)
        if a.size:
            lo, hi = int(_core._min(a)), int(_core._max(a))
            if lo < -n or hi >= n:
                raise IndexError(f"index {lo if lo < -n else hi} is out of bounds for axis {ax} with size {n}")
        a = _core.where(_core.less(a, 0), _core.add(a, n), a)
        linear = a if linear is None else _core.add(_core.multiply(linear, n), a)
    linear = linear._broadcast_to(shape)
    adjacent = adv_axes == list(range(adv_axes[0], adv_axes[0] + len(adv_axes)))
    rest = [d for d in range(view.ndim) if d not in adv_axes]
    moved = view.transpose(adv_axes + rest)
    return moved, len(adv_axes), linear, tuple(shape), adv_axes[0] if adjacent else 0


def _several_get(self, key):
    moved, n_adv, linear, shape, p = _several_indices(self, key)
    rest = tuple(moved.shape[n_adv:])
    size = 1
    for d in moved.shape[:n_adv]:
        size *= d
    out = _as_index_error(_core._take, moved.reshape((size,) + rest), linear, 0)  # B + rest
    q = len(shape)
    if p:  # NumPy's: adjacent index arrays put B where they stand
        out = out.transpose(list(range(q, q + p)) + list(range(q)) + list(range(q + p, out.ndim)))
    return out


def _several_set(self, key, value):
    moved, n_adv, linear, shape, p = _several_indices(self, key)
    rest = tuple(moved.shape[n_adv:])
    inner = 1
    for d in rest:
        inner *= d
    flat = _core.add(_core.multiply(linear.reshape(-1, 1), inner), arange(inner, device=self.device).reshape(1, -1))
    if isinstance(value, ndarray) and value.ndim:
        q = len(shape)
        target = rest[:p] + tuple(shape) + rest[p:]
        v = value._broadcast_to(target)
        if p:
            v = v.transpose(list(range(p, p + q)) + list(range(p)) + list(range(p + q, len(target))))
        value = v.reshape(linear.size, inner)
    _core._put(moved, flat, value)


def _as_index_error(fn, *args):
    try:
        return fn(*args)
    except (_core.InvalidArgument, _core.ShapeError) as e:
        raise IndexError(str(e)) from e


def _scalar_mask(key):
    """A whole key that is one bool (True, np.True_, a 0-d bool array): NumPy's 0-d mask, which
    adds an axis of length 1 (True) or 0 (False) in front. None for any other key."""
    if isinstance(key, (bool, np.bool_)):
        return bool(key)
    if isinstance(key, (ndarray, np.ndarray)) and key.ndim == 0 and dtype_name(key.dtype) == "bool":
        return bool(key)
    return None


def _getitem(self, key):
    m = _scalar_mask(key)
    if m is not None:
        r = self.reshape((1,) + tuple(self.shape)).copy()
        return r if m else r[:0]
    keys, pos, idx = _advanced(self, key)
    if keys is None:
        return _basic(self, key)
    if keys == "multi":
        return _several_get(self, key)
    if idx._dtype_name == "bool":
        kind, idx = _mask_as_index(self, keys, pos, idx)
        if kind == "mask":
            if idx.ndim == self.ndim:
                return _as_index_error(_core._compress, idx, self)
            full, shape = _full_mask(self, idx)
            return _as_index_error(_core._compress, full, self).reshape(shape)
    r = _basic(self, keys[:pos] + (slice(None),) + keys[pos + 1:])
    p = _axis_before(self, keys, pos)
    out = _as_index_error(_core._take, r, idx, p)
    if p and _dims_first(keys, pos):
        q = idx.ndim
        out = out.transpose(list(range(p, p + q)) + list(range(p)) + list(range(p + q, out.ndim)))
    return out


def _setitem(self, key, value):
    """a[key] = value with NumPy's meaning: a basic key writes through a view (every array sharing
    the memory sees it); an integer array writes the indexed elements (put); a bool mask those where
    it is true. Bad indices raise IndexError, a value that does not broadcast ShapeError (a ValueError),
    before anything is written. Complex values into a real array: their real part (ComplexWarning)."""
    value = _value(value, self)
    _check_int_fits(value, self._dtype_name, "a[...] = value")
    if isinstance(value, ndarray):
        _warn_if_complex_to_real(value._dtype_name, self._dtype_name, "a[...] = value")
    elif isinstance(value, (complex, np.complexfloating)) and not self._dtype_name.startswith("complex"):
        _warn_if_complex_to_real("complex128", self._dtype_name, "a[...] = value")
        value = complex(value).real if self._dtype_name != "bool" else complex(value) != 0
    m = _scalar_mask(key)
    if m is not None:
        if m:  # (a value of shape (1,) + a.shape fits the added axis: it goes without it)
            if isinstance(value, ndarray) and value.ndim == self.ndim + 1 and value.shape[0] == 1:
                value = value.reshape(tuple(value.shape[1:]))
            _core._assign(self, value)
        return
    keys, pos, idx = _advanced(self, key)
    if keys is None:
        _core._assign(_basic(self, key), value)
        return
    if keys == "multi":
        _several_set(self, key, value)
        return
    if idx._dtype_name == "bool":
        kind, idx = _mask_as_index(self, keys, pos, idx)
        if kind == "mask":
            if not isinstance(value, ndarray) or value.ndim == 0:
                if idx.ndim < self.ndim:
                    idx = idx.reshape(tuple(idx.shape) + (1,) * (self.ndim - idx.ndim))._broadcast_to(self.shape)
                _core._assign_where(self, value, idx)
            else:  # the selected elements in row-major order get value's elements, as NumPy's
                full, shape = _full_mask(self, idx)
                v = value._broadcast_to(shape).reshape(-1)
                _core._put(self, _core._flatnonzero(full), v)
            return
    if not idx._dtype_name.startswith(("int", "uint")):
        raise IndexError(f"indices of dtype {idx._dtype_name}; they must be integers or a bool mask")
    if idx._dtype_name == "uint64" and idx.size and int(_core._max(idx)) >= 2 ** 63:  # (int64 would wrap it)
        raise IndexError(f"index {int(_core._max(idx))} is out of bounds")
    view = _basic(self, keys[:pos] + (slice(None),) + keys[pos + 1:])
    p = _axis_before(self, keys, pos)
    n = view.shape[p]
    idx = idx.astype("int64", copy=False)
    if idx.size:
        lo, hi = int(_core._min(idx)), int(_core._max(idx))
        if lo < -n or hi >= n:
            raise IndexError(f"index {lo if lo < -n else hi} is out of bounds for axis {p} with size {n}")
    # The indexed axis first (a view), then a.flat positions: row i of the moved view is i * inner.
    perm = [p] + [d for d in range(view.ndim) if d != p]
    moved = view.transpose(perm) if p else view
    inner = 1
    for d in moved.shape[1:]:
        inner *= d
    rows = _core.where(_core.less(idx, 0), _core.add(idx, n), idx).reshape(-1, 1)
    flat = _core.add(_core.multiply(rows, inner), arange(inner, device=self.device).reshape(1, -1))
    if isinstance(value, ndarray) and value.ndim:
        q = idx.ndim
        if _dims_first(keys, pos):  # NumPy's result has the indexed dimensions first: as `moved`
            value = value._broadcast_to(idx.shape + moved.shape[1:]).reshape(idx.size, inner)
        else:
            target = view.shape[:p] + idx.shape + view.shape[p + 1:]
            v = value._broadcast_to(target)
            v = v.transpose(list(range(p, p + q)) + list(range(p)) + list(range(p + q, len(target)))) if p else v
            value = v.reshape(idx.size, inner)
    _core._put(moved, flat, value)


def _sort_in_place(self, axis=-1, kind=None, order=None, *, descending=False, stable=True):
    """numpy.ndarray.sort: sorts the array in place (porta.sort returns a sorted copy)."""
    _core._assign(self, _arrayapi.sort(self, axis, kind, order, descending=descending, stable=stable))


def _fill(self, value):
    """Sets every element to `value` in place (numpy.ndarray.fill): integers exact at every width,
    OverflowError for one the dtype cannot hold, complex to a real array its real part (ComplexWarning)."""
    _fill_into(self, value, "fill")


def _repr(self):
    body = np.array2string(to_numpy(self), separator=", ", prefix="array(")
    return f"array({body}, dtype={self._dtype_name}, device={self.device.spec})"


def _array_protocol(self, dtype=None, copy=None):
    return to_numpy(self, dtype)


def _item(self):
    if self.size != 1:
        raise ValueError(f"item() needs an array of one element, this one has shape {self.shape}")
    return to_numpy(self).reshape(-1)[0].item()


def _iter(self):
    if self.ndim == 0:
        raise TypeError("iteration over a 0-d porta array")
    for i in range(self.shape[0]):
        yield self._index(i)


_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")


def _array_namespace(self, /, *, api_version=None):
    """The array API's entry point: the porta module, whose names follow the standard's 2024.12
    version (README, The Python array API standard: which functions porta has)."""
    if api_version is not None and api_version not in _API_VERSIONS:
        raise _core.InvalidArgument(f"__array_namespace__: api_version={api_version!r}; porta follows "
                                    f"{', '.join(_API_VERSIONS)} (None: the newest)")
    return sys.modules[__package__]  # the package: importing porta._array imported it first


_astype = ndarray.astype  # C++'s


def _warn_if_complex_to_real(from_name, to_name, what, stacklevel=3):
    """NumPy's ComplexWarning where a complex array becomes a real one (to bool it is no warning:
    nonzero real or imaginary part is True)."""
    if from_name.startswith("complex") and not to_name.startswith("complex") and to_name != "bool":
        warnings.warn(f"{what}: casting complex values to {to_name} discards the imaginary part (NumPy's rule; "
                      f"take .real or abs() first to say which)", ComplexWarning, stacklevel=stacklevel)


def _astype_method(self, dtype, copy=True):
    """The array in `dtype` (a new array unless copy=False and it is of that dtype already); complex
    to real keeps the real part with NumPy's ComplexWarning."""
    _warn_if_complex_to_real(self._dtype_name, dtype_name(dtype), "astype")
    return _astype(self, dtype, copy)


def _real_part(self):
    return _arrayapi.real(self)


def _imag_part(self):
    return _arrayapi.imag(self)


def _method(name, fn):
    def f(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    f.__name__ = name
    return f


ndarray.dtype = property(_dtype)
ndarray.astype = _astype_method
ndarray.real = property(_real_part)
ndarray.imag = property(_imag_part)
ndarray.conj = ndarray.conjugate = lambda self: _arrayapi.conj(self)
ndarray.__complex__ = lambda self: complex(_item(self))
ndarray.__getitem__ = _getitem
ndarray.__setitem__ = _setitem
ndarray.fill = _fill
ndarray.sort = _sort_in_place
ndarray.__repr__ = _repr
ndarray.__str__ = lambda self: str(to_numpy(self))
ndarray.__array__ = _array_protocol
ndarray.__array_ufunc__ = None  # numpy_array + porta_array is porta's business (and refused), not NumPy's
ndarray.__array_priority__ = 100
ndarray.__hash__ = None
ndarray.__iter__ = _iter
ndarray.__array_namespace__ = _array_namespace
ndarray.__bool__ = lambda self: bool(_item(self))
ndarray.__float__ = lambda self: float(_item(self))
ndarray.__int__ = lambda self: int(_item(self))
ndarray.__index__ = lambda self: _item(self).__index__()
ndarray.get = lambda self: to_numpy(self)
ndarray.item = _item
ndarray.tolist = lambda self: to_numpy(self).tolist()
# Methods that call porta's function of their name, as NumPy's methods do.
for _module, _names in ((_reduce, ("sum", "mean", "prod", "min", "max", "argmin", "argmax", "all", "any")),
                        (_core, ("clip", "round", "dot")),
                        (_arrayapi, ("take", "put", "nonzero", "cumsum", "cumprod", "argsort", "searchsorted",
                                     "repeat", "var", "std"))):
    for _name in _names:
        setattr(ndarray, _name, _method(_name, getattr(_module, _name)))
del _module, _names, _name


# In-place operators write the result into the array's memory, as NumPy's and CuPy's do (a view's
# `+=` changes its base; `a[1:] += a[:-1]` reads the values from before the write), with NumPy's
# 'same_kind' rule for the cast back (an int array `+= 1.5` is a DTypeError, a TypeError as
# NumPy's) and its shape rule (the result must have the array's shape: a ShapeError otherwise).
def _inplace(symbol, fn_name):
    fn = getattr(_core, fn_name)

    def f(self, other):
        r = fn(self, other)
        if tuple(r.shape) != tuple(self.shape):
            raise _core.ShapeError(f"'{symbol}' on an array of shape {tuple(self.shape)}: the result has shape "
                                   f"{tuple(r.shape)}, which does not fit in it")
        if r._dtype_name != self._dtype_name and not _dtypes.can_cast(r._dtype_name, self._dtype_name, "same_kind"):
            raise _core.DTypeError(f"'{symbol}' on an array of {self._dtype_name}: the result is {r._dtype_name}, which "
                                   f"cannot be cast back to {self._dtype_name} (NumPy's same_kind rule); use "
                                   f"a = a {symbol[:-1]} b for a new array, or astype first")
        _core._assign(self, r)
        return self
    f.__name__ = "__i" + fn_name + "__"
    return f


for _sym, _fn, _dunder in (("+=", "add", "__iadd__"), ("-=", "subtract", "__isub__"), ("*=", "multiply", "__imul__"),
                           ("/=", "true_divide", "__itruediv__"), ("//=", "floor_divide", "__ifloordiv__"),
                           ("%=", "remainder", "__imod__"), ("**=", "power", "__ipow__"),
                           ("&=", "bitwise_and", "__iand__"), ("|=", "bitwise_or", "__ior__"),
                           ("^=", "bitwise_xor", "__ixor__"), ("<<=", "bitwise_left_shift", "__ilshift__"),
                           (">>=", "bitwise_right_shift", "__irshift__"), ("@=", "matmul", "__imatmul__")):
    setattr(ndarray, _dunder, _inplace(_sym, _fn))
del _sym, _fn, _dunder
