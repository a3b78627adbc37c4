"""Five threading.Threads, each doing GPU work at the same time (porta releases the GIL)."""
import threading

import numpy as np

import porta as cp

results = {}


def gpu_task(i):
    x = cp.arange(1_000_000, dtype=cp.float32) * (i + 1)
    results[i] = float(cp.sum(x * x))
    print(f"thread {i}: sum = {results[i]:.6g}")


threads = [threading.Thread(target=gpu_task, args=(i,)) for i in range(5)]
for t in threads:
    t.start()
for t in threads:
    t.join()

ref = (np.arange(1_000_000, dtype=np.float64) ** 2).sum()
for i in range(5):
    assert abs(results[i] - ref * (i + 1) ** 2) <= 1e-4 * ref * (i + 1) ** 2, (i, results[i])
