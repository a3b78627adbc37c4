#!/usr/bin/env bash
# What the last notes left for the H200 (issues 19, 20, 21), in one call. From the repository
# root on the GPU host, after a build (or a carried one) in $1 with bin/porta-bench and lib/:
#   bash scripts/dev/gpu_open_ends.sh build
# Writes under $OUT: tma_probe.log (scripts/dev/tma_probe.cpp: TMA on a cl_mem from OpenCL),
# graph_probe.log (scripts/dev/graph_probe.cpp, with programmatic dependent launch),
# scan_sweep.log (cumsum float32 over PORTA_SCAN_ITEMS x PORTA_SCAN_WINDOW on cuda:0 and
# opencl:1), random.log (fill, uniform, normal). About 3 minutes. DEVICES= other devices (default
# cuda:0,opencl:1).
set -u
B=${1:?usage: gpu_open_ends.sh BUILD_DIR}
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/$B/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PORTA_PLUGIN_PATH="$PWD/$B/lib"
rows() {  # the medians of a porta-bench JSON: name, GB/s
  python3 - "$1" <<'PY'
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b["name"].endswith("_median"):
        print(" ", b["name"].split("/min_time")[0], "GB/s", round(b.get("GB/s", 0), 1))
PY
}

# 1. TMA from OpenCL (issue 20).
g++ -O1 -std=c++17 scripts/dev/tma_probe.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcuda -lOpenCL \
  -o "$OUT/tma_probe" > "$OUT/tma_probe.log" 2>&1 && timeout 60 "$OUT/tma_probe" >> "$OUT/tma_probe.log" 2>&1
echo "tma_probe rc $?"; grep -E "RESULT|wrong|cuTensorMap|build at" "$OUT/tma_probe.log" | head -12

# 2. Graph nodes with programmatic dependent launch (issue 21: a replay at PyTorch's cost, not below).
g++ -O2 -std=c++17 scripts/dev/graph_probe.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lcuda -lnvrtc \
  -o "$OUT/graph_probe" > "$OUT/graph_probe.log" 2>&1 && timeout 60 "$OUT/graph_probe" 4000 >> "$OUT/graph_probe.log" 2>&1
echo "graph_probe rc $?"; cat "$OUT/graph_probe.log"

# 3. The scan's tile and window since the look-back fix (issue 19: cumsum at 0.77x-0.78x copy).
for items in 32 16 8; do
  for window in 64 128; do
    PORTA_SCAN_ITEMS=$items PORTA_SCAN_WINDOW=$window timeout 60 "$B/bin/porta-bench" --devices="${DEVICES:-cuda:0,opencl:1}" \
      --filter='^cumsum_f32/' --repetitions=2 --no-ceilings --json="$OUT/scan.json" > /dev/null 2>&1
    echo "items $items window $window"; rows "$OUT/scan.json"
  done
done | tee "$OUT/scan_sweep.log"

# 4. The generators against fill (issue 21: normal at about 0.4x of fill).
timeout 90 "$B/bin/porta-bench" --devices="${DEVICES:-cuda:0,opencl:1}" --filter='^(fill|uniform|normal)/' --repetitions=2 \
  --no-ceilings --json="$OUT/random.json" > "$OUT/random.log" 2>&1
rows "$OUT/random.json"
