// Which devices a DevicePool takes: bad device lists are refused; all_gpus() takes each physical
// GPU once; one GPU listed twice (through two APIs: grouped by PCI bus id, src/api/device_pool_groups.hpp) has
// its shared tasks served by the preferred device.
#include "pool_common.hpp"
#include "test_common.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "api/device_pool_groups.hpp"

namespace porta_test {
namespace {

using namespace std::chrono_literals;
using porta::DevicePool;

TEST(Pool, RefusesBadDeviceLists) {
  const Device d = porta::devices().front();
  EXPECT_THROW(DevicePool(std::vector<Device>{}), porta::InvalidArgument);
  EXPECT_THROW(DevicePool(std::vector<Device>{Device()}), porta::InvalidArgument);
  EXPECT_THROW(DevicePool(std::vector<Device>{d, d}), porta::InvalidArgument);
  EXPECT_THROW(DevicePool({d}, -1), porta::InvalidArgument);
}

// The grouping behind a pool given one GPU twice, on lists of bus ids (PoCL and Kokkos have none).
TEST(PoolSameGpu, TheBestRankedDeviceOfABusIdServesItsSharedTasks) {
  using porta::detail::plan_pool_workers;
  using porta::detail::same_gpu_leaders;
  using V = std::vector<std::size_t>;
  using Twins = std::vector<std::pair<std::size_t, std::size_t>>;
  // cuda:0 (rank 0), its OpenCL twin (rank 2), a CPU device (no id).
  auto p = plan_pool_workers({"0000:19:00.0", "0000:19:00.0", ""}, {0, 2, 3}, {2, 2, 1}, false);
  EXPECT_EQ(p.workers, (std::vector<int>{4, 1, 1})) << "the preferred device takes the twin's workers; the twin keeps one";
  EXPECT_EQ(p.takes_shared, (std::vector<char>{1, 0, 1}));
  EXPECT_EQ(p.twins, (Twins{{1, 0}}));
  // Listed in the other order: the preference (rank), not the listing, picks the leader.
  EXPECT_EQ(same_gpu_leaders({"X", "X"}, {5, 1}), (V{1, 1}));
  p = plan_pool_workers({"X", "X"}, {5, 1}, {2, 3}, false);
  EXPECT_EQ(p.workers, (std::vector<int>{1, 5}));
  EXPECT_EQ(p.takes_shared, (std::vector<char>{0, 1}));
  // Two GPUs, each seen twice; three views of one; devices without an id are never grouped.
  EXPECT_EQ(same_gpu_leaders({"A", "B", "A", "B"}, {0, 1, 2, 3}), (V{0, 1, 0, 1}));
  EXPECT_EQ(same_gpu_leaders({"A", "A", "A"}, {4, 2, 3}), (V{1, 1, 1}));
  EXPECT_EQ(same_gpu_leaders({"", "", "C"}, {0, 1, 2}), (V{0, 1, 2}));
  p = plan_pool_workers({"A", "A", "A"}, {4, 2, 3}, {2, 2, 2}, false);
  EXPECT_EQ(p.workers, (std::vector<int>{1, 6, 1}));
  EXPECT_EQ(p.twins, (Twins{{0, 1}, {2, 1}}));
  // SharedGpu::each: the twins are still named (for the warning), every device keeps its workers.
  p = plan_pool_workers({"0000:19:00.0", "0000:19:00.0", ""}, {0, 2, 3}, {2, 2, 1}, true);
  EXPECT_EQ(p.workers, (std::vector<int>{2, 2, 1}));
  EXPECT_EQ(p.takes_shared, (std::vector<char>{1, 1, 1}));
  EXPECT_EQ(p.twins, (Twins{{1, 0}}));
}

// On a machine with one GPU seen through CUDA and OpenCL (the H200 host): a pool given both runs
// every shared task on the preferred device, and submit_to still reaches the other. With
// SharedGpu::each both take shared tasks. Elsewhere the same pools over devices without a bus id
// keep every device a taker of shared tasks.
TEST(PoolSameGpu, APoolGivenOneGpuTwiceRunsSharedTasksOnThePreferredOne) {
  std::vector<Device> pair;
  const auto all = porta::devices();
  for (std::size_t i = 0; i < all.size() && pair.empty(); ++i)
    for (std::size_t j = i + 1; j < all.size() && pair.empty(); ++j)
      if (all[i].kind() == porta::DeviceKind::gpu && !all[i].pci_bus_id().empty() && all[i].pci_bus_id() == all[j].pci_bus_id())
        pair = {all[j], all[i]};  // listed with the less preferred first
  const bool twins = !pair.empty();
  if (!twins) pair = {all.front()};
  auto count = [](DevicePool& pool, std::int64_t n) {
    auto out = pool.map(n, [](const Device& d, std::int64_t i) { return std::make_pair(d, square_sum(d, 100, static_cast<int>(i))); });
    std::map<std::string, int> per;
    for (std::int64_t i = 0; i < n; ++i) {
      EXPECT_EQ(out[static_cast<std::size_t>(i)].second, square_sum_ref(100, static_cast<int>(i)));
      ++per[out[static_cast<std::size_t>(i)].first.spec()];
    }
    return per;
  };
  {
    DevicePool pool(pair);
    EXPECT_EQ(pool.devices(), pair) << "the pool keeps the devices it was given";
    auto per = count(pool, 24);
    if (twins) {
      EXPECT_EQ(per[pair[1].spec()], 24) << "every shared task on the preferred device " << pair[1].spec();
      EXPECT_EQ(per.count(pair[0].spec()), 0u) << pair[0].spec() << " took shared tasks";
      EXPECT_EQ(pool.submit_to(pair[0], [](const Device& d) { return square_sum(d, 50, 1); }).get(), square_sum_ref(50, 1));
      pool.wait();  // a future is ready just before its task counts as completed
      EXPECT_EQ(pool.completed()[0], 1);
    }
  }
  DevicePool each(pair, 1, porta::SharedGpu::each);
  (void)count(each, 24);  // checks the values; which device took which task is the pool's choice
  each.wait();
  std::int64_t total = 0;
  for (auto c : each.completed()) total += c;
  EXPECT_EQ(total, 24);
  if (!twins) GTEST_SKIP() << "no GPU seen through two APIs here (no two devices share a PCI bus id): checked pools over "
                           << pair.front().spec() << " with both policies";
}

TEST(Pool, AllGpusTakesEachPhysicalGpuOnce) {
  std::vector<Device> gpus_here;
  for (const auto& d : porta::devices())
    if (d.kind() == porta::DeviceKind::gpu) gpus_here.push_back(d);
  if (gpus_here.empty()) {
    std::string msg = thrown_message<porta::DeviceError>([] { (void)DevicePool::all_gpus(); });
    EXPECT_NE(msg.find("no GPU"), std::string::npos) << msg;
    GTEST_SKIP() << "no GPU on this machine: all_gpus() throws DeviceError as documented (checked); "
                    "no pool over GPUs was run";
  }
  auto gpus = DevicePool::all_gpus();
  std::set<std::string> ids;
  for (const auto& g : gpus) {
    EXPECT_EQ(g.kind(), porta::DeviceKind::gpu) << g.spec();
    if (!g.pci_bus_id().empty()) {
      EXPECT_TRUE(ids.insert(g.pci_bus_id()).second) << g.spec() << " twice: " << g.pci_bus_id();
    }
  }
  // Every physical GPU is there once: a GPU left out shares its bus id with one taken, and a
  // CUDA device (the preferred backend) is never the one left out.
  for (const auto& d : gpus_here) {
    if (std::find(gpus.begin(), gpus.end(), d) != gpus.end()) continue;
    EXPECT_NE(d.backend(), porta::Backend::cuda) << d.spec() << " left out of all_gpus()";
    EXPECT_TRUE(!d.pci_bus_id().empty() && ids.count(d.pci_bus_id()))
        << d.spec() << " (bus id '" << d.pci_bus_id() << "') is left out, but no GPU taken has its bus id";
  }
  DevicePool pool(gpus);
  auto out = pool.map(4 * static_cast<std::int64_t>(gpus.size()), [](const Device& d, std::int64_t i) {
    return std::make_pair(d.spec(), square_sum(d, 200, static_cast<int>(i)));
  });
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].second, square_sum_ref(200, static_cast<int>(i))) << out[i].first;
    EXPECT_TRUE(std::any_of(gpus.begin(), gpus.end(), [&](const Device& g) { return g.spec() == out[i].first; }));
  }
}

}  // namespace
}  // namespace porta_test
