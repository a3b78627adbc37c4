// The PTX edits of backends/opencl/gemm/ptx_edit.hpp on text shaped as NVIDIA's OpenCL compiler emits
// it for gemm_wg.cl (the excerpts follow the PTX of the H200's driver 580, 2026-12-04). Plain text:
// no device, so these are TESTs, not TEST_Ps over porta::devices().
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "opencl/gemm/ptx_edit.hpp"

namespace {

using porta::opencl::hoist_wgmma_waits;

constexpr const char* kWait = "\twgmma.wait_group.sync.aligned 0;";

// The lines of `text`, one string each.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::size_t at = 0;
  for (std::size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1) v.push_back(text.substr(at, end - at));
  v.push_back(text.substr(at));
  return v;
}

std::size_t line_of(const std::vector<std::string>& lines, const std::string& line, std::size_t from = 0) {
  for (std::size_t i = from; i < lines.size(); ++i)
    if (lines[i] == line) return i;
  return lines.size();
}

// The loop's end and the block after it: NVVM's index arithmetic before the final wait.
const std::string kLoopExit =
    "\twgmma.commit_group.sync.aligned;\n"
    "\n"
    "\t// end inline asm\n"
    "\t// begin inline asm\n"
    "\twgmma.wait_group.sync.aligned 1;\n"
    "\n"
    "\t// end inline asm\n"
    "\tadd.s32 \t%r359, %r359, 1;\n"
    "\tsetp.lt.s32 \t%p6, %r359, %r5;\n"
    "\t@%p6 bra \t$L__BB0_6;\n"
    "\n"
    "$L__BB0_9:\n"
    "\tmov.u32 \t%r358, %ctaid.y;\n"
    "\tmov.b32 \t%r357, %envreg1;\n"
    "\tld.param.u64 \t%rd215, [porta_gemm_wg_param_11];\n"
    "\tshr.s32 \t%r350, %r351, 7;\n"
    "\t// begin inline asm\n"
    "\twgmma.wait_group.sync.aligned 0;\n"
    "\n"
    "\t// end inline asm\n"
    "\tcvt.rn.f16.f32 \ttemp, %f1026;\n";

TEST(PtxEdit, FinalWaitMovesToTheStartOfItsBlock) {
  std::string ptx = kLoopExit;
  ASSERT_EQ(hoist_wgmma_waits(ptx), 1);
  const auto lines = lines_of(ptx);
  const std::size_t label = line_of(lines, "$L__BB0_9:");
  ASSERT_LT(label + 1, lines.size());
  EXPECT_EQ(lines[label + 1], kWait) << ptx;
  EXPECT_EQ(line_of(lines, "\tmov.u32 \t%r358, %ctaid.y;"), label + 2) << ptx;
  // Nothing lost or doubled: the same lines, one wait of each kind.
  EXPECT_EQ(lines.size(), lines_of(kLoopExit).size());
  EXPECT_EQ(line_of(lines, kWait, label + 2), lines.size()) << ptx;
  EXPECT_LT(line_of(lines, "\twgmma.wait_group.sync.aligned 1;"), label);
  // The accumulators are still read after the wait.
  EXPECT_GT(line_of(lines, "\tcvt.rn.f16.f32 \ttemp, %f1026;"), label + 1);
}

TEST(PtxEdit, WaitNeverPassesAnMmaABranchOrABarrier) {
  // Right after the MMAs' commit (the loop of the kernels without overlap): only comments between.
  std::string in_loop =
      "\twgmma.commit_group.sync.aligned;\n\n\t// end inline asm\n\t// begin inline asm\n\twgmma.wait_group.sync.aligned 0;\n";
  std::string edited = in_loop;
  hoist_wgmma_waits(edited);
  auto lines = lines_of(edited);
  EXPECT_GT(line_of(lines, kWait), line_of(lines, "\twgmma.commit_group.sync.aligned;")) << edited;
  // A block that starts after a branch, and one after a barrier: the wait stops below each.
  for (const char* stop : {"\t@%p6 bra \t$L__BB0_6;", "\tbar.sync \t0;", "}", "\tmbarrier.try_wait.parity.shared::cta.b64 p, [%r1], 0;"}) {
    std::string ptx = std::string(stop) + "\n\tmov.u32 \t%r1, %tid.x;\n\tadd.s32 \t%r2, %r1, 4;\n" + kWait + "\n";
    EXPECT_EQ(hoist_wgmma_waits(ptx), 1) << stop;
    lines = lines_of(ptx);
    EXPECT_EQ(line_of(lines, kWait), 1u) << ptx;
    EXPECT_EQ(lines[0], stop);
  }
}

TEST(PtxEdit, LeavesOtherTextAlone) {
  for (const std::string& ptx : {std::string(), std::string("\tmov.u32 \t%r1, %tid.x;\n"),
                                std::string("$L__BB0_9:\n") + kWait + "\n\tmov.u32 \t%r1, %tid.x;\n",
                                std::string("\twgmma.wait_group.sync.aligned 1;\n")}) {
    std::string edited = ptx;
    EXPECT_EQ(hoist_wgmma_waits(edited), 0) << ptx;
    EXPECT_EQ(edited, ptx);
  }
}

}  // namespace
