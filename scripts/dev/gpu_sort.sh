#!/usr/bin/env bash
# The radix sort on a GPU host (issues 19 and 41, sorting): the sort tests on cuda:0 and opencl:1
# (also with PORTA_RADIX=tiled, the portable ranking, =ballot, its emulated warp votes, and
# PORTA_SORT=twopass, the sort of two passes a digit), porta-bench's sort rows on both, CuPy's
# sort and argsort of the same sizes in the same run, the sort rows with PORTA_SORT=twopass and
# PORTA_RADIX=tiled (the ranking without warp votes) and on PoCL (opencl:0).
# Run from the tree's root after ../../.gpu/setup.sh (or .gpu/setup.sh); logs go to $OUT.
#   PREBUILT=dir   use dir/{bin,lib} (built elsewhere with -DPORTA_CUDA=ON) when they start here;
#                  otherwise (or unset) build porta_sort_test and porta-bench into /tmp/b.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
bin=""
if [ -n "${PREBUILT:-}" ] && LD_LIBRARY_PATH=$PREBUILT/lib:$LD_LIBRARY_PATH "$PREBUILT/bin/porta_sort_test" --gtest_list_tests > /dev/null 2>&1; then
  bin=$PREBUILT/bin
  export LD_LIBRARY_PATH=$PREBUILT/lib:$LD_LIBRARY_PATH
  echo "prebuilt binaries"
else
  t0=$(date +%s)
  cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTA_CUDA=ON -DPORTA_PYTHON=OFF -DPORTA_MPI=OFF > "$OUT/cfg.log" 2>&1 || { tail -30 "$OUT/cfg.log"; exit 1; }
  cmake --build /tmp/b --target porta_sort_test porta-bench porta_cuda porta_opencl > "$OUT/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$OUT/build.log" | head -60; exit 1; }
  echo "built in $(( $(date +%s) - t0 )) s"
  bin=/tmp/b/bin
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
date -u +"start %H:%M:%S"

# 1. Tests on the GPUs: the device's own ranking, then the portable one.
timeout 120 "$bin/porta_sort_test" --gtest_filter='*cuda_0*:*opencl_1*' > "$OUT/tests.log" 2>&1
echo "tests rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|tests from .* ran" "$OUT/tests.log" | head -30
for mode in tiled ballot; do
  PORTA_RADIX=$mode timeout 90 "$bin/porta_sort_test" --gtest_filter='*cuda_0*:*opencl_1*' > "$OUT/tests_$mode.log" 2>&1
  echo "tests (PORTA_RADIX=$mode) rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|tests from .* ran" "$OUT/tests_$mode.log" | head -30
done
PORTA_SORT=twopass timeout 90 "$bin/porta_sort_test" --gtest_filter='*cuda_0*:*opencl_1*' > "$OUT/tests_twopass.log" 2>&1
echo "tests (PORTA_SORT=twopass) rc=$?"; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|tests from .* ran" "$OUT/tests_twopass.log" | head -30

# 2. porta-bench's sort rows (2^28 elements on GPUs), CuPy beside them.
date -u +"bench %H:%M:%S"
timeout 120 "$bin/porta-bench" --devices=cuda:0,opencl:1 --filter=sort --no-ceilings --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1
echo "bench rc=$?"; grep -E "manual_time_median" "$OUT/bench.txt" | awk '{print $1, $2, $3, $7, $8}'
timeout 60 python3 - <<'EOF' > "$OUT/cupy.txt" 2>&1
import cupy as cp, numpy as np
N = 1 << 28
def ev(fn, reps=7):
    fn(); cp.cuda.Device().synchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event(); ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize(); ts.append(cp.cuda.get_elapsed_time(s, e) / 1e3)
    return float(np.median(ts))
x = cp.random.uniform(-1, 1, N, dtype=cp.float32)
xi = (cp.random.uniform(-1, 1, N, dtype=cp.float32) * 1e9).astype(cp.int32)
for name, fn in [("cupy.sort f32", lambda: cp.sort(x)), ("cupy.sort i32", lambda: cp.sort(xi)), ("cupy.argsort f32", lambda: cp.argsort(x))]:
    t = ev(fn); print(f"{name}: {t * 1e3:.3f} ms, {N / t / 1e9:.2f} G keys/s")
EOF
echo "cupy rc=$?"; cat "$OUT/cupy.txt" | tail -4

# 3. The two-pass sort's speed, the portable ranking's, and PoCL's rows (2^24 elements there).
PORTA_SORT=twopass timeout 60 "$bin/porta-bench" --devices=cuda:0,opencl:1 --filter=sort --no-ceilings --repetitions=1 > "$OUT/bench_twopass.txt" 2>&1
echo "bench twopass rc=$?"; grep -E "/manual_time " "$OUT/bench_twopass.txt" | awk '{print $1, $2, $3, $7, $8}'
PORTA_RADIX=tiled timeout 60 "$bin/porta-bench" --devices=cuda:0,opencl:1 --filter=sort --no-ceilings --repetitions=1 > "$OUT/bench_tiled.txt" 2>&1
echo "bench tiled rc=$?"; grep -E "/manual_time " "$OUT/bench_tiled.txt" | awk '{print $1, $2, $3, $7, $8}'
timeout 90 "$bin/porta-bench" --devices=opencl:0 --filter=sort --no-ceilings --repetitions=1 > "$OUT/bench_pocl.txt" 2>&1
echo "bench pocl rc=$?"; grep -E "/manual_time " "$OUT/bench_pocl.txt" | awk '{print $1, $2, $3, $7, $8}'
date -u +"end %H:%M:%S"
