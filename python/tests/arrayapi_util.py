"""Shared by the array-API tests: random inputs of every dtype a device supports, non-contiguous
views of them, and the tolerance a dtype's results are compared with."""
import numpy as np
import pytest

import porta

DTYPES = ["bool", "int32", "int64", "float16", "float32", "float64"]
NUMERIC = ["int32", "int64", "float16", "float32", "float64"]
FLOATS = ["float16", "float32", "float64"]


def need(device, *dtypes):
    """Skips the test where the device lacks one of the dtypes."""
    for dtype in dtypes:
        if not device.supports(dtype):
            pytest.skip(f"{device.spec} has no {dtype}")


def rand(rng, shape, dtype, low=-40, high=40):
    """Fresh random values, never all zeros: normals for floats, integers in [low, high), bools."""
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in ("int32", "int64"):
        return rng.integers(low, high, size=shape).astype(dtype)
    return (rng.standard_normal(shape) * 4).astype(dtype)


def strided(rng, shape, dtype, **kw):
    """A non-contiguous porta view of `shape` (every other row, every third column from the second,
    further axes reversed; a 1-D one every other element backwards), the NumPy array it equals, and
    the arrays (porta, NumPy) it is a view of."""
    shape = tuple(shape)
    if len(shape) == 1:
        big, key = (shape[0] * 2,), (slice(None, None, -2),)
    else:
        big = (shape[0] * 2, shape[1] * 3) + shape[2:]
        key = (slice(None, None, 2), slice(1, None, 3)) + (slice(None, None, -1),) * (len(shape) - 2)
    h = rand(rng, big, dtype, **kw)
    x = porta.asarray(h)
    v, hv = x[key], h[key]
    assert v.shape == hv.shape == shape, (v.shape, hv.shape, shape)
    assert v.size <= 1 or not v.is_contiguous
    return v, hv.copy(), x, h


def tol(dtype, scale=1.0):
    """(rtol, atol) for results accumulated in `dtype` (porta's order of accumulation is not NumPy's)."""
    if dtype == "float16":
        return 2e-2, 2e-2 * scale
    if dtype == "float32":
        return 2e-5, 2e-5 * scale
    return 1e-12, 1e-12 * scale


def check(got, want, dtype=None, scale=1.0):
    """A porta result against NumPy's: the shape exactly; values exactly for integers and bool,
    within tol(dtype) for floats (NaNs where NumPy has them)."""
    assert isinstance(got, porta.ndarray), type(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    g = got.get()
    if want.dtype.kind in "biu" and g.dtype.kind in "biu":
        np.testing.assert_array_equal(g, want)
    else:
        rtol, atol = tol(dtype or g.dtype.name, scale)
        np.testing.assert_allclose(g.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)


def assert_errors(cases):
    """Each case (call, error, text, numpy_call): call() raises `error` with the regex `text` in its
    message; where NumPy has the same call (numpy_call), porta's error is also the builtin exception
    NumPy's is (ValueError or TypeError)."""
    for call, error, text, numpy_call in cases:
        with pytest.raises(error, match=text) as e:
            call()
        if numpy_call is not None:
            with pytest.raises(Exception) as n:
                numpy_call()
            builtin = ValueError if isinstance(n.value, ValueError) else TypeError
            assert isinstance(n.value, builtin) and isinstance(e.value, builtin), (text, n.value, e.value)
