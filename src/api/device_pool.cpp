// DevicePool: per-device worker threads pulling from one queue (plus per-device queues for
// submit_to); devices that are one physical GPU share it through their preferred backend.
#include <porta/pool.hpp>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <algorithm>

#include "runtime/graph_recording.hpp"
#include "porta_backend/log.hpp"
#include "api/device_pool_groups.hpp"
#include "porta_backend/strings.hpp"

namespace porta {

using detail::cat;

namespace detail {

std::vector<std::size_t> same_gpu_leaders(const std::vector<std::string>& pci_ids, const std::vector<std::size_t>& rank) {
  std::vector<std::size_t> leader(pci_ids.size());
  for (std::size_t i = 0; i < pci_ids.size(); ++i) {
    leader[i] = i;
    if (pci_ids[i].empty()) continue;
    for (std::size_t j = 0; j < pci_ids.size(); ++j)
      if (pci_ids[j] == pci_ids[i] && (rank[j] < rank[leader[i]] || (rank[j] == rank[leader[i]] && j < leader[i]))) leader[i] = j;
  }
  return leader;
}

// One GPU listed twice (cuda:0 and NVIDIA's OpenCL device): two contexts on one GPU time-slice,
// and a pool whose workers fed both ran 14,080 tasks/s on the H200 against 74,175 on cuda:0
// alone (issue 21). So shared tasks go to the preferred device of the group, which gets the
// workers of all its members; the others keep one worker each for their submit_to() tasks.
PoolWorkers plan_pool_workers(const std::vector<std::string>& pci_ids, const std::vector<std::size_t>& rank,
                              const std::vector<int>& workers, bool share_each) {
  PoolWorkers p;
  p.workers = workers;
  p.takes_shared.assign(workers.size(), 1);
  const std::vector<std::size_t> leader = same_gpu_leaders(pci_ids, rank);
  for (std::size_t i = 0; i < workers.size(); ++i) {
    if (leader[i] == i) continue;
    p.twins.emplace_back(i, leader[i]);
    if (share_each) continue;
    p.takes_shared[i] = 0;
    p.workers[leader[i]] += workers[i];
    p.workers[i] = 1;
  }
  return p;
}

}  // namespace detail

struct DevicePool::Impl {
  struct Item {
    Task task;
    Drop drop;
  };
  std::vector<Device> devices;
  mutable std::mutex m;
  std::condition_variable work;   // a task arrived, or stopping
  std::condition_variable idle;   // a task finished
  std::deque<Item> shared;
  std::vector<std::deque<Item>> own;  // per device (submit_to)
  std::vector<std::int64_t> running, done;
  std::vector<char> takes_shared;  // per device: its workers serve the shared queue (submit, map)
  std::size_t outstanding = 0;  // queued + running
  bool stopping = false;
  std::vector<std::thread> threads;

  void worker(std::size_t di) {
    const Device& d = devices[di];
    DeviceScope scope(d);
    while (true) {
      Item item;
      {
        std::unique_lock lock(m);
        const bool any = takes_shared[di] != 0;
        work.wait(lock, [&] { return stopping || !own[di].empty() || (any && !shared.empty()); });
        if (!own[di].empty()) {
          item = std::move(own[di].front());
          own[di].pop_front();
        } else if (any && !shared.empty()) {
          item = std::move(shared.front());
          shared.pop_front();
        } else {
          return;  // stopping and nothing left
        }
        ++running[di];
      }
      item.task(d);
      try {
        synchronize(d);
      } catch (const std::exception& e) {
        PORTA_LOG(error, "DevicePool worker on ", d.spec(), ": synchronize failed: ", e.what());
      }
      // What the task captured (arrays, its promise) goes before it counts as finished: once
      // wait() returns, the memory of finished tasks is free.
      item = Item{};
      {
        std::lock_guard lock(m);
        --running[di];
        ++done[di];
        --outstanding;
      }
      idle.notify_all();
    }
  }
};

DevicePool::DevicePool(std::vector<Device> devs, int workers_per_device, SharedGpu shared_gpu) : impl_(std::make_unique<Impl>()) {
  if (devs.empty()) throw InvalidArgument("DevicePool needs at least one device");
  for (std::size_t i = 0; i < devs.size(); ++i) {
    if (!devs[i].valid()) throw InvalidArgument(cat("DevicePool: device ", i, " is empty"));
    for (std::size_t j = 0; j < i; ++j)
      if (devs[j] == devs[i]) throw InvalidArgument(cat("DevicePool: ", devs[i].spec(), " is listed twice"));
  }
  if (workers_per_device < 0) throw InvalidArgument(cat("DevicePool: workers_per_device ", workers_per_device, " is negative"));
  impl_->devices = std::move(devs);
  std::size_t n = impl_->devices.size();
  impl_->own.resize(n);
  impl_->running.assign(n, 0);
  impl_->done.assign(n, 0);
  std::vector<int> workers(n);
  std::vector<std::string> ids(n);
  std::vector<std::size_t> rank(n);
  const auto all = porta::devices();
  for (std::size_t di = 0; di < n; ++di) {
    const Device& d = impl_->devices[di];
    workers[di] = workers_per_device ? workers_per_device : (d.kind() == DeviceKind::gpu ? 2 : 1);
    ids[di] = d.kind() == DeviceKind::gpu ? d.pci_bus_id() : std::string();
    rank[di] = static_cast<std::size_t>(std::find(all.begin(), all.end(), d) - all.begin());
  }
  detail::PoolWorkers plan = detail::plan_pool_workers(ids, rank, workers, shared_gpu == SharedGpu::each);
  if (!plan.twins.empty()) {
    std::vector<std::string> pairs;
    for (auto [twin, leader] : plan.twins)
      pairs.push_back(cat(impl_->devices[twin].spec(), " and ", impl_->devices[leader].spec(), " (PCI ", ids[twin], ")"));
    PORTA_LOG(warn, "DevicePool: ", detail::join(pairs, "; "), " are one physical GPU seen through two APIs; ",
              shared_gpu == SharedGpu::preferred
                  ? "submit() and map() tasks run on the preferred one with the workers of both, the other takes only "
                    "submit_to() tasks (SharedGpu::each shares them, usually slower)"
                  : "both take submit() and map() tasks (SharedGpu::each), which time-slices the GPU between two contexts");
  }
  impl_->takes_shared = plan.takes_shared;
  for (std::size_t di = 0; di < n; ++di)
    for (int w = 0; w < plan.workers[di]; ++w) impl_->threads.emplace_back([this, di] { impl_->worker(di); });
}

DevicePool::~DevicePool() {
  wait();
  {
    std::lock_guard lock(impl_->m);
    impl_->stopping = true;
  }
  impl_->work.notify_all();
  for (auto& t : impl_->threads) t.join();
}

std::vector<Device> DevicePool::all_gpus() {
  std::vector<Device> out;
  std::vector<std::string> seen;
  for (auto& d : porta::devices()) {  // preference order: CUDA before OpenCL
    if (d.kind() != DeviceKind::gpu) continue;
    std::string id = d.pci_bus_id();
    if (!id.empty()) {
      if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
      seen.push_back(id);
    }
    out.push_back(d);
  }
  if (out.empty()) throw DeviceError(cat("DevicePool::all_gpus: there is no GPU here; devices: ", [] {
    std::vector<std::string> s;
    for (auto& d : porta::devices()) s.push_back(d.spec());
    return s.empty() ? std::string("none") : detail::join(s, ", ");
  }()));
  return out;
}

std::vector<Device> DevicePool::all_devices() {
  std::vector<Device> out;
  std::vector<std::string> seen;
  for (auto& d : porta::devices()) {
    std::string id = d.kind() == DeviceKind::gpu ? d.pci_bus_id() : std::string();
    if (!id.empty()) {
      if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
      seen.push_back(id);
    }
    out.push_back(d);
  }
  return out;
}

void DevicePool::enqueue(int device_index, Task task, Drop drop) {
  detail::refuse_while_recording("a DevicePool task (its workers run it on their own queues)");
  {
    std::lock_guard lock(impl_->m);
    if (impl_->stopping) throw InvalidArgument("DevicePool: submit after the pool began to shut down");
    auto& q = device_index < 0 ? impl_->shared : impl_->own[static_cast<std::size_t>(device_index)];
    q.push_back({std::move(task), std::move(drop)});
    ++impl_->outstanding;
  }
  // Every worker may take from the shared queue; a device's own queue wakes its workers.
  impl_->work.notify_all();
}

int DevicePool::index_of(const Device& d) const {
  for (std::size_t i = 0; i < impl_->devices.size(); ++i)
    if (impl_->devices[i] == d) return static_cast<int>(i);
  throw InvalidArgument(cat("DevicePool::submit_to: ", d.valid() ? d.spec() : std::string("(empty device)"), " is not in this pool"));
}

void DevicePool::wait() {
  std::unique_lock lock(impl_->m);
  impl_->idle.wait(lock, [&] { return impl_->outstanding == 0; });
}

std::size_t DevicePool::cancel() {
  std::vector<Impl::Item> dropped;
  {
    std::lock_guard lock(impl_->m);
    for (auto& it : impl_->shared) dropped.push_back(std::move(it));
    impl_->shared.clear();
    for (auto& q : impl_->own) {
      for (auto& it : q) dropped.push_back(std::move(it));
      q.clear();
    }
    impl_->outstanding -= dropped.size();
  }
  for (auto& it : dropped) it.drop(std::make_exception_ptr(Cancelled("DevicePool task cancelled before it started")));
  impl_->idle.notify_all();
  return dropped.size();
}

const std::vector<Device>& DevicePool::devices() const { return impl_->devices; }

std::vector<std::int64_t> DevicePool::in_flight() const {
  std::lock_guard lock(impl_->m);
  return impl_->running;
}

std::vector<std::int64_t> DevicePool::completed() const {
  std::lock_guard lock(impl_->m);
  return impl_->done;
}

std::size_t DevicePool::pending() const {
  std::lock_guard lock(impl_->m);
  std::size_t n = impl_->shared.size();
  for (auto& q : impl_->own) n += q.size();
  return n;
}

}  // namespace porta
