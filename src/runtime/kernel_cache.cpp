// The in-memory kernel cache.
#include "runtime/kernel_cache.hpp"

#include <algorithm>
#include <chrono>

#include "porta_backend/disk_cache.hpp"
#include "porta_backend/log.hpp"

namespace porta::detail {
namespace {

std::atomic<std::uint64_t> next_cache_id{1};

// This thread's copies of the kernels it has used, per cache: a hit then takes no shared lock and
// writes no memory other threads use (through the shared table every hit wrote the lock's reader
// count and the entry's reference count).
struct FrontTable {
  std::uint64_t cache_id;
  std::uint64_t generation;
  std::unordered_map<std::string, std::shared_ptr<Kernel>> kernels;
};
constexpr std::size_t kFrontKernels = 512;  // a thread that uses more starts its table afresh

// Set once this thread's tables are destroyed (thread exit, or exit() for the main thread): a
// kernel asked for later, from a static's destructor, goes to the shared table.
thread_local bool t_front_gone = false;

struct FrontTables {
  std::vector<FrontTable> tables;
  ~FrontTables() { t_front_gone = true; }
};

// This thread's table for the cache, or null once the thread's tables are gone.
FrontTable* front_table(std::uint64_t cache_id, std::uint64_t generation) {
  if (t_front_gone) return nullptr;
  thread_local FrontTables front;
  auto& tables = front.tables;
  for (auto& t : tables) {
    if (t.cache_id != cache_id) continue;
    if (t.generation != generation) {
      t.kernels.clear();
      t.generation = generation;
    }
    return &t;
  }
  return &tables.emplace_back(FrontTable{cache_id, generation, {}});
}

std::size_t hit_slot() {
  static std::atomic<std::size_t> next{0};
  thread_local const std::size_t slot = next.fetch_add(1, std::memory_order_relaxed);
  return slot;
}

}  // namespace

KernelCache::KernelCache(DeviceImpl& device)
    : device_(device), id_(next_cache_id.fetch_add(1, std::memory_order_relaxed)) {}

void KernelCache::count_hit() { hits_[hit_slot() % kHitSlots].n.fetch_add(1, std::memory_order_relaxed); }

std::uint64_t KernelCache::hits() const {
  std::uint64_t n = 0;
  for (const auto& s : hits_) n += s.n.load(std::memory_order_relaxed);
  return n;
}

std::shared_ptr<Kernel> KernelCache::remember(const std::string& key, std::shared_ptr<Kernel> kernel) {
  FrontTable* front = front_table(id_, generation_.load(std::memory_order_acquire));
  if (!front) return kernel;
  if (front->kernels.size() >= kFrontKernels) front->kernels.clear();
  front->kernels.emplace(key, kernel);
  return kernel;
}

std::shared_ptr<Kernel> KernelCache::find_front(const std::string& key) {
  FrontTable* front = front_table(id_, generation_.load(std::memory_order_acquire));
  if (!front) return nullptr;
  auto it = front->kernels.find(key);
  if (it == front->kernels.end()) return nullptr;
  count_hit();
  return it->second;
}

std::shared_ptr<Kernel> KernelCache::get_shared(const std::string& key, const std::function<KernelSource()>& make_source) {
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
    count_hit();
    if (entry->error) std::rethrow_exception(entry->error);
    return remember(key, entry->kernel);
  }
  std::lock_guard lock(entry->m);  // the first thread compiles; the others wait here
  if (entry->done.load(std::memory_order_relaxed)) {
    count_hit();
    if (entry->error) std::rethrow_exception(entry->error);
    return remember(key, entry->kernel);
  }
  KernelSource src = make_source();
  auto t0 = std::chrono::steady_clock::now();
  auto ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); };
  const DiskCache& disk = DiskCache::get();
  std::string disk_key;
  if (disk.enabled()) {
    // The whole source is in the key: a hit can only be this very program.
    disk_key = cat("porta-kernel-v1\n", name(device_.backend()), "\n", device_.info().name, "\n", device_.compiler_id(), "\n",
                   src.entry, "\n", join(src.options, " "), "\n", src.user_code ? "user\n" : "", src.source);
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
        return remember(key, entry->kernel);
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
  return remember(key, entry->kernel);
}

std::size_t KernelCache::size() const {
  std::shared_lock lock(m_);
  return entries_.size();
}

void KernelCache::clear() {
  std::unique_lock lock(m_);
  entries_.clear();
  generation_.fetch_add(1, std::memory_order_acq_rel);  // the threads' front tables drop their copies
}

}  // namespace porta::detail
