#!/usr/bin/env bash
# One H200 call for a change that touches every CUDA launch and the issue rows: the rows with their
# peers first, then every C++ test program on cuda:0 and the named ones on opencl:1. From the
# repository root on the GPU host, after .gpu/setup.sh, with a carried build (bin/, lib/):
#   bash scripts/dev/gpu_check.sh build
# Writes under $OUT: peers.json/.log (bench/peers/peers.py: graphs, small ops, bandwidth, array
# API), bench.md/.json (porta-bench --repetitions=3 of ROWS on cuda:0 and opencl:1), window.log
# (cumsum float32 over PORTA_SCAN_WINDOW), logs.tgz (scripts/dev/gpu_all.sh's test logs).
# ROWS= a porta-bench filter; OPENCL_TESTS= the test programs also run on opencl:1.
set -u
B=${1:?usage: gpu_check.sh BUILD_DIR}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH="$PWD/$B/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PORTA_PLUGIN_PATH="$PWD/$B/lib"
start=$(date +%s)
el() { echo "[$(( $(date +%s) - start )) s] $*"; }

timeout 150 python3 bench/peers/peers.py --no-compile --only=graphs,small_ops,cupy_bandwidth,torch_bandwidth,cupy_array_api \
  --out="$OUT/peers.json" > "$OUT/peers.log" 2>&1
el "peers rc=$?"
ROWS=${ROWS:-'^(copy|fill|uniform|normal|cumsum_f32|small_graph|small_graph_rebind|small_add|small_native_add|small_rawkernel_add)/'}
timeout 240 "$B/bin/porta-bench" --devices=cuda:0,opencl:1 --peers="$OUT/peers.json" --repetitions=3 --filter="$ROWS" \
  --json="$OUT/bench.json" --markdown="$OUT/bench.md" > "$OUT/bench.out" 2>&1
el "porta-bench rc=$?"
grep -E "^\| (copy|fill|random|cumsum|replayed|the same graph|small|bare)|/ fill|/ copy|graph|small add" "$OUT/bench.md" | head -40

for window in 32 64 128 256; do
  PORTA_SCAN_WINDOW=$window timeout 60 "$B/bin/porta-bench" --devices=cuda:0,opencl:1 --filter='^cumsum_f32/' --repetitions=2 \
    --no-ceilings --json="$OUT/w.json" > /dev/null 2>&1
  python3 - "$OUT/w.json" "$window" <<'PY'
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b["name"].endswith("_median"):
        print("window", sys.argv[2], b["name"].split("/min_time")[0], "GB/s", round(b.get("GB/s", 0), 1))
PY
done | tee "$OUT/window.log"
el "window sweep"

# Every test program on cuda:0 (gpu_all.sh part a, without its build), then the named ones on opencl:1.
GTEST_DEVICES='*cuda_0*' BUILD=$B SKIP_BUILD=1 PART=a timeout "${TEST_SECONDS:-330}" bash scripts/dev/gpu_all.sh 2>&1 | grep -v pytest
for n in ${OPENCL_TESTS:-scan random graph}; do
  timeout 60 "$B/bin/porta_${n}_test" --gtest_color=no --gtest_filter='*opencl_1*:RandomAcross*' > "/tmp/gpu_all/o_$n.log" 2>&1
  el "$n on opencl:1 rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "/tmp/gpu_all/o_$n.log" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \]' "/tmp/gpu_all/o_$n.log" | head -5
done
tar czf "$OUT/logs.tgz" -C /tmp/gpu_all .
