"""a[...] with integers, slices with steps, negative indices, None and Ellipsis, as NumPy."""
import numpy as np
import pytest

import porta

KEYS = [
    1, -1, (2, 3), (-1, -2), slice(1, 4), slice(None, None, 2), slice(None, None, -1), slice(5, 0, -2),
    (slice(1, None), slice(None, None, -3)), (Ellipsis, 2), (None, 1), (1, None, slice(2, 5)), (Ellipsis, None),
    (slice(None), -1, slice(None, 2)), Ellipsis, (),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_getitem_matches_numpy(device, rng, key):
    a = rng.standard_normal((6, 7, 5)).astype(np.float32)
    x = porta.asarray(a)
    got, want = x[key], a[key]
    assert got.shape == want.shape
    np.testing.assert_array_equal(porta.asnumpy(got), want)


def test_bad_indices_raise_index_error(device):
    x = porta.zeros((3, 4))
    with pytest.raises(IndexError):
        x[3]
    with pytest.raises(IndexError):
        x[0, 0, 0]
    with pytest.raises(IndexError):
        x[..., ...]


def test_shape_methods_match_numpy(device, rng):
    a = rng.standard_normal((4, 6))
    x = porta.asarray(a)
    np.testing.assert_array_equal(x.T.get(), a.T)
    np.testing.assert_array_equal(x.reshape(3, 8).get(), a.reshape(3, 8))
    np.testing.assert_array_equal(x.reshape((-1, 2)).get(), a.reshape(-1, 2))
    np.testing.assert_array_equal(porta.transpose(x.reshape(2, 3, 4), (2, 0, 1)).get(), a.reshape(2, 3, 4).transpose(2, 0, 1))
    np.testing.assert_array_equal(porta.expand_dims(x, 1).get(), np.expand_dims(a, 1))
    np.testing.assert_array_equal(x[:, 1:2].squeeze().get(), a[:, 1:2].squeeze())
    assert [r.tolist() for r in x] == a.tolist()
    assert x[1, 2].item() == a[1, 2] and float(x[0, 0]) == a[0, 0] and len(x) == 4
