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
// Build: g++ -O1 -std=c++17 wgmma_probe.cpp -lOpenCL; `wgmma_probe --source` prints the kernels.
#include "nvidia_cl.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

// One warpgroup's m64nNk16 steps (float16 in, float32 out) on A and B images copied into local
// memory at 0 and 8192, descriptors from `desc` plus the local base, N / 2 accumulators a
// work-item; imm-trans-b `trans_b` (1: B MN-major).
std::string probe_source(const char* name, int n, int trans_b, int b_bytes) {
  std::string regs, ops;
  for (int i = 0; i < n / 2; ++i) {
    regs += (i ? ", %" : "%") + std::to_string(i);
    ops += std::string(i ? ", " : "") + "\"+f\"(d[" + std::to_string(i) + "])";
  }
  const std::string r = std::to_string(n / 2), sz = std::to_string(b_bytes);
  return std::string(R"(
__kernel void )") + name + R"((__global float* out, __global const uchar* aimg, __global const uchar* bimg,
                       __global const ulong* desc, int steps, int a_step, int b_step) {
  __local uchar sm[8192 + )" + sz + R"(] __attribute__((aligned(1024)));
  const int t = get_local_id(0);
  for (int i = t; i < 8192; i += 128) sm[i] = aimg[i];
  for (int i = t; i < )" + sz + R"(; i += 128) sm[8192 + i] = bimg[i];
  asm volatile(A90("fence.proxy.async.shared::cta;") ::: "memory");
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint base = (uint)(size_t)sm;
  ulong da = desc[0] + ((base >> 4) & 0x3FFF);
  ulong db = desc[1] + (((base + 8192) >> 4) & 0x3FFF);
  float d[)" + r + R"(];
  for (int i = 0; i < )" + r + R"(; ++i) d[i] = 0;
  asm volatile(A90("wgmma.fence.sync.aligned;") ::: "memory");
  for (int s = 0; s < steps; ++s) {
    asm volatile(A90("{") A90(".reg .pred p;") A90("setp.ne.b32 p, %)" + std::to_string(n / 2 + 2) + R"(, 0;")
                 A90("wgmma.mma_async.sync.aligned.m64n)" + std::to_string(n) + R"(k16.f32.f16.f16 {)" + regs + "}, %" + r +
         ", %" + std::to_string(n / 2 + 1) + ", p, 1, 1, 0, " + std::to_string(trans_b) + R"(;")
                 A90("}")
                 : )" + ops + R"( : "l"(da), "l"(db), "r"(1) : "memory");
    da += a_step;
    db += b_step;
  }
  asm volatile(A90("wgmma.commit_group.sync.aligned;") ::: "memory");
  asm volatile(A90("wgmma.wait_group.sync.aligned 0;") ::: "memory");
  for (int i = 0; i < )" + r + R"(; ++i) out[)" + r + R"( * t + i] = d[i];
}
)";
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

// Runs `k` (one warpgroup, N / 2 accumulators a work-item) on the images with descriptors `desc`
// and `steps` k16 steps of a_step / b_step (16-byte units); compares each accumulator with
// ref(row, col) and prints how many of them differ. True when none does.
template <class Ref>
bool run_and_check(cl_context ctx, cl_command_queue q, cl_kernel k, int n, const std::vector<std::uint8_t>& aimg,
                   const std::vector<std::uint8_t>& bimg, const std::uint64_t (&desc)[2], int steps, int a_step, int b_step,
                   const char* what, Ref ref) {
  cl_int st = CL_SUCCESS;
  const int regs = n / 2;
  const std::size_t count = 128 * static_cast<std::size_t>(regs);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, count * 4, nullptr, &st);
  cl_mem ab = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, aimg.size(), const_cast<std::uint8_t*>(aimg.data()), &st);
  cl_mem bb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bimg.size(), const_cast<std::uint8_t*>(bimg.data()), &st);
  cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof desc, const_cast<std::uint64_t*>(desc), &st);
  clSetKernelArg(k, 0, sizeof out, &out);
  clSetKernelArg(k, 1, sizeof ab, &ab);
  clSetKernelArg(k, 2, sizeof bb, &bb);
  clSetKernelArg(k, 3, sizeof db, &db);
  clSetKernelArg(k, 4, sizeof steps, &steps);
  clSetKernelArg(k, 5, sizeof a_step, &a_step);
  clSetKernelArg(k, 6, sizeof b_step, &b_step);
  const std::size_t global = 128, local = 128;
  st = clEnqueueNDRangeKernel(q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
  std::vector<float> got(count);
  cl_int rst = clEnqueueReadBuffer(q, out, CL_TRUE, 0, count * 4, got.data(), 0, nullptr, nullptr);
  int bad = 0;
  // Element 4 j + e of work-item 32 w + l: row 16 w + l / 4 + 8 (e / 2), column 8 j + 2 (l % 4) + e % 2.
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < regs; ++i) {
      const int w = t / 32, l = t % 32, j = i / 4, e = i % 4;
      const int row = 16 * w + l / 4 + 8 * (e / 2), col = 8 * j + 2 * (l % 4) + (e % 2);
      const double want = ref(row, col), have = got[static_cast<std::size_t>(regs * t + i)];
      if (std::fabs(want - have) > 1e-3) {
        if (bad < 3) std::printf("   t=%d i=%d (row %d col %d): got %g want %g\n", t, i, row, col, have, want);
        ++bad;
      }
    }
  std::printf("%s: enqueue %d read %d, %d of %zu accumulators wrong\n", what, st, rst, bad, count);
  for (cl_mem m : {out, ab, bb, db}) clReleaseMemObject(m);
  return bad == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string all = std::string("#define A90(text) \"// @sm90a \" text \"\\n\"\n") +
                          probe_source("probe", 8, 0, 1024) + probe_source("probe128", 128, 1, 16384);
  const ProbeStart start = start_probe(argc, argv, all);
  if (start.exit >= 0) return start.exit;
  const NvidiaCl& cl = start.cl;
  cl_program src = start.src;
  cl_int st = CL_SUCCESS;
  cl_program prog = build_ptx(cl.ctx, cl.dev, program_ptx(src), true, "-cl-nv-verbose");
  if (!prog) return 1;
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
    const std::uint64_t desc[2] = {d, d};
    // 32 bytes of K a step, in the descriptor's 16-byte units.
    any = run_and_check(cl.ctx, cl.q, k, 8, aimg, bimg, desc, c.steps, 2, 2, c.what, [&](int row, int col) {
            double r = 0;
            for (int kk = 0; kk < K; ++kk) r += A[row][kk] * B[col][kk];
            return r;
          }) || any;
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
    const std::uint64_t desc[2] = {(1ull << 16) | ((std::uint64_t(rb * 8) >> 4) << 32) | amode,
                                   ((c.lbo >> 4) << 16) | ((c.sbo >> 4) << 32) | (1ull << 62)};
    // A: 32 bytes of K a step; B: 16 rows of 128 bytes.
    any2 = run_and_check(cl.ctx, cl.q, k2, 128, aimg, bimg, desc, c.bk / 16, 2, 16 * 128 / 16, c.what, [&](int row, int col) {
             double r = 0;
             for (int kk = 0; kk < c.bk; ++kk) r += A2[row][kk] * B2[kk][col];
             return r;
           }) || any2;
  }
  std::printf("RESULT: %s; m64n128k16 with B MN-major: %s\n", any ? "wgmma runs from OpenCL" : "no configuration matched",
              any2 ? "a layout matched" : "no layout matched");
  return any ? 0 : 1;
}
