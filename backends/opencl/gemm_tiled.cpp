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
//
// float64 products on NVIDIA GPUs of compute capability 9.0 and newer go to the FP64 tensor-core
// kernel (gemm_mma.cpp) when they fit one of its configurations (m, n, k multiples of the tile,
// neither operand transposed, even leading dimensions, offsets and batch strides), unless
// PORTA_OPENCL_GEMM_SHAPE asks for the tiled kernel. Its configurations are ranked by the same
// kind of search on the first such product (each timed on the search sizes and its result checked
// against the host), the ranking kept in the disk cache; a product takes the fastest that fits.
// PORTA_OPENCL_GEMM=mma (blas.cpp) sends float64 products that fit to it on any device, emulating
// the instruction through local memory where the device lacks it (PoCL in CI: a test of the
// kernel's indexing, not a fast path), the others to the tiled kernel; =mma:CONFIG (such as
// mma16x8x4:64x64x16:w32x32) uses that one configuration, and a float64 product it does not fit
// is an error (so that a test knows the kernel ran).
#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string_view>

#include "porta_backend/services.hpp"
#include "porta_backend/disk_cache.hpp"
#include "porta_backend/env.hpp"
#include "porta_backend/log.hpp"
#include "opencl/gemm_kernel.hpp"
#include "opencl/gemm_mma.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {

struct Device::GemmTuning {
  std::mutex m;                           // one search at a time; others wait for its result
  std::map<DType, GemmParams> chosen;     // searched or from the disk cache
  std::optional<std::vector<MmaParams>> mma_ranked;  // the FP64 tensor-core configurations, fastest first
};

Device::GemmTuning& Device::gemm_tuning() {
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

std::shared_ptr<Kernel> gemm_program(Device& dev, const GemmParams& p, DType t, bool fast, bool ta, bool tb) {
  KernelSource src;
  src.source = kGemmSource;
  src.entry = "porta_gemm";
  src.options = gemm_options(p, t, fast, ta, tb);
  std::string key = "opencl-gemm|" + detail::join(src.options, " ");
  return std::static_pointer_cast<Kernel>(detail::cached_kernel(dev, key, [&] { return src; }));
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

void launch_gemm(Device& dev, QueueImpl& q, Kernel& kernel, const GemmParams& p, const MatmulArgs& g) {
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

// Device buffers for a search, released on every path out: a and b hold the same n x n random
// values (kept in `values`), c takes the products.
struct SearchBuffers {
  cl_mem a = nullptr, b = nullptr, c = nullptr;
  std::vector<double> values;
  Queue& queue;
  std::int64_t n;
  SearchBuffers(Device& dev, QueueImpl& q, std::int64_t size, std::size_t elem)
      : queue(dev.queue_of(q)), n(size) {
    std::size_t count = static_cast<std::size_t>(n * n), bytes = count * elem;
    cl_int status = CL_SUCCESS;
    a = clCreateBuffer(dev.native_context(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status == CL_SUCCESS) b = clCreateBuffer(dev.native_context(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status == CL_SUCCESS) c = clCreateBuffer(dev.native_context(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status != CL_SUCCESS) {
      release();
      throw_error(status, "clCreateBuffer", detail::cat("buffers for the GEMM search on ", dev.label()));
    }
    values.resize(count);
    std::vector<std::uint8_t> host(bytes);
    std::uint32_t state = 12345;
    for (std::size_t i = 0; i < count; ++i) {
      state = state * 1664525u + 1013904223u;
      double v = static_cast<double>(state >> 8) / 16777216.0 - 0.5;
      values[i] = v;
      if (elem == 8) std::memcpy(host.data() + i * 8, &v, 8);
      else {
        float f = static_cast<float>(v);
        std::memcpy(host.data() + i * 4, &f, 4);
      }
    }
    for (cl_mem x : {a, b}) {
      cl_int s = clEnqueueWriteBuffer(dev.queue_of(q).native(), x, CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr);
      if (s != CL_SUCCESS) {
        release();
        throw_error(s, "clEnqueueWriteBuffer", detail::cat("writing the GEMM search inputs on ", dev.label()));
      }
    }
  }
  ~SearchBuffers() { release(); }
  // The square product c = a b of these buffers, in dtype `t`.
  MatmulArgs product(DType t) const {
    MatmulArgs g;
    g.dtype = t;
    g.m = g.n = g.k = n;
    g.a = a;
    g.b = b;
    g.c = c;
    g.lda = g.ldb = g.ldc = n;
    return g;
  }
  SearchBuffers(const SearchBuffers&) = delete;
  SearchBuffers& operator=(const SearchBuffers&) = delete;
  void release() noexcept {
    queue.native_noexcept();  // launches on them still in the queue's launch thread are made first
    for (cl_mem* x : {&a, &b, &c})
      if (*x) {
        note_memory_released();
        clReleaseMemObject(*x);
        *x = nullptr;
      }
  }
};

// Milliseconds per call of `launch`: a warm-up, then as many calls as fill about 30 ms (2 to 50).
double time_ms(QueueImpl& q, const std::function<void()>& launch) {
  launch();
  q.synchronize();
  auto e0 = q.record(true);
  launch();
  auto e1 = q.record(true);
  e1->synchronize();
  double once = std::max(e1->elapsed_ms_since(*e0), 1e-3);
  int runs = std::clamp(static_cast<int>(30.0 / once), 2, 50);
  auto s0 = q.record(true);
  for (int r = 0; r < runs; ++r) launch();
  auto s1 = q.record(true);
  s1->synchronize();
  return s1->elapsed_ms_since(*s0) / runs;
}

std::shared_ptr<Kernel> mma_program(Device& dev, const MmaParams& p, bool emulate) {
  KernelSource src;
  src.source = kMmaSource;
  src.entry = kMmaEntry;
  src.options = mma_options(p, emulate);
  std::string key = "opencl-gemm-mma|" + detail::join(src.options, " ");
  return std::static_pointer_cast<Kernel>(detail::cached_kernel(dev, key, [&] { return src; }));
}

// One launch for the whole batch: work-groups of the kernel's warps along dimension 0, one row of
// them per product of the batch along dimension 1.
void launch_mma(Device& dev, QueueImpl& q, Kernel& kernel, const MmaParams& p, const MatmulArgs& g) {
  using I32 = std::int32_t;
  using I64 = std::int64_t;
  const auto threads = static_cast<std::size_t>(p.threads());
  const auto blocks = static_cast<std::size_t>((g.m / p.tile_m) * (g.n / p.tile_n));
  LaunchDims dims;
  dims.global = {blocks * threads, static_cast<std::size_t>(g.batch), 1};
  dims.local = {threads, 1, 1};
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
  dev.launch(q, kernel, dims, args);
}

// Why configuration `p` cannot run on a device (empty when it can), before compiling.
std::string mma_unfit_device(const MmaParams& p, bool emulate, std::uint64_t local_mem, std::size_t max_group) {
  if (auto r = p.invalid_reason(); !r.empty()) return r;
  if (p.local_bytes(emulate) > local_mem)
    return detail::cat("needs ", detail::format_bytes(p.local_bytes(emulate)), " of local memory, the device has ",
                       detail::format_bytes(local_mem));
  if (static_cast<std::size_t>(p.threads()) > max_group)
    return detail::cat("needs work-groups of ", p.threads(), ", the device allows ", max_group);
  return {};
}

// The largest difference of 64 entries of the n x n product c = v v from their host values, in
// units of the rounding bound n * 2^-52 * sum |a_ik b_kj| (under 1 when right); infinite for NaN.
double product_error(Device& dev, QueueImpl& q, cl_mem c, const std::vector<double>& v, std::int64_t n) {
  double worst = 0;
  std::uint32_t state = 777;
  for (int s = 0; s < 64; ++s) {
    state = state * 1664525u + 1013904223u;
    const std::int64_t i = (state >> 8) % n;
    state = state * 1664525u + 1013904223u;
    const std::int64_t j = (state >> 8) % n;
    double ref = 0, mag = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      const double x = v[static_cast<std::size_t>(i * n + k)] * v[static_cast<std::size_t>(k * n + j)];
      ref += x;
      mag += std::fabs(x);
    }
    double got = 0;
    PORTA_CL_AT(detail::cat("reading a GEMM search result on ", dev.label()), clEnqueueReadBuffer(dev.queue_of(q).native(), c, CL_TRUE, static_cast<std::size_t>(i * n + j) * 8, 8,
                                           &got, 0, nullptr, nullptr));
    const double err = std::fabs(got - ref) / (static_cast<double>(n) * 0x1p-52 * mag + 1e-300);
    worst = std::isnan(err) ? INFINITY : std::max(worst, err);
  }
  return worst;
}

// Runs one candidate of a search: `run` returns why it failed (empty when it ran); a porta error
// it throws is a failure too, once the queue has been waited for.
template <class Run>
std::string try_candidate(QueueImpl& q, Run&& run) {
  try {
    return run();
  } catch (const Error& e) {
    std::string failure = e.what();
    try {
      q.synchronize();
    } catch (const Error&) {
    }
    return failure;
  }
}

// The candidates' scores over a search's sizes: the sum of log TFLOP/s (minus infinity once one
// failed), and each candidate's rates in a line for PORTA_LOG=info and the disk cache.
struct SearchTally {
  std::vector<double> score;
  std::vector<std::string> table;
  explicit SearchTally(std::size_t candidates) : score(candidates, 0.0), table(candidates) {}
  void add(std::size_t i, std::int64_t n, double tflops, const std::string& failure) {
    if (failure.empty()) score[i] += std::log(std::max(tflops, 1e-9));
    else score[i] = -INFINITY;
    table[i] += detail::cat(table[i].empty() ? "" : ", ", n, ": ", failure.empty() ? rate(tflops) : "failed");
  }
  // "name1 2048: 43.6 TFLOP/s; name2 2048: failed"
  template <class Candidates>
  std::string summary(const Candidates& candidates) const {
    std::string text;
    for (std::size_t i = 0; i < candidates.size(); ++i) text += detail::cat(i ? "; " : "", candidates[i].text(), " ", table[i]);
    return text;
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

void Device::matmul_tiled(QueueImpl& q, const MatmulArgs& g) {
  if (g.dtype == DType::float64 && !info_.dtypes[static_cast<int>(DType::float64)])
    throw DTypeError(detail::cat("matmul of float64 on ", label_, ": the device has no double precision (cl_khr_fp64); "
                                 "use astype(float32)"));
  if (g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX)
    throw InvalidArgument(detail::cat("matmul of ", g.m, "x", g.k, " by ", g.k, "x", g.n, " on ", label_,
                                      ": porta's OpenCL GEMM takes sizes below 2^31"));
  if (g.dtype == DType::float64 && mma_native(info_.platform, nv_compute_capability_) &&
      !detail::env("PORTA_OPENCL_GEMM_SHAPE") && matmul_mma(q, g, false, nullptr))
    return;
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

GemmParams Device::gemm_choose(QueueImpl& q, DType t, std::uint64_t local_mem, std::size_t max_group) {
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
  SearchTally tally(candidates.size());
  auto t_start = std::chrono::steady_clock::now();
  for (std::int64_t n : sizes) {
    // Rounded up to a multiple of every candidate's tiles (128), so each runs its fast kernel.
    n = (n + 127) / 128 * 128;
    SearchBuffers buf(*this, q, n, elem);
    const MatmulArgs g = buf.product(t);
    const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const GemmParams& p = candidates[i];
      double tflops = 0;
      std::string failure = try_candidate(q, [&]() -> std::string {
        auto kernel = gemm_program(*this, p, t, true, false, false);
        if (kernel->max_group_size() < static_cast<std::size_t>(p.group()))
          return detail::cat("the compiled kernel allows work-groups of ", kernel->max_group_size());
        double ms = time_ms(q, [&] { launch_gemm(*this, q, *kernel, p, g); });
        tflops = flops / (ms * 1e-3) / 1e12;
        return {};
      });
      tally.add(i, n, tflops, failure);
      if (!failure.empty())
        PORTA_LOG(info, label_, ": ", name(t), " GEMM candidate ", p.text(), " failed at ", n, ": ", failure);
      PORTA_LOG(info, label_, ": ", name(t), " GEMM candidate ", p.text(), " at ", n, "x", n, "x", n, ": ",
                failure.empty() ? rate(tflops) : "failed");
    }
  }
  const std::vector<double>& score = tally.score;
  std::size_t best = static_cast<std::size_t>(std::max_element(score.begin(), score.end()) - score.begin());
  if (!std::isfinite(score[best]))
    throw DeviceError(detail::cat(label_, ": every candidate of porta's ", name(t),
                                  " GEMM failed (PORTA_LOG=info shows why); set PORTA_OPENCL_GEMM=clblast"));
  const std::string summary = tally.summary(candidates);
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

bool Device::matmul_mma(QueueImpl& q, const MatmulArgs& g, bool forced, const MmaParams* only) {
  if (g.dtype != DType::float64 || !info_.dtypes[static_cast<int>(DType::float64)]) return false;
  if (g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX) return false;
  const bool native = mma_native(info_.platform, nv_compute_capability_);
  if (!native && !forced) return false;
  const auto local_mem = device_value<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE);
  const auto max_group = device_value<std::size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  std::vector<MmaParams> order;
  if (only) {
    if (auto r = mma_unfit_device(*only, !native, local_mem, max_group); !r.empty())
      throw InvalidArgument(detail::cat("PORTA_OPENCL_GEMM=mma:", only->text(), " does not fit ", label_, ": it ", r));
    order.push_back(*only);
  } else if (native) {
    // No search for a product that no configuration could take.
    const auto all = gemm_mma_candidates();
    if (std::none_of(all.begin(), all.end(), [&](const MmaParams& c) { return mma_unfit_reason(c, g).empty(); }))
      return false;
    order = mma_ranking(q, local_mem, max_group);
  } else {
    for (const MmaParams& p : gemm_mma_candidates())
      if (mma_unfit_device(p, true, local_mem, max_group).empty()) order.push_back(p);
  }
  const MmaParams* p = nullptr;
  std::string why = order.empty() ? "no configuration fits the device" : "";
  for (const MmaParams& c : order) {
    std::string r = mma_unfit_reason(c, g);
    if (r.empty()) {
      p = &c;
      break;
    }
    if (why.empty()) why = detail::cat(c.text(), ": ", r);
  }
  if (!p && only)
    throw InvalidArgument(detail::cat("PORTA_OPENCL_GEMM=mma:", only->text(), ": the float64 matmul ", g.batch, "x", g.m, "x",
                                      g.n, "x", g.k, " on ", label_, " does not fit this configuration (", why,
                                      "); use PORTA_OPENCL_GEMM=mma to let such products take the tiled kernel"));
  if (!p) {
    PORTA_LOG(debug, label_, ": float64 matmul ", g.batch, "x", g.m, "x", g.n, "x", g.k, " not on the FP64 tensor-core kernel (",
              why, ")");
    return false;
  }
  auto kernel = mma_program(*this, *p, !native);
  if (kernel->max_group_size() < static_cast<std::size_t>(p->threads())) {
    std::string msg = detail::cat(label_, ": the FP64 tensor-core kernel ", p->text(), " needs work-groups of ", p->threads(),
                                  ", the compiled kernel allows ", kernel->max_group_size());
    if (forced) throw DeviceError(msg + "; use another PORTA_OPENCL_GEMM");
    PORTA_LOG(info, msg, "; the product takes the tiled kernel");
    return false;
  }
  PORTA_LOG(debug, label_, ": float64 matmul ", g.batch, "x", g.m, "x", g.n, "x", g.k, " through the FP64 tensor-core kernel ",
            p->text(), native ? "" : " (emulated)");
  launch_mma(*this, q, *kernel, *p, g);
  return true;
}

std::vector<MmaParams> Device::mma_ranking(QueueImpl& q, std::uint64_t local_mem, std::size_t max_group) {
  GemmTuning& tuning = gemm_tuning();
  std::lock_guard lock(tuning.m);
  if (tuning.mma_ranked) return *tuning.mma_ranked;
  const std::string what = detail::cat(label_, ": float64 GEMM on the FP64 tensor cores");
  std::vector<MmaParams> candidates;
  std::string skipped;
  for (const MmaParams& p : gemm_mma_candidates()) {
    if (auto r = mma_unfit_device(p, false, local_mem, max_group); !r.empty())
      skipped += detail::cat(" ", p.text(), " (", r, ")");
    else
      candidates.push_back(p);
  }
  if (candidates.empty()) {
    PORTA_LOG(info, what, ": no configuration fits:", skipped, "; float64 takes the tiled kernel");
    return *(tuning.mma_ranked = candidates);
  }
  const std::vector<std::int64_t> sizes = search_sizes();
  if (sizes.empty()) {
    PORTA_LOG(info, what, ": configurations in their measured order, ", candidates.front().text(),
              " first (PORTA_OPENCL_GEMM_SEARCH=off)");
    return *(tuning.mma_ranked = candidates);
  }
  const detail::DiskCache& disk = detail::DiskCache::get();
  std::string list;
  for (const MmaParams& p : candidates) list += p.text() + " ";
  std::string key = detail::cat("porta-gemm-mma-ranking-v1\n", info_.name, "\n", compiler_id_, "\n", list, "\n",
                                detail::fnv1a64(std::span(reinterpret_cast<const std::uint8_t*>(kMmaSource),
                                                          std::char_traits<char>::length(kMmaSource))));
  for (auto s : sizes) key += detail::cat(" ", s);
  if (disk.enabled()) {
    if (auto bytes = disk.load(key)) {
      std::string text(bytes->begin(), bytes->end());
      auto nl = text.find('\n');
      std::vector<MmaParams> ranked;
      for (const std::string& item : detail::split(text.substr(0, nl), ' ')) {
        auto p = parse_mma_params(item);
        if (p && std::find(candidates.begin(), candidates.end(), *p) != candidates.end()) ranked.push_back(*p);
      }
      if (!ranked.empty()) {
        PORTA_LOG(info, what, ": a product takes the first of [", text.substr(0, nl),
                  "] that fits it, from the disk cache (an earlier search: ",
                  nl == std::string::npos ? std::string() : text.substr(nl + 1), ")");
        return *(tuning.mma_ranked = ranked);
      }
    }
  }

  // Every configuration on square products of each size: timed, then 64 entries checked.
  SearchTally tally(candidates.size());
  auto t_start = std::chrono::steady_clock::now();
  for (std::int64_t n : sizes) {
    n = (n + 127) / 128 * 128;  // a multiple of every tile
    SearchBuffers buf(*this, q, n, 8);
    const MatmulArgs g = buf.product(DType::float64);
    const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const MmaParams& p = candidates[i];
      double tflops = 0;
      std::string failure = try_candidate(q, [&]() -> std::string {
        auto kernel = mma_program(*this, p, false);
        if (kernel->max_group_size() < static_cast<std::size_t>(p.threads()))
          return detail::cat("the compiled kernel allows work-groups of ", kernel->max_group_size());
        const double nan = NAN;
        PORTA_CL_AT(detail::cat("clearing the GEMM search output on ", label_), clEnqueueFillBuffer(queue_of(q).native(), buf.c, &nan, sizeof nan, 0,
                                               static_cast<std::size_t>(n * n) * 8, 0, nullptr, nullptr));
        double ms = time_ms(q, [&] { launch_mma(*this, q, *kernel, p, g); });
        tflops = flops / (ms * 1e-3) / 1e12;
        if (double e = product_error(*this, q, buf.c, buf.values, n); !(e <= 1))
          return detail::cat("wrong results (error ", e, " times the rounding bound)");
        return {};
      });
      tally.add(i, n, tflops, failure);
      if (!failure.empty()) PORTA_LOG(info, what, ": ", p.text(), " failed at ", n, ": ", failure);
      PORTA_LOG(info, what, ": ", p.text(), " at ", n, "x", n, "x", n, ": ", failure.empty() ? rate(tflops) : "failed");
    }
  }
  const std::vector<double>& score = tally.score;
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (std::isfinite(score[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
  std::vector<MmaParams> ranked;
  std::string ranking;
  for (std::size_t i : order) {
    ranked.push_back(candidates[i]);
    ranking += detail::cat(ranking.empty() ? "" : " ", candidates[i].text());
  }
  const std::string summary = tally.summary(candidates);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  if (ranked.empty()) {
    // Not kept on disk: the next process tries again.
    PORTA_LOG(info, what, ": every configuration failed (searched in ", fixed(secs, 1), " s: ", summary,
              "); float64 takes the tiled kernel");
    return *(tuning.mma_ranked = ranked);
  }
  PORTA_LOG(info, what, ": ", ranked.front().text(), ", the fastest of ", candidates.size(),
            " configurations; a product takes the first of [", ranking, "] that fits it (searched in ", fixed(secs, 1),
            " s: ", summary, ")", skipped.empty() ? std::string() : "; did not fit:" + skipped,
            disk.enabled() ? "; kept in the disk cache" : "; not kept (disk cache off)");
  if (disk.enabled()) {
    std::string payload = ranking + "\n" + summary;
    disk.store(key, std::span(reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size()));
  }
  return *(tuning.mma_ranked = ranked);
}

}  // namespace porta::opencl
