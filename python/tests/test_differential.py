"""A differential test: random programs run in porta and in NumPy on every device, compared within
error bounds that travel through each program with its values.

A program is a tree of elementwise operations over arrays of random dtypes (every porta dtype NumPy
has: bool, int8 ... uint64, float16 ... float64, complex64, complex128) and shapes that broadcast,
leaves among them strided, reversed and transposed views, with Python numbers beside them; then,
in most programs, one stage on its result (a reduction over some axes, a scan, a sort, a shape
function, an indexing read, a product, a write through a view) and perhaps more elementwise work
on that. porta builds it lazily, as a user's code would, and fuses what it fuses.

Every value carries a bound, per element, on how far porta's value may lie from NumPy's: leaves are
exact; an operation's bound is what its operands' bounds can move its result (for monotone functions
the change between the ends of the operands' intervals, for the others a Lipschitz constant), plus
the rounding of the result in its dtype (a few units in the last place: NumPy's and porta's) and
the conversions NumPy makes first (an int64 to float64, a Python 0.1 to float16). Integers and bools
are exact, or unknown where an operand was uncertain (a comparison of floats closer than their
bounds). Elements with an unknown (infinite) bound are not compared; every other element must lie
within its bound (NaN where NumPy has NaN, the same infinity), and the dtype and the shape of each
result must be NumPy's, as must the kind of error where NumPy raises.

It runs for PORTA_DIFF_SECONDS (default 40) in all, shared by the devices, with a fresh seed each run,
printed; PORTA_DIFF_SEED=<seed> replays a run, PORTA_DIFF_PROGRAM=<n> only its program n;
PORTA_DIFF_KEEP_GOING=1 runs on past a failing program and reports every failure at the end (for
long runs). On the GPU host: PORTA_DIFF_SECONDS=600 PORTA_DIFF_KEEP_GOING=1 pytest
python/tests/test_differential.py."""
import os
import secrets
import sys
import time
import warnings

import numpy as np
import pytest

import porta
from conftest import DEVICE_SPECS

# (NumPy's warnings of the references' overflows and NaNs are expected: the bounds handle them.)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

SECONDS = float(os.environ.get("PORTA_DIFF_SECONDS", "40"))
SEED = int(os.environ.get("PORTA_DIFF_SEED") or secrets.randbits(62))
ONLY = os.environ.get("PORTA_DIFF_PROGRAM")
KEEP_GOING = os.environ.get("PORTA_DIFF_KEEP_GOING", "") not in ("", "0")

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64", "complex64", "complex128")
F64 = np.float64

# Features that meet porta's known differences from NumPy (each name says which); a program that
# would use one is drawn again. Remove a name when its fix lands, and the programs will test it.
KNOWN: set[str] = set()  # all fixed by the fidelity work (issue 38); names as below once more:
# "slices beyond the ends", "float16 mean", "numpy scalars", "unique NaNs", "diff prepend",
# "split negative indices", "matmul 4-d", "reduction dtype"


class Skip(Exception):
    """The drawn program is outside what this test compares (drawn again)."""


class V:
    """A value of the program: porta's array, NumPy's array (the reference, of the dtype NumPy gives),
    the bound on |porta - NumPy| per element (float64, inf: unknown) and the expression's text."""

    def __init__(self, p, r, b, text):
        # A Python number stays one for NumPy, where it is weakly typed (NumPy 2's rule; a 0-d
        # array of it would be a float64 or int64 operand).
        self.p, self.text = p, text
        self.r = r if isinstance(r, (bool, int, float, complex, np.generic)) else np.asarray(r)
        b = np.broadcast_to(np.asarray(b, dtype=F64), np.shape(self.r))
        self.b = np.where(np.isnan(b), np.inf, b)

    @property
    def dt(self):
        return np.asarray(self.r).dtype


def _kind(dt):
    return np.dtype(dt).kind


def _f64(a):
    """Values as float64 (complex128 for complex), for bound arithmetic."""
    a = np.asarray(a)
    return a.astype(np.complex128 if a.dtype.kind == "c" else F64)


def _ulp(r):
    """One unit in the last place of each element of the float or complex array r (NaN where r is
    not finite; 0 for exact dtypes)."""
    if r.dtype.kind == "c":
        return 2 * np.spacing(np.abs(r).astype(r.real.dtype)).astype(F64)
    if r.dtype.kind != "f":
        return np.zeros(r.shape)
    return np.abs(np.spacing(r)).astype(F64)


# --- Leaves -------------------------------------------------------------------------------------

def _values(g, shape, name):
    """Random values of `name` with the edges sprinkled in (0, -0.0, NaN, inf, the dtype's ends)."""
    dt = np.dtype(name)
    if dt.kind == "b":
        return g.random(shape) < g.choice([0.1, 0.5, 0.9])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if g.random() < 0.5:
            h = g.integers(max(info.min, -20), min(info.max, 40), size=shape, endpoint=True).astype(dt)
        else:
            h = g.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
        edges = [info.min, info.max, 0, 1] + ([-1] if dt.kind == "i" else [])
    else:
        real = np.float32 if name == "complex64" else F64 if dt.kind == "c" else dt
        scale = g.choice([1.0, 30.0, 1e-3, 1e4 if dt.itemsize > 2 else 300.0])
        h = (g.standard_normal(shape) * scale)
        if dt.kind == "c":
            h = h + 1j * g.standard_normal(shape) * scale
        h = h.astype(dt)
        fi = np.finfo(real)
        edges = [0.0, -0.0, np.nan, np.inf, -np.inf, float(fi.max), -float(fi.max), float(fi.smallest_normal),
                 float(fi.smallest_subnormal), 1.0, -1.0]
    if h.size and g.random() < 0.5:
        flat = h.reshape(-1)
        n = max(1, int(flat.size * 0.08))
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            flat[g.integers(0, flat.size, n)] = np.asarray(g.choice(edges, n)).astype(dt)
    return h


def leaf(g, ctx, shape, name):
    """A leaf of `shape` and dtype `name`: a contiguous array, or a strided, reversed or transposed
    view of a bigger one (as porta and NumPy see it)."""
    shape = tuple(shape)
    how = g.choice(["plain", "strided", "reversed", "transposed"]) if shape else "plain"
    if how == "plain":
        h = _values(g, shape, name)
        return V(ctx.put(h), h, 0.0, f"{name}{list(shape)}")
    if how == "transposed" and len(shape) >= 2:
        perm = list(g.permutation(len(shape)))
        inv = list(np.argsort(perm))
        h = _values(g, tuple(shape[i] for i in inv), name)
        return V(ctx.put(h).transpose(perm), h.transpose(perm), 0.0, f"{name}{list(shape)}.T{perm}")
    if how == "strided":  # every 2nd or 3rd element of a bigger array, from its second
        step = int(g.choice([2, 3]))
        h = _values(g, tuple(n * step + 1 for n in shape), name)
        key = tuple(slice(1, 1 + n * step, step) for n in shape)
    else:  # reversed: elements n, n - 1, ..., 1 of an axis of n + 1
        h = _values(g, tuple(n + 1 for n in shape), name)
        key = tuple(slice(n, 0, -1) for n in shape)
    hv, pv = h[key], ctx.put(h)[key]
    assert hv.shape == shape, (hv.shape, shape)
    return V(pv, hv, 0.0, f"{name}{list(shape)}[{how}]")


def scalar(g, kind):
    """A Python number of `kind` (weakly typed: it takes the array's dtype, NumPy 2's rule)."""
    if kind == "b":
        return bool(g.random() < 0.5)
    if kind in "iu":
        if g.random() < 0.1:  # beyond a narrow dtype: comparisons exact, arithmetic an OverflowError
            big = [300, -129, 70000, 2 ** 31, 2 ** 40, -2 ** 63, 2 ** 64 - 1]
            return big[int(g.integers(len(big)))]  # (g.choice would make them float64)
        return int(g.integers(0 if kind == "u" else -3, 100))
    if kind == "f":
        return float(g.choice([0.5, 0.1, -2.25, 3.0, 1e-3, -7.5, 100.0]))
    return complex(float(g.choice([0.5, -1.25])), float(g.choice([2.0, -0.1])))


def scalar_value(s):
    """A Python number as a V: exact (its conversion to the dtype it meets is counted there)."""
    return V(s, s, 0.0, repr(s))


def numpy_scalar(g, ctx):
    """A NumPy scalar (np.float32(1.5)): strongly typed, as a 0-d array of its dtype."""
    name = ctx.dtype(g)
    h = _values(g, (), name)[()]
    return V(h, h, 0.0, f"np.{name}({h!r})")


# --- Elementwise operations -----------------------------------------------------------------------

def _bound_in(v, dt):
    """v's bound once NumPy has converted v to dt (exact dtypes: as it is)."""
    return _convert(v, dt)[1] if np.dtype(dt).kind in "fc" else v.b


def _convert(v, dt):
    """v's values and bound in dt's arithmetic (float64 or complex128 copies), with the error of
    NumPy's conversion to dt added (int64 to float64, a Python 0.1 to float16, float32 to float16)."""
    x = _f64(v.r)
    b = v.b
    if np.dtype(dt).kind in "fc" and v.dt != dt:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            conv = np.abs(_f64(np.asarray(v.r).astype(dt)) - x)
        b = b + np.where(np.isfinite(x), conv, 0.0)
    return x, b


# (porta function, NumPy function, kinds it takes, ulps of the result it may be off by, monotone)
UNARY = {
    "negative": (porta.negative, np.negative, "iufc", 0, True),
    "abs": (porta.abs, np.abs, "biufc", 1, None),
    "square": (porta.square, np.square, "iufc", 2, None),
    "sqrt": (porta.sqrt, np.sqrt, "biuf", 3, True),
    "exp": (porta.exp, np.exp, "biufc", 6, True),
    "expm1": (porta.expm1, np.expm1, "biuf", 4, True),
    "log": (porta.log, np.log, "biuf", 4, True),
    "log1p": (porta.log1p, np.log1p, "biuf", 4, True),
    "sin": (porta.sin, np.sin, "biuf", 4, False),
    "cos": (porta.cos, np.cos, "biuf", 4, False),
    "tanh": (porta.tanh, np.tanh, "biuf", 5, True),
    "atan": (porta.atan, np.arctan, "biuf", 4, True),
    "floor": (porta.floor, np.floor, "iuf", 0, True),
    "ceil": (porta.ceil, np.ceil, "iuf", 0, True),
    "trunc": (porta.trunc, np.trunc, "iuf", 0, True),
    "sign": (porta.sign, np.sign, "iuf", 0, True),
    "logical_not": (porta.logical_not, np.logical_not, "biufc", 0, None),
    "bitwise_invert": (porta.bitwise_invert, np.invert, "biu", 0, None),
    "isnan": (porta.isnan, np.isnan, "fc", 0, None),
    "isfinite": (porta.isfinite, np.isfinite, "fc", 0, None),
    "signbit": (porta.signbit, np.signbit, "f", 0, None),
    # Added in session 2 (reach): inverse and hyperbolic functions, logs of other bases, roundings,
    # parts of complex numbers; "exact" bounds only exact operands (and their rounding), unknown
    # otherwise; complex operands take the "exact" bound in every function but the linear ones.
    "asin": (porta.asin, np.arcsin, "biufc", 4, True),
    "acos": (porta.acos, np.arccos, "biufc", 4, True),
    "asinh": (porta.asinh, np.arcsinh, "biufc", 4, True),
    "acosh": (porta.acosh, np.arccosh, "biufc", 4, True),
    "atanh": (porta.atanh, np.arctanh, "biufc", 4, True),
    "sinh": (porta.sinh, np.sinh, "biufc", 5, True),
    "cosh": (porta.cosh, np.cosh, "biufc", 5, "exact"),
    "tan": (porta.tan, np.tan, "biufc", 5, "exact"),
    "log2": (porta.log2, np.log2, "biufc", 4, True),
    "log10": (porta.log10, np.log10, "biufc", 4, True),
    "rint": (porta.rint, np.rint, "biuf", 0, True),
    "round": (porta.round, np.round, "biuf", 0, True),
    "reciprocal": (porta.reciprocal, np.reciprocal, "fc", 2, "exact"),
    "positive": (porta.positive, np.positive, "iufc", 0, None),
    "conj": (porta.conj, np.conj, "biufc", 0, None),
    "real": (porta.real, np.real, "biufc", 0, None),
    "imag": (porta.imag, np.imag, "biufc", 0, None),
    "angle": (porta.angle, np.angle, "biufc", 3, "exact"),
    "isinf": (porta.isinf, np.isinf, "fc", 0, None),
}
for _name in ("sqrt", "log", "log1p", "sin", "cos", "tanh", "atan", "expm1", "square"):
    _f = UNARY[_name]
    if "c" not in _f[2]:
        UNARY[_name] = (_f[0], _f[1], _f[2] + "c", _f[3], _f[4])

BINARY = {
    "add": (porta.add, np.add, "biufc", 1),
    "subtract": (porta.subtract, np.subtract, "iufc", 1),
    "multiply": (porta.multiply, np.multiply, "biufc", 2),
    "divide": (porta.divide, np.divide, "biufc", 3),
    "maximum": (porta.maximum, np.maximum, "biuf", 0),
    "minimum": (porta.minimum, np.minimum, "biuf", 0),
    "hypot": (porta.hypot, np.hypot, "biuf", 3),
    "floor_divide": (porta.floor_divide, np.floor_divide, "iu", 0),
    "remainder": (porta.remainder, np.remainder, "iu", 0),
    "bitwise_and": (porta.bitwise_and, np.bitwise_and, "biu", 0),
    "bitwise_or": (porta.bitwise_or, np.bitwise_or, "biu", 0),
    "bitwise_xor": (porta.bitwise_xor, np.bitwise_xor, "biu", 0),
    "logical_and": (porta.logical_and, np.logical_and, "biufc", 0),
    "logical_or": (porta.logical_or, np.logical_or, "biufc", 0),
    "less": (porta.less, np.less, "biuf", 0),
    "less_equal": (porta.less_equal, np.less_equal, "biuf", 0),
    "greater": (porta.greater, np.greater, "biuf", 0),
    "equal": (porta.equal, np.equal, "biufc", 0),
    "not_equal": (porta.not_equal, np.not_equal, "biufc", 0),
    # Added in session 2 (reach): functions of two floats with their own promotion (the least float
    # each operand casts to), powers, shifts; bounds of exact operands only, unknown otherwise.
    "atan2": (porta.atan2, np.arctan2, "biuf", 4),
    "copysign": (porta.copysign, np.copysign, "biuf", 0),
    "logaddexp": (porta.logaddexp, np.logaddexp, "biuf", 4),
    "pow": (porta.pow, np.power, "iuf", 16),  # (complex pow: test_numpy_fidelity's special values)
    "bitwise_left_shift": (porta.bitwise_left_shift, np.left_shift, "iu", 0),
    "bitwise_right_shift": (porta.bitwise_right_shift, np.right_shift, "iu", 0),
    "logical_xor": (porta.logical_xor, np.logical_xor, "biufc", 0),
    "greater_equal": (porta.greater_equal, np.greater_equal, "biuf", 0),
}
EXACT_BINARY = {"atan2", "copysign", "logaddexp", "pow"}
COMPARISONS = {"less", "less_equal", "greater", "equal", "not_equal", "greater_equal"}


def _quiet(fn, *args):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


class Refused(Exception):
    """NumPy and porta both refused an operation (with errors of one kind): the program ends."""


# The built-in kinds of error NumPy raises, which porta's errors are too (porta.DTypeError a
# TypeError, porta.NumberOutOfRange an OverflowError, ...).
_ERROR_KINDS = (TypeError, IndexError, OverflowError, ValueError, ZeroDivisionError)


def call(pfn, nfn, *vs):
    """porta's pfn and NumPy's nfn of the values vs: (porta's array, NumPy's). Where NumPy raises,
    porta must raise an error of a kind NumPy's is (AxisError: ValueError or IndexError)."""
    what = f"{getattr(nfn, '__name__', 'NumPy')}({', '.join(v.text if isinstance(v, V) else repr(v) for v in vs)})"
    try:
        r = _quiet(nfn, *[v.r if isinstance(v, V) else v for v in vs])
    except Exception as e:
        if isinstance(e, OverflowError) and "too large to convert to C" in str(e):
            raise Skip from None  # (NumPy cannot meet 2**64 - 1 with a bool array: a limit of its own)
        kinds = tuple(k for k in _ERROR_KINDS if isinstance(e, k))
        try:
            out = pfn(*[v.p if isinstance(v, V) else v for v in vs])
            if isinstance(out, porta.ndarray):
                out.eval()
        except Exception as pe:
            if kinds and isinstance(pe, kinds):
                raise Refused from None
            raise AssertionError(f"{what}: NumPy raised {type(e).__name__} ({e}), porta {type(pe).__name__} ({pe})") \
                from pe
        raise AssertionError(f"{what}: NumPy raised {type(e).__name__} ({e}); porta answered") from None
    try:
        p = pfn(*[v.p if isinstance(v, V) else v for v in vs])
    except Exception as pe:
        raise AssertionError(f"{what}: porta raised {type(pe).__name__} ({pe}) where NumPy answers") from pe
    return p, (r if isinstance(r, (tuple, list)) else np.asarray(r))


def _finish(r, prop, operands, ulps):
    """The bound of a float or complex result r: the propagated bound `prop`, plus `ulps` units of
    r's last place and its dtype's smallest normal (a device may flush subnormals to zero); unknown
    where r overflowed from finite operands or may overflow, 0 where r is an exact special value."""
    dt = r.dtype
    real = np.finfo(r.real.dtype if dt.kind == "c" else dt)
    b = prop + (ulps + 1) * _ulp(r) + float(real.smallest_normal) * (ulps > 0)
    finite_in = np.ones(r.shape, bool)
    for x in operands:
        finite_in &= np.broadcast_to(np.isfinite(x), r.shape)
    fin = np.isfinite(r)
    b = np.where(fin, b, np.where(finite_in, np.inf, np.where(prop == 0, 0.0, np.inf)))
    mag = np.abs(_f64(r))
    return np.where(fin & (mag + b > float(real.max)), np.inf, b)


def _exact_or_unknown(r, *bounds):
    """An integer or bool result: exact where every operand was, else unknown."""
    total = sum(np.broadcast_to(b, r.shape) for b in bounds)
    return np.where(total > 0, np.inf, 0.0)


def apply_unary(name, x):
    pfn, nfn, kinds, ulps, monotone = UNARY[name]
    if _kind(x.dt) not in kinds or not isinstance(x.p, porta.ndarray):
        raise Skip  # (porta's functions of one operand take arrays, not Python numbers)
    p, r = call(pfn, nfn, x)
    text = f"{name}({x.text})"
    if x.dt.kind == "c" and name not in ("negative", "positive", "conj", "real", "imag", "abs", "isnan", "isfinite",
                                         "isinf", "logical_not"):
        ulps = 64  # (complex functions combine several real ones: complex_test.cpp's tolerance)
    if r.dtype.kind in "biu":
        if name in ("logical_not", "signbit") and x.dt.kind in "fc":
            near = np.abs(_f64(x.r)) <= x.b
            b = np.where((x.b > 0) & near, np.inf, np.where(np.isinf(x.b), np.inf, 0.0))
            if name == "signbit":  # (the sign of a NaN an operation made is the CPU's: listed)
                b = np.where(np.isnan(x.r), np.inf, b)
        elif name in ("isnan", "isfinite", "isinf"):
            b = np.where(np.isinf(x.b), np.inf, 0.0)  # (a finite bound: NaN-ness and finiteness are known)
        else:
            b = _exact_or_unknown(r, x.b)
        return V(p, r, b, text)
    xv, xb = _convert(x, r.dtype if r.dtype.kind == x.dt.kind or x.dt.kind != "c" else x.dt)
    if x.dt.kind == "c" and name in ("real", "imag", "abs"):
        prop = xb
    elif monotone == "exact" or (x.dt.kind == "c" and name not in ("exp", "negative", "positive", "conj", "square")):
        prop = np.where(xb == 0, 0.0, np.inf)
    elif name in ("positive", "conj", "real", "imag"):
        prop = xb
    elif r.dtype.kind == "c" and name == "exp":  # |exp(z) - exp(w)| <= |exp(z)| (exp|z - w| - 1)
        prop = np.abs(np.exp(xv)) * np.expm1(xb)
        prop = np.where(xb == 0, 0.0, prop)
    elif monotone:
        lo, hi = _quiet(nfn, xv - xb), _quiet(nfn, xv + xb)
        mid = _f64(_quiet(nfn, xv))
        prop = np.maximum(np.abs(_f64(lo) - mid), np.abs(_f64(hi) - mid))
        prop = np.where(xb == 0, 0.0, prop)
    elif name in ("sin", "cos"):
        prop = np.minimum(xb, 2.0)
    elif name == "abs" or name == "negative":
        prop = xb
    elif name == "square":
        prop = 2 * np.abs(xv) * xb + xb * xb
    else:
        raise AssertionError(name)
    if x.dt.kind == "c" and name == "log1p":
        # NumPy's complex log1p is log(hypot(1 + x, y)): its real part is off by a few eps absolute
        # where it is small (porta's is accurate there: a listed difference).
        prop = prop + 8 * float(np.finfo(r.real.dtype).eps)
    return V(p, r, _finish(r, prop, [xv], ulps), text)


def apply_binary(name, x, y):
    pfn, nfn, kinds, ulps = BINARY[name]
    for v in (x, y):
        if _kind(v.dt) not in kinds:
            raise Skip
    if not isinstance(x.p, porta.ndarray) and not isinstance(y.p, porta.ndarray):
        raise Skip  # (two numbers: no array)
    if name == "pow" and np.result_type(x.r, y.r).kind in "iu" and np.any(np.asarray(y.r) < 0):
        raise Skip  # (a listed difference: porta does not check an exponent array for negative integers)
    p, r = call(pfn, nfn, x, y)
    text = f"{name}({x.text}, {y.text})"
    if name in COMPARISONS or r.dtype.kind in "biu":
        if name in COMPARISONS and (x.dt.kind in "fc" or y.dt.kind in "fc"):
            t = np.result_type(x.r, y.r)
            xv, xb = _convert(x, t)
            yv, yb = _convert(y, t)
            close = np.abs(xv - yv) <= xb + yb
            b = np.where(((xb + yb) > 0) & (close | np.isnan(xb + yb)), np.inf, 0.0)
            b = np.where(np.isinf(xb) | np.isinf(yb), np.inf, b)
        elif name in ("logical_and", "logical_or") and (x.dt.kind in "fc" or y.dt.kind in "fc"):
            b = np.zeros(r.shape)
            for v in (x, y):
                vb = np.broadcast_to(v.b, r.shape)
                near = np.broadcast_to(np.abs(_f64(v.r)) <= v.b, r.shape)
                b = np.where((vb > 0) & near, np.inf, b)
        else:
            b = _exact_or_unknown(r, x.b, y.b)
        return V(p, r, b, text)
    if name in ("floor_divide", "remainder"):
        raise Skip  # (of floats, uint64 with int64: steps where the quotient crosses an integer)
    if name in EXACT_BINARY:
        # (bounds of exact operands: the rounding of the result; of rounded ones unknown)
        xv, xb = _convert(x, r.dtype)
        yv, yb = _convert(y, r.dtype)
        exact = (np.broadcast_to(xb, r.shape) == 0) & (np.broadcast_to(yb, r.shape) == 0)
        if name == "copysign":  # (the sign of a NaN an operation made is the CPU's: listed)
            exact &= ~np.broadcast_to(np.isnan(yv), r.shape)
        prop = np.where(exact, 0.0, np.inf)
        if name == "logaddexp":  # (x + log1p(exp(y - x)) rounds x's size away where the result nears 0)
            with np.errstate(all="ignore"):
                big = np.maximum(np.abs(np.broadcast_to(xv, r.shape)), np.abs(np.broadcast_to(yv, r.shape)))
            prop = prop + 4 * float(np.finfo(r.dtype).eps) * np.where(np.isfinite(big), big, 0.0)
        return V(p, r, _finish(r, prop, [xv, yv], ulps), text)
    xv, xb = _convert(x, r.dtype)
    yv, yb = _convert(y, r.dtype)
    ax, ay = np.abs(xv), np.abs(yv)
    with np.errstate(all="ignore"):
        if name in ("add", "subtract", "hypot"):
            prop = xb + yb
        elif name == "multiply":
            prop = ay * xb + ax * yb + xb * yb
        elif name == "divide":
            prop = np.where(ay > yb, (ax * yb + ay * xb) / (ay * (ay - yb)), np.inf)
        elif name in ("maximum", "minimum"):
            prop = np.maximum(xb, yb)
        else:
            raise AssertionError(name)
        # An exact operand times an exact one is exact before rounding (0 * inf included).
        prop = np.where((np.broadcast_to(xb, r.shape) == 0) & (np.broadcast_to(yb, r.shape) == 0), 0.0, prop)
    return V(p, r, _finish(r, prop, [xv, yv], ulps), text)


def _int_outside(v, other):
    """A Python int that other's integer dtype cannot hold."""
    if not isinstance(v.r, int) or isinstance(v.r, bool) or other.dt.kind not in "biu":
        return False
    info = np.iinfo(np.int64 if other.dt.kind == "b" else other.dt)  # (bool with an int: int64)
    return not info.min <= v.r <= info.max


def apply_where(c, x, y):
    if c.dt.kind != "b" or not isinstance(c.p, porta.ndarray):
        raise Skip
    text = f"where({c.text}, {x.text}, {y.text})"
    if (_int_outside(x, y) or _int_outside(y, x)) and not isinstance(x.p, porta.ndarray) \
            and not isinstance(y.p, porta.ndarray):
        raise Skip  # (two Python ints, one beyond int64: no array dtype for either to meet)
    if _int_outside(x, y) or _int_outside(y, x):
        # A listed difference: NumPy's where wraps such an int into the dtype (-3 into uint8: 253),
        # porta raises the OverflowError of NumPy's arithmetic with it.
        try:
            porta.where(c.p, x.p, y.p).eval()
        except OverflowError:
            raise Refused from None
        raise AssertionError(f"{text}: porta took a Python int beyond the dtype (it raises OverflowError)")
    p, r = call(porta.where, np.where, c, x, y)
    if r.dtype.kind in "fc":
        _, xb = _convert(x, r.dtype)
        _, yb = _convert(y, r.dtype)
    else:
        xb, yb = x.b, y.b
    b = np.where(np.broadcast_to(c.b, r.shape) > 0, np.inf, np.where(c.r, xb, yb))
    return V(p, r, b, text)


def elementwise(g, ctx, shape, depth, kinds=None):
    """A random elementwise expression whose result broadcasts to `shape`."""
    if depth == 0 or g.random() < 0.25:
        if g.random() < 0.15 and depth < 3:
            if g.random() < 0.2 and "numpy scalars" not in KNOWN:
                return numpy_scalar(g, ctx)
            s = scalar(g, g.choice(list("bifc")))
            return scalar_value(s)
        # A leaf of a shape that broadcasts to `shape`: leading axes dropped, some set to 1.
        n = len(shape) - int(g.integers(0, len(shape) + 1)) if shape and g.random() < 0.3 else len(shape)
        sub = [1 if g.random() < 0.2 else d for d in shape[len(shape) - n:]]
        return leaf(g, ctx, sub, ctx.dtype(g, kinds))
    r = g.random()
    if r < 0.35:
        x = elementwise(g, ctx, shape, depth - 1, kinds)
        return apply_unary(str(g.choice(list(UNARY))), x)
    if r < 0.9:
        x = elementwise(g, ctx, shape, depth - 1, kinds)
        y = elementwise(g, ctx, shape, depth - 1, kinds)
        if not isinstance(x.p, porta.ndarray) and not isinstance(y.p, porta.ndarray):
            raise Skip  # (two Python numbers: no array)
        return apply_binary(str(g.choice(list(BINARY))), x, y)
    c = apply_binary(str(g.choice(sorted(COMPARISONS))), elementwise(g, ctx, shape, depth - 1, kinds),
                     elementwise(g, ctx, shape, depth - 1, kinds))
    return apply_where(c, elementwise(g, ctx, shape, depth - 1, kinds), elementwise(g, ctx, shape, depth - 1, kinds))


def as_array(v, ctx):
    """A Python number as a 0-d array (the stages below take arrays)."""
    if isinstance(v.p, porta.ndarray):
        return v
    r = np.asarray(v.r)
    if r.dtype.name not in DTYPES:
        raise Skip  # (an int NumPy holds in no integer dtype)
    return V(ctx.put(r), r, v.b, v.text)


# --- Stages: reductions, scans, sorts, shape functions, indexing, products, writes -----------------

def _axes(g, ndim, single=False):
    if ndim == 0 or g.random() < 0.25:
        return None
    if single or g.random() < 0.5:
        return int(g.integers(-ndim, ndim))
    k = int(g.integers(1, ndim + 1))
    return tuple(int(a) for a in g.choice(ndim, size=k, replace=False))


def _reduce_bound(fn, b, axis, keepdims):
    with np.errstate(all="ignore"):
        return fn(b, axis=axis, keepdims=keepdims)


def reduction(g, ctx, x):
    x = as_array(x, ctx)
    name = str(g.choice(["sum", "mean", "max", "min", "argmax", "argmin", "any", "all", "prod", "count_nonzero"]))
    single = name in ("argmax", "argmin")
    axis = _axes(g, x.r.ndim, single)
    keepdims = bool(g.random() < 0.3)
    kind = x.dt.kind
    if name in ("max", "min", "argmax", "argmin"):
        if x.r.size == 0 or (axis is not None and 0 in [x.r.shape[a] for a in np.atleast_1d(axis)]):
            raise Skip  # (both refuse an empty reduction)
        if kind == "c":
            raise Skip
    if name == "prod" and kind in "fc":
        raise Skip  # (a product's bound grows too fast to say much; integers are exact)
    if name == "mean" and kind in "bc":
        raise Skip
    if name == "mean" and x.dt == np.float16 and "float16 mean" in KNOWN:
        raise Skip
    text = f"{name}({x.text}, axis={axis}, keepdims={keepdims})"
    nfn = getattr(np, name)
    pfn = getattr(porta, name)
    p, r = call(lambda a: pfn(a, axis=axis, keepdims=keepdims), lambda a: nfn(a, axis=axis, keepdims=keepdims), x)
    n = x.r.size // max(r.size, 1) if x.r.size else 0
    if r.dtype.kind in "fc" and name in ("sum", "mean"):
        a = np.abs(_f64(x.r))
        tot_b = _reduce_bound(np.sum, x.b, axis, keepdims)
        tot_a = _reduce_bound(np.sum, np.where(np.isfinite(a), a, 0.0), axis, keepdims)
        real = np.finfo(r.real.dtype if r.dtype.kind == "c" else r.dtype)
        prop = tot_b + 2.0 * (n + 2) * float(real.eps) * tot_a
        if name == "mean":
            prop = prop / max(n, 1)
        exact_in = _reduce_bound(np.all, (x.b == 0) & ~np.isfinite(a) | (x.b == 0), axis, keepdims)
        b = _finish(r, np.where(exact_in & ~np.isfinite(_f64(r)), 0.0, prop), [], 2)
        special = ~np.isfinite(_f64(r))  # an infinity or NaN of exact terms is exact; of rounded ones unknown
        b = np.where(special, np.where(_reduce_bound(np.all, x.b == 0, axis, keepdims) &
                                       _reduce_bound(np.any, ~np.isfinite(a), axis, keepdims), 0.0, np.inf), b)
    elif r.dtype.kind in "fc":  # max, min: 1-Lipschitz in the largest change
        b = _reduce_bound(np.max, x.b, axis, keepdims)
    elif name in ("argmax", "argmin"):
        b = np.where(_reduce_bound(np.max, x.b, axis, keepdims) > 0, np.inf, 0.0)
        # (ties: both take the first; a NaN: both its index)
    else:
        b = np.where(_reduce_bound(np.max, x.b, axis, keepdims) > 0, np.inf, 0.0) if x.r.size else 0.0
        if kind in "fc" and name in ("any", "all", "count_nonzero"):
            near = (np.abs(_f64(x.r)) <= x.b) & (x.b > 0)
            b = np.where(_reduce_bound(np.any, near | np.isinf(x.b), axis, keepdims), np.inf, 0.0) \
                if x.r.size else 0.0
    return V(p, r, b, text)


def scan(g, ctx, x):
    x = as_array(x, ctx)
    if x.r.ndim == 0 or x.dt.kind == "c":
        raise Skip
    axis = int(g.integers(-x.r.ndim, x.r.ndim)) if x.r.ndim > 1 or g.random() < 0.5 else None
    name = str(g.choice(["cumsum", "cumulative_sum"]))
    if name == "cumsum":
        p, r = call(lambda a: porta.cumsum(a, axis=axis), lambda a: np.cumsum(a, axis=axis), x)
        ax = 0 if axis is None else axis
        xb, xr = (x.b.reshape(-1), x.r.reshape(-1)) if axis is None else (x.b, x.r)
        initial = False
    else:
        if axis is None and x.r.ndim > 1:
            raise Skip
        initial = bool(g.random() < 0.3)
        p, r = call(lambda a: porta.cumulative_sum(a, axis=axis, include_initial=initial),
                    lambda a: np.cumulative_sum(a, axis=axis, include_initial=initial), x)
        ax = 0 if axis is None else axis
        xb, xr = x.b, x.r
    text = f"{name}({x.text}, axis={axis})"
    if r.dtype.kind == "f":
        a = np.abs(_f64(xr))
        with np.errstate(all="ignore"):
            cb = np.cumsum(xb, axis=ax)
            ca = np.cumsum(np.where(np.isfinite(a), a, 0.0), axis=ax)
            k = np.cumsum(np.ones_like(a), axis=ax)
            anyinf = np.cumsum(~np.isfinite(a), axis=ax) > 0
        prop = cb + 2.0 * (k + 2) * float(np.finfo(r.dtype).eps) * ca
        if initial:
            pad = [(0, 0)] * prop.ndim
            pad[ax] = (1, 0)
            prop, anyinf, cb = np.pad(prop, pad), np.pad(anyinf, pad), np.pad(cb, pad)
        b = _finish(r, prop, [], 2)
        b = np.where(~np.isfinite(r), np.where(anyinf & (cb == 0), 0.0, np.inf), b)
    else:
        with np.errstate(all="ignore"):
            cb = np.cumsum(xb, axis=ax)
        if initial:
            pad = [(0, 0)] * cb.ndim
            pad[ax] = (1, 0)
            cb = np.pad(cb, pad)
        b = np.where(cb > 0, np.inf, 0.0)
    return V(p, r, b, text)


def sort_stage(g, ctx, x):
    x = as_array(x, ctx)
    if x.r.ndim == 0 or x.dt.kind == "c":
        raise Skip
    axis = int(g.integers(-x.r.ndim, x.r.ndim))
    if g.random() < 0.5:
        descending = bool(g.random() < 0.4)
        # (porta's descending order is the ascending one reversed, NaNs first)
        p, r = call(lambda a: porta.sort(a, axis=axis, descending=descending),
                    lambda a: np.flip(np.sort(a, axis=axis), axis=axis) if descending else np.sort(a, axis=axis), x)
        b = np.broadcast_to(np.max(x.b, axis=axis, keepdims=True), r.shape) if x.r.size else x.b
        return V(p, r, b, f"sort({x.text}, axis={axis}, descending={descending})")
    p, r = call(lambda a: porta.argsort(a, axis=axis), lambda a: np.argsort(a, axis=axis, kind="stable"), x)
    b = np.broadcast_to(np.where(np.max(x.b, axis=axis, keepdims=True) > 0, np.inf, 0.0), r.shape) \
        if x.r.size else x.b
    return V(p, r, b, f"argsort({x.text}, axis={axis})")


def shape_stage(g, ctx, x):
    x = as_array(x, ctx)
    nd = x.r.ndim
    choices = ["reshape", "flip", "expand_dims", "concat", "stack", "roll", "tile", "repeat", "broadcast_to"]
    if nd >= 2:
        choices += ["permute_dims", "matrix_transpose", "moveaxis"]
    if 1 in x.r.shape:
        choices.append("squeeze")
    name = str(g.choice(choices))
    text = f"{name}({x.text})"

    def both(fn_p, fn_n):
        p, r = call(fn_p, fn_n, x)
        return V(p, r, fn_n(x.b), text)

    if name == "reshape":
        n = x.r.size
        dims = [d for d in (1, 2, 3, 5, 7) if n % d == 0 and n]
        first = int(g.choice(dims)) if dims else 0
        shape = (first, -1) if n else (0,)
        return both(lambda a: porta.reshape(a, shape), lambda a: np.reshape(a, shape))
    if name == "flip":
        axis = _axes(g, nd)
        return both(lambda a: porta.flip(a, axis=axis), lambda a: np.flip(a, axis=axis))
    if name == "expand_dims":
        axis = int(g.integers(-nd - 1, nd + 1))
        return both(lambda a: porta.expand_dims(a, axis), lambda a: np.expand_dims(a, axis))
    if name == "squeeze":
        axis = int(g.choice([i for i, d in enumerate(x.r.shape) if d == 1]))
        return both(lambda a: porta.squeeze(a, axis), lambda a: np.squeeze(a, axis))
    if name in ("concat", "stack"):
        y = leaf(g, ctx, x.r.shape, ctx.dtype(g))
        if name == "concat":
            if nd == 0:
                raise Skip
            axis = int(g.integers(-nd, nd))
            p, r = call(lambda a, c: porta.concat([a, c], axis=axis), lambda a, c: np.concatenate([a, c], axis=axis),
                        x, y)
            b = np.concatenate([_bound_in(x, r.dtype), _bound_in(y, r.dtype)], axis=axis)
            return V(p, r, b, f"concat({x.text}, {y.text}, axis={axis})")
        axis = int(g.integers(-nd - 1, nd + 1))
        p, r = call(lambda a, c: porta.stack([a, c], axis=axis), lambda a, c: np.stack([a, c], axis=axis), x, y)
        b = np.stack([_bound_in(x, r.dtype), _bound_in(y, r.dtype)], axis=axis)
        return V(p, r, b, f"stack({x.text}, {y.text}, axis={axis})")
    if name == "roll":
        shift = int(g.integers(-7, 8))
        axis = None if nd == 0 or g.random() < 0.3 else int(g.integers(-nd, nd))
        return both(lambda a: porta.roll(a, shift, axis=axis), lambda a: np.roll(a, shift, axis=axis))
    if name == "tile":
        reps = tuple(int(r) for r in g.integers(1, 3, size=int(g.integers(1, 3))))
        return both(lambda a: porta.tile(a, reps), lambda a: np.tile(a, reps))
    if name == "repeat":
        k = int(g.integers(0, 3))
        axis = None if nd == 0 or g.random() < 0.3 else int(g.integers(-nd, nd))
        return both(lambda a: porta.repeat(a, k, axis=axis), lambda a: np.repeat(a, k, axis=axis))
    if name == "broadcast_to":
        shape = (int(g.choice([1, 3])),) + x.r.shape
        return both(lambda a: porta.broadcast_to(a, shape), lambda a: np.broadcast_to(a, shape))
    if name == "permute_dims":
        perm = tuple(int(i) for i in g.permutation(nd))
        return both(lambda a: porta.permute_dims(a, perm), lambda a: np.transpose(a, perm))
    if name == "matrix_transpose":
        return both(porta.matrix_transpose, lambda a: np.swapaxes(a, -1, -2))
    src, dst = int(g.integers(-nd, nd)), int(g.integers(-nd, nd))
    return both(lambda a: porta.moveaxis(a, src, dst), lambda a: np.moveaxis(a, src, dst))


def _random_slice(g, n):
    """A slice of an axis of length n, steps of either sign, starts and stops beyond the ends."""
    step = int(g.choice([1, 1, 2, 3, -1, -2]))
    ends = [None, 0, 1, -1, n, n - 1, -n, n + 2, -n - 2]
    if "slices beyond the ends" in KNOWN:
        ends = [e for e in ends if e is None or -n <= e < n]
    start, stop = g.choice(ends + [None]), g.choice(ends + [None])
    return slice(None if start is None else int(start), None if stop is None else int(stop), step)


def basic_key(g, shape):
    key = []
    for n in shape:
        r = g.random()
        if r < 0.15 and n:
            key.append(int(g.integers(-n, n)))
        elif r < 0.25:
            key.append(slice(None))
        else:
            key.append(_random_slice(g, n))
    if key and g.random() < 0.2:
        key.insert(int(g.integers(0, len(key) + 1)), None)
    if len(key) > 1 and g.random() < 0.2:
        i = int(g.integers(0, len(key)))
        key = key[:i] + [Ellipsis] + key[i + 1:] if key[i] is not None else key
    return tuple(key)


def index_stage(g, ctx, x):
    x = as_array(x, ctx)
    nd = x.r.ndim
    if nd == 0:
        raise Skip
    how = str(g.choice(["basic", "take", "mask", "take_along_axis"]))
    if how == "basic":
        key = basic_key(g, x.r.shape)
        p, r = call(lambda a: a[key], lambda a: a[key], x)
        return V(p, r, x.b[key], f"{x.text}[{key}]")
    if how == "take":
        axis = int(g.integers(-nd, nd))
        n = x.r.shape[axis]
        if n == 0:
            raise Skip
        idx = g.integers(-n, n, size=tuple(int(s) for s in g.integers(0, 4, size=int(g.integers(0, 3)))))
        p, r = call(lambda a: porta.take(a, ctx.put(idx), axis=axis), lambda a: np.take(a, idx, axis=axis), x)
        return V(p, r, np.take(x.b, idx, axis=axis), f"take({x.text}, {idx.shape} indices, axis={axis})")
    if how == "take_along_axis":
        axis = int(g.integers(-nd, nd))
        n = x.r.shape[axis]
        if n == 0:
            raise Skip
        shape = list(x.r.shape)
        shape[axis] = int(g.integers(1, 4))
        idx = g.integers(-n, n, size=tuple(shape))
        p, r = call(lambda a: porta.take_along_axis(a, ctx.put(idx), axis=axis),
                    lambda a: np.take_along_axis(a, idx, axis=axis), x)
        return V(p, r, np.take_along_axis(x.b, idx, axis=axis), f"take_along_axis({x.text}, axis={axis})")
    mask = g.random(x.r.shape) < 0.5
    p, r = call(lambda a: a[ctx.put(mask)], lambda a: a[mask], x)
    return V(p, r, x.b[mask], f"{x.text}[mask]")


def product_stage(g, ctx):
    """matmul or vecdot of two float or complex expressions."""
    name = str(g.choice(["float32", "float64", "complex64", "complex128", "float16"]))
    if not ctx.device.supports(name):
        raise Skip
    n, k, m = (int(v) for v in g.choice([1, 2, 3, 5, 17], size=3))
    batch = tuple(int(v) for v in g.choice([1, 2, 3], size=int(g.integers(0, 2 if "matmul 4-d" in KNOWN else 3))))
    a = elementwise(g, ctx, batch + (n, k), 1, kinds="fc" if name.startswith("c") else "f")
    bb = elementwise(g, ctx, (k, m), 1, kinds="fc" if name.startswith("c") else "f")
    a, bb = as_array(a, ctx), as_array(bb, ctx)
    if a.r.ndim < 2 or bb.r.ndim < 2 or a.dt.kind not in "fc" or bb.dt.kind not in "fc":
        raise Skip
    op = str(g.choice(["matmul", "vecdot"]))
    if op == "vecdot":
        if a.r.shape[-1] != bb.r.shape[-1]:
            bb = V(bb.p.mT, np.swapaxes(bb.r, -1, -2), np.swapaxes(bb.b, -1, -2), f"{bb.text}.mT")
            if a.r.shape[-1] != bb.r.shape[-1]:
                raise Skip
        try:
            np.broadcast_shapes(a.r.shape[:-1], bb.r.shape[:-1])
        except ValueError:
            raise Skip from None
        p, r = call(porta.vecdot, np.vecdot, a, bb)
        av, ab = _convert(a, r.dtype)
        bv, bbb = _convert(bb, r.dtype)
        mag = np.sum(np.abs(av) * np.abs(bv), axis=-1)
        prop = np.sum(np.abs(av) * bbb + ab * np.abs(bv) + ab * bbb, axis=-1)
    else:
        if a.r.shape[-1] != bb.r.shape[-2]:
            raise Skip
        p, r = call(porta.matmul, np.matmul, a, bb)
        av, ab = _convert(a, r.dtype)
        bv, bbb = _convert(bb, r.dtype)
        with np.errstate(all="ignore"):
            mag = np.abs(av) @ np.abs(bv)
            prop = np.abs(av) @ bbb + ab @ np.abs(bv) + ab @ bbb
        k = a.r.shape[-1]
    real = np.finfo(r.real.dtype if r.dtype.kind == "c" else r.dtype)
    kk = a.r.shape[-1]
    with np.errstate(all="ignore"):
        prop = prop + 2.0 * (kk + 2) * float(real.eps) * mag
    # (a sum whose terms' magnitudes pass the largest of the dtype it accumulates in (float16's in
    # float32) may overflow on the way, in an order of summation's own: unknown)
    top = float(np.finfo(np.float32).max if r.dtype == np.float16 else real.max)
    b = _finish(r, np.where(np.isfinite(mag) & (mag <= top), prop, np.inf), [], 2)
    return V(p, r, b, f"{op}({a.text}, {bb.text})")


def write_program(g, ctx):
    """Writes through views: base[key] = value (a basic key, integer indices or a bool mask), and
    every view of the base (taken before the write) sees it, while a lazy expression made before
    the write keeps the values from before it."""
    shape = tuple(int(d) for d in g.choice([1, 2, 3, 5, 7], size=int(g.integers(1, 4))))
    name = ctx.dtype(g, "biufc")
    base = leaf(g, ctx, shape, name)
    if not base.p.is_contiguous and g.random() < 0.5:
        pass  # (writes into a strided view reach the array it views)
    view = base.p[tuple(slice(None, None, -1) for _ in shape)]
    before = apply_unary("abs", base) if base.dt.kind in "iufc" else apply_unary("logical_not", base)
    how = str(g.choice(["basic", "take", "mask"]))
    r = base.r.copy()
    b = base.b.copy()
    if how == "basic":
        key = basic_key(g, shape)
        target = r[key].shape
    elif how == "take":
        idx = g.permutation(shape[0])[: int(g.integers(0, shape[0] + 1))]  # distinct: one value per element
        key = (idx,)
        target = r[key].shape
    else:
        mask = g.random(shape) < 0.5
        key = (mask,)
        target = r[key].shape
    value = elementwise(g, ctx, target[-1:] if g.random() < 0.5 and target else target, 1, kinds=_kind(name))
    if not isinstance(value.p, porta.ndarray):
        value = V(value.p, np.asarray(value.r), 0.0, value.text)
    if np.result_type(value.r, base.r) != base.r.dtype:
        raise Skip  # (NumPy casts any value unsafely in a write; this test writes values of the base's kind)
    pkey = tuple(ctx.put(k) if isinstance(k, np.ndarray) else k for k in key)
    r[key] = value.r
    vb = np.broadcast_to(value.b, np.shape(value.r))
    if base.dt.kind in "fc":
        vb = _convert(value, base.dt)[1] + _ulp(np.asarray(value.r).astype(base.dt))
    b[key] = vb
    base.p[pkey[0] if len(pkey) == 1 and isinstance(key[0], np.ndarray) else pkey] = value.p
    text = f"{base.text}[{how}] = {value.text}"
    rev = tuple(slice(None, None, -1) for _ in shape)
    return [V(base.p, r, b, text), V(view, r[rev], b[rev], f"view of ({text})"), before]


def set_stage(g, ctx, x):
    """unique_values / unique_counts / unique_inverse of an exactly known array (porta's order and
    NumPy's are both sorted)."""
    x = as_array(x, ctx)
    if x.dt.kind == "c" or (x.b > 0).any():
        raise Skip
    if "unique NaNs" in KNOWN and x.dt.kind == "f" and np.isnan(x.r).any():
        raise Skip
    name = str(g.choice(["unique_values", "unique_counts", "unique_inverse"]))
    p, r = call(getattr(porta, name), getattr(np, name), x)
    # (unique_values' order is unspecified, NumPy's since 2.3 a hash table's: compared sorted)
    parts = [porta.sort(p)] if name == "unique_values" else list(p)
    refs = [np.sort(r)] if name == "unique_values" else [np.asarray(t) for t in r]
    out = [V(pp, rr, 0.0, f"{name}({x.text})[{i}]") for i, (pp, rr) in enumerate(zip(parts, refs))]
    nan = np.isnan(x.r) if x.dt.kind == "f" else np.zeros(x.r.shape, bool)
    if name == "unique_inverse" and nan.sum() > 1:
        # A listed difference: which NaN value a NaN element's inverse names follows NumPy's
        # unstable sort there, the order of the elements in porta; each must name a NaN of its own.
        inv = _host(p[1])
        assert np.isnan(refs[0][inv[nan]]).all() and len(set(inv[nan].tolist())) == nan.sum(), \
            f"unique_inverse({x.text}): NaN elements' inverse {inv[nan]}"
        out[1] = V(p[1], refs[1], np.where(nan, np.inf, 0.0), out[1].text)
    return out


def diff_stage(g, ctx, x):
    """diff of order n along an axis: each order a subtraction of neighbours, bounds likewise."""
    x = as_array(x, ctx)
    if x.r.ndim == 0 or x.dt.kind == "b":
        raise Skip
    n = int(g.integers(1 if "diff prepend" in KNOWN else 0, 3))
    axis = int(g.integers(-x.r.ndim, x.r.ndim))
    p, r = call(lambda a: porta.diff(a, n=n, axis=axis), lambda a: np.diff(a, n=n, axis=axis), x)
    cur, b = x.r, x.b
    for _ in range(n):
        cur = _quiet(np.diff, cur, 1, axis)
        lo = np.take(b, range(0, b.shape[axis] - 1), axis=axis)
        hi = np.take(b, range(1, b.shape[axis]), axis=axis)
        b = lo + hi
        if cur.dtype.kind in "fc":
            b = _finish(cur, np.where(b == 0, 0.0, b), [], 1)
        else:
            b = np.where(b > 0, np.inf, 0.0)
    return V(p, r, b, f"diff({x.text}, n={n}, axis={axis})")


def split_stage(g, ctx, x):
    """split into sections or at indices: views, each compared."""
    x = as_array(x, ctx)
    if x.r.ndim == 0:
        raise Skip
    axis = int(g.integers(-x.r.ndim, x.r.ndim))
    n = x.r.shape[axis]
    if g.random() < 0.4:
        divisors = [d for d in (1, 2, 3, 5, 7) if n and n % d == 0]
        if not divisors:
            raise Skip
        k = int(g.choice(divisors))
    else:
        lo = 0 if "split negative indices" in KNOWN else -n - 1
        k = sorted(int(i) for i in g.integers(lo, n + 2, size=int(g.integers(1, 4))))
    p, _ = call(lambda a: porta.split(a, k, axis=axis), lambda a: np.split(a, k, axis=axis)[0], x)
    refs, bounds = np.split(x.r, k, axis=axis), np.split(x.b, k, axis=axis)
    if len(p) != len(refs):
        raise AssertionError(f"split({x.text}, {k}, axis={axis}): {len(p)} parts, NumPy's {len(refs)}")
    return [V(pp, rr, bb, f"split({x.text}, {k}, axis={axis})[{i}]")
            for i, (pp, rr, bb) in enumerate(zip(p, refs, bounds))]


def integer_product(g, ctx):
    """matmul of integer and bool arrays: exact (wrapping), as NumPy's."""
    n, k, m = (int(v) for v in g.choice([1, 2, 3, 5, 17], size=3))
    batch = tuple(int(v) for v in g.choice([1, 2, 3], size=int(g.integers(0, 2 if "matmul 4-d" in KNOWN else 3))))
    name = ctx.dtype(g, "biu")
    a, b = leaf(g, ctx, batch + (n, k), name), leaf(g, ctx, (k, m), ctx.dtype(g, "biu"))
    p, r = call(porta.matmul, np.matmul, a, b)
    if r.dtype.kind == "f":
        raise Skip  # (uint64 with int64: float64, rounded)
    return V(p, r, 0.0, f"matmul({a.text}, {b.text})")


def reduction_with_dtype(g, ctx, x):
    """sum and prod of integers with a dtype= (exact, wrapping in it)."""
    if "reduction dtype" in KNOWN:
        raise Skip
    x = as_array(x, ctx)
    if x.dt.kind not in "biu" or (x.b > 0).any():
        raise Skip
    name, dt = str(g.choice(["sum", "prod"])), ctx.dtype(g, "iu")
    axis = _axes(g, x.r.ndim)
    p, r = call(lambda a: getattr(porta, name)(a, axis=axis, dtype=dt), lambda a: getattr(np, name)(a, axis=axis, dtype=dt),
                x)
    return V(p, r, 0.0, f"{name}({x.text}, axis={axis}, dtype={dt})")


# --- Programs -------------------------------------------------------------------------------------

class Context:
    def __init__(self, device, g):
        self.device = device
        self.names = [n for n in DTYPES if device.supports(n)]
        self.used = set()

    def put(self, h):
        return porta.asarray(h, device=self.device)

    def dtype(self, g, kinds=None):
        names = [n for n in self.names if kinds is None or _kind(n) in kinds]
        if not names:
            raise Skip
        # A program keeps to a few dtypes (drawn once), as a user's code does; sometimes a new one.
        pool = [n for n in self.used if n in names]
        if pool and g.random() < 0.7:
            return str(g.choice(sorted(pool)))
        n = str(g.choice(names))
        self.used.add(n)
        return n


def program(g, ctx):
    """One random program; its results (Vs) to compare."""
    nd = int(g.choice([0, 1, 1, 2, 2, 3]))
    shape = tuple(int(d) for d in g.choice([0, 1, 2, 3, 5, 7, 9], size=nd, p=[.03, .17, .2, .2, .2, .1, .1]))
    kind = str(g.choice(["elementwise", "reduce", "scan", "sort", "shape", "index", "product", "write", "set",
                         "diff", "split", "integer product", "reduce dtype"],
                        p=[.22, .13, .08, .08, .1, .13, .06, .07, .03, .03, .03, .02, .02]))
    if kind == "write":
        return write_program(g, ctx)
    if kind == "integer product":
        return [integer_product(g, ctx)]
    if kind in ("set", "diff", "split", "reduce dtype"):
        x = elementwise(g, ctx, shape, int(g.integers(1, 3)))
        out = {"set": set_stage, "diff": diff_stage, "split": split_stage,
               "reduce dtype": reduction_with_dtype}[kind](g, ctx, x)
        return out if isinstance(out, list) else [out]
    if kind == "product":
        x = product_stage(g, ctx)
    else:
        x = elementwise(g, ctx, shape, int(g.integers(1, 4)))
        if kind != "elementwise":
            x = {"reduce": reduction, "scan": scan, "sort": sort_stage, "shape": shape_stage,
                 "index": index_stage}[kind](g, ctx, x)
    if g.random() < 0.3 and isinstance(x.p, porta.ndarray):  # more elementwise work on the stage's result
        y = elementwise(g, ctx, x.r.shape, 1)
        x = apply_binary(str(g.choice(list(BINARY))), x, y)
    if not isinstance(x.p, porta.ndarray):
        raise Skip  # (a Python number alone)
    return [x]


def _host(p):
    if not isinstance(p, porta.ndarray):
        return np.asarray(p)
    return p.get()


def compare(v, where):
    """porta's result against NumPy's within v's bound; an AssertionError saying where not."""
    got = _host(v.p)
    want = v.r
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, NumPy's {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, NumPy's {want.shape}"
    known = np.isfinite(v.b)
    if want.dtype.kind == "c":
        # Each part within the bound; where one part is an infinity or NaN, the rounding of the
        # other is not tracked (bounds are of whole complex numbers): only the special part counts.
        special = ~np.isfinite(want.real) | ~np.isfinite(want.imag)
        same = np.ones(want.shape, bool)
        for gp, wp in ((got.real, want.real), (got.imag, want.imag)):
            g64, w64 = gp.astype(F64), wp.astype(F64)
            gn, wn = np.isnan(g64), np.isnan(w64)
            with np.errstate(all="ignore"):
                near = np.abs(g64 - w64) <= v.b
            same &= (g64 == w64) | (gn & wn) | (~gn & ~wn & (near | (special & np.isfinite(w64))))
    elif want.dtype.kind == "f":
        g64, w64 = _f64(got), _f64(want)
        gn, wn = np.isnan(g64), np.isnan(w64)
        with np.errstate(all="ignore"):
            same = (g64 == w64) | (gn & wn) | (~gn & ~wn & (np.abs(g64 - w64) <= v.b))
    else:
        same = got == want
    bad = known & ~same
    if bad.any():
        idx = np.argwhere(bad)[:5]
        rows = [f"  at {tuple(int(i) for i in ix)}: porta {got[tuple(ix)]!r}, NumPy {want[tuple(ix)]!r}, "
                f"bound {v.b[tuple(ix)]:.3g}" for ix in idx]
        raise AssertionError(f"{where}: {int(bad.sum())} of {bad.size} elements differ beyond their bounds\n"
                             + "\n".join(rows))
    return int(known.sum())


def run_one(seed, device):
    """Program `seed` on `device`: compares its results; returns how many elements were compared,
    or None when the drawn program is outside the test (Skip) or NumPy refuses it as porta does."""
    g = np.random.default_rng(seed)
    ctx = Context(device, g)
    with device:
        try:
            values = program(g, ctx)
        except (Skip, Refused):
            return None
        except AssertionError as e:
            raise AssertionError(f"program {seed} on {device.spec}: {e}") from None
        where = lambda v: f"program {seed} on {device.spec}: {v.text}"  # noqa: E731
        total = 0
        for v in values:
            try:
                total += compare(v, where(v))
            except AssertionError:
                raise
            except Exception as e:
                raise AssertionError(f"{where(v)}: porta raised {type(e).__name__}: {e}") from e
        return total


@pytest.fixture(scope="module", autouse=True)
def _say_seed():
    sys.stderr.write(f"\ntest_differential: PORTA_DIFF_SEED={SEED} (set it to replay this run), "
                     f"{SECONDS:g} s\n")
    yield


@pytest.mark.parametrize("spec", DEVICE_SPECS)
def test_random_programs(spec):
    budget = SECONDS / max(len(DEVICE_SPECS), 1)
    master = np.random.default_rng([SEED, DEVICE_SPECS.index(spec)])
    start = time.monotonic()
    ran = compared = 0
    failures = []
    with porta.Device(spec) as device:
        if ONLY is not None:
            run_one(int(ONLY), device)
            return
        while time.monotonic() - start < budget:
            seed = int(master.integers(2 ** 62))
            try:
                n = run_one(seed, device)
            except AssertionError as e:
                failure = f"{e}\n(replay: PORTA_DIFF_SEED={SEED}, or this program alone: " \
                          f"PORTA_DIFF_SEED={SEED} PORTA_DIFF_PROGRAM={seed})"
                if not KEEP_GOING:
                    raise AssertionError(failure) from None
                failures.append(failure)
                continue
            if n is not None:
                ran += 1
                compared += n
    sys.stderr.write(f"test_differential {spec}: {ran} programs, {compared} elements compared\n")
    assert not failures, f"{len(failures)} programs failed:\n" + "\n\n".join(failures[:20])
    assert ran > 0, f"no program ran in {budget:.0f} s on {spec}"
