// Where argmax loses to sum on a GPU (issue 21): device-event medians of whole-array and per-row
// sum, max and argmax over 2^28 float32, at several sizes, and of the rows of a (rows, cols) array
// whose row pass needs no second pass (one work-group a row).
//
// Build (after porta's build in build/):
//   g++ -O2 -std=c++20 scripts/dev/reduce_probe.cpp -Iinclude -Ibuild/generated -Lbuild/lib -lporta -o reduce_probe
// Run:   reduce_probe [device spec, e.g. opencl:1]
#include <porta/porta.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

double median_ms(const porta::Device& d, const std::function<porta::Array()>& f) {
  for (int w = 0; w < 3; ++w) f().eval();
  porta::synchronize(d);
  std::vector<double> ms;
  for (int r = 0; r < 15; ++r) {
    auto e0 = porta::Event::record(d);
    porta::Array out = f().eval();
    auto e1 = porta::Event::record(d);
    porta::synchronize(d);
    ms.push_back(e1.elapsed_ms(e0));
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  porta::Device d = argc > 1 ? porta::device(argv[1]) : porta::current_device();
  std::printf("%s\n%-34s %10s %10s\n", d.spec().c_str(), "reduction", "ms", "GB/s");
  for (std::int64_t n : {std::int64_t{1} << 20, std::int64_t{1} << 24, std::int64_t{1} << 28}) {
    porta::Array x = porta::random::uniform({n}, 0.0, 1.0, porta::DType::float32, d).eval();
    auto row = [&](const char* what, const std::function<porta::Array()>& f) {
      double ms = median_ms(d, f);
      std::printf("%-34s %10.4f %10.1f\n", (std::string(what) + " n=2^" + std::to_string(__builtin_ctzll(n))).c_str(), ms,
                  n * 4.0 / ms / 1e6);
    };
    row("sum", [&] { return porta::sum(x); });
    row("max", [&] { return porta::max(x); });
    row("argmax", [&] { return porta::argmax(x); });
    if (n == (std::int64_t{1} << 28)) {
      // 4096 rows of 65536: one work-group a row, no second pass.
      porta::Array m = x.reshape({4096, n / 4096});
      row("sum rows 4096", [&] { return porta::sum(m, 1); });
      row("max rows 4096", [&] { return porta::max(m, 1); });
      row("argmax rows 4096", [&] { return porta::argmax(m, 1); });
    }
  }
  return 0;
}
