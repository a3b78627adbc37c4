#!/usr/bin/env bash
# On the GPU host, from the repository root after .gpu/setup.sh, with a carried build in build/:
#   1. scripts/dev/gemm_data_probe.cpp: float16 matmul on cuda:0 and opencl:1 over inputs of several
#      distributions (does the data move the speed, and does it explain why porta's OpenCL GEMM search
#      timed wg128x128x32:g1:s3 at 451 TFLOP/s and porta-bench the same kernel at 388?);
#   2. the warpgroup GEMM's search, float16 and TF32, over today's best against: a slice's loads
#      issued after its MMAs (:m); six stages of BK = 16 with the MMAs of one slice overlapping the
#      next slice's wait (:o; as many k values in flight as wg128x128x32:g1:s3 holds); 64-row
#      tiles, whose fewer registers (126-162 in scripts/dev/gemm_sass.sh's build) let three or four
#      work-groups share an SM's shared memory where 128-row tiles fit two; and 128-row tiles
#      bounded to 168 registers (:r168, three work-groups an SM; 48 bytes of spills there); and
#      float64's mma.sync kernel bounded to 128 registers (two work-groups an SM where its 148
#      registers, in scripts/dev/gemm_sass.sh's build, leave one);
#   3. porta_matmul_test on opencl:1 with the ranked kernels, then with the new forms forced: two
#      warpgroup-MMA configurations (:m, six stages with :o; four tests then fail by design: the
#      forced configuration refuses the products it does not serve, float64 and rows that are not
#      16-byte aligned) and float64's register-bounded one (the other dtypes' products then fail).
# Writes data_probe.log, search_*.log and test_*.log under $OUT. Written 2026-12-04; not run yet (no GPU was lent).
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/build/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PORTA_PLUGIN_PATH="$PWD/build/lib"
export PORTA_CACHE_DIR=/tmp/c6
g++ -O2 -std=c++20 -Iinclude scripts/dev/gemm_data_probe.cpp -o /tmp/gdp -Lbuild/lib -lporta -Wl,-rpath,$PWD/build/lib && \
  timeout 150 /tmp/gdp cuda:0 opencl:1 > $out/data_probe.log 2>&1; echo "probe rc $?"; cat $out/data_probe.log | grep -v "^porta \[" | tail -30
SEARCH_TIMEOUT=120
. scripts/dev/gemm_search_fn.sh
search f16 matmul_f16 "wg128x128x32:g1:s3 wg128x128x32:g1:s3:m wg128x128x32:g1:s3:r168 wg128x128x32:g1:s3:m:r168 wg128x128x32:g2:s3:m wg64x128x32:g1:s4:m wg64x128x32:g1:s4:o:m wg64x192x32:g1:s3:m wg64x128x64:g1:s2:m wg128x128x16:g1:s6:o wg128x128x16:g1:s6:o:m wg128x128x16:g2:s6:o:m wg128x256x16:g2:s4:m"
PORTA_MATMUL=tf32 search tf32 matmul_tf32 "wg128x128x16:g2:s3 wg128x128x16:g2:s3:m wg64x128x32:g1:s2:m wg128x128x8:g2:s6:o wg128x128x8:g2:s6:o:m wg64x128x16:g1:s4:m"
search f64 matmul_f64 "tc128x64x8:w32x32 tc128x64x8:w32x32:r128 tc64x128x8:w32x64 tc64x64x16:w32x32:r168 mma16x8x8:128x128x8:w64x32"
i=0
for cfg in default wg128x128x32:g1:s3:m wg128x128x16:g1:s6:o:m tc128x64x8:w32x32:r128; do
  i=$((i+1))
  if [ $cfg = default ]; then unset PORTA_OPENCL_GEMM; else export PORTA_OPENCL_GEMM=mma:$cfg; fi
  timeout 120 build/bin/porta_matmul_test --gtest_filter='*opencl_1*' > $out/test_$i.log 2>&1
  echo "== test $cfg rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $out/test_$i.log | head -8
  grep -E "Failure|what\(\)|error|Error" $out/test_$i.log | head -6 | cut -c1-300
done
