"""Integer-array and boolean indexing against NumPy: take, take_along_axis, a[idx], a[mask], put,
scatter_add, compress, nonzero, flatnonzero, count_nonzero; bad indices raise and write nothing."""
import numpy as np
import pytest

import porta
from arrayapi_util import DTYPES, check, need, rand, strided


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_take_matches_numpy(device, rng, dtype, index_dtype):
    need(device, dtype)
    h = rand(rng, (5, 7, 3), dtype)
    x = porta.asarray(h)
    flat = rng.integers(-h.size, h.size, size=11).astype(index_dtype)
    check(porta.take(x, porta.asarray(flat)), np.take(h, flat))
    for axis in (0, 1, 2, -1):
        n = h.shape[axis]
        idx = rng.integers(-n, n, size=(2, 3)).astype(index_dtype)  # 2-D indices, repeats, negatives
        check(porta.take(x, porta.asarray(idx), axis=axis), np.take(h, idx, axis=axis))
        check(x.take(idx.tolist(), axis), np.take(h, idx, axis=axis))  # a list, through the method
    check(porta.take(x, porta.asarray(np.array([], index_dtype)), axis=1), np.take(h, np.array([], int), axis=1))
    check(porta.take(x, 4), np.take(h, 4))  # a number: a 0-d result


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_take_of_strided_empty_and_one_element_arrays(device, rng, dtype):
    need(device, dtype)
    v, hv, _, _ = strided(rng, (4, 9), dtype)
    idx = rng.integers(0, 9, size=13)
    check(porta.take(v, idx, axis=1), np.take(hv, idx, axis=1))
    check(porta.take(v.T, idx[:3] % 4, axis=1), np.take(hv.T, idx[:3] % 4, axis=1))
    one = rand(rng, (1,), dtype)
    check(porta.take(porta.asarray(one), [0, -1, 0]), np.take(one, [0, -1, 0]))
    empty = rand(rng, (0, 3), dtype)
    check(porta.take(porta.asarray(empty), [], axis=0), np.take(empty, np.array([], int), axis=0))
    check(porta.take(porta.asarray(empty), [2, 0], axis=1), np.take(empty, [2, 0], axis=1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_take_along_axis_with_argsort(device, rng, dtype):
    need(device, dtype)
    h = rand(rng, (6, 5, 4), dtype)
    x = porta.asarray(h)
    for axis in (0, 1, -1):
        idx = rng.integers(0, h.shape[axis], size=h.shape)
        check(porta.take_along_axis(x, porta.asarray(idx), axis), np.take_along_axis(h, idx, axis))
    shorter = rng.integers(0, 5, size=(6, 2, 4))  # the indexed axis may have another length
    check(porta.take_along_axis(x, shorter, 1), np.take_along_axis(h, shorter, 1))
    flat = rng.integers(0, h.size, size=17)
    check(porta.take_along_axis(x, flat, None), np.take_along_axis(h, flat, None))


@pytest.mark.parametrize("dtype", DTYPES)
def test_getitem_with_integer_arrays_and_masks(device, rng, dtype):
    need(device, dtype)
    h = rand(rng, (7, 6, 5), dtype)
    x = porta.asarray(h)
    idx = rng.integers(-7, 7, size=9)
    check(x[porta.asarray(idx)], h[idx])
    check(x[idx.tolist()], h[idx])
    check(x[idx], h[idx])  # a NumPy array of indices
    check(x[1:6:2, [5, 0, 2]], h[1:6:2, [5, 0, 2]])
    check(x[..., [4, -1]], h[..., [4, -1]])
    check(x[2, :, [1, 3]], h[2, :, [1, 3]])  # an int apart from the array: its axis goes first
    check(x[:, 3, [1, 3]], h[:, 3, [1, 3]])  # an int next to it: in place
    check(x[None, :, [2]], h[None, :, [2]])
    check(x[[[0, 1], [2, 3]]], h[[[0, 1], [2, 3]]])  # 2-D indices
    m = rng.random(h.shape) < 0.3
    check(x[porta.asarray(m)], h[m])
    check(x[m], h[m])
    check(x[x > 0] if dtype != "bool" else x[x], h[h > 0] if dtype != "bool" else h[h])
    rows = rng.random(7) < 0.5
    check(x[porta.asarray(rows)], h[rows])                 # a mask of the leading axis
    check(x[porta.asarray(m[:, :, 0])], h[m[:, :, 0]])      # of the two leading axes
    check(x[:, porta.asarray(rows[:6])], h[:, rows[:6]])    # a 1-D mask beside a slice
    check(x[3, porta.asarray(rows[:6])], h[3, rows[:6]])    # beside an int
    check(x[1:, None, 2, m[0, 0]], h[1:, None, 2, m[0, 0]])
    check(x[np.zeros(h.shape, bool)], h[np.zeros(h.shape, bool)])  # nothing selected
    v, hv, _, _ = strided(rng, (5, 4), dtype)
    mv = rng.random((5, 4)) < 0.5
    check(v[porta.asarray(mv)], hv[mv])
    check(v[[4, 0, 0]], hv[[4, 0, 0]])


@pytest.mark.parametrize("dtype", DTYPES)
def test_put_and_scatter_add_match_numpy(device, rng, dtype):
    need(device, dtype)
    h = rand(rng, (6, 7), dtype)
    x = porta.asarray(h)
    idx = rng.permutation(h.size)[:10] - h.size // 2  # distinct, some negative
    vals = rand(rng, (10,), dtype)
    porta.put(x, porta.asarray(idx), porta.asarray(vals))
    np.put(h, idx, vals)
    check(x, h)
    x.put([3, 5], 1)  # a number broadcasts to the indices
    np.put(h, [3, 5], 1)
    check(x, h)
    if dtype == "bool":
        return
    rep = rng.integers(-h.size, h.size, size=40)  # many repeats: every one counts
    add = rand(rng, (40,), dtype, low=-5, high=5)
    porta.scatter_add(x, porta.asarray(rep), porta.asarray(add))
    flat = h.reshape(-1)
    np.add.at(flat, rep, add)
    check(x, h, scale=30)
    porta.scatter_add(x, [0, 0, 0], 2)
    np.add.at(flat, [0, 0, 0], 2)
    check(x, h, scale=30)


@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_put_and_scatter_add_into_a_strided_view(device, rng, dtype):
    v, hv, x, h = strided(rng, (4, 5), dtype)
    idx = rng.integers(0, 20, size=12)
    vals = rand(rng, (12,), dtype, low=-5, high=5)
    porta.scatter_add(v, idx, vals)  # v.flat: the view's elements in row-major order
    ref = hv.reshape(-1).copy()
    np.add.at(ref, idx, vals)
    h[::2, 1::3] = ref.reshape(4, 5)
    check(x, h, scale=30)  # written through the view into x, nothing else changed
    porta.put(v, [0, -1], [7, 8])
    ref[[0, -1]] = [7, 8]
    h[::2, 1::3] = ref.reshape(4, 5)
    check(x, h)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(0,), (1,), (2, 0, 3), (1, 1), (33,), (6, 7, 5), ()])
def test_nonzero_flatnonzero_count_nonzero_compress(device, rng, dtype, shape):
    need(device, dtype)
    h = rand(rng, shape, dtype, low=-2, high=2)  # many zeros among the integers
    x = porta.asarray(h)
    if h.ndim:
        got = porta.nonzero(x)
        want = np.nonzero(h)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)
        check(x.nonzero()[0], want[0])
    check(porta.flatnonzero(x), np.flatnonzero(h))
    check(porta.count_nonzero(x), np.count_nonzero(h))
    check(porta.count_nonzero(x, keepdims=True), np.count_nonzero(h, keepdims=True))
    for axis in range(h.ndim):
        check(porta.count_nonzero(x, axis=axis), np.count_nonzero(h, axis=axis))
    if h.ndim >= 2:
        check(porta.count_nonzero(x, axis=(0, -1), keepdims=True), np.count_nonzero(h, axis=(0, -1), keepdims=True))
    m = rng.random(shape) < 0.5
    check(porta.compress(porta.asarray(m), x), h[m] if h.ndim else h.reshape(-1)[m.reshape(-1)])
    check(porta.compress(porta.asarray(m.reshape(-1)), x), np.compress(m.reshape(-1), h))


def test_nonzero_of_a_strided_view(device, rng):
    v, hv, _, _ = strided(rng, (5, 6), "int32", low=-1, high=2)
    for g, w in zip(porta.nonzero(v), np.nonzero(hv)):
        check(g, w)
    check(porta.count_nonzero(v, axis=1), np.count_nonzero(hv, axis=1))


def test_bad_indices_raise_typed_errors_and_write_nothing(device, rng):
    h = rand(rng, (4, 6), "float32")
    x = porta.asarray(h)
    with pytest.raises(porta.InvalidArgument, match="out of bounds"):
        porta.take(x, [0, 24])
    with pytest.raises(porta.InvalidArgument, match="7"):
        porta.take(x, [7], axis=1)
    with pytest.raises(porta.InvalidArgument, match="axis 2"):
        porta.take(x, [0], axis=2)
    with pytest.raises(IndexError, match="out of bounds"):
        x[[1, 4]]
    with pytest.raises(IndexError, match="shape"):
        x[porta.asarray(np.ones((4, 5), bool))]
    with pytest.raises(porta.DTypeError):
        porta.take(x, porta.asarray(np.array([0.0, 1.0])))
    with pytest.raises(porta.ShapeError):
        porta.take_along_axis(x, porta.asarray(np.zeros((3, 6), np.int64)), 1)
    with pytest.raises(porta.InvalidArgument, match="out of bounds"):
        porta.take_along_axis(x, porta.asarray(np.full((4, 2), 6, np.int64)), 1)
    with pytest.raises(porta.InvalidArgument, match="out of bounds"):
        porta.put(x, [0, 1, 24], 5.0)
    with pytest.raises(porta.InvalidArgument, match="out of bounds"):
        porta.scatter_add(x, [-25, 0], 5.0)
    with pytest.raises(porta.ShapeError):
        porta.put(x, [0, 1, 2], porta.asarray(np.ones(2, np.float32)))
    with pytest.raises(porta.ShapeError):
        porta.compress(porta.asarray(np.ones((6, 4), bool)), x)
    with pytest.raises(porta.DTypeError):
        porta.compress(porta.asarray(np.ones((4, 6), np.int32)), x)
    with pytest.raises(porta.InvalidArgument, match="axis"):
        porta.count_nonzero(x, axis=2)
    check(x, h)
