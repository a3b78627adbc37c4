// The error-checking style every backend shares (interface/porta_backend/check.hpp): the message
// a failed vendor call becomes ("<where>: <function> failed: <status>") and the logging path of
// destructors, which never throws and says false. Host-side pieces: no device is involved.
#include <gtest/gtest.h>

#include <string>

#include "porta_backend/check.hpp"

namespace porta_test {
namespace {

using porta::detail::call_name;
using porta::detail::failure_message;
using porta::detail::log_failure_message;

TEST(ErrorStyle, CallNameIsTheFunctionOfTheCallText) {
  EXPECT_EQ(call_name("clFinish(queue_)"), "clFinish");
  EXPECT_EQ(call_name("cuStreamSynchronize(stream_)"), "cuStreamSynchronize");
  EXPECT_EQ(call_name("Kokkos::finalize()"), "Kokkos::finalize");
  // A description that is not a call is kept whole.
  EXPECT_EQ(call_name("clReleaseMemObject of foreign memory"), "clReleaseMemObject of foreign memory");
  EXPECT_EQ(call_name("cuLaunchKernel of 'add' (grid 1)"), "cuLaunchKernel of 'add' (grid 1)");
  static_assert(call_name("clFlush(q)") == "clFlush", "usable at compile time");
}

TEST(ErrorStyle, FailureMessageNamesWhereTheCallAndTheStatus) {
  EXPECT_EQ(failure_message("clEnqueueReadBuffer(q, m, CL_TRUE, 0, 4, p, 0, nullptr, nullptr)", "CL_OUT_OF_RESOURCES (-5)",
                            "reading 4 bytes from opencl:1"),
            "reading 4 bytes from opencl:1: clEnqueueReadBuffer failed: CL_OUT_OF_RESOURCES (-5)");
  EXPECT_EQ(failure_message("cuInit(0)", "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)", ""),
            "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
}

TEST(ErrorStyle, DestructorPathLogsAtErrorLevelAndSaysFalse) {
  testing::internal::CaptureStderr();
  const bool ok = log_failure_message("clReleaseEvent(event_)", "CL_INVALID_EVENT (-58)", "opencl:0");
  const std::string logged = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(ok);
  EXPECT_NE(logged.find("opencl:0: clReleaseEvent failed: CL_INVALID_EVENT (-58)"), std::string::npos) << logged;
}

}  // namespace
}  // namespace porta_test
