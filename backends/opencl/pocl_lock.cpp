#include "opencl/pocl_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <functional>
#include <thread>

#include "porta_backend/env.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::opencl {
namespace {

// The lock file: in XDG_RUNTIME_DIR (the user's own, mode 0700) where there is one, else in the
// temporary directory under the user's id. O_NOFOLLOW and the owner check keep another user's
// planted file or link from being used.
std::string lock_path(unsigned stripe) {
  if (auto run = detail::env("XDG_RUNTIME_DIR")) return detail::cat(*run, "/porta-pocl-build-", stripe, ".lock");
  return detail::cat(detail::env("TMPDIR").value_or("/tmp"), "/porta-pocl-build-", ::geteuid(), "-", stripe, ".lock");
}

// The locks this thread holds: a build inside a build (VkFFT's, routed through porta's compile)
// takes none, where a second flock of the same file would wait on this thread's own.
thread_local int held_here = 0;

}  // namespace

bool is_pocl(const std::string& platform) { return platform.find("Portable Computing Language") != std::string::npos; }

PoclBuildLock::PoclBuildLock(const std::string& platform, std::string_view program) {
  if (!is_pocl(platform)) return;
  counted_ = true;
  if (held_here++ > 0) return;
  const std::string path = lock_path(static_cast<unsigned>(std::hash<std::string_view>{}(program) % kStripes));
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    PORTA_LOG(debug, "PoCL build lock ", path, " not opened (errno ", errno, "): building unlocked");
    return;
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
    ::close(fd);
    return;
  }
  // Polled, so that a process that hangs in a build holds the others back kWaitSeconds at most.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kWaitSeconds);
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if ((errno != EWOULDBLOCK && errno != EINTR) || std::chrono::steady_clock::now() > deadline) {
      PORTA_LOG(info, "PoCL build lock ", path, " not taken (errno ", errno, "): building unlocked");
      ::close(fd);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  fd_ = fd;
}

PoclBuildLock::~PoclBuildLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the lock
  if (counted_) --held_here;
}

}  // namespace porta::opencl
