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

struct HelperRun {
  int status = -1;  // the exit status; -1 when the helper did not exit normally (a signal)
  std::string output;
};

// Runs one of the helper programs with this device's spec and collects what it printed.
HelperRun run_helper(const char* path, const Device& d) {
  const std::string cmd = std::string("'") + path + "' " + d.spec() + " 2>&1";
  HelperRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  const int status = ::pclose(p);
  if (WIFEXITED(status)) r.status = WEXITSTATUS(status);
  return r;
}

TEST_P(Faults, EveryCallAfterAKernelFaultNamesTheFailedContext) {
  if (dev().kind() != porta::DeviceKind::gpu || !dev().compiles_at_runtime())
    GTEST_SKIP() << dev().spec() << " is not a GPU that compiles kernels: a wild write there does not fault a context";
  const HelperRun r = run_helper(PORTA_FAULT_HELPER_PATH, dev());
  ASSERT_NE(r.status, -1) << "the helper crashed:\n" << r.output;
  EXPECT_EQ(r.status, 0) << r.output;
}

// Work that needs a new kernel after main returns (a reduction in a static destructor, tasks a
// static DevicePool still holds) finishes, or fails with a porta error that says why (PoCL's
// compiler is torn down by then); it never crashes or aborts the process.
TEST_P(Faults, WorkAfterMainReturnsFinishesOrFailsClearly) {
  const HelperRun r = run_helper(PORTA_EXIT_HELPER_PATH, dev());
  const std::string& out = r.output;
  ASSERT_NE(r.status, -1) << "the helper crashed:\n" << out;
  EXPECT_EQ(r.status, 0) << out;
  EXPECT_NE(out.find("main returns"), std::string::npos) << out;
  const bool computed = out.find("static destructor: sum 1509500 (want 1509500)") != std::string::npos;
  const bool refused = out.find("static destructor: porta error") != std::string::npos;
  EXPECT_TRUE(computed || refused) << out;
}

PORTA_INSTANTIATE_DEVICES(Faults);

}  // namespace
}  // namespace porta_test
