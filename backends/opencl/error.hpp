// OpenCL status codes as text, and the one check every OpenCL call in the backend goes through:
// PORTA_CL_CHECK(clFinish(q)) throws DeviceError "clFinish failed: CL_INVALID_COMMAND_QUEUE (-36)".
#pragma once

#include <CL/cl.h>

#include <string>
#include <string_view>

#include "porta_backend/strings.hpp"

namespace porta::opencl {

// "CL_INVALID_VALUE" for -30; "unknown OpenCL error" for codes no header names.
const char* error_name(cl_int status);
// "CL_INVALID_VALUE (-30)"
std::string describe_status(cl_int status);
// Throws porta::DeviceError "<call> failed: <name> (<code>)", followed by `context` when given.
[[noreturn]] void throw_status(cl_int status, std::string_view call, std::string_view context = {});
// The function name of a stringified call expression: "clFinish" for "clFinish(q)".
constexpr std::string_view call_name(std::string_view expr) { return expr.substr(0, expr.find('(')); }

}  // namespace porta::opencl

#define PORTA_CL_CHECK(call)                                                                   \
  do {                                                                                         \
    const cl_int porta_cl_status_ = (call);                                                    \
    if (porta_cl_status_ != CL_SUCCESS)                                                        \
      ::porta::opencl::throw_status(porta_cl_status_, ::porta::opencl::call_name(#call));     \
  } while (0)

// The same, with text that says what the call was doing ("reading 4 KiB from opencl:0").
#define PORTA_CL_CHECK_CTX(call, ...)                                                          \
  do {                                                                                         \
    const cl_int porta_cl_status_ = (call);                                                    \
    if (porta_cl_status_ != CL_SUCCESS)                                                        \
      ::porta::opencl::throw_status(porta_cl_status_, ::porta::opencl::call_name(#call),      \
                                    ::porta::detail::cat(__VA_ARGS__));                        \
  } while (0)
