"""meshgrid, broadcast_arrays, moveaxis, vecdot and tensordot against NumPy on fresh random inputs
of every dtype (bfloat16 against NumPy's float32 on the same values), empty, one-element and
non-contiguous ones included, and their argument errors, raised before any device work."""
import numpy as np
import pytest

import porta
from arrayapi_util import DTYPES, assert_errors, need, rand

ALL = DTYPES + ["bfloat16"]
EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23, "float64": 2.0 ** -52}


def make(rng, shape, dtype, layout="contiguous"):
    """A porta array of fresh random values and the NumPy array it equals (bfloat16 values as
    float32). layout 'stepped': a view of every other element of the first axis, every third of the
    second, the others reversed; 'transposed': the transpose of a contiguous array."""
    shape = tuple(shape)
    if layout == "transposed":
        x, h = make(rng, shape[::-1], dtype)
        return x.T, h.T
    if layout == "stepped" and shape:
        big = (2 * shape[0],) + ((3 * shape[1],) if len(shape) > 1 else ()) + shape[2:]
        key = (slice(None, None, 2),) + ((slice(1, None, 3),) if len(shape) > 1 else ()) + \
            (slice(None, None, -1),) * (len(shape) - 2)
        x, h = make(rng, big, dtype)
        v = x[key]
        assert v.shape == shape and (v.size <= 1 or not v.is_contiguous)
        return v, h[key]
    host = rand(rng, shape, "float32" if dtype == "bfloat16" else dtype)
    x = porta.asarray(host, dtype=dtype)
    return x, x.get()


def same(got, want, dtype):
    """got (porta) equals want (NumPy) exactly, with porta's dtype `dtype`."""
    assert got._dtype_name == dtype
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_equal(got.get(), want)


def close_sums(got, want, magnitude, dtype, terms):
    """A sum of `terms` products in `dtype` against NumPy's float64 one: exact for integers and bool,
    within (terms + 2) roundings of the products' magnitudes for floats."""
    assert got._dtype_name == dtype
    g = got.get()
    assert g.shape == np.shape(want), (g.shape, np.shape(want))
    if dtype in ("bool", "int32", "int64"):
        np.testing.assert_array_equal(g, want)
    else:
        bound = EPS[dtype] * (terms + 2) * np.asarray(magnitude) + 1e-300
        np.testing.assert_array_less(np.abs(g.astype(np.float64) - want), bound)


LAYOUTS = ["contiguous", "stepped", "transposed"]


def result_name(d1, d2):
    t = porta.result_type(d1, d2)
    return "bfloat16" if t is porta.bfloat16 else t.name


def check_contraction(rng, dtypes, cases, porta_fn, numpy_fn, terms_of):
    """porta_fn(x1, x2, arg) against numpy_fn on the same values, for each (shape1, shape2, arg) of
    `cases` in every layout: NumPy's result dtype (where NumPy has the dtypes), and the sums within
    close_sums' bound of NumPy's float64 ones (terms_of(shape1, arg) products each)."""
    d1, d2 = dtypes
    want_name = result_name(d1, d2)
    for s1, s2, arg in cases:
        for layout in LAYOUTS:
            (x1, h1), (x2, h2) = make(rng, s1, d1, layout), make(rng, s2, d2, layout)
            got = porta_fn(x1, x2, arg)
            f1, f2 = h1.astype(np.float64), h2.astype(np.float64)
            want = numpy_fn(f1, f2, arg)
            if "bfloat16" not in dtypes:
                assert got.dtype == numpy_fn(h1, h2, arg).dtype  # NumPy's dtype
                if want_name == "bool":
                    want = numpy_fn(h1, h2, arg)
            elif want_name == "bool":
                want = want != 0
            close_sums(got, want, numpy_fn(np.abs(f1), np.abs(f2), arg), want_name, terms_of(s1, arg))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("dtype", ALL)
def test_meshgrid_matches_numpy(device, rng, dtype, indexing):
    need(device, dtype)
    for sizes in [(), (5,), (3, 4), (1, 6), (0, 3), (4, 1, 2), (2, 3, 0, 1)]:
        for layout in ("contiguous", "stepped"):
            pairs = [make(rng, (n,), dtype, layout) for n in sizes]
            xs, hs = [p[0] for p in pairs], [p[1] for p in pairs]
            for sparse in (False, True):
                for copy in (True, False):
                    got = porta.meshgrid(*xs, indexing=indexing, sparse=sparse, copy=copy)
                    want = np.meshgrid(*hs, indexing=indexing, sparse=sparse, copy=copy)
                    assert isinstance(got, tuple) and len(got) == len(want) == len(sizes)
                    for g, w in zip(got, want):
                        same(g, w, dtype)
    # NumPy flattens arrays of other dimensions; so does porta.
    (a, ha), (b, hb) = make(rng, (2, 3), dtype, "transposed"), make(rng, (), dtype)
    for g, w in zip(porta.meshgrid(a, b, indexing=indexing), np.meshgrid(ha, hb, indexing=indexing)):
        same(g, w, dtype)


def test_meshgrid_copies_by_default_and_gives_views_with_copy_false(device, rng):
    (x, hx), (y, hy) = make(rng, (3,), "float64"), make(rng, (4,), "int32")
    gx, gy = porta.meshgrid(x, y)
    gx[0, 0] = 100.0
    gy[1, 2] = 7
    same(x, hx, "float64")  # the inputs are as they were
    same(y, hy, "int32")
    want = np.meshgrid(hx, hy)[0]
    want[0, 0] = 100.0
    same(gx, want, "float64")  # and only the written element changed
    vx, _ = porta.meshgrid(x, y, copy=False)
    vx[0, 1] = -5.0  # a view of x: element 1 of x, seen in every row
    hx[1] = -5.0
    same(x, hx, "float64")
    same(vx, np.meshgrid(hx, hy)[0], "float64")


SHAPE_SETS = [[(3, 1), (1, 4)], [(0,), (1,)], [(1,), (5,)], [(2, 3, 4), (4,), (1, 3, 1)], [(), (3,)], [(2, 0, 3), (3,)],
              [(1, 1)], [(6, 5), (6, 5)], []]


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shapes", SHAPE_SETS, ids=str)
def test_broadcast_arrays_matches_numpy(device, rng, dtype, shapes):
    need(device, dtype)
    for layout in LAYOUTS:
        pairs = [make(rng, s, dtype, layout) for s in shapes]
        got = porta.broadcast_arrays(*[p[0] for p in pairs])
        want = np.broadcast_arrays(*[p[1] for p in pairs])
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w, dtype)


def test_broadcast_arrays_of_several_dtypes_are_views(device, rng):
    (a, ha), (b, hb), (c, hc) = make(rng, (3, 1), "int64"), make(rng, (4,), "bfloat16"), make(rng, (1, 1), "bool")
    ra, rb, rc = porta.broadcast_arrays(a, b, c)
    for g, w, d in zip((ra, rb, rc), np.broadcast_arrays(ha, hb, hc), ("int64", "bfloat16", "bool")):
        same(g, w, d)
    ra[2, 3] = 9  # row 2 of a, seen in all four columns
    ha[2, 0] = 9
    same(a, ha, "int64")
    same(ra, np.broadcast_to(ha, (3, 4)), "int64")


MOVES = [(0, -1), (-1, 0), (1, 2), ([0, 1], [2, 3]), ((3, 0), (0, 3)), ([0, 2, 1], [-1, 0, 1]), ([], []),
         ([0, 1, 2, 3], [3, 2, 1, 0]), (2, 2)]


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 1, 1, 1), (3, 0, 2, 1)], ids=str)
def test_moveaxis_matches_numpy(device, rng, dtype, shape):
    need(device, dtype)
    for layout in LAYOUTS:
        x, h = make(rng, shape, dtype, layout)
        for src, dst in MOVES:
            same(porta.moveaxis(x, src, dst), np.moveaxis(h, src, dst), dtype)
    x, h = make(rng, (4,), dtype)
    same(porta.moveaxis(x, 0, -1), np.moveaxis(h, 0, -1), dtype)
    x, h = make(rng, (), dtype)
    same(porta.moveaxis(x, [], []), np.moveaxis(h, [], []), dtype)


def test_moveaxis_is_a_view(device, rng):
    x, h = make(rng, (2, 3, 4), "float32")
    m = porta.moveaxis(x, 0, -1)
    m[1, 2, 0] = 42.0
    h[0, 1, 2] = 42.0
    same(x, h, "float32")


VECDOT_CASES = [((3,), (3,), -1), ((4, 3), (3,), -1), ((2, 1, 5), (4, 5), -1), ((0, 3), (3,), -1),
                ((4, 0), (4, 0), -1), ((1,), (1,), -1), ((3, 4), (3, 4), 0), ((5, 3, 2), (3, 2), -2),
                ((2, 3, 4), (1, 3, 4), 1), ((6, 2), (6, 1), 0)]


@pytest.mark.parametrize("dtypes", [(d, d) for d in ALL] + [("int32", "float32"), ("float16", "bfloat16"),
                                                             ("bool", "int64"), ("int32", "int64")], ids=str)
def test_vecdot_matches_numpy(device, rng, dtypes):
    d1, d2 = dtypes
    need(device, d1, d2)
    check_contraction(rng, dtypes, VECDOT_CASES, lambda x, y, axis: porta.vecdot(x, y, axis=axis),
                      lambda x, y, axis: np.vecdot(x, y, axis=axis), lambda s1, axis: s1[axis])
    (x, h), (y, g) = make(rng, (4, 3), d1), make(rng, (4, 3), d2)
    assert porta.vecdot(x, y).shape == np.vecdot(h, g).shape  # axis=-1 by default


TENSORDOT_CASES = [((3, 4, 5), (4, 5, 2), 2), ((3, 4), (4, 2), 1), ((2, 3), (4, 5), 0),
                   ((3, 4, 5), (5, 3, 2), ([0, 2], [1, 0])), ((4,), (4,), 1), ((0, 3), (3, 2), 1), ((3, 0), (0, 2), 1),
                   ((1, 1), (1, 1), 2), ((2, 3), (3, 2), (1, 0)), ((), (3,), 0), ((2, 3), (3, 2), ([1], [0])),
                   ((2, 5, 3), (3, 5), ((-1, 1), (0, -1)))]


@pytest.mark.parametrize("dtypes", [(d, d) for d in ALL] + [("int32", "float32"), ("float16", "bfloat16"),
                                                             ("bool", "int64"), ("float32", "float64")], ids=str)
def test_tensordot_matches_numpy(device, rng, dtypes):
    d1, d2 = dtypes
    need(device, d1, d2)
    check_contraction(rng, dtypes, TENSORDOT_CASES, lambda x, y, axes: porta.tensordot(x, y, axes=axes),
                      lambda x, y, axes: np.tensordot(x, y, axes=axes),
                      lambda s1, axes: max(1, int(np.prod([s1[i] for i in _summed(s1, axes)]))))
    (a, ha), (b, hb) = make(rng, (2, 3, 4), d1), make(rng, (3, 4, 2), d2)
    assert porta.tensordot(a, b).shape == np.tensordot(ha, hb).shape  # axes=2 by default
    (c, hc) = make(rng, (4, 2), d2)
    want_name = result_name(d1, d2)
    close_sums(porta.tensordot(a, c, 1), np.tensordot(ha.astype(np.float64), hc.astype(np.float64), 1)
               if want_name != "bool" else np.tensordot(ha, hc, 1),
               np.tensordot(np.abs(ha.astype(np.float64)), np.abs(hc.astype(np.float64)), 1), want_name, 4)


def _summed(shape, axes):
    if isinstance(axes, int):
        return list(range(len(shape) - axes, len(shape)))
    first = axes[0]
    return [first] if isinstance(first, int) else list(first)


def test_bad_arguments_leave_lazy_inputs_unevaluated(device, rng):
    x, _ = make(rng, (3, 4), "float32")
    lazy = porta.add(x, 1.0)
    assert not lazy.is_evaluated
    bad = [lambda: porta.moveaxis(lazy, 2, 0), lambda: porta.vecdot(lazy, lazy, axis=2),
           lambda: porta.tensordot(lazy, lazy, axes=([0], [1])), lambda: porta.meshgrid(lazy, indexing="yx"),
           lambda: porta.broadcast_arrays(lazy, porta.add(x, 2.0).reshape(4, 3))]
    for call in bad:
        with pytest.raises(porta.Error):
            call()
        assert not lazy.is_evaluated, call


def test_bad_composition_arguments(device, rng):
    x, _ = make(rng, (2, 3, 4), "float32")
    y, _ = make(rng, (4, 5), "float64")
    cases = [
        (lambda: porta.meshgrid(x, indexing="yx"), porta.InvalidArgument, "'yx'",
         lambda: np.meshgrid(x.get(), indexing="yx")),
        (lambda: porta.meshgrid(x, x.get()), TypeError, "ndarray", None),
        (lambda: porta.broadcast_arrays(x, y), porta.ShapeError, r"\(2, 3, 4\) and \(4, 5\)",
         lambda: np.broadcast_arrays(x.get(), y.get())),
        (lambda: porta.broadcast_arrays(x, [1, 2]), TypeError, "list", None),
        (lambda: porta.moveaxis(x, 3, 0), porta.InvalidArgument, "axis 3", lambda: np.moveaxis(x.get(), 3, 0)),
        (lambda: porta.moveaxis(x, 0, -4), porta.InvalidArgument, "axis -4", lambda: np.moveaxis(x.get(), 0, -4)),
        (lambda: porta.moveaxis(x, [0, 1], [2]), porta.InvalidArgument, r"\[0, 1\].*\[2\]",
         lambda: np.moveaxis(x.get(), [0, 1], [2])),
        (lambda: porta.moveaxis(x, [1, -2], [0, 2]), porta.InvalidArgument, r"\[1, -2\].*more than once",
         lambda: np.moveaxis(x.get(), [1, -2], [0, 2])),
        (lambda: porta.moveaxis(x, 1.5, 0), TypeError, "1.5", lambda: np.moveaxis(x.get(), 1.5, 0)),
        (lambda: porta.vecdot(x, y), porta.ShapeError, "4 elements.*5", lambda: np.vecdot(x.get(), y.get())),
        (lambda: porta.vecdot(x, x[:1, :2], axis=-1), porta.ShapeError, r"\(2, 3, 4\).*\(1, 2, 4\)",
         lambda: np.vecdot(x.get(), x.get()[:1, :2])),
        (lambda: porta.vecdot(x, x, axis=3), porta.InvalidArgument, "axis 3",
         lambda: np.vecdot(x.get(), x.get(), axis=3)),
        (lambda: porta.vecdot(x[0, 0, 0], x[0, 0, 0]), porta.InvalidArgument, "axis -1",
         lambda: np.vecdot(x.get()[0, 0, 0], x.get()[0, 0, 0])),
        (lambda: porta.tensordot(x, y, axes=2), porta.ShapeError, "axis 1 of a.*3 elements.*axis 0 of b.*4",
         lambda: np.tensordot(x.get(), y.get(), axes=2)),
        (lambda: porta.tensordot(x, y, axes=3), porta.InvalidArgument, "axes=3", None),
        (lambda: porta.tensordot(x, y, axes=-1), porta.InvalidArgument, "axes=-1", None),
        (lambda: porta.tensordot(x, y, axes=([2, 2], [0, 1])), porta.InvalidArgument, r"\[2, 2\].*more than once",
         lambda: np.tensordot(x.get(), y.get(), axes=([2, 2], [0, 1]))),
        (lambda: porta.tensordot(x, y, axes=([2], [0, 1])), porta.InvalidArgument, "1 axes of a and 2 of b",
         lambda: np.tensordot(x.get(), y.get(), axes=([2], [0, 1]))),
        (lambda: porta.tensordot(x, y, axes=([2], [0], [1])), porta.InvalidArgument, r"axes=\(\[2\], \[0\], \[1\]\)",
         None),
        (lambda: porta.tensordot(x, y, axes=([3], [0])), porta.InvalidArgument, "axis 3", None),
        (lambda: porta.tensordot(x, y, axes="last"), TypeError, "'last'", None),
    ]
    assert_errors(cases)
