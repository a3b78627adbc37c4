// The first GPU of NVIDIA's OpenCL platform, for the probes of scripts/dev (cl_probe.cpp,
// wgmma_probe.cpp); null when there is none.
#pragma once
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

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
