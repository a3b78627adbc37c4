// Whether NVIDIA's OpenCL runs Hopper's tensor memory accelerator (TMA) on a cl_mem (issue 20).
//
// cuBLAS feeds its warpgroup MMAs by TMA; porta's OpenCL warpgroup GEMM loads by cp.async. A TMA
// load needs a tensor map, which only the CUDA driver encodes (cuTensorMapEncodeTiled) from a
// device address. This probe:
//   1. reads a cl_mem's device address in a kernel ((ulong) of the pointer);
//   2. encodes tensor maps of that float16 matrix with the CUDA driver, 64 x 64 boxes, without
//      swizzle and with the 128-byte swizzle (wgmma's K-major layout);
//   3. copies each map into a cl_mem and runs an OpenCL C kernel whose inline PTX initialises an
//      mbarrier, issues cp.async.bulk.tensor.2d for one box and waits on the barrier. The
//      instructions are comments marked "// @sm90a " (as wgmma_probe.cpp's), unmarked in the
//      program's PTX, built once as it is (.target sm_90) and once retargeted to sm_90a;
//   4. compares the box in local memory with the matrix, un-swizzled, including a box that runs
//      past the matrix's last column (zero-filled by TMA).
// It prints what each step returned and which builds and layouts matched.
//
// Build: g++ -O1 -std=c++17 tma_probe.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64
//          -lcuda -lOpenCL -o tma_probe          (on the build machine: -L/usr/local/cuda/lib64/stubs)
// Run:   tma_probe            (tma_probe --source prints the kernels)
#include <cuda.h>

#include "nvidia_cl.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr int kRows = 256, kCols = 256, kBox = 64;

const char* kSource = R"(#define A90(text) "// @sm90a " text "\n"
__kernel void address_of(__global const uchar* p, __global ulong* out) { out[0] = (ulong)p; }

// One work-group of 128: work-item 0 loads the box at column c0, row c1 by TMA; all copy it out.
__kernel void tma_box(__global const ulong* tmap, __global ushort* out, int c0, int c1) {
  __local ushort tile[64 * 64] __attribute__((aligned(1024)));
  __local ulong bar[1] __attribute__((aligned(8)));
  const int t = get_local_id(0);
  const uint sbase = (uint)(size_t)tile, sbar = (uint)(size_t)bar;
  if (t == 0) {
    asm volatile(A90("mbarrier.init.shared::cta.b64 [%0], 1;") :: "r"(sbar) : "memory");
    asm volatile(A90("fence.proxy.async.shared::cta;") ::: "memory");
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t == 0) {
    asm volatile(A90("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 8192;") :: "r"(sbar) : "memory");
    asm volatile(A90("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];")
                 :: "r"(sbase), "l"((ulong)tmap), "r"(c0), "r"(c1), "r"(sbar) : "memory");
  }
  uint done = 0;
  for (int spin = 0; !done && spin < (1 << 24); ++spin)
    asm volatile(A90("{") A90(".reg .pred p;") A90("mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;")
                 A90("selp.u32 %0, 1, 0, p;") A90("}") : "=r"(done) : "r"(sbar) : "memory");
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = t; i < 64 * 64; i += 128) out[i] = done ? tile[i] : (ushort)0xdead;
}
)";

std::uint16_t value(int r, int c) { return static_cast<std::uint16_t>(r * kCols + c); }

// Runs tma_box on `map` at (c0, c1) and counts the box's elements that differ from the matrix
// (zero past its end), reading the box through the 128-byte swizzle when `swizzled`.
int run_box(cl_context ctx, cl_command_queue q, cl_kernel k, const CUtensorMap& map, int c0, int c1, bool swizzled) {
  cl_int st = CL_SUCCESS;
  cl_mem mm = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof map, const_cast<CUtensorMap*>(&map), &st);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, kBox * kBox * 2, nullptr, &st);
  clSetKernelArg(k, 0, sizeof mm, &mm);
  clSetKernelArg(k, 1, sizeof out, &out);
  clSetKernelArg(k, 2, sizeof c0, &c0);
  clSetKernelArg(k, 3, sizeof c1, &c1);
  const std::size_t global = 128, local = 128;
  cl_int run = clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
  std::vector<std::uint16_t> got(kBox * kBox);
  cl_int read = clEnqueueReadBuffer(q, out, CL_TRUE, 0, got.size() * 2, got.data(), 0, nullptr, nullptr);
  int bad = 0;
  for (int r = 0; r < kBox; ++r)
    for (int c = 0; c < kBox; ++c) {
      const std::size_t at = swizzled ? static_cast<std::size_t>(r * 64 + ((c / 8) ^ (r % 8)) * 8 + c % 8)
                                      : static_cast<std::size_t>(r * 64 + c);
      const int gr = c1 + r, gc = c0 + c;
      const std::uint16_t want = gr < kRows && gc < kCols ? value(gr, gc) : 0;
      if (got[at] != want) {
        if (bad < 3) std::printf("    (%d, %d): got %u want %u\n", r, c, got[at], want);
        ++bad;
      }
    }
  std::printf("  box at column %d, row %d, %s: enqueue %d read %d, %d of %d wrong\n", c0, c1,
              swizzled ? "128-byte swizzle" : "no swizzle", run, read, bad, kBox * kBox);
  clReleaseMemObject(mm);
  clReleaseMemObject(out);
  return run == CL_SUCCESS && read == CL_SUCCESS ? bad : -1;
}

}  // namespace

int main(int argc, char** argv) {
  const ProbeStart start = start_probe(argc, argv, kSource);
  if (start.exit >= 0) return start.exit;
  const NvidiaCl& cl = start.cl;
  cl_program src = start.src;
  cl_int st = CL_SUCCESS;

  // The matrix and its device address.
  std::vector<std::uint16_t> a(kRows * kCols);
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) a[static_cast<std::size_t>(r * kCols + c)] = value(r, c);
  cl_mem am = clCreateBuffer(cl.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, a.size() * 2, a.data(), &st);
  cl_mem addr = clCreateBuffer(cl.ctx, CL_MEM_WRITE_ONLY, 8, nullptr, &st);
  cl_kernel ka = clCreateKernel(src, "address_of", &st);
  clSetKernelArg(ka, 0, sizeof am, &am);
  clSetKernelArg(ka, 1, sizeof addr, &addr);
  const std::size_t one = 1;
  clEnqueueNDRangeKernel(cl.q, ka, 1, nullptr, &one, &one, 0, nullptr, nullptr);
  std::uint64_t device_address = 0;
  st = clEnqueueReadBuffer(cl.q, addr, CL_TRUE, 0, 8, &device_address, 0, nullptr, nullptr);
  std::printf("cl_mem device address: 0x%llx (read %d)\n", static_cast<unsigned long long>(device_address), st);

  // The tensor maps, from the CUDA driver. cuTensorMapEncodeTiled wants a current context (without
  // one it answered 201, invalid device context, on the H200 on 2026-12-04): device 0's primary
  // one, which the tensor map does not refer to.
  CUresult init = cuInit(0);
  CUdevice cu_device = 0;
  CUcontext primary = nullptr;
  if (init == CUDA_SUCCESS && cuDeviceGet(&cu_device, 0) == CUDA_SUCCESS && cuDevicePrimaryCtxRetain(&primary, cu_device) == CUDA_SUCCESS)
    cuCtxSetCurrent(primary);
  std::printf("cuInit: %d, primary context %s\n", static_cast<int>(init), primary ? "current" : "missing");
  CUtensorMap maps[2];
  const CUtensorMapSwizzle swizzles[2] = {CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_SWIZZLE_128B};
  bool encoded[2] = {false, false};
  for (int s = 0; s < 2; ++s) {
    const cuuint64_t dims[2] = {kCols, kRows}, strides[1] = {kCols * 2};
    const cuuint32_t box[2] = {kBox, kBox}, estrides[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(&maps[s], CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, reinterpret_cast<void*>(device_address), dims,
                                        strides, box, estrides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzles[s],
                                        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    const char* why = nullptr;
    cuGetErrorString(r, &why);
    std::printf("cuTensorMapEncodeTiled (%s): %d %s\n", s ? "128-byte swizzle" : "no swizzle", static_cast<int>(r), why ? why : "");
    encoded[s] = r == CUDA_SUCCESS;
  }

  const std::string ptx = program_ptx(src);
  bool any = false;
  for (bool sm90a : {false, true}) {
    cl_program p = build_ptx(cl.ctx, cl.dev, ptx, sm90a);
    if (!p) continue;
    cl_kernel k = clCreateKernel(p, "tma_box", &st);
    if (st != CL_SUCCESS) {
      std::printf("  clCreateKernel: %d\n", st);
      continue;
    }
    for (int s = 0; s < 2; ++s) {
      if (!encoded[s]) continue;
      const int inside = run_box(cl.ctx, cl.q, k, maps[s], 64, 128, s == 1);
      const int edge = run_box(cl.ctx, cl.q, k, maps[s], kCols - 32, 128, s == 1);
      any = any || (inside == 0 && edge == 0);
    }
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
  std::printf("RESULT: %s\n", any ? "TMA loads a cl_mem from OpenCL" : "no build and layout matched");
  return any ? 0 : 1;
}
