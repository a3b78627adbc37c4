// A kernel that faults on a GPU leaves that device's context unusable: every later call on the
// device must say so (the context failed earlier, restart the process) rather than fail in
// unrelated places. Each case runs tests/fault_helper.cpp in its own process, since the fault
// cannot be undone. CPU devices are skipped: a wild write there is a wild write into the process.
#include "test_common.hpp"

#include <cstdio>
#include <sys/wait.h>

namespace porta_test {
namespace {

class Faults : public DeviceTest {};

TEST_P(Faults, EveryCallAfterAKernelFaultNamesTheFailedContext) {
  if (dev().kind() != porta::DeviceKind::gpu || !dev().compiles_at_runtime())
    GTEST_SKIP() << dev().spec() << " is not a GPU that compiles kernels: a wild write there does not fault a context";
  const std::string cmd = std::string("'") + PORTA_FAULT_HELPER_PATH + "' " + dev().spec() + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int status = ::pclose(p);
  ASSERT_TRUE(WIFEXITED(status)) << "the helper crashed:\n" << out;
  EXPECT_EQ(WEXITSTATUS(status), 0) << out;
}

// Work that needs a new kernel after main returns (a reduction in a static destructor, tasks a
// static DevicePool still holds) finishes, or fails with a porta error that says why (PoCL's
// compiler is torn down by then); it never crashes or aborts the process.
TEST_P(Faults, WorkAfterMainReturnsFinishesOrFailsClearly) {
  const std::string cmd = std::string("'") + PORTA_EXIT_HELPER_PATH + "' " + dev().spec() + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  int status = ::pclose(p);
  ASSERT_TRUE(WIFEXITED(status)) << "the helper crashed:\n" << out;
  EXPECT_EQ(WEXITSTATUS(status), 0) << out;
  EXPECT_NE(out.find("main returns"), std::string::npos) << out;
  const bool computed = out.find("static destructor: sum 1509500 (want 1509500)") != std::string::npos;
  const bool refused = out.find("static destructor: porta error") != std::string::npos;
  EXPECT_TRUE(computed || refused) << out;
}

PORTA_INSTANTIATE_DEVICES(Faults);

}  // namespace
}  // namespace porta_test
