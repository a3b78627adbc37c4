// Whether the values multiplied change a GEMM's speed (the tensor cores' power draw): float16
// matmul 4096 and 8192 on each device named, on inputs of several distributions, timed by device
// events (event_timing.hpp). porta's OpenCL GEMM search times its candidates on values in
// [-0.5, 0.5) with A = B; porta-bench multiplies two independent uniform(-1, 1) matrices, and the
// same kernel measured 451 and 388 TFLOP/s there (H200, 2026-12-04).
//   g++ -O2 -std=c++20 -Iinclude scripts/dev/gemm_data_probe.cpp -o /tmp/gemm_data_probe -L$B/lib -lporta -Wl,-rpath,$B/lib
//   /tmp/gemm_data_probe cuda:0 opencl:1
#include "event_timing.hpp"

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    porta::Device d = porta::device(argv[i]);
    porta::random::Generator gen(7);
    for (std::int64_t n : {4096, 8192}) {
      auto u = [&](double lo, double hi) { return gen.uniform({n, n}, lo, hi, porta::DType::float32, d).astype(porta::DType::float16).eval(); };
      struct Case {
        const char* what;
        porta::Array a, b;
      };
      porta::Array h = u(-0.5, 0.5);
      Case cases[] = {{"uniform(-1,1) A, B independent (porta-bench)", u(-1, 1), u(-1, 1)},
                      {"uniform(-0.5,0.5), A = B (the search)", h, h},
                      {"uniform(-0.5,0.5) A, B independent", h, u(-0.5, 0.5)},
                      {"uniform(0,1) A, B independent", u(0, 1), u(0, 1)},
                      {"zeros", porta::zeros({n, n}, porta::DType::float16, d), porta::zeros({n, n}, porta::DType::float16, d)},
                      {"ones", porta::ones({n, n}, porta::DType::float16, d), porta::ones({n, n}, porta::DType::float16, d)}};
      for (const Case& c : cases) {
        const double ms = time_ms(d, [&] { porta::matmul(c.a, c.b).eval(); });
        std::printf("%s n=%lld %-46s %8.1f TFLOP/s\n", argv[i], static_cast<long long>(n), c.what,
                    2.0 * n * n * n / ms / 1e9);
        std::fflush(stdout);
      }
    }
  }
}
