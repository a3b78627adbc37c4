"""porta's exceptions arrive as Python exceptions under porta.Error, with porta's message."""
import numpy as np
import pytest

import porta


def test_shape_error_is_a_value_error_with_the_shapes(device):
    with pytest.raises(ValueError) as e:
        porta.ones((3, 2)) @ porta.ones((3, 2))
    assert isinstance(e.value, porta.ShapeError) and isinstance(e.value, porta.Error)
    assert "3" in str(e.value) and "2" in str(e.value)
    with pytest.raises(porta.ShapeError):
        porta.ones(3) + porta.ones(4)


def test_dtype_error_is_a_type_error(device):
    with pytest.raises(TypeError) as e:
        porta.ones(4) & porta.ones(4)  # bitwise on floats (integer matmul is NumPy's, exact)
    assert isinstance(e.value, porta.DTypeError)
    with pytest.raises(porta.DTypeError, match="datetime64"):  # NumPy dtypes porta has no dtype for
        porta.asarray(np.array(["2026-12-06"], dtype="datetime64[D]"))
    with pytest.raises(porta.DTypeError):
        porta.zeros(3, dtype="float128")


def test_out_of_memory_is_a_memory_error(device):
    with pytest.raises(MemoryError) as e:
        porta.empty((1 << 46,), dtype=np.float32).eval()
    assert isinstance(e.value, porta.OutOfMemory)
    assert e.value.requested_bytes >= 1 << 48
    # A failed call leaves the device usable.
    np.testing.assert_array_equal(porta.arange(5).get(), np.arange(5))


def test_unknown_device_lists_the_devices():
    with pytest.raises(porta.DeviceError) as e:
        porta.Device("opencl:99")
    assert porta.devices()[0].spec in str(e.value)
