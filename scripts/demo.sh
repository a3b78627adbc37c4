#!/usr/bin/env bash
# Quick start: installs what is missing (Debian packages), builds porta (Release) in build/, then
# runs the cross-vendor demo: the same workload on every device porta finds, one table of GB/s and
# GFLOP/s. On a machine without a GPU that is PoCL's OpenCL CPU device and the Kokkos device.
#   PORTA_CMAKE_ARGS="..."  extra CMake options     PORTA_BUILD_DIR=...  another build directory
#   PORTA_DEVICE=opencl:1   only that device        PORTA_BACKEND=cuda,opencl  only those backends
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

porta_install_deps
porta_configure
porta_build --target porta_example_demo porta-info
echo
"$porta_build_dir/bin/porta-info"
echo
exec "$porta_build_dir/examples/demo"
