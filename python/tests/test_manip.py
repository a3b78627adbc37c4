"""Rearranging and statistics against NumPy: flip, roll, tile, repeat, pad, split, tril/triu,
var/std with ddof, and reductions over axis tuples and with keepdims."""
import numpy as np
import pytest

import porta
from arrayapi_util import DTYPES, check, need, rand, strided

SHAPES = [(0,), (1,), (7,), (3, 0), (1, 1), (4, 5), (3, 4, 5)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_flip_and_roll(device, rng, dtype, shape):
    need(device, dtype)
    h = rand(rng, shape, dtype)
    x = porta.asarray(h)
    check(porta.flip(x), np.flip(h))
    for axis in range(-len(shape), len(shape)):
        check(porta.flip(x, axis=axis), np.flip(h, axis=axis))
    if len(shape) >= 2:
        check(porta.flip(x, axis=(0, -1)), np.flip(h, axis=(0, -1)))
    for shift in (0, 1, -3, 11):
        check(porta.roll(x, shift), np.roll(h, shift))
        for axis in range(len(shape)):
            check(porta.roll(x, shift, axis=axis), np.roll(h, shift, axis=axis))
    if len(shape) >= 2:
        check(porta.roll(x, (2, -1), axis=(0, 1)), np.roll(h, (2, -1), axis=(0, 1)))
        check(porta.roll(x, 3, axis=(0, 1)), np.roll(h, 3, axis=(0, 1)))


def test_flip_is_a_view(device, rng):
    h = rand(rng, (4, 6), "float32")
    x = porta.asarray(h)
    f = porta.flip(x, axis=1)
    f[0] = porta.asarray(np.arange(6, dtype=np.float32))  # writes x's row 0 backwards
    h[0] = np.arange(6)[::-1]
    check(x, h)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_tile_and_repeat(device, rng, dtype, shape):
    need(device, dtype)
    h = rand(rng, shape, dtype)
    x = porta.asarray(h)
    for reps in (2, (3,), (2, 1), (1, 2, 3), 0, (0, 2)):
        check(porta.tile(x, reps), np.tile(h, reps))
    for r in (0, 1, 3):
        check(porta.repeat(x, r), np.repeat(h, r))
        for axis in range(len(shape)):
            check(porta.repeat(x, r, axis=axis), np.repeat(h, r, axis=axis))
    for axis in range(len(shape)):
        counts = rng.integers(0, 4, size=shape[axis])
        check(porta.repeat(x, porta.asarray(counts), axis=axis), np.repeat(h, counts, axis=axis))
        check(x.repeat(counts.tolist(), axis), np.repeat(h, counts, axis=axis))
    counts = rng.integers(0, 3, size=h.size)
    check(porta.repeat(x, counts), np.repeat(h, counts))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_pad_constant(device, rng, dtype, shape):
    need(device, dtype)
    h = rand(rng, shape, dtype)
    x = porta.asarray(h)
    value = rand(rng, (), dtype).item()
    nd = len(shape)
    widths = [2, (1, 3), [(k % 3, (k * 2) % 3) for k in range(nd)], ((0, 0),)]
    for w in widths:
        check(porta.pad(x, w), np.pad(h, w))
        check(porta.pad(x, w, constant_values=value), np.pad(h, w, constant_values=value))


@pytest.mark.parametrize("dtype", DTYPES)
def test_unstack(device, rng, dtype):
    need(device, dtype)
    h = rand(rng, (4, 5, 3), dtype)
    x = porta.asarray(h)
    for axis in (0, 1, 2, -1):
        got, want = porta.unstack(x, axis=axis), tuple(np.moveaxis(h, axis, 0))
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)
    v = x[:, ::2].T  # a strided view: its slices read the right elements
    for g, w in zip(porta.unstack(v, axis=1), tuple(np.moveaxis(h[:, ::2].T, 1, 0))):
        check(g, w)
    assert porta.unstack(porta.asarray(h[:0]), axis=0) == ()
    with pytest.raises(porta.InvalidArgument, match="axis 3"):
        porta.unstack(x, axis=3)
    with pytest.raises(porta.InvalidArgument, match="0-d"):
        porta.unstack(x[0, 0, 0])


@pytest.mark.parametrize("dtype", ["bool", "int32", "float16", "float64"])
def test_split(device, rng, dtype):
    need(device, dtype)
    h = rand(rng, (6, 10, 3), dtype)
    x = porta.asarray(h)
    for sections, axis in ((2, 0), (3, 0), (5, 1), (1, 2), (3, -1)):
        got, want = porta.split(x, sections, axis=axis), np.split(h, sections, axis=axis)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)
    for points, axis in (([2, 5], 1), ([0, 3, 3, 6], 0), ([8, 20], 1), ([], 2)):
        got, want = porta.split(x, points, axis=axis), np.split(h, points, axis=axis)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            check(g, w)
    parts = porta.split(x, 2, axis=0)  # views: a write into a part reaches x
    parts[1][...] = porta.asarray(np.zeros((3, 10, 3), dtype))
    h[3:] = 0
    check(x, h)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (3, 7), (7, 3), (2, 3, 5), (0, 4), (1, 1)], ids=str)
def test_tril_triu(device, rng, dtype, shape):
    need(device, dtype)
    h = rand(rng, shape, dtype)
    x = porta.asarray(h)
    for k in (0, 1, -1, 2, -5, 9):
        check(porta.tril(x, k), np.tril(h, k))
        check(porta.triu(x, k=k), np.triu(h, k=k))
    v, hv, _, _ = strided(rng, (5, 4), dtype)
    check(porta.tril(v, -1), np.tril(hv, -1))


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("ddof", [0, 1, 2.5])
def test_var_and_std(device, rng, dtype, ddof):
    need(device, dtype)
    h = rand(rng, (6, 5, 7), dtype)
    x = porta.asarray(h)
    ref = h.astype(np.float64)
    want_dtype = "float64" if dtype in ("bool", "int32", "int64") else dtype

    def cmp(got, want):
        assert got.dtype == np.dtype(want_dtype)
        check(got, np.asarray(want).astype(want_dtype), want_dtype, scale=16)

    cmp(porta.var(x, ddof=ddof), np.var(ref, ddof=ddof))
    cmp(porta.std(x, ddof=ddof), np.std(ref, ddof=ddof))
    cmp(x.var(ddof=ddof, keepdims=True), np.var(ref, ddof=ddof, keepdims=True))
    for axis in (0, 1, -1, (0, 2), (1, 2), (0, 1, 2)):
        for keepdims in (False, True):
            cmp(porta.var(x, axis=axis, ddof=ddof, keepdims=keepdims), np.var(ref, axis=axis, ddof=ddof, keepdims=keepdims))
            cmp(porta.std(x, axis=axis, ddof=ddof, keepdims=keepdims), np.std(ref, axis=axis, ddof=ddof, keepdims=keepdims))
    cmp(porta.var(x, axis=1, correction=ddof), np.var(ref, axis=1, ddof=ddof))  # the array API's name
    v, hv, _, _ = strided(rng, (4, 6), dtype)
    cmp(porta.std(v, axis=0, ddof=ddof), np.std(hv.astype(np.float64), axis=0, ddof=ddof))


@pytest.mark.filterwarnings("ignore:Degrees of freedom")
def test_var_of_n_equal_to_ddof_is_nan_as_numpy(device, rng):
    one = porta.asarray(rand(rng, (1, 3), "float64"))
    two = porta.asarray(rand(rng, (2, 3), "float64"))
    with np.errstate(divide="ignore", invalid="ignore"):
        check(porta.var(one, axis=0, ddof=1), np.var(one.get(), axis=0, ddof=1))
        check(porta.std(two, axis=0, ddof=2), np.std(two.get(), axis=0, ddof=2))


@pytest.mark.filterwarnings("ignore:Degrees of freedom")
def test_var_of_ddof_beyond_n_is_nan_as_numpy(device, rng):
    one = porta.asarray(rand(rng, (1, 3), "float64"))
    with np.errstate(divide="ignore", invalid="ignore"):
        check(porta.var(one, axis=0, ddof=2), np.var(one.get(), axis=0, ddof=2))


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "min", "max", "all", "any"])
@pytest.mark.parametrize("dtype", ["bool", "int32", "float32", "float64"])
def test_reductions_over_axis_tuples_and_keepdims(device, rng, name, dtype):
    need(device, dtype)
    h = rand(rng, (4, 3, 5), dtype, low=-3, high=4) if name != "prod" else rand(rng, (4, 3, 5), dtype, low=1, high=3)
    if name == "prod" and dtype.startswith("float"):
        h = rng.uniform(0.9, 1.1, size=(4, 3, 5)).astype(dtype)
    x = porta.asarray(h)
    fn, ref = getattr(porta, name), getattr(np, name)
    for axis in ((0, 2), (2, 0), (0, 1, 2), (-1, -2), (1,), None):
        for keepdims in (False, True):
            got, want = fn(x, axis=axis, keepdims=keepdims), ref(h, axis=axis, keepdims=keepdims)
            check(got, want, scale=20)


def test_bad_manipulation_arguments(device, rng):
    x = porta.asarray(rand(rng, (4, 6), "float32"))
    with pytest.raises(porta.InvalidArgument, match="axis 2"):
        porta.flip(x, axis=2)
    with pytest.raises(porta.InvalidArgument, match="axis"):
        porta.roll(x, 1, axis=-3)
    with pytest.raises(porta.InvalidArgument):
        porta.split(x, 4, axis=1)  # 6 does not divide into 4
    with pytest.raises(porta.InvalidArgument, match="axis"):
        porta.split(x, 2, axis=2)
    with pytest.raises(porta.InvalidArgument, match="mode"):
        porta.pad(x, 1, mode="reflect")
    with pytest.raises(porta.ShapeError):
        porta.pad(x, [(1, 1)] * 3)
    with pytest.raises(porta.InvalidArgument, match="negative"):
        porta.pad(x, -1)
    with pytest.raises(porta.Error):
        porta.tile(x, (-1,))
    with pytest.raises(porta.Error):
        porta.repeat(x, porta.asarray(np.array([1, 2])), axis=0)  # one count per element of the axis
    with pytest.raises(porta.Error):
        porta.tril(x[0])  # needs two dimensions
    with pytest.raises(porta.InvalidArgument, match="more than once"):
        porta.var(x, axis=(0, 0))
    with pytest.raises(porta.ShapeError):
        porta.sum(x, axis=(0, 2))
