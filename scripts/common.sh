# Shared by scripts/demo.sh and scripts/test.sh (sourced; not a command of its own): installs the
# Debian packages porta needs when they are missing, then configures and builds porta.
#
#   PORTA_BUILD_DIR     build directory (default: build/ in the repository)
#   PORTA_CMAKE_ARGS    extra CMake options, e.g. "-DPORTA_KOKKOS=OFF" or "-DPORTA_CUDA=ON"
#   PORTA_INSTALL_DEPS  0 skips the package step (not Debian, or no root: install them yourself)
#   PORTA_PYTHON_VENV   0: no venv (no pip install); the Python package is built in the build tree,
#                       and only if python3 has nanobind, numpy and pytest

set -euo pipefail

porta_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
porta_build_dir=${PORTA_BUILD_DIR:-$porta_root/build}
porta_jobs=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)

# docs/design/README.md#dependencies-and-how-they-arrive, plus ninja. The CUDA toolkit is not a
# Debian package here: the CUDA backend is built when /usr/local/cuda (or CUDAToolkit_ROOT) has it,
# and runs where an NVIDIA driver is.
porta_packages=(cmake g++ ninja-build ocl-icd-opencl-dev opencl-headers opencl-clhpp-headers pocl-opencl-icd clinfo
                libclblast-dev libopenblas-dev liblapacke-dev libtrilinos-kokkos-dev libgtest-dev libbenchmark-dev libdlpack-dev
                libopenmpi-dev openmpi-bin python3-dev python3-venv nlohmann-json3-dev libcli11-dev libvkfft-dev)
# What each package provides, so that a package unpacked without dpkg's database (the GPU host's
# .gpu/setup.sh) or a tool installed another way (CMake from a tarball) counts as present.
declare -A porta_provides=(
  [cmake]=cmd:cmake [g++]=cmd:g++ [ninja-build]=cmd:ninja [clinfo]=cmd:clinfo
  [ocl-icd-opencl-dev]='/usr/lib/*/libOpenCL.so /usr/lib/libOpenCL.so'
  [opencl-headers]=/usr/include/CL/cl.h
  [opencl-clhpp-headers]=/usr/include/CL/opencl.hpp
  [pocl-opencl-icd]=/etc/OpenCL/vendors/pocl.icd
  [libclblast-dev]=/usr/include/clblast.h
  [libopenblas-dev]='/usr/include/*/openblas*/cblas.h /usr/include/openblas/cblas.h'
  [liblapacke-dev]=/usr/include/lapacke.h
  [libtrilinos-kokkos-dev]=/usr/include/trilinos/Kokkos_Core.hpp
  [libgtest-dev]=/usr/include/gtest/gtest.h
  [libbenchmark-dev]=/usr/include/benchmark/benchmark.h
  [libdlpack-dev]=/usr/include/dlpack/dlpack.h
  [nlohmann-json3-dev]=/usr/include/nlohmann/json.hpp
  [libcli11-dev]=/usr/include/CLI/CLI.hpp
  [libvkfft-dev]=/usr/include/vkFFT.h
  [libopenmpi-dev]='/usr/include/*/openmpi/mpi.h /usr/lib/*/openmpi/include/mpi.h'
  [openmpi-bin]=cmd:mpirun
  # Asked of the python3 on PATH, wherever it was installed from (Debian, pyenv, conda); ~ is a space.
  [python3-dev]='py:import~sysconfig,os;os.stat(sysconfig.get_paths()["include"]+"/Python.h")'
  [python3-venv]='py:import~ensurepip,venv'
)

porta_has_package() {
  local p=$1 probe f
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] && return 0
  for probe in ${porta_provides[$p]:-}; do
    if [[ $probe == cmd:* ]]; then
      command -v "${probe#cmd:}" >/dev/null && return 0
    elif [[ $probe == py:* ]]; then
      local code=${probe#py:}
      python3 -c "${code//\~/ }" 2>/dev/null && return 0
    else
      for f in $probe; do [[ -e $f ]] && return 0; done
    fi
  done
  return 1
}

porta_install_deps() {
  [[ ${PORTA_INSTALL_DEPS:-1} == 0 ]] && return 0
  local missing=() p
  for p in "${porta_packages[@]}"; do
    porta_has_package "$p" || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return 0
  if ! command -v apt-get >/dev/null; then
    echo "porta: missing packages and no apt-get: ${missing[*]}" >&2
    echo "porta: install their equivalents, then run again with PORTA_INSTALL_DEPS=0" >&2
    exit 1
  fi
  local sudo=()
  if [[ $(id -u) != 0 ]]; then
    if ! command -v sudo >/dev/null; then
      echo "porta: root or sudo is needed to install: ${missing[*]}" >&2
      exit 1
    fi
    sudo=(sudo)
  fi
  echo "porta: installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
}

# The Python package: scripts/test.sh installs it with pip into a venv, build/pyenv (with the
# system's site-packages visible, so that a system NumPy, PyTorch or CuPy is used), and CTest tests
# that installed package (python/CMakeLists.txt, PORTA_PYTHON_PIP): pip needs nanobind and
# scikit-build-core there, the tests numpy and pytest, all from PyPI when missing. Without PyPI,
# a venv that still sees nanobind, numpy and pytest gets the build tree's package instead; without
# those the package is not built (PORTA_PYTHON=AUTO) and the C++ tests still run.
# PORTA_PYTHON_VENV=0: no venv; python3 is used as it is when it has nanobind, numpy and pytest.
porta_python_modules='import nanobind, numpy, pytest'
porta_pip_modules='import nanobind, numpy, pytest, scikit_build_core'
porta_python_interpreter() {
  command -v python3 >/dev/null || return 0
  if [[ ${PORTA_PYTHON_VENV:-1} == 0 ]]; then
    if python3 -c "$porta_python_modules" 2>/dev/null; then command -v python3; fi
    return 0
  fi
  local venv=$porta_build_dir/pyenv
  if ! "$venv/bin/python" -c "$porta_pip_modules" 2>/dev/null; then
    echo "porta: making $venv (nanobind, scikit-build-core, numpy, pytest from PyPI where python3 lacks them)" >&2
    mkdir -p "$porta_build_dir"
    if [[ ! -x $venv/bin/python ]] && ! python3 -m venv --system-site-packages "$venv" >&2; then
      echo "porta: python3 -m venv failed; the Python package is not built (PORTA_PYTHON_VENV=0 skips this)" >&2
      return 0
    fi
    "$venv/bin/python" -m pip install -q --disable-pip-version-check nanobind scikit-build-core numpy pytest >&2 ||
      echo "porta: pip could not install nanobind, scikit-build-core, numpy and pytest into $venv" >&2
  fi
  if "$venv/bin/python" -c "$porta_python_modules" 2>/dev/null; then echo "$venv/bin/python"; fi
}

porta_configure() {
  local args=(-S "$porta_root" -B "$porta_build_dir" -DCMAKE_BUILD_TYPE=Release) extra=() python
  python=$(porta_python_interpreter)
  if [[ -n $python ]]; then
    args+=(-DPython_EXECUTABLE="$python")
    # pip installs the package into the venv and CTest tests that (PORTA_PYTHON_PIP), when it can.
    if [[ $python == "$porta_build_dir/pyenv/bin/python" ]] && "$python" -c "$porta_pip_modules" 2>/dev/null; then
      args+=(-DPORTA_PYTHON_PIP=ON)
    else
      echo "porta: the Python tests run on the build tree's package (no venv with scikit-build-core)" >&2
      args+=(-DPORTA_PYTHON_PIP=OFF)
    fi
  fi
  # The generator is chosen once, when the build directory is made.
  if [[ ! -f $porta_build_dir/CMakeCache.txt ]] && command -v ninja >/dev/null; then args+=(-G Ninja); fi
  read -r -a extra <<<"${PORTA_CMAKE_ARGS:-}"
  cmake "${args[@]}" "${extra[@]}"
}

# porta_build [--target T...]: builds with every core.
porta_build() {
  cmake --build "$porta_build_dir" --parallel "$porta_jobs" "$@"
}
