"""porta.random.integers / randint: NumPy's Generator.integers ranges for every integer dtype, the
same bits on every device for a seed (the C++ tests check the bits against the host's formula)."""
import numpy as np
import pytest

import porta

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
DEVICE_SPECS = [d.spec for d in porta.devices()]


def ranges(dtype):
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    # The whole dtype, a small range, one at the top end, one of a single value.
    return [(lo, hi + 1), (0, 7), (hi - 2, hi + 1), (3, 4)]


@pytest.mark.parametrize("dtype", INTS)
def test_values_lie_in_the_range_with_the_dtype(device, dtype):
    if not device.supports(dtype):
        pytest.skip(f"{device.spec} has no {dtype}")
    for low, high in ranges(dtype):
        x = porta.random.integers(low, high, size=(3, 1001), dtype=dtype, device=device)
        got = x.get()
        assert x.dtype == np.dtype(dtype) and got.shape == (3, 1001)
        assert int(got.min()) >= low and int(got.max()) < high, (low, high, got.min(), got.max())
        if high - low <= 7:
            assert set(np.unique(got).tolist()) == set(range(low, high)), (low, high)  # every value drawn
    # The whole uint64/int64 range reaches both halves.
    if dtype in ("uint64", "int64"):
        lo, hi = ranges(dtype)[0]
        got = porta.random.integers(lo, hi, size=4096, dtype=dtype, device=device).get()
        mid = (lo + hi) // 2
        assert (got.astype(object) >= mid).any() and (got.astype(object) < mid).any()


def test_endpoint_randint_and_a_single_bound(device):
    a = porta.random.integers(5, size=2000, device=device).get()
    assert a.dtype == np.int64 and a.min() >= 0 and a.max() <= 4
    b = porta.random.integers(250, 255, size=2000, dtype=np.uint8, endpoint=True, device=device).get()
    assert b.dtype == np.uint8 and set(np.unique(b).tolist()) == {250, 251, 252, 253, 254, 255}
    c = porta.random.randint(-3, 3, size=(10, 10), dtype="int16", device=device).get()
    assert c.dtype == np.int16 and c.min() >= -3 and c.max() <= 2
    assert porta.random.integers(0, 9, size=0, device=device).get().shape == (0,)


def test_numpys_errors(device):
    with pytest.raises(ValueError):
        porta.random.integers(5, 5, size=3, device=device)  # empty range
    with pytest.raises(ValueError):
        porta.random.integers(0, 257, size=3, dtype="uint8", device=device)  # high outside uint8
    with pytest.raises(ValueError):
        porta.random.integers(-1, 3, size=3, dtype="uint32", device=device)
    with pytest.raises(ValueError):
        porta.random.integers(0, 2**64 + 1, size=3, dtype="uint64", device=device)
    with pytest.raises(porta.DTypeError):
        porta.random.integers(0, 3, size=3, dtype="float32", device=device)


@pytest.mark.skipif(len(DEVICE_SPECS) < 2, reason="needs two devices")
def test_the_same_bits_on_every_device():
    draws = []
    for spec in DEVICE_SPECS:
        d = porta.Device(spec)
        row = []
        for dtype in INTS:
            if not d.supports(dtype):
                row.append(None)
                continue
            porta.random.seed(20261206)
            lo, hi = ranges(dtype)[0]
            row.append(porta.random.integers(lo, hi, size=777, dtype=dtype, device=d).get())
        draws.append(row)
    for k, dtype in enumerate(INTS):
        got = [r[k] for r in draws if r[k] is not None]
        for other in got[1:]:
            np.testing.assert_array_equal(other, got[0], err_msg=dtype)
