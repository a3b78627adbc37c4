"""The array API's data-type functions (finfo, iinfo, can_cast, result_type, isdtype) over porta's
dtypes: bool, int32, int64, float16, bfloat16, float32 and float64. Dtypes come back as
ndarray.dtype gives them: NumPy's dtype objects, and porta.bfloat16, which NumPy has no dtype for.
Wrong kinds of dtype raise InvalidArgument (a ValueError, as NumPy's), things that are no porta
dtype DTypeError (a TypeError, as NumPy's)."""
import numpy as np

from . import _core
from ._core import ndarray
from ._helpers import bfloat16, dtype_name, dtype_object

__all__ = ["finfo", "iinfo", "can_cast", "result_type", "isdtype"]

_NAMES = ("bool", "int32", "int64", "float16", "bfloat16", "float32", "float64")
_KIND = {"bool": "b", "int32": "i", "int64": "i", "float16": "f", "bfloat16": "f", "float32": "f", "float64": "f"}
_KIND_ORDER = "bif"

# A Python scalar is weakly typed (NumPy 2, NEP 50): it takes the array's dtype unless it is of a
# higher kind than the array, and then the default dtype of its own kind.
_DEFAULT = {"b": "bool", "i": "int64", "f": "float64"}

_KINDS = {
    "bool": {"bool"},
    "signed integer": {"int32", "int64"},
    "unsigned integer": set(),
    "integral": {"int32", "int64"},
    "real floating": {"float16", "bfloat16", "float32", "float64"},
    "complex floating": set(),
    "numeric": set(_NAMES) - {"bool"},
}

_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _promote(a, b):
    """porta's promotion of two array dtypes (C++'s promote_types, NumPy's for the host dtypes;
    float16 with bfloat16 gives float32: neither holds the other's values)."""
    return _core._promote_types(a, b)


def _name(x, what):
    """porta's name for the dtype x stands for: a porta or NumPy array's, a NumPy scalar's,
    porta.bfloat16 or 'bfloat16', or anything numpy.dtype takes that names one of porta's dtypes."""
    if isinstance(x, ndarray):
        return x._dtype_name
    if x is None:  # numpy.dtype(None) is float64; here it is more likely a mistake
        raise _core.DTypeError(f"{what}: None is not a dtype; give a dtype, its name or an array")
    try:
        name = x.dtype.name if isinstance(x, (np.ndarray, np.generic)) else dtype_name(x)
    except TypeError:
        raise _core.DTypeError(f"{what}: {x!r} is not a dtype, a dtype's name or an array") from None
    if name not in _NAMES:
        raise _core.DTypeError(f"{what}: porta has no dtype {name} (from {x!r}); its dtypes are {', '.join(_NAMES)}")
    return name


def _result_name(args, what):
    """result_type's dtype, by name (porta's astype and _core take names)."""
    if not args:
        raise _core.InvalidArgument(f"{what}: at least one array or dtype is required")
    strong, weak = None, None
    for x in args:
        if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
            if isinstance(x, complex):
                raise _core.DTypeError(f"{what}: {x!r} is complex; porta has no complex dtypes")
            kind = "b" if isinstance(x, bool) else "i" if isinstance(x, int) else "f"
            weak = kind if weak is None else max(weak, kind, key=_KIND_ORDER.index)
        else:
            name = _name(x, what)
            strong = name if strong is None else _promote(strong, name)
    if weak is not None:
        if strong is None:
            return _DEFAULT[weak]
        if _KIND_ORDER.index(_KIND[strong]) < _KIND_ORDER.index(weak):
            return _promote(strong, _DEFAULT[weak])
    return strong


def result_type(*arrays_and_dtypes):
    """The dtype porta's operations give for these arrays, dtypes and Python scalars (NumPy 2's
    promotion; Python scalars weakly typed). bfloat16 with float16 gives float32, bfloat16 with
    an integer float64, as float16 does."""
    return dtype_object(_result_name(arrays_and_dtypes, "result_type"))


def can_cast(from_, to, casting="safe"):
    """Whether a cast from `from_` (a dtype or an array) to the dtype `to` follows the `casting` rule:
    'no' and 'equiv' the same dtype; 'safe' without losing values; 'same_kind' safe or within one kind
    (bool, integer, floating) or to a higher one; 'unsafe' any. Python scalars are refused, as NumPy 2
    refuses them."""
    if casting not in _CASTINGS:
        raise _core.InvalidArgument(f"can_cast: casting={casting!r}; use one of {', '.join(map(repr, _CASTINGS))}")
    if isinstance(from_, (bool, int, float, complex)) and not isinstance(from_, np.generic):
        raise _core.DTypeError(f"can_cast: from_={from_!r} is a Python scalar, whose dtype depends on what it "
                               f"meets (NumPy 2 refuses them too); give a dtype or an array")
    f, t = _name(from_, "can_cast"), _name(to, "can_cast")
    if casting in ("no", "equiv"):
        return f == t
    if casting == "unsafe" or _promote(f, t) == t:  # safe: t holds every value of f
        return True
    return casting == "same_kind" and _KIND_ORDER.index(_KIND[f]) <= _KIND_ORDER.index(_KIND[t])


class BFloat16Info:
    """numpy.finfo's attributes for bfloat16 (float32's sign and 8 exponent bits, 7 stored mantissa
    bits), as Python floats and ints; dtype is porta.bfloat16."""
    bits = 16
    nexp, nmant = 8, 7
    iexp = nexp
    machep, negep = -nmant, -nmant - 1
    minexp, maxexp = -126, 128
    eps = 2.0 ** machep
    epsneg = 2.0 ** negep
    max = (2.0 - eps) * 2.0 ** (maxexp - 1)
    min = -max
    smallest_normal = tiny = 2.0 ** minexp
    smallest_subnormal = 2.0 ** (minexp - nmant)
    precision = 2  # decimal digits: int(-log10(eps)), as numpy.finfo computes it
    resolution = 10.0 ** -precision
    dtype = bfloat16

    def __repr__(self):
        return f"finfo(resolution={self.resolution}, min={self.min:.8g}, max={self.max:.8g}, dtype=bfloat16)"


def finfo(dtype):
    """numpy.finfo for a floating dtype or a porta array of one; for bfloat16 a BFloat16Info."""
    name = _name(dtype, "finfo")
    if _KIND[name] != "f":
        raise _core.InvalidArgument(f"finfo: {name} is not a floating dtype (iinfo describes integers)")
    return BFloat16Info() if name == "bfloat16" else np.finfo(name)


def iinfo(int_type):
    """numpy.iinfo for an integer dtype (int32, int64) or a porta array of one."""
    name = _name(int_type, "iinfo")
    if _KIND[name] != "i":
        raise _core.InvalidArgument(f"iinfo: {name} is not an integer dtype (finfo describes floating ones)")
    return np.iinfo(name)


def _isdtype_name(dtype, what):
    """A dtype object's name: a NumPy dtype, a NumPy scalar type (numpy.float32) or porta.bfloat16,
    as numpy.isdtype takes them (names and arrays are not dtypes there)."""
    if dtype is bfloat16:
        return "bfloat16"
    if isinstance(dtype, np.dtype) or (isinstance(dtype, type) and issubclass(dtype, np.generic)):
        return _name(dtype, what)
    shown = f"an array of {dtype.dtype}" if isinstance(dtype, (ndarray, np.ndarray)) else repr(dtype)
    raise _core.DTypeError(f"{what}: {shown} is not a dtype object; give one (x.dtype, porta.float32, "
                           f"porta.bfloat16), not a name or an array")


def _is_kind(name, kind):
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise _core.InvalidArgument(f"isdtype: {kind!r} is not a kind; use one of {', '.join(map(repr, _KINDS))}")
        return name in _KINDS[kind]
    return name == _isdtype_name(kind, "isdtype (kind)")


def isdtype(dtype, kind):
    """Whether `dtype` is of `kind`: one of the array API's kind names ('bool', 'signed integer',
    'unsigned integer', 'integral', 'real floating', 'complex floating', 'numeric'), a dtype, or a
    tuple of them (any of them). porta has no unsigned or complex dtypes: those kinds are never true."""
    name = _isdtype_name(dtype, "isdtype")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return any([_is_kind(name, k) for k in kinds])  # a list: every kind is checked, even after a match
