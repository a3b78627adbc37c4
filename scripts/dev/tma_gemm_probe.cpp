// How fast a float16 GEMM fed by Hopper's tensor memory accelerator (TMA) runs through NVIDIA's
// OpenCL in its 48 KiB of local memory (issue 20): the question before porta's warpgroup GEMM
// (gemm_wg.cl, cp.async and a barrier a slice) takes TMA.
//
// The kernel is warp-specialized as cuBLAS's: one producer warp whose first lane issues the TMA
// loads of each slice (A's BM x BK box, K-major, and B's 64-column atoms, MN-major: A row-major,
// B row-major, as porta-bench multiplies) into STAGES stages, each with a "full" mbarrier (the
// loads' bytes) and an "empty" one (one arrival per consumer warp); WGS consumer warpgroups that
// wait on a stage's full barrier, issue its wgmma.mma_async steps, keep them in flight while
// the next slice is waited for (wgmma.wait_group 1) and release the stage before. No work-group
// barrier after the mbarriers' initialisation. The layouts and descriptors are gemm_wg.cl's
// (the 32-, 64- or 128-byte swizzle for K-major A, 64-column atoms with the 128-byte swizzle for
// MN-major B), which TMA's swizzle modes produce. Tensor maps from the CUDA driver
// (cuTensorMapEncodeTiled) on the cl_mem's device address, as tma_probe.cpp showed works.
//
// With ":c" the producer warp loads by cp.async instead (every lane 16-byte pieces, then
// cp.async.mbarrier.arrive.noinc on the full barrier): no tensor map, so no CUDA driver in the
// OpenCL plugin, if it is as fast.
//
// For each configuration BMxBNxBK:gWGS:sSTAGES[:c][:rREGS] and size n: ptxas's registers and
// warnings, TFLOP/s by OpenCL events (the median of 12 rounds, each 5 back-to-back launches after
// one more, as event_timing.hpp), and the result checked against a double-precision host product at
// 4096 sampled elements (inputs multiples of 1/8 in [-1, 1], so the float32 sums are exact and
// only the float16 store rounds).
//
// H200, 2026-12-04 21:41 (driver 580): every configuration correct; TFLOP/s at 4096 / 8192:
// 128x128x16:g1:s5 325.8 / 311.2, :c 292.3 / 313.6; 128x128x16:g2:s5 336.1 / 309.5, :c 228.3 /
// 247.5; 128x256x16:g2:s3 317.2 / 328.2, :c 225.8 / 241.4; 128x128x32:g1:s2 316.1 / 331.3. porta's
// wg128x128x32:g1:s3 (cp.async, a barrier a slice) ran 433.4 / 483.9 in that day's search: the
// loads' issuer is not what holds the GEMM back in 48 KiB (bench/results/2026-12-04-h200-gemm-scan.json).
//
// Build (build machine: -L/usr/local/cuda/lib64/stubs; links libporta for ptx_edit's helpers):
//   g++ -O2 -std=c++20 -Iinclude -Ibackends -I/usr/local/cuda/include scripts/dev/tma_gemm_probe.cpp
//     backends/opencl/gemm/ptx_edit.cpp -o /tmp/tma_gemm_probe -Lbuild/lib -lporta -L/usr/local/cuda/lib64
//     -lcuda -lOpenCL -Wl,-rpath,$PWD/build/lib
// Run:   /tmp/tma_gemm_probe 4096,8192 128x128x16:g1:s5 128x256x16:g2:s3
//        /tmp/tma_gemm_probe --source 128x128x16:g1:s5     (the kernel's text with its options)
#include <cuda.h>

#include "nvidia_cl.hpp"
#include "opencl/gemm/ptx_edit.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

const char* kSource = R"(#define A90(text) "// @sm90a " text "\n"
#define STR2(x) #x
#define STR(x) STR2(x)
#define KB (BK * 2)                 /* bytes of a K-major row of A's slice */
#define A_BYTES (BM * KB)
#define MN_ATOM (BK * 128)          /* 64 columns of B by BK rows */
#define STAGE_BYTES (A_BYTES + BN * KB)
#define MT (BM / (64 * WGS))        /* 64-row MMA tiles a consumer warpgroup */
#define THREADS (128 * WGS + 32)
#define K_MODE (KB == 128 ? 1ul : KB == 64 ? 2ul : 3ul)
#define K_SWZ(r) (KB == 128 ? (r) % 8 : KB == 64 ? ((r) / 2) % 4 : ((r) / 4) % 2)
#define K_DESC(at) ((ulong)(((at) >> 4) & 0x3fff) | (1ul << 16) | ((ulong)(8 * KB / 16) << 32) | (K_MODE << 62))
#define MN_DESC(at) ((ulong)(((at) >> 4) & 0x3fff) | ((ulong)(MN_ATOM / 16) << 16) | (64ul << 32) | (1ul << 62))

/* Waits for the phase of `parity` of the mbarrier at `bar`; false after about 2^22 tries (a
   hang becomes a wrong result and `err` set, not a stuck GPU). */
inline bool bar_wait(uint bar, uint parity) {
  uint done = 0;
  for (int spin = 0; spin < (1 << 22); ++spin) {
    asm volatile(A90("{") A90(".reg .pred p;") A90("mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;")
                 A90("selp.u32 %0, 1, 0, p;") A90("}") : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    if (done) return true;
  }
  return false;
}
/* After a timeout, waits no more (the producer stops; a consumer goes on, as an early exit of some
   of a warpgroup made ptxas serialize the MMAs, C7518). */
#define WAIT_OR_QUIT(bar, parity) do { if (!quit && !bar_wait((bar), (parity))) { err[0] = 1; quit = 1; } } while (0)

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void tma_gemm(__global const ulong* amap, __global const ulong* bmap, __global half* C, const int N, const int K,
              __global volatile int* err, __global const ushort* A, __global const ushort* B) {
  __local uchar sm[STAGES * STAGE_BYTES] __attribute__((aligned(1024)));
  __local ulong bars[2 * STAGES] __attribute__((aligned(8)));
  const int tid = get_local_id(0), warp = tid / 32, lane = tid % 32;
  const int bn0 = get_group_id(0) * BN, bm0 = get_group_id(1) * BM;
  const uint sbase = (uint)(size_t)sm, full0 = (uint)(size_t)bars, empty0 = full0 + 8 * STAGES;
  if (tid == 0) {
    for (int s = 0; s < STAGES; ++s) {
      asm volatile(A90("mbarrier.init.shared::cta.b64 [%0], %1;") :: "r"(full0 + 8 * s), "r"(CP_PRODUCER ? 32 : 1) : "memory");
      asm volatile(A90("mbarrier.init.shared::cta.b64 [%0], %1;") :: "r"(empty0 + 8 * s), "r"(4 * WGS) : "memory");
    }
    asm volatile(A90("fence.mbarrier_init.release.cluster;") ::: "memory");
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int slices = K / BK;
  int quit = 0;
  if (warp == 4 * WGS) {  /* the producer */
#if CP_PRODUCER
    /* Every lane copies 16-byte pieces by cp.async into gemm_wg.cl's layouts (K-major A: row r at
       r KB bytes, chunk c at c ^ K_SWZ(r); MN-major B: atoms of 64 columns, chunk c of k row r at
       (c % 8) ^ (r % 8)), then has the stage's full barrier take its arrival when they land. */
    for (int kt = 0; kt < slices; ++kt) {
      const int s = kt % STAGES, k0 = kt * BK;
      const uint full = full0 + 8 * s, at = sbase + s * STAGE_BYTES;
      if (kt >= STAGES) WAIT_OR_QUIT(empty0 + 8 * s, ((kt / STAGES) - 1) & 1);
      if (quit) break;
#pragma unroll
      for (int i = 0; i < BM * KB / 16 / 32; ++i) {
        const int p = lane + 32 * i, r = p / (KB / 16), c = p % (KB / 16);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(at + r * KB + ((c ^ K_SWZ(r)) * 16)),
                     "l"((ulong)(size_t)(A + (long)(bm0 + r) * K + k0 + c * 8)) : "memory");
      }
#pragma unroll
      for (int i = 0; i < BK * BN / 8 / 32; ++i) {
        const int p = lane + 32 * i, r = p / (BN / 8), c = p % (BN / 8);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(at + A_BYTES + (c / 8) * MN_ATOM + r * 128 + (((c % 8) ^ (r % 8)) * 16)),
                     "l"((ulong)(size_t)(B + (long)(k0 + r) * N + bn0 + c * 8)) : "memory");
      }
      asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(full) : "memory");
    }
#else
    if (lane == 0) {
      for (int kt = 0; kt < slices; ++kt) {
        const int s = kt % STAGES;
        const uint full = full0 + 8 * s, at = sbase + s * STAGE_BYTES;
        if (kt >= STAGES) WAIT_OR_QUIT(empty0 + 8 * s, ((kt / STAGES) - 1) & 1);
        if (quit) break;
        asm volatile(A90("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;") :: "r"(full), "r"(STAGE_BYTES) : "memory");
        asm volatile(A90("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];")
                     :: "r"(at), "l"((ulong)amap), "r"(kt * BK), "r"(bm0), "r"(full) : "memory");
        for (int a = 0; a < BN / 64; ++a)
          asm volatile(A90("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];")
                       :: "r"(at + A_BYTES + a * MN_ATOM), "l"((ulong)bmap), "r"(bn0 + 64 * a), "r"(kt * BK), "r"(full) : "memory");
      }
    }
#endif
    return;
  }
  const int wg = warp / 4;
  float acc[MT][BN / 2]; /* no zeros written: the first step's MMAs have scale-d 0 */
  for (int kt = 0; kt < slices; ++kt) {
    const int s = kt % STAGES;
    const uint at = sbase + s * STAGE_BYTES;
    WAIT_OR_QUIT(full0 + 8 * s, (kt / STAGES) & 1);
    asm volatile(A90("wgmma.fence.sync.aligned;") ::: "memory");
#pragma unroll
    for (int kk = 0; kk < KB / 32; ++kk)
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
        WGMMA(acc[mt], K_DESC(at + (wg * MT + mt) * 64 * KB + kk * 32), MN_DESC(at + A_BYTES + kk * 2048), kt > 0 || kk > 0);
    asm volatile(A90("wgmma.commit_group.sync.aligned;") ::: "memory");
    asm volatile(A90("wgmma.wait_group.sync.aligned 1;") ::: "memory");
    if (kt > 0 && lane == 0)
      asm volatile(A90("mbarrier.arrive.shared::cta.b64 _, [%0];") :: "r"(empty0 + 8 * ((kt - 1) % STAGES)) : "memory");
  }
  asm volatile(A90("wgmma.wait_group.sync.aligned 0;") ::: "memory");
  const int g = lane / 4, t = lane % 4, w4 = warp % 4;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = bm0 + (wg * MT + mt) * 64 + 16 * w4 + g + 8 * h, col = bn0 + 8 * j + 2 * t;
        vstore_half2_rte((float2)(acc[mt][4 * j + 2 * h], acc[mt][4 * j + 2 * h + 1]), 0, C + (long)row * N + col);
      }
}
)";

struct Config {
  int bm = 0, bn = 0, bk = 0, wgs = 0, stages = 0, regs = 0;
  bool cp = false;  // ":c": the producer warp loads by cp.async (no tensor map) instead of TMA
  std::string text;
};

bool parse(const std::string& s, Config& c) {
  c.text = s;
  int used = 0;
  if (std::sscanf(s.c_str(), "%dx%dx%d:g%d:s%d%n", &c.bm, &c.bn, &c.bk, &c.wgs, &c.stages, &used) != 5) return false;
  if (s.compare(used, 2, ":c") == 0) {
    c.cp = true;
    used += 2;
  }
  if (used < static_cast<int>(s.size()) && std::sscanf(s.c_str() + used, ":r%d", &c.regs) != 1) return false;
  const int kb = c.bk * 2;
  return (kb == 32 || kb == 64 || kb == 128) && c.bn % 64 == 0 && c.bn <= 256 && c.bm % (64 * c.wgs) == 0 && c.bm <= 256 &&
         c.stages >= 1 && c.stages * (c.bm + c.bn) * kb + 16 * c.stages <= 49152;
}

// The generated WGMMA(ACC, DA, DB): one m64nBNk16 step, D += A B, A K-major, B MN-major (imm-trans-b 1).
std::string wgmma_macro(int bn) {
  const int regs = bn / 2;
  std::string list, operands;
  for (int i = 0; i < regs; ++i) {
    list += std::string(i ? ", %" : "%") + std::to_string(i);
    operands += std::string(i ? ", " : "") + "\"+f\"(ACC[" + std::to_string(i) + "])";
  }
  // scale-d is a predicate from SCALE: 0 for D = A B (the first step, so that no instruction but
  // the MMAs writes the accumulators: ptxas serializes the MMAs otherwise, C7515), else D += A B.
  return "#define WGMMA(ACC, DA, DB, SCALE) asm volatile(A90(\"{\") A90(\".reg .pred p;\") A90(\"setp.ne.b32 p, %" +
         std::to_string(regs + 2) + ", 0;\") "
         "A90(\"wgmma.mma_async.sync.aligned.m64n" + std::to_string(bn) + "k16.f32.f16.f16 {" + list + "}, %" +
         std::to_string(regs) + ", %" + std::to_string(regs + 1) + ", p, 1, 1, 0, 1;\") A90(\"}\") : " + operands +
         " : \"l\"(DA), \"l\"(DB), \"r\"(SCALE) : \"memory\")\n";
}

std::string source(const Config& c) {
  return "#define BM " + std::to_string(c.bm) + "\n#define BN " + std::to_string(c.bn) + "\n#define BK " + std::to_string(c.bk) +
         "\n#define WGS " + std::to_string(c.wgs) + "\n#define STAGES " + std::to_string(c.stages) + "\n#define CP_PRODUCER " +
         (c.cp ? "1" : "0") + "\n" +
         wgmma_macro(c.bn) + kSource;
}

std::uint16_t to_half(float f) {  // exact for the inputs here: 0 or k / 8, 1 <= |k| <= 8
  if (f == 0) return 0;
  std::uint32_t b = 0;
  std::memcpy(&b, &f, 4);
  const std::uint32_t sign = (b >> 16) & 0x8000u, exp = ((b >> 23) & 0xff) - 127 + 15, mant = (b >> 13) & 0x3ff;
  return static_cast<std::uint16_t>(sign | (exp << 10) | mant);
}
float from_half(std::uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const float v = e == 0 ? std::ldexp(static_cast<float>(m), -24) : std::ldexp(1.0f + m / 1024.0f, e - 15);
  return (h & 0x8000) ? -v : v;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::uint64_t device_address(const NvidiaCl& cl, cl_program src, cl_mem m) {
  cl_int st = CL_SUCCESS;
  cl_kernel k = clCreateKernel(src, "address_of", &st);
  cl_mem out = clCreateBuffer(cl.ctx, CL_MEM_WRITE_ONLY, 8, nullptr, &st);
  clSetKernelArg(k, 0, sizeof m, &m);
  clSetKernelArg(k, 1, sizeof out, &out);
  const std::size_t one = 1;
  clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &one, &one, 0, nullptr, nullptr);
  std::uint64_t a = 0;
  clEnqueueReadBuffer(cl.q, out, CL_TRUE, 0, 8, &a, 0, nullptr, nullptr);
  clReleaseMemObject(out);
  clReleaseKernel(k);
  return a;
}

// A 2-D tensor map of a row-major float16 matrix (rows x cols) at `address`: boxes of box_cols x
// box_rows, swizzled over box_cols * 2 bytes (32, 64 or 128).
bool encode(CUtensorMap& map, std::uint64_t address, int rows, int cols, int box_cols, int box_rows) {
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * 2};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)}, estrides[2] = {1, 1};
  const int bytes = box_cols * 2;
  const CUtensorMapSwizzle sw = bytes == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_32B;
  const CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, reinterpret_cast<void*>(address), dims, strides,
                                            box, estrides, CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) std::printf("  cuTensorMapEncodeTiled (%d x %d, box %d x %d): %d\n", rows, cols, box_rows, box_cols, static_cast<int>(r));
  return r == CUDA_SUCCESS;
}

// The kernel of `c` built as the plugin builds gemm_wg.cl: OpenCL C -> PTX, marks removed,
// .target sm_90a, the final waits hoisted, .maxnreg when asked; ptxas's log printed.
cl_program build(const NvidiaCl& cl, const Config& c) {
  const std::string text = source(c);
  const char* p = text.c_str();
  cl_int st = CL_SUCCESS;
  cl_program src = clCreateProgramWithSource(cl.ctx, 1, &p, nullptr, &st);
  st = clBuildProgram(src, 1, &cl.dev, "", nullptr, nullptr);
  if (st != CL_SUCCESS) {
    std::printf("  source build %d\n%s\n", st, build_log(src, cl.dev).c_str());
    return nullptr;
  }
  std::string ptx = program_ptx(src);
  clReleaseProgram(src);
  // As the plugin's edit_ptx: the marks removed and the target raised first, then the waits
  // hoisted (the hoist sees no wgmma instruction while the marks still make them comments: the
  // run of 2026-12-04 about 21:30 hoisted none, and ptxas serialized every MMA, C7514).
  for (std::size_t at; (at = ptx.find("// @sm90a ")) != std::string::npos;) ptx.erase(at, 10);
  const std::size_t target = ptx.find(".target sm_90");
  if (target == std::string::npos) return nullptr;
  ptx.insert(target + 13, 1, 'a');
  const int hoisted = porta::opencl::hoist_wgmma_waits(ptx);
  if (c.regs > 0) {
    const std::size_t entry = ptx.find(".entry "), close = ptx.find(')', entry);
    if (entry != std::string::npos && close != std::string::npos) ptx.insert(close + 1, "\n.maxnreg " + std::to_string(c.regs));
  }
  std::printf("  waits hoisted: %d\n", hoisted);
  if (const char* dir = std::getenv("TMA_PROBE_PTX")) {  // the edited PTX, for ptxas by hand
    const std::string path = std::string(dir) + "/" + c.text.substr(0, c.text.find(':')) + (c.cp ? "_c" : "") + ".ptx";
    if (FILE* f = std::fopen(path.c_str(), "w")) {
      std::fputs(ptx.c_str(), f);
      std::fclose(f);
    }
  }
  return build_ptx(cl.ctx, cl.dev, ptx, false, "-cl-nv-verbose");  // already at sm_90a
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "--source") {
    Config c;
    if (!parse(argv[2], c)) return 2;
    std::fputs(source(c).c_str(), stdout);
    return 0;
  }
  if (argc < 3) {
    std::printf("usage: tma_gemm_probe SIZES CONFIG... (SIZES: 4096,8192; CONFIG: BMxBNxBK:gWGS:sSTAGES[:c][:rREGS])\n");
    return 2;
  }
  std::vector<int> sizes;
  for (const char* s = argv[1]; *s;) {
    sizes.push_back(std::atoi(s));
    const char* comma = std::strchr(s, ',');
    s = comma ? comma + 1 : s + std::strlen(s);
  }
  NvidiaCl cl = open_nvidia();
  if (!cl.dev) return 1;
  cl_command_queue q = clCreateCommandQueueWithProperties(cl.ctx, cl.dev, std::array<cl_queue_properties, 3>{CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0}.data(), nullptr);
  const char* addr_src = "__kernel void address_of(__global const uchar* p, __global ulong* out) { out[0] = (ulong)p; }";
  cl_program addr_prog = build_source(cl.ctx, cl.dev, addr_src);
  CUdevice cu_device = 0;
  CUcontext primary = nullptr;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&cu_device, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&primary, cu_device) != CUDA_SUCCESS) {
    std::printf("no CUDA driver context (cuTensorMapEncodeTiled needs one)\n");
    return 1;
  }
  cuCtxSetCurrent(primary);
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> eighths(-8, 8);
  for (int n : sizes) {
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    std::vector<std::uint16_t> a(nn), b(nn), c(nn);
    for (auto& v : a) v = to_half(eighths(rng) / 8.0f);
    for (auto& v : b) v = to_half(eighths(rng) / 8.0f);
    cl_int st = CL_SUCCESS;
    cl_mem am = clCreateBuffer(cl.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nn * 2, a.data(), &st);
    cl_mem bm = clCreateBuffer(cl.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nn * 2, b.data(), &st);
    cl_mem cm = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE, nn * 2, nullptr, &st);
    const int zero = 0;
    cl_mem em = clCreateBuffer(cl.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, const_cast<int*>(&zero), &st);
    const std::uint64_t a_addr = device_address(cl, addr_prog, am), b_addr = device_address(cl, addr_prog, bm);
    for (int i = 2; i < argc; ++i) {
      Config cfg;
      if (!parse(argv[i], cfg) || n % cfg.bm || n % cfg.bn || n % cfg.bk) {
        std::printf("%s: not a configuration for n = %d\n", argv[i], n);
        continue;
      }
      std::printf("== %s n=%d\n", cfg.text.c_str(), n);
      CUtensorMap maps[2];
      if (!encode(maps[0], a_addr, n, n, cfg.bk, cfg.bm) || !encode(maps[1], b_addr, n, n, 64, cfg.bk)) continue;
      cl_mem amap = clCreateBuffer(cl.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof maps[0], &maps[0], &st);
      cl_mem bmap = clCreateBuffer(cl.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof maps[1], &maps[1], &st);
      cl_program p = build(cl, cfg);
      if (!p) continue;
      cl_kernel k = clCreateKernel(p, "tma_gemm", &st);
      clSetKernelArg(k, 0, sizeof amap, &amap);
      clSetKernelArg(k, 1, sizeof bmap, &bmap);
      clSetKernelArg(k, 2, sizeof cm, &cm);
      clSetKernelArg(k, 3, sizeof n, &n);
      clSetKernelArg(k, 4, sizeof n, &n);
      clSetKernelArg(k, 5, sizeof em, &em);
      clSetKernelArg(k, 6, sizeof am, &am);
      clSetKernelArg(k, 7, sizeof bm, &bm);
      const std::size_t local = 128 * cfg.wgs + 32;
      const std::size_t global[2] = {static_cast<std::size_t>(n / cfg.bn) * local, static_cast<std::size_t>(n / cfg.bm)};
      const std::size_t local2[2] = {local, 1};
      auto launch = [&](cl_event* e) { return clEnqueueNDRangeKernel(q, k, 2, nullptr, global, local2, 0, nullptr, e); };
      cl_int run = launch(nullptr);
      cl_int fin = clFinish(q);
      int timed_out = 0;
      clEnqueueReadBuffer(q, em, CL_TRUE, 0, sizeof timed_out, &timed_out, 0, nullptr, nullptr);
      std::printf("  launch %d, finish %d%s\n", run, fin, timed_out ? ", an mbarrier wait timed out" : "");
      if (run != CL_SUCCESS || fin != CL_SUCCESS || timed_out) {
        clEnqueueWriteBuffer(q, em, CL_TRUE, 0, sizeof zero, &zero, 0, nullptr, nullptr);
        continue;
      }
      // The check: 4096 sampled elements against the double-precision product.
      clEnqueueReadBuffer(q, cm, CL_TRUE, 0, nn * 2, c.data(), 0, nullptr, nullptr);
      int bad = 0;
      std::uniform_int_distribution<int> at(0, n - 1);
      for (int s = 0; s < 4096; ++s) {
        const int r = at(rng), col = at(rng);
        double want = 0;
        for (int kk = 0; kk < n; ++kk)
          want += static_cast<double>(from_half(a[static_cast<std::size_t>(r) * n + kk])) * from_half(b[static_cast<std::size_t>(kk) * n + col]);
        const double got = from_half(c[static_cast<std::size_t>(r) * n + col]);
        if (std::fabs(got - want) > std::fabs(want) / 1024 + 1e-3) {
          if (bad < 3) std::printf("  C[%d][%d] = %g, want %g\n", r, col, got, want);
          ++bad;
        }
      }
      std::vector<double> ms;
      for (int round = 0; round < 12; ++round) {
        launch(nullptr);
        cl_event e0 = nullptr, e1 = nullptr;
        launch(&e0);
        for (int j = 0; j < 3; ++j) launch(nullptr);
        launch(&e1);
        clWaitForEvents(1, &e1);
        cl_ulong t0 = 0, t1 = 0;
        clGetEventProfilingInfo(e0, CL_PROFILING_COMMAND_START, sizeof t0, &t0, nullptr);
        clGetEventProfilingInfo(e1, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr);
        ms.push_back((t1 - t0) / 5e6);
        clReleaseEvent(e0);
        clReleaseEvent(e1);
      }
      const double t = median(ms);
      std::printf("RESULT %s n=%d: %.1f TFLOP/s (%.3f ms), %d of 4096 sampled elements wrong\n", cfg.text.c_str(), n,
                  2.0 * n * n * static_cast<double>(n) / t / 1e9, t, bad);
      std::fflush(stdout);
      clReleaseKernel(k);
      clReleaseProgram(p);
      clReleaseMemObject(amap);
      clReleaseMemObject(bmap);
    }
    clReleaseMemObject(am);
    clReleaseMemObject(bm);
    clReleaseMemObject(cm);
    clReleaseMemObject(em);
  }
  return 0;
}
