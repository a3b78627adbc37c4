// The in-memory kernel cache.
#include "kernel_cache.hpp"

#include <algorithm>
#include <chrono>

#include "disk_cache.hpp"
#include "log.hpp"

namespace porta::detail {

std::shared_ptr<Kernel> KernelCache::get(const std::string& key, const std::function<KernelSource()>& make_source) {
  std::shared_ptr<Entry> entry;
  {
    std::shared_lock lock(m_);
    auto it = entries_.find(key);
    if (it != entries_.end()) entry = it->second;
  }
  if (!entry) {
    std::unique_lock lock(m_);
    auto [it, inserted] = entries_.try_emplace(key, nullptr);
    if (inserted) it->second = std::make_shared<Entry>();
    entry = it->second;
  }
  if (entry->done.load(std::memory_order_acquire)) {
    hits_.fetch_add(1, std::memory_order_relaxed);
    if (entry->error) std::rethrow_exception(entry->error);
    return entry->kernel;
  }
  std::lock_guard lock(entry->m);  // the first thread compiles; the others wait here
  if (entry->done.load(std::memory_order_relaxed)) {
    hits_.fetch_add(1, std::memory_order_relaxed);
    if (entry->error) std::rethrow_exception(entry->error);
    return entry->kernel;
  }
  KernelSource src = make_source();
  auto t0 = std::chrono::steady_clock::now();
  auto ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); };
  const DiskCache& disk = DiskCache::get();
  std::string disk_key;
  if (disk.enabled()) {
    // The whole source is in the key: a hit can only be this very program.
    disk_key = cat("porta-kernel-v1\n", name(device_.backend()), "\n", device_.info().name, "\n", device_.compiler_id(), "\n",
                   src.entry, "\n", join(src.options, " "), "\n", src.source);
    if (auto bin = disk.load(disk_key)) {
      try {
        entry->kernel = device_.load_binary(src, *bin);
      } catch (const std::exception& e) {
        PORTA_LOG(info, "kernel cache entry for ", src.entry, " was not accepted (", e.what(), "); recompiling");
      }
      if (entry->kernel) {
        entry->done.store(true, std::memory_order_release);
        disk_hits_.fetch_add(1, std::memory_order_relaxed);
        PORTA_LOG(info, "loaded ", src.entry, " for ", name(device_.backend()), ":", device_.index(), " from the disk cache in ",
                  ms(), " ms");
        return entry->kernel;
      }
    }
  }
  try {
    entry->kernel = device_.compile(src);
  } catch (const CompileError&) {
    entry->error = std::current_exception();
    entry->done.store(true, std::memory_order_release);
    throw;
  }
  entry->done.store(true, std::memory_order_release);
  compiles_.fetch_add(1, std::memory_order_relaxed);
  PORTA_LOG(info, "compiled ", src.entry, " for ", name(device_.backend()), ":", device_.index(), " in ", ms(), " ms");
  PORTA_LOG(debug, "source of ", src.entry, ":\n", number_lines(src.source));
  if (disk.enabled()) disk.store(disk_key, entry->kernel->binary());
  return entry->kernel;
}

std::size_t KernelCache::size() const {
  std::shared_lock lock(m_);
  return entries_.size();
}

void KernelCache::clear() {
  std::unique_lock lock(m_);
  entries_.clear();
}

}  // namespace porta::detail
