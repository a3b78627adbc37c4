"""Diagnostic: do writes made on a Python thread that has ended reach another thread's read?

A worker thread writes x[0] = row, then x.T[0] = 7 (the column over it), five times, and ends
without porta.synchronize(); the main thread then reads x. porta orders writes into the same memory
from any thread (docs/guide/threads.md), so x[0, 0] must be 7. Each variant runs TRIALS times on
each device given (default: every device) and prints how many reads were wrong:

  same        everything on the main thread
  thread      the writes on a worker thread that ends at once
  sync        the same, with porta.synchronize() at the end of the worker
  sleep       the same, with the worker sleeping 50 ms before it ends

    python/bench/diag_cross_thread_writes.py [device ...] [--trials=N]

On the build machine on 2026-12-01 (12:45-12:48 UTC, loaded) opencl:0 (PoCL 5.0) read a stale
x[0, 0] (the row's value, not 7) in 0, 7, 10 and 20 of 60 `thread` trials in four runs and 16 of 100
in a fifth, and in none of the `same`, `sync` and `sleep` trials; kokkos:0 in none. Exit status 1
when any read was wrong. diag_cross_thread_writes.cpp reproduces it from C++ when the main thread
reads after the worker's function returned but before the OS thread ended (Python's Thread.join()
returns then, before the thread's thread_local destructors run): 66 of 100 once, never after a
std::thread::join.
"""
import sys
import threading
import time

import numpy as np

import porta


def trial(dev, variant, rng):
    with dev:
        x = porta.zeros((2, 37), dtype="float32")
        vals = rng.standard_normal((5, 37)).astype(np.float32)

        def work():
            for k in range(5):
                x[0] = porta.asarray(vals[k])
                x.T[0] = 7.0

        def worker():
            with dev:
                work()
                if variant == "sync":
                    porta.synchronize()
                elif variant == "sleep":
                    time.sleep(0.05)

        if variant == "same":
            work()
        else:
            th = threading.Thread(target=worker)
            th.start()
            th.join()
        want = np.zeros((2, 37), np.float32)
        want[0] = vals[4]
        want[:, 0] = 7.0
        return np.array_equal(x.get(), want)


def main(argv):
    trials = 60
    specs = []
    for a in argv:
        if a.startswith("--trials="):
            trials = int(a.split("=", 1)[1])
        else:
            specs.append(a)
    devs = [porta.Device(s) for s in specs] if specs else porta.devices()
    rng = np.random.default_rng()
    failed = False
    for dev in devs:
        for variant in ("same", "thread", "sync", "sleep"):
            bad = sum(not trial(dev, variant, rng) for _ in range(trials))
            failed |= bad > 0
            print(f"{dev.spec:10} {variant:7} wrong reads: {bad} of {trials}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
