"""PyCUDA's SourceModule add with block=(4, 4, 1): the kernel in CUDA C++ (or OpenCL C on
OpenCL devices), compiled at run time, launched with an explicit grid and block."""
import sys

import numpy as np

import porta

CUDA = r'''
extern "C" __global__ void add(float* dest, const float* a, const float* b, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) dest[row * n + col] = a[row * n + col] + b[row * n + col];
}
'''
OPENCL = r'''
__kernel void add(__global float* dest, __global const float* a, __global const float* b, int n) {
  int col = get_global_id(0);
  int row = get_global_id(1);
  if (row < n && col < n) dest[row * n + col] = a[row * n + col] + b[row * n + col];
}
'''

dev = porta.current_device()
if not dev.compiles_at_runtime:
    print(f"skipped: {dev.spec} compiles no kernels at run time; set PORTA_DEVICE to a cuda or opencl device")
    sys.exit(77)
add = porta.RawKernel(CUDA if dev.backend == "cuda" else OPENCL, "add")  # mod.get_function("add")

a = np.random.randn(4, 4).astype(np.float32)
b = np.random.randn(4, 4).astype(np.float32)
a_gpu, b_gpu = porta.asarray(a), porta.asarray(b)   # mem_alloc + memcpy_htod
dest = porta.empty_like(a_gpu)
add((1, 1), (4, 4, 1), (dest, a_gpu, b_gpu, np.int32(4)))  # add(..., block=(4, 4, 1))
print(dest.get() - (a + b))
assert np.allclose(dest.get(), a + b)
