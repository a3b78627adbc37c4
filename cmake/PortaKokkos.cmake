# Finds Kokkos for the kokkos backend and defines porta::kokkos_core, the imported target its
# plugin links. Sets PORTA_KOKKOS_FOUND, PORTA_KOKKOS_VERSION and, when Kokkos is missing,
# PORTA_KOKKOS_REASON.
#
# A Kokkos of the user's own (Kokkos_ROOT, Kokkos_DIR, CMAKE_PREFIX_PATH) comes first, through
# its Kokkos::kokkos. Debian's Kokkos (libtrilinos-kokkos-dev, Trilinos 13.2) ships a TriBITS
# KokkosConfig.cmake whose Kokkos::kokkos names /usr/lib/include, which does not exist, and
# linking that target stops the generate step. Loading the config is harmless (it only defines
# targets), so porta loads it, checks the target's include directories, and when they are not
# there builds its own target from Kokkos_Core.hpp (in /usr/include/trilinos on Debian) and
# libtrilinos_kokkoscore (or libkokkoscore).
if(TARGET porta::kokkos_core)
  return()
endif()

# Every include directory of `target` and of the targets it links, generator expressions left out.
function(_porta_kokkos_include_dirs target out)
  set(dirs "")
  set(seen "")
  set(todo ${target})
  while(todo)
    list(POP_FRONT todo t)
    if(NOT TARGET ${t} OR t IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${t})
    get_target_property(inc ${t} INTERFACE_INCLUDE_DIRECTORIES)
    if(inc)
      foreach(d IN LISTS inc)
        if(NOT d MATCHES "\\$<")
          list(APPEND dirs ${d})
        endif()
      endforeach()
    endif()
    get_target_property(libs ${t} INTERFACE_LINK_LIBRARIES)
    if(libs)
      foreach(l IN LISTS libs)
        if(TARGET ${l})
          list(APPEND todo ${l})
        endif()
      endforeach()
    endif()
  endwhile()
  set(${out} ${dirs} PARENT_SCOPE)
endfunction()

set(PORTA_KOKKOS_FOUND FALSE)
set(PORTA_KOKKOS_REASON "")
set(PORTA_KOKKOS_VERSION "")

find_package(Kokkos CONFIG QUIET)
set(_porta_kokkos_config_usable FALSE)
if(Kokkos_FOUND AND TARGET Kokkos::kokkos)
  _porta_kokkos_include_dirs(Kokkos::kokkos _porta_kokkos_dirs)
  set(_porta_kokkos_config_usable TRUE)
  foreach(d IN LISTS _porta_kokkos_dirs)
    if(NOT EXISTS "${d}")
      set(_porta_kokkos_config_usable FALSE)
      message(STATUS "porta: ${Kokkos_DIR}/KokkosConfig.cmake names the include directory ${d}, "
                     "which does not exist (Debian's Trilinos Kokkos); looking for the headers directly")
      break()
    endif()
  endforeach()
endif()

if(_porta_kokkos_config_usable)
  add_library(porta::kokkos_core INTERFACE IMPORTED)
  target_link_libraries(porta::kokkos_core INTERFACE Kokkos::kokkos)
  set(PORTA_KOKKOS_FOUND TRUE)
  set(PORTA_KOKKOS_VERSION "${Kokkos_VERSION}")
  message(STATUS "porta: Kokkos ${Kokkos_VERSION} from ${Kokkos_DIR}")
else()
  # The TriBITS config, when it was loaded, knows where the headers and libraries really are.
  find_path(PORTA_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp
            HINTS ${Kokkos_INCLUDE_DIRS} PATH_SUFFIXES trilinos kokkos
            DOC "Directory holding Kokkos_Core.hpp")
  find_library(PORTA_KOKKOS_CORE_LIBRARY NAMES kokkoscore trilinos_kokkoscore
               HINTS ${Kokkos_LIBRARY_DIRS} DOC "The Kokkos core library")
  if(PORTA_KOKKOS_INCLUDE_DIR AND PORTA_KOKKOS_CORE_LIBRARY AND EXISTS "${PORTA_KOKKOS_INCLUDE_DIR}/KokkosCore_config.h")
    file(STRINGS "${PORTA_KOKKOS_INCLUDE_DIR}/KokkosCore_config.h" _porta_kokkos_version_line
         REGEX "^#define KOKKOS_VERSION [0-9]+")
    if(_porta_kokkos_version_line MATCHES "KOKKOS_VERSION ([0-9]+)")
      math(EXPR _major "${CMAKE_MATCH_1} / 10000")
      math(EXPR _minor "${CMAKE_MATCH_1} / 100 % 100")
      math(EXPR _patch "${CMAKE_MATCH_1} % 100")
      set(PORTA_KOKKOS_VERSION "${_major}.${_minor}.${_patch}")
    endif()
    # Imported include directories are SYSTEM: Kokkos 3.4's headers warn under C++20.
    add_library(porta::kokkos_core UNKNOWN IMPORTED)
    set_target_properties(porta::kokkos_core PROPERTIES
      IMPORTED_LOCATION "${PORTA_KOKKOS_CORE_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${PORTA_KOKKOS_INCLUDE_DIR}")
    set(PORTA_KOKKOS_FOUND TRUE)
    message(STATUS "porta: Kokkos ${PORTA_KOKKOS_VERSION} from ${PORTA_KOKKOS_INCLUDE_DIR} and ${PORTA_KOKKOS_CORE_LIBRARY}")
  elseif(PORTA_KOKKOS_INCLUDE_DIR AND NOT PORTA_KOKKOS_CORE_LIBRARY)
    set(PORTA_KOKKOS_REASON "Kokkos_Core.hpp is in ${PORTA_KOKKOS_INCLUDE_DIR} but no libkokkoscore or "
                            "libtrilinos_kokkoscore was found; install libtrilinos-kokkos-dev or set Kokkos_ROOT")
  else()
    set(PORTA_KOKKOS_REASON "Kokkos was not found: install libtrilinos-kokkos-dev, or set Kokkos_ROOT to a Kokkos install")
  endif()
endif()
string(REPLACE ";" "" PORTA_KOKKOS_REASON "${PORTA_KOKKOS_REASON}")
