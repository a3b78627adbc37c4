// The compiled-kernel cache on disk (CuPy's compiler cache). A kernel is code that will run, so
// the directory must belong to this user and be writable by nobody else (it is created 0700),
// and so must each file. Each file holds its key and a checksum of key and payload; a file
// that does not match (corrupt, truncated, another key) is ignored and rewritten. Files are
// written to a temporary name in the directory and renamed into place, so processes sharing
// the directory never read half a file.
//
// An entry that is not a regular file of this user (a FIFO, a device, a symbolic link), larger
// than kMaxEntryBytes, or unreadable is a miss: the kernel is compiled again and the entry
// replaced; load() never throws. Temporary files that a killed writer left are removed when the
// directory is opened, once older than kStaleTempAgeSeconds. A directory that others can write
// is refused; an ancestor that others can write without the sticky bit is warned about once.
//
// PORTA_CACHE_DIR sets the directory (default $XDG_CACHE_HOME/porta, else ~/.cache/porta);
// PORTA_CACHE=off turns the disk cache off. Implemented in src/runtime/disk_cache.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace porta::detail {

class DiskCache {
 public:
  static DiskCache& get();

  // Out of line, like every member: plugins reach the cache through the interface
  // (services.hpp), so its data members are not part of the plugins' view of it.
  bool enabled() const;
  const std::string& directory() const;
  const std::string& why_disabled() const;

  std::optional<std::vector<std::uint8_t>> load(const std::string& key) const;
  void store(const std::string& key, std::span<const std::uint8_t> payload) const;

  struct Usage {
    std::uint64_t files = 0, bytes = 0;
  };
  Usage usage() const;

  // The largest entry read (the biggest OpenCL program binaries are a few MiB).
  static constexpr std::uint64_t kMaxEntryBytes = 256ull << 20;
  // Age after which a ".tmp-*" file in the directory counts as a dead writer's.
  static constexpr long kStaleTempAgeSeconds = 10 * 60;

  // Public for tests: where `key` is stored.
  std::string path_for(const std::string& key) const;

 private:
  DiskCache();
  std::optional<std::vector<std::uint8_t>> read_entry(const std::string& key) const;
  bool enabled_ = false;
  std::string dir_;
  std::string why_;
};

std::uint64_t fnv1a64(std::span<const std::uint8_t> data, std::uint64_t h = 0xcbf29ce484222325ULL);

}  // namespace porta::detail
