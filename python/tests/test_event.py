"""porta.Event: device timing of this thread's queue, no longer than the host saw."""
import time

import numpy as np

import porta


def test_event_times_work_between_two_records(device, rng):
    a = porta.asarray(rng.standard_normal((256, 256)).astype(np.float32))
    (a @ a).eval()
    porta.synchronize()
    t0 = time.perf_counter()
    start = porta.Event.record()
    for _ in range(4):
        a = (a @ a) * (1.0 / 256)
    a.eval()
    stop = porta.Event.record(device)
    stop.synchronize()
    host_ms = (time.perf_counter() - t0) * 1e3
    assert stop.done
    ms = stop.elapsed_ms(start)
    assert 0 < ms <= host_ms * 1.05 + 0.5, (ms, host_ms)
    assert abs(porta.get_elapsed_time(start, stop) - ms) < 1e-9
