// The timed, checked search that ranks GEMM configurations on an OpenCL device (gemm/search.hpp).
#include "opencl/gemm/search.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>

#include <porta/dtype.hpp>

#include "porta_backend/disk_cache.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/log.hpp"

namespace porta::opencl {
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

// The value `v` rounded to `t`, and its bytes at `out` (a complex dtype: one part, of its real type).
double store_value(DType t, double v, std::uint8_t* out) {
  switch (t) {
    case DType::float64:
    case DType::complex128: std::memcpy(out, &v, 8); return v;
    case DType::float16: {
      const porta::half h(v);
      std::memcpy(out, &h.bits, 2);
      return static_cast<float>(h);
    }
    case DType::bfloat16: {
      const porta::bfloat16 h(v);
      std::memcpy(out, &h.bits, 2);
      return static_cast<float>(h);
    }
    default: {
      const float f = static_cast<float>(v);
      std::memcpy(out, &f, 4);
      return f;
    }
  }
}

double load_value(DType t, const std::uint8_t* in) {
  switch (t) {
    case DType::float64:
    case DType::complex128: {
      double v;
      std::memcpy(&v, in, 8);
      return v;
    }
    case DType::float16: {
      std::uint16_t b;
      std::memcpy(&b, in, 2);
      return static_cast<float>(porta::half::from_bits(b));
    }
    case DType::bfloat16: {
      std::uint16_t b;
      std::memcpy(&b, in, 2);
      return static_cast<float>(porta::bfloat16::from_bits(b));
    }
    default: {
      float f;
      std::memcpy(&f, in, 4);
      return f;
    }
  }
}

// Device buffers for a search, released on every path out: a and b hold the same n x n random
// values of dtype t (kept, as rounded, in `values`; complex: the real and imaginary parts of each,
// one after the other), c takes the products.
struct SearchBuffers {
  cl_mem a = nullptr, b = nullptr, c = nullptr;
  std::vector<double> values;
  Queue& queue;
  DType t;
  std::int64_t n;
  std::size_t elem;
  SearchBuffers(Device& dev, QueueImpl& q, DType dtype, std::int64_t size)
      : queue(dev.queue_of(q)), t(dtype), n(size), elem(itemsize(dtype)) {
    std::size_t count = static_cast<std::size_t>(n * n), bytes = count * elem;
    cl_int status = CL_SUCCESS;
    a = clCreateBuffer(dev.native_context(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status == CL_SUCCESS) b = clCreateBuffer(dev.native_context(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status == CL_SUCCESS) c = clCreateBuffer(dev.native_context(), CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status != CL_SUCCESS) {
      release();
      throw_error(status, "clCreateBuffer", detail::cat("buffers for the GEMM search on ", dev.label()));
    }
    const std::size_t parts = is_complex(t) ? 2 : 1, part_bytes = elem / parts;
    values.resize(count * parts);
    std::vector<std::uint8_t> host(bytes);
    std::uint32_t state = 12345;
    for (std::size_t i = 0; i < count * parts; ++i) {
      state = state * 1664525u + 1013904223u;
      values[i] = store_value(t, static_cast<double>(state >> 8) / 16777216.0 - 0.5, host.data() + i * part_bytes);
    }
    for (cl_mem x : {a, b}) {
      cl_int s = clEnqueueWriteBuffer(queue.native(), x, CL_TRUE, 0, bytes, host.data(), 0, nullptr, nullptr);
      if (s != CL_SUCCESS) {
        release();
        throw_error(s, "clEnqueueWriteBuffer", detail::cat("writing the GEMM search inputs on ", dev.label()));
      }
    }
  }
  ~SearchBuffers() { release(); }
  SearchBuffers(const SearchBuffers&) = delete;
  SearchBuffers& operator=(const SearchBuffers&) = delete;
  // The square product c = a b of these buffers.
  MatmulArgs product(bool tf32) const {
    MatmulArgs g;
    g.dtype = t;
    g.m = g.n = g.k = n;
    g.a = a;
    g.b = b;
    g.c = c;
    g.lda = g.ldb = g.ldc = n;
    g.allow_tf32 = tf32;
    return g;
  }
  void poison(Device& dev) {
    const std::uint64_t ones[2] = {~std::uint64_t{0}, ~std::uint64_t{0}};  // NaN in every floating and complex type
    PORTA_CL_AT(detail::cat("clearing the GEMM search output on ", dev.label()), clEnqueueFillBuffer(queue.native(), c, ones, elem, 0, static_cast<std::size_t>(n * n) * elem, 0,
                                           nullptr, nullptr));
  }
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

// The largest difference of 64 entries of c = v v from their host values, in units of what the
// dtype's rounding allows: the accumulation's n eps sum |a_ik b_kj|, TF32's rounding of the inputs
// and the rounding of the result to the dtype (under 1 when right); infinite for NaN.
double product_error(Device& dev, SearchBuffers& buf, bool tf32) {
  const DType t = buf.t;
  const std::int64_t n = buf.n;
  const bool complex = is_complex(t);
  const double acc_eps = t == DType::float64 || t == DType::complex128 ? 0x1p-52 : 0x1p-23;
  const double in_eps = tf32 ? 0x1p-10 : 0;
  const double out_eps = t == DType::float16    ? 0x1p-11
                         : t == DType::bfloat16 ? 0x1p-8
                         : t == DType::float32 || t == DType::complex64 ? 0x1p-24
                                                                        : 0x1p-53;
  double worst = 0;
  std::uint32_t state = 777;
  for (int s = 0; s < 64; ++s) {
    state = state * 1664525u + 1013904223u;
    const std::int64_t i = (state >> 8) % n;
    state = state * 1664525u + 1013904223u;
    const std::int64_t j = (state >> 8) % n;
    double ref = 0, ref_im = 0, mag = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      if (complex) {
        const double ar = buf.values[static_cast<std::size_t>(2 * (i * n + k))], ai = buf.values[static_cast<std::size_t>(2 * (i * n + k) + 1)];
        const double br = buf.values[static_cast<std::size_t>(2 * (k * n + j))], bi = buf.values[static_cast<std::size_t>(2 * (k * n + j) + 1)];
        ref += ar * br - ai * bi;
        ref_im += ar * bi + ai * br;
        mag += std::hypot(ar, ai) * std::hypot(br, bi);
        continue;
      }
      const double x = buf.values[static_cast<std::size_t>(i * n + k)] * buf.values[static_cast<std::size_t>(k * n + j)];
      ref += x;
      mag += std::fabs(x);
    }
    std::uint8_t bytes[16] = {};
    PORTA_CL_AT(detail::cat("reading a GEMM search result on ", dev.label()), clEnqueueReadBuffer(buf.queue.native(), buf.c, CL_TRUE, static_cast<std::size_t>(i * n + j) * buf.elem,
                                           buf.elem, bytes, 0, nullptr, nullptr));
    const double got = load_value(t, bytes);
    // A complex part sums 2n products: twice the real bound.
    const double bound = (complex ? 2 : 1) * (static_cast<double>(n) * acc_eps * mag + in_eps * mag) +
                         out_eps * std::max(std::fabs(ref), std::fabs(ref_im)) + 1e-300;
    double err = std::fabs(got - ref) / bound;
    if (complex) err = std::max(err, std::fabs(load_value(t, bytes + buf.elem / 2) - ref_im) / bound);
    worst = std::isnan(err) ? INFINITY : std::max(worst, err);
  }
  return worst;
}

// Runs one candidate: `run` returns why it failed (empty when it ran); a porta error it throws is
// a failure too, once the queue has been waited for.
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

}  // namespace

std::vector<std::int64_t> gemm_search_sizes(bool small) {
  std::vector<std::int64_t> sizes;
  if (auto v = setting_text("PORTA_OPENCL_GEMM_SEARCH")) {
    std::string s = detail::lower(detail::trim(*v));
    if (s == "off") return {};
    std::string_view rest = s;
    while (!rest.empty()) {
      auto comma = rest.find(',');
      std::string item(rest.substr(0, comma));
      char* end = nullptr;
      long long x = std::strtoll(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0' || x < 64 || x > 32768) {
        detail::bad_setting("PORTA_OPENCL_GEMM_SEARCH", *v,
                            "not 'off' or a list of square sizes from 64 to 32768 (such as 2048 or 4096,8192)");
        return {small ? 1024 : 2048};  // a bad value under a warning policy: the default
      }
      sizes.push_back(x);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  if (sizes.empty()) sizes.push_back(small ? 1024 : 2048);
  return sizes;
}

std::vector<std::size_t> rank_gemm_candidates(Device& dev, QueueImpl& q, const GemmSearch& s,
                                              const std::vector<GemmCandidate>& candidates) {
  std::vector<std::size_t> all(candidates.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const std::vector<std::int64_t> sizes = gemm_search_sizes(s.small);
  if (sizes.empty() || candidates.empty()) {
    if (!candidates.empty())
      PORTA_LOG(info, s.what, ": ", candidates.front().name, " and the rest in their given order (PORTA_OPENCL_GEMM_SEARCH=off)");
    return all;
  }
  std::string list;
  for (const GemmCandidate& c : candidates) list += c.name + " ";
  std::string key = detail::cat("porta-gemm-ranking-v2\n", s.kind, "\n", dev.info().name, "\n", dev.compiler_id(), "\n",
                                name(s.dtype), s.tf32 ? " tf32" : "", s.small ? " small" : "", "\n", list, "\n",
                                detail::fnv1a64(std::span(reinterpret_cast<const std::uint8_t*>(s.source),
                                                          std::char_traits<char>::length(s.source))));
  for (auto n : sizes) key += detail::cat(" ", n);
  const detail::DiskCache& disk = detail::DiskCache::get();
  if (disk.enabled()) {
    if (auto bytes = disk.load(key)) {
      std::string text(bytes->begin(), bytes->end());
      auto nl = text.find('\n');
      std::vector<std::size_t> ranked;
      for (const std::string& item : detail::split(text.substr(0, nl), ' '))
        for (std::size_t i = 0; i < candidates.size(); ++i)
          if (candidates[i].name == item && std::find(ranked.begin(), ranked.end(), i) == ranked.end()) ranked.push_back(i);
      if (!ranked.empty()) {
        PORTA_LOG(info, s.what, ": ranking [", text.substr(0, nl), "] from the disk cache (an earlier search: ",
                  nl == std::string::npos ? std::string() : text.substr(nl + 1), ")");
        return ranked;
      }
    }
  }

  // Score: the sum over the sizes of log TFLOP/s; minus infinity once a candidate failed.
  std::vector<double> score(candidates.size(), 0.0);
  std::vector<std::string> table(candidates.size());
  auto t_start = std::chrono::steady_clock::now();
  for (std::int64_t n : sizes) {
    n = (n + s.round_to - 1) / s.round_to * s.round_to;
    SearchBuffers buf(dev, q, s.dtype, n);
    const MatmulArgs g = buf.product(s.tf32);
    const double flops = (is_complex(s.dtype) ? 8.0 : 2.0) * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      double tflops = 0;
      std::string failure = try_candidate(q, [&]() -> std::string {
        buf.poison(dev);
        std::string why = candidates[i].launch(g);  // the first launch compiles and checks
        if (!why.empty()) return why;
        if (double e = product_error(dev, buf, s.tf32); !(e <= 1))
          return detail::cat("wrong results (error ", e, " times the rounding bound)");
        double ms = time_ms(q, [&] { (void)candidates[i].launch(g); });
        tflops = flops / (ms * 1e-3) / 1e12;
        return {};
      });
      if (failure.empty()) score[i] += std::log(std::max(tflops, 1e-9));
      else score[i] = -INFINITY;
      table[i] += detail::cat(table[i].empty() ? "" : ", ", n, ": ", failure.empty() ? rate(tflops) : "failed");
      if (!failure.empty()) PORTA_LOG(info, s.what, ": ", candidates[i].name, " failed at ", n, ": ", failure);
      PORTA_LOG(info, s.what, ": candidate ", candidates[i].name, " at ", n, "x", n, "x", n, ": ",
                failure.empty() ? rate(tflops) : "failed");
    }
  }
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (std::isfinite(score[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return score[a] > score[b]; });
  std::string ranking, summary;
  for (std::size_t i : order) ranking += detail::cat(ranking.empty() ? "" : " ", candidates[i].name);
  for (std::size_t i = 0; i < candidates.size(); ++i) summary += detail::cat(i ? "; " : "", candidates[i].name, " ", table[i]);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  if (order.empty()) {
    PORTA_LOG(info, s.what, ": every candidate failed (searched in ", fixed(secs, 1), " s: ", summary, ")");
    return order;
  }
  PORTA_LOG(info, s.what, ": ", candidates[order.front()].name, ", the fastest of ", candidates.size(), " candidates; ranking [",
            ranking, "] (searched in ", fixed(secs, 1), " s: ", summary, ")",
            disk.enabled() ? "; kept in the disk cache" : "; not kept (disk cache off)");
  if (disk.enabled()) {
    std::string payload = ranking + "\n" + summary;
    disk.store(key, std::span(reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size()));
  }
  return order;
}

}  // namespace porta::opencl
