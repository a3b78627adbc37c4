# porta_add_backend(NAME SOURCES ... LIBRARIES ...): one backend plugin, a MODULE named
# libporta_<name>.so next to libporta (ggml's ggml_add_backend_library). Plugins link libporta,
# so exceptions and the backend interface are shared with the core.
function(porta_add_backend name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES;INCLUDES;DEFINITIONS" ${ARGN})
  set(target porta_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE porta ${ARG_LIBRARIES})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/backends ${PROJECT_SOURCE_DIR}/interface)
  if(ARG_INCLUDES)
    target_include_directories(${target} SYSTEM PRIVATE ${ARG_INCLUDES})
  endif()
  target_compile_definitions(${target} PRIVATE ${ARG_DEFINITIONS})
  set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
                                             BUILD_RPATH "$ORIGIN" INSTALL_RPATH "$ORIGIN")
  porta_warnings(${target})
  target_link_options(${target} PRIVATE "LINKER:--exclude-libs,ALL")  # src/CMakeLists.txt says why
  install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_property(GLOBAL APPEND PROPERTY PORTA_BACKEND_TARGETS ${target})
endfunction()
