// Threads: 8 threads doing mixed work on every device at once (elementwise on shared arrays,
// reductions, matmul, arrays handed between threads, the same lazy nodes evaluated by several
// threads at the same moment), every result checked against a host reference.
#include "test_common.hpp"

#include <atomic>
#include <cmath>
#include <latch>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

namespace porta_test {
namespace {

constexpr int kThreads = 8;

struct Shared {
  Array a, b, m, ints;
  std::vector<double> av, bv, mv, iv;
  std::vector<double> mm;  // m @ m
  std::vector<double> row_sums;
  std::vector<Array> lazy;  // lazy nodes evaluated by several threads at once
  std::vector<std::vector<double>> lazy_ref, lazy_bound;  // values, and rounding allowed where terms cancel
};

// A mailbox of arrays passed between threads, with the values they must hold.
struct Mailbox {
  std::mutex m;
  std::vector<std::pair<Array, std::vector<double>>> items;
};

void worker(int id, const Device& d, const Shared& s, Mailbox& box, Failures& f, std::latch& start, std::uint64_t seed, int rounds) {
  std::mt19937_64 rng(seed + static_cast<std::uint64_t>(id));
  const Tolerance f32 = tolerance(DType::float32, Accuracy::simple);
  const std::int64_t n = static_cast<std::int64_t>(s.av.size());
  try {
    start.arrive_and_wait();
    // Every thread forces the same lazy node at the same moment.
    f.check(values_match(fetch(s.lazy[0]), s.lazy_ref[0], tolerance(DType::float32, Accuracy::transcendental), nullptr, {},
                         &s.lazy_bound[0]),
            "lazy node 0");
    for (int r = 0; r < rounds; ++r) {
      const float c = static_cast<float>(id + 1) * 0.25f + static_cast<float>(r % 7);
      std::string where = "thread " + std::to_string(id) + " round " + std::to_string(r);
      // Elementwise on arrays the main thread made.
      {
        std::vector<double> ref(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = static_cast<double>(static_cast<float>(s.av[i] * c)) + s.bv[i];
        f.check(values_match(fetch(s.a * c + s.b), ref, {1e-6, 1e-5}), where + " a * c + b");
      }
      // Reductions.
      {
        double ref = 0, mx = -1e300;
        for (std::size_t i = 0; i < s.iv.size(); ++i) {
          ref += s.iv[i] * (id + 1);
          mx = std::max(mx, s.iv[i] + r);
        }
        f.check(values_match(fetch(porta::sum(s.ints * (id + 1))), {ref}, {0, 0}), where + " sum");
        f.check(values_match(fetch(porta::max(s.ints + r)), {mx}, {0, 0}), where + " max");
        f.check(values_match(fetch(porta::sum(s.m, 1)), s.row_sums, {1e-5, 1e-5}), where + " sum along axis 1");
      }
      // matmul every few rounds.
      if (r % 4 == id % 4) {
        std::vector<double> bound(s.mm.size(), 1e-4);
        f.check(values_match(fetch(porta::matmul(s.m, s.m)), s.mm, {1e-5, 0}, nullptr, {}, &bound), where + " matmul");
      }
      // Hand an array to another thread; take one made elsewhere and use it here.
      {
        std::vector<double> mine(97);
        for (auto& x : mine) x = static_cast<double>(static_cast<int>(rng() % 2001) - 1000);
        Array made = upload(mine, DType::float64, {97}, d) * 1.0;  // lazy, evaluated by whoever needs it
        std::vector<std::pair<Array, std::vector<double>>> taken;
        {
          std::lock_guard lock(box.m);
          box.items.emplace_back(made, mine);
          if (box.items.size() > 4) {
            taken.push_back(std::move(box.items.front()));
            box.items.erase(box.items.begin());
          }
        }
        for (auto& [arr, vals] : taken) {
          std::vector<double> twice(vals.size());
          for (std::size_t i = 0; i < vals.size(); ++i) twice[i] = vals[i] * 2 - 1;
          f.check(values_match(fetch(arr * 2.0 - 1.0), twice, {0, 0}), where + " array from another thread");
        }
      }
      // The shared lazy nodes, in an order that differs per thread.
      {
        std::size_t k = static_cast<std::size_t>(r + id) % s.lazy.size();
        f.check(values_match(fetch(s.lazy[k]), s.lazy_ref[k], tolerance(DType::float32, Accuracy::transcendental), nullptr, {},
                             &s.lazy_bound[k]),
                where + " lazy node " + std::to_string(k));
      }
      // Comparisons, where, astype.
      {
        std::vector<double> ref(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = s.av[i] > s.bv[i] ? std::trunc(s.av[i]) : s.bv[i];
        f.check(values_match(fetch(porta::where(s.a > s.b, s.a.astype(DType::int32).astype(DType::float32), s.b)), ref, f32),
                where + " where/astype");
      }
    }
  } catch (const std::exception& e) {
    f.add("thread " + std::to_string(id) + " threw: " + e.what());
  }
}

Shared make_shared_arrays(TestContext& c) {
  Shared s;
  s.a = c.random_array({1000}, DType::float32, -4, 4, &s.av);
  s.b = c.random_array({1000}, DType::float32, -4, 4, &s.bv);
  s.m = c.random_array({32, 32}, DType::float32, -1, 1, &s.mv);
  s.ints = c.random_array({1000}, DType::int32, -1000, 1000, &s.iv);
  s.mm.assign(32 * 32, 0);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j)
      for (int k = 0; k < 32; ++k)
        s.mm[static_cast<std::size_t>(i * 32 + j)] += s.mv[static_cast<std::size_t>(i * 32 + k)] * s.mv[static_cast<std::size_t>(k * 32 + j)];
  s.row_sums.assign(32, 0);
  for (int i = 0; i < 32; ++i)
    for (int k = 0; k < 32; ++k) s.row_sums[static_cast<std::size_t>(i)] += s.mv[static_cast<std::size_t>(i * 32 + k)];
  for (int k = 0; k < 6; ++k) {
    float w = 0.5f * static_cast<float>(k + 1);
    s.lazy.push_back(porta::exp(s.a * -0.25f) * w + s.b);
    std::vector<double> ref(s.av.size()), bound(s.av.size());
    for (std::size_t i = 0; i < ref.size(); ++i) {
      double e = std::exp(s.av[i] * -0.25) * w;
      ref[i] = e + s.bv[i];
      bound[i] = 4e-6 * (std::fabs(e) + std::fabs(s.bv[i]));
    }
    s.lazy_ref.push_back(std::move(ref));
    s.lazy_bound.push_back(std::move(bound));
  }
  return s;
}

using Threads = DeviceTest;

TEST_P(Threads, EightThreadsOfMixedWorkOnSharedArrays) {
  Shared s = make_shared_arrays(*this);
  Mailbox box;
  Failures f;
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int id = 0; id < kThreads; ++id)
    threads.emplace_back(worker, id, dev(), std::cref(s), std::ref(box), std::ref(f), std::ref(start), seed(), 40);
  for (auto& t : threads) t.join();
  f.report();
  // Arrays left in the mailbox are still valid here, on the main thread.
  for (auto& [arr, vals] : box.items) EXPECT_TRUE(values_match(fetch(arr), vals, {0, 0})) << "mailbox array on the main thread";
  EXPECT_TRUE(array_matches(s.a, DType::float32, {1000}, s.av, {0, 0})) << "shared input unchanged";
  for (std::size_t k = 0; k < s.lazy.size(); ++k) EXPECT_TRUE(s.lazy[k].is_evaluated()) << "lazy node " << k;
}

// The same lazy node forced by 8 threads at once many times over: each evaluation gives the
// right values, and each node is evaluated once (afterwards it is evaluated for everybody).
TEST_P(Threads, SameLazyNodeFromManyThreadsAtOnce) {
  std::vector<double> xv;
  Array x = random_array({4096}, DType::float32, -2, 2, &xv);
  Failures f;
  for (int trial = 0; trial < 10; ++trial) {
    const float k = static_cast<float>(trial) + 0.5f;
    Array node = porta::tanh(x * k) + x;
    std::vector<double> ref(xv.size());
    for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = std::tanh(xv[i] * k) + xv[i];
    std::latch go(kThreads);
    std::vector<std::thread> ts;
    for (int id = 0; id < kThreads; ++id)
      ts.emplace_back([&, id] {
        try {
          go.arrive_and_wait();
          if (id % 2) node.eval();
          f.check(values_match(fetch(node), ref, tolerance(DType::float32, Accuracy::transcendental)),
                  "trial " + std::to_string(trial) + " thread " + std::to_string(id));
          f.check(values_match(fetch(porta::sum(node)), {[&] {
                                 double t = 0;
                                 for (double v : ref) t += v;
                                 return t;
                               }()},
                               {1e-4, 4e-3}),
                  "sum of the shared node");
        } catch (const std::exception& e) {
          f.add(e.what());
        }
      });
    for (auto& t : ts) t.join();
    EXPECT_TRUE(node.is_evaluated());
  }
  f.report();
}

// A DeviceScope kept in a thread_local that was made before porta's own per-thread device (as a
// binding's table of scopes is) is destroyed after it at thread exit; that must not touch freed
// memory (the Python package's Device.use() crashed here; ASan in CI sees the access).
TEST_P(Threads, DeviceScopeInAThreadLocalOutlivesPortasThreadState) {
  struct Holder {
    std::optional<porta::DeviceScope> scope;
  };
  std::atomic<bool> ok{false};
  const Device d = dev();
  std::thread t([&] {
    thread_local Holder holder;  // constructed first, so destroyed last
    holder.scope.emplace(d);
    ok = porta::current_device() == d && porta::sum(porta::ones({16}, DType::float32)).item<float>() == 16.0f;
  });
  t.join();
  EXPECT_TRUE(ok.load());
  EXPECT_EQ(porta::current_device(), porta::default_device()) << "the main thread's device is untouched";
}

PORTA_INSTANTIATE_DEVICES(Threads);

// Threads spread over every device at once, moving arrays between devices.
TEST(ThreadsAcrossDevices, WorkOnEveryDeviceAtOnce) {
  auto all = porta::devices();
  Failures f;
  std::vector<std::thread> ts;
  std::latch go(kThreads);
  for (int id = 0; id < kThreads; ++id)
    ts.emplace_back([&, id] {
      try {
        const Device& d = all[static_cast<std::size_t>(id) % all.size()];
        const Device& next = all[static_cast<std::size_t>(id + 1) % all.size()];
        porta::DeviceScope scope(d);
        go.arrive_and_wait();
        for (int r = 0; r < 20; ++r) {
          std::vector<float> v(300);
          for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int>(i) * (id + 1) - r);
          Array a = porta::from_host(v, {300});  // the current device: d
          if (a.device() != d) f.add("from_host did not use the thread's DeviceScope");
          Array moved = (a * 2.0f).to(next);
          std::vector<double> ref(v.size());
          double total = 0;
          for (std::size_t i = 0; i < v.size(); ++i) {
            ref[i] = static_cast<double>(v[i]) * 2 + 1;
            total += v[i];
          }
          f.check(values_match(fetch(moved + 1.0f), ref, {0, 0}), "moved to " + next.spec());
          f.check(values_match(fetch(porta::sum(a)), {total}, {1e-6, 0}), "sum on " + d.spec());
        }
      } catch (const std::exception& e) {
        f.add(e.what());
      }
    });
  for (auto& t : ts) t.join();
  f.report();
}

}  // namespace
}  // namespace porta_test
