#!/usr/bin/env bash
# Issue 21, graphs: on the GPU host, after the lead's build. From the repository root:
#   bash scripts/dev/gpu_graph.sh /tmp/b      # the build dir, with porta_graph_test and porta-bench built
# Writes under $OUT: graph_build.log, graph_tests.log (the graph tests on every device: cuda:0, opencl:0 = PoCL,
# opencl:1 = the H200 through NVIDIA's OpenCL), graph_tests_sync.log (the CUDA and NVIDIA OpenCL
# cases again with PORTA_LAUNCH=sync), graph_debug.log (PORTA_LOG=debug of one recording per
# device: the graph's kind and node count), graph_peers.json/.log (peers.py's graphs and
# small_ops sections) and graph_bench{1,2,3}.log/.json (porta-bench's small_add, bare launch and
# small_graph rows on cuda:0 and opencl:1 with the peers, three runs for the median), and
# graph_pytest.log where the build has the Python package.
set -u
B=${1:?usage: gpu_graph.sh BUILD_DIR}
OUT=${OUT:-/tmp/graph_out}
mkdir -p "$OUT"
status=0
# The targets this needs, should the build have skipped them (a no-op when they are built).
cmake --build "$B" --target porta_graph_test porta-bench > "$OUT/graph_build.log" 2>&1 || { tail -20 "$OUT/graph_build.log"; exit 1; }

"$B/bin/porta_graph_test" --gtest_color=no > "$OUT/graph_tests.log" 2>&1 || status=1
tail -5 "$OUT/graph_tests.log"
PORTA_LAUNCH=sync "$B/bin/porta_graph_test" --gtest_color=no --gtest_filter='*cuda_0*:*opencl_1*' \
  > "$OUT/graph_tests_sync.log" 2>&1 || status=1
tail -3 "$OUT/graph_tests_sync.log"
PORTA_LOG=debug "$B/bin/porta_graph_test" --gtest_color=no --gtest_filter='*ReductionAndMatmulReplay*' 2>&1 \
  | grep -E "porta::record|OK|FAILED|cuStream|cuGraph" > "$OUT/graph_debug.log" || true

if [ -f "$B/python/porta/__init__.py" ]; then
  PYTHONPATH="$B/python" python3 -m pytest -q python/tests/test_graph.py > "$OUT/graph_pytest.log" 2>&1 || status=1
  tail -2 "$OUT/graph_pytest.log"
fi
python3 bench/peers/peers.py --only=small_ops,graphs --out="$OUT/graph_peers.json" > "$OUT/graph_peers.log" 2>&1 || status=1
grep -E "graph10|small_add_us" "$OUT/graph_peers.log"
peers=()
[ -s "$OUT/graph_peers.json" ] && peers=(--peers="$OUT/graph_peers.json")
for run in 1 2 3; do
  "$B/bin/porta-bench" --devices=cuda:0,opencl:1 "--filter=^(small_add|small_native_add|small_graph.*)/" \
    "${peers[@]}" --json="$OUT/graph_bench$run.json" > "$OUT/graph_bench$run.log" 2>&1 || status=1
  grep -E "graph|small add|bare launch" "$OUT/graph_bench$run.log" | grep "|" || tail -5 "$OUT/graph_bench$run.log"
  # Host and device time per add of the graph rows (device near host: the device is the limit).
  python3 - "$OUT/graph_bench$run.json" <<'PY' || true
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b["name"].startswith("small_graph") and b["name"].endswith("_median"):
        print(b["name"], "us_per_op", round(b.get("us_per_op", 0), 3), "device_us_per_op", round(b.get("device_us_per_op", 0), 3))
PY
done
exit $status
