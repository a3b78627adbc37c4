#!/usr/bin/env bash
# The open GPU measurements of issues 37, 40 and 41 (2026-12-07), one call each, on the GPU host
# (../shared/GPU.md), carrying .gpu:
#   bash .gpu/setup.sh > /dev/null 2>&1 && BUDGET=560 bash scripts/dev/gpu_open_items.sh sort
# sort:  builds into build-gpu; sort float32 under PORTA_SORT_FLOAT_KEY=both|select|full and the
#        uint8 rows under PORTA_EW_VECTOR=widest|narrowest beside CuPy and PyTorch; the sort tests
#        with select on cuda:0 and opencl:1; linalg_test on opencl:1; sort int32, uint32, argsort.
# house: the rows of bench/results/2026-12-06-h100-house.json's filter beside CuPy and PyTorch (the
#        sums on this card, "no other row slower"), then linalg at 8192 on opencl:1.
# dense: porta's own blocked solvers on opencl:1 (dense_test, linalg_test; solve, cholesky, qr at
#        1024, 4096 and 8192, and at 8192 in panels of 8).
# oldnew: the house rows by this tree and an old one (build-old-src/, carried) in one call, then
#        the host-time rows alternating new, old, new, old ("no other row slower", issue 41).
# peers8192: cupy.linalg and torch.linalg at 8192 (solve, cholesky, qr), house's linalg peers.
# panels: porta_dense_timing on opencl:1 at 4096 and 8192 by the old tree (build-old-src/, as
#        oldnew) and by this one under PORTA_DENSE_BLOCK (and the recursive LU panel) widths; the
#        dense tests on cuda:0 and opencl:1 (default and 64 recursive), linalg_test on both.
# sortptx: sort float32 and int32 (and the fused uint8 row, issue 37) on cuda:0 and opencl:1 with the kernel cache in $OUT/cache (its
#        entries hold each kernel's source, CUDA's cubin and NVIDIA OpenCL's PTX), for comparing
#        what the two compilers made of the same radix sort text (ptxas -v here, issue 41).
# sweep: porta_dense_timing --phases at 8192 on opencl:1 (float32, float64); the sums (this card's:
#        issue 41 asks for the H100's and the H200's); the uint8 rows on opencl:1 under PORTA_EW_UNROLL and
#        PORTA_EW_GROUPS (issue 37); sort under
#        PORTA_ONESWEEP=late|early and float32 tile shapes on cuda:0 beside cupy.sort.
# dense2: the solves through inverses and the tournament's widths (phases), the dense and linalg tests
#        under the tournament, the 8192 rows beside cupy.linalg; opencl:1's elementwise rows under
#        PORTA_EW_UNROLL=2 PORTA_EW_GROUPS=32.
# ewtests: the elementwise, integer and complex suites on opencl:1 under PORTA_EW_UNROLL=2
#        PORTA_EW_GROUPS=32 (issue 37's candidate default), then the phases at 8192 (QR's products).
# dense3: QR over many work-groups (k33, split products, orgqr through GEMM) and trtri in local
#        memory: phases, the 8192 rows beside cupy.linalg, the dense and linalg tests on the GPU.
# batches: linalg_test on cuda:0 (the SVD of stacks through gesvdjBatched, new and not yet run on a
#        GPU), then issue 40's batches (10,000 of 16 x 16 and 64 x 64) of all five ops on cuda:0
#        beside cupy.linalg (qr, eigh and svd of batches not timed before), then opencl:1's.
# qrbatch: stacks of QR on CUDA through porta's kernels: linalg_test and dense_test's QR on cuda:0,
#        the batched qr and solve rows beside cupy.linalg's qr.
# h200:  issue 41's sums and sorts beside CuPy and PyTorch (on an H200), qrbatch's tests and rows,
#        ncu of the float32 and int32 sorts on cuda:0.
# sortold: the sort tests on both GPU devices, the house rows by this tree and build-old-src/'s.
# sortnew: sortold without the old tree, and the sort rows again under PORTA_SORT_KEYS=own (the keys
#        each pass maps again, as before 312a33d).
# Verdicts go to $OUT/verdicts.txt and print last (only its tail comes back).
set -u
what=${1:?sort, house, dense, oldnew, peers8192, panels, sortptx, sweep, dense2, dense3, ewtests, batches, qrbatch, h200, sortold or sortnew}
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
left() { echo $(( ${BUDGET:-560} - $(el) )); }
B=build-gpu; V=$OUT/verdicts.txt; : > "$V"
say() { echo "$*" | tee -a "$V"; }
build() {
  say "card: $(nvidia-smi --query-gpu=name --format=csv,noheader) at $(date -u +%FT%TZ)"
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTA_PYTHON=OFF -DPORTA_BUILD_EXAMPLES=OFF > "$OUT/configure.txt" 2>&1 \
    || { say "configure failed"; tail -20 "$OUT/configure.txt"; exit 1; }
  cmake --build $B --target "$@" > "$OUT/build.txt" 2>&1 || { say "build failed"; grep -m5 -A5 error "$OUT/build.txt"; exit 1; }
  say "built at $(el) s"
}
peers() {  # sections
  timeout "${PT:-100}" python3 bench/peers/peers.py --only="$1" --no-compile --out="$OUT/peers.json" > "$OUT/peers.txt" 2>&1
  say "peers rc=$? at $(el) s"
}
gt() {  # name [VAR=val...] binary args
  local name=$1; shift
  timeout "${TT:-90}" env "$@" > "$OUT/$name.txt" 2>&1; local rc=$?
  say "$name rc=$rc at $(el)s: $(grep -E '^\[  (PASSED|FAILED|SKIPPED)  \] [0-9]' "$OUT/$name.txt" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \] .*,' "$OUT/$name.txt" | head -6 | tee -a "$V"
}
bench() {  # name filter [VAR=val...]
  local name=$1 filter=$2; shift 2
  [ "$(left)" -lt 30 ] && return
  timeout "${BT:-100}" env "$@" $B/bin/porta-bench --devices="${DEVICES:-cuda:0,opencl:1}" --repetitions="${REPS:-3}" --no-ceilings \
    $([ -f "$OUT/peers.json" ] && echo --peers="$OUT/peers.json") --filter="$filter" --json="$OUT/$name.json" --markdown="$OUT/$name.md" ${BENCH_ARGS:-} > "$OUT/$name.txt" 2>&1
  say "bench $name ($*) rc=$? at $(el) s"
  grep -E '^\| ' "$OUT/$name.md" | grep -vE '^\| (benchmark|---|elements|ceiling)' | cut -c1-170 | head -"${ROWS:-12}" >> "$V"
}
ph() {  # name dtype [VAR=val...]: porta_dense_timing --phases at 8192 on opencl:1
  local name=$1 dtype=$2; shift 2
  timeout 100 env "$@" $B/bin/porta_dense_timing opencl:1 8192 --phases --dtype $dtype > "$OUT/phases_$name.txt" 2>&1
  say "phases $name $dtype ($*) rc=$? at $(el) s"; grep -E '^(n |  )' "$OUT/phases_$name.txt" | cut -c1-330 >> "$V"
}
case $what in
  sort)
    build porta-bench porta_sort_test porta_linalg_test
    peers cupy_array_api,torch_array_api,cupy_dtypes,torch_dtypes
    for key in both select full; do bench "f32_$key" '^sort_f32/' PORTA_SORT_FLOAT_KEY=$key; done
    bench u8_widest '^(add_u8|fused_u8|u8_to_f32|copy)/' PORTA_EW_VECTOR=widest
    bench u8_narrow '^(add_u8|fused_u8|u8_to_f32)/' PORTA_EW_VECTOR=narrowest
    TT=120 gt sort_select PORTA_SORT_FLOAT_KEY=select $B/bin/porta_sort_test --gtest_filter='*cuda_0_float32*:*opencl_1_float32*:*cuda_0_float64*'
    [ "$(left)" -gt 100 ] && TT=90 gt linalg_ocl $B/bin/porta_linalg_test --gtest_filter='*opencl_1*'
    [ "$(left)" -gt 60 ] && BT=$(( $(left) - 10 )) REPS=2 bench rest '^(sort_i32|sort_u32|argsort_f32)/'
    ;;
  house)
    build porta-bench
    peers cupy_bandwidth,torch_bandwidth,cupy_array_api,torch_array_api,small_ops,graphs
    BT=$(( $(left) > 330 ? 300 : $(left) - 30 )) REPS=2 ROWS=40 bench house \
      '^(copy|add|saxpy|fused|sum|sum_rows|sum_cols|argmax|fill|uniform|cumsum_f32|sort_f32|sort_i32|argsort_f32|compress_f32|take_f32|small_add|small_graph)/'
    [ "$(left)" -gt 120 ] && BT=$(( $(left) - 15 )) DEVICES=opencl:1 REPS=1 BENCH_ARGS=--linalg=8192 bench la8192 '^linalg_(solve|cholesky|qr)_f'
    ;;
  dense)
    build porta-bench porta_linalg_test porta_dense_test
    TT=120 gt dense_ocl $B/bin/porta_dense_test --gtest_filter='*opencl_1*'
    TT=90 gt linalg_ocl $B/bin/porta_linalg_test --gtest_filter='*opencl_1*'
    for n in 1024 4096 8192; do
      DEVICES=opencl:1 REPS=1 BENCH_ARGS=--linalg=$n bench "la$n" '^linalg_(solve|cholesky|qr)_f'
    done
    DEVICES=opencl:1 REPS=1 BENCH_ARGS=--linalg=8192 bench la8192_b8 '^linalg_(solve|qr)_f32' PORTA_DENSE_BLOCK=8
    ;;
  oldnew)
    # Issue 41's "no other row slower", old and new trees in one call: the old tree's sources in
    # build-old-src/ (here: mkdir build-old-src && git archive ${OLD:-a4ad33b} | tar -x -C build-old-src),
    # carried with .gpu.
    [ -f build-old-src/CMakeLists.txt ] || { say "no build-old-src/ (see the comment in gpu_open_items.sh)"; exit 1; }
    build porta-bench
    cmake -S build-old-src -B build-old -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTA_PYTHON=OFF -DPORTA_BUILD_EXAMPLES=OFF > "$OUT/configure-old.txt" 2>&1 &&
      cmake --build build-old --target porta-bench > "$OUT/build-old.txt" 2>&1 || { say "old tree's build failed"; exit 1; }
    say "old tree built at $(el) s"
    peers cupy_bandwidth,torch_bandwidth,cupy_array_api,torch_array_api,small_ops,graphs
    rows='^(copy|add|saxpy|fused|sum|sum_rows|sum_cols|argmax|fill|uniform|cumsum_f32|sort_f32|sort_i32|argsort_f32|compress_f32|take_f32|small_add|small_graph)/'
    for tree in new old; do
      BT=$(( $(left) > 300 ? 130 : $(left) / 3 )) B=$([ $tree = new ] && echo build-gpu || echo build-old) REPS=2 ROWS=40 bench "house_$tree" "$rows"
    done
    for i in 1 2; do
      for tree in new old; do
        BT=40 B=$([ $tree = new ] && echo build-gpu || echo build-old) REPS=3 ROWS=4 bench "host_${tree}_$i" '^(small_add|small_graph)/'
      done
    done
    ;;
  peers8192)
    timeout "${BUDGET:-200}" python3 bench/peers/peers.py --only=cupy_linalg,torch_linalg --linalg-n=8192 --linalg-ops=solve,cholesky,qr \
      --no-compile --out="$OUT/peers.json" > "$OUT/peers.txt" 2>&1
    say "peers rc=$?"
    python3 -c "import json; d = json.load(open('$OUT/peers.json')); [print(k, round(v, 3)) for k, v in sorted(d.items()) if '8192' in k and 'batched' not in k]" >> "$V"
    ;;
  panels)
    # OLD=0: without the old tree (its build is about a third of the call).
    [ "${OLD:-1}" = 0 ] || [ -f build-old-src/CMakeLists.txt ] || { say "no build-old-src/ (see oldnew)"; exit 1; }
    build porta_dense_timing porta_plugins porta_dense_test porta_linalg_test
    if [ "${OLD:-1}" != 0 ]; then
      cmake -S build-old-src -B build-old -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTA_PYTHON=OFF -DPORTA_BUILD_EXAMPLES=OFF > "$OUT/configure-old.txt" 2>&1 &&
        cmake --build build-old --target porta_dense_timing porta_plugins > "$OUT/build-old.txt" 2>&1 || { say "old tree's build failed"; exit 1; }
      say "old tree built at $(el) s"
    fi
    dt() {  # name tree dtype [VAR=val...]
      local name=$1 tree=$2 dtype=$3; shift 3
      [ "$(left)" -lt 40 ] && return
      timeout 120 env "$@" "$tree/bin/porta_dense_timing" opencl:1 ${SIZES:-4096 8192} --dtype "$dtype" > "$OUT/dt_$name.txt" 2>&1
      say "dt $name $dtype ($*) rc=$? at $(el) s"; grep '^n ' "$OUT/dt_$name.txt" | tee -a "$V"
    }
    [ "${OLD:-1}" != 0 ] && SIZES=8192 dt old build-old float32
    SIZES=8192 dt b16 $B float32 PORTA_DENSE_BLOCK=16
    dt b64r $B float32 PORTA_DENSE_BLOCK=64 PORTA_DENSE_PANEL=recursive
    dt b128r $B float32 PORTA_DENSE_BLOCK=128 PORTA_DENSE_PANEL=recursive
    SIZES=8192 dt b128r_g1024 $B float32 PORTA_DENSE_BLOCK=128 PORTA_DENSE_PANEL=recursive PORTA_DENSE_GROUP=1024
    SIZES=8192 dt b256r $B float32 PORTA_DENSE_BLOCK=256 PORTA_DENSE_PANEL=recursive
    [ "${OLD:-1}" != 0 ] && SIZES=8192 dt old64 build-old float64
    SIZES=8192 dt b16_64 $B float64 PORTA_DENSE_BLOCK=16
    SIZES=8192 dt b128r64 $B float64 PORTA_DENSE_BLOCK=128 PORTA_DENSE_PANEL=recursive
    [ "$(left)" -gt 60 ] && TT=150 gt dense $B/bin/porta_dense_test --gtest_filter='*cuda_0*:*opencl_1*'
    [ "$(left)" -gt 150 ] && TT=100 gt dense_b64r_g1024 PORTA_DENSE_BLOCK=64 PORTA_DENSE_PANEL=recursive PORTA_DENSE_GROUP=1024 $B/bin/porta_dense_test --gtest_filter='*opencl_1*'
    [ "$(left)" -gt 110 ] && TT=100 gt linalg $B/bin/porta_linalg_test --gtest_filter='*cuda_0*:*opencl_1*'
    ;;
  sortptx)
    build porta-bench
    mkdir -m 700 -p "$OUT/cache"
    for rows in '^sort_f32/' '^sort_i32/' '^fused_u8/'; do
      REPS=3 bench "sp_${rows:1:8}" "$rows" PORTA_CACHE_DIR="$OUT/cache"
    done
    ls -la "$OUT/cache" | tail -n +2 | wc -l | xargs -I{} say "{} cache entries"
    ;;
  sweep)
    # Where the blocked solvers' time goes on opencl:1 (porta_dense_timing --phases), and the
    # one-sweep sort's order (PORTA_ONESWEEP) and tile shape beside cupy.sort (issue 41).
    build porta-bench porta_dense_timing porta_plugins porta_dense_test
    ph f32 float32
    ph f32_t16 float32 PORTA_DENSE_PANEL=tournament
    ph f32_t64 float32 PORTA_DENSE_PANEL=tournament PORTA_DENSE_BLOCK=64
    ph f32_t128 float32 PORTA_DENSE_PANEL=tournament PORTA_DENSE_BLOCK=128
    ph f32_t64_s128 float32 PORTA_DENSE_PANEL=tournament PORTA_DENSE_BLOCK=64 PORTA_DENSE_TOURNAMENT=128
    ph f32_outer64 float32 PORTA_DENSE_OUTER=64
    ph f32_outer512 float32 PORTA_DENSE_OUTER=512
    ph f64_t16 float64 PORTA_DENSE_PANEL=tournament
    TT=100 gt dense_t PORTA_DENSE_PANEL=tournament $B/bin/porta_dense_test --gtest_filter='*Lu*cuda_0*:*Lu*opencl_1*:*Cholesky*cuda_0*:*Cholesky*opencl_1*:*Fused*opencl_1*'
    TT=60 gt dense_t24 PORTA_DENSE_PANEL=tournament PORTA_DENSE_TOURNAMENT=64 PORTA_DENSE_BLOCK=24 $B/bin/porta_dense_test --gtest_filter='*Lu*cuda_0*:*Lu*opencl_1*:*Cholesky*cuda_0*:*Cholesky*opencl_1*'
    PT=150 peers cupy_array_api,torch_array_api,cupy_bandwidth,torch_bandwidth
    REPS=3 bench sums '^(copy|sum|sum_rows|sum_cols)/'
    for order in late early; do
      REPS=3 bench "sort_$order" '^(sort_f32|sort_i32|sort_u32|argsort_f32)/' PORTA_ONESWEEP=$order
    done
    for v in 1:16 2:16 4:16 2:32; do
      DEVICES=opencl:1 REPS=3 BT=40 bench "u8_${v/:/_}" '^(copy|add_u8|fused_u8|u8_to_f32)/' PORTA_EW_UNROLL=${v%:*} PORTA_EW_GROUPS=${v#*:}
    done
    mkdir -m 700 -p "$OUT/cache"
    REPS=3 bench sort_cache '^sort_f32/' PORTA_CACHE_DIR="$OUT/cache"
    for shape in 2:28 2:31 3:20 4:16 0:24; do
      DEVICES=cuda:0 REPS=3 BT=60 bench "f32_${shape/:/_}" '^sort_f32/' PORTA_RADIX_BLOCKS=${shape%:*} PORTA_SORT_ITEMS=${shape#*:}
    done
    ;;
  dense2)
    # The triangular solves through inverses, the tournament at 16, 32 and 64 columns (phases), the
    # dense and linalg tests under the tournament, and the 8192 rows beside cupy.linalg in one call;
    # the house's elementwise rows on opencl:1 under PORTA_EW_UNROLL=2 PORTA_EW_GROUPS=32 (issue 37).
    build porta-bench porta_dense_timing porta_plugins porta_dense_test porta_linalg_test
    ph f32 float32
    ph f32_t16 float32 PORTA_DENSE_PANEL=tournament
    ph f32_t64 float32 PORTA_DENSE_PANEL=tournament PORTA_DENSE_BLOCK=64
    ph f64_t64 float64 PORTA_DENSE_PANEL=tournament PORTA_DENSE_BLOCK=64
    timeout 100 python3 bench/peers/peers.py --only=cupy_linalg --linalg-n=8192 --linalg-ops=solve,cholesky,qr --no-compile \
      --out="$OUT/peers.json" > "$OUT/peers.txt" 2>&1
    say "peers rc=$? at $(el) s"
    DEVICES=opencl:1 REPS=1 BT=80 BENCH_ARGS=--linalg=8192 ROWS=20 bench la8192_t64 '^linalg_(solve|cholesky|qr)_f' PORTA_DENSE_PANEL=tournament PORTA_DENSE_BLOCK=64
    rm -f "$OUT/peers.json"
    [ "$(left)" -gt 100 ] && TT=$(( $(left) > 190 ? 90 : $(left) - 100 )) gt dense_t64 PORTA_DENSE_PANEL=tournament PORTA_DENSE_BLOCK=64 $B/bin/porta_dense_test --gtest_filter='*cuda_0*:*opencl_1*'
    [ "$(left)" -gt 60 ] && TT=$(( $(left) - 50 > 60 ? 60 : $(left) - 50 )) gt linalg_t64 PORTA_DENSE_PANEL=tournament PORTA_DENSE_BLOCK=64 $B/bin/porta_linalg_test --gtest_filter='*Solve*opencl_1*:*Cholesky*opencl_1*:*Inv*opencl_1*'
    for v in 1:16 2:32; do
      [ "$(left)" -gt 40 ] && DEVICES=opencl:1 REPS=2 BT=30 ROWS=14 bench "ew_${v/:/_}" '^(copy|add|saxpy|fused|add_u8|fused_u8|u8_to_f32)/' PORTA_EW_UNROLL=${v%:*} PORTA_EW_GROUPS=${v#*:}
    done
    ;;
  dense3)
    # Issue 40's QR (k33's panels over many work-groups, deep products split along k, orgqr through
    # GEMM), trtri and potf2 in local memory: phases at 8192 against the old QR panel, the dense
    # tests on both devices (QR's GPU paths forced at the tests' sizes too), the 8192 rows beside
    # cupy.linalg, linalg_test's factorizations on opencl:1. With SUMS=1 on an H200 issue 41's sums
    # and sorts beside CuPy and PyTorch (that card's figures were missing).
    build porta-bench porta_dense_timing porta_plugins porta_dense_test porta_linalg_test
    ph f32 float32
    TT=${DT:-90} gt dense_gpu $B/bin/porta_dense_test --gtest_filter="${DF:-*cuda_0*:*opencl_1*}"
    TT=40 gt dense_qr_paths PORTA_DENSE_QR_PANEL=many PORTA_DENSE_SPLIT=3 $B/bin/porta_dense_test --gtest_filter='*Qr*cuda_0*:*Qr*opencl_1*'
    if [ -n "${SUMS:-}" ] && nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
      PT=150 peers cupy_array_api,torch_array_api,cupy_bandwidth,torch_bandwidth
      REPS=3 ROWS=20 bench sums_sorts '^(copy|sum|sum_rows|sum_cols|sort_f32|sort_i32|sort_u32|argsort_f32)/'
      rm -f "$OUT/peers.json"
    fi
    ph f32_old_qr float32 PORTA_DENSE_QR_PANEL=one PORTA_DENSE_SPLIT=1
    if [ "$(left)" -gt 110 ]; then
      timeout 60 python3 bench/peers/peers.py --only=cupy_linalg --linalg-n=8192 --linalg-ops=solve,cholesky,qr --no-compile \
        --out="$OUT/peers.json" > "$OUT/peers.txt" 2>&1
      say "peers rc=$? at $(el) s"
      DEVICES=opencl:1 REPS=1 BT=60 BENCH_ARGS=--linalg=8192 ROWS=20 bench la8192 '^linalg_(solve|cholesky|qr)_f'
      rm -f "$OUT/peers.json"
    fi
    [ "$(left)" -gt 30 ] && ph f64 float64
    [ "$(left)" -gt 200 ] && ph f32_t256 float32 PORTA_DENSE_TOURNAMENT=256
    [ "$(left)" -gt 60 ] && TT=$(( $(left) - 40 > 80 ? 80 : $(left) - 40 )) gt linalg_ocl $B/bin/porta_linalg_test --gtest_filter='*Solve*opencl_1*:*Cholesky*opencl_1*:*Inv*opencl_1*:*Qr*opencl_1*:*Lstsq*opencl_1*'
    ;;
  ewtests)
    # Issue 37's default for OpenCL GPUs (PORTA_EW_UNROLL=2 PORTA_EW_GROUPS=32, docs/design/evaluation.md):
    # the elementwise, integer and complex suites on opencl:1 under it, then QR's phases with the
    # products told apart (gemm_deep: V^H V and V^H C) for issue 40.
    build porta_elementwise_ops_test porta_elementwise_fusion_test porta_elementwise_layout_test porta_integer_ops_test \
      porta_complex_test porta_dense_timing porta_plugins porta-bench
    for suite in elementwise_ops elementwise_fusion elementwise_layout integer_ops complex; do
      [ "$(left)" -gt 60 ] && TT=120 gt "ew_$suite" PORTA_EW_UNROLL=2 PORTA_EW_GROUPS=32 $B/bin/porta_${suite}_test --gtest_filter='*opencl_1*'
    done
    [ "$(left)" -gt 40 ] && ph f32 float32
    # issue 41: the sort's kernels as both compilers made them, one archive (few files come back)
    mkdir -m 700 -p /tmp/sortcache
    [ "$(left)" -gt 40 ] && REPS=1 bench sortcache '^sort_f32/' PORTA_CACHE_DIR=/tmp/sortcache
    tar czf "$OUT/sortcache.tgz" -C /tmp sortcache && say "sortcache: $(ls /tmp/sortcache | wc -l) entries"
    ;;
  batches)
    build porta-bench porta_plugins porta_linalg_test
    TT=90 gt linalg_cuda $B/bin/porta_linalg_test --gtest_filter='*cuda_0*'
    timeout "${PT:-200}" python3 bench/peers/peers.py --only=cupy_linalg --linalg-batched --linalg-batched-ops=solve,cholesky,qr,eigh,svd \
      --no-compile --out="$OUT/peers.json" > "$OUT/peers.txt" 2>&1
    say "peers rc=$? at $(el) s"; grep -E 'batched|peers.py:' "$OUT/peers.txt" | head -24 >> "$V"
    DEVICES=cuda:0 REPS=1 BT=200 ROWS=24 bench batches_cuda '^linalg_.*_batched'
    [ "$(left)" -gt 90 ] && DEVICES=opencl:1 REPS=1 BT=$(( $(left) - 20 )) ROWS=24 bench batches_ocl '^linalg_.*_batched'
    ;;
  qrbatch)
    # Stacks of QR on CUDA through porta's kernels (auto, cuSOLVER has none batched): the tests on
    # cuda:0, then the batched qr and solve rows beside cupy.linalg's qr (a Python loop of cuSOLVER calls).
    build porta-bench porta_plugins porta_linalg_test porta_dense_test
    TT=90 gt linalg_cuda $B/bin/porta_linalg_test --gtest_filter='*cuda_0*'
    TT=60 gt dense_qr_cuda $B/bin/porta_dense_test --gtest_filter='*Qr*cuda_0*'
    timeout "${PT:-150}" python3 bench/peers/peers.py --only=cupy_linalg --linalg-batched --linalg-batched-ops=qr \
      --no-compile --out="$OUT/peers.json" > "$OUT/peers.txt" 2>&1
    say "peers rc=$? at $(el) s"; grep -E 'batched' "$OUT/peers.txt" | head -8 >> "$V"
    DEVICES=cuda:0 REPS=2 BT=150 ROWS=12 bench qr_cuda '^linalg_(qr|solve)_batched'
    ;;
  h200)
    # Issue 41 on an H200 (its sums and sorts beside CuPy and PyTorch had not been measured), issue
    # 40's stacks of QR on CUDA (qrbatch's tests and rows), then where the float32 sort's time goes
    # on cuda:0 against int32's (ncu, one launch of each kernel; every kernel is named porta_k).
    build porta-bench porta_plugins porta_linalg_test porta_dense_test
    TT=90 gt linalg_cuda $B/bin/porta_linalg_test --gtest_filter='*cuda_0*'
    TT=60 gt dense_qr_cuda $B/bin/porta_dense_test --gtest_filter='*Qr*cuda_0*'
    PT=150 peers cupy_array_api,torch_array_api,cupy_bandwidth,torch_bandwidth
    REPS=3 ROWS=24 bench sums_sorts '^(copy|sum|sum_rows|sum_cols|sort_f32|sort_i32|sort_u32|argsort_f32)/'
    rm -f "$OUT/peers.json" "$OUT/peers.txt" "$OUT/configure.txt" "$OUT/build.txt"
    DEVICES=cuda:0 REPS=2 BT=100 ROWS=12 bench qr_cuda '^linalg_(qr|solve)_batched'
    rm -f "$OUT/qr_cuda.json" "$OUT/qr_cuda.txt" "$OUT/sums_sorts.txt"
    ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
    for t in f32 i32; do
      [ "$(left)" -gt 70 ] || break
      timeout 60 "$ncu" --clock-control none -k porta_k -c 24 --section SpeedOfLight --section Occupancy --section WarpStateStats \
        $B/bin/porta-bench --devices=cuda:0 --filter="^sort_$t/" --repetitions=1 --no-ceilings > "$OUT/ncu_$t.txt" 2>&1
      say "ncu $t rc=$? at $(el) s: $(grep -c 'Duration' "$OUT/ncu_$t.txt") launches"
      grep -E '^  porta_k|^ +Duration' "$OUT/ncu_$t.txt" | paste - - | tr -s ' ' | cut -c1-160 | tail -8 >> "$V"
    done
    ;;
  sortold)
    # Issue 41: the sort's keys handed on in their mapped form (312a33d): the sort tests on both GPU
    # devices, then the house rows (sorts included) by this tree and the old one (build-old-src/,
    # as oldnew; built beside this one) beside CuPy and PyTorch, then the host-time rows alternating.
    [ -f build-old-src/CMakeLists.txt ] || { say "no build-old-src/ (see oldnew)"; exit 1; }
    ( cmake -S build-old-src -B build-old -G Ninja -DCMAKE_BUILD_TYPE=Release -DPORTA_PYTHON=OFF -DPORTA_BUILD_EXAMPLES=OFF &&
      cmake --build build-old --target porta-bench ) > "$OUT/build-old.txt" 2>&1 &
    oldpid=$!
    build porta-bench porta_sort_test
    TT=150 gt sort_gpu $B/bin/porta_sort_test \
      --gtest_filter='*SortRules*cuda_0*:*SortRules*opencl_1*:*NewDType*cuda_0*:*Sorting*cuda_0_float32*:*Sorting*opencl_1_float32*:*Sorting*cuda_0_int32*'
    wait $oldpid && say "old tree built at $(el) s" || say "old tree's build failed"
    peers cupy_bandwidth,torch_bandwidth,cupy_array_api,torch_array_api,small_ops,graphs
    rows='^(copy|add|saxpy|fused|sum|sum_rows|sum_cols|argmax|fill|uniform|cumsum_f32|sort_f32|sort_i32|sort_u32|argsort_f32|compress_f32|take_f32|small_add|small_graph)/'
    for tree in new old; do
      [ -x build-old/bin/porta-bench ] || [ $tree = new ] || break
      BT=$(( $(left) > 300 ? 130 : $(left) / 3 )) B=$([ $tree = new ] && echo build-gpu || echo build-old) REPS=2 ROWS=40 bench "house_$tree" "$rows"
    done
    rm -f "$OUT/configure.txt" "$OUT/build.txt" "$OUT/peers.txt" "$OUT/house_new.txt" "$OUT/house_old.txt"
    for tree in new old; do
      [ "$(left)" -gt 45 ] && [ -x build-old/bin/porta-bench ] || break
      BT=30 B=$([ $tree = new ] && echo build-gpu || echo build-old) REPS=3 ROWS=4 bench "host_$tree" '^(small_add|small_graph)/'
      rm -f "$OUT/host_$tree.txt" "$OUT/host_$tree.json"
    done
    ;;
  sortnew)
    # sortold without the old tree: the sort tests on both GPU devices, the sort rows beside CuPy and PyTorch.
    build porta-bench porta_sort_test
    TT=${ST:-120} gt sort_gpu $B/bin/porta_sort_test \
      --gtest_filter="${SF:-*SortRules*cuda_0*:*SortRules*opencl_1*:*NewDType*cuda_0*:*Sorting*cuda_0_float32*:*Sorting*opencl_1_float32*:*Sorting*cuda_0_int32*}"
    peers cupy_array_api,torch_array_api
    REPS=${REPS:-3} ROWS=8 bench sorts '^(sort_f32|sort_i32|sort_u32|argsort_f32)/'
    REPS=${REPS:-3} ROWS=8 bench sorts_own '^(sort_f32|sort_i32|sort_u32|argsort_f32)/' PORTA_SORT_KEYS=own
    ;;
  *) echo "gpu_open_items.sh: sort, house, dense, oldnew, peers8192, panels, sortptx, sweep, dense2, dense3, ewtests, batches, qrbatch, h200, sortold or sortnew, not $what" >&2; exit 2 ;;
esac
cat "$V"
