"""porta's 15 dtypes against NumPy 2 (issue 37), on every device: the promotion table for every pair
(bfloat16 against ml_dtypes' where it is installed), Python scalars weakly typed and NumPy scalars
strongly typed, every spelling of a dtype, host round trips with each dtype's edge values, DLPack
both ways, the CUDA Array Interface's typestr, iinfo/finfo, complex parts and the complex-to-real
cast's warning.

What runs where: a device that lacks a dtype (Device.supports; porta-info says why) skips the cases
that need it. Promotion and the errors build lazy expressions only (a result's dtype is known before
it is evaluated), and host round trips and DLPack copy contiguous memory: those need no kernel of the
dtype. Checks of computed values (marked "computed" below) need the device's kernels for the dtype.

Sampling, for CI's time: the promotion table is whole (225 pairs, each a lazy expression); Python
scalars: every dtype with a fixed list of edge numbers; NumPy scalars: every dtype pair with one
value; computed values: one small array per dtype with its edges."""
import itertools
import math
import warnings

import numpy as np
import pytest
from numpy.exceptions import ComplexWarning

import porta

BOOL = ["bool"]
SIGNED = ["int8", "int16", "int32", "int64"]
UNSIGNED = ["uint8", "uint16", "uint32", "uint64"]
INTS = SIGNED + UNSIGNED
FLOATS = ["float16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
HOST = BOOL + INTS + FLOATS + COMPLEX  # NumPy has these
ALL = BOOL + INTS + ["float16", "bfloat16", "float32", "float64"] + COMPLEX

FINFO_FIELDS = ["bits", "eps", "epsneg", "max", "min", "smallest_normal", "tiny", "smallest_subnormal", "resolution",
                "precision", "nmant", "nexp", "iexp", "maxexp", "minexp", "machep", "negep"]


def need(device, *dtypes):
    for dtype in dtypes:
        if not device.supports(dtype):
            pytest.skip(f"{device.spec} has no {dtype} (porta-info lists what each device lacks and why)")


def supports(device, *dtypes):
    return all(device.supports(d) for d in dtypes)


def ml_dtypes_or_skip():
    # porta's bfloat16 row is ml_dtypes 0.7's; older releases lack pairs (the GPU host's refused
    # bfloat16 with int16 on 2026-12-06), so they cannot be the reference.
    return pytest.importorskip("ml_dtypes", minversion="0.7",
                               reason="ml_dtypes 0.7 or later is not installed: NumPy has no bfloat16 of its own, "
                                      "so bfloat16 is checked against ml_dtypes' only")


def edges(rng, dtype, n_random=5):
    """The dtype's edge values and a few random ones, as a NumPy array of that dtype: min, max, 0, -1
    (wrapped for unsigned), 2**63 for uint64; for floats also -0.0, NaN, +-inf, the smallest
    normal and subnormal; for complex each of those in either part."""
    dt = np.dtype(dtype)
    if dtype == "bool":
        return np.concatenate([[False, True], rng.random(n_random) < 0.5])
    if dt.kind in "iu":
        info = np.iinfo(dt)
        vals = [info.min, info.max, 0, 1, info.max // 2 + 1]
        if dt.kind == "i":
            vals += [-1, info.min + 1]
        rnd = rng.integers(info.min, info.max, size=n_random, dtype=dt, endpoint=True)
        return np.concatenate([np.array(vals, dtype=dt), rnd])
    real = np.dtype(dtype.replace("complex", "float")) if dt.kind != "c" else np.dtype(f"float{dt.itemsize * 4}")
    fi = np.finfo(real)
    parts = np.array([0.0, -0.0, 1.5, -2.25, np.nan, np.inf, -np.inf, fi.max, fi.min, fi.smallest_normal,
                      fi.smallest_subnormal], dtype=real)
    rnd = (rng.standard_normal(n_random) * 100).astype(real)
    if dt.kind == "f":
        return np.concatenate([parts, rnd])
    pairs = np.array([complex(a, b) for a, b in itertools.product(parts[:7], parts[[0, 1, 2, 4, 5, 6, 7]])], dtype=dt)
    rnd_c = (rnd + 1j * (rng.standard_normal(n_random) * 100)).astype(dt)
    return np.concatenate([pairs, rnd_c])


def same_bits(got, want):
    """Exactly the same elements: dtype, shape and bytes (NaN payloads, -0.0 and all), as a copy
    of memory gives them."""
    got, want = np.asarray(got), np.ascontiguousarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.ascontiguousarray(got).tobytes() == want.tobytes(), (got, want)


def same_values(got, want):
    """Equal elements of the same dtype and shape, -0.0 told from 0.0 (in each part of a complex),
    NaN equal to NaN whatever its sign bit (C's negation and NumPy's may differ there)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)
    parts = (np.real, np.imag) if want.dtype.kind == "c" else (np.asarray,)
    for part in parts:
        g, w = part(got), part(want)
        if w.dtype.kind == "f":
            keep = ~np.isnan(w)
            np.testing.assert_array_equal(np.signbit(g[keep]), np.signbit(w[keep]))


def numpy_outcome(fn):
    """NumPy's result dtype of fn(), or the exception type it raises (its overflow warnings ignored)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(fn()).dtype
    except (OverflowError, TypeError) as e:
        return type(e)


def porta_outcome(fn):
    try:
        return fn().dtype
    except (OverflowError, TypeError) as e:
        return OverflowError if isinstance(e, OverflowError) else TypeError


# Promotion.

@pytest.mark.parametrize("a", HOST)
def test_promotion_table_is_numpys(device, a):
    """Every pair of porta's dtypes promotes as numpy.promote_types (bfloat16's in the next test): in
    result_type, by every spelling, and as the dtype of porta's own operations on the device."""
    for b in HOST:
        want = np.promote_types(a, b)
        assert porta.result_type(a, b) == want, (a, b)
        assert porta.result_type(np.dtype(a), np.dtype(b).type) == want, (a, b)
        if supports(device, a, b, want.name):
            x, y = porta.zeros(3, dtype=a), porta.zeros((2, 1), dtype=b)
            for op in (porta.add, porta.maximum):
                assert op(x, y).dtype == want, (op.__name__, a, b)
            assert porta.where(porta.zeros(3, dtype="bool"), x, y).dtype == want, (a, b)
            assert porta.result_type(x, y) == want


def test_bfloat16_promotion_is_ml_dtypes(device):
    ml = ml_dtypes_or_skip()
    bf = np.dtype(ml.bfloat16)
    for b in ALL:
        want = np.promote_types(bf, bf if b == "bfloat16" else b)
        want_name = "bfloat16" if want == bf else want.name
        got = porta.result_type(porta.bfloat16, b)
        assert (got is porta.bfloat16) if want_name == "bfloat16" else got == want, (b, got, want)
        if supports(device, "bfloat16", b, want_name):
            x, y = porta.zeros(3, dtype="bfloat16"), porta.zeros(3, dtype=b)
            assert porta.add(x, y).dtype == got and porta.add(y, x).dtype == got, b


def test_can_cast_and_isdtype_are_numpys(device):
    """can_cast for every pair and casting rule, isdtype for every dtype and kind (pure functions of
    the dtypes; run per device as every test is)."""
    for f, t in itertools.product(HOST, HOST):
        for casting in ("no", "equiv", "safe", "same_kind", "unsafe"):
            assert porta.can_cast(f, t, casting) == np.can_cast(f, t, casting), (f, t, casting)
    kinds = ["bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric"]
    for d in HOST:
        for kind in kinds:
            assert porta.isdtype(np.dtype(d), kind) == np.isdtype(np.dtype(d), kind), (d, kind)
    assert porta.isdtype(porta.bfloat16, "real floating") and not porta.isdtype(porta.bfloat16, "complex floating")


# Python scalars: weak (NEP 50).

PY_SCALARS = [False, True, 0, 1, -1, 127, 128, 255, 256, -129, 300, 2 ** 31, 2 ** 32, 2 ** 63 - 1, 2 ** 63,
              2 ** 64 - 1, -2 ** 63, 2 ** 70, 1.5, -0.0, math.nan, math.inf, 1j, complex(1.5, -2.0)]


@pytest.mark.parametrize("dtype", ALL)
def test_python_scalars_are_weak(device, dtype):
    """An array with a Python number has NumPy 2's dtype (uint8 + 1 stays uint8, float32 + 1j is
    complex64) or raises its OverflowError (uint8 + 300): porta.NumberOutOfRange, an OverflowError."""
    need(device, dtype)
    ref_dtype = dtype
    if dtype == "bfloat16":
        ref_dtype = np.dtype(ml_dtypes_or_skip().bfloat16)
    x, ref = porta.zeros(3, dtype=dtype), np.zeros(3, dtype=ref_dtype)
    for s in PY_SCALARS:
        want = numpy_outcome(lambda: ref + s)
        want = "bfloat16" if getattr(want, "name", None) == "bfloat16" else want
        if dtype == "bfloat16" and want is TypeError and isinstance(s, int):
            # Some ml_dtypes releases (seen with the GPU host's) refuse a Python int beyond int64
            # with bfloat16, others give bfloat16 as NumPy does for float16: porta gives bfloat16.
            want = "bfloat16"
        if isinstance(want, np.dtype) and not device.supports(want.name):
            continue
        for fn in (lambda: x + s, lambda: s + x, lambda: porta.add(x, s), lambda: porta.multiply(s, x)):
            got = porta_outcome(fn)
            got = "bfloat16" if got is porta.bfloat16 else got
            assert got == want, (dtype, s, got, want)
        if want is OverflowError:
            with pytest.raises(porta.NumberOutOfRange, match="does not fit"):
                x + s
        else:
            assert porta.result_type(x, s) == (porta.bfloat16 if want == "bfloat16" else want), (dtype, s)
        # Comparisons take any number: NumPy 2 compares exactly (uint8 < 300 is True).
        if not isinstance(s, complex):
            assert (x < s).dtype == np.bool_ and (x == s).dtype == np.bool_


@pytest.mark.parametrize("dtype", INTS)
def test_python_ints_computed_as_numpy(device, rng, dtype):
    """(computed) Values of integer arrays with Python ints: wrap-around at the dtype's edges, and
    comparisons with numbers outside the dtype, as NumPy's."""
    need(device, dtype)
    h = edges(rng, dtype)
    x = porta.asarray(h)
    info = np.iinfo(dtype)
    with np.errstate(all="ignore"):
        for s in (1, -1 if info.min < 0 else 1, info.max, info.min):
            np.testing.assert_array_equal((x + s).get(), h + s)
            np.testing.assert_array_equal((s - x).get(), s - h)
    for s in (info.max + 1, info.min - 1, 2 ** 64, -2 ** 70):
        for op in ("__lt__", "__le__", "__eq__", "__ne__", "__gt__", "__ge__"):
            np.testing.assert_array_equal(getattr(x, op)(s).get(), getattr(h, op)(s), err_msg=f"{op} {s}")


def test_big_python_ints_beside_floats(device):
    """(computed) A Python int beyond 64 bits is a float beside float arrays (NumPy's rule), an
    OverflowError beside integer arrays."""
    need(device, "float64")
    h = np.array([1.0, -2.0, 3.5])
    np.testing.assert_array_equal((porta.asarray(h) + 2 ** 70).get(), h + 2 ** 70)
    with pytest.raises(OverflowError):
        porta.zeros(3, dtype="int64") + 2 ** 64
    with pytest.raises(OverflowError):
        np.zeros(3, dtype="int64") + 2 ** 64


# NumPy scalars: strong.

@pytest.mark.parametrize("a", HOST)
def test_numpy_scalars_are_strong(device, a):
    """A NumPy scalar takes part in promotion with its dtype, as NumPy 2's: np.int64(1) with a uint64
    array is float64, np.float64 with a float32 array float64."""
    need(device, a)
    x, ref = porta.zeros(3, dtype=a), np.zeros(3, dtype=a)
    for b in HOST:
        s = np.dtype(b).type(1)
        want = np.result_type(ref, s)
        if not device.supports(want.name):
            continue
        results = [x + s, s + x, porta.add(x, s), porta.multiply(s, x), porta.where(x == 0, x, s),
                   porta.where(x == 0, s, x)]
        if "complex" not in want.name:  # (ordering complex numbers is another matter)
            results += [porta.maximum(s, x)]
            assert (x < s).dtype == np.bool_
        if want.kind in "biuf":
            results += [porta.clip(x, s, s)]
        for got in results:
            assert got.dtype == want, (a, b, got.dtype, want)
        assert (x == s).dtype == np.bool_
    if a == "uint64":
        assert (x + np.int64(1)).dtype == np.float64


def test_numpy_scalars_computed_as_numpy(device, rng):
    """(computed) uint64 with np.int64 is float64 in value too; float32 with np.float64 computes in
    float64."""
    need(device, "uint64", "float64")
    h = np.array([0, 1, 2 ** 63, 2 ** 64 - 1], dtype=np.uint64)
    np.testing.assert_array_equal((porta.asarray(h) + np.int64(1)).get(), h + np.int64(1))
    f = rng.standard_normal(7).astype(np.float32)
    np.testing.assert_array_equal((porta.asarray(f) * np.float64(0.1)).get(), f * np.float64(0.1))


# Spellings.

def spellings(dtype):
    """Every way to name the dtype that NumPy accepts (and porta's own objects)."""
    if dtype == "bfloat16":
        out = ["bfloat16", "bf16", porta.bfloat16]
        try:
            import ml_dtypes  # optional: NumPy's bfloat16 dtype where installed
            out += [ml_dtypes.bfloat16, np.dtype(ml_dtypes.bfloat16)]
        except ImportError:
            pass
        return out
    dt = np.dtype(dtype)
    out = [dtype, dt, dt.type, dt.str, dt.char, getattr(porta, dtype if dtype != "bool" else "bool_")]
    out += {"bool": [bool], "int64": [int], "float64": [float], "complex128": [complex]}.get(dtype, [])
    # C++'s short names where NumPy reads them the same or not at all ('i8' and 'u8' are NumPy's
    # int64 and uint64 in Python; 'f16' is float16, NumPy's float128 being no porta dtype).
    short = {"int16": "i16", "int32": "i32", "int64": "i64", "uint16": "u16", "uint32": "u32", "uint64": "u64",
             "float16": "f16", "float32": "f32", "float64": "f64", "complex64": "c64", "complex128": "c128"}
    return out + ([short[dtype]] if dtype in short else [])


@pytest.mark.parametrize("dtype", ALL)
def test_every_spelling_of_a_dtype(device, dtype):
    need(device, dtype)
    want = porta.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    for s in spellings(dtype):
        assert device.supports(s), s
        for make in (lambda: porta.zeros(3, dtype=s), lambda: porta.ones((2, 2), dtype=s),
                     lambda: porta.empty(0, dtype=s), lambda: porta.zeros(2, dtype="bool").astype(s),
                     lambda: porta.asarray([0, 1], dtype=s), lambda: porta.full(2, 1, dtype=s)):
            got = make().dtype
            assert got is want if dtype == "bfloat16" else got == want, (s, got)
        got = porta.result_type(s)
        assert got is want if dtype == "bfloat16" else got == want, s
    if dtype != "bfloat16":
        assert getattr(porta, dtype if dtype != "bool" else "bool_") is np.dtype(dtype).type


# Host round trips.

LAYOUTS = ["empty", "one", "odd", "2d", "strided", "transposed", "big-endian"]


def host_input(rng, dtype, layout):
    h = edges(rng, dtype)
    if layout == "empty":
        return h[:0]
    if layout == "one":
        return h[-1:]
    if layout == "odd":
        return h
    big = np.concatenate([h] * 3)[: 3 * 7]
    if layout == "2d":
        return big.reshape(3, 7)
    if layout == "strided":
        return big[::-2]
    if layout == "transposed":
        return big.reshape(3, 7).T
    return h.astype(h.dtype.newbyteorder(">"))  # big-endian: porta keeps the values, not the bytes


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", HOST)
def test_host_round_trip_keeps_dtype_and_bits(device, rng, dtype, layout):
    """NumPy -> porta -> NumPy gives back NumPy's dtype and every bit: uint8 stays uint8 (not int32),
    uint64 above 2**63 is not negative, complex NaN/inf/-0.0 parts survive."""
    need(device, dtype)
    h = host_input(rng, dtype, layout)
    want = h.astype(h.dtype.newbyteorder("=")) if layout == "big-endian" else h
    x = porta.asarray(h)
    assert x.dtype == np.dtype(dtype) and x.shape == h.shape and x.itemsize == np.dtype(dtype).itemsize
    assert x.nbytes == want.nbytes
    same_bits(x.get(), want)
    same_bits(np.asarray(x), want)
    same_bits(porta.asnumpy(x), want)
    same_bits(porta.array(h, device=device).get(), want)
    if h.dtype.kind != "f" and h.dtype.kind != "c":
        assert x.tolist() == want.tolist()
    if h.size == 1:
        item = x.item()
        assert type(item) is type(want.item()) and (item == want.item() or item != item)
    for other in porta.devices():
        if other.supports(dtype):
            same_bits(x.to(other).get(), want)


@pytest.mark.parametrize("dtype", HOST)
def test_views_and_copies_keep_bits(device, rng, dtype):
    """(computed) Non-contiguous views of the device's array, copied back and copied on the device."""
    need(device, dtype)
    h = edges(rng, dtype)
    x = porta.asarray(h)
    # (Kernels copy float16 through float32: a NaN stays NaN, its payload may not.)
    same_values(x[::-2].get(), h[::-2])
    same_values(x[1::3].copy().get(), h[1::3])
    same_values(x.reshape(-1, 1)[1:].T.copy().get(), np.ascontiguousarray(h.reshape(-1, 1)[1:].T))


def test_uint64_above_int64(device):
    """uint64 values above 2**63 survive every way in and out, and Python ints up to 2**64 - 1 meet
    uint64 arrays as numbers (not as an error or a float)."""
    need(device, "uint64")
    h = np.array([2 ** 63, 2 ** 64 - 1, 0, 2 ** 63 - 1], dtype=np.uint64)
    x = porta.asarray(h)
    assert x.tolist() == [2 ** 63, 2 ** 64 - 1, 0, 2 ** 63 - 1]
    assert porta.asarray([2 ** 64 - 1]).dtype == np.uint64  # NumPy's dtype for such a list
    assert (x + (2 ** 64 - 1)).dtype == np.uint64 and (x == 2 ** 64 - 1).dtype == np.bool_
    assert porta.full(2, 2 ** 64 - 1).dtype == np.uint64
    assert porta.iinfo(x).max == 2 ** 64 - 1
    with pytest.raises(OverflowError):
        x + (-1)
    with pytest.raises(OverflowError):
        porta.full(2, 2 ** 64, dtype="uint64")
    with pytest.raises(OverflowError):
        porta.full(2, -1, dtype="uint64")


def test_fill_and_full_computed(device, rng):
    """(computed) full and fill write integers exactly at every width, complex numbers with both parts."""
    for dtype in INTS + COMPLEX:
        if not device.supports(dtype):
            continue
        h = edges(rng, dtype)
        for v in h[:4]:  # ints: min, max, 0, 1; complex: 0 with imaginary parts 0, -0.0, 1.5 and NaN
            v = v.item()
            same_values(porta.full(3, v, dtype=dtype).get(), np.full(3, v, dtype=dtype))
            x = porta.zeros(5, dtype=dtype)
            x.fill(v)
            same_values(x.get(), np.full(5, v, dtype=dtype))
            x[1:3] = v
            same_values(x.get(), np.full(5, v, dtype=dtype))


@pytest.mark.parametrize("dtype", INTS)
def test_integers_the_dtype_cannot_hold_are_overflow_errors(device, dtype):
    """As NumPy 2's OverflowError: an array with such a Python int, full, fill and a[...] = v."""
    need(device, dtype)
    info = np.iinfo(dtype)
    x = porta.zeros(4, dtype=dtype)
    for v in (info.max + 1, info.min - 1):
        for call in (lambda: x + v, lambda: porta.subtract(v, x), lambda: porta.full(2, v, dtype=dtype),
                     lambda: x.fill(v), lambda: x.__setitem__(slice(None), v)):
            with pytest.raises(OverflowError, match=str(v)) as e:
                call()
            assert isinstance(e.value, porta.NumberOutOfRange) and isinstance(e.value, porta.InvalidArgument)
        for call in (lambda: np.zeros(4, dtype) + v, lambda: np.full(2, v, dtype=dtype)):
            with pytest.raises(OverflowError):
                call()


# DLPack and the CUDA Array Interface.

@pytest.mark.parametrize("dtype", HOST)
def test_dlpack_round_trips_with_numpy(device, rng, dtype):
    """porta -> NumPy (np.from_dlpack) and NumPy -> porta (porta.from_dlpack), with DLPack's type
    codes (kDLInt, kDLUInt, kDLFloat, kDLComplex, kDLBool) and bits both ways."""
    need(device, dtype)
    h = edges(rng, dtype)
    x = porta.asarray(h)
    same_bits(np.from_dlpack(x, device="cpu"), h)
    with porta.Device(device.spec):
        y = porta.from_dlpack(h, device=device if device.kind == "cpu" else None)
        assert y.dtype == h.dtype
        same_bits(y.get(), h)
        same_bits(porta.from_dlpack(h[::2].copy()).get(), h[::2])
        same_bits(porta.from_dlpack(h.__dlpack__()).get(), h)  # a bare capsule


@pytest.mark.parametrize("dtype", ALL)
def test_dlpack_round_trips_within_porta(device, rng, dtype):
    """porta -> DLPack -> porta keeps the dtype (bfloat16 as kDLBfloat) and the bits, zero-copy and
    (computed) with copy=True."""
    need(device, dtype)
    h = edges(rng, "float32" if dtype == "bfloat16" else dtype)
    x = porta.asarray(h, dtype=dtype)
    want = x.astype("float32").get() if dtype == "bfloat16" else h
    as_host = (lambda a: a.astype("float32").get()) if dtype == "bfloat16" else (lambda a: a.get())
    with porta.Device(device.spec):
        y = porta.from_dlpack(x)
        assert y.dtype == x.dtype
        same_bits(as_host(y), want)
        z = porta.from_dlpack(x, copy=True)  # a kernel's copy: NaN payloads may change
        assert z.dtype == x.dtype
        same_values(as_host(z), want)


@pytest.mark.parametrize("dtype", ALL)
def test_cuda_array_interface_typestr(device, rng, dtype):
    """CUDA arrays' __cuda_array_interface__ has NumPy's typestr ('|u1', '<i2', '<c8'...; bfloat16
    '<V2'), and porta reads it back."""
    if device.backend != "cuda":
        assert not hasattr(porta.zeros(1), "__cuda_array_interface__")
        pytest.skip(f"{device.spec}: __cuda_array_interface__ is for CUDA arrays")
    need(device, dtype)
    x = porta.asarray(edges(rng, "float32" if dtype == "bfloat16" else dtype), dtype=dtype)
    cai = x.__cuda_array_interface__
    assert cai["typestr"] == ("<V2" if dtype == "bfloat16" else np.dtype(dtype).str)
    if dtype != "bfloat16":
        y = porta.from_cuda_array_interface(x)
        assert y.dtype == x.dtype
        same_bits(y.get(), x.get())


# iinfo and finfo.

@pytest.mark.parametrize("dtype", INTS)
def test_iinfo_is_numpys(device, dtype):
    need(device, dtype)
    want = np.iinfo(dtype)
    x = porta.zeros(2, dtype=dtype)
    for form in (dtype, np.dtype(dtype), np.dtype(dtype).type, x, x.dtype):
        got = porta.iinfo(form)
        assert (got.bits, got.min, got.max, got.dtype, got.kind) == (want.bits, want.min, want.max, want.dtype,
                                                                     want.kind), form
        assert type(got.min) is int and type(got.max) is int
    ext = porta.asarray(np.array([want.min, want.max], dtype=dtype))
    assert ext.tolist() == [porta.iinfo(dtype).min, porta.iinfo(dtype).max]


@pytest.mark.parametrize("dtype", FLOATS + COMPLEX)
def test_finfo_is_numpys(device, dtype):
    """finfo of a floating dtype, and of a complex one (its parts', as NumPy's)."""
    need(device, dtype)
    want = np.finfo(dtype)
    x = porta.zeros(2, dtype=dtype)
    for form in (dtype, np.dtype(dtype), np.dtype(dtype).type, x, x.dtype):
        got = porta.finfo(form)
        assert got.dtype == want.dtype, form
        for f in FINFO_FIELDS:
            assert getattr(got, f) == getattr(want, f), (form, f, getattr(got, f), getattr(want, f))


def test_bfloat16_finfo_is_ml_dtypes(device):
    ml = ml_dtypes_or_skip()
    want, got = ml.finfo(ml.bfloat16), porta.finfo(porta.bfloat16)
    assert got.dtype is porta.bfloat16
    for f in FINFO_FIELDS:  # ml_dtypes gives its numbers as bfloat16 scalars (resolution 0.01 is 0.0100098)
        if hasattr(want, f):
            assert float(ml.bfloat16(getattr(got, f))) == float(getattr(want, f)), f


def test_info_of_the_wrong_kind(device):
    for call, numpy_call in ((lambda: porta.iinfo("complex64"), lambda: np.iinfo(np.complex64)),
                             (lambda: porta.iinfo("bool"), lambda: np.iinfo(np.bool_)),
                             (lambda: porta.finfo("uint8"), lambda: np.finfo(np.uint8))):
        with pytest.raises(porta.InvalidArgument):
            call()
        with pytest.raises(ValueError):
            numpy_call()


# Complex numbers: parts, and the cast to real.

def test_real_imag_conj_angle_of_real_arrays(device, rng):
    """(computed) real and conj of a real array are its values, imag zeros of its dtype, angle 0 or pi."""
    for dtype in ("int32", "float32", "float64"):
        if not device.supports(dtype):
            continue
        h = (rng.standard_normal(9) * 10).astype(dtype)
        x = porta.asarray(h)
        for got, want in ((porta.real(x), np.real(h)), (x.real, h.real), (porta.imag(x), np.imag(h)),
                          (x.imag, h.imag), (porta.conj(x), np.conj(h)), (x.conj(), h.conj())):
            same_bits(got.get(), want)
        if supports(device, "float64"):
            np.testing.assert_allclose(porta.angle(x).get(), np.angle(h), rtol=1e-6)
            np.testing.assert_allclose(porta.angle(x, deg=True).get(), np.angle(h, deg=True), rtol=1e-6)
    # bool: NumPy's answers (the standard asks numeric arrays; NumPy's real and imag are bool, its
    # conj int8); angle of integers is atan2(0, x): int8 float16, int16 float32 (was float64).
    hb = np.array([True, False, True])
    xb = porta.asarray(hb)
    for got, want in ((porta.real(xb), np.real(hb)), (porta.imag(xb), np.imag(hb)), (porta.conj(xb), np.conj(hb)),
                      (xb.real, hb.real), (xb.imag, hb.imag)):
        same_bits(got.get(), want)
    for dtype in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint64"):
        h = np.array([0, 1, 1], dtype=dtype)
        if np.angle(h).dtype == np.float16 and not device.supports("float16"):
            continue
        same_bits(porta.angle(porta.asarray(h)).get(), np.angle(h))


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_parts_match_numpy(device, rng, dtype):
    """(computed) real, imag, conj, angle and the .real/.imag properties of complex arrays with NaN,
    inf and -0.0 in either part."""
    need(device, dtype)
    h = edges(rng, dtype)
    x = porta.asarray(h)
    for got, want in ((x.real, h.real), (x.imag, h.imag), (porta.real(x), np.real(h)), (porta.imag(x), np.imag(h))):
        same_bits(got.get(), want)
    for got, want in ((porta.conj(x), np.conj(h)), (x.conj(), h.conj()), (porta.conjugate(x), np.conjugate(h))):
        same_values(got.get(), want)
    tol = 1e-6 if dtype == "complex64" else 1e-14
    np.testing.assert_allclose(porta.angle(x).get(), np.angle(h), rtol=tol, equal_nan=True)
    assert x.real.dtype == np.finfo(dtype).dtype


@pytest.mark.parametrize("to", ["float32", "float64", "int32", "int8", "uint16", "bool"])
@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_to_real_warns_and_keeps_the_real_part(device, rng, dtype, to):
    """astype from complex to a real dtype warns as NumPy (ComplexWarning) and keeps the real part
    (computed); to bool it is nonzero-ness, without a warning."""
    need(device, dtype, to)
    # Real parts in [0, 100): every target holds them, so the cast is NumPy's (truncation) everywhere.
    h = (rng.uniform(0, 100, 11) + 1j * rng.standard_normal(11) * 50).astype(dtype)
    h[:3] = [0j, 1j, complex(-0.0, 0.0)]
    x = porta.asarray(h)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        y = x.astype(to)
        with np.errstate(all="ignore"):
            want = h.astype(to)
    warned = [issubclass(r.category, ComplexWarning) for r in w]
    assert warned == ([] if to == "bool" else [True, True]), [str(r.message) for r in w]  # porta's, NumPy's
    assert y.dtype == np.dtype(to)
    if to.startswith("float") or to == "bool":
        same_bits(y.get(), want)
    else:  # in range: the real part, truncated
        np.testing.assert_array_equal(y.get(), want)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_into_real_arrays(device, rng, dtype):
    """a[...] = complex values, np.asarray(x, float) and full(..., complex, dtype=float): NumPy's
    ComplexWarning and the real part (computed)."""
    need(device, dtype, "float32")
    h = (rng.standard_normal(6) + 1j * rng.standard_normal(6)).astype(dtype)
    x = porta.asarray(h)
    r = porta.zeros(6, dtype="float32")
    with pytest.warns(ComplexWarning):
        r[...] = x
    with pytest.warns(ComplexWarning):
        r[0] = 2 - 3j
    with pytest.warns(ComplexWarning):
        host = np.asarray(x, dtype=np.float64)
    np.testing.assert_array_equal(host, h.real.astype(np.float64))
    want = h.real.astype(np.float32)
    want[0] = 2
    np.testing.assert_array_equal(r.get(), want)
    with pytest.warns(ComplexWarning):
        np.testing.assert_array_equal(porta.full(2, 1.5 + 2j, dtype="float32").get(), [1.5, 1.5])


@pytest.mark.parametrize("dtype", COMPLEX)
def test_complex_scalars_are_weak(device, rng, dtype):
    """(computed) complex64 with a Python complex stays complex64, and the value is NumPy's."""
    need(device, dtype)
    h = (rng.standard_normal(5) + 1j * rng.standard_normal(5)).astype(dtype)
    x = porta.asarray(h)
    got = x + (0.5 - 2j)
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got.get(), h + (0.5 - 2j), rtol=1e-6)
    assert complex(porta.asarray(h[:1])) == complex(h[0])


@pytest.mark.parametrize("dtype", INTS)
def test_numpy_indices_and_values_of_every_dtype(device, rng, dtype):
    """NumPy index arrays of every integer dtype index as NumPy's (negative ones from the end), and
    NumPy arrays of every real dtype write into a float64 array as NumPy casts them, whether or not
    the device has their dtype."""
    need(device, "float64")
    h = rng.standard_normal(20)
    x = porta.asarray(h)
    idx = rng.permutation(20)[:7].astype(dtype)  # distinct: a write to a repeated index lands any one value
    np.testing.assert_array_equal(x[idx].get(), h[idx])
    if np.dtype(dtype).kind == "i":
        neg = (-rng.integers(1, 20, 5)).astype(dtype)
        np.testing.assert_array_equal(x[neg].get(), h[neg])
    with pytest.raises(IndexError):
        x[np.array([25], dtype=dtype)]
    v = edges(rng, dtype)[:7]
    x[idx] = v
    h[idx] = v
    np.testing.assert_array_equal(x.get(), h)
    x[3:10] = v
    h[3:10] = v
    np.testing.assert_array_equal(x.get(), h)
