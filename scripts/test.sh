#!/usr/bin/env bash
# Quick start: installs what is missing (Debian packages), builds porta (Release) in build/ with
# its tests, benchmarks and examples, then runs the whole CTest suite: every test on every device
# present, every example, and the install test; the Python package is installed with pip into the
# venv build/pyenv (CTest's python.pip_install) and its tests run on that installed package. Exits non-zero when anything fails; the last lines
# are CTest's summary. Arguments go to ctest (scripts/test.sh -R matmul, -L example, -j2).
#   PORTA_CMAKE_ARGS="..."  extra CMake options     PORTA_BUILD_DIR=...  another build directory
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

porta_install_deps
porta_configure
porta_build
# Cold PoCL compiles are most of the suite's time. PoCL builds a kernel's work-group function for
# any local size (the binary porta's disk cache keeps) and, unless told not to, once more for each
# local size a kernel is launched with; the tests take the first alone. A cold run of reduce's third
# shard took 98 s so, 161 s without (2026-12-06, the 2-core build machine). Set it to 1 to test
# PoCL's specialized functions, as users run them.
export POCL_WORK_GROUP_SPECIALIZATION=${POCL_WORK_GROUP_SPECIALIZATION:-0}
echo
exec ctest --test-dir "$porta_build_dir" --output-on-failure --no-tests=error "$@"
