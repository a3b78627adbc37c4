#!/usr/bin/env bash
# Issue 19, scans / compress / take / writes into views: what the lead runs on the GPU host
# after building the merged tree. From the repository root:
#     bash scripts/dev/gpu_scan.sh /tmp/b        # /tmp/b: the build directory (tests, porta-bench)
# Writes under $OUT/scan/: the tests on cuda:0 and opencl:1 (NVIDIA's OpenCL), the peers'
# figures (CuPy, PyTorch: the copy, add and array-API sections of bench/peers/peers.py) and
# porta-bench's array-API rows with those peers (table, JSON, SVG). About 4-6 minutes.
set -u
B=${1:?usage: gpu_scan.sh BUILD_DIR}
O=${OUT:-/tmp/out}/scan
mkdir -p "$O"
devices_filter='*cuda_0*:*opencl_1*'

# 1. Tests: scans (determinism over repeated runs included), indexing, writes (sorting: gpu_sort.sh).
if [[ -x $B/bin/porta_tests ]]; then
  timeout 400 "$B/bin/porta_tests" --gtest_filter="*Scan*:*Index*:*Writ*" > "$O/tests.log" 2>&1
  echo "porta_tests rc=$?"; tail -3 "$O/tests.log"
else
  for t in scan index write; do
    timeout 300 "$B/bin/porta_${t}_test" --gtest_filter="$devices_filter" > "$O/test_$t.log" 2>&1
    echo "porta_${t}_test rc=$?: $(grep -E '^\[  (PASSED|FAILED) ' "$O/test_$t.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$O/test_$t.log" | head -10
  done
fi
# The look-back's results must not depend on timing: the long scans three more times each.
timeout 200 "$B/bin/porta_scan_test" --gtest_filter="*ScanRules*cuda_0*:*ScanRules*opencl_1*" --gtest_repeat=3 \
  > "$O/test_scan_repeat.log" 2>&1
echo "scan repeat rc=$?: $(grep -cE '^\[       OK \]' "$O/test_scan_repeat.log") OK, $(grep -cE '^\[  FAILED  \]' "$O/test_scan_repeat.log") FAILED lines"

# 2. Peers: CuPy's copy and add (the peers' ceilings) and CuPy's and PyTorch's array-API figures
# at porta-bench's GPU size.
timeout 400 python3 bench/peers/peers.py --only cupy_bandwidth,cupy_array_api,torch_array_api \
  --no-compile --out "$O/peers.json" > "$O/peers.log" 2>&1
echo "peers rc=$?"; grep -E "cumsum|take|index_select|compress|assign|sort|copy_GBps|add_GBps|error" "$O/peers.log"

# 3. porta-bench: the array-API rows, their ceilings (copy, x + y) and hand-written references, with the peers.
rows='^(copy|add|ref_copy|cumsum_f32|take_f32|ref_take_f32|ref_random_read_f32|compress_f32|assign_strided_f32|ref_assign_strided_f32|assign_transposed_f32|sort_f32|sort_i32|argsort_f32)/'
timeout 500 "$B/bin/porta-bench" --devices cuda:0,opencl:1 --filter "$rows" --peers "$O/peers.json" \
  --json "$O/bench.json" --markdown "$O/bench.md" --svg "$O/bench.svg" > "$O/bench.out" 2> "$O/bench.err"
echo "porta-bench rc=$?"; cat "$O/bench.md" 2>/dev/null || tail -30 "$O/bench.err"

# 4. The scan's tile and look-back window (src/primitives/scan.cpp's PORTA_SCAN_ITEMS and
# PORTA_SCAN_WINDOW; defaults 32 and 64): cumsum float32 at 2^28 on both views of the GPU.
# Four settings beside the default (measured above), two repetitions each: about a minute.
for setting in 16,64 32,32 32,128 32,256; do
  items=${setting%,*} window=${setting#*,}
  {
    PORTA_SCAN_ITEMS=$items PORTA_SCAN_WINDOW=$window timeout 120 "$B/bin/porta-bench" --devices cuda:0,opencl:1 \
      --filter '^cumsum_f32/' --no-ceilings --repetitions 2 --json "$O/sweep_${items}_${window}.json" > /dev/null 2> "$O/sweep_${items}_${window}.err"
    python3 - "$O/sweep_${items}_${window}.json" "$items" "$window" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:  # noqa: BLE001
    sys.exit(f"sweep items={sys.argv[2]} window={sys.argv[3]}: no JSON ({e})")
for b in d.get("benchmarks", []):
    if b["name"].startswith("cumsum_f32/") and "GB/s" in b and b.get("aggregate_name") == "median":
        print(f"sweep items={sys.argv[2]} window={sys.argv[3]} {b['name'].split('/')[1]} {b['GB/s']:.0f} GB/s")
PY
  }
done
