// Run-time compilers after exit() began. PoCL compiles with LLVM, NVRTC and NVIDIA's OpenCL
// compiler with NVVM; all keep static state that exit() destroys, so a compile asked for after
// that (a static DevicePool's queued task, a reduction in a static destructor) crashed inside
// the compiler. An exit handler registered after the compiler's own (handlers run in reverse
// order of registration) marks the start of exit, waits for builds under way, and from then on
// a backend refuses new compiles with a clear error. Each plugin holds its own ExitGuard.
#pragma once

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <shared_mutex>
#include <string>

#include <porta/error.hpp>

#include "strings.hpp"

namespace porta::detail {

class ExitGuard {
 public:
  // Registers the exit handler when the compiler is set up, and again after its first build (a
  // compiler may register its own teardown at either point); later calls do nothing.
  void watch_setup() { std::call_once(setup_, [] { std::atexit(&on_exit); }); }
  void watch_first_build() { std::call_once(first_build_, [] { std::atexit(&on_exit); }); }
  // A lock a build holds, so that exit waits for it; throws BackendUnavailable once exit began.
  std::shared_lock<std::shared_mutex> enter(const std::string& where, const std::string& entry) {
    std::shared_lock building(lock_);
    if (!started_.load(std::memory_order_acquire)) return building;
    throw BackendUnavailable(cat(
        where, ": kernel '", entry, "' would be compiled after the program began to exit (main returned or exit() was ",
        "called), when the device's compiler is already being torn down, so porta does not call it. Kernels compiled ",
        "before still run: finish this work before main returns, or run it once earlier so that its kernel is compiled"));
  }

  static ExitGuard& instance() {
    static ExitGuard* guard = new ExitGuard;  // never destroyed: the handlers may run after statics
    return *guard;
  }

 private:
  static void on_exit() { instance().start(); }
  void start() {
    started_.store(true, std::memory_order_release);
    std::unique_lock wait_for_builds(lock_);
  }
  std::once_flag setup_, first_build_;
  std::atomic<bool> started_{false};
  std::shared_mutex lock_;
};

}  // namespace porta::detail
