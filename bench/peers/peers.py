#!/usr/bin/env python3
"""Peer baselines for porta-bench: the same work through CuPy and PyTorch on the GPU host, and
through NumPy on the host's cores (any machine).

Writes JSON that `porta-bench --peers=FILE` reads (report_table.cpp and report_ratios.cpp name the keys; numbers only,
nested objects flattened with '.'): CuPy and PyTorch columns beside porta's devices, and the
GEMM ratios against cuBLAS. Started from shared/gpu/peers.py; its keys are kept, and argmax,
the broadcast add and DevicePool-like task throughput are added.

    python3 bench/peers/peers.py                 # writes $OUT/peers.json (else ./peers.json)
    python3 bench/peers/peers.py --out=p.json --quick

Timing as porta-bench's: device events around each operation after a warm-up, medians; the
small-op, thread and task rows are host wall time. Default sizes are porta-bench's GPU
defaults (2^28 floats, matmul 1024/4096/8192, 1000 tasks of 2^18 floats). A section that
fails (a missing torch.compile backend, a dtype) records "<key>_error" and the rest go on.

NumPy (keys numpy_*, porta-bench's NumPy column): the same 1-D work at porta-bench's CPU size
(2^24 floats; --numpy-size), host wall time, median of runs. Without CuPy and PyTorch (the build
machines) only this section runs: `python3 bench/peers/peers.py --numpy-only`.
"""
import argparse
import json
import os
import sys
import threading
import time

import numpy as np

try:
    import cupy as cp
    import torch
    GPU_PEERS = True
except ImportError as e:  # the build machines have neither; the GPU host has both
    GPU_PEERS = False
    GPU_MISSING = str(e)

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "."), "peers.json"))
parser.add_argument("--quick", action="store_true", help="small sizes and few runs: checks that the script works")
parser.add_argument("--size", type=int, default=0, help="elements of the 1-D work (default 2^28; --quick 2^20)")
parser.add_argument("--matmul", default="", help="matrix sizes, comma-separated (default 1024,4096,8192; --quick 256)")
parser.add_argument("--tasks", type=int, default=0, help="tasks of the task-throughput runs (default 1000; --quick 100)")
parser.add_argument("--numpy-size", type=int, default=0, help="elements of NumPy's 1-D work (default 2^24; --quick 2^20)")
parser.add_argument("--numpy-only", action="store_true", help="time NumPy only (no GPU libraries needed)")
parser.add_argument("--linalg-batched", action="store_true",
                    help="linalg sections: only the batches of small matrices (not the n x n rows, minutes of eigh and svd)")
parser.add_argument("--linalg-n", type=int, default=0, help="order of the one-matrix linalg rows (default 4096; "
                    "numpy_linalg 512; --quick 64), as porta-bench's --linalg")
parser.add_argument("--linalg-ops", default="",
                    help="linalg sections: only these n x n operations, comma-separated (solve, cholesky, qr, eigh, svd)")
parser.add_argument("--linalg-batched-ops", default="",
                    help="linalg sections: the operations timed on batches of small matrices, comma-separated (default: "
                    "all five for numpy_linalg; solve and cholesky for cupy_linalg and torch_linalg, whose qr, eigh and svd "
                    "of 10,000 matrices may loop over them)")
parser.add_argument("--no-compile", action="store_true", help="skip torch.compile (tens of seconds of compiling)")
parser.add_argument("--only", default="", help="run only these sections, comma-separated (numpy_bandwidth, cupy_bandwidth, "
                    "torch_bandwidth, matmul, small_ops, cupy_threads, torch_threads, tasks, dlpack, graphs, numpy_array_api, "
                    "cupy_array_api, torch_array_api, cupy_dtypes, torch_dtypes, numpy_fft, cupy_fft, torch_fft, numpy_linalg, cupy_linalg, torch_linalg)")
args = parser.parse_args()
if not GPU_PEERS and not args.numpy_only:
    sys.exit(f"peers.py: needs CuPy and PyTorch with a CUDA GPU ({GPU_MISSING}); --numpy-only times NumPy alone")

N = args.size or (1 << 20 if args.quick else 1 << 28)
MATMUL = [int(s) for s in args.matmul.split(",") if s] or ([256] if args.quick else [1024, 4096, 8192])
TASKS = args.tasks or (100 if args.quick else 1000)
TASK_N = 1 << (16 if args.quick else 18)
REPS = 5 if args.quick else 20
SMALL_OPS = 2000 if args.quick else 20000
THREAD_OPS = 500 if args.quick else 5000

res = {}


def section(name, fn):
    """Runs one group of measurements; a failure is recorded, not fatal."""
    try:
        fn()
    except Exception as ex:  # noqa: BLE001 - any failure of a peer library is reported the same way
        res[f"{name}_error"] = repr(ex)[:300]
        print(f"peers.py: {name} failed: {ex!r}", file=sys.stderr)
    finally:
        if GPU_PEERS and not args.numpy_only:
            torch.cuda.synchronize()
            cp.cuda.Device().synchronize()
            cp.get_default_memory_pool().free_all_blocks()
            torch.cuda.empty_cache()


def ev_time(fn, reps=REPS, warm=3):
    """Median seconds of fn between two CuPy events (CuPy's current stream)."""
    for _ in range(warm):
        fn()
    cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(cp.cuda.get_elapsed_time(s, e) / 1e3)
    times.sort()
    return times[len(times) // 2]


def tev_time(fn, reps=REPS, warm=3, sustain=0.0):
    """Median seconds of fn between two PyTorch events (PyTorch's current stream), after `warm`
    calls and then `sustain` seconds of back-to-back calls."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < sustain:
        for _ in range(10):
            fn()
        torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    times.sort()
    return times[len(times) // 2]


# porta-bench's 2-D shape for n elements: the largest power-of-two square or 1:2 rectangle.
COLS = 1
while COLS * COLS * 4 <= N:
    COLS *= 2
ROWS = max(N // COLS, 1)


def cupy_bandwidth():
    x = cp.random.random(N, dtype=cp.float32)
    y = cp.random.random(N, dtype=cp.float32)
    out = cp.empty_like(x)
    t = ev_time(lambda: cp.copyto(out, x)); res["copy_GBps"] = 2 * 4 * N / t / 1e9
    t = ev_time(lambda: cp.add(x, y, out=out)); res["cupy_add_GBps"] = 3 * 4 * N / t / 1e9
    a, b, c = np.float32(2.5), np.float32(1.5), np.float32(0.5)
    t = ev_time(lambda: a * x + y); res["cupy_saxpy_unfused_effGBps"] = 3 * 4 * N / t / 1e9
    saxpy = cp.ElementwiseKernel("float32 a, float32 x, float32 y", "float32 z", "z = a * x + y", "saxpy")
    t = ev_time(lambda: saxpy(a, x, y, out)); res["cupy_saxpy_kernel_effGBps"] = 3 * 4 * N / t / 1e9
    # a*x*x + b*x + c*exp(-y): reads two arrays, writes one
    t = ev_time(lambda: a * x * x + b * x + c * cp.exp(-y)); res["cupy_expr_unfused_effGBps"] = 3 * 4 * N / t / 1e9

    @cp.fuse()
    def fexpr(x, y, a, b, c):
        return a * x * x + b * x + c * cp.exp(-y)

    t = ev_time(lambda: fexpr(x, y, a, b, c)); res["cupy_expr_fuse_effGBps"] = 3 * 4 * N / t / 1e9
    t = ev_time(lambda: x.sum()); res["cupy_sum_GBps"] = 4 * N / t / 1e9
    t = ev_time(lambda: x.argmax()); res["cupy_argmax_GBps"] = 4 * N / t / 1e9
    # Write-only work, bytes written: porta-bench's fill, uniform rows.
    t = ev_time(lambda: out.fill(1.5)); res["cupy_fill_GBps"] = 4 * N / t / 1e9
    t = ev_time(lambda: cp.random.random(N, dtype=cp.float32)); res["cupy_random_GBps"] = 4 * N / t / 1e9
    m = x[: ROWS * COLS].reshape(ROWS, COLS)
    v = y[:COLS]
    mo = out[: ROWS * COLS].reshape(ROWS, COLS)
    t = ev_time(lambda: cp.add(m, v, out=mo)); res["cupy_add_broadcast_GBps"] = (2 * 4 * ROWS * COLS + 4 * COLS) / t / 1e9
    # porta-bench's sum_rows and sum_cols rows: the matrix read, the sums written.
    t = ev_time(lambda: m.sum(axis=1)); res["cupy_sum_rows_GBps"] = (4 * ROWS * COLS + 4 * ROWS) / t / 1e9
    t = ev_time(lambda: m.sum(axis=0)); res["cupy_sum_cols_GBps"] = (4 * ROWS * COLS + 4 * COLS) / t / 1e9


def torch_bandwidth():
    tx = torch.rand(N, device="cuda")
    ty = torch.rand(N, device="cuda")
    to = torch.empty_like(tx)
    t = tev_time(lambda: to.copy_(tx)); res["torch_copy_GBps"] = 2 * 4 * N / t / 1e9
    t = tev_time(lambda: torch.add(tx, ty, out=to)); res["torch_add_GBps"] = 3 * 4 * N / t / 1e9
    t = tev_time(lambda: torch.add(ty, tx, alpha=2.5, out=to)); res["torch_saxpy_effGBps"] = 3 * 4 * N / t / 1e9

    def texpr(x, y):
        return 2.5 * x * x + 1.5 * x + 0.5 * torch.exp(-y)

    t = tev_time(lambda: texpr(tx, ty)); res["torch_expr_eager_effGBps"] = 3 * 4 * N / t / 1e9
    try:
        if args.no_compile:
            raise RuntimeError("skipped (--no-compile)")
        ctexpr = torch.compile(texpr)
        t = tev_time(lambda: ctexpr(tx, ty)); res["torch_expr_compiled_effGBps"] = 3 * 4 * N / t / 1e9
    except Exception as ex:  # noqa: BLE001
        res["torch_expr_compiled_error"] = repr(ex)[:200]
    t = tev_time(lambda: tx.sum()); res["torch_sum_GBps"] = 4 * N / t / 1e9
    t = tev_time(lambda: tx.argmax()); res["torch_argmax_GBps"] = 4 * N / t / 1e9
    # Write-only work, bytes written: porta-bench's fill, uniform and normal rows.
    t = tev_time(lambda: to.fill_(1.5)); res["torch_fill_GBps"] = 4 * N / t / 1e9
    t = tev_time(lambda: torch.rand(N, device="cuda")); res["torch_rand_GBps"] = 4 * N / t / 1e9
    t = tev_time(lambda: torch.randn(N, device="cuda")); res["torch_randn_GBps"] = 4 * N / t / 1e9
    m = tx[: ROWS * COLS].view(ROWS, COLS)
    v = ty[:COLS]
    mo = to[: ROWS * COLS].view(ROWS, COLS)
    t = tev_time(lambda: torch.add(m, v, out=mo)); res["torch_add_broadcast_GBps"] = (2 * 4 * ROWS * COLS + 4 * COLS) / t / 1e9
    t = tev_time(lambda: m.sum(dim=1)); res["torch_sum_rows_GBps"] = (4 * ROWS * COLS + 4 * ROWS) / t / 1e9
    t = tev_time(lambda: m.sum(dim=0)); res["torch_sum_cols_GBps"] = (4 * ROWS * COLS + 4 * COLS) / t / 1e9


# GEMMs are timed after 0.5 s of back-to-back products, as porta-bench times its own (Google
# Benchmark grows the batch to 0.2 s, then times three repetitions): the H200 runs a cold 8192 HGEMM
# at 737 TFLOP/s and the same product after 1 s of load at 617 (power and clocks settle), so timing
# the peer cold and porta warm compared two different GPUs (measured 2026-11-29, .gpu/gemm_burst.py).
SUSTAIN = 0.0 if args.quick else 0.5


def matmul():
    reps = 3 if args.quick else 10
    for n in MATMUL:
        A = torch.randn(n, n, device="cuda")
        B = torch.randn(n, n, device="cuda")
        flops = 2 * n**3
        torch.backends.cuda.matmul.allow_tf32 = False
        t = tev_time(lambda: A @ B, reps=reps, sustain=SUSTAIN); res[f"torch_sgemm{n}_TFLOPs"] = flops / t / 1e12
        torch.backends.cuda.matmul.allow_tf32 = True
        t = tev_time(lambda: A @ B, reps=reps, sustain=SUSTAIN); res[f"torch_tf32gemm{n}_TFLOPs"] = flops / t / 1e12
        torch.backends.cuda.matmul.allow_tf32 = False
        Ah, Bh = A.half(), B.half()
        t = tev_time(lambda: Ah @ Bh, reps=reps, sustain=SUSTAIN); res[f"torch_hgemm{n}_TFLOPs"] = flops / t / 1e12
        Ab, Bb = A.bfloat16(), B.bfloat16()
        t = tev_time(lambda: Ab @ Bb, reps=reps, sustain=SUSTAIN); res[f"torch_bf16gemm{n}_TFLOPs"] = flops / t / 1e12
        if n <= 4096:  # DGEMM 8192 alone takes longer than the rest of this script
            Ad, Bd = A.double(), B.double()
            t = tev_time(lambda: Ad @ Bd, reps=max(reps // 2, 2), sustain=SUSTAIN); res[f"torch_dgemm{n}_TFLOPs"] = flops / t / 1e12
            del Ad, Bd
        cA, cB = cp.asarray(A), cp.asarray(B)
        t = ev_time(lambda: cA @ cB, reps=reps); res[f"cupy_sgemm{n}_TFLOPs"] = flops / t / 1e12
        # Complex: cuBLAS's cgemm / zgemm, 8 real FLOPs a multiply-add (porta-bench's matmul_c64/c128).
        cflops = 8 * n**3
        Ac, Bc = torch.complex(A, B), torch.complex(B, A)
        t = tev_time(lambda: Ac @ Bc, reps=reps, sustain=SUSTAIN); res[f"torch_cgemm{n}_TFLOPs"] = cflops / t / 1e12
        cAc, cBc = cp.asarray(Ac), cp.asarray(Bc)
        t = ev_time(lambda: cAc @ cBc, reps=reps); res[f"cupy_cgemm{n}_TFLOPs"] = cflops / t / 1e12
        Az, Bz = Ac.to(torch.complex128), Bc.to(torch.complex128)
        t = tev_time(lambda: Az @ Bz, reps=max(reps // 2, 2), sustain=SUSTAIN); res[f"torch_zgemm{n}_TFLOPs"] = cflops / t / 1e12
        cAz, cBz = cp.asarray(Az), cp.asarray(Bz)
        t = ev_time(lambda: cAz @ cBz, reps=max(reps // 2, 2)); res[f"cupy_zgemm{n}_TFLOPs"] = cflops / t / 1e12
        del A, B, Ah, Bh, Ab, Bb, cA, cB, Ac, Bc, cAc, cBc, Az, Bz, cAz, cBz
        torch.cuda.empty_cache()
        cp.get_default_memory_pool().free_all_blocks()


def per_op(fn, n=SMALL_OPS):
    """Host microseconds per call of fn, n calls then one wait."""
    fn()
    cp.cuda.Device().synchronize()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    cp.cuda.Device().synchronize()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / n * 1e6


def small_ops():
    sx = cp.ones(1024, dtype=cp.float32); sy = cp.ones(1024, dtype=cp.float32); so = cp.empty_like(sx)
    res["cupy_small_add_us_per_op"] = per_op(lambda: cp.add(sx, sy, out=so))
    res["cupy_small_add_alloc_us_per_op"] = per_op(lambda: sx + sy)
    tsx = torch.ones(1024, device="cuda"); tsy = torch.ones(1024, device="cuda"); tso = torch.empty_like(tsx)
    res["torch_small_add_us_per_op"] = per_op(lambda: torch.add(tsx, tsy, out=tso))
    res["torch_small_add_alloc_us_per_op"] = per_op(lambda: tsx + tsy)


def thread_scaling(lib):
    """T host threads, each THREAD_OPS small adds on its own stream, then a wait: total ops/s."""
    out = {}
    for T in (1, 2, 4, 8):
        def work():
            if lib == "cupy":
                with cp.cuda.Stream(non_blocking=True) as s:
                    a = cp.ones(1024, dtype=cp.float32); o = cp.empty_like(a)
                    for _ in range(THREAD_OPS):
                        cp.add(a, a, out=o)
                    s.synchronize()
            else:
                s = torch.cuda.Stream()
                with torch.cuda.stream(s):
                    a = torch.ones(1024, device="cuda"); o = torch.empty_like(a)
                    for _ in range(THREAD_OPS):
                        torch.add(a, a, out=o)
                s.synchronize()
        ths = [threading.Thread(target=work) for _ in range(T)]
        t0 = time.perf_counter()
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        out[T] = T * THREAD_OPS / (time.perf_counter() - t0)
    res[f"{lib}_threads_ops_per_s"] = out


def tasks():
    """porta-bench's pool row on one GPU: TASKS independent tasks of the fused expression over
    TASK_N floats, then its sum, from two host threads (DevicePool's two workers a GPU), each
    with its own stream; host seconds until all have finished; tasks/s."""
    def run(lib, workers=2):
        if lib == "cupy":
            x = cp.random.random(TASK_N, dtype=cp.float32); y = cp.random.random(TASK_N, dtype=cp.float32)
            task = lambda: (2.5 * x * x + 1.5 * x + 0.5 * cp.exp(-y)).sum()  # noqa: E731
            stream = lambda: cp.cuda.Stream(non_blocking=True)  # noqa: E731
            sync = lambda s: s.synchronize()  # noqa: E731
            use = lambda s: s  # noqa: E731
        else:
            x = torch.rand(TASK_N, device="cuda"); y = torch.rand(TASK_N, device="cuda")
            task = lambda: (2.5 * x * x + 1.5 * x + 0.5 * torch.exp(-y)).sum()  # noqa: E731
            stream = torch.cuda.Stream
            sync = lambda s: s.synchronize()  # noqa: E731
            use = torch.cuda.stream
        counter = iter(range(TASKS))
        lock = threading.Lock()

        def worker():
            s = stream()
            with use(s):
                while True:
                    with lock:
                        if next(counter, None) is None:
                            break
                    task()
                    sync(s)  # a task is finished when its device work is, as in DevicePool

        for _ in range(2):  # warm-up: compiles and the allocator
            task()
        cp.cuda.Device().synchronize(); torch.cuda.synchronize()
        ths = [threading.Thread(target=worker) for _ in range(workers)]
        t0 = time.perf_counter()
        for th in ths:
            th.start()
        for th in ths:
            th.join()
        return TASKS / (time.perf_counter() - t0)

    res["cupy_pool_tasks_per_s"] = run("cupy")
    res["torch_pool_tasks_per_s"] = run("torch")


def dlpack():
    """Host microseconds per DLPack exchange between the two libraries (porta-bench's
    interop_dlpack_roundtrip is porta's export plus import of one evaluated array)."""
    cx = cp.ones(1024, dtype=cp.float32)
    tx = torch.ones(1024, device="cuda")
    res["torch_from_dlpack_cupy_us"] = per_op(lambda: torch.from_dlpack(cx))
    res["cupy_from_dlpack_torch_us"] = per_op(lambda: cp.from_dlpack(tx))


def graphs():
    """Host microseconds per add of a replayed CUDA graph of 10 small adds (1024 floats, into an
    existing output), PyTorch's and CuPy's, beside the same 10 adds eager: porta-bench's
    graph_replay_add row."""
    a = torch.rand(1024, device="cuda"); b = torch.rand(1024, device="cuda"); c = torch.empty_like(a)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        for _ in range(3):
            torch.add(a, b, out=c)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(10):
            torch.add(a, b, out=c)

    def loop(fn, n):
        torch.cuda.synchronize(); t0 = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize(); return (time.perf_counter() - t0) / n

    def ten():
        for _ in range(10):
            torch.add(a, b, out=c)

    reps = 500 if args.quick else 5000
    for _ in range(200):
        g.replay()
    res["torch_graph10_replay_us_per_add"] = loop(g.replay, reps) * 1e6 / 10
    res["torch_eager10_us_per_add"] = loop(ten, reps // 2) * 1e6 / 10
    ca = cp.random.random(1024, dtype=cp.float32); cb = cp.random.random(1024, dtype=cp.float32); cc = cp.empty_like(ca)
    st = cp.cuda.Stream(non_blocking=True)
    with st:
        for _ in range(3):
            cp.add(ca, cb, out=cc)
        st.begin_capture()
        for _ in range(10):
            cp.add(ca, cb, out=cc)
        cg = st.end_capture()
        for _ in range(200):
            cg.launch()
        st.synchronize()
        t0 = time.perf_counter()
        for _ in range(reps):
            cg.launch()
        st.synchronize()
        res["cupy_graph10_replay_us_per_add"] = (time.perf_counter() - t0) / reps * 1e6 / 10


NUMPY_N = args.numpy_size or (1 << 20 if args.quick else 1 << 24)


def host_median(fn, reps):
    """Host wall time of fn, the median of reps runs after one untimed run (the NumPy rows)."""
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def numpy_matrix_shape(n):
    """porta-bench's matrix of n elements (suite_array_api.cpp): power-of-two columns, cols^2*4 > n."""
    cols = 1
    while cols * cols * 4 <= n:
        cols *= 2
    return max(n // cols, 1), cols


def numpy_bandwidth():
    """NumPy on the host, the rows porta-bench's CPU targets compare with: host wall time, median."""
    n = NUMPY_N
    rows, cols = numpy_matrix_shape(n)
    rng = np.random.default_rng(20261201)
    x = rng.random(n, dtype=np.float32) * 2 - 1
    y = rng.random(n, dtype=np.float32) * 2 - 1
    out = np.empty_like(x)

    def wall(fn):
        return host_median(fn, 5 if args.quick else 15)

    a, b, c = np.float32(2.5), np.float32(1.5), np.float32(0.5)
    res["numpy_copy_GBps"] = 2 * 4 * n / wall(lambda: np.copyto(out, x)) / 1e9
    res["numpy_add_GBps"] = 3 * 4 * n / wall(lambda: np.add(x, y, out=out)) / 1e9
    res["numpy_expr_effGBps"] = 3 * 4 * n / wall(lambda: a * x * x + b * x + c * np.exp(-y)) / 1e9
    res["numpy_sum_GBps"] = 4 * n / wall(lambda: x.sum()) / 1e9
    res["numpy_argmax_GBps"] = 4 * n / wall(lambda: x.argmax()) / 1e9
    m = x[: rows * cols].reshape(rows, cols)
    res["numpy_sum_rows_GBps"] = (4 * rows * cols + 4 * rows) / wall(lambda: m.sum(axis=1)) / 1e9
    res["numpy_sum_cols_GBps"] = (4 * rows * cols + 4 * cols) / wall(lambda: m.sum(axis=0)) / 1e9
    res["numpy_fill_GBps"] = 4 * n / wall(lambda: out.fill(1.5)) / 1e9
    gen = np.random.default_rng(7)
    res["numpy_random_GBps"] = 4 * n / wall(lambda: gen.random(n, dtype=np.float32)) / 1e9
    res["numpy_normal_GBps"] = 4 * n / wall(lambda: gen.standard_normal(n, dtype=np.float32)) / 1e9



# porta-bench's array-API rows (bench/suite_array_api.cpp), bytes counted as there: cumsum read +
# write; take value + int64 index + write (16 B an element); x[mask] value + mask read, half
# written (7 B); x[::2] = y and x.T = y read + write; sorts in keys/s (and GB/s of a read and a
# write). Random int64 indices over the whole array; masks half true.
def cupy_dtypes():
    """porta-bench's suite_dtypes rows: 1-byte integers, uint8 -> float32, complex64 x * y + z."""
    x = cp.random.random(N, dtype=cp.float32)
    y = cp.random.random(N, dtype=cp.float32)
    u, v = (x * 254).astype(cp.uint8), (y * 254).astype(cp.uint8)
    i, j = (x * 200 - 100).astype(cp.int8), (y * 200 - 100).astype(cp.int8)
    o8 = cp.empty_like(u)
    t = ev_time(lambda: cp.add(u, v, out=o8)); res["cupy_add_u8_GBps"] = 3 * N / t / 1e9
    t = ev_time(lambda: cp.add(i, j, out=o8.view(cp.int8))); res["cupy_add_i8_GBps"] = 3 * N / t / 1e9

    @cp.fuse()
    def fu8(a, b):
        return a * 3 + b - (a >> 1)

    t = ev_time(lambda: fu8(u, v)); res["cupy_fused_u8_GBps"] = 3 * N / t / 1e9
    t = ev_time(lambda: u.astype(cp.float32)); res["cupy_u8_to_f32_GBps"] = 5 * N / t / 1e9
    del i, j, o8
    zx = (x + 1j * y).astype(cp.complex64)
    zy, zz = zx * 0.5, zx + 1

    @cp.fuse()
    def fma(a, b, c):
        return a * b + c

    t = ev_time(lambda: fma(zx, zy, zz)); res["cupy_fma_c64_GBps"] = 32 * N / t / 1e9


def torch_dtypes():
    tx, ty = torch.rand(N, device="cuda"), torch.rand(N, device="cuda")
    u, v = (tx * 254).to(torch.uint8), (ty * 254).to(torch.uint8)
    i, j = (tx * 200 - 100).to(torch.int8), (ty * 200 - 100).to(torch.int8)
    o8 = torch.empty_like(u)
    t = tev_time(lambda: torch.add(u, v, out=o8)); res["torch_add_u8_GBps"] = 3 * N / t / 1e9
    o8i = torch.empty_like(i)
    t = tev_time(lambda: torch.add(i, j, out=o8i)); res["torch_add_i8_GBps"] = 3 * N / t / 1e9
    t = tev_time(lambda: u * 3 + v - (u >> 1)); res["torch_fused_u8_GBps"] = 3 * N / t / 1e9
    t = tev_time(lambda: u.to(torch.float32)); res["torch_u8_to_f32_GBps"] = 5 * N / t / 1e9
    del i, j, o8, o8i
    zx = torch.complex(tx, ty)
    zy, zz = zx * 0.5, zx + 1
    t = tev_time(lambda: zx * zy + zz); res["torch_fma_c64_GBps"] = 32 * N / t / 1e9


def cupy_array_api():
    x = cp.random.random(N, dtype=cp.float32) * 2 - 1
    t = ev_time(lambda: cp.cumsum(x)); res["cupy_cumsum_GBps"] = 8 * N / t / 1e9
    idx = cp.random.randint(0, N, N, dtype=cp.int64)
    t = ev_time(lambda: cp.take(x, idx)); res["cupy_take_GBps"] = 16 * N / t / 1e9
    mask = cp.random.random(N, dtype=cp.float32) > 0.5
    t = ev_time(lambda: x[mask]); res["cupy_compress_GBps"] = 7 * N / t / 1e9
    del idx, mask
    a = cp.zeros(2 * N, dtype=cp.float32)
    view = a[::2]

    def strided():
        view[...] = x

    t = ev_time(strided); res["cupy_assign_strided_GBps"] = 8 * N / t / 1e9
    del a, view
    y2 = x[: ROWS * COLS].reshape(ROWS, COLS)
    b = cp.zeros((COLS, ROWS), dtype=cp.float32)

    def transposed():
        b.T[...] = y2

    t = ev_time(transposed); res["cupy_assign_transposed_GBps"] = 8 * ROWS * COLS / t / 1e9
    del b
    reps = max(REPS // 4, 3)
    xi = (x * 1e9).astype(cp.int32)
    xu = cp.random.randint(0, 1 << 32, N, dtype=cp.int64).astype(cp.uint32)  # sort_u32: every bit random
    for key, fn in (("sort_f32", lambda: cp.sort(x)), ("sort_i32", lambda: cp.sort(xi)), ("sort_u32", lambda: cp.sort(xu)),
                    ("argsort_f32", lambda: cp.argsort(x))):
        t = ev_time(fn, reps=reps, warm=1)
        res[f"cupy_{key}_Gkeys"] = N / t / 1e9
        res[f"cupy_{key}_GBps"] = (12 if key.startswith("arg") else 8) * N / t / 1e9


def torch_array_api():
    tx = torch.rand(N, device="cuda") * 2 - 1
    t = tev_time(lambda: torch.cumsum(tx, 0)); res["torch_cumsum_GBps"] = 8 * N / t / 1e9
    tidx = torch.randint(0, N, (N,), device="cuda", dtype=torch.int64)
    t = tev_time(lambda: torch.take(tx, tidx)); res["torch_take_GBps"] = 16 * N / t / 1e9
    t = tev_time(lambda: tx.index_select(0, tidx)); res["torch_index_select_GBps"] = 16 * N / t / 1e9
    tmask = torch.rand(N, device="cuda") > 0.5
    t = tev_time(lambda: tx[tmask]); res["torch_compress_GBps"] = 7 * N / t / 1e9
    del tidx, tmask
    ta = torch.zeros(2 * N, device="cuda")
    t = tev_time(lambda: ta[::2].copy_(tx)); res["torch_assign_strided_GBps"] = 8 * N / t / 1e9
    del ta
    ty2 = tx[: ROWS * COLS].view(ROWS, COLS)
    tb = torch.zeros(COLS, ROWS, device="cuda")
    t = tev_time(lambda: tb.t().copy_(ty2)); res["torch_assign_transposed_GBps"] = 8 * ROWS * COLS / t / 1e9
    del tb
    reps = max(REPS // 4, 3)
    txi = (tx * 1e9).to(torch.int32)
    for key, fn in (("sort_f32", lambda: torch.sort(tx)), ("sort_i32", lambda: torch.sort(txi)),
                    ("argsort_f32", lambda: torch.argsort(tx))):
        t = tev_time(fn, reps=reps, warm=1)
        res[f"torch_{key}_Gkeys"] = N / t / 1e9
        res[f"torch_{key}_GBps"] = (12 if key.startswith("arg") else 8) * N / t / 1e9
    # sort_u32: PyTorch's uint32 is a storage dtype of few ops; its sort may be missing.
    try:
        txu = torch.randint(0, 1 << 32, (N,), device="cuda", dtype=torch.int64).to(torch.uint32)
        t = tev_time(lambda: torch.sort(txu), reps=reps, warm=1)
        res["torch_sort_u32_Gkeys"] = N / t / 1e9
        res["torch_sort_u32_GBps"] = 8 * N / t / 1e9
    except Exception as ex:  # noqa: BLE001
        res["torch_sort_u32_error"] = repr(ex)[:200]


def numpy_array_api():
    """The same rows through NumPy on the host (porta-bench's CPU comparison), host wall time."""
    n = NUMPY_N
    rows, cols = numpy_matrix_shape(n)
    rng = np.random.default_rng(20261219)
    x = rng.random(n, dtype=np.float32) * 2 - 1

    def wall(fn):
        return host_median(fn, 5 if args.quick else 11)

    res["numpy_cumsum_GBps"] = 8 * n / wall(lambda: np.cumsum(x)) / 1e9
    idx = rng.integers(0, n, n, dtype=np.int64)
    res["numpy_take_GBps"] = 16 * n / wall(lambda: np.take(x, idx)) / 1e9
    mask = rng.random(n, dtype=np.float32) > 0.5
    res["numpy_compress_GBps"] = 7 * n / wall(lambda: x[mask]) / 1e9
    a = np.zeros(2 * n, dtype=np.float32)

    def strided():
        a[::2] = x

    res["numpy_assign_strided_GBps"] = 8 * n / wall(strided) / 1e9
    y2 = x[: rows * cols].reshape(rows, cols)
    b = np.zeros((cols, rows), dtype=np.float32)

    def transposed():
        b.T[...] = y2

    res["numpy_assign_transposed_GBps"] = 8 * rows * cols / wall(transposed) / 1e9
    xi = (x * 1e9).astype(np.int32)
    xu = rng.integers(0, 1 << 32, n, dtype=np.uint32)
    for key, fn in (("sort_f32", lambda: np.sort(x, kind="stable")), ("sort_i32", lambda: np.sort(xi, kind="stable")),
                    ("sort_u32", lambda: np.sort(xu, kind="stable")),
                    ("argsort_f32", lambda: np.argsort(x, kind="stable"))):
        t = host_median(fn, 3)
        res[f"numpy_{key}_Gkeys"] = n / t / 1e9
        res[f"numpy_{key}_GBps"] = (12 if key.startswith("arg") else 8) * n / t / 1e9


# porta-bench's suite_fft rows, GB/s counted as there: the input read and the output written once
# per transform (complex64 8 B, complex128 16 B; rfft reads 4 B and writes n/2+1 complex64). GPUs:
# 2^28 complex64 elements as batches of 256, 4096, 65536; single transforms of 2^28, 2^24 and 2^20; rfft
# of float32 rows of 4096; complex128 rows of 4096 over half the elements; fft2 of 1024 x 1024
# images over a quarter. NumPy (pocketfft, one core): the same over 2^22 elements and one image.
def fft_rows(xp, fft, total, images, timer, prefix, cast=lambda a, t: a.astype(t), copy=lambda a: a.copy()):
    x = cast(xp.arange(total, dtype=xp.float32) % 7 - 3, xp.complex64) * (0.5 + 0.25j)
    for key, length in (("b256", 256), ("b4096", 4096), ("b65536", 65536)):
        v = x.reshape(-1, length)
        res[f"{prefix}_fft_c64_{key}_GBps"] = 16 * total / timer(lambda v=v: fft.fft(v)) / 1e9
    for key, length in (("2p28", 1 << 28), ("2p24", 1 << 24), ("2p20", 1 << 20)):
        if length <= total and (key not in ("2p24", "2p28") or prefix != "numpy"):
            v = x[:length]
            res[f"{prefix}_fft_c64_{key}_GBps"] = 16 * length / timer(lambda v=v: fft.fft(v)) / 1e9
    r = copy(x.real).reshape(-1, 4096)
    res[f"{prefix}_rfft_f32_GBps"] = (4 * total + 8 * (total // 4096) * 2049) / timer(lambda: fft.rfft(r)) / 1e9
    del r
    z = cast(x[: total // 2], xp.complex128).reshape(-1, 4096)
    res[f"{prefix}_fft_c128_b4096_GBps"] = 32 * (total // 2) / timer(lambda: fft.fft(z)) / 1e9
    del z
    im = x[: images << 20].reshape(images, 1024, 1024)
    res[f"{prefix}_fft2_c64_1024_GBps"] = 16 * (images << 20) / timer(lambda: fft.fft2(im)) / 1e9


def numpy_fft():
    fft_rows(np, np.fft, 1 << 22, 1, lambda fn: host_median(fn, 3), "numpy")


def cupy_fft():
    fft_rows(cp, cp.fft, N, max(N // (1 << 20) // 4, 1), ev_time, "cupy")
    cp.fft.config.get_plan_cache().clear()


def torch_fft():
    class TorchXp:  # the array functions fft_rows needs, on the GPU
        float32, complex64, complex128 = torch.float32, torch.complex64, torch.complex128

        @staticmethod
        def arange(n, dtype):
            return torch.arange(n, dtype=dtype, device="cuda")

    fft_rows(TorchXp, torch.fft, N, max(N // (1 << 20) // 4, 1), tev_time, "torch", cast=lambda a, t: a.to(t),
             copy=lambda a: a.clone())


# porta-bench's linalg rows (bench/suite_linalg.cpp): the same calls on the same shapes, in TFLOP/s
# of the same LAPACK operation counts. Keys <lib>_linalg_<op>_<f32|f64>_<param>_TFLOPs, param n
# for one n x n matrix, batch * k * k for a batch of k x k matrices.
LINALG_FLOPS = {"solve": lambda n: 2 / 3 * n**3 + 2 * n**2, "cholesky": lambda n: n**3 / 3,
                "qr": lambda n: 8 / 3 * n**3, "eigh": lambda n: 9 * n**3, "svd": lambda n: 22 * n**3}


def linalg_input(shape, dtype, slot):
    """porta-bench's inputs (suite_linalg.cpp's hashed_input), the same numbers: entry e of the flat
    C-order stack is a 32-bit integer hash of e and slot mapped onto [-1, 1) in float64, rounded to
    dtype (eigh's and the SVD's time depends on the matrix by 10% from one random draw to the next)."""
    h = np.arange(int(np.prod(shape)), dtype=np.uint32) * np.uint32(0x9E3779B1) + np.uint32(slot * 0x85EBCA77 & 0xFFFFFFFF)
    h ^= h >> np.uint32(15)
    h *= np.uint32(0x2C1B3C6D)
    h ^= h >> np.uint32(12)
    h *= np.uint32(0x297A2D39)
    h ^= h >> np.uint32(15)
    return (h.astype(np.float64) * (2.0 / 2**32) - 1.0).astype(dtype).reshape(shape)


def linalg_inputs(xp, shape, dtype):
    """a, the SPD a + a^T + 2n I (in dtype, as porta-bench adds them) and b, as porta-bench's."""
    a = linalg_input(shape, dtype, 0)
    n = shape[-1]
    spd = a + np.swapaxes(a, -1, -2) + np.asarray(2 * n, dtype) * np.eye(n, dtype=dtype)
    return xp.asarray(a), xp.asarray(spd), xp.asarray(linalg_input(shape[:-1] + (1,), dtype, 1))


def linalg_rows(lib, la, xp, timer, n, batches, batched_ops="solve,cholesky,qr,eigh,svd"):
    calls = {"solve": lambda a, spd, b: la.solve(spd, b), "cholesky": lambda a, spd, b: la.cholesky(spd),
             "qr": lambda a, spd, b: la.qr(a), "eigh": lambda a, spd, b: la.eigh(spd),
             "svd": lambda a, spd, b: la.svd(a, full_matrices=False)}
    for suffix, dtype in (("f32", np.float32), ("f64", np.float64)):
        a, spd, b = linalg_inputs(xp, (n, n), dtype)
        ops = {} if args.linalg_batched else {op: call for op, call in calls.items()
                                               if not args.linalg_ops or op in args.linalg_ops.split(",")}
        for op, call in ops.items():
            t = timer(lambda: call(a, spd, b))
            res[f"{lib}_linalg_{op}_{suffix}_{n}_TFLOPs"] = LINALG_FLOPS[op](n) / t / 1e12
        for batch, k in batches:
            a, spd, b = linalg_inputs(xp, (batch, k, k), dtype)
            for op in (args.linalg_batched_ops or batched_ops).split(","):
                try:
                    t = timer(lambda: calls[op](a, spd, b))
                except Exception as e:  # a peer without this batched op: the row stays empty
                    print(f"peers.py: {lib} {op} of {batch} x {k} x {k} {suffix}: {type(e).__name__}: {e}", file=sys.stderr)
                    continue
                res[f"{lib}_linalg_{op}_batched_{suffix}_{batch * k * k}_TFLOPs"] = batch * LINALG_FLOPS[op](k) / t / 1e12


def cupy_linalg():
    n = args.linalg_n or (64 if args.quick else 4096)
    batches = [(100, 16)] if args.quick else [(10000, 16), (10000, 64)]
    linalg_rows("cupy", cp.linalg, cp, lambda fn: ev_time(fn, reps=3 if args.quick else 5), n, batches, "solve,cholesky")


def torch_linalg():
    n = args.linalg_n or (64 if args.quick else 4096)
    batches = [(100, 16)] if args.quick else [(10000, 16), (10000, 64)]

    class TorchXp:
        @staticmethod
        def asarray(x):
            return torch.as_tensor(x, device="cuda")

    linalg_rows("torch", torch.linalg, TorchXp, lambda fn: tev_time(fn, reps=3 if args.quick else 5), n, batches, "solve,cholesky")


def numpy_linalg():
    """The CPU devices' sizes (suite_linalg.cpp: 512, and 1000 matrices of 16 x 16)."""
    n = args.linalg_n or (64 if args.quick else 512)
    batches = [(100, 16)] if args.quick else [(1000, 16)]
    linalg_rows("numpy", np.linalg, np, lambda fn: host_median(fn, 3 if args.quick else 5), n, batches)


meta = {"n": N, "numpy_n": NUMPY_N, "tasks": TASKS, "task_n": TASK_N, "quick": args.quick, "numpy": np.__version__}
sections = [("numpy_bandwidth", numpy_bandwidth), ("numpy_array_api", numpy_array_api), ("numpy_fft", numpy_fft),
            ("numpy_linalg", numpy_linalg)]
if not args.numpy_only:
    meta.update({"cupy": cp.__version__, "torch": torch.__version__, "gpu": torch.cuda.get_device_name(0)})
    sections += [("cupy_bandwidth", cupy_bandwidth), ("torch_bandwidth", torch_bandwidth), ("matmul", matmul),
                 ("small_ops", small_ops), ("cupy_threads", lambda: thread_scaling("cupy")),
                 ("torch_threads", lambda: thread_scaling("torch")), ("tasks", tasks), ("dlpack", dlpack),
                 ("graphs", graphs), ("cupy_array_api", cupy_array_api), ("torch_array_api", torch_array_api),
                 ("cupy_dtypes", cupy_dtypes), ("torch_dtypes", torch_dtypes), ("cupy_fft", cupy_fft),
                 ("torch_fft", torch_fft), ("cupy_linalg", cupy_linalg), ("torch_linalg", torch_linalg)]
res["meta"] = meta
only = [x for x in args.only.split(",") if x]
unknown = set(only) - {name for name, _ in sections}
if unknown:
    sys.exit(f"peers.py: no section {', '.join(sorted(unknown))} (sections: {', '.join(name for name, _ in sections)})")
for name, fn in sections:
    if not only or name in only:
        section(name, fn)

for k, v in res.items():
    print(f"{k:40s} {round(v, 3) if isinstance(v, float) else v}")
os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
with open(args.out, "w") as f:
    json.dump(res, f, indent=1)
print(f"peers.py: wrote {args.out}", file=sys.stderr)
