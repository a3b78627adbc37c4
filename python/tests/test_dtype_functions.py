"""finfo, iinfo, can_cast, result_type and isdtype against NumPy for porta's host dtypes, and
against porta's own operations on every device (the dtype x + y has, what x += y accepts, what
astype keeps) for all of them, bfloat16 included."""
import itertools
import math

import numpy as np
import pytest

import porta
from arrayapi_util import DTYPES, assert_errors, need, rand

ALL = DTYPES + ["bfloat16"]
SHAPES = [(0,), (1,), (3, 4)]
KINDS = ["bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric"]
CASTINGS = ["no", "equiv", "safe", "same_kind", "unsafe"]


def make(rng, shape, dtype, strided=False):
    """A porta array of fresh random values (bfloat16 rounded from float32); strided: a view of
    every other row, every third column (transposed too), not contiguous."""
    if strided:
        base = make(rng, (2 * shape[0], 3 * shape[1]), dtype)
        v = base[::2, 1::3].T
        assert v.size <= 1 or not v.is_contiguous
        return v
    host = rand(rng, shape, "float32" if dtype == "bfloat16" else dtype)
    return porta.asarray(host, dtype=dtype)


def forms(x):
    """Ways to name an array's dtype: the array, its dtype object, its name."""
    return [x, x.dtype, x._dtype_name]


@pytest.mark.parametrize("shape", SHAPES + ["strided"], ids=str)
@pytest.mark.parametrize("b", ALL)
@pytest.mark.parametrize("a", ALL)
def test_result_type_is_the_dtype_of_porta_operations(device, rng, a, b, shape):
    need(device, a, b)
    s = (2, 3) if shape == "strided" else shape
    x, y = make(rng, s, a, shape == "strided"), make(rng, s, b, shape == "strided")
    for op in (porta.add, porta.multiply, porta.maximum):
        want = op(x, y).dtype
        for fx, fy in itertools.product(forms(x), forms(y)):
            assert porta.result_type(fx, fy) == want, (fx, fy, want)
    if "bfloat16" not in (a, b):
        assert porta.result_type(x, y) == np.result_type(np.dtype(a), np.dtype(b))
    assert porta.result_type(x) == x.dtype


@pytest.mark.parametrize("dtypes", [("int32", "float16", "bool"), ("bfloat16", "int32", "int64"),
                                    ("float16", "bfloat16", "float64"), ("bool", "bool", "int32"),
                                    ("bfloat16", "float16", "bool")], ids=str)
def test_result_type_of_several_arrays(device, rng, dtypes):
    arrays = [make(rng, (3,), d) for d in dtypes]
    want = porta.add(porta.add(arrays[0], arrays[1]), arrays[2]).dtype
    assert porta.result_type(*arrays) == want
    assert porta.result_type(*[a.dtype for a in arrays]) == want
    if "bfloat16" not in dtypes:
        assert want == np.result_type(*dtypes)


@pytest.mark.parametrize("dtype", ALL)
def test_result_type_weak_python_scalars(device, rng, dtype):
    need(device, dtype)
    x = make(rng, (4,), dtype)
    scalars = [bool(rng.random() < 0.5), int(rng.integers(1, 100)), float(rng.standard_normal())]
    for s in scalars:
        got = porta.result_type(x, s)
        assert got == porta.add(x, s).dtype, (dtype, s)
        assert porta.result_type(s, x.dtype) == got
        if dtype != "bfloat16":
            assert got == np.result_type(np.dtype(dtype), s)
    for combo in itertools.combinations(scalars, 2):
        got = porta.result_type(x, *combo)
        assert got == porta.add(porta.add(x, combo[0]), combo[1]).dtype, (dtype, combo)
        if dtype != "bfloat16":
            assert got == np.result_type(np.dtype(dtype), *combo)
    for combo in [(s,) for s in scalars] + list(itertools.combinations(scalars, 2)):
        assert porta.result_type(*combo) == np.result_type(*combo), combo  # scalars alone: default dtypes


@pytest.mark.parametrize("casting", CASTINGS)
@pytest.mark.parametrize("to", ALL)
@pytest.mark.parametrize("from_", ALL)
def test_can_cast(device, rng, from_, to, casting):
    need(device, from_, to)
    x, y = make(rng, (3,), from_), make(rng, (3,), to)
    got = porta.can_cast(x, to, casting)
    for f, t in itertools.product(forms(x), forms(y)):
        assert porta.can_cast(f, t, casting=casting) == got, (f, t)
    if "bfloat16" not in (from_, to):
        assert got == np.can_cast(np.dtype(from_), np.dtype(to), casting)
    # porta's own rules: 'safe' where promoting the two gives `to`; 'same_kind' where y += x is accepted
    # (in place casts back with the same_kind rule); 'no' and 'equiv' the same dtype.
    if casting == "safe":
        assert got == (porta.add(x, y).dtype == y.dtype)
    elif casting == "same_kind":
        try:
            y += x
            accepted = True
        except porta.DTypeError:
            accepted = False
        assert got == accepted
    elif casting in ("no", "equiv"):
        assert got == (x.dtype == y.dtype)
    else:
        assert got and x.astype(to).dtype == y.dtype


FLOATS_ALL = ["float16", "bfloat16", "float32", "float64"]


@pytest.mark.parametrize("to", FLOATS_ALL)
@pytest.mark.parametrize("from_", FLOATS_ALL)
def test_safe_float_casts_keep_every_value(device, from_, to):
    """A safe cast between floating dtypes keeps the largest, the smallest normal and 1 + eps of
    the source; an unsafe one loses one of them (on the device, bfloat16 included)."""
    need(device, from_, to)
    fi = porta.finfo(from_)
    values = [float(fi.max), float(fi.min), float(fi.smallest_normal), 1.0 + float(fi.eps)]
    x = porta.asarray(np.array(values), dtype=from_)
    assert x.astype("float64").get().tolist() == values
    kept = x.astype(to).astype(from_).astype("float64").get().tolist() == values
    assert porta.can_cast(from_, to) == kept


def _bfloat16_from_bits(bits):
    """The float a bfloat16 bit pattern stands for: bfloat16 is float32's upper 16 bits."""
    return float(np.array([bits << 16], dtype=np.uint32).view(np.float32)[0])


FINFO_FIELDS = ["bits", "eps", "epsneg", "max", "min", "smallest_normal", "tiny", "smallest_subnormal", "resolution",
                "precision", "nmant", "nexp", "iexp", "maxexp", "minexp", "machep", "negep"]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_finfo_is_numpys(device, rng, dtype):
    need(device, dtype)
    want = np.finfo(dtype)
    for shape in SHAPES:
        x = make(rng, shape, dtype)
        for form in forms(x) + [getattr(porta, dtype)]:
            got = porta.finfo(form)
            assert got.dtype == want.dtype == x.dtype
            for f in FINFO_FIELDS:
                assert getattr(got, f) == getattr(want, f), (form, f)
    assert porta.finfo(make(rng, (2, 3), dtype, strided=True)).eps == want.eps


def test_finfo_of_bfloat16(device, rng):
    x = make(rng, (5,), "bfloat16")
    for form in (x, x.dtype, porta.bfloat16, "bfloat16", make(rng, (0,), "bfloat16"), make(rng, (2, 2), "bfloat16",
                                                                                            strided=True)):
        fi = porta.finfo(form)
        assert fi.dtype is porta.bfloat16 is x.dtype
        assert fi.bits == 8 * x.itemsize == 16
        assert fi.max == _bfloat16_from_bits(0x7F7F) == -fi.min
        assert fi.eps == _bfloat16_from_bits(0x3F81) - 1.0
        assert fi.epsneg == 1.0 - _bfloat16_from_bits(0x3F7F)
        assert fi.smallest_normal == fi.tiny == _bfloat16_from_bits(0x0080)
        assert fi.smallest_subnormal == _bfloat16_from_bits(0x0001)
        assert (fi.nmant, fi.nexp) == (7, 8)  # float32's exponent, 7 of its mantissa bits
        assert 2.0 ** fi.machep == fi.eps and 2.0 ** fi.negep == fi.epsneg
        assert 2.0 ** fi.minexp == fi.smallest_normal and 2.0 ** (fi.maxexp - 1) * (2 - fi.eps) == fi.max
        assert fi.precision == int(-math.log10(fi.eps)) and fi.resolution == 10.0 ** -fi.precision
        assert {f for f in FINFO_FIELDS if hasattr(np.finfo(np.float16), f)} <= set(dir(fi))
    fi = porta.finfo("bfloat16")
    # On the device: max, smallest_normal and 1 + eps are bfloat16 values, 1 + eps / 2 rounds to 1, 2 * max overflows.
    v = porta.asarray(np.array([fi.max, fi.smallest_normal, 1.0 + fi.eps, 1.0 + fi.eps / 2]), dtype="bfloat16")
    np.testing.assert_array_equal(v.astype("float64").get(), [fi.max, fi.smallest_normal, 1.0 + fi.eps, 1.0])
    assert np.isinf(porta.multiply(v[:1], 2).astype("float64").get()[0])
    assert "bfloat16" in repr(fi)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_iinfo_is_numpys(device, rng, dtype):
    want = np.iinfo(dtype)
    for shape in SHAPES:
        x = make(rng, shape, dtype)
        for form in forms(x) + [getattr(porta, dtype)]:
            got = porta.iinfo(form)
            assert (got.min, got.max, got.bits, got.dtype) == (want.min, want.max, want.bits, want.dtype)
            assert got.dtype == x.dtype
    ext = porta.asarray(np.array([want.min, want.max], dtype=dtype))
    assert ext.get().tolist() == [porta.iinfo(dtype).min, porta.iinfo(dtype).max]
    assert porta.iinfo(make(rng, (2, 3), dtype, strided=True)).max == want.max


@pytest.mark.parametrize("dtype", ALL)
def test_isdtype(device, rng, dtype):
    need(device, dtype)
    x = make(rng, (3,), dtype)
    forms_ = [x.dtype] + ([] if dtype == "bfloat16" else [getattr(porta, dtype if dtype != "bool" else "bool_")])
    # NumPy has no bfloat16: it answers as for float32, the floating dtype bfloat16 shares its exponent with.
    ref = np.dtype("float32" if dtype == "bfloat16" else dtype)
    for form in forms_:
        for kind in KINDS:
            assert porta.isdtype(form, kind) == np.isdtype(ref, kind), (form, kind)
        for kinds in itertools.combinations(KINDS, 2):
            assert porta.isdtype(form, kinds) == np.isdtype(ref, kinds), (form, kinds)
        for other in ALL:
            y = make(rng, (2,), other)
            assert porta.isdtype(form, y.dtype) == (other == dtype)
            assert porta.isdtype(form, ("unsigned integer", y.dtype)) == (other == dtype)
    # porta treats bfloat16 as floating as NumPy does float32: math keeps its dtype, as for floats alone.
    assert porta.isdtype(x.dtype, "real floating") == (porta.sqrt(x).dtype == x.dtype)
    assert porta.isdtype(porta.sum(x).dtype, "numeric")


def test_bad_dtype_arguments(device, rng):
    x = make(rng, (3,), "float32")
    i = make(rng, (3,), "int32")
    cases = [
        (lambda: porta.result_type(), porta.InvalidArgument, "at least one", lambda: np.result_type()),
        (lambda: porta.result_type(x, "datetime64"), porta.DTypeError, "datetime64", None),
        (lambda: porta.result_type("foo", x), porta.DTypeError, "foo", lambda: np.result_type("foo")),
        (lambda: porta.result_type(x, None), porta.DTypeError, "None", None),
        (lambda: porta.can_cast(1, "int32"), porta.DTypeError, "1", lambda: np.can_cast(1, "int32")),
        (lambda: porta.can_cast(x, "int32", "sometimes"), porta.InvalidArgument, "sometimes",
         lambda: np.can_cast("float32", "int32", "sometimes")),
        (lambda: porta.can_cast(x, "datetime64"), porta.DTypeError, "datetime64", None),
        (lambda: porta.finfo(i), porta.InvalidArgument, "int32", lambda: np.finfo(np.int32)),
        (lambda: porta.finfo("bool"), porta.InvalidArgument, "bool", None),
        (lambda: porta.finfo("float80"), porta.DTypeError, "float80", None),
        (lambda: porta.iinfo(x), porta.InvalidArgument, "float32", lambda: np.iinfo(np.float32)),
        (lambda: porta.iinfo("bfloat16"), porta.InvalidArgument, "bfloat16", None),
        (lambda: porta.iinfo(porta.bool_), porta.InvalidArgument, "bool", lambda: np.iinfo(np.bool_)),
        (lambda: porta.isdtype("float32", "numeric"), porta.DTypeError, "'float32'",
         lambda: np.isdtype("float32", "numeric")),
        (lambda: porta.isdtype(x, "numeric"), porta.DTypeError, "array", lambda: np.isdtype(x.get(), "numeric")),
        (lambda: porta.isdtype(x.dtype, "floating"), porta.InvalidArgument, "'floating'",
         lambda: np.isdtype(np.float32, "floating")),
        (lambda: porta.isdtype(x.dtype, ("numeric", 3)), porta.DTypeError, "3", lambda: np.isdtype(np.float32, 3)),
        (lambda: porta.isdtype(np.dtype("datetime64"), "numeric"), porta.DTypeError, "datetime64", None),
    ]
    assert_errors([(call, error, text.replace("(", r"\("), numpy_call) for call, error, text, numpy_call in cases])


def test_array_namespace_is_porta(device, rng):
    x = make(rng, (3,), "float32")
    assert x.__array_namespace__() is porta
    assert x.__array_namespace__(api_version="2024.12") is porta
    assert porta.__array_api_version__ == "2024.12"
    with pytest.raises(porta.InvalidArgument, match="'2099.12'"):
        x.__array_namespace__(api_version="2099.12")
    # The functions a namespace-generic program reaches give what porta's own names give.
    xp = x.__array_namespace__()
    np.testing.assert_array_equal(xp.cumulative_sum(x).get(), np.cumsum(x.get()))
