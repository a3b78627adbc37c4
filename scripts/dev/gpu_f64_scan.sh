#!/usr/bin/env bash
# On the GPU host, from the repository root after .gpu/setup.sh, with a carried build in build/:
#   1. float64's mma.sync GEMM (gemm_tc.cl) under register bounds: tc64x64x16:w32x32:r168 ran
#      47.4 / 48.7 TFLOP/s at 4096 / 8192 on 2026-12-04 against 43.2 / 43.7 unbounded (three
#      work-groups an SM where two fitted); tighter bounds (four, five an SM), BK = 8, larger tiles
#      bounded, and cp.async stages with the bound;
#   2. TF32 again: wg128x128x16:g2:s3:m against wg128x128x16:g2:s3 (246 / 265 against 243 / 262);
#   3. porta-bench's matmul rows, float64 with the sweep's three best, TF32 with both, against
#      cuBLAS in the same run;
#   4. cumsum float32 over the scan's knobs not yet crossed: 16 items a work-item (tiles of 4096)
#      with seven or eight work-groups an SM, the look-back's window at 64 and 128. (Its runs of
#      tiles loaded by cp.async (PORTA_SCAN_LOAD set to async) are gone with that kernel: it ran slower,
#      src/primitives/scan.cpp says by how much, and nothing reads the variable.)
# Writes search_*.log, bench_matmul.log and scan_*.log under $OUT.
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/build/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PORTA_PLUGIN_PATH="$PWD/build/lib"
export PORTA_CACHE_DIR=/tmp/c7
SEARCH_TIMEOUT=150
. scripts/dev/gemm_search_fn.sh
search f64 matmul_f64 "tc64x64x16:w32x32:r168 tc64x64x16:w32x32:r128 tc64x64x16:w32x32:r144 tc64x64x16:w32x32:r96 tc64x64x8:w32x32:r128 tc64x64x8:w32x32:r168 tc64x128x8:w32x64:r168 tc128x64x8:w32x32:r128 tc64x64x16:w32x32:xor:s3:r128 tc64x64x16:w32x32:s2:r128 tc64x64x16:w32x32:xor:s2:r168"
PORTA_MATMUL=tf32 search tf32 matmul_tf32 "wg128x128x16:g2:s3 wg128x128x16:g2:s3:m"
best64=$(grep -oE "ranking \[[^]]*" "$out/search_f64.log" | head -1 | sed 's/ranking \[//' | cut -d' ' -f1-3)
echo "float64's three best: $best64"
PORTA_OPENCL_GEMM_CANDIDATES="wg128x128x32:g1:s3 wg128x128x16:g2:s3:m wg128x128x16:g2:s3 $best64" timeout 240 \
  build/bin/porta-bench --devices=cuda:0,opencl:1 --matmul=4096,8192 --filter='^matmul_(tf32|f64)/' --repetitions=3 \
  > "$out/bench_matmul.log" 2>&1
echo "== bench rc $?"; grep -E "matmul_(tf32|f64)/" "$out/bench_matmul.log" | grep -v "_mean\|_stddev\|_cv" | head -40
scan() {
  local name=$1; shift
  env "$@" timeout 60 build/bin/porta-bench --devices=cuda:0,opencl:1 --filter='^(cumsum_f32)/' --repetitions=3 \
    > "$out/scan_$name.log" 2>&1
  echo "== scan $name ($*) rc $?: $(grep -E 'cumsum_f32/.*median' "$out/scan_$name.log" | grep -oE '(cuda|opencl):[0-9].*' | tr -s ' ' | cut -c1-120 | tr '\n' ';')"
}
timeout 60 build/bin/porta-bench --devices=cuda:0,opencl:1 --filter='^copy/' --repetitions=3 > "$out/scan_copy.log" 2>&1
echo "copy: $(grep -E 'copy/.*median' "$out/scan_copy.log" | tr -s ' ' | cut -c1-140 | tr '\n' ';')"
scan default PORTA_SCAN_BLOCKS=6
scan i16b6 PORTA_SCAN_ITEMS=16 PORTA_SCAN_BLOCKS=6
scan i16b7 PORTA_SCAN_ITEMS=16 PORTA_SCAN_BLOCKS=7
scan i16b8 PORTA_SCAN_ITEMS=16 PORTA_SCAN_BLOCKS=8
scan i16b8w128 PORTA_SCAN_ITEMS=16 PORTA_SCAN_BLOCKS=8 PORTA_SCAN_WINDOW=128
scan w128 PORTA_SCAN_WINDOW=128
scan default2 PORTA_SCAN_BLOCKS=6
