// porta's own GEMM on OpenCL devices (the kernel is gemm_kernel.cpp): which parameters a device
// uses and the launch.
//
// Parameters, per device and dtype (float16 and bfloat16 use float32's), from the first of:
//  PORTA_OPENCL_GEMM_SHAPE=TMxTNxTK:WMxWN[:vV]  a manual override, read at every call;
//  CPU devices                                  one fixed set (their float32/float64 go to the host BLAS),
//                                               unless PORTA_OPENCL_GEMM_SEARCH is set;
//  the disk cache                               the winner of an earlier search on this device and driver;
//  a search                                     each candidate of gemm_gpu_candidates timed on a 2048^2
//                                               product (PORTA_OPENCL_GEMM_SEARCH=N,... for other sizes,
//                                               =off for the first candidate that fits), a few seconds
//                                               at most; the winner goes to the disk cache.
// PORTA_LOG=info prints the choice and every candidate's TFLOP/s.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string_view>

#include "context.hpp"
#include "disk_cache.hpp"
#include "env.hpp"
#include "log.hpp"
#include "opencl/gemm_kernel.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {

struct OpenCLDevice::GemmTuning {
  std::mutex m;                           // one search at a time; others wait for its result
  std::map<DType, GemmParams> chosen;     // searched or from the disk cache
};

OpenCLDevice::GemmTuning& OpenCLDevice::gemm_tuning() {
  std::call_once(gemm_once_, [this] { gemm_ = std::make_shared<GemmTuning>(); });
  return *gemm_;
}

namespace {

std::string fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// "31.42 TFLOP/s", or "2.08 GFLOP/s" below one TFLOP/s.
std::string rate(double tflops) {
  return tflops >= 1 ? fixed(tflops, 2) + " TFLOP/s" : fixed(tflops * 1e3, 2) + " GFLOP/s";
}

DType tuned_dtype(DType t) { return t == DType::float64 ? DType::float64 : DType::float32; }
std::size_t tile_elem_bytes(DType t) { return t == DType::float64 ? 8 : 4; }  // local tiles hold float for half types

std::shared_ptr<OpenCLKernel> gemm_program(OpenCLDevice& dev, const GemmParams& p, DType t, bool fast, bool ta, bool tb) {
  KernelSource src;
  src.source = kGemmSource;
  src.entry = "porta_gemm";
  src.options = gemm_options(p, t, fast, ta, tb);
  std::string key = "opencl-gemm|" + detail::join(src.options, " ");
  return std::static_pointer_cast<OpenCLKernel>(dev.context().kernels().get(key, [&] { return src; }));
}

// The global and local sizes of a product of m x n, batch `batch`.
LaunchDims gemm_dims(const GemmParams& p, std::int64_t m, std::int64_t n, std::int64_t batch) {
  auto groups = [](std::int64_t size, int tile) { return static_cast<std::size_t>((size + tile - 1) / tile); };
  LaunchDims dims;
  dims.global = {groups(n, p.tile_n) * static_cast<std::size_t>(p.group_n()),
                 groups(m, p.tile_m) * static_cast<std::size_t>(p.group_m()), static_cast<std::size_t>(batch)};
  dims.local = {static_cast<std::size_t>(p.group_n()), static_cast<std::size_t>(p.group_m()), 1};
  return dims;
}

void launch_gemm(OpenCLDevice& dev, QueueImpl& q, OpenCLKernel& kernel, const GemmParams& p, const MatmulArgs& g) {
  using I32 = std::int32_t;
  using I64 = std::int64_t;
  const KernelArg args[] = {
      KernelArg::scalar<I32>(static_cast<I32>(g.m)), KernelArg::scalar<I32>(static_cast<I32>(g.n)),
      KernelArg::scalar<I32>(static_cast<I32>(g.k)), KernelArg::scalar<I32>(g.trans_a ? 1 : 0),
      KernelArg::scalar<I32>(g.trans_b ? 1 : 0),
      KernelArg::memory(g.a), KernelArg::scalar<I64>(g.a_offset), KernelArg::scalar<I64>(g.lda),
      KernelArg::scalar<I64>(g.stride_a),
      KernelArg::memory(g.b), KernelArg::scalar<I64>(g.b_offset), KernelArg::scalar<I64>(g.ldb),
      KernelArg::scalar<I64>(g.stride_b),
      KernelArg::memory(g.c), KernelArg::scalar<I64>(g.c_offset), KernelArg::scalar<I64>(g.ldc),
      KernelArg::scalar<I64>(g.stride_c),
  };
  dev.launch(q, kernel, gemm_dims(p, g.m, g.n, g.batch), args);
}

// The fast variant needs whole tiles and VW-aligned rows, offsets and batch strides.
bool fits_fast(const GemmParams& p, const MatmulArgs& g) {
  auto aligned = [&](std::int64_t v) { return v % p.vector == 0; };
  return g.m % p.tile_m == 0 && g.n % p.tile_n == 0 && g.k % p.tile_k == 0 && aligned(g.lda) && aligned(g.ldb) &&
         aligned(g.ldc) && aligned(g.a_offset) && aligned(g.b_offset) && aligned(g.c_offset) && aligned(g.stride_a) &&
         aligned(g.stride_b) && aligned(g.stride_c);
}

std::vector<std::int64_t> search_sizes() {
  std::vector<std::int64_t> sizes;
  if (auto v = detail::env("PORTA_OPENCL_GEMM_SEARCH")) {
    std::string s = detail::lower(detail::trim(*v));
    if (s == "off") return {};
    std::string_view rest = s;
    while (!rest.empty()) {
      auto comma = rest.find(',');
      std::string item(rest.substr(0, comma));
      char* end = nullptr;
      long long x = std::strtoll(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0' || x < 64 || x > 32768)
        throw InvalidArgument(detail::cat("PORTA_OPENCL_GEMM_SEARCH=", *v,
                                          " is not 'off' or a list of square sizes from 64 to 32768 (such as 2048 or 4096,8192)"));
      sizes.push_back(x);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  if (sizes.empty()) sizes.push_back(2048);
  return sizes;
}

// Device buffers for the search, released on every path out.
struct SearchBuffers {
  cl_mem a = nullptr, b = nullptr, c = nullptr;
  ~SearchBuffers() {
    for (cl_mem x : {a, b, c})
      if (x) clReleaseMemObject(x);
  }
};

}  // namespace

// Why `p` cannot run on this device (empty when it can), before compiling.
static std::string unfit_reason(const GemmParams& p, DType t, std::uint64_t local_mem, std::size_t max_group) {
  if (auto r = p.invalid_reason(); !r.empty()) return r;
  if (p.local_bytes(tile_elem_bytes(t)) > local_mem)
    return detail::cat("needs ", detail::format_bytes(p.local_bytes(tile_elem_bytes(t))), " of local memory, the device has ",
                       detail::format_bytes(local_mem));
  if (static_cast<std::size_t>(p.group()) > max_group)
    return detail::cat("needs work-groups of ", p.group(), ", the device allows ", max_group);
  return {};
}

void OpenCLDevice::matmul_tiled(QueueImpl& q, const MatmulArgs& g) {
  if (g.dtype == DType::float64 && !info_.dtypes[static_cast<int>(DType::float64)])
    throw DTypeError(detail::cat("matmul of float64 on ", label_, ": the device has no double precision (cl_khr_fp64); "
                                 "use astype(float32)"));
  if (g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX)
    throw InvalidArgument(detail::cat("matmul of ", g.m, "x", g.k, " by ", g.k, "x", g.n, " on ", label_,
                                      ": porta's OpenCL GEMM takes sizes below 2^31"));
  const DType tt = tuned_dtype(g.dtype);
  const auto local_mem = device_value<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE);
  const auto max_group = device_value<std::size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  GemmParams p;
  if (auto v = detail::env("PORTA_OPENCL_GEMM_SHAPE")) {
    auto parsed = parse_gemm_params(detail::trim(*v));
    if (!parsed)
      throw InvalidArgument(detail::cat("PORTA_OPENCL_GEMM_SHAPE=", *v,
                                        " is not TMxTNxTK:WMxWN or TMxTNxTK:WMxWN:vV (such as 128x128x8:8x8:v4) with TM a "
                                        "multiple of WM, TN of WN, WM, WN and TK of V, and whole vectors per work-item"));
    p = *parsed;
    if (auto r = unfit_reason(p, tt, local_mem, max_group); !r.empty())
      throw InvalidArgument(detail::cat("PORTA_OPENCL_GEMM_SHAPE=", *v, " does not fit ", label_, ": it ", r));
  } else if (info_.kind == DeviceKind::cpu && !detail::env("PORTA_OPENCL_GEMM_SEARCH")) {
    p = gemm_cpu_params(tt);
    if (!unfit_reason(p, tt, local_mem, max_group).empty()) p = gemm_choose(q, tt, local_mem, max_group);
  } else {
    p = gemm_choose(q, tt, local_mem, max_group);
  }
  const bool fast = fits_fast(p, g);
  auto kernel = gemm_program(*this, p, g.dtype, fast, g.trans_a, g.trans_b);
  if (kernel->max_group_size() < static_cast<std::size_t>(p.group()))
    throw DeviceError(detail::cat(label_, ": porta's GEMM with ", p.text(), " needs work-groups of ", p.group(),
                                  ", the compiled kernel allows ", kernel->max_group_size(),
                                  "; set PORTA_OPENCL_GEMM_SHAPE to a smaller shape, or PORTA_OPENCL_GEMM=clblast or host"));
  launch_gemm(*this, q, *kernel, p, g);
}

GemmParams OpenCLDevice::gemm_choose(QueueImpl& q, DType t, std::uint64_t local_mem, std::size_t max_group) {
  GemmTuning& tuning = gemm_tuning();
  std::lock_guard lock(tuning.m);
  if (auto it = tuning.chosen.find(t); it != tuning.chosen.end()) return it->second;

  std::vector<GemmParams> candidates;
  std::string skipped;
  for (const GemmParams& p : gemm_gpu_candidates(t)) {
    if (auto r = unfit_reason(p, t, local_mem, max_group); !r.empty())
      skipped += detail::cat(" ", p.text(), " (", r, ")");
    else
      candidates.push_back(p);
  }
  if (candidates.empty())
    throw DeviceError(detail::cat(label_, " cannot run porta's GEMM: no parameter set fits:", skipped,
                                  "; set PORTA_OPENCL_GEMM=clblast or host"));
  const std::vector<std::int64_t> sizes = search_sizes();
  const detail::DiskCache& disk = detail::DiskCache::get();
  std::string list;
  for (const GemmParams& p : candidates) list += p.text() + " ";
  std::string key = detail::cat("porta-gemm-params-v1\n", info_.name, "\n", compiler_id_, "\n", name(t), "\n", list, "\n",
                                detail::fnv1a64(std::span(reinterpret_cast<const std::uint8_t*>(kGemmSource),
                                                          std::char_traits<char>::length(kGemmSource))));
  for (auto s : sizes) key += detail::cat(" ", s);
  if (sizes.empty()) {
    PORTA_LOG(info, label_, ": ", name(t), " GEMM parameters ", candidates.front().text(),
              " (PORTA_OPENCL_GEMM_SEARCH=off: the first candidate that fits)");
    return tuning.chosen[t] = candidates.front();
  }
  if (disk.enabled()) {
    if (auto bytes = disk.load(key)) {
      std::string text(bytes->begin(), bytes->end());
      auto nl = text.find('\n');
      auto p = parse_gemm_params(text.substr(0, nl));
      if (p && std::find(candidates.begin(), candidates.end(), *p) != candidates.end()) {
        PORTA_LOG(info, label_, ": ", name(t), " GEMM parameters ", p->text(), " from the disk cache (an earlier search: ",
                  nl == std::string::npos ? std::string() : text.substr(nl + 1), ")");
        return tuning.chosen[t] = *p;
      }
    }
  }

  // The search: every candidate's fast NN kernel on square products of each size, random inputs.
  const std::size_t elem = t == DType::float64 ? 8 : 4;
  std::vector<double> score(candidates.size(), 0.0);  // sum of log TFLOP/s over the sizes
  std::vector<std::string> table(candidates.size());
  auto t_start = std::chrono::steady_clock::now();
  for (std::int64_t n : sizes) {
    // Rounded up to a multiple of every candidate's tiles (128), so each runs its fast kernel.
    n = (n + 127) / 128 * 128;
    std::size_t count = static_cast<std::size_t>(n * n), bytes = count * elem;
    SearchBuffers buf;
    cl_int status = CL_SUCCESS;
    buf.a = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status == CL_SUCCESS) buf.b = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status == CL_SUCCESS) buf.c = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status != CL_SUCCESS) throw_status(status, "clCreateBuffer", detail::cat("buffers for the GEMM search on ", label_));
    {
      std::vector<std::uint8_t> host(bytes);
      std::uint32_t state = 12345;
      for (std::size_t i = 0; i < count; ++i) {
        state = state * 1664525u + 1013904223u;
        double v = static_cast<double>(state >> 8) / 16777216.0 - 0.5;
        if (elem == 8) std::memcpy(host.data() + i * 8, &v, 8);
        else {
          float f = static_cast<float>(v);
          std::memcpy(host.data() + i * 4, &f, 4);
        }
      }
      for (cl_mem x : {buf.a, buf.b})
        PORTA_CL_CHECK_CTX(clEnqueueWriteBuffer(queue_of(q).get(), x, CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr),
                           "writing the GEMM search inputs on ", label_);
    }
    MatmulArgs g;
    g.dtype = t;
    g.m = g.n = g.k = n;
    g.a = buf.a;
    g.b = buf.b;
    g.c = buf.c;
    g.lda = g.ldb = g.ldc = n;
    const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const GemmParams& p = candidates[i];
      double tflops = 0;
      std::string failure;
      try {
        auto kernel = gemm_program(*this, p, t, true, false, false);
        if (kernel->max_group_size() < static_cast<std::size_t>(p.group())) {
          failure = detail::cat("the compiled kernel allows work-groups of ", kernel->max_group_size());
        } else {
          launch_gemm(*this, q, *kernel, p, g);  // warm-up
          q.synchronize();
          // Enough runs to fill about 30 ms, at least 2, from the warm-up's time.
          auto e0 = q.record(true);
          launch_gemm(*this, q, *kernel, p, g);
          auto e1 = q.record(true);
          e1->synchronize();
          double once = std::max(e1->elapsed_ms_since(*e0), 1e-3);
          int runs = std::clamp(static_cast<int>(30.0 / once), 2, 50);
          auto s0 = q.record(true);
          for (int r = 0; r < runs; ++r) launch_gemm(*this, q, *kernel, p, g);
          auto s1 = q.record(true);
          s1->synchronize();
          double ms = s1->elapsed_ms_since(*s0) / runs;
          tflops = flops / (ms * 1e-3) / 1e12;
        }
      } catch (const Error& e) {
        failure = e.what();
        try {
          q.synchronize();
        } catch (const Error&) {
        }
      }
      if (failure.empty()) {
        score[i] += std::log(std::max(tflops, 1e-9));
        table[i] += detail::cat(table[i].empty() ? "" : ", ", n, ": ", rate(tflops));
      } else {
        score[i] = -INFINITY;
        table[i] += detail::cat(table[i].empty() ? "" : ", ", n, ": failed");
        PORTA_LOG(info, label_, ": ", name(t), " GEMM candidate ", p.text(), " failed at ", n, ": ", failure);
      }
      PORTA_LOG(info, label_, ": ", name(t), " GEMM candidate ", p.text(), " at ", n, "x", n, "x", n, ": ",
                failure.empty() ? rate(tflops) : "failed");
    }
  }
  std::size_t best = static_cast<std::size_t>(std::max_element(score.begin(), score.end()) - score.begin());
  if (!std::isfinite(score[best]))
    throw DeviceError(detail::cat(label_, ": every candidate of porta's ", name(t),
                                  " GEMM failed (PORTA_LOG=info shows why); set PORTA_OPENCL_GEMM=clblast"));
  std::string summary;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    summary += detail::cat(i ? "; " : "", candidates[i].text(), " ", table[i]);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  PORTA_LOG(info, label_, ": ", name(t), " GEMM parameters ", candidates[best].text(), ", the fastest of ", candidates.size(),
            " candidates (searched in ", fixed(secs, 1), " s: ", summary, ")",
            skipped.empty() ? std::string() : "; did not fit:" + skipped,
            disk.enabled() ? "; kept in the disk cache" : "; not kept (disk cache off)");
  if (disk.enabled()) {
    std::string payload = candidates[best].text() + "\n" + summary;
    disk.store(key, std::span(reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size()));
  }
  return tuning.chosen[t] = candidates[best];
}

}  // namespace porta::opencl
