#!/usr/bin/env bash
# Mechanical edits of issue 16 (one plugin boundary, one vocabulary), written as a script so that
# they can be applied again to code written in parallel (after a merge): run it from anywhere;
# it edits the repository it sits in and is idempotent (a second run changes nothing).
#
#   1. The plugin interface is interface/porta_backend/: includes of the headers that moved
#      there, and what plugins call in the core through services.hpp.
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
