"""PyOpenCL's first program (a + b over two random float32 vectors) on porta's OpenCL backend:
an OpenCL C kernel and the same sum as a porta expression."""
import sys

import numpy as np

import porta

try:
    dev = porta.Device("opencl")
except porta.DeviceError as e:
    print(f"skipped: no OpenCL device ({e})")
    sys.exit(77)

a_np = np.random.rand(50000).astype(np.float32)
b_np = np.random.rand(50000).astype(np.float32)
with dev:
    a_g, b_g = porta.asarray(a_np), porta.asarray(b_np)
    res_g = porta.empty_like(a_g)
    prg = porta.RawKernel("""
    __kernel void sum(__global const float *a_g, __global const float *b_g, __global float *res_g) {
      int gid = get_global_id(0);
      res_g[gid] = a_g[gid] + b_g[gid];
    }""", "sum")
    prg(a_np.shape, None, (a_g, b_g, res_g))  # prg.sum(queue, a_np.shape, None, ...): the runtime picks the local size
    res_np = res_g.get()
    print(dev, "difference:", np.abs(res_np - (a_np + b_np)).max())
    assert np.allclose(res_np, a_np + b_np)
    assert np.allclose((a_g + b_g).get(), a_np + b_np)
