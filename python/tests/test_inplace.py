"""In-place operators (a += b, ...) write into the array's memory as NumPy's do: views see it,
overlapping operands read the values from before the write, and the result is cast back with
NumPy's same_kind rule, on every device, against NumPy."""
import numpy as np
import pytest

import porta
from conftest import assert_sums_close

OPS = [("+=", lambda a, b: a.__iadd__(b)), ("-=", lambda a, b: a.__isub__(b)), ("*=", lambda a, b: a.__imul__(b)),
       ("/=", lambda a, b: a.__itruediv__(b)), ("//=", lambda a, b: a.__ifloordiv__(b)),
       ("%=", lambda a, b: a.__imod__(b)), ("**=", lambda a, b: a.__ipow__(b))]
INT_OPS = [("&=", lambda a, b: a.__iand__(b)), ("|=", lambda a, b: a.__ior__(b)), ("^=", lambda a, b: a.__ixor__(b))]


@pytest.mark.parametrize("symbol,op", OPS, ids=[s for s, _ in OPS])
@pytest.mark.parametrize("shape", [(0,), (1,), (37,), (5, 7)])
def test_arithmetic_in_place_matches_numpy(device, rng, symbol, op, shape):
    h = rng.uniform(0.5, 2.0, shape)
    other = rng.uniform(0.5, 2.0, shape[-1:])  # broadcast along the last axis
    a = porta.asarray(h)
    same = a
    r = op(a, porta.asarray(other))
    want = op(h.copy(), other)
    assert r is same
    np.testing.assert_allclose(a.get(), want, rtol=1e-12)
    b = porta.asarray(h)
    op(b, 1.5)  # a Python number, weakly typed
    np.testing.assert_allclose(b.get(), op(h.copy(), 1.5), rtol=1e-12)


@pytest.mark.parametrize("symbol,op", INT_OPS, ids=[s for s, _ in INT_OPS])
def test_bitwise_in_place_matches_numpy(device, rng, symbol, op):
    h = rng.integers(-1000, 1000, 41).astype(np.int32)
    o = rng.integers(-1000, 1000, 41).astype(np.int32)
    a = porta.asarray(h)
    op(a, porta.asarray(o))
    np.testing.assert_array_equal(a.get(), op(h.copy(), o))
    assert a.dtype == np.int32


def test_a_view_in_place_changes_its_base_and_overlap_reads_the_old_values(device, rng):
    h = rng.standard_normal((6, 9)).astype(np.float32)
    a = porta.asarray(h)
    row, col = a[2], a[:, ::-3]
    row += 1.0
    col *= 2.0
    a[1:] += a[:-1]  # overlapping: NumPy reads the values from before the write
    e = h.copy()
    e[2] += 1.0
    e[:, ::-3] *= 2.0
    e[1:] += e[:-1].copy()
    np.testing.assert_allclose(a.get(), e, rtol=1e-6)
    lazy = porta.asarray(h) * 2.0  # a pending expression as the target
    lazy -= 1.0
    np.testing.assert_allclose(lazy.get(), h * 2 - 1, rtol=1e-6)


def test_matmul_in_place(device, rng):
    h, g = rng.standard_normal((4, 4)), rng.standard_normal((4, 4))
    a = porta.asarray(h)
    a @= porta.asarray(g)
    assert_sums_close(a.get(), h @ g, np.abs(h) @ np.abs(g))
    with pytest.raises(porta.ShapeError, match=r"@=.*\(4, 4\).*\(4, 2\)"):
        a @= porta.asarray(rng.standard_normal((4, 2)))


def test_in_place_refuses_what_numpy_refuses_and_writes_nothing(device, rng):
    h = rng.integers(0, 100, 10)
    a = porta.asarray(h)
    with pytest.raises(porta.DTypeError, match=r"int64.*float64.*same_kind"):
        a += 1.5
    with pytest.raises(TypeError):  # NumPy: UFuncTypeError, a TypeError
        a /= 2
    with pytest.raises(ValueError, match=r"\(10,\).*\(3, 10\)"):
        a += porta.ones((3, 10), dtype="int64")
    np.testing.assert_array_equal(a.get(), h)
    with pytest.raises(TypeError):
        e = h.copy()
        e += 1.5
    f = porta.asarray(h.astype(np.float32))
    f += porta.asarray(h.astype(np.float64))  # float64 into float32: same kind, NumPy allows it
    np.testing.assert_allclose(f.get(), 2 * h.astype(np.float32), rtol=1e-6)
    assert f.dtype == np.float32
