// Run-time compilers after exit() began. PoCL compiles with LLVM, NVRTC and NVIDIA's OpenCL
// compiler with NVVM; all keep static state that exit() destroys, so a compile asked for after
// that (a static DevicePool's queued task, a reduction in a static destructor) crashed inside
// the compiler. An exit handler registered after the compiler's own (handlers run in reverse
// order of registration) marks the start of exit, waits for builds under way, and from then on
// the backends refuse new compiles with a clear error.
//
// The guard and its handler live in libporta, which stays loaded until the process ends: a
// handler in a plugin would dangle once the plugin is closed (ThreadSanitizer's atexit does not
// tie handlers to their library, and the TSan run crashed at exit so).
#pragma once

#include <atomic>
#include <shared_mutex>
#include <string>

namespace porta::detail {

class ExitGuard {
 public:
  static ExitGuard& instance();

  // Registers the exit handler again, after a compiler may have registered its own teardown:
  // when a backend's devices are made, and after each plugin's first build. At most kMaxWatches
  // registrations in all; later calls do nothing.
  void watch();
  // A lock a build holds, so that exit waits for it; throws BackendUnavailable once exit began.
  std::shared_lock<std::shared_mutex> enter(const std::string& where, const std::string& entry);

 private:
  static constexpr int kMaxWatches = 8;
  static void on_exit();
  std::atomic<int> watches_{0};
  std::atomic<bool> started_{false};
  std::shared_mutex lock_;
};

}  // namespace porta::detail
