"""ElementwiseKernel and RawKernel (CuPy's and PyCUDA's), and compile errors with their log."""
import numpy as np
import pytest

import porta
from conftest import needs_runtime_compile

CUDA_ADD = r'''
extern "C" __global__ void add2d(float* c, const float* a, const float* b, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) c[row * n + col] = a[row * n + col] + b[row * n + col];
}
'''
OPENCL_ADD = r'''
__kernel void add2d(__global float* c, __global const float* a, __global const float* b, int n) {
  int col = get_global_id(0);
  int row = get_global_id(1);
  if (row < n && col < n) c[row * n + col] = a[row * n + col] + b[row * n + col];
}
'''


def test_elementwise_kernel_matches_numpy(device, rng):
    needs_runtime_compile(device)
    k = porta.ElementwiseKernel("float32 a, float32 x, float32 y", "float32 z", "z = a * x + y", "saxpy")
    x = rng.standard_normal(1000).astype(np.float32)
    y = rng.standard_normal(1000).astype(np.float32)
    z = k(2.5, porta.asarray(x), porta.asarray(y))
    assert z.dtype == np.float32
    np.testing.assert_allclose(z.get(), 2.5 * x.astype(np.float64) + y, rtol=1e-5, atol=1e-6)


def test_raw_kernel_with_a_grid_of_4x4_blocks(device, rng):
    needs_runtime_compile(device)
    source = CUDA_ADD if device.backend == "cuda" else OPENCL_ADD
    add = porta.RawKernel(source, "add2d")
    n = 10
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    c = porta.full((n, n), np.nan, dtype=np.float32)
    add((3, 3), (4, 4, 1), (c, porta.asarray(a), porta.asarray(b), np.int32(n)))
    np.testing.assert_allclose(c.get(), a + b, rtol=1e-6)


def test_compile_error_carries_the_build_log(device):
    needs_runtime_compile(device)
    source = 'extern "C" __global__ void broken(float* x) { x[0] = undefined_name; }' if device.backend == "cuda" \
        else "__kernel void broken(__global float* x) { x[0] = undefined_name; }"
    k = porta.RawKernel(source, "broken")
    with pytest.raises(porta.CompileError) as e:
        k(1, 1, (porta.zeros(1, dtype=np.float32),))
    assert "undefined_name" in e.value.log and "undefined_name" in e.value.source
    assert isinstance(e.value, porta.Error)


def test_kernels_on_kokkos_say_which_devices_can_run_them(device):
    if device.compiles_at_runtime:
        pytest.skip("this device compiles kernels")
    k = porta.ElementwiseKernel("float32 x", "float32 z", "z = x + 1", "inc")
    with pytest.raises(porta.BackendUnavailable):
        k(porta.zeros(4, dtype=np.float32))


def test_elementwise_kernel_without_a_name(device, rng):
    # CuPy's name defaults to 'kernel', an OpenCL C keyword: porta's default compiles everywhere.
    needs_runtime_compile(device)
    k = porta.ElementwiseKernel("float32 x", "float32 z", "z = 2 * x - 1")
    h = rng.random(37).astype(np.float32)
    np.testing.assert_allclose(k(porta.asarray(h)).get(), 2 * h.astype(np.float64) - 1, rtol=1e-6)


def test_elementwise_kernel_refuses_a_keyword_as_its_name(device):
    # 'kernel' (CuPy's default) and 'global' are OpenCL C words: refused on every device, up front.
    for word in ("kernel", "global", "int"):
        with pytest.raises(porta.InvalidArgument, match=f"'{word}' is a keyword"):
            porta.ElementwiseKernel("float32 x", "float32 z", "z = x", word)
        with pytest.raises(porta.InvalidArgument, match=f"'{word}' is a keyword"):
            porta.ElementwiseKernel(f"float32 {word}", "float32 z", "z = 1")
