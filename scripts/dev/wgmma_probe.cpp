// Whether NVIDIA's OpenCL runs Hopper's warpgroup MMA when the PTX comes in as a program binary.
//
// NVIDIA's OpenCL C compiler targets `.target sm_90`, where ptxas refuses wgmma.* (cl_probe probes).
// This builds an OpenCL C kernel whose sm_90a-only instructions are comments with a marker
// ("// @sm90a "), takes the program's PTX (CL_PROGRAM_BINARIES), removes the markers and sets
// `.target sm_90a`, and loads that through clCreateProgramWithBinary. It then runs one warpgroup's
// wgmma.mma_async m64n8k16 (float16 in, float32 out) on tiles laid out in shared memory three ways
// (128-byte swizzle over K = 64; no swizzle with each assignment of the two descriptor strides) and
// compares every accumulator with a host product.
//
// Build: g++ -O1 -std=c++17 wgmma_probe.cpp -lOpenCL
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

const char* kSource = R"(
#define A90(text) "// @sm90a " text "\n"
__kernel void probe(__global float* out, __global const uchar* aimg, __global const uchar* bimg,
                    __global const ulong* desc, int steps, int a_step, int b_step) {
  __local uchar sm[8192 + 1024] __attribute__((aligned(1024)));
  const int t = get_local_id(0);
  for (int i = t; i < 8192; i += 128) sm[i] = aimg[i];
  for (int i = t; i < 1024; i += 128) sm[8192 + i] = bimg[i];
  asm volatile(A90("fence.proxy.async.shared::cta;") ::: "memory");
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint base = (uint)(size_t)sm;
  ulong da = desc[0] + ((base >> 4) & 0x3FFF);
  ulong db = desc[1] + (((base + 8192) >> 4) & 0x3FFF);
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm volatile(A90("wgmma.fence.sync.aligned;") ::: "memory");
  for (int s = 0; s < steps; ++s) {
    asm volatile(A90("{") A90(".reg .pred p;") A90("setp.ne.b32 p, %6, 0;")
                 A90("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;")
                 A90("}")
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(da), "l"(db), "r"(1) : "memory");
    da += a_step;
    db += b_step;
  }
  asm volatile(A90("wgmma.commit_group.sync.aligned;") ::: "memory");
  asm volatile(A90("wgmma.wait_group.sync.aligned 0;") ::: "memory");
  out[4 * t + 0] = d0;
  out[4 * t + 1] = d1;
  out[4 * t + 2] = d2;
  out[4 * t + 3] = d3;
}
)";

// m64n128k16 with B MN-major (imm-trans-b 1): 64 accumulators a work-item.
std::string n128_source() {
  std::string regs, ops;
  for (int i = 0; i < 64; ++i) {
    regs += (i ? ", %" : "%") + std::to_string(i);
    ops += std::string(i ? ", " : "") + "\"+f\"(d[" + std::to_string(i) + "])";
  }
  return std::string(R"(
#define A90(text) "// @sm90a " text "\n"
__kernel void probe128(__global float* out, __global const uchar* aimg, __global const uchar* bimg,
                       __global const ulong* desc, int steps, int a_step, int b_step) {
  __local uchar sm[8192 + 16384] __attribute__((aligned(1024)));
  const int t = get_local_id(0);
  for (int i = t; i < 8192; i += 128) sm[i] = aimg[i];
  for (int i = t; i < 16384; i += 128) sm[8192 + i] = bimg[i];
  asm volatile(A90("fence.proxy.async.shared::cta;") ::: "memory");
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint base = (uint)(size_t)sm;
  ulong da = desc[0] + ((base >> 4) & 0x3FFF);
  ulong db = desc[1] + (((base + 8192) >> 4) & 0x3FFF);
  float d[64];
  for (int i = 0; i < 64; ++i) d[i] = 0;
  asm volatile(A90("wgmma.fence.sync.aligned;") ::: "memory");
  for (int s = 0; s < steps; ++s) {
    asm volatile(A90("{") A90(".reg .pred p;") A90("setp.ne.b32 p, %66, 0;")
                 A90("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {)") + regs + R"(}, %64, %65, p, 1, 1, 0, 1;")
                 A90("}")
                 : )" + ops + R"( : "l"(da), "l"(db), "r"(1) : "memory");
    da += a_step;
    db += b_step;
  }
  asm volatile(A90("wgmma.commit_group.sync.aligned;") ::: "memory");
  asm volatile(A90("wgmma.wait_group.sync.aligned 0;") ::: "memory");
  for (int i = 0; i < 64; ++i) out[64 * t + i] = d[i];
}
)";
}

cl_device_id nvidia_gpu() {
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

std::string build_log(cl_program p, cl_device_id d) {
  std::size_t n = 0;
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  return log;
}

std::uint16_t half_bits(int v) {  // small integers only: exact in float16
  if (v == 0) return 0;
  const std::uint16_t sign = v < 0 ? 0x8000 : 0;
  int a = std::abs(v), e = 0;
  while ((1 << (e + 1)) <= a) ++e;
  const int mant = ((a << 10) >> e) & 0x3FF;
  return static_cast<std::uint16_t>(sign | ((e + 15) << 10) | mant);
}

void put(std::vector<std::uint8_t>& img, std::size_t byte, int v) {
  const std::uint16_t h = half_bits(v);
  img[byte] = h & 0xFF;
  img[byte + 1] = h >> 8;
}

}  // namespace

int main() {
  cl_device_id dev = nvidia_gpu();
  if (!dev) {
    std::printf("no NVIDIA OpenCL GPU\n");
    return 1;
  }
  cl_int st = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &st);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, nullptr, &st);
  const std::string all = std::string(kSource) + n128_source();
  const char* text = all.c_str();
  cl_program src = clCreateProgramWithSource(ctx, 1, &text, nullptr, &st);
  st = clBuildProgram(src, 1, &dev, "", nullptr, nullptr);
  std::printf("source build: %d\n%s\n", st, build_log(src, dev).c_str());
  if (st != CL_SUCCESS) return 1;
  std::size_t size = 0;
  clGetProgramInfo(src, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
  std::string ptx(size, '\0');
  unsigned char* ptr = reinterpret_cast<unsigned char*>(ptx.data());
  clGetProgramInfo(src, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  int markers = 0;
  for (std::size_t at; (at = ptx.find("// @sm90a ")) != std::string::npos; ++markers) ptx.erase(at, 10);
  const std::size_t target = ptx.find(".target sm_90");
  std::printf("PTX %zu bytes, %d markers, .target at %zu\n", ptx.size(), markers, target);
  if (target == std::string::npos) return 1;
  ptx.replace(target, 13, ".target sm_90a");

  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(ptx.c_str());
  std::size_t length = ptx.size() + 1;
  cl_int bin_status = CL_SUCCESS;
  cl_program prog = clCreateProgramWithBinary(ctx, 1, &dev, &length, &bytes, &bin_status, &st);
  std::printf("clCreateProgramWithBinary: %d (binary status %d)\n", st, bin_status);
  if (st != CL_SUCCESS) return 1;
  st = clBuildProgram(prog, 1, &dev, "-cl-nv-verbose", nullptr, nullptr);
  std::printf("binary build: %d\n%s\n", st, build_log(prog, dev).c_str());
  if (st != CL_SUCCESS) return 1;
  cl_kernel k = clCreateKernel(prog, "probe", &st);
  std::printf("clCreateKernel: %d\n", st);
  if (st != CL_SUCCESS) return 1;

  std::mt19937 rng(7);
  std::uniform_int_distribution<int> dist(-3, 3);
  int A[64][64], B[8][64];  // A is M x K, B is N x K (K-major both)
  for (auto& r : A)
    for (int& v : r) v = dist(rng);
  for (auto& r : B)
    for (int& v : r) v = dist(rng);

  struct Config {
    const char* what;
    bool swizzle;
    std::uint64_t lbo, sbo;  // bytes
    int steps;
  } configs[] = {{"swizzle 128B, K=64, SBO=1024", true, 16, 1024, 4},
                 {"no swizzle, K=16, LBO=128 (K) SBO=256 (M/N)", false, 128, 256, 1},
                 {"no swizzle, K=16, LBO=256 SBO=128", false, 256, 128, 1}};
  bool any = false;
  for (const Config& c : configs) {
    std::vector<std::uint8_t> aimg(8192, 0), bimg(1024, 0);
    const int K = c.swizzle ? 64 : 16;
    for (int m = 0; m < 64; ++m)
      for (int kk = 0; kk < K; ++kk) {
        const std::size_t byte = c.swizzle ? m * 128 + ((kk / 8) ^ (m % 8)) * 16 + (kk % 8) * 2
                                           : ((m / 8) * 2 + kk / 8) * 128 + (m % 8) * 16 + (kk % 8) * 2;
        put(aimg, byte, A[m][kk]);
      }
    for (int n = 0; n < 8; ++n)
      for (int kk = 0; kk < K; ++kk) {
        const std::size_t byte = c.swizzle ? n * 128 + ((kk / 8) ^ (n % 8)) * 16 + (kk % 8) * 2
                                           : (kk / 8) * 128 + (n % 8) * 16 + (kk % 8) * 2;
        put(bimg, byte, B[n][kk]);
      }
    const std::uint64_t mode = c.swizzle ? 1ull << 62 : 0;
    const std::uint64_t d = ((c.lbo >> 4) << 16) | ((c.sbo >> 4) << 32) | mode;
    std::uint64_t desc[2] = {d, d};
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 512 * 4, nullptr, &st);
    cl_mem ab = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, aimg.size(), aimg.data(), &st);
    cl_mem bb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bimg.size(), bimg.data(), &st);
    cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof desc, desc, &st);
    const int steps = c.steps, step = 2;  // 32 bytes of K a step, in the descriptor's 16-byte units
    clSetKernelArg(k, 0, sizeof out, &out);
    clSetKernelArg(k, 1, sizeof ab, &ab);
    clSetKernelArg(k, 2, sizeof bb, &bb);
    clSetKernelArg(k, 3, sizeof db, &db);
    clSetKernelArg(k, 4, sizeof steps, &steps);
    clSetKernelArg(k, 5, sizeof step, &step);
    clSetKernelArg(k, 6, sizeof step, &step);
    const std::size_t global = 128, local = 128;
    st = clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
    std::vector<float> got(512);
    cl_int rst = clEnqueueReadBuffer(q, out, CL_TRUE, 0, 512 * 4, got.data(), 0, nullptr, nullptr);
    int bad = 0;
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < 4; ++i) {
        const int w = t / 32, l = t % 32;
        const int row = 16 * w + l / 4 + 8 * (i / 2), col = 2 * (l % 4) + (i % 2);
        double ref = 0;
        for (int kk = 0; kk < K; ++kk) ref += A[row][kk] * B[col][kk];
        if (std::fabs(ref - got[4 * t + i]) > 1e-3) {
          if (bad < 4) std::printf("   t=%d i=%d (row %d col %d): got %g want %g\n", t, i, row, col, got[4 * t + i], ref);
          ++bad;
        }
      }
    std::printf("%s: enqueue %d read %d, %d of 512 accumulators wrong\n", c.what, st, rst, bad);
    any = any || bad == 0;
    clReleaseMemObject(out);
    clReleaseMemObject(ab);
    clReleaseMemObject(bb);
    clReleaseMemObject(db);
  }
  cl_kernel k2 = clCreateKernel(prog, "probe128", &st);
  std::printf("clCreateKernel probe128: %d\n", st);
  int A2[64][64], B2[64][128];  // A M x K (K-major), B K x N (N contiguous: MN-major)
  for (auto& r : A2)
    for (int& v : r) v = dist(rng);
  for (auto& r : B2)
    for (int& v : r) v = dist(rng);
  struct Config2 {
    const char* what;
    int bk;                    // K of the tile: 32 (A 64-byte swizzle) or 64 (A 128-byte swizzle)
    std::uint64_t lbo, sbo;    // B's descriptor strides, bytes
  } configs2[] = {{"BK 32: A K-major 64B swizzle; B MN-major 128B, LBO=4096 (N atoms) SBO=1024 (8 k)", 32, 4096, 1024},
                  {"BK 32: same, B LBO=1024 SBO=4096", 32, 1024, 4096},
                  {"BK 64: A K-major 128B swizzle; B MN-major 128B, LBO=8192 SBO=1024", 64, 8192, 1024},
                  {"BK 64: same, B LBO=1024 SBO=8192", 64, 1024, 8192}};
  bool any2 = false;
  for (const Config2& c : configs2) {
    std::vector<std::uint8_t> aimg(8192, 0), bimg(16384, 0);
    const int rb = c.bk * 2;  // A's row bytes
    for (int m = 0; m < 64; ++m)
      for (int kk = 0; kk < c.bk; ++kk) {
        const int chunk = kk / 8, f = rb == 128 ? m % 8 : (m / 2) % 4;
        put(aimg, m * rb + ((chunk ^ f) * 16) + (kk % 8) * 2, A2[m][kk]);
      }
    for (int kk = 0; kk < c.bk; ++kk)
      for (int n = 0; n < 128; ++n) {
        const int atom = n / 64, chunk = (n % 64) / 8;
        put(bimg, atom * (c.bk * 128) + kk * 128 + ((chunk ^ (kk % 8)) * 16) + (n % 8) * 2, B2[kk][n]);
      }
    const std::uint64_t amode = rb == 128 ? 1ull << 62 : 2ull << 62;
    std::uint64_t desc[2] = {(1ull << 16) | ((std::uint64_t(rb * 8) >> 4) << 32) | amode,
                             ((c.lbo >> 4) << 16) | ((c.sbo >> 4) << 32) | (1ull << 62)};
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 128 * 64 * 4, nullptr, &st);
    cl_mem ab = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, aimg.size(), aimg.data(), &st);
    cl_mem bb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bimg.size(), bimg.data(), &st);
    cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof desc, desc, &st);
    const int steps = c.bk / 16, astep = 2, bstep = 16 * 128 / 16;
    clSetKernelArg(k2, 0, sizeof out, &out);
    clSetKernelArg(k2, 1, sizeof ab, &ab);
    clSetKernelArg(k2, 2, sizeof bb, &bb);
    clSetKernelArg(k2, 3, sizeof db, &db);
    clSetKernelArg(k2, 4, sizeof steps, &steps);
    clSetKernelArg(k2, 5, sizeof astep, &astep);
    clSetKernelArg(k2, 6, sizeof bstep, &bstep);
    const std::size_t global = 128, local = 128;
    st = clEnqueueNDRangeKernel(q, k2, 1, nullptr, &global, &local, 0, nullptr, nullptr);
    std::vector<float> got(128 * 64);
    cl_int rst = clEnqueueReadBuffer(q, out, CL_TRUE, 0, got.size() * 4, got.data(), 0, nullptr, nullptr);
    int bad = 0;
    for (int t = 0; t < 128; ++t)
      for (int i = 0; i < 64; ++i) {
        const int w = t / 32, l = t % 32, j = i / 4, e = i % 4;
        const int row = 16 * w + l / 4 + 8 * (e / 2), col = 8 * j + 2 * (l % 4) + (e % 2);
        double ref = 0;
        for (int kk = 0; kk < c.bk; ++kk) ref += A2[row][kk] * B2[kk][col];
        if (std::fabs(ref - got[64 * t + i]) > 1e-3) {
          if (bad < 3) std::printf("   t=%d i=%d (row %d col %d): got %g want %g\n", t, i, row, col, got[64 * t + i], ref);
          ++bad;
        }
      }
    std::printf("%s: enqueue %d read %d, %d of 8192 accumulators wrong\n", c.what, st, rst, bad);
    any2 = any2 || bad == 0;
    clReleaseMemObject(out);
    clReleaseMemObject(ab);
    clReleaseMemObject(bb);
    clReleaseMemObject(db);
  }
  std::printf("RESULT: %s; m64n128k16 with B MN-major: %s\n", any ? "wgmma runs from OpenCL" : "no configuration matched",
              any2 ? "a layout matched" : "no layout matched");
  return any ? 0 : 1;
}
