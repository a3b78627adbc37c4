# Embeds a kernel source file (OpenCL C, CUDA C++, or text shared by both) into a library as a C++
# string constant (ArrayFire's kernel/*.cl idea: kernels read as the language they are written in,
# and build errors give their own line numbers). Script mode, run by porta_embed_kernels():
#   cmake -DINPUT=dir/x.cl -DOUTPUT=x.cl.cpp -DNAME=kXSource -DNAMESPACE=porta::opencl
#         -DSOURCE=backends/opencl/gemm/kernels/x.cl -P PortaEmbedKernel.cmake
file(READ "${INPUT}" text)
set(delimiter "PORTA_CL")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains )${delimiter}\", which would end the embedded string early")
endif()
file(WRITE "${OUTPUT}.tmp"
     "// Generated at build time from ${SOURCE} by cmake/PortaEmbedKernel.cmake: edit that file.\n"
     "namespace ${NAMESPACE} {\n"
     "extern const char* const ${NAME};\n"
     "const char* const ${NAME} = R\"${delimiter}(${text})${delimiter}\";\n"
     "}  // namespace ${NAMESPACE}\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
