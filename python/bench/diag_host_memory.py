"""Diagnostics for DLPack through host memory and memory growth on an OpenCL CPU device (PoCL).

  python diag_host_memory.py [DEVICE] [--memory]

Prints, for porta.from_dlpack(porta_array) and the other host paths, what the exported tensor says
(flags, pointer alignment) and where values differ; with --memory the resident size over windows
of small adds, with the caching allocator and with PORTA_ALLOC=direct (in a child process).
"""
import ctypes
import gc
import os
import subprocess
import sys

import numpy as np

import porta

api = ctypes.pythonapi
api.PyCapsule_GetPointer.restype = ctypes.c_void_p
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def describe_capsule(cap):
    name = b"dltensor_versioned" if "versioned" in repr(cap) else b"dltensor"
    p = api.PyCapsule_GetPointer(cap, name)
    base = p + (32 if name == b"dltensor_versioned" else 0)
    flags = ctypes.c_uint64.from_address(p + 24).value if name == b"dltensor_versioned" else None
    data = ctypes.c_uint64.from_address(base).value
    dev = (ctypes.c_int32.from_address(base + 8).value, ctypes.c_int32.from_address(base + 12).value)
    off = ctypes.c_uint64.from_address(base + 40).value
    return f"{name.decode()} flags={flags} device={dev} data=0x{data:x} (mod 128: {data % 128}, mod 4096: {data % 4096}) byte_offset={off}"


def compare(label, got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape == want.shape and np.array_equal(got, want):
        print(f"  {label}: OK")
        return
    print(f"  {label}: DIFFERENT shape {got.shape} vs {want.shape}")
    g, w = got.reshape(-1), want.reshape(-1)
    n = min(g.size, w.size)
    bad = np.flatnonzero(g[:n] != w[:n])
    print(f"    {bad.size} of {n} differ; first at {bad[:8]}; zeros in got: {(g == 0).sum()}")
    print(f"    got  {g[:8]}\n    want {w[:8]}")
    for shift in range(-16, 17):  # the data at another offset?
        if shift and 0 < n - abs(shift) and np.array_equal(g[max(0, shift):n + min(0, shift)], w[max(0, -shift):n - max(0, shift)]):
            print(f"    got[i] == want[i - {shift}]")


def roundtrips(dev):
    rng = np.random.default_rng(7)
    print(dev, "|", dev.name, "|", dev.platform, "|", dev.driver_version)
    with dev:
        for shape in [(4, 5), (1024,), (33, 7), (4096,), (100000,)]:
            h = rng.standard_normal(shape).astype(np.float32)
            a = porta.asarray(h)
            print(f"shape {shape}")
            cap = a.__dlpack__(max_version=(1, 0))
            print("  export:", describe_capsule(cap))
            del cap
            b = porta.from_dlpack(a)
            compare("porta.from_dlpack(porta) .get()", b.get(), h)
            compare("porta.from_dlpack(porta) + 0 (a kernel reads it)", (b + 0.0).get(), h)
            compare("np.from_dlpack(porta)", np.from_dlpack(a), h)
            hn = h.copy()
            c = porta.from_dlpack(hn)
            compare("porta.from_dlpack(numpy) .get()", c.get(), hn)
            compare("porta.from_dlpack(numpy) * 1 (a kernel reads it)", (c * 1.0).get(), hn)
            hu = np.frombuffer(np.concatenate([np.zeros(1, np.float32), h.reshape(-1)]).tobytes()[4:], np.float32)
            compare("porta.from_dlpack(numpy, 4-byte aligned) + 0", (porta.from_dlpack(hu) + 0.0).get(), h.reshape(-1))
            legacy = porta._core._from_dlpack_capsule(a.__dlpack__(), None)
            compare("legacy capsule import .get()", legacy.get(), h)
            del b, c, legacy
            gc.collect()


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def memory(dev, windows, ops):
    x = porta.ones(256, dtype=np.float32, device=dev)
    y = porta.ones(256, dtype=np.float32, device=dev)
    sizes = []
    for _ in range(windows):
        for _ in range(ops):
            (x + y).eval()
        porta.synchronize()
        gc.collect()
        sizes.append(round(rss(), 1))
    print(f"  PORTA_ALLOC={os.environ.get('PORTA_ALLOC', 'cached')}: resident MiB after each {ops} ops: {sizes};"
          f" Python objects {len(gc.get_objects())}", flush=True)


if __name__ == "__main__":
    dev = porta.Device(sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else "opencl:0")
    if "--memory-child" in sys.argv:
        memory(dev, 4, 50000)
        sys.exit(0)
    roundtrips(dev)
    if "--memory" in sys.argv:
        memory(dev, 5, 50000)
        env = dict(os.environ, PORTA_ALLOC="direct")
        subprocess.run([sys.executable, __file__, dev.spec, "--memory-child"], env=env, timeout=120)
