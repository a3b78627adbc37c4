// The exit guard of run-time compilers (base/exit_guard.hpp).
#include "base/exit_guard.hpp"

#include <cstdlib>
#include <mutex>

#include <porta/error.hpp>

#include "porta_backend/strings.hpp"

namespace porta::detail {

ExitGuard& ExitGuard::instance() {
  static ExitGuard* guard = new ExitGuard;  // never destroyed: its handlers run during exit
  return *guard;
}

void ExitGuard::watch() {
  if (watches_.fetch_add(1) < kMaxWatches) std::atexit(&ExitGuard::on_exit);
}

void ExitGuard::on_exit() {
  ExitGuard& g = instance();
  g.started_.store(true, std::memory_order_release);
  std::unique_lock wait_for_builds(g.lock_);
}

std::shared_lock<std::shared_mutex> ExitGuard::enter(const std::string& where, const std::string& entry) {
  std::shared_lock building(lock_);
  if (!started_.load(std::memory_order_acquire)) return building;
  throw BackendUnavailable(cat(
      where, ": kernel '", entry, "' would be compiled after the program began to exit (main returned or exit() was ",
      "called), when the device's compiler is already being torn down, so porta does not call it. Kernels compiled ",
      "before still run: finish this work before main returns, or run it once earlier so that its kernel is compiled"));
}

}  // namespace porta::detail
