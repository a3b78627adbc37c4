// Two GPUs (or more) in one program: a DevicePool spreading independent 4096 x 4096 matmuls over
// every GPU of one backend, against the same pool on the first GPU alone, and to() between two
// GPUs (device to device where the backend can). Prints tasks/s, the speed-up and GB/s; exits
// with 77 (skipped) where no backend has two GPUs.
//   multi_gpu [n] [tasks]      (defaults 4096, 96)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <vector>

#include <porta/porta.hpp>

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Inputs made once per device, so the tasks time the matmuls alone.
struct Inputs {
  porta::Array a, b;
};

// Tasks per second of `tasks` matmuls over a pool of `gpus`; checks one result at 16 entries.
double pool_throughput(const std::vector<porta::Device>& gpus, std::map<std::string, Inputs>& in, std::int64_t n,
                       int tasks, int* failures) {
  porta::DevicePool pool(gpus);
  // Warm-up: one task per device (cuBLAS handles, kernels, memory pools).
  for (const auto& d : gpus) pool.submit_to(d, [&](const porta::Device& dev) { porta::matmul(in.at(dev.spec()).a, in.at(dev.spec()).b).eval(); }).get();
  auto t0 = std::chrono::steady_clock::now();
  auto results = pool.map(tasks, [&](const porta::Device& dev, std::int64_t) {
    porta::Array c = porta::matmul(in.at(dev.spec()).a, in.at(dev.spec()).b);
    c.eval();
    return c;
  });
  double s = seconds_since(t0);
  // Check 16 entries of the last result against a double-precision dot product.
  const porta::Array& c = results.back();
  const Inputs& src = in.at(c.device().spec());
  std::vector<float> a = src.a.to_vector<float>(), b = src.b.to_vector<float>(), cv = c.to_vector<float>();
  for (int k = 0; k < 16; ++k) {
    std::int64_t i = (k * 977) % n, j = (k * 131 + 7) % n;
    double ref = 0;
    for (std::int64_t p = 0; p < n; ++p) ref += static_cast<double>(a[static_cast<std::size_t>(i * n + p)]) * b[static_cast<std::size_t>(p * n + j)];
    double got = cv[static_cast<std::size_t>(i * n + j)];
    if (std::abs(got - ref) > 1e-3 * std::sqrt(static_cast<double>(n))) {
      std::fprintf(stderr, "FAIL: C[%lld][%lld] = %.6f on %s, expected %.6f\n", static_cast<long long>(i), static_cast<long long>(j),
                   got, c.device().spec().c_str(), ref);
      ++*failures;
    }
  }
  return tasks / s;
}

}  // namespace

int main(int argc, char** argv) try {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 4096;
  const int tasks = argc > 2 ? std::atoi(argv[2]) : 96;
  int failures = 0, backends_run = 0;
  for (porta::Backend backend : {porta::Backend::cuda, porta::Backend::opencl}) {
    std::vector<porta::Device> gpus;
    for (const auto& d : porta::devices())
      if (d.backend() == backend && d.kind() == porta::DeviceKind::gpu) gpus.push_back(d);
    if (gpus.size() < 2) continue;
    ++backends_run;
    std::printf("%s: %zu GPUs:", std::string(porta::name(backend)).c_str(), gpus.size());
    for (const auto& g : gpus) std::printf(" %s (%s)", g.spec().c_str(), g.name().c_str());
    std::printf("\n");

    std::map<std::string, Inputs> in;
    for (const auto& g : gpus) {
      porta::Array a = porta::random::uniform({n, n}, -1, 1, porta::DType::float32, g);
      porta::Array b = porta::random::uniform({n, n}, -1, 1, porta::DType::float32, g);
      a.eval();
      b.eval();
      in[g.spec()] = {a, b};
    }
    double one = pool_throughput({gpus[0]}, in, n, tasks, &failures);
    double all = pool_throughput(gpus, in, n, tasks, &failures);
    double flop = 2.0 * static_cast<double>(n) * n * n;
    std::printf("  %d matmuls %lld x %lld float32: one GPU %.1f tasks/s (%.1f TFLOP/s), %zu GPUs %.1f tasks/s (%.1f TFLOP/s): %.2fx\n",
                tasks, static_cast<long long>(n), static_cast<long long>(n), one, one * flop / 1e12, gpus.size(), all,
                all * flop / 1e12, all / one);

    // to() between the first two GPUs: 1 GiB, median of 5, checked on the way back.
    porta::Array x = porta::random::uniform({std::int64_t{1} << 28}, -1, 1, porta::DType::float32, gpus[0]);
    x.eval();
    std::vector<double> times;
    porta::Array y;
    for (int r = 0; r < 5; ++r) {
      auto t0 = std::chrono::steady_clock::now();
      y = x.to(gpus[1]);
      porta::synchronize(gpus[1]);
      times.push_back(seconds_since(t0));
    }
    std::sort(times.begin(), times.end());
    bool same = porta::all(porta::equal(y.to(gpus[0]), x)).item<bool>() && y.device() == gpus[1];
    if (!same) {
      std::fprintf(stderr, "FAIL: %s -> %s changed the data\n", gpus[0].spec().c_str(), gpus[1].spec().c_str());
      ++failures;
    }
    std::printf("  to(): %s -> %s, 1 GiB: %.1f GB/s (median of 5, host clock)%s\n", gpus[0].spec().c_str(), gpus[1].spec().c_str(),
                static_cast<double>(x.nbytes()) / times[2] / 1e9, same ? "" : "  WRONG");
  }
  if (backends_run == 0) {
    std::printf("no backend has two GPUs here: nothing to run (skipped)\n");
    return 77;
  }
  if (failures) {
    std::fprintf(stderr, "FAIL: %d wrong results\n", failures);
    return 1;
  }
  std::printf("OK\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "FAIL: %s\n", e.what());
  return 1;
}
