# The include-graph check of the plugin boundary and of the core's layers (docs/design/layers.md),
# run by CTest:
#   cmake -DPORTA_ROOT=<tree> -P cmake/PortaIncludeGraph.cmake
# Fails, listing each offending line, when
#   - a file of src/<layer>/ includes a header of a higher layer, or of another layer of the same
#     rank (codegen/ and interpreter/ are siblings; so are primitives/ and interop/), or a file
#     under src/ is in no layer folder (the table below must name every folder),
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

# The core's layers, lowest first, as "folder:rank". A file may include headers of its own folder
# and of folders of a lower rank.
set(porta_layers base:0 runtime:1 plugin:2 codegen:3 interpreter:3 lazy:4 primitives:5 interop:5 api:6)
function(porta_layer_rank path out)  # path relative to PORTA_ROOT; -1 when not under src/<layer>/
  set(rank -1)
  foreach(entry IN LISTS porta_layers)
    string(REPLACE ":" ";" pair "${entry}")
    list(GET pair 0 folder)
    list(GET pair 1 r)
    if(path MATCHES "^src/${folder}/")
      set(rank ${r})
    endif()
  endforeach()
  set(${out} ${rank} PARENT_SCOPE)
endfunction()
function(porta_check_part part allowed_dirs forbidden_dirs)
  file(GLOB_RECURSE files RELATIVE ${PORTA_ROOT} ${PORTA_ROOT}/${part}/*.cpp ${PORTA_ROOT}/${part}/*.hpp
                                                 ${PORTA_ROOT}/${part}/*.h ${PORTA_ROOT}/${part}/*.cl
                                                 ${PORTA_ROOT}/${part}/*.cuh)
  set(found "")
  foreach(f IN LISTS files)
    math(EXPR n "${checked} + 1")
    set(checked ${n})
    if(part STREQUAL "src")
      porta_layer_rank(${f} rank)
      if(rank LESS 0)
        list(APPEND found "${f}: in no layer folder of src/ (cmake/PortaIncludeGraph.cmake lists them)")
      endif()
    endif()
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
      if(part STREQUAL "src" AND rel MATCHES "^src/")
        porta_layer_rank(${f} own)
        porta_layer_rank(${rel} target)
        string(REGEX REPLACE "^src/([^/]+)/.*" "\\1" own_folder "${f}")
        string(REGEX REPLACE "^src/([^/]+)/.*" "\\1" target_folder "${rel}")
        if(own GREATER_EQUAL 0 AND target GREATER_EQUAL 0 AND NOT own_folder STREQUAL target_folder
           AND NOT target LESS own)
          list(APPEND found "${f}: #include \"${inc}\" reaches ${rel}, a layer not below ${own_folder}/")
        endif()
      endif()
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
  message(FATAL_ERROR "porta include graph: ${count} include(s) cross a boundary "
                      "(src/ must not include backends/; backends/ includes the core only through "
                      "interface/porta_backend/; mpi/ only through the public API; a layer of src/ "
                      "includes only the layers below it, docs/design/layers.md):\n  ${text}")
endif()
message(STATUS "porta include graph: ${checked} files, no include crosses the plugin boundary or runs up a layer")
