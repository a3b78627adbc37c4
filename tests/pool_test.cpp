// DevicePool: tasks run on the pool's devices with that device current and their arrays land
// there; results and exceptions travel through futures; map keeps order; wait, cancel and
// draining destruction; least-loaded placement and in-flight counts; pools from all_devices();
// many threads submitting mixed work on shared arrays. Which devices a pool takes (bad lists,
// all_gpus(), one GPU listed twice) is pool_devices_test.cpp.
#include "pool_common.hpp"
#include "test_common.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <latch>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace porta_test {
namespace {

using namespace std::chrono_literals;
using porta::DevicePool;

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
  // Both tasks and what they held are gone once wait() returns, so the last reference to each
  // exception is this thread's: ThreadSanitizer cannot see libstdc++'s (uninstrumented) exception
  // reference count, and reported a race when a worker dropped the last one after this thread
  // had read the message.
  pool.wait();
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
    std::atomic<int> started{0};  // before the pool: outlives its workers
    DevicePool pool({porta::devices().front()}, 1);
    for (int k = 0; k < 20; ++k)
      fs.push_back(pool.submit([k, &started](const Device&) {
        ++started;
        std::this_thread::sleep_for(20ms);
        return k;
      }));
    // The first task is running (a fixed sleep here let ASan's slower start cancel all 20).
    while (started.load() == 0) std::this_thread::sleep_for(1ms);
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
  // Over every device: each device takes some (SharedGpu::each: by default the second API of one
  // physical GPU takes only submit_to() tasks). A task waits (up to 10 s) until every device has
  // begun one, so that a worker that wakes late still finds tasks left (the test slept 10 ms a
  // task, and on a loaded 2-core CI machine once saw a device with none completed).
  auto devs = porta::devices();
  DevicePool all(devs, 0, porta::SharedGpu::each);
  std::vector<std::atomic<int>> begun(devs.size());
  auto index_of = [devs](const Device& x) {
    for (std::size_t i = 0; i < devs.size(); ++i)
      if (devs[i] == x) return i;
    return devs.size();
  };
  std::vector<std::future<void>> gs;
  for (int k = 0; k < 8 * static_cast<int>(devs.size()); ++k)
    gs.push_back(all.submit([&](const Device& x) {
      const std::size_t i = index_of(x);
      if (i < devs.size()) begun[i].fetch_add(1);
      const auto until = std::chrono::steady_clock::now() + 10s;
      while (std::chrono::steady_clock::now() < until &&
             std::any_of(begun.begin(), begun.end(), [](const std::atomic<int>& b) { return b.load() == 0; }))
        std::this_thread::sleep_for(1ms);
      (void)square_sum(x, 64, 1);
    }));
  for (auto& g : gs) g.get();
  all.wait();  // a task's future is ready before its worker counts it as completed
  auto completed = all.completed();
  for (std::size_t i = 0; i < devs.size(); ++i) EXPECT_GT(completed[i], 0) << devs[i].spec() << " took no task";
}

// Tests that draw random inputs: the seed is recorded, and printed when a test fails.
class PoolTest : public ::testing::Test, public TestContext {
 protected:
  void SetUp() override { start(porta::devices().front()); }
  void TearDown() override { finish(HasFailure()); }
};

// What affine_task computed, and where.
struct AffineResult {
  std::string spec;
  HostArray y;
  double total = 0;
};

// y = x * (k + 1) - 3 and its sum, with x made on the current device (the worker's); integer
// inputs keep every value exact in float32.
AffineResult affine_task(const Device& d, const std::vector<double>& xv, int k) {
  std::vector<float> v(xv.begin(), xv.end());
  Array x = porta::from_host(v, {static_cast<std::int64_t>(v.size())});
  if (x.device() != d) throw std::runtime_error("from_host in a task made its array on " + x.device().spec() + ", not " + d.spec());
  Array y = x * static_cast<float>(k + 1) - 3.0f;
  return {d.spec(), fetch(y), fetch(porta::sum(y.astype(DType::float64))).value(0)};
}

::testing::AssertionResult affine_matches(const AffineResult& r, const std::vector<double>& xv, int k) {
  std::vector<double> ref(xv.size());
  double total = 0;
  for (std::size_t i = 0; i < xv.size(); ++i) total += ref[i] = xv[i] * (k + 1) - 3;
  auto y = values_match(r.y, ref, {0, 0});
  if (!y) return y << " (y of task " << k << " on " << r.spec << ")";
  if (r.total != total) return ::testing::AssertionFailure() << "sum of task " << k << " on " << r.spec << ": " << r.total << ", not " << total;
  return ::testing::AssertionSuccess();
}

// Polls pred() for up to 20 seconds.
template <class P> bool eventually(P pred) {
  for (int i = 0; i < 4000; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return pred();
}

// A task that blocks until open(); opened on destruction too, so that a failed assertion cannot
// leave a pool's destructor waiting for it (declare gates after the pool).
class Gate {
 public:
  Gate() : shared_(promise_.get_future().share()) {}
  ~Gate() { open(); }
  void open() {
    if (!opened_.exchange(true)) promise_.set_value();
  }
  auto task() const {
    return [f = shared_](const Device& d) {
      f.wait();
      return d.spec();
    };
  }

 private:
  std::promise<void> promise_;
  std::shared_future<void> shared_;
  std::atomic<bool> opened_{false};
};

TEST_F(PoolTest, AllDevicesTakesEveryDeviceAndRunsWorkOnEach) {
  auto all = DevicePool::all_devices();
  std::vector<Device> gpus;
  for (const auto& d : all) {
    EXPECT_EQ(std::count(all.begin(), all.end(), d), 1) << d.spec();
    if (d.kind() == porta::DeviceKind::gpu) gpus.push_back(d);
  }
  bool any_gpu = false;
  for (const auto& d : porta::devices()) {
    if (d.kind() == porta::DeviceKind::gpu) any_gpu = true;
    else EXPECT_NE(std::find(all.begin(), all.end(), d), all.end()) << d.spec() << " is missing from all_devices()";
  }
  if (any_gpu) {
    EXPECT_EQ(gpus, DevicePool::all_gpus()) << "the GPUs of all_devices() are those of all_gpus()";
  } else {
    EXPECT_TRUE(gpus.empty());
  }

  DevicePool pool(all);
  auto xv = random_values(513, DType::int32, -1000, 1000);
  std::vector<std::future<AffineResult>> fs;
  for (std::size_t i = 0; i < all.size(); ++i)
    for (int k = 0; k < 3; ++k)
      fs.push_back(pool.submit_to(all[i], [&xv, k](const Device& d) { return affine_task(d, xv, k); }));
  std::size_t at = 0;
  for (std::size_t i = 0; i < all.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      auto r = fs[at++].get();
      EXPECT_EQ(r.spec, all[i].spec());
      EXPECT_TRUE(affine_matches(r, xv, k));
    }
  auto mapped = pool.map(12, [&xv](const Device& d, std::int64_t i) { return affine_task(d, xv, static_cast<int>(i)); });
  for (std::size_t i = 0; i < mapped.size(); ++i) EXPECT_TRUE(affine_matches(mapped[i], xv, static_cast<int>(i)));
}

TEST_F(PoolTest, WaitBlocksUntilEveryTaskHasFinished) {
  DevicePool pool(porta::devices());
  auto xv = random_values(777, DType::int32, -1000, 1000);
  constexpr int kTasks = 16;
  std::vector<std::optional<AffineResult>> results(kTasks);  // slot k written by task k only
  std::vector<std::future<void>> fs;
  for (int k = 0; k < kTasks; ++k)
    fs.push_back(pool.submit([&results, &xv, k](const Device& d) {
      std::this_thread::sleep_for(std::chrono::milliseconds(k % 4 * 5));
      results[static_cast<std::size_t>(k)] = affine_task(d, xv, k);
    }));
  pool.wait();  // no future is read before this returns
  for (int k = 0; k < kTasks; ++k) {
    auto& f = fs[static_cast<std::size_t>(k)];
    ASSERT_EQ(f.wait_for(0s), std::future_status::ready) << "task " << k << " after wait()";
    EXPECT_NO_THROW(f.get());
    ASSERT_TRUE(results[static_cast<std::size_t>(k)].has_value()) << "task " << k;
    EXPECT_TRUE(affine_matches(*results[static_cast<std::size_t>(k)], xv, k));
  }
  EXPECT_EQ(pool.pending(), 0u);
  EXPECT_EQ(counts(pool.in_flight()), counts(std::vector<std::int64_t>(pool.devices().size(), 0)));
  std::int64_t done = 0;
  for (auto c : pool.completed()) done += c;
  EXPECT_EQ(done, kTasks);
  pool.wait();  // nothing pending: returns at once
}

TEST_F(PoolTest, LeastLoadedDeviceTakesTheNextTask) {
  auto devs = porta::devices();
  if (devs.size() < 2) GTEST_SKIP() << "placement between devices needs two; this machine has " << devs.size();
  const Device a = devs[0], b = devs[1];
  auto xv = random_values(300, DType::int32, -1000, 1000);
  DevicePool pool({a, b}, 1);
  Gate gate_a, gate_b;  // after the pool: opened before its destructor waits
  using V = std::vector<std::int64_t>;
  auto blocked_a = pool.submit_to(a, gate_a.task());
  ASSERT_TRUE(eventually([&] { return pool.in_flight() == V{1, 0}; })) << counts(pool.in_flight());
  EXPECT_EQ(pool.pending(), 0u);

  // a is busy: every task submitted now goes to b, the least-loaded device.
  std::vector<std::future<AffineResult>> fs;
  for (int k = 0; k < 6; ++k) fs.push_back(pool.submit([&xv, k](const Device& d) { return affine_task(d, xv, k); }));
  for (int k = 0; k < 6; ++k) {
    auto r = fs[static_cast<std::size_t>(k)].get();
    EXPECT_EQ(r.spec, b.spec()) << "task " << k << " went to the busy device";
    EXPECT_TRUE(affine_matches(r, xv, k));
  }
  EXPECT_TRUE(eventually([&] { return pool.in_flight() == V{1, 0}; })) << counts(pool.in_flight());

  // Both busy: the next task waits in the queue (pending, not in flight) ...
  auto blocked_b = pool.submit_to(b, gate_b.task());
  ASSERT_TRUE(eventually([&] { return pool.in_flight() == V{1, 1}; })) << counts(pool.in_flight());
  auto next = pool.submit([&xv](const Device& d) { return affine_task(d, xv, 41); });
  EXPECT_EQ(pool.pending(), 1u);
  EXPECT_EQ(next.wait_for(50ms), std::future_status::timeout);
  EXPECT_EQ(counts(pool.in_flight()), counts(V{1, 1}));
  // ... until a device frees up, which takes it.
  gate_a.open();
  auto r = next.get();
  EXPECT_EQ(r.spec, a.spec());
  EXPECT_TRUE(affine_matches(r, xv, 41));
  EXPECT_EQ(blocked_a.get(), a.spec());
  gate_b.open();
  EXPECT_EQ(blocked_b.get(), b.spec());
  pool.wait();
  EXPECT_EQ(counts(pool.completed()), counts(V{2, 7}));
  EXPECT_EQ(counts(pool.in_flight()), counts(V{0, 0}));
}

TEST_F(PoolTest, InFlightCountsEachWorkerOfADevice) {
  const Device d = porta::devices().front();
  DevicePool pool({d}, 3);
  Gate gate;
  std::vector<std::future<std::string>> fs;
  for (int k = 0; k < 5; ++k) fs.push_back(pool.submit(gate.task()));
  ASSERT_TRUE(eventually([&] { return pool.in_flight() == std::vector<std::int64_t>{3}; })) << counts(pool.in_flight());
  EXPECT_EQ(pool.pending(), 2u);
  gate.open();
  for (auto& f : fs) EXPECT_EQ(f.get(), d.spec());
  pool.wait();
  EXPECT_EQ(counts(pool.completed()), counts({5}));
  EXPECT_EQ(pool.pending(), 0u);
}

TEST_F(PoolTest, TaskArraysLandOnItsDeviceAndOutliveThePool) {
  auto devs = porta::devices();
  constexpr std::int64_t n = 1000;
  auto xv = random_values(n, DType::float32, -4, 4), yv = random_values(n, DType::float32, -4, 4);
  std::vector<std::pair<Device, std::future<std::vector<Array>>>> fs;
  {
    DevicePool pool(devs);
    for (const auto& d : devs)
      for (int rep = 0; rep < 3; ++rep)
        fs.emplace_back(d, pool.submit_to(d, [&xv, &yv](const Device& dd) {
          std::vector<float> xf(xv.begin(), xv.end()), yf(yv.begin(), yv.end());
          Array x = porta::from_host(xf, {n}), y = porta::from_host(yf, {n});
          Array z = porta::zeros({n}), r = porta::arange(n, DType::int64);
          for (const Array* a : {&x, &y, &z, &r})
            if (a->device() != dd) throw std::runtime_error("an array made in a task is on " + a->device().spec());
          Array lazy = x * y + z + 1.0f;  // left for the caller's thread to evaluate
          Array done = (x - y).eval();    // evaluated on the worker's queue
          return std::vector<Array>{lazy, done, porta::sum(r)};
        }));
  }  // the workers have exited and their queues are gone; the arrays stay valid
  std::vector<double> prod(static_cast<std::size_t>(n)), diff(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < prod.size(); ++i) {
    prod[i] = round_to(DType::float32, xv[i] * yv[i]) + 1;
    diff[i] = xv[i] - yv[i];
  }
  const Tolerance f32 = tolerance(DType::float32, Accuracy::simple);
  for (auto& [d, f] : fs) {
    auto arrays = f.get();
    ASSERT_EQ(arrays.size(), 3u);
    for (const auto& a : arrays) EXPECT_EQ(a.device(), d) << "an array a task on " << d.spec() << " returned";
    EXPECT_TRUE(values_match(fetch(arrays[0]), prod, f32)) << d.spec();
    EXPECT_TRUE(values_match(fetch(arrays[1]), diff, f32)) << d.spec();
    EXPECT_TRUE(values_match(fetch(arrays[2]), {static_cast<double>(n * (n - 1) / 2)}, {0, 0})) << d.spec();
  }
}

TEST_F(PoolTest, OneWorkerCarriesOnAfterItsTasksThrow) {
  auto xv = random_values(200, DType::int32, -1000, 1000);
  for (const auto& d : porta::devices()) {
    DevicePool pool({d}, 1);
    std::vector<std::future<AffineResult>> fs;
    for (int k = 0; k < 8; ++k)
      fs.push_back(pool.submit([&xv, k](const Device& dd) {
        if (k % 2 == 0) (void)(porta::ones({3}, DType::float32, dd) + porta::ones({4}, DType::float32, dd)).eval();
        return affine_task(dd, xv, k);
      }));
    for (int k = 0; k < 8; ++k) {
      auto& f = fs[static_cast<std::size_t>(k)];
      if (k % 2 == 0) EXPECT_THROW(f.get(), porta::ShapeError) << d.spec() << " task " << k;
      else EXPECT_TRUE(affine_matches(f.get(), xv, k)) << d.spec();
    }
    pool.wait();
    EXPECT_EQ(counts(pool.completed()), counts({8})) << "a task that threw still counts as completed";
  }
}

TEST_F(PoolTest, DestructionRunsEveryTaskSubmitted) {
  auto xv = random_values(300, DType::int32, -1000, 1000);
  std::atomic<int> ran{0};
  std::vector<std::future<AffineResult>> fs;
  {
    DevicePool pool(porta::devices(), 1);
    for (int k = 0; k < 12; ++k)
      fs.push_back(pool.submit([&xv, &ran, k](const Device& d) {
        std::this_thread::sleep_for(5ms);
        ++ran;
        return affine_task(d, xv, k);
      }));
  }  // drains: returns once all 12 have run
  EXPECT_EQ(ran.load(), 12);
  for (int k = 0; k < 12; ++k) {
    auto& f = fs[static_cast<std::size_t>(k)];
    ASSERT_EQ(f.wait_for(0s), std::future_status::ready) << "task " << k;
    EXPECT_TRUE(affine_matches(f.get(), xv, k));
  }
}

// Several threads submit mixed work at once, over every device, on arrays shared by all of them
// (made on this thread), and use those arrays themselves between submissions; one of them also
// waits on the pool and another maps over it meanwhile. Every result is checked.
TEST_F(PoolTest, ManyThreadsSubmitMixedWorkOnSharedArrays) {
  const auto devs = porta::devices();
  DevicePool pool(devs, 2);
  constexpr std::int64_t n = 1000;
  constexpr int kSubmitters = 4, kTasks = 24;
  const auto av = random_values(n, DType::float32, -4, 4), bv = random_values(n, DType::float32, -4, 4);
  const auto iv = random_values(n, DType::int32, -1000, 1000), mv = random_values(32 * 32, DType::float32, -1, 1);
  std::vector<double> mm(32 * 32, 0), mm_bound(32 * 32, 1e-4);
  for (std::size_t i = 0; i < 32; ++i)
    for (std::size_t j = 0; j < 32; ++j)
      for (std::size_t k = 0; k < 32; ++k) mm[i * 32 + j] += mv[i * 32 + k] * mv[k * 32 + j];
  struct Inputs {
    Array a, b, ints, m;
  };
  std::vector<Inputs> in;  // one copy per device
  for (const auto& d : devs)
    in.push_back({upload(av, DType::float32, {n}, d), upload(bv, DType::float32, {n}, d), upload(iv, DType::int32, {n}, d),
                  upload(mv, DType::float32, {32, 32}, d)});
  auto slot = [&](const Device& d) {
    return static_cast<std::size_t>(std::find(devs.begin(), devs.end(), d) - devs.begin());
  };
  const Tolerance f32 = tolerance(DType::float32, Accuracy::simple);

  // One operation on device d's copy of the inputs; "" when it matches the reference.
  auto work = [&](const Device& d, int op, int c) -> std::string {
    const Inputs& s = in[slot(d)];
    ::testing::AssertionResult r = ::testing::AssertionSuccess();
    switch (op) {
      case 0: {
        // GPU compilers contract a * c + b into one fma (CuPy's kernels do too): the product is
        // rounded or not, so the bound allows half an ulp of it besides the final rounding.
        std::vector<double> ref(av.size()), product_ulp(av.size());
        for (std::size_t i = 0; i < ref.size(); ++i) {
          ref[i] = av[i] * c + bv[i];
          product_ulp[i] = std::abs(av[i] * c) * std::ldexp(1.0, -24);
        }
        r = values_match(fetch(s.a * static_cast<float>(c) + s.b), ref, f32, nullptr, {}, &product_ulp);
        break;
      }
      case 1: {
        double ref = 0;
        for (double x : iv) ref += x * c;
        r = values_match(fetch(porta::sum(s.ints * c)), {ref}, {0, 0});
        break;
      }
      case 2: r = values_match(fetch(porta::matmul(s.m, s.m)), mm, {1e-5, 0}, nullptr, {}, &mm_bound); break;
      case 3: {
        const Device& next = devs[(slot(d) + 1) % devs.size()];
        std::vector<double> ref(av.size());
        for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = av[i] * 2 + bv[i];
        r = values_match(fetch((s.a * 2.0f).to(next) + in[slot(next)].b), ref, f32);
        break;
      }
      default: {
        std::vector<double> ref(av.size());
        for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = std::max(av[i], bv[i]) - c;
        r = values_match(fetch(porta::where(s.a > s.b, s.a, s.b) - static_cast<float>(c)), ref, f32);
        break;
      }
    }
    return r ? std::string() : "op " + std::to_string(op) + " on " + d.spec() + ": " + r.message();
  };

  Failures f;
  std::latch go(kSubmitters);
  std::vector<std::thread> threads;
  for (int t = 0; t < kSubmitters; ++t)
    threads.emplace_back([&, t] {
      try {
        go.arrive_and_wait();
        std::vector<std::future<std::string>> fs;
        for (int k = 0; k < kTasks; ++k) {
          int op = (t + k) % 5, c = 1 + (t * 7 + k) % 5;
          fs.push_back(pool.submit([&work, op, c](const Device& d) { return work(d, op, c); }));
          // The submitter uses the shared arrays too, on its own queues.
          if (k % 6 == t % 6) {
            const Device& d = devs[static_cast<std::size_t>(k + t) % devs.size()];
            if (auto msg = work(d, (op + 1) % 5, c); !msg.empty()) f.add("submitter " + std::to_string(t) + ": " + msg);
          }
          if (t == 0 && k == kTasks / 2) pool.wait();
        }
        if (t == 1) {
          auto out = pool.map(10, [&work](const Device& d, std::int64_t i) { return work(d, static_cast<int>(i % 5), 3); });
          for (auto& msg : out)
            if (!msg.empty()) f.add("map: " + msg);
        }
        for (auto& fu : fs)
          if (auto msg = fu.get(); !msg.empty()) f.add("submitter " + std::to_string(t) + " task: " + msg);
      } catch (const std::exception& e) {
        f.add("submitter " + std::to_string(t) + " threw: " + e.what());
      }
    });
  for (auto& th : threads) th.join();
  f.report();
  pool.wait();
  std::int64_t done = 0;
  for (auto c : pool.completed()) done += c;
  EXPECT_EQ(done, kSubmitters * kTasks + 10);
  EXPECT_TRUE(array_matches(in[0].a, DType::float32, {n}, av, {0, 0})) << "shared input unchanged";
}

}  // namespace
}  // namespace porta_test
