"""Zero-copy DLPack exchange between porta and PyTorch / CuPy on a CUDA GPU, through ctypes and
tests/dlpack_shim.cpp (libporta_dlpack_shim.so), checked by pointer equality and by writes seen
on both sides, for the legacy and the versioned form and for the __dlpack__(stream=...) rules.

    python3 tests/dlpack_peers.py build/lib/libporta_dlpack_shim.so

Exits non-zero on a failure; prints SKIP and exits 0 where torch, cupy or a CUDA GPU is missing.
"""
import ctypes
import gc
import sys

try:
    import torch
    import cupy as cp
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(0)
if not torch.cuda.is_available():
    print("SKIP: no CUDA GPU")
    sys.exit(0)

lib = ctypes.CDLL(sys.argv[1])
vp, ll = ctypes.c_void_p, ctypes.c_longlong
for name, res, args in [("porta_shim_error", ctypes.c_char_p, []), ("porta_shim_arange", vp, [ctypes.c_char_p, ll]),
                        ("porta_shim_export", vp, [vp, ll, ctypes.c_int]), ("porta_shim_import", vp, [vp, ctypes.c_int, ll]),
                        ("porta_shim_pointer", ctypes.c_ulonglong, [vp]), ("porta_shim_sum", ctypes.c_double, [vp]),
                        ("porta_shim_negate", ctypes.c_int, [vp]), ("porta_shim_release", None, [vp])]:
    getattr(lib, name).restype = res
    getattr(lib, name).argtypes = args

api = ctypes.pythonapi
api.PyCapsule_New.restype = ctypes.py_object
api.PyCapsule_New.argtypes = [vp, ctypes.c_char_p, vp]
api.PyCapsule_GetPointer.restype = vp
api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
api.PyCapsule_SetName.restype = ctypes.c_int
api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def must(p):
    if not p:
        raise RuntimeError(lib.porta_shim_error().decode())
    return p


class PortaTensor:
    """A porta array as a DLPack producer (__dlpack__, __dlpack_device__)."""

    def __init__(self, n):
        self.handle = must(lib.porta_shim_arange(b"cuda:0", n))
        self.streams = []

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA, device 0

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        self.streams.append(stream)
        s = 1 if stream is None else stream  # None: the legacy default stream
        versioned = max_version is not None and max_version[0] >= 1
        p = must(lib.porta_shim_export(self.handle, s, int(versioned)))
        # No capsule destructor here: the consumer renames the capsule and owns the deleter.
        return api.PyCapsule_New(p, b"dltensor_versioned" if versioned else b"dltensor", None)


def total(x):
    """The exact sum (float64) of a torch or cupy array."""
    return x.double().sum().item() if isinstance(x, torch.Tensor) else x.astype(cp.float64).sum().item()


n = 1 << 20
base = n * (n - 1) / 2

# porta -> torch and porta -> cupy: the same memory, writes seen both ways.
for consumer in ("torch", "cupy"):
    src = PortaTensor(n)
    x = torch.from_dlpack(src) if consumer == "torch" else cp.from_dlpack(src)
    ptr = x.data_ptr() if consumer == "torch" else x.data.ptr
    check(ptr == lib.porta_shim_pointer(src.handle), f"porta -> {consumer}: zero-copy (pointer equality)")
    check(src.streams and src.streams[0] not in (None, -1), f"porta -> {consumer}: the consumer passed its stream ({src.streams})")
    x *= 2  # the consumer writes
    torch.cuda.synchronize(); cp.cuda.Device().synchronize()
    check(lib.porta_shim_sum(src.handle) == 2 * base, f"porta -> {consumer}: porta reads the consumer's write")
    check(lib.porta_shim_negate(src.handle) == 0, f"porta -> {consumer}: porta's RawKernel ran")
    check(float(total(x)) == -2 * base, f"porta -> {consumer}: the consumer reads porta's write")
    del x
    gc.collect()
    lib.porta_shim_release(src.handle)

# torch -> porta and cupy -> porta, legacy and versioned.
for producer in ("torch", "cupy"):
    for versioned in (False, True):
        x = torch.arange(n, dtype=torch.float32, device="cuda") if producer == "torch" else cp.arange(n, dtype=cp.float32)
        stream = torch.cuda.current_stream().cuda_stream if producer == "torch" else cp.cuda.get_current_stream().ptr
        if versioned:
            try:
                cap = x.__dlpack__(stream=-1, max_version=(1, 0))
            except TypeError:
                print(f"skip {producer} -> porta versioned: {producer} has no max_version")
                continue
            name = b"dltensor_versioned"
        else:
            cap = x.__dlpack__(stream=-1)  # no max_version: the legacy capsule
            name = b"dltensor"
        p = api.PyCapsule_GetPointer(cap, name)
        h = lib.porta_shim_import(p, int(versioned), stream if stream else 1)
        what = f"{producer} -> porta ({'versioned' if versioned else 'legacy'})"
        if not h:
            check(False, f"{what}: {lib.porta_shim_error().decode()}")
            continue
        api.PyCapsule_SetName(cap, b"used_" + name)  # porta owns the deleter now
        ptr = x.data_ptr() if producer == "torch" else x.data.ptr
        check(lib.porta_shim_pointer(h) == ptr, f"{what}: zero-copy (pointer equality)")
        check(lib.porta_shim_sum(h) == base, f"{what}: porta reads the producer's values")
        check(lib.porta_shim_negate(h) == 0, f"{what}: porta's RawKernel ran")
        check(float(total(x)) == -base, f"{what}: the producer reads porta's write")
        lib.porta_shim_release(h)  # the producer's deleter runs here
        del cap
        check(float(x[-1]) == -(n - 1), f"{what}: the producer's tensor is intact after porta let go")

print("FAILED: " + "; ".join(failures) if failures else "all passed")
sys.exit(1 if failures else 0)
