"""Reductions with NumPy's axis (int, tuple, None), keepdims and dtype."""
import numpy as np
import pytest

import porta
from conftest import assert_sums_close


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_mean_max_match_numpy(device, rng, axis, keepdims):
    a = rng.standard_normal((5, 6, 7))
    x = porta.asarray(a)
    for f in ("sum", "mean", "max", "min"):
        got, want = getattr(porta, f)(x, axis=axis, keepdims=keepdims), getattr(np, f)(a, axis=axis, keepdims=keepdims)
        assert got.shape == want.shape, f
        if f in ("sum", "mean"):
            assert_sums_close(porta.asnumpy(got), want, getattr(np, f)(np.abs(a), axis=axis, keepdims=keepdims))
        else:
            np.testing.assert_array_equal(porta.asnumpy(got), want, err_msg=f)


def test_arg_and_logical_reductions_match_numpy(device, rng):
    a = rng.standard_normal((9, 11)).astype(np.float32)
    x = porta.asarray(a)
    assert porta.argmax(x).item() == np.argmax(a)
    np.testing.assert_array_equal(porta.argmin(x, axis=1).get(), np.argmin(a, axis=1))
    np.testing.assert_array_equal(porta.any(x > 1.5, axis=0).get(), np.any(a > 1.5, axis=0))
    assert porta.all(x > -100).item() is True
    b = rng.integers(1, 4, 12, dtype=np.int32)
    assert porta.prod(porta.asarray(b)).item() == np.prod(b.astype(np.int64))
    assert x.sum(dtype=np.float64).dtype == np.float64
    # float32 rounding scales with the terms' magnitudes, not with the (possibly cancelled) sum
    a64 = a.astype(np.float64)
    np.testing.assert_allclose(x.sum().item(), a64.sum(), rtol=1e-5, atol=1e-6 * np.abs(a64).sum())
