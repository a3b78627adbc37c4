#!/usr/bin/env bash
# Mechanical edits of issue 16 (one plugin boundary, one vocabulary), written as a script so that
# they can be applied again to code written in parallel (after a merge): run it from anywhere;
# it edits the repository it sits in and is idempotent (a second run changes nothing).
#
#   1. The plugin interface is interface/porta_backend/: includes of the headers that moved
#      there, and what plugins call in the core through services.hpp.
#   2. One vocabulary: the same class names in each backend's namespace (Device, Queue, Event,
#      Kernel, Backend), native() for the vendor handle of each, headers included with their
#      folder ("cuda/cuda.hpp"), one error-checking style (PORTA_CL(call), PORTA_CL_AT(where,
#      call) like PORTA_CU), and "context" only for the vendor's context: the core's per-device
#      state is DeviceState (src/device_state.hpp), reached by DeviceImpl::state().
#
# After merging a branch written against the old names: run this, then build. A conflict it leaves
# is usually two include lists (take the union, in the new spelling). Checked: on main's own
# versions of the files it edits it reproduces arch16's edits exactly, and on arch16 merged with
# api19 or bench21 the tree builds and their tests pass.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# C++ sources of the tree (not build directories, not .git).
cxx_files() { git ls-files -co --exclude-standard -- "$@" | grep -E '\.(cpp|hpp|h|cc|cu|inc)$' || true; }
edit() {  # edit SED_SCRIPT FILES...: sed -i only on files that change
  local script=$1 f
  shift
  for f in "$@"; do
    [[ -f $f ]] || continue
    if ! sed -E "$script" "$f" | cmp -s - "$f"; then sed -E -i "$script" "$f"; fi
  done
}
move() {  # move FROM TO: git mv when FROM still exists
  if [[ -e $1 && ! -e $2 ]]; then mkdir -p "$(dirname "$2")" && git mv "$1" "$2"; fi
}

# --- 1. the interface folder -----------------------------------------------------------------
for h in backend plan launch_thread; do move "backends/$h.hpp" "interface/porta_backend/$h.hpp"; done
for h in log strings env disk_cache; do move "src/$h.hpp" "interface/porta_backend/$h.hpp"; done

mapfile -t all < <(cxx_files src backends interface tests bench python mpi examples)
mapfile -t plugins < <(cxx_files backends)
edit 's@#include "(backend|plan|launch_thread|log|strings|env|disk_cache)\.hpp"@#include "porta_backend/\1.hpp"@' "${all[@]}"
# Plugins reach the core only through services.hpp.
edit 's@#include "(exit_guard|context|interpreter)\.hpp"@#include "porta_backend/services.hpp"@
      s@detail::ExitGuard::instance\(\)\.watch\(\)@detail::watch_exit()@g
      s@detail::ExitGuard::instance\(\)\.enter\(@detail::enter_build(@g
      s@([A-Za-z_][A-Za-z_0-9]*)\.context\(\)\.kernels\(\)\.get\(@detail::cached_kernel(\1, @g' "${plugins[@]}"
# Paths named in comments and documents.
mapfile -t texts < <(git ls-files -co --exclude-standard | grep -E '\.(cpp|hpp|h|md|txt|cmake|py|pyi|sh)$' |
                     grep -v '^scripts/dev/rename_vocabulary.sh$' || true)
edit 's@backends/(backend|plan|launch_thread)\.hpp@interface/porta_backend/\1.hpp@g
      s@src/(log|strings|env|disk_cache)\.hpp@interface/porta_backend/\1.hpp@g' "${texts[@]}"

# --- 2. one vocabulary -----------------------------------------------------------------------
mapfile -t opencl < <(cxx_files backends/opencl)
mapfile -t kokkos < <(cxx_files backends/kokkos)
mapfile -t cuda < <(cxx_files backends/cuda)
perl_edit() {  # perl_edit PERL_SCRIPT FILES...: perl -0 -i only on files that change
  local script=$1 f
  shift
  for f in "$@"; do
    [[ -f $f ]] || continue
    if ! perl -0pe "$script" "$f" | cmp -s - "$f"; then perl -0pi -e "$script" "$f"; fi
  done
}
# In a file still written in the old vocabulary, a bare Kernel is detail::Kernel (opencl.hpp had
# `using detail::Kernel`); it becomes explicit before OpenCLKernel takes the name.
for f in "${opencl[@]}"; do
  if grep -qE 'OpenCL(Kernel|Device|Queue|Event|Backend)\b' "$f"; then
    perl_edit 's/^using detail::Kernel;\n//mg; s/(?<![:\w])Kernel\b(?!\()/detail::Kernel/g' "$f"
  fi
done
# porta::Backend, spelled out where a backend's own Backend class would hide it.
perl_edit 's/(?<![:\w])Backend::(cuda|opencl|kokkos)\b/porta::Backend::$1/g; s/(?<![:\w])Backend kind\(\)/porta::Backend kind()/g' \
  "${opencl[@]}" "${kokkos[@]}" "${cuda[@]}"
edit 's/\bOpenCL(Event|Queue|Kernel|Device|Backend)\b/\1/g' "${opencl[@]}"
edit 's/\bKokkos(Event|Queue|Device|Backend)\b/\1/g' "${kokkos[@]}"
edit 's/\bCudaBackend\b/Backend/g' "${cuda[@]}"
# native(): the vendor handle of each object; the queue's untyped one is QueueImpl::native_handle().
edit 's/void\* native\(\) override/void* native_handle() override/g' "${opencl[@]}" "${kokkos[@]}" "${cuda[@]}"
mapfile -t core < <(cxx_files src tests)
edit 's/\bthread_queue\(([^()]*)\)\.native\(\)/thread_queue(\1).native_handle()/g; s/\bq->native\(\) == foreign/q->native_handle() == foreign/g' "${core[@]}"
edit 's/\b(queue_of\([^()]*\))\.get\(\)/\1.native()/g; s/\bget_noexcept\(\)/native_noexcept()/g
      s/\bcontext_handle\(\)/native_context()/g; s/\bplatform_id\(\)/native_platform()/g
      s/\b(dev|device|device_|owner)\.id\(\)/\1.native()/g; s/\b(lease|owner|queue)\.get\(\)/\1.native()/g
      s/\b(event|ce)(->|\.)get\(\)/\1\2native()/g' "${opencl[@]}"
edit 's/\bstream_noexcept\(\)/native_noexcept()/g; s/\b(queue|q|owner|peer|src_queue)(\.|->)stream\(\)/\1\2native()/g
      s/\bmodule_->get\(\)/module_->native()/g; s/\bctx_->handle\(\)/ctx_->native()/g
      s/\b(kernel|k|item\.kernel)(\.|->)function\(\)/\1\2native()/g' "${cuda[@]}"
# A backend's headers are included with their folder, as "opencl/opencl.hpp" always was.
edit 's@#include "(cuda|error)\.hpp"@#include "cuda/\1.hpp"@' "${cuda[@]}"
edit 's@#include "kokkos\.hpp"@#include "kokkos/kokkos.hpp"@' "${kokkos[@]}"
# One error-checking style: PORTA_CL(call) and PORTA_CL_AT(where, call), as PORTA_CU and PORTA_CU_AT.
perl_edit 's/PORTA_CL_CHECK_CTX\((\s*)((?:[^(),]+|(\((?:[^()]++|(?3))*\)))+),\s*((?:[^()]++|(\((?:[^()]++|(?5))*\)))*)\)/PORTA_CL_AT(detail::cat($4), $2)/g' "${opencl[@]}"
edit 's/\bPORTA_CL_CHECK\(/PORTA_CL(/g; s/\bthrow_status\(/throw_error(/g; s/\bdescribe_status\(/describe(/g' "${opencl[@]}"
# "context" is the vendor's (CUcontext, cl_context): the core's per-device state is DeviceState.
move src/context.hpp src/device_state.hpp
move src/context.cpp src/device_state.cpp
mapfile -t all < <(cxx_files src backends interface tests bench python mpi examples)
edit 's@#include "context\.hpp"@#include "device_state.hpp"@; s/\bDeviceContext\b/DeviceState/g
      s/\.context\(\)\.(kernels|allocator)\(\)/.state().\1()/g; s/\brelease_context\(\)/release_state()/g' \
  "${all[@]}" "${opencl[@]}" "${kokkos[@]}" "${cuda[@]}"
edit 's/^  context\.cpp$/  device_state.cpp/' src/CMakeLists.txt
