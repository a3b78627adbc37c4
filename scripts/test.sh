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
echo
exec ctest --test-dir "$porta_build_dir" --output-on-failure --no-tests=error "$@"
