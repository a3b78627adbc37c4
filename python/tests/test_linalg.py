"""matmul, dot and @ against NumPy in float64."""
import numpy as np

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
