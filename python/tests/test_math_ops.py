"""The inverse trigonometric and hyperbolic functions, log2/log10, trunc, signbit, reciprocal, the
math of two operands (atan2, hypot, copysign, nextafter, logaddexp) and the shifts, against NumPy:
values, result dtypes (integers give float64, as NumPy's), special values, and the refusals."""
import numpy as np
import pytest

import porta
from arrayapi_util import need

# name -> (low, high) of the random inputs: each function's domain.
UNARY = {
    "arccos": (-0.97, 0.97), "arcsin": (-0.97, 0.97), "arctan": (-4, 4), "arccosh": (1, 7), "arcsinh": (-4, 4),
    "arctanh": (-0.97, 0.97), "sinh": (-4, 4), "cosh": (-4, 4), "log2": (0.05, 9), "log10": (0.05, 9),
    "trunc": (-5, 5),
}
BINARY = ("arctan2", "hypot", "copysign", "logaddexp")
SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5])


def _rtol(dtype):
    return {np.float16: 2e-3, np.float32: 4e-6, np.float64: 1e-12}[np.dtype(dtype).type]


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_unary_matches_numpy(device, rng, name, dtype):
    need(device, np.dtype(dtype).name)
    lo, hi = UNARY[name]
    a = np.concatenate([rng.uniform(lo, hi, 301), SPECIAL]).astype(dtype)
    got = getattr(porta, name)(porta.asarray(a))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a)
        wide = getattr(np, name)(a.astype(np.float64)).astype(dtype)  # NumPy's float16 loops are not all correctly rounded
    assert got.dtype == want.dtype, name
    ok = np.isclose(got.get(), wide, rtol=_rtol(dtype), atol=0, equal_nan=True)
    assert ok.all(), (name, a[~ok], got.get()[~ok], wide[~ok])


@pytest.mark.parametrize("name", ["arccos", "arcsinh", "log2", "cosh"])
def test_unary_of_integers_is_float64(device, rng, name):
    a = rng.integers(1, 2 if name == "arccos" else 50, 97).astype(np.int32)
    got = getattr(porta, name)(porta.asarray(a))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got.get(), getattr(np, name)(a), rtol=1e-12)


def test_trunc_keeps_integers_and_signbit_reads_the_sign_bit(device, rng):
    i = rng.integers(-1000, 1000, 129).astype(np.int64)
    np.testing.assert_array_equal(porta.trunc(porta.asarray(i)).get(), np.trunc(i))
    assert porta.trunc(porta.asarray(i)).dtype == np.int64
    f = np.concatenate([rng.standard_normal(200), SPECIAL, [-np.nan]])
    np.testing.assert_array_equal(porta.signbit(porta.asarray(f)).get(), np.signbit(f))
    np.testing.assert_array_equal(porta.signbit(porta.asarray(i)).get(), np.signbit(i))
    # A view with a step: the strided path.
    np.testing.assert_array_equal(porta.signbit(porta.asarray(f)[::3]).get(), np.signbit(f[::3]))


def test_reciprocal_of_floats_and_refusal_of_integers(device, rng):
    a = rng.uniform(0.25, 4, 100) * rng.choice([-1, 1], 100)
    np.testing.assert_allclose(porta.reciprocal(porta.asarray(a)).get(), np.reciprocal(a), rtol=1e-15)
    with pytest.raises(porta.DTypeError, match="int32"):
        porta.reciprocal(porta.asarray(np.arange(1, 5, dtype=np.int32)))


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32])
def test_binary_math_matches_numpy(device, rng, name, dtype):
    need(device, np.dtype(dtype).name)
    if np.dtype(dtype).kind == "i":
        a, b = rng.integers(-9, 9, 257).astype(dtype), rng.integers(-9, 9, 257).astype(dtype)
    else:
        a = np.concatenate([rng.uniform(-4, 4, 257), SPECIAL, SPECIAL[::-1]]).astype(dtype)
        b = np.concatenate([rng.uniform(-4, 4, 257), SPECIAL[::-1], SPECIAL]).astype(dtype)
        a[::7] = b[::7]  # equal pairs (logaddexp's own case)
    got = getattr(porta, name)(porta.asarray(a), porta.asarray(b))
    with np.errstate(all="ignore"):
        want = getattr(np, name)(a, b)
        out = want.dtype
        wide = getattr(np, name)(a.astype(np.float64), b.astype(np.float64)).astype(out)
    assert got.dtype == out, (name, got.dtype, out)
    # logaddexp adds log1p(exp(-|a - b|)) to max(a, b): where the two cancel, the error is that of
    # the terms (NumPy's float32 loop has it too), not of the small result.
    scale = np.maximum(np.abs(a), np.abs(b)).astype(np.float64) if name == "logaddexp" else 0
    atol = 4 * np.finfo(out).eps * np.where(np.isfinite(scale), scale, 0)
    ok = np.isclose(got.get(), wide, rtol=_rtol(out), atol=atol, equal_nan=True)
    assert ok.all(), (name, a[~ok], b[~ok], got.get()[~ok], wide[~ok])


def test_binary_math_with_python_numbers_and_broadcasting(device, rng):
    a = rng.uniform(-3, 3, (31, 5)).astype(np.float32)
    b = rng.uniform(-3, 3, 5).astype(np.float32)
    x, y = porta.asarray(a), porta.asarray(b)
    np.testing.assert_allclose(porta.arctan2(x, y).get(), np.arctan2(a, b), rtol=4e-6)
    assert porta.hypot(x, 2.0).dtype == np.float32
    np.testing.assert_allclose(porta.hypot(x, 2.0).get(), np.hypot(a, np.float32(2.0)), rtol=4e-6)
    np.testing.assert_array_equal(porta.copysign(1.5, x).get(), np.copysign(np.float32(1.5), a))


def test_binary_math_of_two_integer_arrays_takes_numpys_float_dtype(device, rng):
    """NumPy's float-only functions take the narrowest float each integer dtype goes to: int8 with
    uint8 is float16 (promoting the integers first would give int16, so float32), int8 with uint16
    float32 (found by test_differential.py)."""
    pairs = [("int8", "uint8"), ("int8", "uint16"), ("bool", "int8"), ("int16", "float16"), ("uint32", "int8"),
             ("int64", "uint64")]
    for ta, tb in pairs:
        if not (device.supports(ta) and device.supports(tb)):
            continue
        a = rng.integers(0, 100, size=5).astype(ta)
        b = rng.integers(1, 100, size=5).astype(tb)
        x, y = porta.asarray(a), porta.asarray(b)
        for name in ("hypot", "arctan2", "copysign"):
            want = getattr(np, name)(a, b)
            if not device.supports(want.dtype.name):
                continue
            got = getattr(porta, name)(x, y)
            assert got.dtype == want.dtype, (name, ta, tb, got.dtype, want.dtype)
            np.testing.assert_allclose(got.get(), want, rtol=2 * np.finfo(want.dtype).eps)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nextafter_is_exact(device, rng, dtype):
    a = np.concatenate([rng.uniform(-4, 4, 300), SPECIAL, [np.inf, 0.0]]).astype(dtype)
    b = np.concatenate([rng.uniform(-4, 4, 300), SPECIAL[::-1], [0.0, -1.0]]).astype(dtype)
    got = porta.nextafter(porta.asarray(a), porta.asarray(b)).get()
    np.testing.assert_array_equal(got, np.nextafter(a, b))
    if device.supports("float16"):
        with pytest.raises(porta.DTypeError, match="float16"):
            porta.nextafter(porta.asarray(a.astype(np.float16)), porta.asarray(b.astype(np.float16)))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_shifts_match_numpy(device, rng, dtype):
    bits = np.dtype(dtype).itemsize * 8
    a = rng.integers(-2**30, 2**30, 400).astype(dtype)
    n = rng.integers(-bits - 5, bits + 5, 400).astype(dtype)
    x, c = porta.asarray(a), porta.asarray(n)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal((x << c).get(), np.left_shift(a, n))
        np.testing.assert_array_equal((x >> c).get(), np.right_shift(a, n))
    np.testing.assert_array_equal(porta.left_shift(x, 3).get(), a << 3)
    np.testing.assert_array_equal((1 << porta.asarray(n[(n >= 0) & (n < 20)])).get(), 1 << n[(n >= 0) & (n < 20)])
    y = porta.asarray(a)
    y <<= 2
    np.testing.assert_array_equal(y.get(), a << 2)
    y >>= 5
    np.testing.assert_array_equal(y.get(), (a << 2) >> 5)
    with pytest.raises(porta.DTypeError, match="float"):
        x << porta.asarray(n.astype(np.float32))
    flags = porta.asarray(a > 0)
    if device.supports("int8"):  # NumPy's int8 for bool << bool
        assert (flags << flags).dtype == np.int8
        np.testing.assert_array_equal((flags << flags).get(), np.left_shift(a > 0, a > 0))
    else:  # (while porta's kernels do not compute int8)
        with pytest.raises(porta.DTypeError, match="bool"):
            flags << flags
    # bool with a Python integer is an int64 array, as NumPy's.
    assert (flags << 1).dtype == np.int64
    np.testing.assert_array_equal((flags << 1).get(), (a > 0) << 1)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_floor_divide_of_integers_is_exact(device, rng, dtype):
    info = np.iinfo(dtype)
    a = np.concatenate([rng.integers(info.min, info.max, 500, dtype=dtype, endpoint=True),
                        np.array([info.min, info.min, info.max, 7, -7], dtype=dtype)])
    b = np.concatenate([rng.integers(-60, 60, 500, dtype=dtype), np.array([-1, 1, 0, 0, 2], dtype=dtype)])
    with np.errstate(all="ignore"):
        want = a // b  # x // 0 is 0, MIN // -1 wraps to MIN
    got = porta.asarray(a) // porta.asarray(b)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got.get(), want)
    np.testing.assert_array_equal((porta.asarray(a) // 7).get(), a // 7)
    np.testing.assert_array_equal((1000 // porta.asarray(b[b != 0])).get(), 1000 // b[b != 0])
    y = porta.asarray(a)
    y //= 3
    np.testing.assert_array_equal(y.get(), a // 3)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_floor_divide_of_floats_follows_numpy(device, rng, dtype):
    a = np.concatenate([rng.uniform(-10, 10, 300), [1.0, -1.0, 5.0, 0.0, -0.0, np.inf, 3.0, np.nan, 4.0]]).astype(dtype)
    b = np.concatenate([rng.uniform(-3, 3, 300), [0.1, 0.1, 0.0, 0.0, 2.0, 2.0, np.inf, 1.0, -np.inf]]).astype(dtype)
    with np.errstate(all="ignore"):
        want = np.floor_divide(a, b)  # 1.0 // 0.1 is 9.0, from the remainder, not floor(1.0 / 0.1)
    got = porta.floor_divide(porta.asarray(a), porta.asarray(b)).get()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got[np.isfinite(want)]), np.signbit(want[np.isfinite(want)]))


def test_positive_is_a_new_array(device, rng):
    a = rng.standard_normal(64)
    x = porta.asarray(a)
    for y in (+x, porta.positive(x)):
        y[0] = 99.0  # NumPy's +a is a copy: the write must not reach x
        np.testing.assert_array_equal(x.get(), a)
        np.testing.assert_array_equal(y.get()[1:], a[1:])
    np.testing.assert_array_equal((+porta.asarray(np.array([-0.0, np.nan, 3.0]))).get(), np.array([-0.0, np.nan, 3.0]))
    assert np.signbit((+porta.asarray(np.array([-0.0]))).get()[0])
    with pytest.raises(porta.DTypeError, match="bool"):
        +porta.asarray(a > 0)


@pytest.mark.parametrize("name", ["real", "conj", "conjugate"])
def test_real_and_conj_of_real_arrays_are_new_arrays(device, rng, name):
    strided = porta.asarray(rng.standard_normal((4, 6)))[:, ::2]
    for x in (porta.asarray(rng.standard_normal(37)), porta.asarray(rng.integers(-50, 50, 37).astype(np.int32)), strided):
        want = x.get()
        y = getattr(porta, name)(x)
        assert y.dtype == x.dtype and y.shape == x.shape
        np.testing.assert_array_equal(y.get(), getattr(np, name)(want))
        y[...] = 0  # a new array: the write does not reach x
        np.testing.assert_array_equal(x.get(), want)
    # bool: NumPy's (real a new bool array, conj int8), beyond the standard's numeric arrays
    b = porta.asarray(np.array([True, False]))
    y = getattr(porta, name)(b)
    want = getattr(np, name)(np.array([True, False]))
    assert y.dtype == want.dtype
    np.testing.assert_array_equal(y.get(), want)
    y[...] = 0
    np.testing.assert_array_equal(b.get(), [True, False])
