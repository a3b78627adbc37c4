# porta_embed_kernels(OUT_VAR NAMESPACE ns FILES path:kName ...): for each kernel source file
# (relative to the current source directory), a generated .cpp that defines `const char* const
# kName` in namespace ns with the file's text; OUT_VAR receives the generated files, to be listed
# among a target's sources. Declare each constant where it is used:
#   extern const char* const kName;  // path, embedded at build time
set(PORTA_EMBED_KERNEL_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/PortaEmbedKernel.cmake)
function(porta_embed_kernels out_var)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "NAMESPACE" "FILES")
  set(outputs)
  foreach(entry IN LISTS arg_FILES)
    string(REPLACE ":" ";" entry "${entry}")
    list(GET entry 0 file)
    list(GET entry 1 constant)
    set(input ${CMAKE_CURRENT_SOURCE_DIR}/${file})
    file(RELATIVE_PATH source ${PROJECT_SOURCE_DIR} ${input})
    set(output ${CMAKE_CURRENT_BINARY_DIR}/embedded/${file}.cpp)
    add_custom_command(
      OUTPUT ${output}
      COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${output} -DNAME=${constant}
              -DNAMESPACE=${arg_NAMESPACE} -DSOURCE=${source} -P ${PORTA_EMBED_KERNEL_SCRIPT}
      DEPENDS ${input} ${PORTA_EMBED_KERNEL_SCRIPT}
      COMMENT "Embedding the kernel source ${source}"
      VERBATIM)
    list(APPEND outputs ${output})
  endforeach()
  set(${out_var} ${outputs} PARENT_SCOPE)
endfunction()
