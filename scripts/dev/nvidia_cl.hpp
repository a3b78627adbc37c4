// What the OpenCL probes of scripts/dev share (cl_probe.cpp, wgmma_probe.cpp, tma_probe.cpp): the
// first GPU of NVIDIA's OpenCL platform, a program built from source on it, and a program rebuilt
// from its own PTX with the "// @sm90a " marks removed.
#pragma once
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cstdio>
#include <string>
#include <vector>

inline cl_device_id nvidia_gpu() {
  cl_uint np = 0;
  clGetPlatformIDs(0, nullptr, &np);
  std::vector<cl_platform_id> ps(np);
  clGetPlatformIDs(np, ps.data(), nullptr);
  for (cl_platform_id p : ps) {
    char name[256] = {};
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
    if (std::string(name).find("NVIDIA") == std::string::npos) continue;
    cl_device_id d = nullptr;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &d, nullptr) == CL_SUCCESS) return d;
  }
  return nullptr;
}

// The NVIDIA GPU with a context and an in-order queue on it; `dev` null (and a line printed)
// where there is none.
struct NvidiaCl {
  cl_device_id dev = nullptr;
  cl_context ctx = nullptr;
  cl_command_queue q = nullptr;
};
inline NvidiaCl open_nvidia() {
  NvidiaCl c;
  c.dev = nvidia_gpu();
  if (!c.dev) {
    std::printf("no NVIDIA OpenCL GPU\n");
    return c;
  }
  cl_int st = CL_SUCCESS;
  c.ctx = clCreateContext(nullptr, 1, &c.dev, nullptr, nullptr, &st);
  c.q = clCreateCommandQueueWithProperties(c.ctx, c.dev, nullptr, &st);
  return c;
}

// A probe's start: with --source it prints `text` and is done (`exit` 0); else it opens the GPU
// and builds `text` there (`exit` 1 where either fails, -1 when the probe goes on).
struct ProbeStart {
  NvidiaCl cl;
  cl_program src = nullptr;
  int exit = -1;
};
inline cl_program build_source(cl_context ctx, cl_device_id dev, const char* text);
inline ProbeStart start_probe(int argc, char** argv, const std::string& text) {
  ProbeStart p;
  if (argc > 1 && std::string(argv[1]) == "--source") {
    std::fputs(text.c_str(), stdout);
    p.exit = 0;
    return p;
  }
  p.cl = open_nvidia();
  if (p.cl.dev) p.src = build_source(p.cl.ctx, p.cl.dev, text.c_str());
  if (!p.src) p.exit = 1;
  return p;
}

inline std::string build_log(cl_program p, cl_device_id d) {
  std::size_t n = 0;
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  return log;
}

// `text` built on `dev` (its status and log printed); null where it does not build.
inline cl_program build_source(cl_context ctx, cl_device_id dev, const char* text) {
  cl_int st = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(ctx, 1, &text, nullptr, &st);
  st = clBuildProgram(p, 1, &dev, "", nullptr, nullptr);
  std::printf("source build: %d\n%s\n", st, build_log(p, dev).c_str());
  if (st == CL_SUCCESS) return p;
  clReleaseProgram(p);
  return nullptr;
}

// The program's binary: PTX on NVIDIA's OpenCL (one device a program).
inline std::string program_ptx(cl_program p) {
  std::size_t size = 0;
  clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
  std::string ptx(size, '\0');
  unsigned char* ptr = reinterpret_cast<unsigned char*>(ptx.data());
  clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

// `ptx` with its "// @sm90a " marks removed, at .target sm_90a when `sm90a` (else as it is),
// loaded with clCreateProgramWithBinary and built with `options`; each step's status printed.
// Null where a step fails.
inline cl_program build_ptx(cl_context ctx, cl_device_id dev, std::string ptx, bool sm90a, const char* options = "") {
  int marks = 0;
  for (std::size_t at; (at = ptx.find("// @sm90a ")) != std::string::npos; ++marks) ptx.erase(at, 10);
  const std::size_t target = ptx.find(".target sm_90");
  std::printf("PTX %zu bytes, %d marks, .target at %zu\n", ptx.size(), marks, target);
  if (target == std::string::npos) return nullptr;
  if (sm90a) ptx.replace(target, 13, ".target sm_90a");
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(ptx.c_str());
  std::size_t length = ptx.size() + 1;
  cl_int bin = CL_SUCCESS, st = CL_SUCCESS;
  cl_program p = clCreateProgramWithBinary(ctx, 1, &dev, &length, &bytes, &bin, &st);
  std::printf("clCreateProgramWithBinary: %d (binary status %d)\n", st, bin);
  if (st != CL_SUCCESS) return nullptr;
  st = clBuildProgram(p, 1, &dev, options, nullptr, nullptr);
  std::printf("binary build at %s: %d\n%s\n", sm90a ? "sm_90a" : "sm_90", st, build_log(p, dev).c_str());
  if (st == CL_SUCCESS) return p;
  clReleaseProgram(p);
  return nullptr;
}
