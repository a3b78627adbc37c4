// DevicePool: tasks run on the pool's devices with that device current, results and exceptions
// travel through futures, map keeps order, wait/cancel/destruction, balance over devices.
#include "test_common.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>

namespace porta_test {
namespace {

using namespace std::chrono_literals;
using porta::DevicePool;

// Squares 0..n-1 on the task's device and checks the values; returns the sum.
double square_sum(const Device& d, int n, int shift) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i + shift);
  Array a = porta::from_host(v, {n});  // the current device, which the worker set
  if (a.device() != d) throw std::runtime_error("the task's arrays are not on its device " + d.spec());
  return fetch(porta::sum((a * a).astype(DType::int64))).value(0);
}

double square_sum_ref(int n, int shift) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += static_cast<double>(i + shift) * (i + shift);
  return s;
}

TEST(Pool, SubmitRunsOnThePoolsDevicesWithThemCurrent) {
  auto devs = porta::devices();
  DevicePool pool(devs);
  EXPECT_EQ(pool.devices(), devs);
  std::vector<std::future<std::pair<std::string, double>>> fs;
  for (int k = 0; k < 40; ++k)
    fs.push_back(pool.submit([k](const Device& d) {
      if (porta::current_device() != d) throw std::runtime_error("current_device() is not the task's device");
      return std::make_pair(d.spec(), square_sum(d, 100 + k, k));
    }));
  std::set<std::string> seen;
  for (int k = 0; k < 40; ++k) {
    auto [spec, value] = fs[static_cast<std::size_t>(k)].get();
    EXPECT_EQ(value, square_sum_ref(100 + k, k)) << "task " << k << " on " << spec;
    seen.insert(spec);
  }
  pool.wait();
  std::int64_t done = 0;
  for (auto c : pool.completed()) done += c;
  EXPECT_EQ(done, 40);
  EXPECT_EQ(pool.pending(), 0u);
  for (auto f : pool.in_flight()) EXPECT_EQ(f, 0);
  // submit_to picks the device.
  for (const auto& d : devs) EXPECT_EQ(pool.submit_to(d, [](const Device& x) { return x.spec(); }).get(), d.spec());
}

TEST(Pool, ExceptionsTravelThroughFuturesAndWorkersCarryOn) {
  DevicePool pool(porta::devices());
  auto bad_shape = pool.submit([](const Device& d) {
    return (porta::ones({3}, DType::float32, d) + porta::ones({4}, DType::float32, d)).eval().size();
  });
  auto plain = pool.submit([](const Device&) -> int { throw std::runtime_error("task failed on purpose"); });
  EXPECT_THROW(bad_shape.get(), porta::ShapeError);
  try {
    plain.get();
    ADD_FAILURE() << "the task's exception must reach the future";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "task failed on purpose");
  }
  EXPECT_EQ(pool.submit([](const Device& d) { return square_sum(d, 10, 0); }).get(), square_sum_ref(10, 0));
  // submit_to a device the pool does not hold.
  if (porta::devices().size() > 1) {
    DevicePool one({porta::devices().front()});
    EXPECT_THROW((void)one.submit_to(porta::devices().back(), [](const Device&) { return 0; }), porta::Error);
  }
}

TEST(Pool, MapKeepsOrderAndRethrowsTheFirstException) {
  DevicePool pool(porta::devices());
  auto out = pool.map(25, [](const Device& d, std::int64_t i) { return square_sum(d, 50, static_cast<int>(i)); });
  ASSERT_EQ(out.size(), 25u);
  for (int i = 0; i < 25; ++i) EXPECT_EQ(out[static_cast<std::size_t>(i)], square_sum_ref(50, i)) << i;
  std::atomic<int> ran{0};
  try {
    pool.map(10, [&](const Device&, std::int64_t i) {
      ++ran;
      if (i == 3 || i == 7) throw std::runtime_error("task " + std::to_string(i));
    });
    ADD_FAILURE() << "map must rethrow";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "task 3") << "the first exception in order of i";
  }
  EXPECT_EQ(ran.load(), 10) << "every task ran before map rethrew";
}

TEST(Pool, CancelDropsTasksNotStartedAndDestructionDrains) {
  std::vector<std::future<int>> fs;
  std::size_t cancelled = 0;
  {
    DevicePool pool({porta::devices().front()}, 1);
    for (int k = 0; k < 20; ++k)
      fs.push_back(pool.submit([k](const Device&) {
        std::this_thread::sleep_for(20ms);
        return k;
      }));
    std::this_thread::sleep_for(5ms);
    cancelled = pool.cancel();
    EXPECT_GT(cancelled, 0u);
    EXPECT_LT(cancelled, 20u) << "the running task is not cancelled";
    for (int k = 0; k < 5; ++k) fs.push_back(pool.submit([k](const Device&) { return 100 + k; }));
  }  // destruction waits for the tasks submitted after cancel()
  std::size_t threw = 0;
  for (std::size_t k = 0; k < fs.size(); ++k) {
    ASSERT_EQ(fs[k].wait_for(0s), std::future_status::ready) << "future " << k << " after the pool was destroyed";
    try {
      int v = fs[k].get();
      EXPECT_EQ(v, k < 20 ? static_cast<int>(k) : 100 + static_cast<int>(k - 20));
    } catch (const porta::Cancelled&) {
      ++threw;
      EXPECT_LT(k, 20u) << "tasks submitted after cancel() run";
    }
  }
  EXPECT_EQ(threw, cancelled);
}

TEST(Pool, WorkersPerDeviceRunConcurrentlyAndEveryDeviceTakesWork) {
  const Device d = porta::devices().front();
  DevicePool pool({d}, 3);
  std::atomic<int> now{0}, most{0};
  auto task = [&](const Device&) {
    int n = ++now;
    int m = most.load();
    while (n > m && !most.compare_exchange_weak(m, n)) {
    }
    std::this_thread::sleep_for(50ms);
    --now;
  };
  std::vector<std::future<void>> fs;
  for (int k = 0; k < 6; ++k) fs.push_back(pool.submit(task));
  for (auto& f : fs) f.get();
  EXPECT_GE(most.load(), 2) << "3 workers on one device run tasks at the same time";
  EXPECT_LE(most.load(), 3);
  // Over every device, with tasks long enough that all workers wake: each device takes some.
  auto devs = porta::devices();
  DevicePool all(devs);
  std::vector<std::future<void>> gs;
  for (int k = 0; k < 8 * static_cast<int>(devs.size()); ++k)
    gs.push_back(all.submit([](const Device& x) {
      std::this_thread::sleep_for(10ms);
      (void)square_sum(x, 64, 1);
    }));
  for (auto& g : gs) g.get();
  auto completed = all.completed();
  for (std::size_t i = 0; i < devs.size(); ++i) EXPECT_GT(completed[i], 0) << devs[i].spec() << " took no task";
}

TEST(Pool, AllGpusTakesEachPhysicalGpuOnce) {
  bool any_gpu = false;
  for (const auto& d : porta::devices()) any_gpu |= d.kind() == porta::DeviceKind::gpu;
  if (!any_gpu) {
    EXPECT_THROW((void)DevicePool::all_gpus(), porta::DeviceError);
  } else {
    auto gpus = DevicePool::all_gpus();
    std::set<std::string> ids;
    for (const auto& g : gpus) {
      EXPECT_EQ(g.kind(), porta::DeviceKind::gpu);
      if (!g.pci_bus_id().empty()) EXPECT_TRUE(ids.insert(g.pci_bus_id()).second) << g.spec() << " twice: " << g.pci_bus_id();
    }
  }
  // all_devices: every non-GPU device, and the GPUs as all_gpus takes them.
  auto all = DevicePool::all_devices();
  for (const auto& d : porta::devices())
    if (d.kind() != porta::DeviceKind::gpu) {
      EXPECT_NE(std::find(all.begin(), all.end(), d), all.end()) << d.spec();
    }
}

}  // namespace
}  // namespace porta_test
