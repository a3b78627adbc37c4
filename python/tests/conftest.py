"""Every test runs on every device porta finds (porta.devices()), with that device current.

The parameters are device specs, not Device objects: pytest keeps its parameters for the whole
session (and, on Python 3.12, not always freed by the time the interpreter ends: pytest issue
11773), and a porta.Device it still held then would be reported by nanobind as a leaked instance.
Each test gets a Device made for it, dropped after it (test_leaks.py checks the exit is clean)."""
import numpy as np
import pytest

import porta

DEVICE_SPECS = [d.spec for d in porta.devices()]


@pytest.fixture(params=DEVICE_SPECS)
def device(request):
    with porta.Device(request.param) as d:
        yield d


@pytest.fixture
def rng():
    return np.random.default_rng()


def needs_runtime_compile(device):
    if not device.compiles_at_runtime:
        pytest.skip(f"{device.spec} compiles no kernels at run time (ElementwiseKernel, RawKernel need CUDA or OpenCL)")


def assert_sums_close(got, want, magnitude, eps=1e-13):
    """A float64 sum (or dot product) is off by about eps * (sum of its terms' magnitudes), not by
    eps * |sum|: random terms that cancel leave a small sum with the rounding of the large terms.
    magnitude is the same reduction over the terms' absolute values (np.abs(a).sum(axis), |a| @ |b|)."""
    got, want, magnitude = np.asarray(got), np.asarray(want), np.asarray(magnitude)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_array_less(np.abs(got - want), eps * magnitude + 1e-300)
