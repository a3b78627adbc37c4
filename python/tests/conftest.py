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
