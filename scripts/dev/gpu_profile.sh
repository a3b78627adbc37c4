#!/usr/bin/env bash
# Per-kernel figures of porta-bench rows under Nsight Compute, on the GPU host: for each ROW (a
# porta-bench filter, such as 'sort_i32/cuda:0'), the first KERNELS kernels (default 60) of one
# run of that row (2 iterations, 1 repetition, no ceilings): their grid, block, registers, static
# local memory, duration, achieved occupancy and DRAM throughput. Each row's CSV goes to OUT_DIR.
#   bash scripts/dev/gpu_profile.sh BIN_DIR OUT_DIR ROW...
# A ROW of the form 'py:FILE ARGS' profiles `python3 FILE ARGS` instead (PyTorch's or CuPy's
# kernels), such as 'py:bench/peers/peers.py --quick --no-compile --only graphs' for the small adds
# of the graph rows.
# ncu needs --clock-control none there (the device tool's METHOD.md: leave the clocks alone).
set -u
bin=$1 out=$2
shift 2
mkdir -p "$out"
metrics=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__shared_mem_per_block_static
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed
for row in "$@"; do
  name=$(printf '%s' "$row" | tr -c 'A-Za-z0-9_' '_')
  if [[ $row == py:* ]]; then
    read -r -a cmd <<< "python3 ${row#py:}"
  else
    cmd=("$bin/porta-bench" --filter="^$row" --no-ceilings --iterations=2 --repetitions=1)
  fi
  t0=$SECONDS
  timeout "${PROFILE_S:-150}" ncu --clock-control none --metrics "$metrics" --csv --page raw --print-units base \
    -c "${KERNELS:-60}" "${cmd[@]}" > "$out/ncu_$name.csv" 2> "$out/ncu_$name.err"
  echo "== $row (rc $?, $((SECONDS - t0)) s)"
  python3 - "$out/ncu_$name.csv" <<'PY'
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1], errors="replace") if l.startswith('"'))]
head = next((r for r in rows if r and r[0] == "ID"), None)
if head is None:
    sys.exit("  no ncu rows (see the .err file)")
col = {k: head.index(k) for k in head}
def get(r, k, scale=1.0):
    try:
        return float(r[col[k]].replace(",", "")) * scale
    except (KeyError, ValueError, IndexError):
        return float("nan")
print("  id  kernel                          grid   block regs smem_B    dur_us  occ%  dram%")
for r in rows:
    if r is head or len(r) != len(head) or not r[0].isdigit():
        continue
    print(f"  {r[0]:>3} {r[col['Kernel Name']][:30]:30} {get(r, 'launch__grid_size'):7.0f} {get(r, 'launch__block_size'):5.0f}"
          f" {get(r, 'launch__registers_per_thread'):4.0f} {get(r, 'launch__shared_mem_per_block_static'):6.0f}"
          f" {get(r, 'gpu__time_duration.sum', 1e-3):9.2f} {get(r, 'sm__warps_active.avg.pct_of_peak_sustained_active'):5.1f}"
          f" {get(r, 'dram__throughput.avg.pct_of_peak_sustained_elapsed'):6.1f}")
PY
done
