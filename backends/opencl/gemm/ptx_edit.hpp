// Edits of the PTX that NVIDIA's OpenCL compiler emits, before the plugin builds it again
// (compile.cpp's edit_ptx): plain text in, text out, so that they are tested without a GPU
// (tests/ptx_edit_test.cpp).
#pragma once

#include <string>

namespace porta::opencl {

// Moves each `wgmma.wait_group.sync.aligned 0;` of `ptx` up to the start of its basic block, over
// plain instructions only: never above a label, a branch, a barrier, a brace, a directive or any
// wgmma instruction, so the wait still covers every MMA it covered. ptxas (CUDA 13.0) serializes
// all of a kernel's MMAs (C7514: "non wgmma instructions reading accumulator registers") when
// anything stands between a loop's exit and the wait after it, as NVVM puts the epilogue's index
// arithmetic there: one `mov.u32 %r, %ctaid.y` was enough (gemm_wg.cl's overlapped MMAs, `:o`;
// the PTX of NVIDIA's OpenCL on the H200 put through ptxas here, 2026-12-04). Waiting earlier is
// correct. On the H200 the edited kernels built without C7514, but the overlapped configurations
// stayed behind the others (float16 4096: 318-358 TFLOP/s against 451 for wg128x128x32:g1:s3, the
// same as before the edit): with 48 KiB of local memory they keep one slice fewer in flight.
// Returns how many waits moved.
int hoist_wgmma_waits(std::string& ptx);

}  // namespace porta::opencl
