"""Python threads running porta at once: shared arrays, the GIL released, pools, lifetimes."""
import concurrent.futures
import threading
import time

import numpy as np
import pytest

import porta
from thread_util import longest_pause_during


def test_16_threads_on_shared_arrays_each_result_checked(device, rng):
    a = rng.standard_normal(4096).astype(np.float32)
    b = rng.standard_normal(4096).astype(np.float32)
    x, y = porta.asarray(a), porta.asarray(b)
    results, errors = {}, []

    def work(t):
        try:
            with device:
                out = []
                for k in range(20):
                    out.append(((x * float(t) + y * float(k)).sum()).item())
                results[t] = out
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(16)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    for t in range(16):
        want = [(a64 * t + b64 * k).sum() for k in range(20)]
        np.testing.assert_allclose(results[t], want, rtol=1e-4, atol=1e-2)


def _timed_porta_calls(a, b, k):
    """k matmuls (each .eval() is one call), then one synchronize(): the longest call's length."""
    longest = 0.0
    for _ in range(k):
        t0 = time.perf_counter()
        (a @ b).eval()
        longest = max(longest, time.perf_counter() - t0)
    t0 = time.perf_counter()
    porta.synchronize()
    return max(longest, time.perf_counter() - t0)


def test_a_long_porta_call_does_not_stop_python_threads(device, rng):
    # Sized so that one porta call lasts well over the interpreter's 5 ms switch interval: the
    # matmuls on a CPU device, the synchronize() after 4 queued ones on a GPU.
    n = 512
    while True:
        a = porta.asarray(rng.standard_normal((n, n)).astype(np.float32))
        b = porta.asarray(rng.standard_normal((n, n)).astype(np.float32))
        if _timed_porta_calls(a, b, 4) > 0.1 or n >= 8192:
            break
        n *= 2
    longest, max_gap = longest_pause_during(lambda: _timed_porta_calls(a, b, 4))
    if longest < 0.05:
        pytest.skip(f"{device.spec} ran {n}x{n} matmuls too fast to show it ({longest * 1e3:.1f} ms a call)")
    # With the GIL held through a call, this loop would stop for the whole call.
    assert max_gap < longest / 2, (max_gap, longest)


def test_device_pool_runs_python_tasks_and_returns_futures(device):
    with porta.DevicePool([device]) as pool:
        futures = {pool.submit(lambda i: (porta.arange(100) * i).sum().item(), i): i for i in range(12)}
        for f in concurrent.futures.as_completed(futures):
            assert f.result() == 4950 * futures[f]
        assert list(pool.map(lambda i: porta.current_device().spec, range(3))) == [device.spec] * 3
        bad = pool.submit(lambda: porta.ones(3) + porta.ones(4))
        with pytest.raises(porta.ShapeError):
            bad.result()


def test_arrays_outlive_their_pool_and_their_thread(device, rng):
    a = rng.standard_normal(300)
    with porta.DevicePool([device]) as pool:
        from_pool = pool.submit(lambda: porta.asarray(a) * 2.0).result()
    box = []
    th = threading.Thread(target=lambda: box.append(porta.asarray(a, device=device) + 1.0))
    th.start()
    th.join()
    del pool, th
    np.testing.assert_allclose(from_pool.get(), a * 2.0)
    np.testing.assert_allclose(box[0].get(), a + 1.0)


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_100k_small_ops_leave_memory_flat(device):
    # The resident size can take one step up well after the first ops (under pytest, 25-30 MiB
    # once, on PoCL) and then moves by +-8 MiB (measured: 109-128 MiB over 400k ops). A leak grows
    # in every window, so: three windows of 100k ops, and the last may add at most 16 MiB (a leak
    # of 170 bytes an op would add more).
    x = porta.ones(256, dtype=np.float32, device=device)
    y = porta.ones(256, dtype=np.float32, device=device)
    sizes = []
    for _ in range(3):
        for _ in range(100000):
            (x + y).eval()
        porta.synchronize()
        sizes.append(_rss_bytes())
    assert sizes[2] - sizes[1] < 16 << 20, f"resident size after each 100k ops: {sizes}"


def test_device_use_and_with_are_per_thread(device):
    seen = []

    def worker():
        device.use()
        seen.append(porta.zeros(2).device)
        with porta.Device(porta.devices()[-1]):
            seen.append(porta.current_device())
        seen.append(porta.current_device())

    th = threading.Thread(target=worker)
    th.start()
    th.join()  # the thread's scopes end with it
    assert seen == [device, porta.devices()[-1], device]
    assert porta.current_device() == device  # this thread's `with device` is untouched
