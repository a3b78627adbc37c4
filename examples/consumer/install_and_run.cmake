# CTest's install test (cmake -P): installs the porta build PORTA_BINARY_DIR into a fresh prefix
# under WORK_DIR, then configures, builds and runs the consumer project against that prefix only.
foreach(v PORTA_BINARY_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_and_run.cmake needs -D${v}=...")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}): ${ARGN}")
  endif()
endfunction()

set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)
file(REMOVE_RECURSE ${WORK_DIR})

set(install_config)
if(CONFIG)
  set(install_config --config ${CONFIG})
endif()
run("cmake --install" ${CMAKE_COMMAND} --install ${PORTA_BINARY_DIR} --prefix ${prefix} ${install_config})
if(NOT EXISTS ${prefix}/share/doc/porta/LICENSE)
  message(FATAL_ERROR "cmake --install put no LICENSE in ${prefix}/share/doc/porta")
endif()

set(configure_args -S ${CONSUMER_SOURCE_DIR} -B ${build} -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
if(MAKE_PROGRAM)
  list(APPEND configure_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
if(CXX_COMPILER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
run("configuring the consumer" ${CMAKE_COMMAND} ${configure_args})
run("building the consumer" ${CMAKE_COMMAND} --build ${build})

# The installed porta-info and the consumer run with the plugins found next to the installed
# libporta, not through a PORTA_PLUGIN_PATH the caller may have set.
find_program(app NAMES app PATHS ${build} ${build}/Release NO_DEFAULT_PATH REQUIRED)
run("installed porta-info" ${CMAKE_COMMAND} -E env --unset=PORTA_PLUGIN_PATH ${prefix}/bin/porta-info)
run("the consumer" ${CMAKE_COMMAND} -E env --unset=PORTA_PLUGIN_PATH ${app})
