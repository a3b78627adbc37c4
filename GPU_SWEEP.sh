#!/usr/bin/env bash
# The one-sweep sort's settings on the GPU host (issue 41, branch `sort`), in one run: run from the
# repository root after the GPU build (porta-bench and porta_sort_test in build-gpu/bin, BUILD to
# change that); logs, JSON and Markdown go to $OUT/sort_sweep/. About 6-8 minutes in all.
#
#   1. the peers' sort rows (CuPy, PyTorch) once, for every porta-bench row below;
#   2. porta_sort_test on the GPU devices (cuda_0, opencl_1) under the default order and under
#      PORTA_ONESWEEP=early with tiles of 16, 24 and 31 items (each a whole pass of the sort tests);
#   3. one porta-bench line per setting (each < 20 s: four rows, two devices, 3 repetitions, no
#      ceilings), the default first and last (the drift between them is the noise to judge by).
#
# What the settings change (docs/design/sorting.md, docs/guide/settings.md):
#   PORTA_ONESWEEP=late|early  late: today's pass (publish after ranking, look back before the
#                              local scatter, every work-group scans the digit starts); early: CUB's
#                              order (counts with local atomics published first, ranking straight into
#                              local memory, look-back after it, tile 0 alone scans the digit starts)
#   PORTA_SORT_ITEMS=N         keys a work-item ranks (tiles of 256 x N; default 16, 15 with indices;
#                              lowered to what 32000 B of local memory hold: 31 keys-only, 15 argsort)
#   PORTA_RADIX_BLOCKS=B       CUDA __launch_bounds__(256, B) / NVIDIA OpenCL .maxnreg for sorts without
#                              indices (default 4: at most 64 registers; more items need fewer blocks)
# The lead picks defaults from these numbers; the rows to compare are sort_f32, sort_i32, sort_u32 and
# argsort_f32 of 2^28 keys against cupy/torch in the same file.
set -u
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/out}
D="$OUT/sort_sweep"
mkdir -p "$D"
BENCH="$BUILD/bin/porta-bench"
TEST="$BUILD/bin/porta_sort_test"
ROWS='^(sort_f32|sort_i32|sort_u32|argsort_f32)/'

# 1. Peers (CuPy and PyTorch sort/argsort of 2^28 keys, with the rest of their array-API sections).
python3 bench/peers/peers.py --only=cupy_array_api,torch_array_api --out="$D/peers.json" > "$D/peers.log" 2>&1
PEERS=()
[ -s "$D/peers.json" ] && PEERS=(--peers="$D/peers.json")

# 2. Correctness on the GPUs under each new setting (the tests force PORTA_SORT and PORTA_RADIX per
#    case; these variables reach every one-sweep sort that the tests do not force otherwise).
GPU_TESTS='*cuda_0*:*opencl_1*'
test_run() {  # name, then VAR=value settings
  local name=$1; shift
  env "$@" timeout 300 "$TEST" --gtest_filter="$GPU_TESTS" > "$D/test_$name.log" 2>&1
  local rc=$?
  echo "test $name: rc=$rc $(grep -E '^\[  (PASSED|FAILED)  \]' "$D/test_$name.log" | tr '\n' ' ')"
}
test_run default
test_run early16 PORTA_ONESWEEP=early
test_run early24 PORTA_ONESWEEP=early PORTA_SORT_ITEMS=24 PORTA_RADIX_BLOCKS=3
test_run early31 PORTA_ONESWEEP=early PORTA_SORT_ITEMS=31 PORTA_RADIX_BLOCKS=2

# 3. The sweep: one porta-bench run a setting.
bench_run() {  # name, then VAR=value settings
  local name=$1; shift
  env "$@" timeout 60 "$BENCH" --devices=cuda:0,opencl:1 --filter="$ROWS" --repetitions=3 --no-ceilings "${PEERS[@]}" \
    --json="$D/bench_$name.json" --markdown="$D/bench_$name.md" > "$D/bench_$name.log" 2>&1
  local rc=$?
  echo "bench $name: rc=$rc"
  grep -E -i '^\| *(arg)?sort' "$D/bench_$name.md" 2>/dev/null | sed "s/^/  $name /"
}
bench_run base
bench_run late_i20_b3   PORTA_SORT_ITEMS=20 PORTA_RADIX_BLOCKS=3
bench_run late_i24_b3   PORTA_SORT_ITEMS=24 PORTA_RADIX_BLOCKS=3
bench_run early         PORTA_ONESWEEP=early
bench_run early_b3      PORTA_ONESWEEP=early PORTA_RADIX_BLOCKS=3
bench_run early_i12     PORTA_ONESWEEP=early PORTA_SORT_ITEMS=12
bench_run early_i20_b4  PORTA_ONESWEEP=early PORTA_SORT_ITEMS=20 PORTA_RADIX_BLOCKS=4
bench_run early_i20_b3  PORTA_ONESWEEP=early PORTA_SORT_ITEMS=20 PORTA_RADIX_BLOCKS=3
bench_run early_i24_b3  PORTA_ONESWEEP=early PORTA_SORT_ITEMS=24 PORTA_RADIX_BLOCKS=3
bench_run early_i24_b2  PORTA_ONESWEEP=early PORTA_SORT_ITEMS=24 PORTA_RADIX_BLOCKS=2
bench_run early_i28_b2  PORTA_ONESWEEP=early PORTA_SORT_ITEMS=28 PORTA_RADIX_BLOCKS=2
bench_run early_i31_b2  PORTA_ONESWEEP=early PORTA_SORT_ITEMS=31 PORTA_RADIX_BLOCKS=2
bench_run base_again
