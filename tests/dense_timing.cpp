// porta_dense_timing: times porta's own solvers (src/primitives/dense.hpp) on one device, for
// tuning them; not a benchmark with peers (porta-bench's linalg rows are, through the public
// porta::linalg). Usage: porta_dense_timing <device> [n ...] [--batch B] [--dtype float32|float64|complex64|complex128] [--phases]
// Prints, for getrf, potrf (A = M M^T + n I), geqrf and getrs (one right-hand side), the median
// of three runs after a warm-up, in ms and GFLOP/s (LAPACK's operation counts for real dtypes).
// --phases: then one more run of each factorization with a device event before every kernel and
// GEMM (dense::set_phase_hook), and the device time of each step's kind summed over the run.
#include <porta/porta.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lazy/node.hpp"
#include "primitives/dense.hpp"

namespace {

namespace dense = porta::detail::dense;
using porta::Array;
using porta::DType;

double median_ms(const porta::Device& d, const std::function<void()>& setup, const std::function<void()>& run) {
  std::vector<double> ms;
  for (int r = 0; r < 4; ++r) {
    setup();
    porta::synchronize(d);
    auto t0 = std::chrono::steady_clock::now();
    run();
    porta::synchronize(d);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  ms.erase(ms.begin());  // the warm-up (kernel compiles)
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// --phases: the events the hook recorded in a run, each with the step that follows it.
porta::Device phase_device;
std::vector<std::pair<const char*, porta::Event>> phase_events;
void record_phase(const char* step) { phase_events.emplace_back(step, porta::Event::record(phase_device)); }

// One run of `run` with events before each step; prints each step's share of the device time.
void print_phases(const char* what, const porta::Device& d, const std::function<void()>& setup, const std::function<void()>& run) {
  setup();
  porta::synchronize(d);
  phase_device = d;
  phase_events.clear();
  dense::set_phase_hook(record_phase);
  run();
  dense::set_phase_hook(nullptr);
  const porta::Event end = porta::Event::record(d);
  end.synchronize();
  std::map<std::string, std::pair<double, int>> by_step;
  double total = 0;
  for (std::size_t i = 0; i < phase_events.size(); ++i) {
    const porta::Event& next = i + 1 < phase_events.size() ? phase_events[i + 1].second : end;
    const double ms = next.elapsed_ms(phase_events[i].second);
    by_step[phase_events[i].first].first += ms;
    by_step[phase_events[i].first].second += 1;
    total += ms;
  }
  std::vector<std::tuple<double, std::string, int>> rows;  // the steps, longest first
  for (const auto& [step, v] : by_step) rows.emplace_back(v.first, step, v.second);
  std::sort(rows.rbegin(), rows.rend());
  std::printf("  %s phases: %.3f ms over %zu steps:", what, total, phase_events.size());
  for (const auto& [ms, step, count] : rows) std::printf("  %s %.3f ms (%d)", step.c_str(), ms, count);
  std::printf("\n");
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <device> [n ...] [--batch B] [--dtype NAME] [--phases]\n", argv[0]);
    return 2;
  }
  const porta::Device d = porta::device(argv[1]);
  std::vector<std::int64_t> sizes;
  std::int64_t batch = 1;
  DType t = DType::float32;
  bool phases = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--phases") phases = true;
    else if (a == "--batch" && i + 1 < argc) batch = std::atoll(argv[++i]);
    else if (a == "--dtype" && i + 1 < argc) {
      const std::string n = argv[++i];
      t = n == "float64" ? DType::float64 : n == "complex64" ? DType::complex64 : n == "complex128" ? DType::complex128 : DType::float32;
    } else sizes.push_back(std::atoll(a.c_str()));
  }
  if (sizes.empty()) sizes = {1024, 4096};
  std::printf("%s (%s), %s, batch %lld\n", d.spec().c_str(), d.name().c_str(), porta::name(t).data(), static_cast<long long>(batch));
  for (std::int64_t n : sizes) {
    const DType rt = porta::is_complex(t) ? porta::real_dtype(t) : t;
    Array src = porta::random::uniform({batch, n, n}, -1.0, 1.0, rt, d).astype(t).eval();
    // SPD: M M^T + n I (M^T M of the same random matrix, column-major or not, is symmetric).
    Array spd = (porta::matmul(src, src.transpose({0, 2, 1})) + porta::eye(n, n, 0, t, d) * static_cast<double>(n)).eval();
    Array a, ipiv = porta::zeros({batch * n}, DType::int32, d), info = porta::zeros({batch}, DType::int32, d);
    Array tau = porta::zeros({batch * n}, t, d), b;
    auto fresh = [&](const Array& from) { return [&a, &from] { a = from.copy().eval(); }; };
    auto v = [](const Array& x) -> const porta::detail::View& { return porta::detail::evaluate(x.node()); };
    const double n3 = static_cast<double>(n) * n * n * batch;
    const auto getrf = [&] { dense::getrf(t, v(a), v(ipiv), v(info), batch, n); };
    const auto potrf = [&] { dense::potrf(t, v(a), v(info), batch, n); };
    const auto geqrf = [&] { dense::geqrf(t, v(a), v(tau), batch, n, n); };
    const double lu = median_ms(d, fresh(src), getrf), ch = median_ms(d, fresh(spd), potrf), qr = median_ms(d, fresh(src), geqrf);
    a = src.copy().eval();
    dense::getrf(t, v(a), v(ipiv), v(info), batch, n);
    const double rs = median_ms(d, [&] { b = porta::ones({batch, n}, t, d).eval(); }, [&] { dense::getrs(t, v(a), v(ipiv), v(b), batch, n, 1); });
    std::printf("n %6lld  getrf %9.3f ms %8.1f GFLOP/s  potrf %9.3f ms %8.1f GFLOP/s  geqrf %9.3f ms %8.1f GFLOP/s  getrs(1) %9.3f ms\n",
                static_cast<long long>(n), lu, 2.0 / 3 * n3 / lu / 1e6, ch, n3 / 3 / ch / 1e6, qr, 4.0 / 3 * n3 / qr / 1e6, rs);
    if (phases) {
      print_phases("getrf", d, fresh(src), getrf);
      print_phases("potrf", d, fresh(spd), potrf);
      print_phases("geqrf", d, fresh(src), geqrf);
    }
  }
  return 0;
}

}  // namespace

// porta's typed errors (a PORTA_DENSE_GROUP the kernel does not allow, a device without float64)
// printed, not left to std::terminate.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "porta_dense_timing: %s\n", e.what());
    return 1;
  }
}
