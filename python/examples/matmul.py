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
start = porta.Event.record()
c = porta.matmul(a, b).eval()
stop = porta.Event.record()
stop.synchronize()
seconds = time.perf_counter() - t0
ms = stop.elapsed_ms(start)
print(f"{c.device}: 1000x1000 matmul in {ms:.2f} ms on the device ({seconds * 1e3:.2f} ms on the host), "
      f"{2e9 / (ms * 1e6):.1f} GFLOP/s")
assert 0 < ms <= seconds * 1e3 * 1.5 + 1
ref = a_host.astype(np.float64) @ b_host.astype(np.float64)
assert np.allclose(c.get(), ref, rtol=1e-4)
