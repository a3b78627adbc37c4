"""ThreadPoolExecutor(max_workers=5) with submit and as_completed; then the same with
porta.DevicePool, whose workers are porta's own device threads."""
from concurrent.futures import ThreadPoolExecutor, as_completed

import porta as cp


def task(n):
    x = cp.random.rand(n, dtype=cp.float32)
    return n, float(cp.mean(x)), x.device.spec


sizes = [10_000 * (k + 1) for k in range(10)]
with ThreadPoolExecutor(max_workers=5) as executor:
    futures = [executor.submit(task, n) for n in sizes]
    for f in as_completed(futures):
        n, m, spec = f.result()
        print(f"ThreadPoolExecutor: n = {n}: mean = {m:.4f} on {spec}")
        assert 0.45 < m < 0.55

with cp.DevicePool() as pool:
    futures = {pool.submit(task, n): n for n in sizes}
    for f in as_completed(futures):
        n, m, spec = f.result()
        print(f"DevicePool: n = {n}: mean = {m:.4f} on {spec}")
        assert n == futures[f] and 0.45 < m < 0.55
