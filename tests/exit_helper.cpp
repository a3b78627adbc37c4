// Run by the exit tests in a subprocess, with a device's spec: porta work that needs new kernels
// after main returns (a reduction in a static destructor, tasks still queued in a static
// DevicePool). Each must finish or fail with a porta error it prints; never crash or abort.
#include <porta/porta.hpp>

#include <cstdio>
#include <future>
#include <memory>
#include <string>
#include <vector>

namespace {

porta::Device g_device;

struct ReducesAtExit {
  ~ReducesAtExit() {
    if (!g_device.valid()) return;
    try {
      auto v = porta::sum(porta::arange(1000, porta::DType::int64, g_device) * 3 + 11).item<std::int64_t>();
      std::printf("static destructor: sum %lld (want %lld)\n", static_cast<long long>(v), 3LL * 999 * 1000 / 2 + 11000LL);
    } catch (const porta::Error& e) {
      std::printf("static destructor: porta error: %s\n", e.what());
    }
    std::fflush(stdout);
  }
};
ReducesAtExit g_reduces;  // constructed before main: destroyed after everything main started
std::unique_ptr<porta::DevicePool> g_pool;
std::vector<std::future<double>> g_results;

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  g_device = porta::device(argv[1]);
  // One compile now, so that the device's compiler is set up before main returns.
  (void)(porta::ones({8}, porta::DType::float32, g_device) + 1).to_vector<float>();
  g_pool = std::make_unique<porta::DevicePool>(std::vector<porta::Device>{g_device});
  for (int k = 0; k < 4; ++k)
    g_results.push_back(g_pool->submit([k](const porta::Device& d) {
      return porta::max(porta::arange(100 + k, porta::DType::float32, d) * static_cast<float>(k + 2)).item<float>() * 1.0;
    }));
  std::printf("main returns\n");
  return 0;
}
