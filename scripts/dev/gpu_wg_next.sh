#!/usr/bin/env bash
# The next GPU run for the OpenCL warpgroup GEMM (issue 20), two questions:
# 1. Whether commit 9f8868c (MN-major pieces addressed from the slice's first row, untimed when it
#    landed) slowed it: the search timed wg128x128x32:g1:s3 at 451.0 / 494.1 TFLOP/s (float16,
#    4096 / 8192) at 2026-12-04 19:04, before it, and 433.4 / 483.9 at 20:30, after; one run each,
#    so it may be the GPU's state. The same search alternates between this tree's OpenCL plugin
#    (build/lib) and one with 9f8868c reverted (build/lib_ab), three times, each with a fresh
#    kernel cache so that every search times its candidate.
# 2. Whether A's fragments from registers (":a": the stages hold B alone, so more of B's slices
#    are in flight in NVIDIA OpenCL's 48 KiB) beat wg128x128x32:g1:s3: its warpgroup tests on
#    opencl:1 (the :a configurations run natively there), then a float16 search. In clang's build
#    (scripts/dev/gemm_sass.sh) wg128x128x32:g1:s5:a takes 236 registers (two work-groups an SM;
#    A two slices ahead in three register buffers, no moves between them), g2:s5:a 126,
#    wg128x256x32:g2:s3:a 204, no spills, no serialized MMAs (wg128x128x64:g1:s3:a spills: left out).
#   Build machine, from the repository root (about 2 minutes):
#     git worktree add /tmp/wt HEAD && (cd /tmp/wt && git revert --no-commit 9f8868c &&
#       cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTA_CUDA=ON -DPORTA_PYTHON=OFF
#       -DPORTA_BUILD_TESTS=OFF -DPORTA_BUILD_BENCHMARKS=OFF -DPORTA_BUILD_EXAMPLES=OFF -DPORTA_MPI=OFF &&
#       ninja -C build porta_opencl) && mkdir -p build/lib_ab && cp /tmp/wt/build/lib/libporta_opencl.so build/lib_ab/
#   Build build/lib_ab again after any change of kBackendApiVersion (9 since c523772): the core
#   refuses a plugin of another version.
#   GPU host (carry .gpu, build/bin, build/lib, build/lib_ab): bash .gpu/setup.sh; bash scripts/dev/gpu_wg_next.sh
# ROUNDS= the A/B rounds (default 3).
# Written 2026-12-04; not run yet (no machine was lent again that session). Writes under $OUT.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/build/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
SEARCH_TIMEOUT=60
. scripts/dev/gemm_search_fn.sh
for i in $(seq "${ROUNDS:-3}"); do
  for v in lib lib_ab; do
    echo "== build/$v, round $i, $(date +%T)"
    PORTA_PLUGIN_PATH="$PWD/build/$v" PORTA_CACHE_DIR="/tmp/cab_${i}_$v" search "${v}_$i" matmul_f16 "wg128x128x32:g1:s3" |
      grep -E "candidate|rc [^0]"
  done
done
timeout 300 build/bin/porta_matmul_test --gtest_filter='*Warpgroup*opencl_1*' > "$out/test_wg.log" 2>&1
echo "== warpgroup tests on opencl:1 rc $?: $(grep -E '^\[  (PASSED|FAILED)' "$out/test_wg.log" | tr '\n' ' ')"
grep -E "Failure|mma:wg" "$out/test_wg.log" | head -8 | cut -c1-200
PORTA_PLUGIN_PATH="$PWD/build/lib" PORTA_CACHE_DIR=/tmp/c_a search a matmul_f16 \
  "wg128x128x32:g1:s3 wg128x128x32:g1:s5:a wg128x128x32:g1:s6:a wg128x128x32:g1:s5:m:a wg128x128x32:g2:s5:a wg128x128x32:g2:s6:m:a wg128x256x32:g2:s3:a wg128x128x32:g1:s4:a"
