# porta_host_blas: a static library with host_matmul (backends/host/blas.cpp) over OpenBLAS and
# host_solver (backends/host/solver.cpp) over LAPACKE, linked into the plugins of CPU devices.
# Sets PORTA_HOST_BLAS_FOUND.
if(TARGET porta_host_blas)
  return()
endif()
find_path(PORTA_CBLAS_INCLUDE cblas.h PATH_SUFFIXES openblas-pthread openblas x86_64-linux-gnu/openblas-pthread
          HINTS /usr/include/x86_64-linux-gnu/openblas-pthread)
find_library(PORTA_OPENBLAS_LIBRARY NAMES openblas HINTS /usr/lib/x86_64-linux-gnu/openblas-pthread)
# LAPACKE (liblapacke-dev): the C interface to the LAPACK that OpenBLAS provides.
find_path(PORTA_LAPACKE_INCLUDE lapacke.h)
find_library(PORTA_LAPACKE_LIBRARY NAMES lapacke)
if(PORTA_CBLAS_INCLUDE AND PORTA_OPENBLAS_LIBRARY AND PORTA_LAPACKE_INCLUDE AND PORTA_LAPACKE_LIBRARY)
  set(PORTA_HOST_BLAS_FOUND TRUE)
  add_library(porta_host_blas STATIC ${PROJECT_SOURCE_DIR}/backends/host/blas.cpp
                                     ${PROJECT_SOURCE_DIR}/backends/host/solver.cpp)
  target_include_directories(porta_host_blas PRIVATE ${PROJECT_SOURCE_DIR}/backends ${PROJECT_SOURCE_DIR}/interface)
  target_include_directories(porta_host_blas SYSTEM PRIVATE ${PORTA_CBLAS_INCLUDE} ${PORTA_LAPACKE_INCLUDE})
  target_link_libraries(porta_host_blas PUBLIC porta ${PORTA_LAPACKE_LIBRARY} ${PORTA_OPENBLAS_LIBRARY})
  # Hidden, so that two plugins linking it do not interpose each other's copy.
  set_target_properties(porta_host_blas PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  porta_warnings(porta_host_blas)
  message(STATUS "porta: host BLAS ${PORTA_OPENBLAS_LIBRARY}")
else()
  set(PORTA_HOST_BLAS_FOUND FALSE)
  message(STATUS "porta: OpenBLAS or LAPACKE not found (libopenblas-dev, liblapacke-dev): CPU devices lose their "
                 "BLAS matmul and their solvers")
endif()
