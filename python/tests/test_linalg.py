"""matmul, dot and @ against NumPy in float64; complex and integer products (exact, wrapping) against NumPy's."""
import numpy as np
import pytest

import porta
from conftest import assert_sums_close


def test_matmul_matches_numpy(device, rng):
    a = rng.standard_normal((67, 45)).astype(np.float32)
    b = rng.standard_normal((45, 38)).astype(np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    x, y = porta.asarray(a), porta.asarray(b)
    np.testing.assert_allclose((x @ y).get(), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(porta.matmul(x, y).get(), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose((y.T @ x.T).get(), want.T, rtol=1e-4, atol=1e-4)


def test_batched_matmul_and_dot_match_numpy(device, rng):
    a = rng.standard_normal((3, 8, 5))
    b = rng.standard_normal((3, 5, 4))
    assert_sums_close((porta.asarray(a) @ porta.asarray(b)).get(), a @ b, np.abs(a) @ np.abs(b))
    v, w = rng.standard_normal(100), rng.standard_normal(100)
    assert_sums_close(porta.dot(porta.asarray(v), porta.asarray(w)).item(), v @ w, np.abs(v) @ np.abs(w))


def test_batched_matmul_of_views_read_backwards(device, rng):
    # A batch reversed (a negative batch stride) is copied before the product, as NumPy answers it
    # (test_differential found opencl:0 refusing matmul(a[::-1], b) of (2, 1, 1, 1) and (1, 1, 17)).
    a, b = rng.standard_normal((2, 1, 1, 1)), rng.standard_normal((1, 1, 17))
    assert_sums_close(porta.matmul(porta.asarray(a)[::-1], porta.asarray(b)).get(), a[::-1] @ b, np.abs(a[::-1]) @ np.abs(b))
    c, d = rng.standard_normal((3, 4, 5)), rng.standard_normal((3, 5, 2))
    assert_sums_close((porta.asarray(c)[::-1] @ porta.asarray(d)[::-1]).get(), c[::-1] @ d[::-1], np.abs(c[::-1]) @ np.abs(d[::-1]))


def _needs(device, *names):
    """Skips unless the device computes every dtype named (and this porta knows them)."""
    for name in names:
        try:
            ok = device.supports(name)
        except Exception:  # a porta without the dtype
            ok = False
        if not ok:
            pytest.skip(f"{device.spec} does not compute {name}")


def _stored_transposed(a):
    """a as a porta array whose memory holds a.T (a transposed view), so matmul reads it transposed."""
    return porta.asarray(np.ascontiguousarray(a.T)).T


def _complex(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def test_complex_matmul_matches_numpy_without_conjugation(device, rng):
    _needs(device, "complex64", "complex128")
    for dtype, eps in ((np.complex64, 2.0**-24), (np.complex128, 2.0**-53)):
        a, b = _complex(rng, (37, 50), dtype), _complex(rng, (50, 29), dtype)
        want = a.astype(np.complex128) @ b.astype(np.complex128)
        bound = 4 * 52 * eps * (np.abs(a) @ np.abs(b))
        at, bt = _stored_transposed(a), _stored_transposed(b)
        for got in ((porta.asarray(a) @ porta.asarray(b)).get(), (at @ bt).get()):
            assert got.dtype == dtype
            np.testing.assert_array_less(np.abs(got - want), bound)
        x, y = _complex(rng, (3, 8, 5), dtype), _complex(rng, (1, 5, 4), dtype)
        got = porta.matmul(porta.asarray(x), porta.asarray(y)).get()
        want = x.astype(np.complex128) @ y.astype(np.complex128)
        np.testing.assert_array_less(np.abs(got - want), 4 * 7 * eps * (np.abs(x) @ np.abs(y)))


def test_vecdot_conjugates_the_first_argument(device, rng):
    _needs(device, "complex128")
    x, y = _complex(rng, (4, 9), np.complex128), _complex(rng, (4, 9), np.complex128)
    want = np.sum(np.conj(x) * y, axis=-1)
    got = porta.vecdot(porta.asarray(x), porta.asarray(y)).get()
    assert_sums_close(got, want, np.sum(np.abs(x) * np.abs(y), axis=-1))
    got = porta.tensordot(porta.asarray(x), porta.asarray(y), axes=2).get()
    assert_sums_close(got, np.tensordot(x, y, axes=2), np.sum(np.abs(x) * np.abs(y)))


INTEGER_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.mark.parametrize("name", INTEGER_DTYPES)
def test_integer_matmul_is_exact_and_wraps_as_numpy(device, rng, name):
    _needs(device, name)
    dtype = np.dtype(name)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, size=(13, 21), dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, size=(21, 10), dtype=dtype, endpoint=True)
    a[0, :5] = [0, 1, info.max, info.min, info.max]
    want = a @ b  # NumPy's integer matmul wraps modulo 2^bits
    got = (porta.asarray(a) @ porta.asarray(b)).get()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal((_stored_transposed(a) @ _stored_transposed(b)).get(), want)


def test_mixed_integer_matmul_takes_numpys_dtype(device, rng):
    _needs(device, "int8", "uint8", "int16")
    a = rng.integers(-128, 127, size=(6, 5), dtype=np.int8, endpoint=True)
    b = rng.integers(0, 255, size=(5, 4), dtype=np.uint8, endpoint=True)
    want = a @ b
    got = (porta.asarray(a) @ porta.asarray(b)).get()
    assert got.dtype == want.dtype == np.int16
    np.testing.assert_array_equal(got, want)
