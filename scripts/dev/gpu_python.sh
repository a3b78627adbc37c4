#!/usr/bin/env bash
# Issue 18's large-array target, Python within 0.97x of C++, measured in one run: porta-bench's
# fused, sum and matmul_f32 rows (2^28 float32; SGEMM 8192) and python/bench/bench_large.py's
# twins of them (the same inputs, warm-up, 4 operations between two device events, 0.2 s of device
# time a repetition, 3 repetitions, median), run back to back as C++, Python, Python, C++, then
# python/bench/compare_large.py's table of C++ ms / Python ms (throughput of Python over C++).
#
#   scripts/dev/gpu_python.sh BUILD_DIR [DEVICE]    (from the repository root, on the GPU host)
#
# BUILD_DIR has bin/porta-bench and the build tree's Python package (python/porta: a build with
# -DPORTA_PYTHON=ON). DEVICE: cuda:0 (default) or another spec. Logs and JSON go to $OUT (else
# /tmp/gpu_python). About 60-100 s on the H200 (the benchmarks, then test_leaks.py); the time limits
# of the steps add up to 145 s. For a smoke run on a CPU device:
#   GPU_PYTHON_SIZE=2^20 GPU_PYTHON_MATMUL=256 scripts/dev/gpu_python.sh build opencl:0
set -uo pipefail
build=$(cd "${1:?usage: scripts/dev/gpu_python.sh BUILD_DIR [DEVICE]}" && pwd)
device=${2:-cuda:0}
out=${OUT:-/tmp/gpu_python}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
python=${PYTHON:-python3}
size=${GPU_PYTHON_SIZE:-2^28} matmul=${GPU_PYTHON_MATMUL:-8192}  # porta-bench's defaults on a GPU
export PYTHONPATH=$build/python PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
unset PORTA_MATMUL PORTA_DEVICE PORTA_BACKEND  # both sides: exact SGEMM, every backend loaded

[[ -x $build/bin/porta-bench ]] || { echo "gpu_python: no $build/bin/porta-bench" >&2; exit 1; }
"$python" -c "import porta, sys; sys.exit(0 if '$device' in [d.spec for d in porta.devices()] else 3)" ||
  { echo "gpu_python: the Python package in $build/python does not import, or has no $device" >&2; exit 1; }

cpp() {  # cpp ROUND
  timeout 20 "$build/bin/porta-bench" --devices="$device" --filter='^(fused|sum|matmul_f32)/' --size="$size" --matmul="$matmul" \
    --repetitions=3 --no-ceilings --json="$out/cpp_$1.json" > "$out/cpp_$1.log" 2>&1
  echo "gpu_python: porta-bench (C++) round $1 rc=$? ($(date -u +%T))"
}
py() {  # py ROUND
  timeout 20 "$python" "$root/python/bench/bench_large.py" --device "$device" --size "$size" --matmul "$matmul" --json "$out/py_$1.json" \
    > "$out/py_$1.log" 2>&1
  echo "gpu_python: bench_large.py (Python) round $1 rc=$? ($(date -u +%T))"
  cat "$out/py_$1.log"
}

echo "gpu_python: $device, $(date -u +%FT%TZ), $($python --version 2>&1)"
# A GPU's clocks drop over the first second of load (bench/results/2026-11-29-h200.json: a cold H200's HGEMM ran 1.19x its
# warm speed): one discarded SGEMM run first (12 x 4 products: about 1 s at 8192), so that round 1
# does not start cold.
timeout 20 "$build/bin/porta-bench" --devices="$device" --filter='^matmul_f32/' --matmul="$matmul" --repetitions=1 --iterations=12 \
  --no-ceilings > "$out/warmup.log" 2>&1
echo "gpu_python: warm-up rc=$? ($(date -u +%T))"
cpp 1
py 1
py 2
cpp 2
grep -hE '^\| (fused|sum|matmul float32)' "$out"/cpp_*.log
"$python" "$root/python/bench/compare_large.py" --cpp "$out"/cpp_1.json "$out"/cpp_2.json \
  --py "$out"/py_1.json "$out"/py_2.json --json "$out/compare.json" | tee "$out/compare.md"
# Issue 18's leak report (nanobind's "leaked N instances" at exit), with PyTorch and CuPy present:
# python/tests/test_leaks.py runs a program over every device and a pytest of the interop tests
# as subprocesses and fails on any "leaked" line; about 20-40 s (each subprocess imports PyTorch and CuPy).
timeout 45 "$python" -m pytest -q -p no:cacheprovider "$root/python/tests/test_leaks.py" > "$out/leaks.log" 2>&1
echo "gpu_python: test_leaks.py rc=$? ($(date -u +%T))"; tail -5 "$out/leaks.log"
