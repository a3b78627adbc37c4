"""Writes into arrays, as NumPy's: a[...] = b through views, a[idx] = v, a[mask] = v, fill, the
ordering of writes with lazy expressions, and bad writes that raise before anything is written."""
import numpy as np
import pytest

import porta
from arrayapi_util import DTYPES, check, need, rand, strided

BASIC_KEYS = [
    Ellipsis, 2, -1, (1, 3), slice(1, 5), slice(None, None, 2), slice(None, None, -1), slice(6, 0, -3),
    (slice(1, None), slice(None, None, -2)), (Ellipsis, 4), (None, 1), (slice(None), -2, None), (),
    (slice(2, 2),), (0, slice(None, None, 3)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("key", BASIC_KEYS, ids=[repr(k) for k in BASIC_KEYS])
def test_setitem_basic_with_a_number_and_a_broadcast_array(device, rng, dtype, key):
    need(device, dtype)
    h = rand(rng, (7, 6), dtype)
    x = porta.asarray(h)
    number = rand(rng, (), dtype).item()
    x[key] = number
    h[key] = number
    check(x, h)
    # An array of the target's last axis broadcasts over the others, and converts its dtype.
    target = h[key]
    v = rand(rng, target.shape[-1:] if target.ndim else (), "float64" if dtype != "bool" else "bool")
    x[key] = porta.asarray(v)
    h[key] = v.astype(dtype)
    check(x, h)


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_a_write_through_a_view_is_seen_by_every_array_sharing_the_memory(device, rng, dtype):
    need(device, dtype)
    h = rand(rng, (6, 9), dtype)
    x = porta.asarray(h)
    rows, cols, t = x[::2], x[:, 1::3], x.T
    v = rand(rng, (3, 9), dtype)
    rows[...] = porta.asarray(v)
    h[::2] = v
    check(x, h)
    check(cols, h[:, 1::3])
    t[4] = 3  # column 4 of x
    h[:, 4] = 3
    check(x, h)
    check(rows, h[::2])
    # A row of a row: a view of a view.
    rows[1][2:7:2] = -5
    h[::2][1][2:7:2] = -5
    check(x, h)
    check(t, h.T)


def test_a_lazy_expression_made_before_a_write_computes_with_the_values_before_it(device, rng):
    h = rand(rng, (5, 8), "float32")
    x = porta.asarray(h)
    y = x * 2 + 1          # lazy: not evaluated yet
    z = x[1:3].sum()       # a reduction of the old values
    x[1:4, ::2] = 100.0
    x[...] = x[::-1]       # reads the memory it writes: NumPy's a[...] = a[::-1] swaps the rows
    check(y, h.astype(np.float64) * 2 + 1, "float32")
    check(z, h[1:3].astype(np.float64).sum(), "float32", scale=20)
    want = h.copy()
    want[1:4, ::2] = 100.0
    check(x, want[::-1])


def test_functions_that_keep_values_still_give_new_arrays(device, rng):
    """abs of unsigned integers and bool, floor/ceil/trunc/round of integers, real and conj of
    real arrays leave the values as they are, but return new arrays (as NumPy's): a later write into
    the operand does not reach them (found by test_differential.py: abs of a uint8 array did)."""
    h = rng.integers(0, 200, size=7).astype(np.uint8)
    x = porta.asarray(h)
    i = porta.asarray(h.astype(np.int32))
    got = [porta.abs(x), porta.floor(i), porta.ceil(i), porta.trunc(i), porta.round(i), porta.real(i),
           porta.conj(i), porta.abs(x > 100)]
    want = [h, h, h, h, h, h, h, h > 100]
    x[...] = 7
    i[1:5] = -1
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.get(), w)


@pytest.mark.parametrize("dtype", DTYPES)
def test_setitem_into_a_strided_view_of_odd_size(device, rng, dtype):
    need(device, dtype)
    v, hv, x, h = strided(rng, (5, 7), dtype)
    src = rand(rng, (5, 7), dtype)
    v[...] = porta.asarray(src)
    h[::2, 1::3] = src
    check(x, h)
    check(v, src)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(0,), (1,), (3, 0), (1, 1), (37,), (3, 5, 7)])
def test_fill_matches_numpy(device, rng, dtype, shape):
    need(device, dtype)
    h = rand(rng, shape, dtype)
    x = porta.asarray(h)
    value = rand(rng, (), dtype).item()
    x.fill(value)
    h.fill(value)
    check(x, h)
    if len(shape) == 1 and shape[0] > 2:
        x[::3].fill(np.float64(1.5) if dtype != "bool" else False)  # a NumPy scalar, converted
        h[::3].fill(np.float64(1.5) if dtype != "bool" else False)
        check(x, h)


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "float64"])
def test_setitem_with_integer_arrays(device, rng, dtype):
    need(device, dtype)
    h = rand(rng, (9, 5, 4), dtype)
    x = porta.asarray(h)
    idx = rng.permutation(9)[:4]
    idx[0] -= 9  # negative indices count from the end
    v = rand(rng, (4, 5, 4), dtype)
    x[porta.asarray(idx)] = porta.asarray(v)
    h[idx] = v
    check(x, h)
    # A list on one axis beside slices and ints: the indexed axis stays in place.
    cols = [4, 0, -2]
    v2 = rand(rng, (3, 3), dtype)          # broadcasts to h[2:8:2, cols, 1]'s shape (3, 3)
    x[2:8:2, cols, 1] = porta.asarray(v2)
    h[2:8:2, cols, 1] = v2
    check(x, h)
    x[..., [3, 1]] = 7
    h[..., [3, 1]] = 7
    check(x, h)
    v3 = rand(rng, (2, 5), dtype)  # an int apart from the list: NumPy puts the list's axis first
    x[1, :, [0, 2]] = porta.asarray(v3)
    h[1, :, [0, 2]] = v3
    check(x, h)
    x[[]] = 1  # no indices: nothing written
    check(x, h)


@pytest.mark.parametrize("dtype", DTYPES)
def test_setitem_with_a_bool_mask(device, rng, dtype):
    need(device, dtype)
    h = rand(rng, (6, 7), dtype)
    x = porta.asarray(h)
    m = rng.random((6, 7)) < 0.4
    x[porta.asarray(m)] = 0
    h[m] = 0
    check(x, h)
    m = rng.random((6, 7)) < 0.5
    v = rand(rng, (int(m.sum()),), dtype)  # one value for each true element, in row-major order
    x[porta.asarray(m)] = porta.asarray(v)
    h[m] = v
    check(x, h)
    rows = rng.random(6) < 0.5
    rows[0] = True
    x[porta.asarray(rows)] = porta.asarray(v[:7])  # a mask of the leading axis: whole rows
    h[rows] = v[:7]
    check(x, h)
    # A mask from a comparison of the array itself, on a strided view.
    view, hv, base, hbase = strided(rng, (4, 5), dtype)
    if dtype != "bool":
        view[view > 0] = 1
        hbase[::2, 1::3][hbase[::2, 1::3] > 0] = 1
        check(base, hbase)


def _unchanged(x, h):
    check(x, h)


def test_bad_writes_raise_and_write_nothing(device, rng):
    h = rand(rng, (4, 6), "float32")
    x = porta.asarray(h)
    with pytest.raises(IndexError, match="out of bounds"):
        x[4] = 1.0
    with pytest.raises(IndexError, match="out of bounds"):
        x[porta.asarray([0, 1, 6])] = 1.0  # row 6 of 4
    with pytest.raises(IndexError, match="out of bounds"):
        x[[0, -5]] = 1.0
    with pytest.raises(IndexError, match="out of bounds"):
        x[:, [2, 6]] = 1.0
    with pytest.raises(IndexError, match="shape"):
        x[porta.asarray(np.ones((4, 5), bool))] = 1.0  # mask of another shape
    with pytest.raises(IndexError, match="shape"):
        x[porta.asarray(np.ones(6, bool))] = 1.0
    with pytest.raises(porta.ShapeError):
        x[1:3] = porta.asarray(rand(rng, (3, 6), "float32"))  # does not broadcast to (2, 6)
    with pytest.raises(ValueError):
        x[porta.asarray(h > 0)] = porta.asarray(np.ones(100, np.float32))  # not one value per true element
    with pytest.raises(porta.ShapeError):
        x[[1, 2]] = porta.asarray(rand(rng, (3, 6), "float32"))
    with pytest.raises(IndexError):
        x[porta.asarray(np.array([0.5]))] = 1.0  # float indices
    with pytest.raises(IndexError):
        x[[0, 1], [1, 2, 3]] = 1.0  # two integer arrays whose shapes do not broadcast
    with pytest.raises(porta.InvalidArgument, match="broadcast"):
        porta.broadcast_to(x[0], (3, 6))[...] = 1.0  # a broadcast view's elements share memory
    _unchanged(x, h)


def test_threads_writing_disjoint_views_of_one_array(device, rng):
    # Each thread writes its own rows of one shared array (numbers, arrays, masks, integer arrays),
    # many times; porta orders writes into the same memory from any thread, so every row ends as
    # its thread's last write left it.
    import threading
    n_threads, cols = 8, 37
    x = porta.zeros((n_threads * 2, cols), dtype="float32")
    want = np.zeros((n_threads * 2, cols), np.float32)
    plans = [rand(rng, (5, cols), "float32") for _ in range(n_threads)]
    errors = []

    def work(t):
        try:
            with device:
                mine = x[2 * t:2 * t + 2]  # a view shared with every other thread's
                for k, row in enumerate(plans[t]):
                    mine[0] = porta.asarray(row)
                    mine[1] = float(k)
                    mine[1, porta.asarray(row > 0)] = -1.0
                    mine[:, [0, -1]] = float(t)
                # Without this, PoCL sometimes shows the main thread's get() a state from before
                # this thread's last writes once the thread has ended (python/bench/
                # diag_cross_thread_writes.py; not seen on Kokkos): a porta bug, reported.
                porta.synchronize()
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    for t in range(n_threads):
        last = plans[t][-1]
        want[2 * t] = last
        want[2 * t + 1] = 4.0
        want[2 * t + 1, last > 0] = -1.0
        want[2 * t:2 * t + 2, [0, -1]] = t
    check(x, want)
