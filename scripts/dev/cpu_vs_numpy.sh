#!/usr/bin/env bash
# Issue 21's CPU targets (and the array-API rows) in paired runs: RUNS times (default 3), NumPy
# (bench/peers/peers.py --numpy-only) and then porta-bench on the CPU devices, with that NumPy run
# as its peers; prints every ratio's median over the runs and its range, then each row's median
# (porta's per device, NumPy's). On a shared machine the pairing matters more than the count:
# each porta run is compared with the NumPy run just before it.
#   scripts/dev/cpu_vs_numpy.sh [build dir]     RUNS=5 DEVICES=opencl:0,kokkos:0 PYTHON=... FILTER=...
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
build=${1:-build}
runs=${RUNS:-3}
devices=${DEVICES:-opencl:0,kokkos:0}
python=${PYTHON:-$build/pyenv/bin/python}
filter=${FILTER:-^(copy|add|fused|sum|sum_rows|sum_cols|argmax|fill|uniform|normal|cumsum_f32|take_f32|compress_f32|assign_strided_f32|assign_transposed_f32|sort_f32|sort_i32|argsort_f32)/}
out=${OUT:-/tmp/cpu_vs_numpy}
mkdir -p "$out"
for r in $(seq 1 "$runs"); do
  "$python" bench/peers/peers.py --numpy-only --only numpy_bandwidth,numpy_array_api --out "$out/numpy$r.json" > "$out/numpy$r.log" 2>&1
  "$build/bin/porta-bench" --devices="$devices" --peers="$out/numpy$r.json" --filter="$filter" --no-ceilings \
    --json="$out/bench$r.json" > "$out/bench$r.md" 2> "$out/bench$r.log"
  echo "run $r of $runs done ($(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg))"
done
python3 - "$out" "$runs" <<'PY'
import json, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
ratios, rows = {}, {}
for r in range(1, runs + 1):
    s = json.load(open(f"{out}/bench{r}.json"))["porta_summary"]
    for x in s["ratios"]:
        ratios.setdefault((x["ratio"], x["device"], x.get("target", "")), []).append(x["value"])
    for b in json.load(open(f"{out}/bench{r}.json"))["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        name, dev = b["name"].split("/")[:2]
        for unit in ("GB/s", "Gkeys/s"):
            if unit in b:
                rows.setdefault((dev, f"{name} {unit}"), []).append(b[unit])
    peers = json.load(open(f"{out}/numpy{r}.json"))
    for k, v in peers.items():
        if k.startswith("numpy_") and (k.endswith("_GBps") or k.endswith("_Gkeys")):
            rows.setdefault(("NumPy", k[6:].replace("_GBps", " GB/s").replace("_Gkeys", " Gkeys/s")), []).append(v)
for (name, dev, target), v in ratios.items():
    print(f"{name:55s} {dev:9s} median {statistics.median(v):6.2f}x  ({min(v):.2f}-{max(v):.2f})  target {target or '-'}")
for (who, k), v in sorted(rows.items()):
    print(f"{who:9s} {k:32s} median {statistics.median(v):8.3f} ({min(v):.3f}-{max(v):.3f})")
PY
