"""The array API's data-type functions (finfo, iinfo, can_cast, result_type, isdtype) over porta's
dtypes: bool, int8 ... int64, uint8 ... uint64, float16, bfloat16, float32, float64, complex64 and
complex128. Dtypes come back as ndarray.dtype gives them: NumPy's dtype objects, and porta.bfloat16,
which NumPy has no dtype for. Wrong kinds of dtype raise InvalidArgument (a ValueError, as NumPy's),
things that are no porta dtype DTypeError (a TypeError, as NumPy's)."""
import numpy as np

from . import _core
from ._core import ndarray
from ._helpers import ALL_DTYPES, bfloat16, dtype_name, dtype_object

__all__ = ["finfo", "iinfo", "can_cast", "result_type", "isdtype"]

_NAMES = ALL_DTYPES
# NumPy's kind characters; bfloat16 is floating.
_KIND = {n: "f" if n == "bfloat16" else np.dtype(n).kind for n in _NAMES}
# NumPy's order of kinds for 'same_kind' casts (a cast to a later kind is same_kind) and for
# Python scalars (bool < int < float < complex).
_KIND_ORDER = "buifc"

# A Python scalar is weakly typed (NumPy 2, NEP 50): it takes the array's dtype unless it is of a
# higher kind than the array, and then the default dtype of its own kind (a complex with a real
# floating dtype: the complex of that float's width).
_DEFAULT = {"b": "bool", "i": "int64", "f": "float64", "c": "complex128"}

_KINDS = {
    "bool": {"bool"},
    "signed integer": {n for n in _NAMES if _KIND[n] == "i"},
    "unsigned integer": {n for n in _NAMES if _KIND[n] == "u"},
    "integral": {n for n in _NAMES if _KIND[n] in "iu"},
    "real floating": {n for n in _NAMES if _KIND[n] == "f"},
    "complex floating": {n for n in _NAMES if _KIND[n] == "c"},
    "numeric": set(_NAMES) - {"bool"},
}

_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _promote(a, b):
    """porta's promotion of two array dtypes (C++'s promote_types: NumPy 2's for the host dtypes;
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


def _scalar_kind(x):
    """A Python scalar's kind ('b', 'i', 'f', 'c'), or None for anything else (NumPy scalars are
    strongly typed: they are dtypes here)."""
    if isinstance(x, np.generic) or not isinstance(x, (bool, int, float, complex)):
        return None
    return "b" if isinstance(x, bool) else "i" if isinstance(x, int) else "f" if isinstance(x, float) else "c"


def _result_name(args, what):
    """result_type's dtype, by name (porta's astype and _core take names)."""
    if not args:
        raise _core.InvalidArgument(f"{what}: at least one array or dtype is required")
    strong, weak = None, None
    for x in args:
        kind = _scalar_kind(x)
        if kind is not None:
            weak = kind if weak is None else max(weak, kind, key=_KIND_ORDER.index)
        else:
            name = _name(x, what)
            strong = name if strong is None else _promote(strong, name)
    if weak is None:
        return strong
    if strong is None:
        return _DEFAULT[weak]
    have = "i" if _KIND[strong] == "u" else _KIND[strong]
    if _KIND_ORDER.index(have) >= _KIND_ORDER.index(weak):
        return strong
    if weak == "c" and have == "f":  # float32 with 1j: complex64, as NumPy 2
        return _promote(strong, "complex64")
    return _promote(strong, _DEFAULT[weak])


def result_type(*arrays_and_dtypes):
    """The dtype porta's operations give for these arrays, dtypes and Python scalars (NumPy 2's
    promotion; Python scalars weakly typed). bfloat16 with float16 gives float32, bfloat16 with
    an integer float64, as float16 does."""
    return dtype_object(_result_name(arrays_and_dtypes, "result_type"))


def can_cast(from_, to, casting="safe"):
    """Whether a cast from `from_` (a dtype or an array) to the dtype `to` follows the `casting` rule:
    'no' and 'equiv' the same dtype; 'safe' without losing values; 'same_kind' safe or to a kind no
    lower in NumPy's order bool, unsigned, signed, floating, complex (int64 to int8, uint16 to int8,
    float64 to float16: not int16 to uint8); 'unsafe' any. Python scalars are refused, as NumPy 2
    refuses them."""
    if casting not in _CASTINGS:
        raise _core.InvalidArgument(f"can_cast: casting={casting!r}; use one of {', '.join(map(repr, _CASTINGS))}")
    if _scalar_kind(from_) is not None:
        raise _core.DTypeError(f"can_cast: from_={from_!r} is a Python scalar, whose dtype depends on what it "
                               f"meets (NumPy 2 refuses them too); give a dtype or an array")
    f, t = _name(from_, "can_cast"), _name(to, "can_cast")
    if casting in ("no", "equiv"):
        return f == t
    if casting == "unsafe" or _promote(f, t) == t:  # safe: t holds every value of f
        return True
    return casting == "same_kind" and _KIND_ORDER.index(_KIND[f]) <= _KIND_ORDER.index(_KIND[t])


class finfo_object:
    """numpy.finfo's attributes for a floating dtype (a complex dtype: its parts'), from porta's
    C++ finfo, as Python floats and ints (the array API's types); dtype is the real dtype described
    (a NumPy dtype, or porta.bfloat16)."""

    def __init__(self, name):
        f = _core._finfo(name)
        self.dtype = dtype_object(f["dtype"])
        self.bits = f["bits"]
        self.nmant, self.nexp = f["nmant"], f["nexp"]
        self.iexp = self.nexp
        self.eps, self.max, self.min = f["eps"], f["max"], f["min"]
        self.smallest_normal = self.tiny = f["smallest_normal"]
        self.smallest_subnormal = f["smallest_subnormal"]
        self.machep, self.negep = -self.nmant, -self.nmant - 1
        self.epsneg = 2.0 ** self.negep
        self.minexp = 2 - 2 ** (self.nexp - 1)  # the smallest normal's exponent
        self.maxexp = 2 ** (self.nexp - 1)      # the first exponent that overflows
        self.precision = int(-np.log10(self.eps))  # decimal digits, as numpy.finfo computes them
        self.resolution = 10.0 ** -self.precision

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min:.8g}, max={self.max:.8g}, "
                f"dtype={getattr(self.dtype, 'name', self.dtype)})")


class iinfo_object:
    """numpy.iinfo's attributes for an integer dtype, from porta's C++ iinfo: bits, min, max (Python
    ints) and dtype (NumPy's)."""

    def __init__(self, name):
        self.bits, self.min, self.max = _core._iinfo(name)
        self.dtype = dtype_object(name)
        self.kind = _KIND[name]

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype.name})"


def finfo(dtype):
    """numpy.finfo for a floating or complex dtype or a porta array of one (a complex dtype's finfo
    describes its parts, as NumPy's)."""
    name = _name(dtype, "finfo")
    if _KIND[name] not in "fc":
        raise _core.InvalidArgument(f"finfo: {name} is not a floating or complex dtype (iinfo describes integers)")
    return finfo_object(name)


def iinfo(int_type):
    """numpy.iinfo for an integer dtype (int8 ... int64, uint8 ... uint64) or a porta array of one."""
    name = _name(int_type, "iinfo")
    if _KIND[name] not in "iu":
        raise _core.InvalidArgument(f"iinfo: {name} is not an integer dtype (finfo describes floating ones)")
    return iinfo_object(name)


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
    tuple of them (any of them). bfloat16 is 'real floating'."""
    name = _isdtype_name(dtype, "isdtype")
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return any([_is_kind(name, k) for k in kinds])  # a list: every kind is checked, even after a match
