// One device per thread (Python: cp.cuda.Device(i).use() in thread i). porta::DeviceScope makes a
// device the thread's current device; arrays the thread creates land there. This runs one thread
// on every device porta::devices() lists (PORTA_BACKEND narrows the list), whatever the backend.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <porta/porta.hpp>

int main() try {
  const std::vector<porta::Device> devices = porta::devices();
  if (devices.empty()) {
    std::fprintf(stderr, "FAIL: no devices (run porta-info to see why)\n");
    return 1;
  }
  constexpr std::int64_t n = 4096;

  std::vector<std::string> report(devices.size());
  std::vector<std::string> errors(devices.size());
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        porta::DeviceScope scope(devices[i]);
        porta::Array x = porta::arange(0.0, double(n), 1.0, porta::DType::float32);  // on devices[i]
        porta::Array odd = x * 2 + 1;
        float total = porta::sum(odd).item<float>();  // 1 + 3 + ... + (2n - 1) = n * n, exact in float32
        if (odd.device() != devices[i] || porta::current_device() != devices[i])
          errors[i] = "array landed on " + odd.device().spec();
        else if (total != float(n * n))
          errors[i] = "sum " + std::to_string(total) + ", expected " + std::to_string(n * n);
        else
          report[i] = "sum of the first " + std::to_string(n) + " odd numbers = " + std::to_string(static_cast<long long>(total));
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();

  int failed = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    if (!errors[i].empty()) {
      std::fprintf(stderr, "FAIL: thread %zu on %s: %s\n", i, d.spec().c_str(), errors[i].c_str());
      ++failed;
    } else {
      std::printf("thread %zu on %-9s (%s): %s\n", i, d.spec().c_str(), d.name().c_str(), report[i].c_str());
    }
  }
  if (failed) return 1;
  std::printf("OK\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "FAIL: %s\n", e.what());
  return 1;
}
