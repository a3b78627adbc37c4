"""NumPy 2's answers where porta's used to differ (issue 38): result values, dtypes, shapes and
exception types, each against NumPy on every device. Inputs are small: each case is a rule (a
dtype, a bound, a shape), not a size, and cold PoCL compiles dominate the time."""
import numpy as np
import pytest

import porta


def same(got, want):
    """porta's result equals NumPy's: dtype, shape and values (NaN where NumPy has NaN)."""
    got_np = porta.asnumpy(got) if isinstance(got, porta.ndarray) else np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got_np.shape == want.shape, (got_np.shape, want.shape)
    np.testing.assert_array_equal(got_np, want)


# NumPy scalars are strongly typed (NEP 50), as porta.result_type says.

@pytest.mark.parametrize("dtype,scalar", [("float16", np.float32(1.5)), ("int32", np.int64(1)),
                                          ("uint8", np.int8(-1)), ("float32", np.float64(0.1)),
                                          ("bool", np.int16(3)), ("int8", np.float16(2.5))])
def test_numpy_scalars_are_typed(device, dtype, scalar):
    a = np.array([0, 1, 3], dtype=dtype)
    x = porta.asarray(a)
    same(x + scalar, a + scalar)
    same(scalar * x, scalar * a)
    assert porta.result_type(x, scalar) == (a + scalar).dtype


# Slices.

@pytest.mark.parametrize("key", [slice(-5, None, -1), slice(-4, -9, -1), slice(-3, -4, -1), slice(-3, None, -2),
                                 slice(None, -5, -1), slice(7, -5, -1), slice(-9, 9, 2)], ids=repr)
def test_negative_step_slices(device, rng, key):
    a = rng.standard_normal((3, 4, 3))
    x = porta.asarray(a)
    same(x[key], a[key])
    same(x[..., key, :], a[..., key, :])
    same(x[:, :, key], a[:, :, key])
    a[key] = 7.0
    x[key] = 7.0
    a[..., key] = -1.0
    x[..., key] = -1.0
    same(x, a)


@pytest.mark.parametrize("points", [[-3], [3, 1], [-9, 9, 2], [0, -1], [5, -20, 2], []], ids=str)
def test_split_at_points(device, points):
    a = np.arange(20).reshape(4, 5)
    x = porta.asarray(a)
    for axis in (0, 1):
        got, want = porta.split(x, points, axis=axis), np.split(a, points, axis=axis)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
