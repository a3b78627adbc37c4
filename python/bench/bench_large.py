"""porta-bench's large-array rows, timed from Python the way porta-bench times them from C++.

  python bench_large.py [--device SPEC] [--size N|2^K] [--matmul N] [--repetitions R]
                        [--min-time S] [--batch B] [--json FILE] [--check] [--quick]

The same work as porta-bench's `fused`, `sum` and `matmul_f32` rows (bench/suite_elementwise.cpp,
suite_reductions.cpp, suite_matmul.cpp), timed as bench/suite_common.hpp's time_on_device does:

- inputs: porta.random.uniform on [-1, 1), float32, made once on the device and evaluated;
- a warm-up of up to two operations and a synchronize (one, when it took over 200 ms);
- each timed run: porta.Event.record, `batch` operations back to back (4 on GPUs, 1 elsewhere,
  as porta-bench), porta.Event.record, device milliseconds / batch;
- a repetition: timed runs until their device time adds up to `min-time` (0.2 s on GPUs, 0.15 s
  elsewhere); its figure is the median of its runs; `repetitions` (3) of them, and the reported
  ms is the median of the repetitions' medians (Google Benchmark's `_median` aggregate);
- the same counting: fused 12 bytes an element (x and y read once, the result written once) and
  8 flops; sum 4 bytes; matmul 2 n^3 flops.

Output: one line per row, and with --json the rows as {"name": "fused/<device>/<n>", "ms": ...,
"GB/s" or "TFLOP/s": ..., "wall_ms": ..., "runs": [...]} under "benchmarks", for
scripts/dev/gpu_python.sh, which puts them beside porta-bench's. --check compares each result with
NumPy (float64) once, outside the timing. --quick: 2^16 elements, matmul 64, one short repetition.
"""
import argparse
import json
import statistics
import sys
import time

import numpy as np

import porta


def parse_size(s):
    s = s.strip()
    if s.startswith("2^"):
        return 1 << int(s[2:])
    n = int(s)
    if n <= 0:
        raise argparse.ArgumentTypeError(f"size {s} must be positive")
    return n


class Timer:
    """bench/suite_common.hpp's event_ms and time_on_device, in Python."""

    def __init__(self, device, batch, min_time, repetitions):
        self.device, self.batch, self.min_time, self.repetitions = device, batch, min_time, repetitions

    def event_ms(self, op):
        e0 = porta.Event.record(self.device)
        for _ in range(self.batch):
            result = op()
            del result
        e1 = porta.Event.record(self.device)
        return e1.elapsed_ms(e0) / self.batch

    def time(self, op):
        for _ in range(2):
            h0 = time.perf_counter()
            warm = op()
            del warm
            porta.synchronize(self.device)
            if time.perf_counter() - h0 > 0.2:
                break
        medians, wall_medians, runs = [], [], []
        for _ in range(self.repetitions):
            ms, wall = [], []
            while not ms or sum(ms) < self.min_time * 1e3:
                h0 = time.perf_counter()
                ms.append(self.event_ms(op))
                wall.append((time.perf_counter() - h0) * 1e3)
            medians.append(statistics.median(ms))
            wall_medians.append(statistics.median(wall))
            runs.append(len(ms))
        return statistics.median(medians), statistics.median(wall_medians), runs


def uniform(shape, device):
    a = porta.random.uniform(-1.0, 1.0, shape, dtype="float32", device=device)
    a.eval()
    return a


def fused(x, y):
    return (2.5 * x * x + 1.5 * x + 0.5 * porta.exp(-y)).eval()


def check(name, got, want, scale, rtol):
    """|got - want| <= rtol * scale everywhere (scale: the sum of the magnitudes that were added)."""
    got = np.asarray(porta.asnumpy(got), dtype=np.float64)
    err = float(np.max(np.abs(got - want)) / scale)
    if not err <= rtol:
        raise SystemExit(f"bench_large: {name} differs from NumPy by {err:.3g} (allowed {rtol:g})")
    print(f"bench_large: {name} matches NumPy (relative error {err:.2g})", file=sys.stderr)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default=None, help="porta device spec (default: porta's default device)")
    p.add_argument("--size", type=parse_size, default=None, help="elements of fused and sum (default 2^28 on GPUs, 2^24 elsewhere)")
    p.add_argument("--matmul", type=int, default=None, help="SGEMM size (default 8192 on GPUs, 1024 elsewhere)")
    p.add_argument("--repetitions", type=int, default=None, help="repetitions (default 3)")
    p.add_argument("--min-time", type=float, default=None, help="seconds of device time per repetition (default 0.2 on GPUs, 0.15)")
    p.add_argument("--batch", type=int, default=None, help="operations between two events (default 4 on GPUs, 1)")
    p.add_argument("--rows", default="fused,sum,matmul_f32", help="which rows to time")
    p.add_argument("--json", default=None, help="write the rows here")
    p.add_argument("--check", action="store_true", help="compare each result with NumPy once, untimed")
    p.add_argument("--quick", action="store_true", help="smoke run: 2^16 elements, matmul 64, one short repetition")
    args = p.parse_args()

    device = porta.Device(args.device) if args.device else porta.default_device()
    gpu = device.kind == "gpu"
    n = args.size or (1 << 16 if args.quick else 1 << 28 if gpu else 1 << 24)
    m = args.matmul or (64 if args.quick else 8192 if gpu else 1024)
    repetitions = args.repetitions or (1 if args.quick else 3)
    min_time = args.min_time if args.min_time is not None else (0.01 if args.quick else 0.2 if gpu else 0.15)
    batch = args.batch or (4 if gpu and not args.quick else 1)
    timer = Timer(device, batch, min_time, repetitions)
    rows = args.rows.split(",")
    report = {"device": device.spec, "device_name": device.name, "batch": batch, "min_time": min_time,
              "repetitions": repetitions, "python": sys.version.split()[0], "benchmarks": []}

    def emit(name, ms, wall, runs, gbytes=0.0, flops=0.0):
        row = {"name": name, "ms": ms, "wall_ms": wall, "runs": runs}
        if gbytes:
            row["GB/s"] = gbytes / (ms * 1e-3) / 1e9
        if flops:
            row["TFLOP/s" if name.startswith("matmul") else "GFLOP/s"] = flops / (ms * 1e-3) / (1e12 if name.startswith("matmul") else 1e9)
        report["benchmarks"].append(row)
        rate = ", ".join(f"{k} {row[k]:.4g}" for k in ("GB/s", "GFLOP/s", "TFLOP/s") if k in row)
        print(f"{name}: {ms:.4f} ms ({rate}; wall {wall:.4f} ms; runs per repetition {runs})", flush=True)

    with device:
        if "fused" in rows or "sum" in rows:
            x, y = uniform((n,), device), uniform((n,), device)
            if "fused" in rows:
                ms, wall, runs = timer.time(lambda: fused(x, y))
                emit(f"fused/{device.spec}/{n}", ms, wall, runs, gbytes=12.0 * n, flops=8.0 * n)
                if args.check:
                    hx, hy = porta.asnumpy(x).astype(np.float64), porta.asnumpy(y).astype(np.float64)
                    want = 2.5 * hx * hx + 1.5 * hx + 0.5 * np.exp(-hy)
                    check("fused", fused(x, y), want, float(np.max(np.abs(want))), 1e-5)
            if "sum" in rows:
                ms, wall, runs = timer.time(lambda: porta.sum(x).eval())
                emit(f"sum/{device.spec}/{n}", ms, wall, runs, gbytes=4.0 * n, flops=float(n))
                if args.check:
                    hx = porta.asnumpy(x).astype(np.float64)
                    check("sum", porta.sum(x), np.sum(hx), float(np.sum(np.abs(hx))), 1e-5)
            del x, y
        if "matmul_f32" in rows:
            a, b = uniform((m, m), device), uniform((m, m), device)
            ms, wall, runs = timer.time(lambda: a @ b)
            emit(f"matmul_f32/{device.spec}/{m}", ms, wall, runs, flops=2.0 * m ** 3)
            if args.check:
                ha, hb = porta.asnumpy(a).astype(np.float64), porta.asnumpy(b).astype(np.float64)
                check("matmul_f32", a @ b, ha @ hb, float(np.max(np.abs(ha) @ np.abs(hb))), 1e-4)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
