# Embeds an OpenCL C file into the plugin as a C++ string constant (ArrayFire's kernel/*.cl idea:
# kernels read as OpenCL C, and build errors give their own line numbers).
#   cmake -DINPUT=kernels/x.cl -DOUTPUT=x.cl.cpp -DNAME=kXSource -P embed_kernel.cmake
file(READ "${INPUT}" text)
set(delimiter "PORTA_CL")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains )${delimiter}\", which would end the embedded string early")
endif()
get_filename_component(file_name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
     "// Generated at build time from backends/opencl/kernels/${file_name} by embed_kernel.cmake: edit that file.\n"
     "namespace porta::opencl {\n"
     "extern const char* const ${NAME};\n"
     "const char* const ${NAME} = R\"${delimiter}(${text})${delimiter}\";\n"
     "}  // namespace porta::opencl\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
