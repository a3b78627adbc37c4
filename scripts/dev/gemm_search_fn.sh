# search NAME ROW "CANDIDATES": porta's OpenCL GEMM search on opencl:1 over CANDIDATES at 4096 and
# 8192 (PORTA_OPENCL_GEMM_CANDIDATES, PORTA_OPENCL_GEMM_SEARCH), by porta-bench's ROW at 4096; its log
# in $out/search_NAME.log, each candidate's TFLOP/s and the ranking printed. Sourced by the
# scripts/dev/gpu_*.sh that sweep configurations; SEARCH_TIMEOUT (default 150 s) bounds each search.
search() {
  local name=$1 row=$2 list=$3
  PORTA_LOG=info PORTA_OPENCL_GEMM_CANDIDATES="$list" PORTA_OPENCL_GEMM_SEARCH=4096,8192 timeout "${SEARCH_TIMEOUT:-150}" \
    build/bin/porta-bench --devices=opencl:1 --filter="^$row/opencl:1/4096(/|\$)" --matmul=4096 --no-ceilings --repetitions=1 \
    > "$out/search_$name.log" 2>&1
  echo "== $name search rc $?"
  grep -E "candidate .* at |failed|fastest" "$out/search_$name.log" | sed -E 's/.*(products: )//' | cut -c1-300
}
