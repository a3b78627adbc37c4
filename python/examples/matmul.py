"""torch.matmul of two 1000x1000 matrices on the GPU, timed on the device."""
import time

import numpy as np

import porta

a_host = np.random.rand(1000, 1000).astype(np.float32)
b_host = np.random.rand(1000, 1000).astype(np.float32)
a, b = porta.asarray(a_host), porta.asarray(b_host)
porta.matmul(a, b).eval()  # warm-up
porta.synchronize()
t0 = time.perf_counter()
c = porta.matmul(a, b).eval()
porta.synchronize()
seconds = time.perf_counter() - t0
print(f"{c.device}: 1000x1000 matmul in {seconds * 1e3:.2f} ms, {2e9 / seconds / 1e9:.1f} GFLOP/s")
ref = a_host.astype(np.float64) @ b_host.astype(np.float64)
assert np.allclose(c.get(), ref, rtol=1e-4)
