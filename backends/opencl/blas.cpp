// Matrix products on OpenCL devices, by one of three paths (PORTA_OPENCL_GEMM, read at each call):
//  host    - the host's BLAS on mapped buffers: CPU devices, where the memory is the host's;
//  tiled   - porta's own GEMM kernel: local-memory tiles and a register micro-tile per work-item;
//  clblast - CLBlast's Gemm / GemmStridedBatched, when porta was built with CLBlast.
// auto picks host on CPU devices with host memory and tiled elsewhere (CLBlast reached 0.66x
// cuBLAS on the H200 and was 16-25x slower than OpenBLAS on PoCL: GPU.md). float16 and bfloat16
// always take the tiled kernel, which loads them as float32 and accumulates in float32: neither
// the host BLAS nor CLBlast (without cl_khr_fp16) multiplies them.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <vector>

#include "env.hpp"
#include "log.hpp"
#include "opencl/opencl.hpp"

#ifdef PORTA_HAVE_HOST_BLAS
#include "host/blas.hpp"
#endif
#ifdef PORTA_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace porta::opencl {
namespace {

enum class GemmPath { automatic, tiled, clblast, host };

GemmPath gemm_path() {
  auto v = detail::env("PORTA_OPENCL_GEMM");
  if (!v) return GemmPath::automatic;
  std::string s = detail::lower(detail::trim(*v));
  if (s == "auto") return GemmPath::automatic;
  if (s == "tiled") return GemmPath::tiled;
  if (s == "clblast") return GemmPath::clblast;
  if (s == "host") return GemmPath::host;
  throw InvalidArgument(detail::cat("PORTA_OPENCL_GEMM=", *v, " is not a matmul path; use one of auto, tiled, clblast, host"));
}

// One shape of the tiled kernel: a work-group of (tile_n / per_item_n) x (tile_m / per_item_m)
// work-items computes a tile_m x tile_n block of C, each work-item per_item_m x per_item_n of it,
// stepping through k by tile_k with both operands' tiles in local memory.
struct GemmShape {
  int tile_m, tile_n, tile_k, per_item_m, per_item_n;
  int group_m() const { return tile_m / per_item_m; }
  int group_n() const { return tile_n / per_item_n; }
  int group() const { return group_m() * group_n(); }
};

// Tried in order until one fits the device and its compiled kernel's work-group limit. On PoCL
// (2 cores) 8x8 per work-item ran 1.5-2x faster than 4x4; the GPU order is the conventional
// 64x64 tile of 16x16 work-items, to be tuned on real GPUs (PORTA_OPENCL_GEMM_SHAPE).
constexpr GemmShape kGpuShapes[] = {
    {64, 64, 16, 4, 4},  // 16x16 work-items
    {32, 32, 16, 4, 4},  // 8x8
    {16, 16, 16, 2, 2},  // 8x8
};
constexpr GemmShape kCpuShapes[] = {
    {128, 128, 16, 8, 8},
    {64, 64, 16, 4, 4},
    {16, 16, 16, 2, 2},
};

// PORTA_OPENCL_GEMM_SHAPE=TMxTNxTK:WMxWN (e.g. 128x128x16:8x8) forces one tile shape, for tuning;
// it is read when a tiled kernel is first compiled for a device.
std::vector<GemmShape> gemm_shapes(DeviceKind kind) {
  if (auto v = detail::env("PORTA_OPENCL_GEMM_SHAPE")) {
    GemmShape s{};
    char tail = 0;
    if (std::sscanf(v->c_str(), "%dx%dx%d:%dx%d%c", &s.tile_m, &s.tile_n, &s.tile_k, &s.per_item_m, &s.per_item_n,
                    &tail) != 5 ||
        s.tile_m <= 0 || s.tile_n <= 0 || s.tile_k <= 0 || s.per_item_m <= 0 || s.per_item_n <= 0 ||
        s.tile_m % s.per_item_m || s.tile_n % s.per_item_n)
      throw InvalidArgument(detail::cat("PORTA_OPENCL_GEMM_SHAPE=", *v, " is not TMxTNxTK:WMxWN (such as 64x64x16:4x4) ",
                                        "with TM a multiple of WM and TN a multiple of WN"));
    return {s};
  }
  if (kind == DeviceKind::cpu) return {std::begin(kCpuShapes), std::end(kCpuShapes)};
  return {std::begin(kGpuShapes), std::end(kGpuShapes)};
}

// The tiled GEMM in OpenCL C. Row-major C[m x n] = op(A) * op(B) per batch (global dimension 2);
// every load is bounds-checked, so any m, n, k, leading dimension and offset works. Tiles are
// stored k-major with one element of padding, so that the loads of a tile write local memory
// without bank conflicts; work-item (lx, ly) owns the rows ly + i*GM and columns lx + j*GN of
// the block, so that reads of the B tile are consecutive across a row of work-items.
constexpr const char* kGemmSource = R"CLC(
#if ELEM == 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double elem;
#define LOAD(p, i) (p)[i]
#define STORE(p, i, v) ((p)[i] = (v))
#elif ELEM == 2 /* float16: storage only, through vload_half / vstore_half (no cl_khr_fp16) */
typedef float real;
typedef half elem;
#define LOAD(p, i) vload_half((i), (p))
#define STORE(p, i, v) vstore_half_rte((v), (i), (p))
#elif ELEM == 3 /* bfloat16: the upper half of a float32, rounded to nearest even */
typedef float real;
typedef ushort elem;
#define LOAD(p, i) as_float((uint)(p)[i] << 16)
inline ushort to_bfloat16(float f) {
  uint u = as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
#define STORE(p, i, v) ((p)[i] = to_bfloat16(v))
#else
typedef float real;
typedef float elem;
#define LOAD(p, i) (p)[i]
#define STORE(p, i, v) ((p)[i] = (v))
#endif
#define GM (TM / WM)
#define GN (TN / WN)
#define THREADS (GM * GN)

__kernel __attribute__((reqd_work_group_size(GN, GM, 1)))
void porta_gemm(const int m, const int n, const int k,
                __global const elem* restrict A, const long a_off, const long lda, const long stride_a,
                __global const elem* restrict B, const long b_off, const long ldb, const long stride_b,
                __global elem* restrict C, const long c_off, const long ldc, const long stride_c) {
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int col0 = get_group_id(0) * TN, row0 = get_group_id(1) * TM;
  const long z = get_global_id(2);
  A += a_off + z * stride_a;
  B += b_off + z * stride_b;
  C += c_off + z * stride_c;
  __local real As[TK][TM + 1];
  __local real Bs[TK][TN + 1];
  real acc[WM][WN];
  for (int i = 0; i < WM; ++i)
    for (int j = 0; j < WN; ++j) acc[i][j] = 0;
  const int tid = ly * GN + lx;

  for (int t = 0; t < k; t += TK) {
    for (int l = tid; l < TM * TK; l += THREADS) {
#if TRANS_A
      const int i = l % TM, p = l / TM;  /* A is k x m: consecutive work-items read along m */
      const int gi = row0 + i, gp = t + p;
      As[p][i] = (gi < m && gp < k) ? LOAD(A, (long)gp * lda + gi) : (real)0;
#else
      const int p = l % TK, i = l / TK;  /* A is m x k: consecutive work-items read along k */
      const int gi = row0 + i, gp = t + p;
      As[p][i] = (gi < m && gp < k) ? LOAD(A, (long)gi * lda + gp) : (real)0;
#endif
    }
    for (int l = tid; l < TN * TK; l += THREADS) {
#if TRANS_B
      const int p = l % TK, j = l / TK;  /* B is n x k */
      const int gj = col0 + j, gp = t + p;
      Bs[p][j] = (gj < n && gp < k) ? LOAD(B, (long)gj * ldb + gp) : (real)0;
#else
      const int j = l % TN, p = l / TN;  /* B is k x n */
      const int gj = col0 + j, gp = t + p;
      Bs[p][j] = (gj < n && gp < k) ? LOAD(B, (long)gp * ldb + gj) : (real)0;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int p = 0; p < TK; ++p) {
      real b[WN];
      for (int j = 0; j < WN; ++j) b[j] = Bs[p][lx + j * GN];
      for (int i = 0; i < WM; ++i) {
        const real a = As[p][ly + i * GM];
        for (int j = 0; j < WN; ++j) acc[i][j] += a * b[j];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  for (int i = 0; i < WM; ++i) {
    const int gi = row0 + ly + i * GM;
    if (gi >= m) break;
    for (int j = 0; j < WN; ++j) {
      const int gj = col0 + lx + j * GN;
      if (gj < n) STORE(C, (long)gi * ldc + gj, acc[i][j]);
    }
  }
}
)CLC";

void check_args(const MatmulArgs& g, const std::string& label) {
  if (g.batch < 0 || g.m < 0 || g.n < 0 || g.k < 0 || g.lda < 0 || g.ldb < 0 || g.ldc < 0 || g.a_offset < 0 ||
      g.b_offset < 0 || g.c_offset < 0 || g.stride_a < 0 || g.stride_b < 0 || g.stride_c < 0)
    throw InvalidArgument(detail::cat("matmul on ", label, ": negative size, stride or offset (batch ", g.batch, ", m ",
                                      g.m, ", n ", g.n, ", k ", g.k, ", lda ", g.lda, ", ldb ", g.ldb, ", ldc ", g.ldc, ")"));
  if (!is_floating(g.dtype))
    throw DTypeError(detail::cat("matmul of ", name(g.dtype), " is not supported on ", label,
                                 " (OpenCL matmul does float32, float64, float16 and bfloat16); convert with astype(float32)"));
}

// The element range [first, last) of one operand that a batched product touches.
struct Span {
  std::int64_t first = 0, last = 0;
};

Span span_of(std::int64_t offset, std::int64_t batch, std::int64_t stride, std::int64_t rows, std::int64_t cols,
             std::int64_t ld) {
  if (rows == 0 || cols == 0) return {offset, offset};
  return {offset, offset + (batch - 1) * stride + (rows - 1) * ld + cols};
}

#ifdef PORTA_HAVE_CLBLAST
// CLBlast before 1.6.1 races in its kernel and database caches when called from several threads
// (CLBlast issue #486, fixed by pull request #495); Debian ships 1.5.3. Its calls only enqueue
// work once the kernels are built, so holding a lock around them costs little.
constexpr bool kClblastThreadSafe =
    CLBLAST_VERSION_MAJOR * 10000 + CLBLAST_VERSION_MINOR * 100 + CLBLAST_VERSION_PATCH >= 10601;
std::mutex clblast_mutex;

std::unique_lock<std::mutex> clblast_lock() {
  return kClblastThreadSafe ? std::unique_lock<std::mutex>() : std::unique_lock<std::mutex>(clblast_mutex);
}

const char* clblast_status_name(clblast::StatusCode s) {
  using clblast::StatusCode;
  switch (s) {
    case StatusCode::kNotImplemented: return "kNotImplemented";
    case StatusCode::kInvalidMatrixA: return "kInvalidMatrixA";
    case StatusCode::kInvalidMatrixB: return "kInvalidMatrixB";
    case StatusCode::kInvalidMatrixC: return "kInvalidMatrixC";
    case StatusCode::kInvalidDimension: return "kInvalidDimension";
    case StatusCode::kInvalidLeadDimA: return "kInvalidLeadDimA";
    case StatusCode::kInvalidLeadDimB: return "kInvalidLeadDimB";
    case StatusCode::kInvalidLeadDimC: return "kInvalidLeadDimC";
    case StatusCode::kInsufficientMemoryA: return "kInsufficientMemoryA";
    case StatusCode::kInsufficientMemoryB: return "kInsufficientMemoryB";
    case StatusCode::kInsufficientMemoryC: return "kInsufficientMemoryC";
    case StatusCode::kInsufficientMemoryTemp: return "kInsufficientMemoryTemp";
    case StatusCode::kInvalidBatchCount: return "kInvalidBatchCount";
    case StatusCode::kInvalidLocalMemUsage: return "kInvalidLocalMemUsage";
    case StatusCode::kNoHalfPrecision: return "kNoHalfPrecision";
    case StatusCode::kNoDoublePrecision: return "kNoDoublePrecision";
    case StatusCode::kDatabaseError: return "kDatabaseError";
    case StatusCode::kUnknownError: return "kUnknownError";
    case StatusCode::kUnexpectedError: return "kUnexpectedError";
    default: return error_name(static_cast<cl_int>(s));  // the codes shared with OpenCL
  }
}

template <class T>
clblast::StatusCode clblast_gemm(const MatmulArgs& g, cl_command_queue queue) {
  using clblast::Transpose;
  auto ta = g.trans_a ? Transpose::kYes : Transpose::kNo;
  auto tb = g.trans_b ? Transpose::kYes : Transpose::kNo;
  auto a = static_cast<cl_mem>(g.a), b = static_cast<cl_mem>(g.b), c = static_cast<cl_mem>(g.c);
  auto sz = [](std::int64_t v) { return static_cast<std::size_t>(v); };
  if (g.batch == 1)
    return clblast::Gemm<T>(clblast::Layout::kRowMajor, ta, tb, sz(g.m), sz(g.n), sz(g.k), T(1), a, sz(g.a_offset),
                            sz(g.lda), b, sz(g.b_offset), sz(g.ldb), T(0), c, sz(g.c_offset), sz(g.ldc), &queue, nullptr);
  return clblast::GemmStridedBatched<T>(clblast::Layout::kRowMajor, ta, tb, sz(g.m), sz(g.n), sz(g.k), T(1), a,
                                        sz(g.a_offset), sz(g.lda), sz(g.stride_a), b, sz(g.b_offset), sz(g.ldb),
                                        sz(g.stride_b), T(0), c, sz(g.c_offset), sz(g.ldc), sz(g.stride_c),
                                        sz(g.batch), &queue, nullptr);
}
#endif

}  // namespace

void OpenCLDevice::matmul(QueueImpl& q, const MatmulArgs& args) {
  check_args(args, label_);
  GemmPath path = gemm_path();
  if (args.batch == 0 || args.m == 0 || args.n == 0) return;
  bool half_precision = args.dtype == DType::float16 || args.dtype == DType::bfloat16;
  if (half_precision) {
    path = GemmPath::tiled;
  } else if (path == GemmPath::automatic) {
#ifdef PORTA_HAVE_HOST_BLAS
    path = info_.kind == DeviceKind::cpu && info_.host_memory ? GemmPath::host : GemmPath::tiled;
#else
    path = GemmPath::tiled;
#endif
  }
  PORTA_LOG(debug, label_, ": matmul ", name(args.dtype), " ", args.batch, "x", args.m, "x", args.n, "x", args.k, " through ",
            path == GemmPath::host ? "host BLAS" : path == GemmPath::tiled ? "the tiled kernel" : "CLBlast");
  switch (path) {
    case GemmPath::host: matmul_host(q, args); return;
    case GemmPath::clblast: matmul_clblast(q, args); return;
    default: matmul_tiled(q, args); return;
  }
}

OpenCLDevice::GemmEntry& OpenCLDevice::gemm_kernel(DType dtype, bool trans_a, bool trans_b) {
  int key = static_cast<int>(dtype) * 4 + (trans_a ? 2 : 0) + (trans_b ? 1 : 0);
  GemmEntry* entry;
  {
    std::lock_guard lock(gemm_m_);
    auto& slot = gemm_[key];
    if (!slot) slot = std::make_unique<GemmEntry>();
    entry = slot.get();
  }
  std::lock_guard lock(entry->m);  // one thread compiles; the others wait for its kernel
  if (entry->kernel) return *entry;

  std::size_t elem = dtype == DType::float64 ? 8 : 4;  // of the local tiles, which hold float32 for half types
  int elem_code = dtype == DType::float64 ? 1 : dtype == DType::float16 ? 2 : dtype == DType::bfloat16 ? 3 : 0;
  auto local_mem = device_value<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE);
  auto max_group = device_value<std::size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  std::string tried;
  for (const GemmShape& s : gemm_shapes(info_.kind)) {
    std::size_t local_bytes = static_cast<std::size_t>(s.tile_k) * (s.tile_m + s.tile_n + 2) * elem;
    if (local_bytes > local_mem || static_cast<std::size_t>(s.group()) > max_group) continue;
    KernelSource src;
    src.source = kGemmSource;
    src.entry = "porta_gemm";
    src.options = {detail::cat("-DELEM=", elem_code), detail::cat("-DTRANS_A=", trans_a ? 1 : 0),
                   detail::cat("-DTRANS_B=", trans_b ? 1 : 0), detail::cat("-DTM=", s.tile_m),
                   detail::cat("-DTN=", s.tile_n), detail::cat("-DTK=", s.tile_k), detail::cat("-DWM=", s.per_item_m),
                   detail::cat("-DWN=", s.per_item_n)};
    auto t0 = std::chrono::steady_clock::now();
    auto kernel = std::static_pointer_cast<OpenCLKernel>(compile(src));
    if (kernel->max_group_size() < static_cast<std::size_t>(s.group())) {
      tried += detail::cat(" ", s.tile_m, "x", s.tile_n, " needs ", s.group(), " work-items, the kernel allows ",
                           kernel->max_group_size(), ";");
      continue;
    }
    PORTA_LOG(info, label_, ": compiled the tiled ", name(dtype), " GEMM (", trans_a ? "A^T" : "A", " ", trans_b ? "B^T" : "B",
              ", ", s.tile_m, "x", s.tile_n, "x", s.tile_k, " tiles, ", s.per_item_m, "x", s.per_item_n,
              " per work-item) in ",
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), " ms");
    entry->kernel = std::move(kernel);
    entry->tile_m = s.tile_m;
    entry->tile_n = s.tile_n;
    entry->group_m = s.group_m();
    entry->group_n = s.group_n();
    return *entry;
  }
  throw DeviceError(detail::cat(label_, " cannot run porta's tiled GEMM: no tile shape fits its ",
                                detail::format_bytes(local_mem), " of local memory and work-groups of ", max_group,
                                tried.empty() ? std::string() : " (" + tried + ")",
                                "; set PORTA_OPENCL_GEMM=clblast or host"));
}

void OpenCLDevice::matmul_tiled(QueueImpl& q, const MatmulArgs& g) {
  if (g.dtype == DType::float64 && !info_.dtypes[static_cast<int>(DType::float64)])
    throw DTypeError(detail::cat("matmul of float64 on ", label_, ": the device has no double precision (cl_khr_fp64); "
                                 "use astype(float32)"));
  if (g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX)
    throw InvalidArgument(detail::cat("matmul of ", g.m, "x", g.k, " by ", g.k, "x", g.n, " on ", label_,
                                      ": the tiled kernel takes sizes below 2^31"));
  GemmEntry& e = gemm_kernel(g.dtype, g.trans_a, g.trans_b);
  auto groups = [](std::int64_t size, int tile) { return static_cast<std::size_t>((size + tile - 1) / tile); };
  detail::LaunchDims dims;
  dims.global = {groups(g.n, e.tile_n) * e.group_n, groups(g.m, e.tile_m) * e.group_m, static_cast<std::size_t>(g.batch)};
  dims.local = {static_cast<std::size_t>(e.group_n), static_cast<std::size_t>(e.group_m), 1};
  using I32 = std::int32_t;
  using I64 = std::int64_t;
  const KernelArg args[] = {
      KernelArg::scalar<I32>(static_cast<I32>(g.m)), KernelArg::scalar<I32>(static_cast<I32>(g.n)),
      KernelArg::scalar<I32>(static_cast<I32>(g.k)),
      KernelArg::memory(g.a), KernelArg::scalar<I64>(g.a_offset), KernelArg::scalar<I64>(g.lda),
      KernelArg::scalar<I64>(g.stride_a),
      KernelArg::memory(g.b), KernelArg::scalar<I64>(g.b_offset), KernelArg::scalar<I64>(g.ldb),
      KernelArg::scalar<I64>(g.stride_b),
      KernelArg::memory(g.c), KernelArg::scalar<I64>(g.c_offset), KernelArg::scalar<I64>(g.ldc),
      KernelArg::scalar<I64>(g.stride_c),
  };
  launch(q, *e.kernel, dims, args);
}

void OpenCLDevice::matmul_host(QueueImpl& q, const MatmulArgs& g) {
#ifndef PORTA_HAVE_HOST_BLAS
  (void)q;
  (void)g;
  throw BackendUnavailable(detail::cat("PORTA_OPENCL_GEMM=host on ", label_,
                                       ": porta was built without a host BLAS (install libopenblas-dev and reconfigure)"));
#else
  cl_command_queue queue = queue_of(q).get();
  std::size_t elem = itemsize(g.dtype);
  struct Operand {
    Handle handle;
    Span span;
  };
  const Operand ops[3] = {
      {g.a, span_of(g.a_offset, g.batch, g.stride_a, g.trans_a ? g.k : g.m, g.trans_a ? g.m : g.k, g.lda)},
      {g.b, span_of(g.b_offset, g.batch, g.stride_b, g.trans_b ? g.n : g.k, g.trans_b ? g.k : g.n, g.ldb)},
      {g.c, span_of(g.c_offset, g.batch, g.stride_c, g.m, g.n, g.ldc)},
  };
  // Each distinct buffer is mapped once, over the union of the ranges its operands touch
  // (OpenCL leaves overlapping maps for writing undefined).
  struct Mapping {
    Handle handle = nullptr;
    Span span;
    bool write = false;
    void* ptr = nullptr;
  };
  Mapping maps[3];
  int count = 0;
  int which[3];
  for (int i = 0; i < 3; ++i) {
    int j = 0;
    while (j < count && maps[j].handle != ops[i].handle) ++j;
    if (j == count) maps[count++] = {ops[i].handle, ops[i].span};
    else if (ops[i].span.last > ops[i].span.first) {
      if (maps[j].span.last == maps[j].span.first) maps[j].span = ops[i].span;
      maps[j].span.first = std::min(maps[j].span.first, ops[i].span.first);
      maps[j].span.last = std::max(maps[j].span.last, ops[i].span.last);
    }
    maps[j].write |= i == 2;
    which[i] = j;
  }
  // Unmaps whatever was mapped, also when the product throws, and waits for the unmaps (see map_m_).
  struct Unmapper {
    cl_command_queue queue;
    Mapping* maps;
    int count;
    std::mutex& m;
    ~Unmapper() {
      std::lock_guard lock(m);
      for (int i = 0; i < count; ++i) {
        if (!maps[i].ptr) continue;
        cl_event done = nullptr;
        cl_int s = clEnqueueUnmapMemObject(queue, static_cast<cl_mem>(maps[i].handle), maps[i].ptr, 0, nullptr, &done);
        if (s == CL_SUCCESS) {
          s = clWaitForEvents(1, &done);
          clReleaseEvent(done);
        }
        if (s != CL_SUCCESS) PORTA_LOG(error, "unmapping memory after a host matmul failed: ", describe_status(s));
      }
    }
  } unmapper{queue, maps, count, map_m_};
  // The queue's earlier work is waited for outside the lock, so the maps under it are quick.
  PORTA_CL_CHECK_CTX(clFinish(queue), "waiting for the work before a host matmul on ", label_);
  std::unique_lock map_lock(map_m_);
  for (int i = 0; i < count; ++i) {
    Mapping& mp = maps[i];
    std::size_t bytes = static_cast<std::size_t>(mp.span.last - mp.span.first) * elem;
    if (bytes == 0) continue;
    cl_int status = CL_SUCCESS;
    cl_map_flags flags = mp.write ? (CL_MAP_READ | CL_MAP_WRITE) : CL_MAP_READ;
    mp.ptr = clEnqueueMapBuffer(queue, static_cast<cl_mem>(mp.handle), CL_TRUE, flags,
                                static_cast<std::size_t>(mp.span.first) * elem, bytes, 0, nullptr, nullptr, &status);
    if (status != CL_SUCCESS)
      throw_status(status, "clEnqueueMapBuffer", detail::cat("mapping ", detail::format_bytes(bytes), " for a host matmul on ", label_));
  }
  map_lock.unlock();
  // The mapped pointers are the first element of each range: offsets become relative to them.
  MatmulArgs h = g;
  void* ptr[3];
  for (int i = 0; i < 3; ++i) ptr[i] = maps[which[i]].ptr;
  h.a_offset = g.a_offset - maps[which[0]].span.first;
  h.b_offset = g.b_offset - maps[which[1]].span.first;
  h.c_offset = g.c_offset - maps[which[2]].span.first;
  if (g.k == 0) {
    // C = 0; the BLAS would object to leading dimensions of empty operands.
    auto* c = static_cast<char*>(ptr[2]);
    for (std::int64_t b = 0; b < g.batch; ++b)
      for (std::int64_t r = 0; r < g.m; ++r)
        std::memset(c + static_cast<std::size_t>(h.c_offset + b * g.stride_c + r * g.ldc) * elem, 0,
                    static_cast<std::size_t>(g.n) * elem);
    return;
  }
  detail::host_matmul(h, ptr[0], ptr[1], ptr[2]);
#endif
}

void OpenCLDevice::matmul_clblast(QueueImpl& q, const MatmulArgs& g) {
#ifndef PORTA_HAVE_CLBLAST
  (void)q;
  (void)g;
  throw BackendUnavailable(detail::cat("PORTA_OPENCL_GEMM=clblast on ", label_,
                                       ": porta was built without CLBlast (install libclblast-dev and reconfigure)"));
#else
  if (g.k == 0) {  // CLBlast rejects empty products; the tiled kernel writes the zeros
    matmul_tiled(q, g);
    return;
  }
  cl_command_queue queue = queue_of(q).get();
  auto lock = clblast_lock();
  clblast::StatusCode s =
      g.dtype == DType::float64 ? clblast_gemm<double>(g, queue) : clblast_gemm<float>(g, queue);
  if (s != clblast::StatusCode::kSuccess)
    throw DeviceError(detail::cat("CLBlast ", g.batch == 1 ? "Gemm" : "GemmStridedBatched", " of ", name(g.dtype), " ",
                                  g.batch, "x", g.m, "x", g.n, "x", g.k, " (lda ", g.lda, ", ldb ", g.ldb, ", ldc ", g.ldc,
                                  ") failed on ", label_, ": ", clblast_status_name(s), " (", static_cast<int>(s), ")"));
#endif
}

}  // namespace porta::opencl
