"""Sorting and search against NumPy: sort, argsort (stable, NaNs last, descending), a.sort() in
place, unique and the array API's unique_*, searchsorted, topk."""
import time

import numpy as np
import pytest

import porta
from arrayapi_util import DTYPES, check, need, rand, strided
from thread_util import longest_pause_during

SHAPES = [(0,), (1,), (2051,), (3, 0), (1, 1), (6, 33), (4, 5, 3)]


def _with_nans(rng, h):
    if h.dtype.kind == "f" and h.size:
        h = h.copy()
        flat = h.reshape(-1)
        flat[rng.random(flat.size) < 0.1] = np.nan
        flat[rng.random(flat.size) < 0.05] = -0.0
    return h


def _descending_key(h):
    """A key whose stable ascending order is porta's descending one: NaNs first, ties in order."""
    if h.dtype.kind == "f":
        return np.where(np.isnan(h), -np.inf, -h.astype(np.float64))
    return -h.astype(np.int64)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sort_and_argsort_match_numpy_stable(device, rng, dtype, shape):
    need(device, dtype)
    h = _with_nans(rng, rand(rng, shape, dtype, low=-5, high=5))  # many ties
    x = porta.asarray(h)
    for axis in list(range(-len(shape), len(shape))) + [None]:
        check(porta.sort(x, axis=axis), np.sort(h, axis=axis, kind="stable"))
        check(porta.argsort(x, axis=axis), np.argsort(h, axis=axis, kind="stable"))
        if axis is not None:
            key = _descending_key(h)
            order = np.argsort(key, axis=axis, kind="stable")
            check(porta.argsort(x, axis=axis, descending=True), order)
            check(porta.sort(x, axis=axis, descending=True), np.take_along_axis(h, order, axis))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_sort_of_a_strided_view_and_in_place(device, rng, dtype):
    need(device, dtype)
    v, hv, x, h = strided(rng, (5, 9), dtype)
    check(porta.sort(v, axis=0), np.sort(hv, axis=0))
    check(v.argsort(axis=1), np.argsort(hv, axis=1, kind="stable"))
    v.sort(axis=1)  # numpy.ndarray.sort: in place, through the view into x
    h[::2, 1::3] = np.sort(hv, axis=1)
    check(x, h)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(0,), (1,), (777,), (6, 5), (2, 3, 4)], ids=str)
def test_unique_family_matches_numpy(device, rng, dtype, shape):
    need(device, dtype)
    h = _with_nans(rng, rand(rng, shape, dtype, low=-6, high=6))
    x = porta.asarray(h)
    values, first, inverse, counts = np.unique(h, return_index=True, return_inverse=True, return_counts=True,
                                               equal_nan=True)
    inverse = inverse.reshape(h.shape)
    # The array API's unique_* count each NaN as a value of its own (NumPy 2's unique_all, whose
    # stable sort numbers the NaNs in order; NumPy's unique_inverse sorts unstably).
    d_values, d_first, d_inverse, d_counts = np.unique_all(h)
    r = porta.unique_all(x)
    check(r.values, d_values)
    check(r.indices, d_first)
    check(r.inverse_indices, d_inverse)
    check(r.counts, d_counts)
    check(porta.unique_values(x), d_values)
    c = porta.unique_counts(x)
    check(c.values, d_values)
    check(c.counts, d_counts)
    i = porta.unique_inverse(x)
    check(i.values, d_values)
    check(i.inverse_indices, d_inverse)
    check(porta.unique(x), values)  # NumPy's unique: equal_nan=True
    check(porta.unique(x, return_index=True)[1], first)
    u, ui, uc = porta.unique(x, return_inverse=True, return_counts=True)
    check(u, values)
    check(ui, inverse)
    check(uc, counts)
    # The inverse rebuilds the array.
    check(porta.take(r.values, r.inverse_indices.reshape(-1)).reshape(h.shape), h)


def test_unique_of_a_strided_view(device, rng):
    v, hv, _, _ = strided(rng, (4, 6), "int32", low=0, high=5)
    r = porta.unique_all(v)
    want = np.unique(hv, return_index=True, return_inverse=True, return_counts=True)
    for got, w in zip((r.values, r.indices, r.inverse_indices, r.counts), want):
        check(got, w.reshape(got.shape))


@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_matches_numpy(device, rng, dtype, side):
    need(device, dtype)
    a = np.sort(rand(rng, (301,), dtype, low=-20, high=20))  # with repeats
    v = rand(rng, (7, 9), dtype, low=-25, high=25)
    x = porta.asarray(a)
    check(porta.searchsorted(x, porta.asarray(v), side=side), np.searchsorted(a, v, side=side))
    check(x.searchsorted(porta.asarray(v[0]), side), np.searchsorted(a, v[0], side=side))
    check(porta.searchsorted(x, 3, side=side), np.searchsorted(a, 3, side=side))  # a number: 0-d
    check(porta.searchsorted(x, 2.5, side=side), np.searchsorted(a, 2.5, side=side))
    check(porta.searchsorted(x, [1.5, -3], side=side), np.searchsorted(a, [1.5, -3], side=side))
    perm = rng.permutation(301)
    shuffled = a[perm]
    sorter = np.argsort(shuffled, kind="stable")
    check(porta.searchsorted(porta.asarray(shuffled), porta.asarray(v), side, sorter=sorter),
          np.searchsorted(shuffled, v, side, sorter=sorter))
    check(porta.searchsorted(porta.asarray(a[:0]), porta.asarray(v), side), np.searchsorted(a[:0], v, side))
    check(porta.searchsorted(porta.asarray(a[:1]), porta.asarray(v), side), np.searchsorted(a[:1], v, side))


@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_a_stable_sort(device, rng, dtype, largest):
    need(device, dtype)
    h = _with_nans(rng, rand(rng, (5, 37), dtype, low=-6, high=6))
    x = porta.asarray(h)
    for axis, k in ((1, 4), (0, 5), (-1, 1), (1, 0), (1, 37)):
        key = _descending_key(h) if largest else np.where(np.isnan(h), np.inf, h) if h.dtype.kind == "f" else h
        order = np.argsort(key, axis=axis, kind="stable")
        order = np.take(order, np.arange(k), axis=axis)
        r = porta.topk(x, k, axis=axis, largest=largest)
        check(r.indices, order)
        check(r.values, np.take_along_axis(h, order, axis))


def test_bad_sort_arguments(device, rng):
    x = porta.asarray(rand(rng, (3, 4), "float32"))
    with pytest.raises(porta.InvalidArgument, match="axis 2"):
        porta.sort(x, axis=2)
    with pytest.raises(porta.InvalidArgument, match="axis -3"):
        porta.argsort(x, axis=-3)
    with pytest.raises(porta.InvalidArgument, match="side"):
        porta.searchsorted(x[0], x, side="middle")
    with pytest.raises(porta.Error):
        porta.topk(x, 5, axis=1)  # k beyond the axis length
    with pytest.raises(porta.InvalidArgument, match="axis"):
        porta.topk(x, 1, axis=3)
    with pytest.raises(porta.InvalidArgument, match="axis"):
        porta.unique(x, axis=0)


def test_a_long_sort_does_not_stop_python_threads(device, rng):
    # unique_all sorts and reads its count back: one call that waits on the device. Sized so that
    # it lasts well over the interpreter's 5 ms switch interval.
    n = 1 << 16

    def timed(x):
        t = time.perf_counter()
        r = porta.unique_all(x)
        return time.perf_counter() - t, r

    while True:
        h = rng.integers(0, n // 4, size=n).astype(np.int32)
        x = porta.asarray(h)
        porta.synchronize()
        timed(x)  # the first call compiles the kernels
        took, _ = timed(x)
        if took > 0.1 or n >= 1 << 26:
            break
        n *= 4
    (took, r), max_gap = longest_pause_during(lambda: timed(x))
    check(r.counts, np.unique(h, return_counts=True)[1])
    if took < 0.05:
        pytest.skip(f"{device.spec} ran unique_all of {n} elements too fast to show it ({took * 1e3:.1f} ms)")
    # With the GIL held through the call, this loop would stop for the whole call.
    assert max_gap < took / 2, (max_gap, took)


def _bf16_values(rng, shape):
    """float32 values that bfloat16 holds exactly (the low 16 bits cleared), so NumPy's float32
    results on them are bfloat16's."""
    h = (rng.standard_normal(shape) * 4).astype(np.float32)
    return (h.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)


def test_bfloat16_through_sort_take_writes_and_unique(device, rng):
    need(device, "bfloat16")
    h = _bf16_values(rng, (6, 37))
    h[0, :5] = h[1, :5]  # ties
    x = porta.asarray(h, dtype="bfloat16")
    assert x.dtype is porta.bfloat16
    check(porta.sort(x, axis=1), np.sort(h, axis=1))
    check(porta.argsort(x, axis=0), np.argsort(h, axis=0, kind="stable"))
    idx = rng.integers(-37, 37, size=11)
    check(porta.take(x, idx, axis=1), np.take(h, idx, axis=1))
    check(porta.topk(x, 3).values, -np.sort(-h, axis=1)[:, :3])
    v = _bf16_values(rng, (3, 37))
    x[::2] = porta.asarray(v, dtype="bfloat16")
    h[::2] = v
    m = h > 0
    x[porta.asarray(m)] = 0.5
    h[m] = 0.5
    check(x, h)
    r = porta.unique_all(x)
    want = np.unique(h, return_index=True, return_inverse=True, return_counts=True)
    for got, w in zip((r.values, r.indices, r.inverse_indices, r.counts), want):
        check(got, w.reshape(got.shape))
