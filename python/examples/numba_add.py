"""Numba's @cuda.jit add with threadIdx.x + blockIdx.x * blockDim.x and 1024 threads per block,
as a RawKernel; and the same add as one ElementwiseKernel body for every compiling backend."""
import sys

import numpy as np

import porta

CUDA = r'''
extern "C" __global__ void add(const float* x, const float* y, float* out, long long n) {
  long long i = threadIdx.x + (long long)blockIdx.x * blockDim.x;
  if (i < n) out[i] = x[i] + y[i];
}
'''
OPENCL = r'''
__kernel void add(__global const float* x, __global const float* y, __global float* out, long n) {
  long i = get_local_id(0) + get_group_id(0) * get_local_size(0);
  if (i < n) out[i] = x[i] + y[i];
}
'''

dev = porta.current_device()
if not dev.compiles_at_runtime:
    print(f"skipped: {dev.spec} compiles no kernels at run time; set PORTA_DEVICE to a cuda or opencl device")
    sys.exit(77)

n = 1_000_000
x = porta.asarray(np.random.rand(n).astype(np.float32))
y = porta.asarray(np.random.rand(n).astype(np.float32))
out = porta.empty(n, dtype=porta.float32)
threads_per_block = 1024
blocks = (n + threads_per_block - 1) // threads_per_block
add = porta.RawKernel(CUDA if dev.backend == "cuda" else OPENCL, "add")
add(blocks, threads_per_block, (x, y, out, np.int64(n)))  # add[blocks, threads_per_block](x, y, out)
assert np.allclose(out.get(), x.get() + y.get())

add_ew = porta.ElementwiseKernel("float32 x, float32 y", "float32 out", "out = x + y", "add_ew")
assert np.allclose(add_ew(x, y).get(), x.get() + y.get())
print(f"{dev.spec}: {n} adds in {blocks} blocks of {threads_per_block}: ok")
