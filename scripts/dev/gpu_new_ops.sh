#!/usr/bin/env bash
# The elementwise ops added 2026-12-04 (acos ... logaddexp, the shifts; commit c523772) on the GPUs:
# built and tested on PoCL and Kokkos, their CUDA text compiled by NVRTC here
# (codegen_cuda_text_test), but not yet run on cuda:0 or NVIDIA's OpenCL. Runs their tests there.
#   GPU host (carry .gpu, build/bin, build/lib): bash .gpu/setup.sh; bash scripts/dev/gpu_new_ops.sh
# Writes under $OUT; about a minute with a cold kernel cache.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/build/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PORTA_PLUGIN_PATH="$PWD/build/lib"
timeout 240 build/bin/porta_elementwise_ops_test --gtest_filter='*cuda_0*:*opencl_1*' > "$out/new_ops.log" 2>&1
echo "== elementwise_ops on cuda:0 and opencl:1 rc $?: $(grep -E '^\[  (PASSED|FAILED)' "$out/new_ops.log" | tr '\n' ' ')"
grep -E "Failure|^\[  FAILED|got .* expected" "$out/new_ops.log" | head -12 | cut -c1-220
