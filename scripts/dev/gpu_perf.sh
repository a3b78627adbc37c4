#!/usr/bin/env bash
# Issue 21, everything but graphs: on the GPU host, after the lead's build. From the
# repository root:
#   bash scripts/dev/gpu_perf.sh /tmp/b      # the build dir: porta_{random,reduce,creation}_test, porta-bench
# Writes under $OUT (default /tmp/perf_out):
#   perf_tests.log        the random, reduction and creation tests this branch changed, on cuda:0 and
#                         opencl:1 (the cross-device random tests: every device present)
#   perf_peers.json/.log  peers.py's bandwidth and small-op sections (CuPy, PyTorch: argmax, sum,
#                         fill_, rand, cupy.random.random, small adds)
#   perf_bench{1,2,3}.log/.json  porta-bench on cuda:0 and opencl:1 with the peers, --repetitions=3:
#                         run 1 copy, sum, argmax, fill, uniform, normal, small add, bare launch, small
#                         add threads (1 and 4), the pool over cuda:0 + opencl:1 against cuda:0 alone;
#                         runs 2 and 3 the small-op rows again
#   uniform_probe.log     uniform kernel variants (vectors an iteration, mulhi or a 64-bit product,
#                         grid) against fill on cuda:0 and opencl:1
#   perf_summary.txt      the tables of the three runs (rows and ratios: argmax/sum, uniform/fill,
#                         small add/bare, threads, pool), for the medians
# About 120 s on the H200 when the lead's test run has filled the kernel disk cache.
set -u
B=${1:?usage: gpu_perf.sh BUILD_DIR}
OUT=${OUT:-/tmp/perf_out}
mkdir -p "$OUT"
status=0
start=$(date +%s)

gpu='*cuda_0*:*opencl_1*'
{
  timeout 60 "$B/bin/porta_random_test" --gtest_color=no --gtest_filter="RandomAcross*:RandomReference*:$gpu" || status=1
  timeout 60 "$B/bin/porta_reduce_test" --gtest_color=no \
    --gtest_filter="*ReductionRules*cuda_0*:*ReductionRules*opencl_1*:*LargeReductions*cuda_0*:*LargeReductions*opencl_1*" || status=1
  timeout 30 "$B/bin/porta_creation_test" --gtest_color=no --gtest_filter="*LargeFills*cuda_0*:*LargeFills*opencl_1*:*ZerosOnes*cuda_0*:*ZerosOnes*opencl_1*" || status=1
} > "$OUT/perf_tests.log" 2>&1
grep -E "^\[  (PASSED|FAILED) |tests ran" "$OUT/perf_tests.log"
echo "tests: $(( $(date +%s) - start )) s"

timeout 60 python3 bench/peers/peers.py --only=cupy_bandwidth,torch_bandwidth,small_ops --no-compile \
  --out="$OUT/perf_peers.json" > "$OUT/perf_peers.log" 2>&1 || status=1
peers=()
[ -s "$OUT/perf_peers.json" ] && peers=(--peers="$OUT/perf_peers.json")
echo "peers: $(( $(date +%s) - start )) s"

# Variants of the uniform kernel against fill (scripts/dev/uniform_probe.cpp), for the second run.
g++ -O2 -std=c++20 -Iinclude scripts/dev/uniform_probe.cpp -o /tmp/uniform_probe -L"$B/lib" -lporta -Wl,-rpath,"$B/lib" \
  > "$OUT/uniform_probe.log" 2>&1 && timeout 40 /tmp/uniform_probe cuda:0 opencl:1 >> "$OUT/uniform_probe.log" 2>&1 || status=1
cat "$OUT/uniform_probe.log"
echo "probe: $(( $(date +%s) - start )) s"

# Run 1: every row of this part; runs 2 and 3: the small-op rows again (their targets are medians
# of three runs; the bandwidth rows are medians of three repetitions within run 1).
small='small_add|small_native_add|small_add_threads'
for run in 1 2 3; do
  rows="^($small)/"
  [ $run = 1 ] && rows="^(copy|ref_copy|sum|argmax|fill|uniform|normal|$small|pool|pool_all)/"
  timeout 70 "$B/bin/porta-bench" --devices=cuda:0,opencl:1 "--filter=$rows" --repetitions=3 --no-ceilings "${peers[@]}" \
    --json="$OUT/perf_bench$run.json" > "$OUT/perf_bench$run.log" 2>&1 || status=1
  echo "== run $run ($(( $(date +%s) - start )) s)"
  grep -E "^\|" "$OUT/perf_bench$run.log" || tail -5 "$OUT/perf_bench$run.log"
done > "$OUT/perf_summary.txt"
cat "$OUT/perf_summary.txt"
echo "total: $(( $(date +%s) - start )) s"
exit $status
