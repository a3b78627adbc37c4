// The disk kernel cache: directory checks, the file format, atomic writes, and entries that are
// not what a cache file should be (a FIFO, a device, a huge sparse file, a writer's leftovers).
#include "porta_backend/disk_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "porta_backend/env.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/log.hpp"

namespace porta::detail {
namespace {

constexpr char kMagic[8] = {'P', 'O', 'R', 'T', 'A', 'K', 'C', '1'};
struct Header {
  char magic[8];
  std::uint32_t key_bytes;
  std::uint32_t reserved;
  std::uint64_t payload_bytes;
  std::uint64_t checksum;  // fnv1a64 of key then payload
};

constexpr char kTempPrefix[] = ".tmp-";

// Creates `path` and its missing parents with mode 0700.
bool make_dirs(const std::string& path, std::string& err) {
  std::string partial;
  for (std::size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || (path[i] == '/' && i > 0)) {
      partial = path.substr(0, i);
      if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) {
        err = cat("cannot create ", partial, ": ", std::strerror(errno));
        return false;
      }
    }
  }
  return true;
}

// A path porta may trust: owned by this user and not writable by group or others.
bool trusted(const struct stat& st, const std::string& what, std::string& why) {
  if (st.st_uid != ::geteuid()) {
    why = cat(what, " belongs to uid ", st.st_uid, ", not to this user (uid ", ::geteuid(), ")");
    return false;
  }
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    why = cat(what, " is writable by other users (mode ", std::oct, (st.st_mode & 07777), std::dec, ")");
    return false;
  }
  return true;
}

// Every ancestor of `dir` that users other than its owner may write to without the sticky bit:
// such a user can rename `dir` away and put a directory of their own in its place. Returns the
// first one found, or "". Walks the real path (symbolic links and a relative name resolved).
std::string unsafe_ancestor(const std::string& dir) {
  std::string path = dir;
  if (char* real = ::realpath(dir.c_str(), nullptr)) {
    path = real;
    std::free(real);
  }
  while (true) {
    std::size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return {};
    path = slash == 0 ? std::string("/") : path.substr(0, slash);
    struct stat st{};
    if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & (S_IWGRP | S_IWOTH)) &&
        !(st.st_mode & S_ISVTX))
      return cat(path, " (mode ", std::oct, (st.st_mode & 07777), std::dec, ")");
    if (path == "/") return {};
  }
}

// Removes the temporary files (".tmp-*") of writers that died before renaming them (kill -9,
// a full disk): regular files of this user older than kStaleTempAgeSeconds. A live writer's file is
// seconds old at most.
void remove_stale_temporaries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  while (dirent* e = ::readdir(d)) {
    if (std::strncmp(e->d_name, kTempPrefix, sizeof kTempPrefix - 1) != 0) continue;
    std::string path = dir + "/" + e->d_name;
    struct stat st{};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) continue;
    if (now - st.st_mtime < DiskCache::kStaleTempAgeSeconds) continue;
    if (::unlink(path.c_str()) == 0) PORTA_LOG(info, "kernel cache: removed ", path, ", left by a writer that did not finish");
  }
  ::closedir(d);
}

}  // namespace

std::uint64_t fnv1a64(std::span<const std::uint8_t> data, std::uint64_t h) {
  for (std::uint8_t b : data) {
    h ^= b;
    h *= 0x100000001b3ULL;
  }
  return h;
}

DiskCache& DiskCache::get() {
  static DiskCache cache;
  return cache;
}

bool DiskCache::enabled() const { return enabled_; }
const std::string& DiskCache::directory() const { return dir_; }
const std::string& DiskCache::why_disabled() const { return why_; }

DiskCache::DiskCache() {
  if (!setting_flag("PORTA_CACHE")) {
    why_ = "PORTA_CACHE=" + setting_text("PORTA_CACHE").value_or("off");
    return;
  }
  if (auto d = setting_text("PORTA_CACHE_DIR")) dir_ = *d;
  else if (auto x = env("XDG_CACHE_HOME")) dir_ = *x + "/porta";
  else if (auto h = env("HOME")) dir_ = *h + "/.cache/porta";
  else {
    why_ = "no PORTA_CACHE_DIR, XDG_CACHE_HOME or HOME to put it in";
    return;
  }
  std::string err;
  if (!make_dirs(dir_, err)) {
    why_ = err;
    PORTA_LOG(warn, "kernel disk cache off: ", err);
    return;
  }
  struct stat st{};
  if (::stat(dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    why_ = cat(dir_, " is not a directory");
    PORTA_LOG(warn, "kernel disk cache off: ", why_);
    return;
  }
  if (!trusted(st, dir_, err)) {
    why_ = cat(err, ": porta will not run kernels from it (chmod 700 it, or set PORTA_CACHE_DIR)");
    PORTA_LOG(warn, "kernel disk cache off: ", why_);
    return;
  }
  // Warned, not refused: a substituted directory belongs to another user, and so do its files,
  // which load() refuses one by one (owner, mode, no symlinks, the key inside each file).
  if (std::string a = unsafe_ancestor(dir_); !a.empty())
    PORTA_LOG(warn, "kernel disk cache ", dir_, ": its parent directory ", a,
              " is writable by other users without the sticky bit, so they can replace the cache directory; porta "
              "still checks each file's owner and mode, but set PORTA_CACHE_DIR to a path under directories only you "
              "can write to");
  remove_stale_temporaries(dir_);
  enabled_ = true;
}

std::string DiskCache::path_for(const std::string& key) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.pkc",
                static_cast<unsigned long long>(fnv1a64({reinterpret_cast<const std::uint8_t*>(key.data()), key.size()})));
  return dir_ + "/" + name;
}

std::optional<std::vector<std::uint8_t>> DiskCache::load(const std::string& key) const {
  if (!enabled_) return std::nullopt;
  // A bad entry is a miss, never an exception for the caller: the kernel is compiled again.
  try {
    return read_entry(key);
  } catch (const std::exception& e) {
    PORTA_LOG(info, "kernel cache file ", path_for(key), " could not be read (", e.what(), "); recompiling");
    return std::nullopt;
  }
}

std::optional<std::vector<std::uint8_t>> DiskCache::read_entry(const std::string& key) const {
  std::string path = path_for(key);
  // O_NONBLOCK: opening a FIFO planted under an entry's name returns at once instead of waiting
  // for a writer (for ever, with the kernel's lock held); it changes nothing for a regular file.
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) PORTA_LOG(warn, "kernel cache file refused: ", path, " is a symbolic link");
    return std::nullopt;
  }
  std::vector<std::uint8_t> data;
  struct stat st{};
  std::string why;
  bool ok = ::fstat(fd, &st) == 0;
  if (ok && !S_ISREG(st.st_mode)) {
    why = cat(path, " is not a regular file (mode ", std::oct, st.st_mode, std::dec, ")");
    ok = false;
  } else if (ok && static_cast<std::uint64_t>(st.st_size) > kMaxEntryBytes) {
    why = cat(path, " is ", st.st_size, " bytes, more than the ", kMaxEntryBytes, " a cache file may have");
    ok = false;
  } else if (ok) {
    ok = trusted(st, path, why);
  }
  if (ok) {
    try {
      data.resize(static_cast<std::size_t>(st.st_size));
    } catch (const std::bad_alloc&) {
      why = cat(path, " is ", st.st_size, " bytes: no memory to read it");
      ok = false;
    }
  }
  if (ok) {
    std::size_t got = 0;
    while (got < data.size()) {
      ssize_t r = ::read(fd, data.data() + got, data.size() - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<std::size_t>(r);
    }
    ok = got == data.size();
  } else if (!why.empty()) {
    PORTA_LOG(warn, "kernel cache file refused: ", why, "; recompiling");
  }
  ::close(fd);
  if (!ok) return std::nullopt;
  Header h{};
  if (data.size() < sizeof h) {
    PORTA_LOG(info, "kernel cache file ", path, " is truncated; recompiling");
    return std::nullopt;
  }
  std::memcpy(&h, data.data(), sizeof h);
  std::span<const std::uint8_t> rest(data.data() + sizeof h, data.size() - sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0 || rest.size() != h.key_bytes + h.payload_bytes ||
      fnv1a64(rest) != h.checksum) {
    PORTA_LOG(info, "kernel cache file ", path, " is corrupt or truncated; recompiling");
    return std::nullopt;
  }
  if (h.key_bytes != key.size() || std::memcmp(rest.data(), key.data(), key.size()) != 0) {
    PORTA_LOG(info, "kernel cache file ", path, " holds another key; recompiling");
    return std::nullopt;
  }
  return std::vector<std::uint8_t>(rest.begin() + static_cast<std::ptrdiff_t>(h.key_bytes), rest.end());
}

void DiskCache::store(const std::string& key, std::span<const std::uint8_t> payload) const {
  if (!enabled_ || payload.empty()) return;
  std::vector<std::uint8_t> body(key.begin(), key.end());
  body.insert(body.end(), payload.begin(), payload.end());
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.key_bytes = static_cast<std::uint32_t>(key.size());
  h.payload_bytes = payload.size();
  h.checksum = fnv1a64(body);
  std::string tmp = cat(dir_, "/", kTempPrefix, "XXXXXX");
  int fd = ::mkstemp(tmp.data());  // mode 0600
  if (fd < 0) {
    PORTA_LOG(warn, "cannot write to the kernel cache ", dir_, ": ", std::strerror(errno));
    return;
  }
  auto write_all = [&](const void* p, std::size_t n) {
    const auto* c = static_cast<const std::uint8_t*>(p);
    while (n > 0) {
      ssize_t w = ::write(fd, c, n);
      if (w <= 0) return false;
      c += w;
      n -= static_cast<std::size_t>(w);
    }
    return true;
  };
  bool ok = write_all(&h, sizeof h) && write_all(body.data(), body.size());
  ok = (::close(fd) == 0) && ok;
  if (!ok || ::rename(tmp.c_str(), path_for(key).c_str()) != 0) {
    PORTA_LOG(warn, "cannot write to the kernel cache ", dir_, ": ", std::strerror(errno));
    ::unlink(tmp.c_str());
  }
}

DiskCache::Usage DiskCache::usage() const {
  Usage u;
  if (!enabled_) return u;
  DIR* d = ::opendir(dir_.c_str());
  if (!d) return u;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".pkc") != 0) continue;
    struct stat st{};
    if (::stat((dir_ + "/" + name).c_str(), &st) == 0) {
      ++u.files;
      u.bytes += static_cast<std::uint64_t>(st.st_size);
    }
  }
  ::closedir(d);
  return u;
}

}  // namespace porta::detail
