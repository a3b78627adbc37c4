"""A process that used porta on every device ends without nanobind reporting leaked instances
("nanobind: leaked N instances!" on stderr at exit): no Device, array or other porta object is
held past the interpreter's end by the package (module globals, caches, pool threads, atexit
order), nor by the test suite's own fixtures (conftest.py: parameters are specs, not Devices)."""
import os
import pathlib
import subprocess
import sys
import textwrap

import porta

TESTS = pathlib.Path(__file__).resolve().parent

# Everything that makes porta.Device objects, on every device, with some of them left in module
# globals, in a thread's current device, in a finished pool's futures and in a stored exception,
# as a user's program leaves them at exit. CUDA devices also go through PyTorch and CuPy where
# those import.
PROGRAM = textwrap.dedent('''
    import threading
    from concurrent.futures import as_completed
    import numpy as np
    import porta

    import os
    devs = porta.devices()
    assert len(devs) >= 1
    default, current = porta.default_device(), porta.current_device()
    assert default.spec == os.environ["PORTA_DEVICE"] == current.spec
    kept = []
    for d in devs:
        same = porta.Device(d.spec)
        assert same == d and porta.get_device(d.spec) == d
        with porta.Device(d.spec) as inner:
            x = porta.arange(1000, dtype=porta.float32)
            assert x.device == inner and porta.current_device() == inner
            y = (x * 2.0 + 1.0).eval()
            e0 = porta.Event.record(inner)
            s = float(porta.sum(y))
            e1 = porta.Event.record(d)
            assert e1.elapsed_ms(e0) >= 0 and s == 1000.0 * 1000.0
            h = np.random.rand(64)
            assert np.array_equal(porta.asnumpy(porta.asarray(h, device=d)), h)
            kept.append((x.device, y.to(devs[0]).device, y))
        if d.compiles_at_runtime:
            k = porta.ElementwiseKernel("float32 a", "float32 b", "b = a * 3")
            with d:
                assert porta.asnumpy(k(porta.ones(8, dtype=porta.float32)))[0] == 3
    stored_error = None
    try:
        porta.Device("nosuchbackend:7")
    except porta.Error as e:
        stored_error = e
    assert stored_error is not None

    def worker(d, out):
        d.use()
        out.append((porta.current_device(), int(porta.arange(100).sum())))

    out = []
    threads = [threading.Thread(target=worker, args=(d, out)) for d in devs]
    for t in threads: t.start()
    for t in threads: t.join()
    assert sorted(v for _, v in out) == [4950] * len(devs)

    with porta.DevicePool() as pool:
        futures = [pool.submit(lambda: (porta.current_device(), float(porta.ones(10).sum()))) for _ in range(8)]
        futures += [pool.submit(lambda: porta.current_device(), device=d) for d in pool.devices]
        results = [f.result() for f in as_completed(futures)]
        mapped = list(pool.map(lambda n: int(porta.arange(n).sum()), range(1, 6)))
    assert mapped == [0, 1, 3, 6, 10]
    unclosed = porta.DevicePool(devs)  # never shut down: the package's atexit handler drains it
    unclosed.submit(lambda: porta.current_device())

    for d in devs:
        if d.backend != "cuda":
            continue
        try:
            import torch
            if torch.cuda.is_available():
                t = torch.ones(16, device=f"cuda:{d.index}")
                a = porta.from_dlpack(t)
                back = torch.from_dlpack(a * 2.0)
                assert float(back.sum()) == 32.0 and a.device == d
                kept.append((a, back))
        except ImportError:
            pass
        try:
            import cupy as cp
            c = cp.ones(16, dtype=cp.float32)
            a = porta.from_dlpack(c)
            kept.append((a, cp.from_dlpack(a * 2.0), porta.from_cuda_array_interface(c)))
        except ImportError:
            pass
    print("ok", len(devs), "devices")
''')


def _run(args, env=None, **kw):
    env = {**{k: v for k, v in os.environ.items() if k != "PORTA_DEVICE"}, **(env or {})}
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=600, **kw)


def _leak_lines(text):
    return [line for line in text.splitlines() if "leaked" in line]


def test_a_program_on_every_device_exits_without_leaks(device):
    # Every device in one process; this one is the default device (PORTA_DEVICE).
    out = _run(["-c", PROGRAM], env={"PORTA_DEVICE": device.spec})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"ok {len(porta.devices())} devices", out.stdout
    assert not _leak_lines(out.stderr), out.stderr


def test_a_deliberate_leak_is_reported(device):
    # The probe works: an instance whose reference is never dropped is reported at exit.
    code = "import ctypes, porta; d = porta.Device(%r); ctypes.pythonapi.Py_IncRef(ctypes.py_object(d))" % device.spec
    out = _run(["-c", code])
    assert out.returncode == 0, out.stderr
    assert any('of type "porta._core.Device"' in line for line in _leak_lines(out.stderr)), out.stderr


def test_the_test_suites_fixtures_leave_nothing_at_exit():
    # Not per device: the interop and event tests in a pytest of their own run on every device,
    # through conftest.py's device fixture, with the PyTorch and CuPy cases where those exist.
    out = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", str(TESTS / "test_interop.py"),
                str(TESTS / "test_event.py")], cwd=TESTS)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    assert not _leak_lines(out.stderr) and not _leak_lines(out.stdout), out.stderr[-4000:]
