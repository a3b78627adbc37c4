// A small porta program the cache tests run in subprocesses, each with its own PORTA_CACHE_DIR /
// PORTA_CACHE / PORTA_LOG: it runs user kernels on one device, compares every result with a host
// reference on random inputs, and prints the device's kernel-cache counters.
//
//   porta_cache_helper DEVICE kernels N [SEED]   N different ElementwiseKernels, one after another
//   porta_cache_helper DEVICE threads T [SEED]   T threads ask for one new kernel at the same time
//   porta_cache_helper DEVICE fft N [SEED]       fft and ifft of a (3, N) complex64 batch (with
//                                                PORTA_OPENCL_FFT=vkfft: VkFFT's programs)
//
// Prints "compiles C disk_hits D memory_hits H" (counted over the kernels it ran), then "ok" when
// every element matched; exits 0 when all matched, 1 on a mismatch, 2 on an error.
//
// It also measures the disk cache by hand: with PORTA_LOG=info each kernel logs "compiled ... in
// X ms" or "loaded ... from the disk cache in X ms"; run `kernels 20` twice on one empty
// PORTA_CACHE_DIR (each run with its own empty POCL_CACHE_DIR to keep PoCL's own kernel cache out
// of it) and compare the sums and the elapsed_ms lines.
#include <porta/porta.hpp>
#include <porta/fft.hpp>

#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <complex>
#include <numbers>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runtime/device_state.hpp"
#include "porta_backend/strings.hpp"

namespace {

constexpr std::int64_t kElements = 1000;

struct Counters {
  std::uint64_t compiles = 0, disk_hits = 0, hits = 0;
};

Counters counters(const porta::Device& d) {
  auto& k = d.impl().state().kernels();
  return {k.compiles(), k.disk_hits(), k.hits()};
}

// Kernel k of the "kernels" mode: three shapes of body with constants that differ per k, so that
// every k is a source of its own.
struct Variant {
  std::string body;
  double (*reference)(double x, double y, int a, int b, int c);
  int a, b, c;
};

Variant variant(int k) {
  int a = k % 7 + 1, b = k % 5 - 2, c = k;
  switch (k % 3) {
    case 0:
      return {porta::detail::cat("z = x * ", a, " + y * (", b, ") - ", c),
              [](double x, double y, int ka, int kb, int kc) { return x * ka + y * kb - kc; }, a, b, c};
    case 1:
      return {porta::detail::cat("z = fmax(x, y) * ", a, " + ", c),
              [](double x, double y, int ka, int, int kc) { return std::fmax(x, y) * ka + kc; }, a, b, c};
    default:
      return {porta::detail::cat("z = (x - y) * (x + y) + ", c),
              [](double x, double y, int, int, int kc) { return (x - y) * (x + y) + kc; }, a, b, c};
  }
}

// Runs `body` as an ElementwiseKernel named `name` on random inputs and compares with `ref`.
// Returns the empty string when every element matched, else what did not.
std::string run_one(const porta::Device& d, const std::string& name, const Variant& v, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  std::vector<float> x(kElements), y(kElements);
  for (auto& e : x) e = dist(rng);
  for (auto& e : y) e = dist(rng);
  porta::ElementwiseKernel kernel("float32 x, float32 y", "float32 z", v.body, name);
  porta::Array ax = porta::from_host(x, {kElements}, d), ay = porta::from_host(y, {kElements}, d);
  std::vector<float> z = kernel({ax, ay}).to_vector<float>();
  if (z.size() != x.size()) return porta::detail::cat(name, ": ", z.size(), " elements, expected ", x.size());
  for (std::size_t i = 0; i < z.size(); ++i) {
    double want = v.reference(x[i], y[i], v.a, v.b, v.c);
    double got = z[i];
    if (!(std::fabs(got - want) <= 1e-5 * std::fabs(want) + 1e-4))
      return porta::detail::cat(name, " (", v.body, "), seed ", seed, ": element ", i, " is ", got, ", expected ", want,
                                " (x ", x[i], ", y ", y[i], ")");
  }
  return {};
}

int usage() {
  std::fprintf(stderr, "usage: porta_cache_helper DEVICE kernels|threads|fft COUNT [SEED]\n");
  return 2;
}

}  // namespace

// fft and ifft over the last axis of random (3, n) complex64 data against an O(n^2) DFT in
// double, within 1e-5 of the line's norm; "" when all match.
static std::string run_fft(const porta::Device& d, int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g;
  std::vector<std::complex<float>> x(static_cast<std::size_t>(3 * n));
  for (auto& v : x) v = {g(rng), g(rng)};
  porta::Array a = porta::from_host(x, {3, n}, d);
  for (bool forward : {true, false}) {
    auto y = (forward ? porta::fft::fft(a) : porta::fft::ifft(a)).to_vector<std::complex<float>>();
    for (int b = 0; b < 3; ++b) {
      double norm = 0;
      for (int j = 0; j < n; ++j) norm += std::norm(std::complex<double>(x[static_cast<std::size_t>(b * n + j)]));
      for (int k = 0; k < n; ++k) {
        std::complex<double> s = 0;
        for (int j = 0; j < n; ++j)
          s += std::complex<double>(x[static_cast<std::size_t>(b * n + j)]) *
               std::polar(1.0, (forward ? -2 : 2) * std::numbers::pi * ((static_cast<long>(j) * k) % n) / n);
        if (!forward) s /= n;
        const double err = std::abs(s - std::complex<double>(y[static_cast<std::size_t>(b * n + k)]));
        if (!(err <= 1e-5 * std::sqrt(norm) + 1e-30))
          return porta::detail::cat(forward ? "fft" : "ifft", " line ", b, " element ", k, ": error ", err);
      }
    }
  }
  return "";
}

int main(int argc, char** argv) {
  if (argc < 4) return usage();
  std::string mode = argv[2];
  int count = std::atoi(argv[3]);
  std::uint64_t seed = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : std::random_device{}();
  if (count <= 0 || (mode != "kernels" && mode != "threads" && mode != "fft")) return usage();
  try {
    porta::Device d = porta::device(argv[1]);
    std::printf("device %s seed %llu\n", d.spec().c_str(), static_cast<unsigned long long>(seed));
    Counters before = counters(d);
    std::vector<std::string> failures;
    auto t0 = std::chrono::steady_clock::now();
    if (mode == "fft") {
      std::string f = run_fft(d, count, seed);
      if (!f.empty()) failures.push_back(f);
    } else if (mode == "kernels") {
      for (int k = 0; k < count; ++k) {
        std::string f = run_one(d, porta::detail::cat("cache_test_k", k), variant(k), seed + static_cast<std::uint64_t>(k));
        if (!f.empty()) failures.push_back(f);
      }
    } else {
      // Every thread builds its own ElementwiseKernel object with the same text; the name carries
      // the seed so that the kernel is new to this process and to the cache directory.
      std::string name = porta::detail::cat("cache_test_threads_", seed);
      std::barrier start(count);
      std::mutex m;
      std::vector<std::thread> threads;
      for (int t = 0; t < count; ++t)
        threads.emplace_back([&, t] {
          std::string f;
          start.arrive_and_wait();
          try {
            f = run_one(d, name, variant(0), seed + 1000 + static_cast<std::uint64_t>(t));
          } catch (const std::exception& e) {
            f = porta::detail::cat("thread ", t, ": ", e.what());
          }
          if (!f.empty()) {
            std::lock_guard lock(m);
            failures.push_back(f);
          }
        });
      for (auto& th : threads) th.join();
    }
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    Counters after = counters(d);
    std::printf("compiles %llu disk_hits %llu memory_hits %llu\n",
                static_cast<unsigned long long>(after.compiles - before.compiles),
                static_cast<unsigned long long>(after.disk_hits - before.disk_hits),
                static_cast<unsigned long long>(after.hits - before.hits));
    std::printf("elapsed_ms %.1f\n", ms);
    for (const auto& f : failures) std::printf("mismatch %s\n", f.c_str());
    if (!failures.empty()) return 1;
    std::printf("ok\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cache_helper: %s\n", e.what());
    return 2;
  }
}
