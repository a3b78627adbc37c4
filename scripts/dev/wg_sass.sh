#!/usr/bin/env bash
# The SASS of porta's warpgroup-MMA GEMM (backends/opencl/kernels/gemm_wg.cl) for one configuration,
# without a GPU: the plugin's source and options (wg_sass.cpp), OpenCL C -> PTX by clang 15
# (nvptx64-nvidia-nvcl; a few OpenCL builtins mapped to NVVM's below), the plugin's PTX edits
# (marks removed, .target sm_90a, waits hoisted), ptxas -arch=sm_90a (registers, C7514), and
# nvdisasm (the nvidia-cuda-nvdisasm wheel from PyPI, fetched once into $CACHE). clang is not
# NVIDIA's NVVM, so the code around the instructions differs from what the driver builds; the order
# of barriers, loads and MMAs in the main loop is what this is for. From the repository root:
#   scripts/dev/wg_sass.sh wg128x128x32:g1:s3:m [float16|bfloat16|float32] [TA TB EDGE]
# Prints ptxas's summary and the main loop's barriers, cp.async, MMAs and waits with their offsets;
# leaves the files in $WORK (default /tmp/wg_sass_work).
set -eu
cfg=${1:?usage: wg_sass.sh CONFIG [DTYPE] [TA TB EDGE]}
dtype=${2:-float16}
work=${WORK:-/tmp/wg_sass_work}
cache=${CACHE:-$HOME/.cache/porta-dev}
build=${BUILD:-build}
mkdir -p "$work" "$cache"
nvdisasm=$(ls "$cache"/x/nvidia/cu*/bin/nvdisasm 2>/dev/null | head -1 || true)
if [ -z "$nvdisasm" ]; then
  python3 -m pip download --no-deps -q nvidia-cuda-nvdisasm -d "$cache"
  python3 -m zipfile -e "$(ls "$cache"/nvidia_cuda_nvdisasm*.whl | head -1)" "$cache/x"
  nvdisasm=$(ls "$cache"/x/nvidia/cu*/bin/nvdisasm | head -1)
  chmod +x "$nvdisasm"
fi
g++ -std=c++20 -O1 -DCL_TARGET_OPENCL_VERSION=300 -Iinterface -Iinclude -Ibackends scripts/dev/wg_sass.cpp \
  backends/opencl/gemm_wg.cpp backends/opencl/ptx_edit.cpp -L"$build/lib" -lporta -Wl,-rpath,"$PWD/$build/lib" -o "$work/wg_sass"
"$work/wg_sass" "$cfg" "$dtype" "${3:-0}" "${4:-0}" "${5:-0}" > "$work/wg.cl" 2> "$work/options"
cat > "$work/shim.h" <<'SHIM'
#define get_local_id(d) __nvvm_read_ptx_sreg_tid_x()
#define get_group_id(d) ((d) == 0 ? __nvvm_read_ptx_sreg_ctaid_x() : (d) == 1 ? __nvvm_read_ptx_sreg_ctaid_y() : __nvvm_read_ptx_sreg_ctaid_z())
#define barrier(f) __nvvm_bar_sync(0)
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define vstore_half2_rte(v, o, p) (*(__global float2*)(p) = (v))
#define vstore_half_rte(v, o, p) (*(__global float*)(p) = (v))
SHIM
# shellcheck disable=SC2046
clang-15 -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -O3 -S -o "$work/clang.ptx" "$work/wg.cl" -include "$work/shim.h" \
  -Dasm=__asm__ $(cat "$work/options") -Xclang -target-cpu -Xclang sm_86
sed -e 's|// @sm90a ||g' -e 's/^\.target sm_86/.target sm_90a/' -e 's/^\.version 7\.[0-9]*/.version 8.0/' "$work/clang.ptx" > "$work/marked.ptx"
"$work/wg_sass" --hoist "$work/marked.ptx" "$work/kernel.ptx"
/usr/local/cuda/bin/ptxas -arch=sm_90a -v -o "$work/kernel.cubin" "$work/kernel.ptx" 2>&1 | grep -E "C75|registers|error" || true
"$nvdisasm" -c "$work/kernel.cubin" > "$work/kernel.sass"
grep -E "BAR\.SYNC|HGMMA|LDGSTS|DEPBAR|ARRIVE|BRA" "$work/kernel.sass" | sed -E 's/^ *\/\*([0-9a-f]+)\*\/ */\1 /' | tr -s ' ' |
  awk '/BAR.SYNC/ {on = 1} on' | head -40
