// One PoCL build of a program at a time on a machine. PoCL 3.1 (Debian 12) can crash when
// processes build the same program into one kernel cache at once (a readdir of a directory another
// process has just removed, pocl#1480): MPI ranks on one machine, two Python processes. porta's
// builds on PoCL (its kernels, VkFFT's) hold an advisory lock on a file of the user's for the
// build's duration: one of kStripes files, chosen by the program's text, so that the same program
// is built by one process at a time while different programs (ctest -j's processes) build at once.
#pragma once
#include <string>
#include <string_view>

namespace porta::opencl {

// Whether an OpenCL platform name is PoCL's.
bool is_pocl(const std::string& platform);

class PoclBuildLock {
 public:
  // Locks where `platform` is PoCL's; else nothing. Re-entrant in a thread (a nested build takes
  // no second lock). Without a lock file (no writable directory) or after waiting kWaitSeconds
  // for one, the build goes on unlocked (and may meet the race).
  PoclBuildLock(const std::string& platform, std::string_view program);
  ~PoclBuildLock();
  PoclBuildLock(const PoclBuildLock&) = delete;
  PoclBuildLock& operator=(const PoclBuildLock&) = delete;

  static constexpr int kWaitSeconds = 300;
  static constexpr unsigned kStripes = 64;

 private:
  int fd_ = -1;
  bool counted_ = false;  // PoCL's: counted in this thread's locks, the outermost holding fd_
};

}  // namespace porta::opencl
