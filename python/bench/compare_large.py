"""Python against C++ for porta-bench's large-array rows: the ratios of one run.

  python compare_large.py --cpp PORTA_BENCH.json... --py BENCH_LARGE.json...

--cpp: porta-bench --json files (Google Benchmark's JSON; with --repetitions > 1 the `_median`
aggregates are read, else the single run); --py: python/bench/bench_large.py --json files. Each
row's device ms is the mean over the files given for it (scripts/dev/gpu_python.sh runs them as
C++, Python, Python, C++, so that a drift of the GPU's clocks over the run cancels), and the ratio
is C++ ms / Python ms: Python's throughput as a fraction of C++'s (target: at least 0.97).
Exits 1 when a row is missing from either side.
"""
import argparse
import json
import statistics
import sys

ROWS = ("fused", "sum", "matmul_f32")


def cpp_rows(path):
    """{"fused/cuda:0/268435456": ms} from porta-bench's JSON."""
    with open(path) as f:
        data = json.load(f)
    out, singles = {}, {}
    for b in data.get("benchmarks", []):
        # "fused/cuda:0/268435456/min_time:0.200/repeats:3/manual_time": porta-bench's name is the
        # first three parts (bench/suite_common.hpp's nm), Google Benchmark adds the rest.
        name = "/".join((b.get("run_name") or b["name"]).split("/")[:3])
        if not name.split("/")[0] in ROWS or "ms" not in b or b.get("error_occurred"):
            continue
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                out[name] = float(b["ms"])
        else:
            singles.setdefault(name, []).append(float(b["ms"]))
    for name, v in singles.items():
        out.setdefault(name, statistics.median(v))
    return out


def py_rows(path):
    with open(path) as f:
        data = json.load(f)
    return {b["name"]: float(b["ms"]) for b in data["benchmarks"]}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cpp", nargs="+", required=True)
    p.add_argument("--py", nargs="+", required=True)
    p.add_argument("--json", default=None, help="also write the table as JSON here")
    args = p.parse_args()
    cpp = [cpp_rows(f) for f in args.cpp]
    py = [py_rows(f) for f in args.py]
    names = sorted({n for r in cpp + py for n in r}, key=lambda n: (ROWS.index(n.split("/")[0]), n))
    table, missing = [], False
    print("| work | C++ ms (each run) | Python ms (each run) | C++ / Python |")
    print("|---|---:|---:|---:|")
    for name in names:
        c = [r[name] for r in cpp if name in r]
        q = [r[name] for r in py if name in r]
        if not c or not q:
            print(f"| {name} | {' / '.join(f'{v:.4f}' for v in c) or 'missing'} | "
                  f"{' / '.join(f'{v:.4f}' for v in q) or 'missing'} | |")
            missing = True
            continue
        ratio = statistics.mean(c) / statistics.mean(q)
        table.append({"name": name, "cpp_ms": c, "py_ms": q, "ratio": ratio})
        print(f"| {name} | {' / '.join(f'{v:.4f}' for v in c)} | {' / '.join(f'{v:.4f}' for v in q)} | "
              f"{ratio:.3f}{'' if ratio >= 0.97 else ' (below 0.97)'} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1)
    if missing:
        print("compare_large: a row is missing from one side (see the logs)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
