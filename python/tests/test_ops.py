"""Elementwise operators and functions against NumPy, with NumPy 2's promotion of Python scalars."""
import numpy as np
import pytest

import porta


def test_binary_operators_match_numpy(device, rng):
    a = rng.standard_normal((33, 17)).astype(np.float32)
    b = rng.uniform(0.5, 2.0, (17,)).astype(np.float32)
    x, y = porta.asarray(a), porta.asarray(b)
    for got, want in [(x + y, a + b), (x - y, a - b), (x * y, a * b), (x / y, a / b), (porta.maximum(x, y), np.maximum(a, b))]:
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(porta.asnumpy(got), want, rtol=1e-6)


def test_fused_expression_with_scalars_matches_numpy(device, rng):
    a = rng.standard_normal(1000)
    b = rng.standard_normal(1000)
    x, y = porta.asarray(a), porta.asarray(b)
    z = 0.5 * x * x - 1.25 * x + 2.0 * porta.exp(-y)
    # atol: where the three terms (of order 1) cancel, a contracted multiply-add (CUDA's FMA) and
    # NumPy's separate roundings may differ by an ulp of the terms, not of the small result.
    np.testing.assert_allclose(z.get(), 0.5 * a * a - 1.25 * a + 2.0 * np.exp(-b), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose((2.0 - x).get(), 2.0 - a)
    np.testing.assert_allclose((3.0 / (y * y + 1.0)).get(), 3.0 / (b * b + 1.0), rtol=1e-12)


def test_python_scalars_are_weakly_typed(device, rng):
    i32 = porta.asarray(rng.integers(-50, 50, 64, dtype=np.int32))
    f32 = porta.asarray(rng.standard_normal(64).astype(np.float32))
    assert (i32 + 1).dtype == np.int32
    assert (f32 * 2.0).dtype == np.float32
    assert (i32 * 2.5).dtype == np.float64
    assert (i32 + f32).dtype == np.float64
    assert (f32 > 0).dtype == np.bool_
    np.testing.assert_array_equal((i32 + 1).get(), i32.get() + 1)


def test_unary_math_matches_numpy(device, rng):
    a = rng.uniform(0.1, 3.0, 257).astype(np.float32)
    x = porta.asarray(a)
    for f in ("exp", "log", "sqrt", "tanh", "sin"):
        np.testing.assert_allclose(getattr(porta, f)(x).get(), getattr(np, f)(a.astype(np.float64)), rtol=2e-6, err_msg=f)
    np.testing.assert_allclose(abs(-x).get(), a)


def test_comparisons_bitwise_where_clip(device, rng):
    a = rng.integers(-100, 100, 200, dtype=np.int64)
    b = rng.integers(-100, 100, 200, dtype=np.int64)
    x, y = porta.asarray(a), porta.asarray(b)
    np.testing.assert_array_equal((x < y).get(), a < b)
    np.testing.assert_array_equal((x == y).get(), a == b)
    np.testing.assert_array_equal((x & y).get(), a & b)
    np.testing.assert_array_equal((x ^ 7).get(), a ^ 7)
    np.testing.assert_array_equal((~(x > 0)).get(), ~(a > 0))
    np.testing.assert_array_equal(porta.where(x > y, x, y).get(), np.where(a > b, a, b))
    np.testing.assert_array_equal(porta.clip(x, -10, 10).get(), np.clip(a, -10, 10))
    np.testing.assert_array_equal((x % 7).get(), a % 7)
    np.testing.assert_array_equal((x // 7).get(), a // 7)


def test_numpy_operand_is_refused_not_copied(device):
    x = porta.ones(4)
    with pytest.raises(TypeError):
        x + np.ones(4)


def test_creation_functions_match_numpy(device):
    np.testing.assert_array_equal(porta.arange(10).get(), np.arange(10))
    assert porta.arange(10).dtype == np.int64 and porta.zeros(3).dtype == np.float64
    np.testing.assert_allclose(porta.arange(0.5, 3.0, 0.25).get(), np.arange(0.5, 3.0, 0.25))
    np.testing.assert_allclose(porta.linspace(-1, 1, 7).get(), np.linspace(-1, 1, 7), atol=1e-15)
    np.testing.assert_array_equal(porta.eye(3, 4, k=1).get(), np.eye(3, 4, k=1))
    np.testing.assert_array_equal(porta.full((2, 3), 7).get(), np.full((2, 3), 7))
    a = porta.asarray([[1.5, 2.5], [3.5, 4.5]], dtype=np.float32)
    assert a.dtype == np.float32 and a.shape == (2, 2) and a.ndim == 2 and a.size == 4 and a.nbytes == 16
    np.testing.assert_array_equal(np.asarray(a), np.array([[1.5, 2.5], [3.5, 4.5]], np.float32))
    assert a.device == porta.current_device()
    np.testing.assert_array_equal(porta.concatenate([a, a], axis=1).get(), np.concatenate([a.get()] * 2, axis=1))


def test_scalars_bfloat16_and_numpy_dtypes(device):
    s = porta.asarray(3.0)
    assert s.shape == () and s.dtype == np.float64 and (s + 1).item() == 4.0
    b = porta.asarray([1.5, -2.25], dtype=porta.bfloat16)
    assert b.dtype is porta.bfloat16
    np.testing.assert_array_equal(porta.asnumpy(b), np.array([1.5, -2.25]))
    assert porta.zeros(2, dtype=np.dtype("int32")).dtype == np.int32
    assert porta.ones(2, dtype=float).dtype == np.float64 and porta.ones(2, dtype=bool).dtype == np.bool_


def test_astype_copy_and_to(device, rng):
    a = rng.standard_normal(50)
    x = porta.asarray(a)
    np.testing.assert_array_equal(x.astype(np.float32).get(), a.astype(np.float32))
    np.testing.assert_array_equal(x.astype("int32").get(), a.astype(np.int32))
    np.testing.assert_array_equal(x.copy().get(), a)
    for other in porta.devices():
        y = x.to(other)
        assert y.device == other
        np.testing.assert_array_equal(y.get(), a)
