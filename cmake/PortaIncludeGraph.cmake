# The include-graph check of the plugin boundary (DESIGN.md section 2), run by CTest:
#   cmake -DPORTA_ROOT=<tree> -P cmake/PortaIncludeGraph.cmake
# Fails, listing each offending line, when
#   - a file of src/ includes a header of backends/ (the core stands below the plugins),
#   - a file of backends/ includes a header of src/ (plugins reach the core only through
#     interface/porta_backend/, whose services.hpp declares what they may call),
#   - a file of interface/ includes anything but interface/ and the public include/porta/,
#   - a file of mpi/ (porta_mpi, a client of the public API like a user's library) includes
#     anything of src/, backends/ or interface/.
# A quoted include is resolved as the compiler would for that directory: next to the file, then
# in the directories the target has on its path (src/ and interface/ for the core; backends/
# and interface/ for plugins). Angle-bracket includes are system and public headers.
if(NOT PORTA_ROOT)
  message(FATAL_ERROR "PortaIncludeGraph.cmake: set -DPORTA_ROOT=<source tree>")
endif()
get_filename_component(PORTA_ROOT "${PORTA_ROOT}" ABSOLUTE)

set(violations "")
set(checked 0)
function(porta_check_part part allowed_dirs forbidden_dirs)
  file(GLOB_RECURSE files RELATIVE ${PORTA_ROOT} ${PORTA_ROOT}/${part}/*.cpp ${PORTA_ROOT}/${part}/*.hpp
                                                 ${PORTA_ROOT}/${part}/*.h ${PORTA_ROOT}/${part}/*.cl)
  set(found "")
  foreach(f IN LISTS files)
    math(EXPR n "${checked} + 1")
    set(checked ${n})
    file(STRINGS ${PORTA_ROOT}/${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    get_filename_component(here ${PORTA_ROOT}/${f} DIRECTORY)
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
      set(resolved "")
      if(EXISTS ${here}/${inc})
        set(resolved ${here}/${inc})
      else()
        foreach(d IN LISTS allowed_dirs forbidden_dirs)
          if(NOT resolved AND EXISTS ${PORTA_ROOT}/${d}/${inc})
            set(resolved ${PORTA_ROOT}/${d}/${inc})
          endif()
        endforeach()
      endif()
      if(NOT resolved)
        continue()  # a generated header or a typo: the compiler reports those
      endif()
      get_filename_component(resolved ${resolved} REALPATH)
      file(RELATIVE_PATH rel ${PORTA_ROOT} ${resolved})
      foreach(d IN LISTS forbidden_dirs)
        if(rel MATCHES "^${d}/")
          list(APPEND found "${f}: #include \"${inc}\" reaches ${rel}")
        endif()
      endforeach()
    endforeach()
  endforeach()
  set(violations ${violations} ${found} PARENT_SCOPE)
  set(checked ${checked} PARENT_SCOPE)
endfunction()

porta_check_part(src "src;interface" "backends")
porta_check_part(backends "backends;interface" "src")
porta_check_part(interface "interface" "src;backends")
if(EXISTS ${PORTA_ROOT}/mpi)
  porta_check_part(mpi "mpi;tests" "src;backends;interface")
endif()

if(checked EQUAL 0)
  message(FATAL_ERROR "PortaIncludeGraph.cmake: no source files under ${PORTA_ROOT}/{src,backends,interface}")
endif()
if(violations)
  list(LENGTH violations count)
  string(REPLACE ";" "\n  " text "${violations}")
  message(FATAL_ERROR "porta include graph: ${count} include(s) cross the plugin boundary "
                      "(src/ must not include backends/; backends/ includes the core only through "
                      "interface/porta_backend/; mpi/ only through the public API):\n  ${text}")
endif()
message(STATUS "porta include graph: ${checked} files, no include crosses the plugin boundary")
