#!/usr/bin/env bash
# The SASS of porta's tensor-core GEMMs through OpenCL (backends/opencl/gemm/kernels/gemm_wg.cl, gemm_tc.cl,
# gemm_mma.cl) for one configuration, without a GPU: the plugin's source and options
# (gemm_sass.cpp), OpenCL C -> PTX by clang 15
# (nvptx64-nvidia-nvcl; a few OpenCL builtins mapped to NVVM's below), the plugin's PTX edits
# (marks removed, .target sm_90a, waits hoisted; a register bound as ptxas's -maxrregcount, which
# is what .maxnreg does), ptxas -arch=sm_90a (registers, spills, C7514), and
# nvdisasm (the nvidia-cuda-nvdisasm wheel from PyPI, fetched once into $CACHE). clang is not
# NVIDIA's NVVM, so the code around the instructions differs from what the driver builds; the order
# of barriers, loads and MMAs in the main loop, and its length, are what this is for. From the
# repository root:
#   scripts/dev/gemm_sass.sh wg128x128x32:g1:s3:m [float16|bfloat16|float32|float64] [TA TB EDGE]
#   scripts/dev/gemm_sass.sh tc128x64x8:w32x32 float64
# Prints ptxas's summary, the main loop's instruction count by opcode, and its barriers, loads,
# MMAs and waits with their offsets; leaves the files in $WORK (default /tmp/gemm_sass).
set -eu
cfg=${1:?usage: gemm_sass.sh CONFIG [DTYPE] [TA TB EDGE]}
dtype=${2:-float16}
work=${WORK:-/tmp/gemm_sass}
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
g++ -std=c++20 -O1 -DCL_TARGET_OPENCL_VERSION=300 -Iinterface -Iinclude -Ibackends scripts/dev/gemm_sass.cpp \
  backends/opencl/gemm/wg.cpp backends/opencl/gemm/tc.cpp backends/opencl/gemm/mma.cpp backends/opencl/gemm/ptx_edit.cpp \
  -L"$build/lib" -lporta -Wl,-rpath,"$PWD/$build/lib" -o "$work/gemm_sass"
"$work/gemm_sass" "$cfg" "$dtype" "${3:-0}" "${4:-0}" "${5:-0}" > "$work/kernel.cl" 2> "$work/options"
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
clang-15 -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -O3 -S -o "$work/clang.ptx" "$work/kernel.cl" -include "$work/shim.h" \
  -Dasm=__asm__ $(head -1 "$work/options") -Xclang -target-cpu -Xclang sm_86
maxnreg=$(sed -n 's/^maxnreg //p' "$work/options")
sed -e 's|// @sm90a ||g' -e 's/^\.target sm_86/.target sm_90a/' -e 's/^\.version 7\.[0-9]*/.version 8.0/' "$work/clang.ptx" > "$work/marked.ptx"
"$work/gemm_sass" --hoist "$work/marked.ptx" "$work/kernel.ptx"
/usr/local/cuda/bin/ptxas -arch=sm_90a -v ${maxnreg:+-maxrregcount $maxnreg} -o "$work/kernel.cubin" "$work/kernel.ptx" 2>&1 | grep -E "C75|registers|spill|error" || true
"$nvdisasm" -c "$work/kernel.cubin" > "$work/kernel.sass"
python3 - "$work/kernel.sass" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
at = lambda l: re.search(r"/\*([0-9a-f]{4})\*/", l)
bars = [i for i, l in enumerate(lines) if "BAR.SYNC" in l]
loop = None
for b in bars:  # the first barrier inside a loop: the nearest label before it that a branch after it returns to
    for i in range(b, -1, -1):
        if re.match(r"^\.L_x_\d+:", lines[i]):
            name = lines[i].strip()[:-1]
            back = [j for j in range(b, len(lines)) if "BRA" in lines[j] and name + ")" in lines[j]]
            if back:
                loop = (i, back[0])
                break
    if loop:
        break
if not loop:
    sys.exit("no loop with a barrier found")
body = [l for l in lines[loop[0]:loop[1] + 1] if at(l)]
ops = {}
for l in body:
    op = re.sub(r"^\s*/\*[0-9a-f]+\*/\s*(@!?U?P\w+\s+)?", "", l).split()[0].split(".")[0]
    ops[op] = ops.get(op, 0) + 1
print("main loop:", len(body), "instructions;", ", ".join(f"{k} {v}" for k, v in sorted(ops.items(), key=lambda x: -x[1])[:14]))
for l in body:
    if re.search(r"BAR\.SYNC|MMA|LDGSTS|LDSM|DEPBAR|ARRIVE|BRA", l):
        print(re.sub(r"\s+", " ", re.sub(r"^\s*/\*([0-9a-f]+)\*/", r"\1", l)).strip()[:100])
PY
