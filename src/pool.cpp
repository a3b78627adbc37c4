// DevicePool: per-device worker threads pulling from one queue (plus per-device queues for
// submit_to).
#include <porta/pool.hpp>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <algorithm>

#include "log.hpp"
#include "strings.hpp"

namespace porta {

using detail::cat;

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
        work.wait(lock, [&] { return stopping || !own[di].empty() || !shared.empty(); });
        if (!own[di].empty()) {
          item = std::move(own[di].front());
          own[di].pop_front();
        } else if (!shared.empty()) {
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

DevicePool::DevicePool(std::vector<Device> devs, int workers_per_device) : impl_(std::make_unique<Impl>()) {
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
  for (std::size_t di = 0; di < n; ++di) {
    int workers = workers_per_device ? workers_per_device : (impl_->devices[di].kind() == DeviceKind::gpu ? 2 : 1);
    for (int w = 0; w < workers; ++w) impl_->threads.emplace_back([this, di] { impl_->worker(di); });
  }
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
