// The CUDA driver for tests that do their own CUDA work beside porta's (interop_test): opened at
// run time, as porta's plugin is, so that the test program starts on machines without it, and
// kernels compiled with NVRTC for the device's architecture.
#pragma once

#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>

#include <string>
#include <vector>

namespace porta_test {

struct CudaDriver {
  bool loaded = false;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
  CUresult (*cuStreamCreate)(CUstream*, unsigned) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuStreamQuery)(CUstream) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule*, const void*) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                             void**, void**) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;

  static const CudaDriver& get() {
    static const CudaDriver d = [] {
      CudaDriver c;
      void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (!lib) return c;
      auto sym = [&](auto& f, const char* name) {
        f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, name));
        return f != nullptr;
      };
      // The ABI names behind cuda.h's macros (cuMemAlloc is cuMemAlloc_v2, ...).
      c.loaded = sym(c.cuCtxSetCurrent, "cuCtxSetCurrent") && sym(c.cuDeviceGetAttribute, "cuDeviceGetAttribute") &&
                 sym(c.cuStreamCreate, "cuStreamCreate") && sym(c.cuStreamDestroy, "cuStreamDestroy_v2") &&
                 sym(c.cuStreamSynchronize, "cuStreamSynchronize") && sym(c.cuStreamQuery, "cuStreamQuery") &&
                 sym(c.cuModuleLoadData, "cuModuleLoadData") && sym(c.cuModuleGetFunction, "cuModuleGetFunction") &&
                 sym(c.cuModuleUnload, "cuModuleUnload") && sym(c.cuLaunchKernel, "cuLaunchKernel") &&
                 sym(c.cuMemAlloc, "cuMemAlloc_v2") && sym(c.cuMemFree, "cuMemFree_v2") &&
                 sym(c.cuMemcpyHtoD, "cuMemcpyHtoD_v2") && sym(c.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
      return c;  // the library stays open for the process
    }();
    return d;
  }
};

// PTX of `source` for compute capability major.minor, or the NVRTC log as the error.
inline std::string nvrtc_ptx(const char* source, int major, int minor, std::string* error) {
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, source, "interop_test.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    *error = "nvrtcCreateProgram failed";
    return {};
  }
  std::string arch = "--gpu-architecture=compute_" + std::to_string(major * 10 + minor);
  const char* options[] = {arch.c_str()};
  nvrtcResult r = nvrtcCompileProgram(prog, 1, options);
  std::string ptx;
  if (r == NVRTC_SUCCESS) {
    size_t n = 0;
    nvrtcGetPTXSize(prog, &n);
    ptx.resize(n);
    nvrtcGetPTX(prog, ptx.data());
  } else {
    size_t n = 0;
    nvrtcGetProgramLogSize(prog, &n);
    std::string log(n, '\0');
    nvrtcGetProgramLog(prog, log.data());
    *error = "NVRTC: " + log;
  }
  nvrtcDestroyProgram(&prog);
  return ptx;
}

}  // namespace porta_test
