// What a replayed CUDA graph of 10 small adds costs per add, by kernel shape (issue 21).
//
// porta's replay of 10 adds of 1024 float32 cost 1.20-1.35 us an add on the H200 where PyTorch's
// cost 1.05; under Nsight Compute the two kernels took the same time. This captures the same 10
// adds (out = x + y, into one output, on a non-blocking stream) with kernels of several shapes and
// replays each graph back to back, reporting host and device (event) microseconds per add: the
// shape porta generates (one block of 256, a float4 a thread in a grid-stride loop, then a tail
// loop), PyTorch's (one block of 128, two float4 a thread, no loop), and others between, each on
// memory from cuMemAlloc and from the device's memory pool (porta's cached allocator). The last
// two rows are one kernel that waits for its predecessor (griddepcontrol), launched without and with
// programmatic dependent launch, which lets a node start while the one before it drains.
//
// Build: g++ -O2 -std=c++17 graph_probe.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64
//          -lcuda -lnvrtc -o graph_probe
// Run:   graph_probe [replays]
#include <cuda.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void check(CUresult r, const char* what) {
  if (r == CUDA_SUCCESS) return;
  const char* s = nullptr;
  cuGetErrorString(r, &s);
  std::fprintf(stderr, "%s: %s\n", what, s ? s : "?");
  std::exit(1);
}

const char* kSource = R"(
struct __align__(16) f4 { float v[4]; };
// porta's shape: a grid-stride loop over float4, then a tail loop (codegen/elementwise.cpp).
extern "C" __global__ void porta_like(const float* in0, const int off0, const float* in1, const int off1, float* out,
                                      const int off_out, const int n) {
  const int gid = blockIdx.x * blockDim.x + threadIdx.x, gsz = gridDim.x * blockDim.x;
  const int nv = n / 4;
  for (int t = gid; t < nv; t += gsz) {
    const int e = t * 4;
    const f4 a = *(const f4*)(in0 + off0 + e), b = *(const f4*)(in1 + off1 + e);
    f4 y;
    for (int l = 0; l < 4; ++l) y.v[l] = a.v[l] + b.v[l];
    *(f4*)(out + off_out + e) = y;
  }
  for (int e = nv * 4 + gid; e < n; e += gsz) out[off_out + e] = in0[off0 + e] + in1[off1 + e];
}
// One float4 a thread, no loop: the block covers the array.
extern "C" __global__ void v4_once(const float* in0, const float* in1, float* out, const int n) {
  const int e = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (e + 4 <= n) {
    const f4 a = *(const f4*)(in0 + e), b = *(const f4*)(in1 + e);
    f4 y;
    for (int l = 0; l < 4; ++l) y.v[l] = a.v[l] + b.v[l];
    *(f4*)(out + e) = y;
  }
}
// PyTorch's shape: 128 threads, every thread's loads issued before its adds.
extern "C" __global__ void v4x2(const float* in0, const float* in1, float* out, const int n) {
  const int e = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  const int s = gridDim.x * blockDim.x * 4;
  f4 a0, b0, a1, b1;
  const bool h0 = e + 4 <= n, h1 = e + s + 4 <= n;
  if (h0) { a0 = *(const f4*)(in0 + e); b0 = *(const f4*)(in1 + e); }
  if (h1) { a1 = *(const f4*)(in0 + e + s); b1 = *(const f4*)(in1 + e + s); }
  f4 y0, y1;
  for (int l = 0; l < 4; ++l) { y0.v[l] = a0.v[l] + b0.v[l]; y1.v[l] = a1.v[l] + b1.v[l]; }
  if (h0) *(f4*)(out + e) = y0;
  if (h1) *(f4*)(out + e + s) = y1;
}
// v4_once for programmatic dependent launch: it waits for the kernel before it (griddepcontrol.wait,
// a no-op without that launch attribute) before it reads, and lets the next one launch once every
// block of it has read (launch_dependents); the next one waits in turn before it reads.
extern "C" __global__ void v4_pdl(const float* in0, const float* in1, float* out, const int n) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  const int e = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (e + 4 <= n) {
    const f4 a = *(const f4*)(in0 + e), b = *(const f4*)(in1 + e);
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    f4 y;
    for (int l = 0; l < 4; ++l) y.v[l] = a.v[l] + b.v[l];
    *(f4*)(out + e) = y;
  }
}
// One float a thread.
extern "C" __global__ void scalar(const float* in0, const float* in1, float* out, const int n) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) out[e] = in0[e] + in1[e];
}
)";

struct Variant {
  const char* name;
  const char* kernel;
  unsigned grid, block;
  bool pdl = false;  // launched with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
};

}  // namespace

int main(int argc, char** argv) {
  const int replays = argc > 1 ? std::atoi(argv[1]) : 4000;
  constexpr int n = 1024, adds = 10;
  check(cuInit(0), "cuInit");
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  int major = 0, minor = 0;
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);

  nvrtcProgram prog;
  nvrtcCreateProgram(&prog, kSource, "probe.cu", 0, nullptr, nullptr);
  std::string arch = "--gpu-architecture=sm_" + std::to_string(major * 10 + minor);
  const char* opts[] = {arch.c_str(), "-std=c++17"};
  if (nvrtcCompileProgram(prog, 2, opts) != NVRTC_SUCCESS) {
    size_t len = 0;
    nvrtcGetProgramLogSize(prog, &len);
    std::string log(len, '\0');
    nvrtcGetProgramLog(prog, log.data());
    std::fprintf(stderr, "NVRTC: %s\n", log.c_str());
    return 1;
  }
  size_t size = 0;
  nvrtcGetCUBINSize(prog, &size);
  std::string cubin(size, '\0');
  nvrtcGetCUBIN(prog, cubin.data());
  CUmodule mod;
  check(cuModuleLoadData(&mod, cubin.data()), "cuModuleLoadData");

  CUstream stream;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  CUmemoryPool pool;
  check(cuDeviceGetDefaultMemPool(&pool, dev), "cuDeviceGetDefaultMemPool");

  const Variant variants[] = {
      {"porta: 1x256, float4 grid-stride loop + tail", "porta_like", 1, 256},
      {"1x256, one float4 a thread", "v4_once", 1, 256},
      {"1x128, two float4 a thread (PyTorch's)", "v4x2", 1, 128},
      {"2x128, one float4 a thread", "v4_once", 2, 128},
      {"4x256, one float a thread", "scalar", 4, 256},
      {"1x1024, one float a thread", "scalar", 1, 1024},
      {"1x256, one float4, without the PDL attribute", "v4_pdl", 1, 256},
      {"1x256, one float4, programmatic dependent launch", "v4_pdl", 1, 256, true},
  };
  std::printf("%-48s %-10s %10s %10s\n", "kernel", "memory", "host us", "device us");
  for (int pooled = 0; pooled < 2; ++pooled) {
    CUdeviceptr x, y, out;
    for (CUdeviceptr* p : {&x, &y, &out}) {
      if (pooled) check(cuMemAllocFromPoolAsync(p, n * 4, pool, stream), "cuMemAllocFromPoolAsync");
      else check(cuMemAlloc(p, n * 4), "cuMemAlloc");
    }
    check(cuMemsetD32Async(x, 0x3f800000u, n, stream), "memset");
    check(cuMemsetD32Async(y, 0x40000000u, n, stream), "memset");
    check(cuStreamSynchronize(stream), "sync");
    for (const Variant& v : variants) {
      CUfunction f;
      check(cuModuleGetFunction(&f, mod, v.kernel), "cuModuleGetFunction");
      int zero = 0, count = n;
      std::vector<void*> params;
      if (std::string(v.kernel) == "porta_like") params = {&x, &zero, &y, &zero, &out, &zero, &count};
      else params = {&x, &y, &out, &count};
      check(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED), "cuStreamBeginCapture");
      for (int i = 0; i < adds; ++i) {
        if (!v.pdl) {
          check(cuLaunchKernel(f, v.grid, 1, 1, v.block, 1, 1, 0, stream, params.data(), nullptr), "cuLaunchKernel");
          continue;
        }
        CUlaunchAttribute attr{};
        attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attr.value.programmaticStreamSerializationAllowed = 1;
        CUlaunchConfig config{};
        config.gridDimX = v.grid;
        config.gridDimY = config.gridDimZ = 1;
        config.blockDimX = v.block;
        config.blockDimY = config.blockDimZ = 1;
        config.hStream = stream;
        config.attrs = &attr;
        config.numAttrs = 1;
        check(cuLaunchKernelEx(&config, f, params.data(), nullptr), "cuLaunchKernelEx");
      }
      CUgraph graph;
      check(cuStreamEndCapture(stream, &graph), "cuStreamEndCapture");
      CUgraphExec exec;
      check(cuGraphInstantiate(&exec, graph, 0), "cuGraphInstantiate");
      std::vector<double> host, device;
      CUevent e0, e1;
      cuEventCreate(&e0, CU_EVENT_DEFAULT);
      cuEventCreate(&e1, CU_EVENT_DEFAULT);
      for (int rep = 0; rep < 6; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
        check(cuEventRecord(e0, stream), "cuEventRecord");
        for (int r = 0; r < replays; ++r) check(cuGraphLaunch(exec, stream), "cuGraphLaunch");
        check(cuEventRecord(e1, stream), "cuEventRecord");
        check(cuStreamSynchronize(stream), "sync");
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        float ms = 0;
        cuEventElapsedTime(&ms, e0, e1);
        if (rep == 0) continue;  // warm-up
        host.push_back(s * 1e6 / (replays * adds));
        device.push_back(ms * 1e3 / (replays * adds));
      }
      std::sort(host.begin(), host.end());
      std::sort(device.begin(), device.end());
      std::vector<float> h(n);
      check(cuMemcpyDtoH(h.data(), out, n * 4), "cuMemcpyDtoH");
      const bool ok = std::all_of(h.begin(), h.end(), [](float a) { return a == 3.0f; });
      std::printf("%-48s %-10s %10.3f %10.3f%s\n", v.name, pooled ? "pool" : "cuMemAlloc", host[host.size() / 2],
                  device[device.size() / 2], ok ? "" : "  WRONG RESULT");
      cuMemsetD32Async(out, 0, n, stream);
      cuGraphExecDestroy(exec);
      cuGraphDestroy(graph);
      cuEventDestroy(e0);
      cuEventDestroy(e1);
    }
    for (CUdeviceptr p : {x, y, out}) {
      if (pooled) cuMemFreeAsync(p, stream);
      else cuMemFree(p);
    }
    cuStreamSynchronize(stream);
  }
  return 0;
}
