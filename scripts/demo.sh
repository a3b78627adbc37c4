#!/usr/bin/env bash
# Quick start, the main job: installs what is missing (Debian packages), builds porta (Release) in
# build/, lists the devices (porta-info), then runs porta-bench on the default device (PoCL's
# OpenCL CPU device on a machine without a GPU) and prints its table: copy, saxpy, the fused
# expression, broadcast, sum, argmax, GEMMs, small-op latency, thread scaling and pool throughput,
# each also as a fraction of the device's measured ceilings. Arguments go to porta-bench
# (scripts/demo.sh --quick, --devices=cuda:0,opencl:1, --json=out.json, --svg=chart.svg).
#   PORTA_CMAKE_ARGS="..."  extra CMake options     PORTA_BUILD_DIR=...  another build directory
#   PORTA_DEVICE=opencl:1   another default device  PORTA_BACKEND=cuda,opencl  only those backends
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

porta_install_deps
# The demo builds no Python package, so it makes no venv for one (scripts/test.sh does).
export PORTA_PYTHON_VENV=${PORTA_PYTHON_VENV:-0}
porta_configure
porta_build --target porta-bench porta-info
echo
"$porta_build_dir/bin/porta-info"
echo
default=$("$porta_build_dir/bin/porta-info" | sed -n 's/^Default device: \([^ ]*\).*/\1/p')
[ -n "$default" ] || { echo "porta: porta-info named no default device" >&2; exit 1; }
has_devices=0
for arg in "$@"; do case "$arg" in --devices=*|--porta_devices=*) has_devices=1 ;; esac; done
if [ "$has_devices" = 1 ]; then
  exec "$porta_build_dir/bin/porta-bench" "$@"
fi
exec "$porta_build_dir/bin/porta-bench" --devices="$default" "$@"
