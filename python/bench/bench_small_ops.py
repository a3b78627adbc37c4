"""Python-side cost of porta next to CuPy, PyTorch and NumPy (whichever import), as JSON.

  python bench_small_ops.py [--device SPEC] [--quick] [--sgemm-n N] [--out FILE] [--flat-out FILE]
                            [--sections small,threads,large,dlpack] [--libs porta,cupy,torch,numpy]

- small_add: c = a + b on 1024 float32, time per op (porta forces each add with .eval(); the
  queue is synchronised once at the end, as for CuPy and PyTorch); small_add_out: CuPy's and
  PyTorch's add(a, b, out=c), which bench/peers/peers.py times (porta has no out=).
- threads_T: small adds from T Python threads at once, each on its own arrays (and, for CuPy and
  PyTorch, its own stream and out=, as peers.py does): ops/s in all.
- fused: 2.5*x*x + 1.5*x + 0.5*exp(-y) on 2^24 float32 (GB/s over 12 bytes an element), sum (GB/s),
  SGEMM n x n (GFLOP/s), best of host-timed runs, beside the peers. For figures comparable with
  porta-bench's C++ rows (its sizes, device events, medians) use bench_large.py.
- threads_T_switches_per_op: context switches of the T threads per op (/proc/thread-self/status),
  which shows GIL hand-offs: a convoy costs one or more per op.
- dlpack: host us per exchange of an evaluated 1024-float32 array, one call at a time then one wait,
  as bench/peers/peers.py's per_op: porta.from_dlpack(porta_array) (porta's export and import, the
  Python twin of porta-bench's interop_dlpack_roundtrip), porta to and from PyTorch, CuPy and NumPy,
  and the peers' torch.from_dlpack(cupy_array) and cupy.from_dlpack(torch_tensor) in the same run.

The "flat" object (also --flat-out, numbers only) uses bench/peers/peers.py's key style, porta as
"porta_py", so that porta-bench --peers=FILE can read it beside peers.json. PORTA_GIL_HOLD_US
(docs/guide/python.md, The GIL) is recorded as gil_hold_us; run once with PORTA_GIL_HOLD_US=0 to compare.
"""
import argparse
import json
import statistics
import threading
import time

import numpy as np

import porta


def best_of(fn, repeats, sync):
    fn()
    sync()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t0)
    return best


class Lib:
    """One library's spelling of the benchmark's work."""

    def __init__(self, name, mod, put, sync, force=lambda a: a, exp=None, total=None, matmul=None,
                 add_out=None, thread_stream=None):
        self.name, self.mod, self.put, self.sync, self.force = name, mod, put, sync, force
        # add_out(a, b, out): the add without an allocation (CuPy's and PyTorch's out=), as
        # bench/peers/peers.py times them; thread_stream(): a context giving a thread its own stream.
        self.add_out, self.thread_stream = add_out, thread_stream
        self.exp = exp or mod.exp
        self.total = total or mod.sum
        self.matmul = matmul or mod.matmul


def libraries(device):
    libs = []
    with device:
        libs.append(Lib("porta", porta, lambda h: porta.asarray(h, device=device), porta.synchronize,
                        force=lambda a: a.eval()))
    try:
        import cupy as cp
        libs.append(Lib("cupy", cp, cp.asarray, cp.cuda.Device().synchronize,
                        add_out=lambda a, b, o: cp.add(a, b, out=o),
                        thread_stream=lambda: cp.cuda.Stream(non_blocking=True)))
    except Exception:  # noqa: BLE001  (not installed, or no GPU)
        pass
    try:
        import torch
        if torch.cuda.is_available():
            libs.append(Lib("torch", torch, lambda h: torch.from_numpy(h).cuda(), torch.cuda.synchronize,
                            add_out=lambda a, b, o: torch.add(a, b, out=o),
                            thread_stream=lambda: torch.cuda.stream(torch.cuda.Stream())))
    except Exception:  # noqa: BLE001
        pass
    if device.kind == "cpu" or len(libs) == 1:
        libs.append(Lib("numpy", np, lambda h: h, lambda: None))
    return libs


def small_add(lib, seconds, out=False):
    a = lib.put(np.random.rand(1024).astype(np.float32))
    b = lib.put(np.random.rand(1024).astype(np.float32))
    if out:
        o = a + b
        op = lambda: lib.add_out(a, b, o)  # noqa: E731
    else:
        op = lambda: lib.force(a + b)  # noqa: E731
    for _ in range(1000):
        op()
    lib.sync()
    n, t0 = 0, time.perf_counter()
    while True:
        for _ in range(1000):
            op()
        n += 1000
        lib.sync()
        t = time.perf_counter() - t0
        if t > seconds:
            return t / n


def _switches():
    """This thread's context switches so far (Linux), or 0."""
    try:
        with open("/proc/thread-self/status") as f:
            return sum(int(line.split(":")[1]) for line in f if "ctxt_switches" in line)
    except OSError:
        return 0


def threaded_adds(lib, threads, seconds, device):
    """(ops/s of all threads together, context switches per op)."""
    counts = [0] * threads
    switches = [0] * threads
    start = threading.Barrier(threads + 1)
    stop = threading.Event()

    def worker(k):
        if lib.name == "porta":
            device.use()
        if lib.thread_stream:
            with lib.thread_stream():
                run(k)
        else:
            run(k)

    def run(k):
        a = lib.put(np.random.rand(1024).astype(np.float32))
        b = lib.put(np.random.rand(1024).astype(np.float32))
        lib.force(a + b)
        lib.sync()
        o = a + b
        op = (lambda: lib.add_out(a, b, o)) if lib.add_out else (lambda: lib.force(a + b))
        for _ in range(100):
            op()
        lib.sync()
        start.wait()
        s0 = _switches()
        n = 0
        while not stop.is_set():
            for _ in range(100):
                op()
            n += 100
        lib.sync()
        counts[k] = n
        switches[k] = _switches() - s0

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in ts:
        t.join()
    return sum(counts) / (time.perf_counter() - t0), sum(switches) / max(1, sum(counts))


def large(lib, n_elems, sgemm_n, repeats):
    x = lib.put(np.random.rand(n_elems).astype(np.float32))
    y = lib.put(np.random.rand(n_elems).astype(np.float32))
    out = {}
    # porta-bench's fused row (bench/suite_elementwise.cpp), so the two compare directly.
    t = best_of(lambda: lib.force(2.5 * x * x + 1.5 * x + 0.5 * lib.exp(-y)), repeats, lib.sync)
    out["fused_GBps"] = 12 * n_elems / t / 1e9
    t = best_of(lambda: lib.force(lib.total(x)), repeats, lib.sync)
    out["sum_GBps"] = 4 * n_elems / t / 1e9
    a = lib.put(np.random.rand(sgemm_n, sgemm_n).astype(np.float32))
    b = lib.put(np.random.rand(sgemm_n, sgemm_n).astype(np.float32))
    t = best_of(lambda: lib.force(lib.matmul(a, b)), max(1, repeats // 2), lib.sync)
    out["sgemm_GFLOPs"] = 2 * sgemm_n ** 3 / t / 1e9
    out["sgemm_n"] = sgemm_n
    return out


def per_op(fn, sync, n):
    """Host us per call of fn: n calls, then one wait (bench/peers/peers.py's per_op); median of 5."""
    fn()
    sync()
    runs = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        runs.append((time.perf_counter() - t0) / n * 1e6)
    return statistics.median(runs)


def dlpack_rows(libs, device, n):
    """Host us per DLPack exchange of an evaluated 1024-float32 array: porta with each peer present."""
    by = {lib.name: lib for lib in libs}
    h = np.random.rand(1024).astype(np.float32)
    with device:
        p = porta.asarray(h)
        p.eval()
    sync = porta.synchronize
    out = {"porta_py_dlpack_roundtrip_us": per_op(lambda: porta.from_dlpack(p), sync, n),
           "porta_py_dlpack_export_us": per_op(lambda: p.__dlpack__(max_version=(1, 0)), sync, n)}
    if "torch" in by:
        import torch
        t = torch.from_numpy(h).cuda()
        tsync = lambda: (torch.cuda.synchronize(), sync())  # noqa: E731
        out["torch_from_dlpack_porta_us"] = per_op(lambda: torch.from_dlpack(p), tsync, n)
        out["porta_from_dlpack_torch_us"] = per_op(lambda: porta.from_dlpack(t), tsync, n)
    if "cupy" in by:
        import cupy as cp
        c = cp.asarray(h)
        csync = lambda: (cp.cuda.Device().synchronize(), sync())  # noqa: E731
        out["cupy_from_dlpack_porta_us"] = per_op(lambda: cp.from_dlpack(p), csync, n)
        out["porta_from_dlpack_cupy_us"] = per_op(lambda: porta.from_dlpack(c), csync, n)
    if "torch" in by and "cupy" in by:
        both = lambda: (torch.cuda.synchronize(), cp.cuda.Device().synchronize())  # noqa: E731
        out["torch_from_dlpack_cupy_us"] = per_op(lambda: torch.from_dlpack(c), both, n)
        out["cupy_from_dlpack_torch_us"] = per_op(lambda: cp.from_dlpack(t), both, n)
    if device.kind == "cpu":
        out["numpy_from_dlpack_porta_us"] = per_op(lambda: np.from_dlpack(p), sync, n)
        out["porta_from_dlpack_numpy_us"] = per_op(lambda: porta.from_dlpack(h, device=device), sync, n)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default=None, help="porta device spec (default: porta's default device)")
    p.add_argument("--quick", action="store_true", help="short runs, for a smoke test")
    p.add_argument("--sgemm-n", type=int, default=None, help="SGEMM size (default 8192 on GPUs, 2048 on CPUs)")
    p.add_argument("--threads", default="1,4,8")
    p.add_argument("--seconds", type=float, default=None, help="length of each small-op run (default 1, --quick 0.2)")
    p.add_argument("--out", default=None, help="also write the JSON here")
    p.add_argument("--flat-out", default=None, help="also write the flat numbers (porta-bench --peers) here")
    p.add_argument("--sections", default="small,threads,large,dlpack")
    p.add_argument("--libs", default="porta,cupy,torch,numpy", help="which of the libraries present to time")
    args = p.parse_args()
    sections = set(args.sections.split(","))
    device = porta.Device(args.device) if args.device else porta.default_device()
    seconds = args.seconds or (0.2 if args.quick else 1.0)
    sgemm_n = args.sgemm_n or (512 if args.quick else 8192 if device.kind == "gpu" else 2048)
    n_elems = 1 << (20 if args.quick else 24)
    report = {"device": device.spec, "device_name": device.name, "gil_hold_us": porta._core._gil_hold_us,
              "results": {}}
    libs = [lib for lib in libraries(device) if lib.name in args.libs.split(",")]
    for lib in libs:
        r = {}
        if "small" in sections:
            r["small_add_us"] = small_add(lib, seconds) * 1e6
            if lib.add_out:
                r["small_add_out_us"] = small_add(lib, seconds, out=True) * 1e6
        if "threads" in sections:
            for t in (int(s) for s in args.threads.split(",")):
                r[f"threads_{t}_ops_per_s"], r[f"threads_{t}_switches_per_op"] = threaded_adds(lib, t, seconds, device)
        if "large" in sections:
            r.update(large(lib, n_elems, sgemm_n, 3 if args.quick else 10))
        report["results"][lib.name] = r
        print(f"{lib.name}: " + ", ".join(f"{k} {v:.4g}" for k, v in r.items()), flush=True)
    if "dlpack" in sections:
        report["dlpack"] = dlpack_rows(libs, device, 200 if args.quick else 2000)
        print("dlpack: " + ", ".join(f"{k} {v:.3g}" for k, v in report["dlpack"].items()), flush=True)
    # The same figures under bench/peers/peers.py's flat key names (porta as "porta_py"), so that
    # one file can hold both and a reader of peers.json finds them.
    flat = report["flat"] = {}
    for name, r in report["results"].items():
        key = "porta_py" if name == "porta" else name
        if "small_add_us" in r:
            flat[f"{key}_small_add_alloc_us_per_op"] = r["small_add_us"]
        if "small_add_out_us" in r:
            flat[f"{key}_small_add_us_per_op"] = r["small_add_out_us"]
        threads = {k.split("_")[1]: v for k, v in r.items() if k.startswith("threads_") and k.endswith("ops_per_s")}
        if threads:
            flat[f"{key}_threads_ops_per_s"] = threads
        if "fused_GBps" in r:
            flat[f"{key}_expr_effGBps"] = r["fused_GBps"]
            flat[f"{key}_sum_GBps"] = r["sum_GBps"]
            flat[f"{key}_sgemm{r['sgemm_n']}_TFLOPs"] = r["sgemm_GFLOPs"] / 1e3
    flat.update(report.get("dlpack", {}))
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    if args.flat_out:
        with open(args.flat_out, "w") as f:
            json.dump(flat, f, indent=1)


if __name__ == "__main__":
    main()
