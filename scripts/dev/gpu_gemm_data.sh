#!/usr/bin/env bash
# On the GPU host, from the repository root after .gpu/setup.sh, with a carried build in build/:
#   1. scripts/dev/gemm_data_probe.cpp: float16 matmul on cuda:0 and opencl:1 over inputs of several
#      distributions (does the data move the speed, and does it explain why porta's OpenCL GEMM search
#      timed wg128x128x32:g1:s3 at 451 TFLOP/s and porta-bench the same kernel at 388?);
#   2. porta_matmul_test on opencl:1 with the ranked kernels, then with two warpgroup-MMA
#      configurations forced (four tests then fail by design: the forced configuration refuses the
#      products it does not serve, float64 and rows that are not 16-byte aligned).
# Writes data_probe.log and test_*.log under $OUT. Written 2026-12-04; not run yet (no GPU was lent).
set -u
out=${OUT:-/tmp/out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/build/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PORTA_PLUGIN_PATH="$PWD/build/lib"
export PORTA_CACHE_DIR=/tmp/c6
g++ -O2 -std=c++20 -Iinclude scripts/dev/gemm_data_probe.cpp -o /tmp/gdp -Lbuild/lib -lporta -Wl,-rpath,$PWD/build/lib && \
  timeout 150 /tmp/gdp cuda:0 opencl:1 > $out/data_probe.log 2>&1; echo "probe rc $?"; cat $out/data_probe.log | grep -v "^porta \[" | tail -30
i=0
for cfg in default wg128x128x32:g1:s3 wg128x128x16:g1:s4:o; do
  i=$((i+1))
  if [ $cfg = default ]; then unset PORTA_OPENCL_GEMM; else export PORTA_OPENCL_GEMM=mma:$cfg; fi
  timeout 120 build/bin/porta_matmul_test --gtest_filter='*opencl_1*' > $out/test_$i.log 2>&1
  echo "== test $cfg rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $out/test_$i.log | head -8
  grep -E "Failure|what\(\)|error|Error" $out/test_$i.log | head -6 | cut -c1-300
done
