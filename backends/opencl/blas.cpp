// Matrix products on OpenCL devices, by one of these paths (PORTA_OPENCL_GEMM, read at each call):
//  host    - the host's BLAS on mapped buffers: CPU devices, where the memory is the host's;
//  tiled   - porta's own tiled GEMM kernel (gemm/tiled.cpp), with parameters chosen per device;
//  clblast - CLBlast's Gemm / GemmStridedBatched, when porta was built with CLBlast;
//  mma     - float16, bfloat16, float64 and (with TF32 allowed) float32 products go to the
//            tensor-core kernels (gemm/tensor.cpp) on any device, emulated where the device lacks
//            the instructions (a test of their indexing), and everything else to tiled;
//            mma:CONFIG uses that configuration only (a product of its dtypes it does not fit is
//            an error).
// auto takes the tensor cores where the device has them (NVIDIA's OpenCL, compute capability 8.0+;
// 9.0+ for float64) unless PORTA_OPENCL_GEMM_SHAPE asks for the tiled kernel; then host on CPU
// devices with host memory and tiled elsewhere (CLBlast reached 0.66x cuBLAS on the H200 and was
// 16-25x slower than OpenBLAS on PoCL: GPU.md). float16 and bfloat16 off the tensor cores always
// take the tiled kernel, which loads them as float32 and accumulates in float32: neither the host
// BLAS nor CLBlast (without cl_khr_fp16) multiplies them. complex64 and complex128 take the same
// paths but the tensor cores (the tiled kernel with float2 / double2 accumulators; the host's
// cgemm/zgemm; CLBlast's); integers too, exact (the host's loop_gemm; the tiled kernel with uint /
// ulong accumulators; CLBlast has no integer GEMM, so clblast gives them the tiled kernel).
#include <algorithm>
#include <climits>
#include <complex>
#include <cstring>
#include <optional>
#include <vector>

#include "porta_backend/settings.hpp"
#include "porta_backend/log.hpp"
#include "opencl/gemm/mma.hpp"
#include "opencl/gemm/tc.hpp"
#include "opencl/gemm/wg.hpp"
#include "opencl/opencl.hpp"

#ifdef PORTA_HAVE_HOST_BLAS
#include "host/blas.hpp"
#endif
#ifdef PORTA_HAVE_CLBLAST
#include <clblast.h>
#endif

namespace porta::opencl {
namespace {

enum class GemmPath { automatic, tiled, clblast, host, mma };

struct GemmChoice {
  GemmPath path = GemmPath::automatic;
  std::string config;  // PORTA_OPENCL_GEMM=mma:CONFIG
};

GemmChoice gemm_path() {
  auto v = setting_text("PORTA_OPENCL_GEMM");
  if (!v) return {};
  std::string s = detail::lower(detail::trim(*v));
  if (s == "auto") return {};
  if (s == "tiled") return {GemmPath::tiled};
  if (s == "clblast") return {GemmPath::clblast};
  if (s == "host") return {GemmPath::host};
  if (s == "mma") return {GemmPath::mma};
  if (s.starts_with("mma:")) {
    std::string config = s.substr(4);
    if (!parse_mma_params(config) && !parse_tc_params(config) && !parse_wg_params(config))
      detail::bad_setting("PORTA_OPENCL_GEMM", *v,
                          detail::cat("does not name a configuration of a tensor-core kernel: "
                                      "mma:mma16x8xK:BMxBNxBK:wWMxWN (float64), such as mma:",
                                      gemm_mma_candidates().front().text(),
                                      ", mma:tcBMxBNxBK:wWMxWN[:ldsm], such as mma:",
                                      gemm_tc_candidates(DType::float16).front().text(),
                                      ", or mma:wgBMxBNxBK:gG:sS (float16, bfloat16; Hopper), such as mma:",
                                      gemm_wg_candidates(DType::float16).front().text()));
    else
      return {GemmPath::mma, config};
  } else {
    detail::bad_setting("PORTA_OPENCL_GEMM", *v, "not a matmul path; use one of auto, tiled, clblast, host, mma, mma:CONFIG");
  }
  return {};  // a bad value under a warning policy: the default
}

void check_args(const MatmulArgs& g, const std::string& label) {
  if (g.batch < 0 || g.m < 0 || g.n < 0 || g.k < 0 || g.lda < 0 || g.ldb < 0 || g.ldc < 0 || g.a_offset < 0 ||
      g.b_offset < 0 || g.c_offset < 0 || g.stride_a < 0 || g.stride_b < 0 || g.stride_c < 0)
    throw InvalidArgument(detail::cat("matmul on ", label, ": negative size, stride or offset (batch ", g.batch, ", m ",
                                      g.m, ", n ", g.n, ", k ", g.k, ", lda ", g.lda, ", ldb ", g.ldb, ", ldc ", g.ldc, ")"));
  if (g.dtype == DType::boolean)
    throw DTypeError(detail::cat("matmul of bool is not supported on ", label,
                                 " (the core multiplies bool as int32); convert with astype(int32)"));
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
  const int alpha = g.subtract ? -1 : 1, beta = g.subtract ? 1 : 0;
  if (g.batch == 1)
    return clblast::Gemm<T>(clblast::Layout::kRowMajor, ta, tb, sz(g.m), sz(g.n), sz(g.k), T(alpha), a, sz(g.a_offset),
                            sz(g.lda), b, sz(g.b_offset), sz(g.ldb), T(beta), c, sz(g.c_offset), sz(g.ldc), &queue, nullptr);
  return clblast::GemmStridedBatched<T>(clblast::Layout::kRowMajor, ta, tb, sz(g.m), sz(g.n), sz(g.k), T(alpha), a,
                                        sz(g.a_offset), sz(g.lda), sz(g.stride_a), b, sz(g.b_offset), sz(g.ldb),
                                        sz(g.stride_b), T(beta), c, sz(g.c_offset), sz(g.ldc), sz(g.stride_c),
                                        sz(g.batch), &queue, nullptr);
}
#endif

}  // namespace

void Device::matmul(QueueImpl& q, const MatmulArgs& args) {
  check_args(args, label_);
  if (auto* r = queue_of(q).recording()) {
    queue_of(q).record_opaque();  // the host BLAS path maps memory: no command buffer holds it
    // The whole product is one step: the path (host BLAS, tiled, CLBlast) is chosen again at each
    // replay, and the kernels it launches are the ones cached for its shape.
    r->add([this, args](QueueImpl& rq, const detail::HandleMap& m) {
      MatmulArgs bound = args;
      m.rebind(bound);
      matmul(rq, bound);
    });
    return;
  }
  const GemmChoice choice = gemm_path();
  GemmPath path = choice.path;
  if (args.batch == 0 || args.m == 0 || args.n == 0) return;
  bool half_precision = args.dtype == DType::float16 || args.dtype == DType::bfloat16;
  const bool exact = is_integral(args.dtype);
  if (exact || is_complex(args.dtype)) {
    if (path == GemmPath::mma) path = GemmPath::tiled;  // no tensor-core kernel multiplies them
    if (exact && path == GemmPath::clblast) path = GemmPath::tiled;
  } else if (path == GemmPath::mma) {
    if (matmul_tensor(q, args, true, choice.config)) return;
    path = GemmPath::tiled;
  } else if (path == GemmPath::automatic && !setting_text("PORTA_OPENCL_GEMM_SHAPE") &&
             matmul_tensor(q, args, false, {})) {
    return;
  }
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

void Device::matmul_host(QueueImpl& q, const MatmulArgs& g) {
#ifndef PORTA_HAVE_HOST_BLAS
  (void)q;
  (void)g;
  throw BackendUnavailable(detail::cat("PORTA_OPENCL_GEMM=host on ", label_,
                                       ": porta was built without a host BLAS (install libopenblas-dev and reconfigure)"));
#else
  cl_command_queue queue = queue_of(q).native();
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
        if (s != CL_SUCCESS) PORTA_LOG(error, "unmapping memory after a host matmul failed: ", describe(s));
      }
    }
  } unmapper{queue, maps, count, map_m_};
  // The queue's earlier work is waited for outside the lock, so the maps under it are quick.
  PORTA_CL_AT(detail::cat("waiting for the work before a host matmul on ", label_), clFinish(queue));
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
      throw_error(status, "clEnqueueMapBuffer", detail::cat("mapping ", detail::format_bytes(bytes), " for a host matmul on ", label_));
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
    // C = 0 (or C as it is); the BLAS would object to leading dimensions of empty operands.
    if (g.subtract) return;
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

void Device::matmul_clblast(QueueImpl& q, const MatmulArgs& g) {
#ifndef PORTA_HAVE_CLBLAST
  (void)q;
  (void)g;
  throw BackendUnavailable(detail::cat("PORTA_OPENCL_GEMM=clblast on ", label_,
                                       ": porta was built without CLBlast (install libclblast-dev and reconfigure)"));
#else
  if (g.k == 0) {  // CLBlast rejects empty products; the tiled kernel writes the zeros
    if (!g.subtract) matmul_tiled(q, g);
    return;
  }
  cl_command_queue queue = queue_of(q).native();
  auto lock = clblast_lock();
  clblast::StatusCode s = g.dtype == DType::float64      ? clblast_gemm<double>(g, queue)
                           : g.dtype == DType::complex64  ? clblast_gemm<std::complex<float>>(g, queue)
                           : g.dtype == DType::complex128 ? clblast_gemm<std::complex<double>>(g, queue)
                                                          : clblast_gemm<float>(g, queue);
  if (s != clblast::StatusCode::kSuccess)
    throw DeviceError(detail::cat("CLBlast ", g.batch == 1 ? "Gemm" : "GemmStridedBatched", " of ", name(g.dtype), " ",
                                  g.batch, "x", g.m, "x", g.n, "x", g.k, " (lda ", g.lda, ", ldb ", g.ldb, ", ldc ", g.ldc,
                                  ") failed on ", label_, ": ", clblast_status_name(s), " (", static_cast<int>(s), ")"));
#endif
}

}  // namespace porta::opencl
