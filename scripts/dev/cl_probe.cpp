// What NVIDIA's OpenCL compiler accepts and makes of porta's tensor-core kernels (a tuning aid for
// scripts/dev/gemm_sweep.sh; it builds programs the way porta does, clBuildProgram on one device).
//
//   cl_probe probes                 Hopper-only PTX (wgmma.mma_async, setmaxnreg, cp.async.bulk)
//                                   and mma.sync as a control, each built with several option sets;
//                                   prints each build's status, its log and the PTX's .target line.
//   cl_probe build FILE.cl OPTS...  builds FILE.cl with OPTS (and -cl-nv-verbose) and prints the
//                                   log, where ptxas says each kernel's registers and spills; with
//                                   PROBE_PTX=path the program's binary (PTX) is written there.
//
// Build: g++ -O1 -std=c++17 cl_probe.cpp -lOpenCL (CL_TARGET_OPENCL_VERSION 300).
#include "nvidia_cl.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Builds `src` with `opts`; prints the status, the log and the PTX's .target (and whether `needle`
// is in the PTX). Writes the PTX to `ptx_path` when given.
bool build(cl_context ctx, cl_device_id dev, const std::string& what, const std::string& src, const std::string& opts,
           const char* needle, const char* ptx_path) {
  const char* text = src.c_str();
  cl_int st = CL_SUCCESS;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &text, nullptr, &st);
  if (st != CL_SUCCESS) {
    std::printf("%s: clCreateProgramWithSource %d\n", what.c_str(), st);
    return false;
  }
  st = clBuildProgram(prog, 1, &dev, opts.c_str(), nullptr, nullptr);
  const std::string log = build_log(prog, dev);
  std::printf("=== %s [options: '%s']: clBuildProgram %s (%d)\n%s\n", what.c_str(), opts.c_str(),
              st == CL_SUCCESS ? "CL_SUCCESS" : "FAILED", st, log.c_str());
  if (st == CL_SUCCESS) {
    const std::string bin = program_ptx(prog);
    std::istringstream lines(bin);
    for (std::string line; std::getline(lines, line);)
      if (line.find(".target") != std::string::npos || line.find(".version") != std::string::npos)
        std::printf("  ptx: %s\n", line.c_str());
    if (needle) std::printf("  ptx has '%s': %s\n", needle, bin.find(needle) != std::string::npos ? "yes" : "no");
    if (ptx_path) std::ofstream(ptx_path, std::ios::binary) << bin;
  }
  clReleaseProgram(prog);
  return st == CL_SUCCESS;
}

const char* kWgmma = R"(
__kernel void probe_wgmma(__global float* out, __global const ulong* desc) {
  __local ushort tile[64 * 16 + 16 * 8] __attribute__((aligned(128)));
  tile[get_local_id(0)] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  const ulong da = desc[0], db = desc[1];
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db), "r"(1));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  out[get_global_id(0)] = d0 + d1 + d2 + d3;
}
)";

const char* kSetmaxnreg = R"(
__kernel void probe_setmaxnreg(__global float* out) {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
  out[get_global_id(0)] = 1.0f;
}
)";

const char* kBulk = R"(
__kernel void probe_bulk(__global float* out, __global const float* in) {
  __local float buf[256] __attribute__((aligned(128)));
  __local ulong bar;
  const uint b = (uint)(size_t)&bar, s = (uint)(size_t)buf;
  if (get_local_id(0) == 0) {
    asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"(b) : "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], 1024;" :: "r"(b) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];"
                 :: "r"(s), "l"((ulong)(size_t)in), "r"(b) : "memory");
    uint done = 0;
    while (!done)
      asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared.b64 p, [%1], 0;\nselp.u32 %0, 1, 0, p;\n}\n"
                   : "=r"(done) : "r"(b) : "memory");
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = buf[get_local_id(0) % 256];
}
)";

const char* kMmaSync = R"(
__kernel void probe_mma(__global float* out, __global const uint* in) {
  const uint a0 = in[0], a1 = in[1], a2 = in[2], a3 = in[3], b0 = in[4], b1 = in[5];
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  out[get_global_id(0)] = d0 + d1 + d2 + d3;
}
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cl_probe probes | cl_probe build FILE.cl OPTIONS...\n");
    return 2;
  }
  cl_device_id dev = nvidia_gpu();
  if (!dev) {
    std::printf("no NVIDIA OpenCL GPU\n");
    return 1;
  }
  char name[256] = {}, driver[256] = {}, version[256] = {};
  cl_ulong local = 0;
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, nullptr);
  clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof driver, driver, nullptr);
  clGetDeviceInfo(dev, CL_DEVICE_VERSION, sizeof version, version, nullptr);
  clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, nullptr);
  std::printf("device: %s, driver %s, %s, local memory %llu bytes\n", name, driver, version,
              static_cast<unsigned long long>(local));
  cl_int st = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &st);
  if (st != CL_SUCCESS) return 1;
  const std::string mode = argv[1];
  if (mode == "probes") {
    const char* option_sets[] = {"", "-cl-nv-arch sm_90a", "-cl-nv-arch=sm_90a", "-cl-nv-verbose"};
    struct Probe {
      const char* what;
      const char* src;
      const char* needle;
    } probes[] = {{"mma.sync m16n8k16 (control)", kMmaSync, "mma.sync"},
                  {"wgmma.mma_async m64n8k16", kWgmma, "wgmma.mma_async"},
                  {"setmaxnreg", kSetmaxnreg, "setmaxnreg"},
                  {"cp.async.bulk + mbarrier", kBulk, "cp.async.bulk"}};
    for (const Probe& p : probes)
      for (const char* o : option_sets) build(ctx, dev, p.what, p.src, o, p.needle, nullptr);
  } else if (mode == "build" && argc >= 3) {
    std::ifstream in(argv[2]);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string opts = "-cl-nv-verbose";
    for (int i = 3; i < argc; ++i) opts += std::string(" ") + argv[i];
    build(ctx, dev, argv[2], ss.str(), opts, nullptr, std::getenv("PROBE_PTX"));
  }
  clReleaseContext(ctx);
  return 0;
}
