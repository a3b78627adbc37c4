// OpenCL status codes as text, and the checks every OpenCL call in the backend goes through, in
// the style every backend shares (interface/porta_backend/check.hpp): PORTA_CL(clFinish(q))
// throws DeviceError "clFinish failed: CL_INVALID_COMMAND_QUEUE (-36)"; PORTA_CL_AT(where, call)
// puts `where` first ("opencl:0: ..."), evaluated only when the call failed.
#pragma once

#include <CL/cl.h>

#include <string>
#include <string_view>

#include "porta_backend/check.hpp"
#include "porta_backend/strings.hpp"

namespace porta::opencl {

// "CL_INVALID_VALUE" for -30; "unknown OpenCL error" for codes no header names.
const char* error_name(cl_int status);
// "CL_INVALID_VALUE (-30)", and what the code usually means when its name alone does not say.
std::string describe(cl_int status);
// Throws DeviceError "<where>: <call> failed: <status>" (OutOfMemory for the out-of-memory codes
// is the caller's choice: OpenCL drivers use them for other failures too).
[[noreturn]] void throw_error(cl_int status, std::string_view call, std::string_view where = {});
inline void check(cl_int status, std::string_view call, std::string_view where = {}) {
  if (status != CL_SUCCESS) throw_error(status, call, where);
}
// For destructors and frees: logs a failure at error level and returns false; never throws.
bool log_failure(cl_int status, std::string_view call, std::string_view where = {}) noexcept;

}  // namespace porta::opencl

#define PORTA_CL(call) ::porta::opencl::check((call), #call)
#define PORTA_CL_AT(where, call)                                                              \
  do {                                                                                        \
    if (const cl_int porta_cl_status_ = (call); porta_cl_status_ != CL_SUCCESS)               \
      ::porta::opencl::throw_error(porta_cl_status_, #call, (where));                         \
  } while (0)
