#!/usr/bin/env bash
# The whole tree on the H200 machine in two calls of at most 10 minutes (the device tool's limit),
# logs packed into $OUT/logs.tgz (only a few files come back from $OUT):
#   PART=a: build (CUDA, OpenCL, Kokkos, Python; 16 cores), then every C++ test binary on the GPU
#           devices (cuda:0 and the H200 through NVIDIA's OpenCL, opencl:1) and the cross-device
#           tests, then pytest on them.
#   PART=build: the build alone (then other scripts, such as gpu_profile.sh, use it).
#   PART=b: CuPy/PyTorch peers (bench/peers/peers.py) and porta-bench with them: every issue
#           target's row, the small-op rows, the GEMMs (FILTER=REGEX: only the rows it matches).
# Run from the repository root after .gpu/setup.sh (../shared/GPU.md): the device tool's command
#   bash .gpu/setup.sh > /dev/null && PART=a bash scripts/dev/gpu_all.sh
# Each step has its own time limit; a step that runs over is reported and the next one starts.
# BUILD=dir: the build directory (default build-gpu); SKIP_BUILD=1: use it as it is.
# TESTS="a b": only these test programs (LIMIT seconds each, default 120), then pytest.
# PYBUILD=dir (with SKIP_BUILD, for a build carried from a machine with another Python): builds the
#   Python module there in the background while the C++ tests run (PYJOBS cores, default 8), for pytest.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
O=/tmp/gpu_all; mkdir -p "$O"; t0=$(date +%s)
el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
pack() { [ -n "${OUT:-}" ] && tar czf "$OUT/logs.tgz" -C "$O" .; }
trap pack EXIT
B=${BUILD:-build-gpu}
F=${GTEST_DEVICES:-'*cuda_0*:*opencl_1*'}

build() {
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTA_CUDA=ON -DPORTA_PYTHON=ON -DPORTA_MPI=OFF \
    -DPython_EXECUTABLE="$(command -v python3)" > "$O/configure.log" 2>&1 || { tail -30 "$O/configure.log"; exit 1; }
  cmake --build "$B" > "$O/build.log" 2>&1 || { grep -E "error|FAILED" -A5 "$O/build.log" | head -60; exit 1; }
  el "built $(git log --oneline -1 2>/dev/null | cut -c1-70)"
}

# One test binary: name, seconds, gtest filter.
t() {
  local n=$1 lim=$2 filt=$3
  timeout "$lim" "$B/bin/porta_${n}_test" --gtest_color=no --gtest_filter="$filt" > "$O/t_$n.log" 2>&1
  local rc=$?
  el "$n rc=$rc $(grep -E '^\[  (PASSED|FAILED) ' "$O/t_$n.log" | tr '\n' ' ')$([ $rc = 124 ] && echo ' (time limit)')"
  grep -E '^\[  FAILED  \]' "$O/t_$n.log" | head -6
}

if [[ ${PART:-a} == build ]]; then build; fi

if [[ ${PART:-a} == a ]]; then
  [ -n "${SKIP_BUILD:-}" ] || build
  PY=$B
  if [ -n "${SKIP_BUILD:-}" ] && [ -n "${PYBUILD:-}" ]; then
    PY=$PYBUILD
    (cmake -S . -B "$PY" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTA_CUDA=ON -DPORTA_PYTHON=ON -DPORTA_MPI=OFF \
       -DPORTA_BUILD_TESTS=OFF -DPORTA_BUILD_BENCHMARKS=OFF -DPORTA_BUILD_EXAMPLES=OFF \
       -DPython_EXECUTABLE="$(command -v python3)" && cmake --build "$PY" -j "${PYJOBS:-8}") > "$O/pybuild.log" 2>&1 &
    pyjob=$!
  fi
  "$B/bin/porta-info" > "$O/porta-info.txt" 2>&1; grep -E "^  (cuda|opencl)" "$O/porta-info.txt" | head -6
  if [ -n "${TESTS:-}" ]; then
    for n in $TESTS; do t "$n" "${LIMIT:-120}" "$F"; done
  else
    for n in elementwise_fusion elementwise_layout elementwise_ops elementwise_special promotion compose reduce scan sort index write \
             creation manip shape graph kernel errors check cache fault selection interop_cuda interop_dlpack interop_memory \
             interop_native threads; do
      t "$n" 40 "$F"
    done
    # Tests not parameterised by device (they take every device, or pairs of them).
    for n in check selection pool pool_devices multigpu; do t "$n" 60 '*'; done
    t random 40 "RandomAcross*:RandomReference*:$F"
    t matmul 150 "$F"
    t large 90 "$F"
    # Tests bound to no device, through CTest for the environment it gives them: the settings
    # table and its page, the fourth-kind backend, NVRTC compiles of the kernel text, and the
    # tree's checks (layers, backend names, doc references).
    ctest --test-dir "$B" -R '^(settings|settings\.check.*|fake_backend|codegen_cuda_text|include_graph.*|backend_names.*|doc_refs.*)$' \
      --timeout 120 > "$O/ctest_checks.log" 2>&1
    el "ctest checks: $(grep -E 'tests passed|tests failed' "$O/ctest_checks.log")"; grep -E '\(Failed|\(Timeout' "$O/ctest_checks.log" | head -6
  fi
  R=$PWD
  case $PY in /*) PYP=$PY/python ;; *) PYP=$R/$PY/python ;; esac
  if [ -n "${pyjob:-}" ]; then wait "$pyjob"; el "Python module built in $PY: rc=$?"; tail -3 "$O/pybuild.log"; fi
  (cd /tmp && PYTHONPATH="$PYP" timeout "${PYTEST_LIMIT:-120}" python3 -m pytest -q -p no:cacheprovider --rootdir="$R/python" \
     -k "cuda or opencl:1" "$R/python/tests" > "$O/pytest.log" 2>&1; echo "rc=$?" >> "$O/pytest.log")
  el "pytest (cuda:0, opencl:1): $(tail -2 "$O/pytest.log" | tr '\n' ' ')"
fi

if [[ ${PART:-a} == b ]]; then
  [ -x "$B/bin/porta-bench" ] || build
  timeout 150 python3 bench/peers/peers.py --no-compile --out="$O/peers.json" > "$O/peers.log" 2>&1; el "peers rc=$?"
  timeout 300 "$B/bin/porta-bench" --devices=cuda:0,opencl:1 --peers="$O/peers.json" --repetitions=2 --filter="${FILTER:-.}" \
    --json="$O/bench.json" --markdown="$O/bench.md" --svg="$O/bench.svg" > "$O/bench.out" 2> "$O/bench.err"
  el "porta-bench rc=$?"
  grep -v "^$" "$O/bench.md" | grep -E "MISSED|met|^\| ratio" | head -80
fi
