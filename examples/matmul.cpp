// A matrix product on the device (Python: torch.matmul(a, b) on 1000 x 1000). porta::matmul uses
// cuBLAS on CUDA, porta's tiled kernel (or CLBlast) on OpenCL GPUs and the host's OpenBLAS on CPU
// devices. The time is measured by the device with porta::Event; a few entries are checked
// against a double-precision product on the host.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <exception>
#include <vector>

#include <porta/porta.hpp>

int main() try {
  constexpr std::int64_t n = 1000;
  constexpr int kRuns = 5;
  const porta::Device d = porta::default_device();
  std::printf("device %s (%s)\n", d.spec().c_str(), d.name().c_str());

  porta::random::Generator gen(7);
  porta::Array a = gen.uniform({n, n}, -1.0, 1.0, porta::DType::float32, d).eval();
  porta::Array b = gen.uniform({n, n}, -1.0, 1.0, porta::DType::float32, d).eval();

  porta::Array c = porta::matmul(a, b).eval();  // warm-up: compiles and allocates
  std::vector<double> ms;
  for (int r = 0; r < kRuns; ++r) {
    auto start = porta::Event::record(d);
    c = porta::matmul(a, b).eval();
    auto stop = porta::Event::record(d);
    stop.synchronize();
    ms.push_back(stop.elapsed_ms(start));
  }
  std::sort(ms.begin(), ms.end());
  const double median_ms = ms[kRuns / 2];
  std::printf("c = a @ b, %lld x %lld float32: %.3f ms (median of %d), %.1f GFLOP/s\n", static_cast<long long>(n),
              static_cast<long long>(n), median_ms, kRuns, 2.0 * n * n * n / (median_ms * 1e6));

  // TF32 (PORTA_MATMUL=tf32, CUDA) keeps 10 bits of mantissa; float32 keeps 23.
  const double tolerance = porta::setting_choice("PORTA_MATMUL") == "tf32" ? 2e-3 : 1e-5;
  const auto ah = a.to_vector<float>(), bh = b.to_vector<float>(), ch = c.to_vector<float>();
  const std::int64_t rows[] = {0, 1, 499, 998, 999};
  const std::int64_t cols[] = {0, 3, 500, 999};
  for (std::int64_t i : rows)
    for (std::int64_t j : cols) {
      double want = 0, scale = 0;
      for (std::int64_t k = 0; k < n; ++k) {
        want += double(ah[i * n + k]) * double(bh[k * n + j]);
        scale += std::abs(double(ah[i * n + k]) * double(bh[k * n + j]));
      }
      double got = ch[i * n + j];
      if (std::abs(got - want) > tolerance * scale + 1e-6) {
        std::fprintf(stderr, "FAIL: c[%lld][%lld] = %.7g, expected %.7g\n", static_cast<long long>(i),
                     static_cast<long long>(j), got, want);
        return 1;
      }
    }
  std::printf("c[0][0] = %.6f, c[999][999] = %.6f (20 entries match the host reference)\nOK\n", ch[0], ch[n * n - 1]);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "FAIL: %s\n", e.what());
  return 1;
}
