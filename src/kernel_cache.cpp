// The in-memory kernel cache.
#include "kernel_cache.hpp"

#include <chrono>

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
  std::lock_guard lock(entry->m);  // the first thread compiles; the others wait here
  if (entry->done) {
    hits_.fetch_add(1, std::memory_order_relaxed);
    if (entry->error) std::rethrow_exception(entry->error);
    return entry->kernel;
  }
  KernelSource src = make_source();
  auto t0 = std::chrono::steady_clock::now();
  try {
    entry->kernel = device_.compile(src);
  } catch (const CompileError&) {
    entry->error = std::current_exception();
    entry->done = true;
    throw;
  }
  entry->done = true;
  compiles_.fetch_add(1, std::memory_order_relaxed);
  PORTA_LOG(info, "compiled ", src.entry, " for ", name(device_.backend()), ":", device_.index(), " in ",
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), " ms");
  PORTA_LOG(debug, "source of ", src.entry, ":\n", src.source);
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
