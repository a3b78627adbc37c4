// Five host threads doing device work at once (Python: five threading.Thread workers, each
// calling CuPy). Every porta call is thread-safe and each thread gets its own queue (stream) on
// the shared default device, so the threads do not wait on each other. One array made on the
// main thread is read by all five.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <porta/porta.hpp>

int main() try {
  constexpr int kThreads = 5;
  constexpr int kRounds = 20;
  constexpr std::int64_t n = 1 << 16;
  const porta::Array base = porta::arange(n);  // int64 0..n-1, shared by every thread

  std::vector<std::string> report(kThreads);
  std::vector<std::exception_ptr> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        std::int64_t last = 0;
        for (int r = 0; r < kRounds; ++r) {
          // sum((t + 1) * i + r) over i < n
          std::int64_t got = porta::sum(base * (t + 1) + r).item<std::int64_t>();
          std::int64_t want = (t + 1) * (n * (n - 1) / 2) + r * n;
          if (got != want)
            throw std::runtime_error("thread " + std::to_string(t) + " round " + std::to_string(r) + ": sum " +
                                     std::to_string(got) + ", expected " + std::to_string(want));
          last = got;
        }
        report[t] = "thread " + std::to_string(t) + ": " + std::to_string(kRounds) + " rounds, last sum " + std::to_string(last);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& th : threads) th.join();

  std::printf("device %s (%s), %d threads\n", base.device().spec().c_str(), base.device().name().c_str(), kThreads);
  int failed = 0;
  for (int t = 0; t < kThreads; ++t) {
    if (errors[t]) {
      try {
        std::rethrow_exception(errors[t]);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "FAIL: thread %d: %s\n", t, e.what());
      }
      ++failed;
    } else {
      std::printf("  %s\n", report[t].c_str());
    }
  }
  if (failed) return 1;
  std::printf("OK\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "FAIL: %s\n", e.what());
  return 1;
}
