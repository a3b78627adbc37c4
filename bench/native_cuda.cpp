// A bare CUDA driver-API launch loop, without porta (see native.hpp). libcuda.so.1 is opened at
// run time so that the benchmark programs start on machines without an NVIDIA driver; NVRTC
// compiles the reference kernel for the device's own architecture.
#include "native.hpp"

#include <cuda.h>
#include <dlfcn.h>
#include <nvrtc.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference_kernels.hpp"

namespace porta_bench::native {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void check_nvrtc(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) throw std::runtime_error(std::string("native CUDA: ") + what + ": " + nvrtcGetErrorString(r));
}

}  // namespace

struct CudaLaunchLoop::Impl {
  void* lib = nullptr;
  decltype(&::cuInit) init = nullptr;
  decltype(&::cuGetErrorString) error_string = nullptr;
  decltype(&::cuDeviceGetCount) device_count = nullptr;
  decltype(&::cuDeviceGet) device_get = nullptr;
  decltype(&::cuDeviceGetPCIBusId) pci_bus_id = nullptr;
  decltype(&::cuDeviceGetAttribute) attribute = nullptr;
  decltype(&::cuDevicePrimaryCtxRetain) ctx_retain = nullptr;
  decltype(&::cuDevicePrimaryCtxRelease) ctx_release = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuModuleLoadData) module_load = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) get_function = nullptr;
  decltype(&::cuMemAlloc) mem_alloc = nullptr;
  decltype(&::cuMemFree) mem_free = nullptr;
  decltype(&::cuMemsetD32) memset_d32 = nullptr;
  decltype(&::cuStreamCreate) stream_create = nullptr;
  decltype(&::cuStreamDestroy) stream_destroy = nullptr;
  decltype(&::cuStreamSynchronize) stream_sync = nullptr;
  decltype(&::cuLaunchKernel) launch = nullptr;

  CUdevice device = 0;
  CUcontext ctx = nullptr;
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr buffers[3] = {0, 0, 0};
  unsigned long long n4 = 256;  // 1024 floats
  void* args[4] = {&buffers[0], &buffers[1], &buffers[2], &n4};

  template <class F>
  void sym(F& f, const char* name) {
    f = reinterpret_cast<F>(dlsym(lib, name));
    if (!f) throw std::runtime_error(std::string("native CUDA: libcuda.so.1 has no ") + name);
  }
  void check(CUresult r, const char* what) const {
    if (r == CUDA_SUCCESS) return;
    const char* text = nullptr;
    if (error_string) error_string(r, &text);
    throw std::runtime_error(std::string("native CUDA: ") + what + ": " + (text ? text : std::to_string(r)));
  }

  Impl(const std::string& pci, int ordinal) {
    lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) throw std::runtime_error(std::string("native CUDA: ") + dlerror());
    sym(init, "cuInit");
    sym(error_string, "cuGetErrorString");
    sym(device_count, "cuDeviceGetCount");
    sym(device_get, "cuDeviceGet");
    sym(pci_bus_id, "cuDeviceGetPCIBusId");
    sym(attribute, "cuDeviceGetAttribute");
    sym(ctx_retain, "cuDevicePrimaryCtxRetain");
    sym(ctx_release, "cuDevicePrimaryCtxRelease_v2");
    sym(ctx_set_current, "cuCtxSetCurrent");
    sym(module_load, "cuModuleLoadData");
    sym(module_unload, "cuModuleUnload");
    sym(get_function, "cuModuleGetFunction");
    sym(mem_alloc, "cuMemAlloc_v2");
    sym(mem_free, "cuMemFree_v2");
    sym(memset_d32, "cuMemsetD32_v2");
    sym(stream_create, "cuStreamCreate");
    sym(stream_destroy, "cuStreamDestroy_v2");
    sym(stream_sync, "cuStreamSynchronize");
    sym(launch, "cuLaunchKernel");
    check(init(0), "cuInit");
    int count = 0;
    check(device_count(&count), "cuDeviceGetCount");
    bool found = false;
    for (int i = 0; i < count && !pci.empty() && !found; ++i) {
      CUdevice d = 0;
      char id[32] = {};
      check(device_get(&d, i), "cuDeviceGet");
      check(pci_bus_id(id, sizeof id, d), "cuDeviceGetPCIBusId");
      if (lower(id) == lower(pci)) device = d, found = true;
    }
    if (!found) {
      if (ordinal >= count) throw std::runtime_error("native CUDA: no device " + std::to_string(ordinal));
      check(device_get(&device, ordinal), "cuDeviceGet");
    }
    check(ctx_retain(&ctx, device), "cuDevicePrimaryCtxRetain");
    check(ctx_set_current(ctx), "cuCtxSetCurrent");

    int major = 0, minor = 0;
    check(attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), "cuDeviceGetAttribute");
    check(attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), "cuDeviceGetAttribute");
    nvrtcProgram prog = nullptr;
    check_nvrtc(nvrtcCreateProgram(&prog, reference::kCudaVector, "reference.cu", 0, nullptr, nullptr), "nvrtcCreateProgram");
    std::string arch = "--gpu-architecture=sm_" + std::to_string(major) + std::to_string(minor);
    const char* options[] = {arch.c_str()};
    nvrtcResult compiled = nvrtcCompileProgram(prog, 1, options);
    std::vector<char> cubin;
    if (compiled == NVRTC_SUCCESS) {
      std::size_t size = 0;
      check_nvrtc(nvrtcGetCUBINSize(prog, &size), "nvrtcGetCUBINSize");
      cubin.resize(size);
      check_nvrtc(nvrtcGetCUBIN(prog, cubin.data()), "nvrtcGetCUBIN");
    } else {
      std::size_t size = 0;
      nvrtcGetProgramLogSize(prog, &size);
      std::string log(size, '\0');
      nvrtcGetProgramLog(prog, log.data());
      nvrtcDestroyProgram(&prog);
      throw std::runtime_error("native CUDA: NVRTC failed: " + log);
    }
    nvrtcDestroyProgram(&prog);
    check(module_load(&module, cubin.data()), "cuModuleLoadData");
    check(get_function(&function, module, "ref_add4"), "cuModuleGetFunction");
    check(stream_create(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    for (auto& b : buffers) {
      check(mem_alloc(&b, 1024 * sizeof(float)), "cuMemAlloc");
      check(memset_d32(b, 0x3fc00000u, 1024), "cuMemsetD32");  // 1.5f, not zeros
    }
  }

  ~Impl() {
    if (!lib) return;
    if (ctx) ctx_set_current(ctx);
    if (stream) stream_sync(stream), stream_destroy(stream);
    for (auto b : buffers)
      if (b) mem_free(b);
    if (module) module_unload(module);
    if (ctx) ctx_release(device);
    // libcuda stays loaded: unloading the driver under a live process gains nothing.
  }

  void go(int launches) {
    for (int i = 0; i < launches; ++i) check(launch(function, 1, 1, 1, 256, 1, 1, 0, stream, args, nullptr), "cuLaunchKernel");
    check(stream_sync(stream), "cuStreamSynchronize");
  }
};

CudaLaunchLoop::CudaLaunchLoop(const std::string& pci_bus_id, int ordinal) {
  auto impl = std::make_unique<Impl>(pci_bus_id, ordinal);
  impl_ = std::move(impl);
}

CudaLaunchLoop::~CudaLaunchLoop() = default;

double CudaLaunchLoop::seconds(int launches) {
  impl_->check(impl_->ctx_set_current(impl_->ctx), "cuCtxSetCurrent");
  auto t0 = std::chrono::steady_clock::now();
  impl_->go(launches);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace porta_bench::native
