"""Every test runs on every device porta finds (porta.devices()), with that device current."""
import numpy as np
import pytest

import porta

DEVICES = porta.devices()


@pytest.fixture(params=DEVICES, ids=[d.spec for d in DEVICES])
def device(request):
    with request.param as d:
        yield d


@pytest.fixture
def rng():
    return np.random.default_rng()


def needs_runtime_compile(device):
    if not device.compiles_at_runtime:
        pytest.skip(f"{device.spec} compiles no kernels at run time (ElementwiseKernel, RawKernel need CUDA or OpenCL)")
