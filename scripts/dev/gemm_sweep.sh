#!/usr/bin/env bash
# On the GPU host: times many tensor-core GEMM configurations of porta's OpenCL backend on the H200
# (opencl:1) at 4096 and 8192, beside cuBLAS on cuda:0 in the same run, and probes what NVIDIA's
# OpenCL compiler accepts (wgmma, setmaxnreg, cp.async.bulk) and makes of the kernels (registers,
# spills). Every configuration goes through porta's own timed, checked search
# (PORTA_OPENCL_GEMM_CANDIDATES, PORTA_OPENCL_GEMM_SEARCH=4096,8192; PORTA_LOG=info prints each
# candidate's TFLOP/s and any failure), so a wrong result is reported as a failure, not a figure.
#
#   scripts/dev/gemm_sweep.sh BIN_DIR OUT_DIR [PROBE]
# BIN_DIR holds porta-bench (its lib/ beside it or on LD_LIBRARY_PATH); PROBE is a built
# scripts/dev/cl_probe.cpp (skipped when absent). Writes OUT_DIR/*.log and a summary to stdout.
set -u
bin=$1
out=$2
probe=${3:-}
mkdir -p "$out"
export PORTA_CACHE=off PORTA_LOG=info
src=$(cd "$(dirname "$0")/../.." && pwd)

# The default candidates (gemm_wg_candidates, gemm_tc_candidates, gemm_mma_candidates) and a few
# more of each dtype; the warpgroup-MMA (wg...) ones run on Hopper only.
f16="wg128x128x32:g2:s3 wg128x128x32:g1:s3 wg64x128x64:g1:s2 wg128x128x16:g2:s4 wg128x256x16:g2:s4
 tc128x128x32:w64x64:ldsm:xor:s3 tc128x256x16:w64x64:ldsm:xor:s4 tc128x128x16:w64x64:ldsm:xor:s4
 tc256x128x16:w64x64:ldsm:xor:s4 tc128x256x32:w64x64:ldsm:xor:s2 tc128x128x32:w64x64:ldsm tc128x256x16:w64x64:ldsm
 tc128x64x32:w64x32:ldsm:xor:s4 tc64x128x32:w32x64:ldsm:xor:s4 tc64x64x32:w32x32:ldsm
 tc128x128x32:w64x64:ldsm:xor tc128x128x32:w64x32:ldsm:xor:s3 tc128x256x16:w64x64:ldsm:s3
 tc256x128x32:w64x64:ldsm:xor:s2 tc128x128x16:w64x64:ldsm:s4"
bf16="wg128x128x32:g2:s3 wg128x128x32:g1:s3 wg64x128x64:g1:s2 tc128x128x32:w64x64:ldsm tc128x128x32:w64x64:ldsm:xor:s3 tc128x256x16:w64x64:ldsm:xor:s4
 tc128x128x16:w64x64:ldsm:xor:s4 tc256x128x16:w64x64:ldsm:xor:s4 tc128x256x32:w64x64:ldsm:xor:s2"
tf32="wg128x128x16:g2:s3 wg64x128x32:g1:s2 wg256x128x16:g2:s2 tc128x128x16:w64x64:ldsm:xor:s3 tc128x128x16:w64x64:ldsm tc128x128x16:w64x64 tc128x256x8:w64x64:ldsm:xor:s4
 tc128x128x8:w64x64:ldsm:xor:s4 tc128x256x16:w64x64:ldsm:xor:s2 tc128x64x16:w64x32 tc64x128x16:w32x64:ldsm:xor:s4
 tc64x64x16:w32x32 tc128x128x16:w64x64:xor:s3 tc128x128x16:w64x64:xor tc256x128x8:w64x64:ldsm:xor:s3"
f64="tc64x64x16:w32x32:xor:s3 tc128x128x8:w64x32:xor:s3 tc128x64x8:w32x32:xor:s4 tc64x64x16:w32x32
 tc128x64x8:w32x32 tc128x128x8:w64x32 tc64x128x8:w32x64 mma16x8x8:128x128x8:w64x32 tc64x64x16:w32x32:s2
 tc128x128x8:w32x64:xor:s3 tc64x128x8:w32x64:xor:s4"

# One search: the candidates of one dtype at 4096 and 8192 (the benchmark row is only the trigger).
search() {
  local name=$1 row=$2 list=$3
  local t0=$SECONDS
  PORTA_OPENCL_GEMM_CANDIDATES="$list" PORTA_OPENCL_GEMM_SEARCH=4096,8192 timeout ${SWEEP_SEARCH_S:-40} \
    "$bin/porta-bench" --devices=opencl:1 --filter="^$row/opencl:1/4096(/|\$)" --matmul=4096 --no-ceilings --repetitions=1 \
    > "$out/search_$name.log" 2>&1
  echo "== $name search (rc $?, $((SECONDS - t0)) s)"
  grep -E "candidate .* at |failed at|did not fit|the fastest of" "$out/search_$name.log" | sed -E 's/.*(GEMM on the tensor cores, [a-z]+ products: )//' | cut -c1-220
}

part() { [[ " ${SWEEP_PARTS:-probe search tiled bench} " == *" $1 "* ]]; }

if part probe && [ -n "$probe" ] && [ -x "$probe" ]; then
  t0=$SECONDS
  timeout 60 "$probe" probes > "$out/probe_ptx.log" 2>&1
  echo "== PTX probes (rc $?, $((SECONDS - t0)) s)"
  grep -E "^device|^===|ptx|error" "$out/probe_ptx.log" | cut -c1-240 | head -60
  # Registers and spills of a few kernels, as ptxas reports them (-cl-nv-verbose).
  cl="$out/gemm_tc_built.cl"  # as gemm_tensor.cpp builds it: the shared prologue, then the kernel
  cat "$src/backends/opencl/gemm/kernels/gemm_common.cl" "$src/backends/opencl/gemm/kernels/gemm_tc.cl" > "$cl"
  for opts in "-DELEM=16 -DFAST=1 -DLDSM=1 -DBM=128 -DBN=128 -DBK=32 -DWM=64 -DWN=64 -DSWZ=0" \
              "-DELEM=16 -DFAST=1 -DLDSM=1 -DBM=128 -DBN=128 -DBK=32 -DWM=64 -DWN=64 -DSWZ=1 -DSTAGES=3 -DSTAGES_WAIT=1" \
              "-DELEM=16 -DFAST=1 -DLDSM=1 -DBM=128 -DBN=256 -DBK=16 -DWM=64 -DWN=64 -DSWZ=1 -DSTAGES=4 -DSTAGES_WAIT=2" \
              "-DELEM=32 -DFAST=1 -DLDSM=0 -DBM=128 -DBN=128 -DBK=16 -DWM=64 -DWN=64 -DSWZ=0" \
              "-DELEM=32 -DFAST=1 -DLDSM=0 -DBM=128 -DBN=128 -DBK=16 -DWM=64 -DWN=64 -DSWZ=1 -DSTAGES=3 -DSTAGES_WAIT=1" \
              "-DELEM=64 -DFAST=1 -DLDSM=0 -DBM=64 -DBN=64 -DBK=16 -DWM=32 -DWN=32 -DSWZ=1 -DSTAGES=3 -DSTAGES_WAIT=1"; do
    echo "-- $opts"
    timeout 30 "$probe" build "$cl" $opts 2>&1 | grep -E "ptxas|registers|spill|bytes stack|FAILED|error" | head -8
  done > "$out/probe_regs.log"
  PROBE_PTX="$out/f16_xor_s3.ptx" timeout 30 "$probe" build "$cl" -DELEM=16 -DFAST=1 -DLDSM=1 -DBM=128 -DBN=128 -DBK=32 \
    -DWM=64 -DWN=64 -DSWZ=1 -DSTAGES=3 -DSTAGES_WAIT=1 > /dev/null 2>&1
  echo "== registers (ptxas)"
  cat "$out/probe_regs.log"
fi

if part search; then
  search f16 matmul_f16 "$f16"
  search tf32 matmul_tf32 "$tf32"
  search f64 matmul_f64 "$f64"
  search bf16 matmul_bf16 "$bf16"
fi

# The tiled kernel's candidates at 1024 (float32 1024 runs on it).
if part tiled; then
t0=$SECONDS
PORTA_OPENCL_GEMM=tiled PORTA_OPENCL_GEMM_SEARCH=1024 timeout 60 "$bin/porta-bench" --devices=opencl:1 \
  --filter="^matmul_f32/opencl:1/1024(/|\$)" --matmul=1024 --no-ceilings --repetitions=1 > "$out/search_tiled1024.log" 2>&1
echo "== tiled float32 1024 search (rc $?, $((SECONDS - t0)) s)"
grep -E "candidate .* at |the fastest of" "$out/search_tiled1024.log" | sed -E 's/.*(float32 GEMM[^:]*: )//' | cut -c1-200
fi

# The same run's cuBLAS and porta rows (porta with its default candidates, searched as users get
# them); BENCH_REPS repetitions (3 unless set), their median.
if part bench; then
t0=$SECONDS
PORTA_LOG=info timeout ${BENCH_S:-150} "$bin/porta-bench" --devices=cuda:0,opencl:1 --no-ceilings --repetitions=${BENCH_REPS:-3} \
  --filter='^matmul_(f16|bf16|tf32|f64)/.*/(4096|8192)(/|$)|^matmul_f32/.*/(1024|8192)(/|$)' --matmul=1024,4096,8192 \
  --json="$out/bench.json" > "$out/bench.log" 2>&1
echo "== porta-bench (rc $?, $((SECONDS - t0)) s)"
grep -E "^\| matmul" "$out/bench.log" | head -40
grep -E "the fastest of" "$out/bench.log" | sed -E 's/ \(searched in.*//' | cut -c1-300
fi
