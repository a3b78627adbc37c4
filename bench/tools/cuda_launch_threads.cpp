// Build on the GPU machine: g++ -O2 -std=c++17 -I/usr/local/cuda/include bench/tools/cuda_launch_threads.cpp \
//   -L/usr/local/cuda/lib64 -L/usr/local/cuda/lib64/stubs -lcuda -lnvrtc -pthread -o cuda_launch_threads
// Raw driver-API launch throughput from 1, 2, 4, 8 host threads, each with its own stream, one
// context (the primary one): the ceiling for porta's small-op thread scaling.
#include <cuda.h>
#include <nvrtc.h>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char* s; cuGetErrorString(r_, &s); std::printf("%s: %s\n", #x, s); std::exit(1); } } while (0)
int main() {
  CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
  const char* src = "extern \"C\" __global__ void add(const float* x, const float* y, float* z, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) z[i] = x[i] + y[i]; }";
  nvrtcProgram p; nvrtcCreateProgram(&p, src, "add.cu", 0, nullptr, nullptr);
  const char* opts[] = {"--gpu-architecture=sm_90"}; nvrtcCompileProgram(p, 1, opts);
  size_t sz; nvrtcGetCUBINSize(p, &sz); std::vector<char> cubin(sz); nvrtcGetCUBIN(p, cubin.data());
  CUmodule m; CK(cuModuleLoadData(&m, cubin.data())); CUfunction f; CK(cuModuleGetFunction(&f, m, "add"));
  const int n = 1024; const int ops = 20000;
  for (int threads : {1, 2, 4, 8}) {
    std::vector<std::thread> ts; std::vector<double> secs(threads);
    auto t0 = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t) ts.emplace_back([&, t] {
      CK(cuCtxSetCurrent(ctx)); CUstream s; CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
      CUdeviceptr x, y, z; CK(cuMemAlloc(&x, n * 4)); CK(cuMemAlloc(&y, n * 4)); CK(cuMemAlloc(&z, n * 4));
      int nn = n; void* args[] = {&x, &y, &z, &nn};
      for (int i = 0; i < ops; ++i) CK(cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, s, args, nullptr));
      CK(cuStreamSynchronize(s));
      CK(cuMemFree(x)); CK(cuMemFree(y)); CK(cuMemFree(z)); CK(cuStreamDestroy(s));
    });
    for (auto& t : ts) t.join();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("raw cuLaunchKernel, %d threads: %.1f kops/s\n", threads, threads * ops / s / 1e3);
  }
}
