"""One device per thread: cp.cuda.Device(i).use() in thread i becomes porta.Device(i).use()."""
import threading

import porta as cp

n_devices = len(cp.devices())
out = [None] * n_devices


def worker(i):
    cp.Device(i).use()  # this thread's arrays land on device i
    x = cp.arange(1000)
    out[i] = (x.device.spec, int(cp.sum(x)))


threads = [threading.Thread(target=worker, args=(i,)) for i in range(n_devices)]
for t in threads:
    t.start()
for t in threads:
    t.join()
for i, (spec, total) in enumerate(out):
    print(f"thread {i}: {spec}: {total}")
    assert spec == cp.devices()[i].spec and total == 499500
