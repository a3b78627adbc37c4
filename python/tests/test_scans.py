"""Scans against NumPy: cumsum, cumprod, cumulative_sum/prod (the array API's), diff."""
import numpy as np
import pytest

import porta
from arrayapi_util import DTYPES, check, need, rand, strided

SHAPES = [(0,), (1,), (2049,), (3, 0), (1, 1), (5, 7, 3), ()]


def _scan_ref(fn, h, axis):
    out = fn(h.astype(np.float64) if h.dtype.kind == "f" else h, axis=axis)
    return out.astype(h.dtype) if h.dtype.kind == "f" else out  # float16 stays float16, others int64


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_cumsum_matches_numpy(device, rng, dtype, shape):
    need(device, dtype)
    h = rand(rng, shape, dtype)
    x = porta.asarray(h)
    got = porta.cumsum(x)
    assert got.dtype == np.cumsum(h).dtype
    # Partial sums differ from NumPy's left-to-right ones by rounding: up to about eps * sum(|h|)
    # (float16 is accumulated in float32 and rounded once, as the reference is).
    scale = 1.0 if dtype == "float16" else max(1.0, float(np.abs(h.astype(np.float64)).sum()) / 4)
    check(got, _scan_ref(np.cumsum, h, None), scale=scale)
    for axis in range(-h.ndim, h.ndim):
        check(porta.cumsum(x, axis=axis), _scan_ref(np.cumsum, h, axis), scale=scale)
        check(x.cumsum(axis), _scan_ref(np.cumsum, h, axis), scale=scale)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumprod_matches_numpy(device, rng, dtype):
    need(device, dtype)
    if dtype in ("int32", "int64"):
        h = rng.integers(-2, 3, size=(4, 9)).astype(dtype)  # products that stay small
    elif dtype == "bool":
        h = rng.random((4, 9)) < 0.8
    else:
        h = rng.uniform(0.8, 1.25, size=(4, 9)).astype(dtype)
    x = porta.asarray(h)
    assert porta.cumprod(x).dtype == np.cumprod(h).dtype
    check(porta.cumprod(x), _scan_ref(np.cumprod, h, None), scale=10)
    for axis in (0, 1, -1):
        check(porta.cumprod(x, axis=axis), _scan_ref(np.cumprod, h, axis), scale=10)


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_scans_of_strided_views(device, rng, dtype):
    need(device, dtype)
    v, hv, _, _ = strided(rng, (6, 5), dtype)
    for axis in (None, 0, 1):
        check(porta.cumsum(v, axis=axis), _scan_ref(np.cumsum, hv, axis), scale=60)
    check(porta.cumsum(v, axis=1, dtype="float64"), np.cumsum(hv.astype(np.float64), axis=1), scale=60)


@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "float64"])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative_sum_and_prod(device, rng, dtype, include_initial):
    need(device, dtype)
    h = rand(rng, (4, 6), dtype, low=-3, high=4)
    x = porta.asarray(h)
    for axis in (0, 1):
        want = np.cumulative_sum(h, axis=axis, include_initial=include_initial, dtype=np.cumsum(h).dtype)
        check(porta.cumulative_sum(x, axis=axis, include_initial=include_initial), want, scale=40)
        small = (h.astype(np.float64) / 8 + 1).astype(h.dtype) if dtype.startswith("float") else h
        want = np.cumulative_prod(small, axis=axis, include_initial=include_initial, dtype=np.cumprod(small).dtype)
        check(porta.cumulative_prod(porta.asarray(small), axis=axis, include_initial=include_initial), want, scale=40)
    one_d = rand(rng, (7,), dtype)
    check(porta.cumulative_sum(porta.asarray(one_d), include_initial=include_initial),
          np.cumulative_sum(one_d, include_initial=include_initial, dtype=np.cumsum(one_d).dtype), scale=40)
    with pytest.raises(porta.InvalidArgument, match="axis"):
        porta.cumulative_sum(x)  # an axis is required for a 2-D array (the standard's rule)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_diff_matches_numpy(device, rng, dtype, n):
    need(device, dtype)
    h = rand(rng, (5, 8), dtype)
    x = porta.asarray(h)
    for axis in (0, 1, -1):
        check(porta.diff(x, n=n, axis=axis), np.diff(h, n=n, axis=axis), scale=100)
    v, hv, _, _ = strided(rng, (3, 4), dtype)
    check(porta.diff(v, n=n), np.diff(hv, n=n), scale=100)
    one = rand(rng, (1,), dtype)
    check(porta.diff(porta.asarray(one), n=n), np.diff(one, n=n))


def test_diff_with_prepend_and_append(device, rng):
    h = rand(rng, (3, 5), "float32")
    x = porta.asarray(h)
    check(porta.diff(x, prepend=0), np.diff(h, prepend=0), scale=10)
    col = rand(rng, (3, 1), "float32")
    check(porta.diff(x, axis=1, append=porta.asarray(col)), np.diff(h, axis=1, append=col), scale=10)
    check(porta.diff(x, n=2, axis=0, prepend=1.5, append=-2.0), np.diff(h, n=2, axis=0, prepend=1.5, append=-2.0),
          scale=10)


def test_bad_scan_arguments(device, rng):
    x = porta.asarray(rand(rng, (3, 4), "float32"))
    with pytest.raises(porta.InvalidArgument, match="axis 2"):
        porta.cumsum(x, axis=2)
    with pytest.raises(porta.InvalidArgument, match="axis -3"):
        porta.cumprod(x, axis=-3)
    with pytest.raises(porta.InvalidArgument, match="axis"):
        porta.diff(x, axis=5)
    with pytest.raises(porta.InvalidArgument, match="n=-1"):
        porta.diff(x, n=-1)
    with pytest.raises(porta.InvalidArgument, match="out="):
        porta.cumsum(x, out=x)
