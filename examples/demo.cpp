// porta's cross-vendor demo: the same small workload on every device present, one table.
//   fused   z = a*x*x + b*x + c*exp(-y) on float32 arrays: one generated kernel (GB/s of x, y, z)
//   sum     sum(x) (GB/s of x)
//   kernel  a user ElementwiseKernel, saxpy z = a*x + y (GB/s of x, y, z)
//   matmul  float32 n x n product (GFLOP/s)
// Every time is measured by the device (porta::Event), median of several runs after a warm-up;
// every result is checked against the host. With PORTA_DEVICE set only that device runs;
// PORTA_BACKEND narrows the list. A device that cannot run a step (user kernels on Kokkos) says
// why in the notes and the demo carries on; a wrong result or an error makes the exit status 1.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include <porta/porta.hpp>

namespace {

constexpr int kRuns = 5;

struct Row {
  porta::Device device;
  std::int64_t elements = 0;
  std::int64_t matmul_n = 0;
  std::string fused = "-", sum = "-", kernel = "-", matmul = "-";
};

std::vector<std::string> notes;
bool failed = false;

// Median device time of `step` in milliseconds, after one untimed run (compiles, allocates).
double median_ms(const porta::Device& d, const std::function<void()>& step) {
  step();
  std::vector<double> ms;
  for (int r = 0; r < kRuns; ++r) {
    auto start = porta::Event::record(d);
    step();
    auto stop = porta::Event::record(d);
    stop.synchronize();
    ms.push_back(stop.elapsed_ms(start));
  }
  std::sort(ms.begin(), ms.end());
  return ms[kRuns / 2];
}

std::string rate(double units_per_ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", units_per_ms / 1e6);
  return buf;
}

bool close(double got, double want, double rel) { return std::abs(got - want) <= rel * (std::abs(want) + 1.0); }

// Runs one step; a wrong result or an error goes into the notes and the cell.
void cell(const porta::Device& d, const char* what, std::string& out, const std::function<std::string()>& step) {
  try {
    out = step();
  } catch (const porta::BackendUnavailable& e) {
    out = "n/a";
    notes.push_back(d.spec() + " " + what + ": " + e.what());
  } catch (const std::exception& e) {
    out = "error";
    failed = true;
    notes.push_back(d.spec() + " " + what + ": " + e.what());
  }
}

void wrong(const porta::Device& d, const char* what, const std::string& detail) {
  failed = true;
  notes.push_back(d.spec() + " " + what + ": WRONG RESULT: " + detail);
}

Row run(const porta::Device& d) {
  porta::DeviceScope scope(d);
  Row row;
  row.device = d;
  const bool gpu = d.kind() == porta::DeviceKind::gpu;
  // On GPUs larger than the last-level cache (60 MB on an H200); on CPUs a size that keeps a
  // 2-core CI machine quick.
  const std::int64_t n = gpu ? std::int64_t{1} << 26 : std::int64_t{1} << 22;
  const std::int64_t m = gpu ? 4096 : 1024;
  row.elements = n;
  row.matmul_n = m;

  porta::random::Generator gen(2024);
  const porta::Array x = gen.uniform({n}, 0.0, 1.0).eval();
  const porta::Array y = gen.uniform({n}, 0.0, 1.0).eval();
  const std::int64_t probe[] = {0, 1, n / 3, n - 1};
  const double bytes3 = 3.0 * 4.0 * double(n);

  cell(d, "fused", row.fused, [&] {
    porta::Array z;
    double ms = median_ms(d, [&] { z = (0.5f * x * x - 1.25f * x + 2.0f * porta::exp(-y)).eval(); });
    for (auto i : probe) {
      double xi = x[i].item<float>(), yi = y[i].item<float>();
      double want = 0.5 * xi * xi - 1.25 * xi + 2.0 * std::exp(-yi), got = z[i].item<float>();
      if (!close(got, want, 1e-5)) wrong(d, "fused", "z[" + std::to_string(i) + "] = " + std::to_string(got) + ", expected " + std::to_string(want));
    }
    return rate(bytes3 / ms);
  });

  cell(d, "sum", row.sum, [&] {
    porta::Array s;
    double ms = median_ms(d, [&] { s = porta::sum(x).eval(); });
    double want = 0;
    for (float v : x.to_vector<float>()) want += v;
    double got = s.item<float>();
    if (!close(got, want, 1e-4)) wrong(d, "sum", std::to_string(got) + ", expected " + std::to_string(want));
    return rate(4.0 * double(n) / ms);
  });

  cell(d, "kernel", row.kernel, [&] {
    const porta::ElementwiseKernel saxpy("float32 a, float32 x, float32 y", "float32 z", "z = a * x + y", "saxpy");
    porta::Array z;
    double ms = median_ms(d, [&] { z = saxpy({3.0f, x, y}); });
    for (auto i : probe) {
      float want = 3.0f * x[i].item<float>() + y[i].item<float>(), got = z[i].item<float>();
      if (!close(got, want, 1e-6)) wrong(d, "kernel", "z[" + std::to_string(i) + "] = " + std::to_string(got) + ", expected " + std::to_string(want));
    }
    return rate(bytes3 / ms);
  });

  cell(d, "matmul", row.matmul, [&] {
    const porta::Array a = gen.uniform({m, m}, -1.0, 1.0).eval();
    const porta::Array b = gen.uniform({m, m}, -1.0, 1.0).eval();
    porta::Array c;
    double ms = median_ms(d, [&] { c = porta::matmul(a, b).eval(); });
    const auto ah = a.to_vector<float>(), bh = b.to_vector<float>(), ch = c.to_vector<float>();
    const double tol = porta::setting_choice("PORTA_MATMUL") == "tf32" ? 2e-3 : 1e-5;
    for (std::int64_t i : {std::int64_t{0}, m / 2, m - 1})
      for (std::int64_t j : {std::int64_t{0}, m - 1}) {
        double want = 0, scale = 0;
        for (std::int64_t k = 0; k < m; ++k) {
          double p = double(ah[i * m + k]) * double(bh[k * m + j]);
          want += p;
          scale += std::abs(p);
        }
        if (std::abs(ch[i * m + j] - want) > tol * scale + 1e-6)
          wrong(d, "matmul", "c[" + std::to_string(i) + "][" + std::to_string(j) + "] = " + std::to_string(ch[i * m + j]) +
                                 ", expected " + std::to_string(want));
      }
    return rate(2.0 * double(m) * double(m) * double(m) / ms);
  });
  return row;
}

}  // namespace

int main() try {
  const porta::Device def = porta::default_device();
  std::vector<porta::Device> devices;
  if (porta::setting_text("PORTA_DEVICE"))
    devices.push_back(def);
  else
    devices = porta::devices();

  std::vector<Row> rows;
  for (const auto& d : devices) {
    std::printf("running on %s (%s)...\n", d.spec().c_str(), d.name().c_str());
    std::fflush(stdout);
    rows.push_back(run(d));
  }

  std::printf("\nporta demo: float32, median of %d device-timed runs (porta::Event)\n\n", kRuns);
  std::printf("%-10s %-30s %10s %11s %9s %12s %9s %12s\n", "device", "name", "elements", "fused GB/s", "sum GB/s",
              "kernel GB/s", "matmul n", "GFLOP/s");
  for (const auto& r : rows) {
    std::string spec = r.device.spec() + (r.device == def ? " *" : "");
    std::string name = r.device.name().substr(0, 30);
    std::printf("%-10s %-30s %10lld %11s %9s %12s %9lld %12s\n", spec.c_str(), name.c_str(), static_cast<long long>(r.elements),
                r.fused.c_str(), r.sum.c_str(), r.kernel.c_str(), static_cast<long long>(r.matmul_n), r.matmul.c_str());
  }
  std::printf("\n* default device.  fused: z = 0.5*x*x - 1.25*x + 2*exp(-y), one kernel; kernel: ElementwiseKernel saxpy.\n");
  if (!notes.empty()) {
    std::printf("\nnotes:\n");
    for (const auto& n : notes) std::printf("  %s\n", n.c_str());
  }
  if (failed) {
    std::fprintf(stderr, "FAIL: a result was wrong or a step failed (see the notes)\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "FAIL: %s\n", e.what());
  return 1;
}
