#!/usr/bin/env bash
# Issue 40 (branch clsolve) on the GPU host, from the repo root, logs to $OUT (about 3 minutes):
# 1. dense_test on cuda_0: porta's own solvers, the blocked sizes (n 100, 257) that factored
#    wrongly before each kernel kind had its own section (the programmatic-launch wait), and the
#    fused one-launch gesv / Cholesky (and both on opencl:1); 2. linalg_test on cuda_0 under
#    PORTA_SOLVER=porta (porta's kernels at every size) and auto (up to 64 x 64), on opencl:1;
# 3. CuPy's and PyTorch's batched solve and cholesky, then porta-bench's rows under vendor
#    (cuBLAS/cuSOLVER batched, as before) and porta (the fused kernels; auto picks them here).
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
B=build-gpu O=${OUT:-/tmp/clsolve}; mkdir -p "$O"
[ -d $B ] || cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTA_CUDA=ON -DPORTA_MPI=OFF > "$O/configure.log" 2>&1
cmake --build $B -j16 --target porta_plugins porta-bench porta_dense_test porta_linalg_test > "$O/build.log" 2>&1 ||
  { grep -E "error|FAILED" -A5 "$O/build.log" | head -40; exit 1; }
# Tests, side by side (five programs on one GPU). opencl:1 (no vendor LU) takes the same kernels,
# the fused small solves now included.
for d in cuda_0 opencl_1; do
  timeout 240 $B/bin/porta_dense_test --gtest_color=no --gtest_filter="*$d*" > "$O/dense_$d.log" 2>&1 &
done
for s in porta auto; do  # vendor: the cuBLAS/cuSOLVER path, unchanged
  PORTA_SOLVER=$s timeout 240 $B/bin/porta_linalg_test --gtest_color=no --gtest_filter='*cuda_0*' > "$O/linalg_cuda_$s.log" 2>&1 &
done
timeout 240 $B/bin/porta_linalg_test --gtest_color=no --gtest_filter='*opencl_1*' > "$O/linalg_opencl_1.log" 2>&1 &
wait
for f in "$O"/dense_*.log "$O"/linalg_*.log; do
  echo "$(basename "$f"): $(grep -E '^\[  (PASSED|FAILED) ' "$f" | tr '\n' ' ')"; grep -E '^\[  FAILED  \]' "$f" | head -8
done
# Peers (batched rows only), then porta-bench with each setting against them.
timeout 150 python3 bench/peers/peers.py --no-compile --only=cupy_linalg,torch_linalg --linalg-batched --out="$O/peers.json" > "$O/peers.log" 2>&1
tail -2 "$O/peers.log"
for s in vendor porta; do
  PORTA_SOLVER=$s timeout 120 $B/bin/porta-bench --devices=cuda:0 --peers="$O/peers.json" --repetitions=2 \
    --filter='^linalg_(solve|cholesky)_.*(x16x16|x64x64)' --json="$O/bench_$s.json" --markdown="$O/bench_$s.md" > "$O/bench_$s.out" 2>&1
  echo "== PORTA_SOLVER=$s"; grep -E "linalg" "$O/bench_$s.md" | head -12
done
