// Several GPUs in one process (the multi-GPU issue): to() between every pair of devices (device to
// device between two GPUs of one backend), one host thread per GPU under DeviceScope, and a
// DevicePool spreading matmuls over the GPUs. The GPU-only tests skip, with a message, where
// fewer than two GPUs exist; the copies run between whatever devices are present.
#include "test_common.hpp"

#include <porta/pool.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <thread>

namespace porta_test {
namespace {

std::vector<Device> gpus_of_one_backend() {
  // The backend with the most GPUs (cuda before opencl on a tie: porta::devices()'s order).
  std::vector<Device> best;
  for (porta::Backend b : {porta::Backend::cuda, porta::Backend::opencl}) {
    std::vector<Device> g;
    for (const auto& d : porta::devices())
      if (d.backend() == b && d.kind() == porta::DeviceKind::gpu) g.push_back(d);
    if (g.size() > best.size()) best = g;
  }
  return best;
}

#define PORTA_REQUIRE_TWO_GPUS(gpus)                                                                            \
  do {                                                                                                          \
    if ((gpus).size() < 2)                                                                                      \
      GTEST_SKIP() << "needs two GPUs of one backend; this machine has " << (gpus).size() << " (multi-GPU tests " \
                   << "run on the two-GPU machine)";                                                            \
  } while (0)

class MultiDevice : public ::testing::Test, public TestContext {
 protected:
  void SetUp() override { start(porta::default_device()); }
  void TearDown() override { finish(HasFailure()); }
};

// Every ordered pair of distinct devices: a contiguous array, a strided view and a lazy
// expression arrive exactly, in every dtype both devices hold.
TEST_F(MultiDevice, ToBetweenEveryPairOfDevices) {
  const auto all = porta::devices();
  if (all.size() < 2) GTEST_SKIP() << "only one device here";
  for (const auto& from : all)
    for (const auto& to : all) {
      if (from == to) continue;
      for (DType t : {DType::float32, DType::int32, DType::float64}) {
        if (!from.supports(t) || !to.supports(t)) continue;
        std::vector<double> v = random_values(5 * 1031, t, -100, 100);
        Array a = upload(v, t, {5, 1031}, from);
        Array moved = a.to(to);
        EXPECT_EQ(moved.device(), to);
        EXPECT_TRUE(array_matches(moved, t, {5, 1031}, v, {0, 0})) << from.spec() << " -> " << to.spec() << " " << porta::name(t);
        // A transposed view and a lazy expression of it.
        std::vector<double> tv(v.size()), twice(v.size());
        for (int r = 0; r < 5; ++r)
          for (int c = 0; c < 1031; ++c) tv[static_cast<std::size_t>(c * 5 + r)] = v[static_cast<std::size_t>(r * 1031 + c)];
        for (std::size_t i = 0; i < tv.size(); ++i) twice[i] = round_to(t, tv[i] * 2);
        EXPECT_TRUE(array_matches(a.transpose().to(to), t, {1031, 5}, tv, {0, 0})) << from.spec() << " -> " << to.spec();
        EXPECT_TRUE(array_matches((a.transpose() * 2).to(to), t, {1031, 5}, twice, {0, 0})) << from.spec() << " -> " << to.spec();
        // The source stays valid and unchanged.
        EXPECT_TRUE(array_matches(a, t, {5, 1031}, v, {0, 0}));
      }
    }
}

// A copy between two GPUs is ordered after the work that wrote the source and before the work
// that reads the destination, with both queues busy.
TEST_F(MultiDevice, ToBetweenGpusIsOrderedWithQueuedWork) {
  const auto gpus = gpus_of_one_backend();
  PORTA_REQUIRE_TWO_GPUS(gpus);
  std::vector<double> x;
  Array a = upload(random_values(1 << 22, DType::float32, -1, 1), DType::float32, {1 << 22}, gpus[0]);
  x = fetch(a).values();
  for (int round = 0; round < 3; ++round) {
    Array b = porta::sin(a) * 3.0f + 1.0f;  // queued on gpus[0]
    Array c = b.to(gpus[1]) - 1.0f;          // copy, then work on gpus[1]
    std::vector<double> ref(x.size());
    for (std::size_t i = 0; i < ref.size(); ++i)
      ref[i] = static_cast<double>(static_cast<float>(static_cast<float>(std::sin(x[i])) * 3.0f + 1.0f)) - 1.0;
    // b - 1 cancels: GPUs contract sin(a) * 3 + 1 into one fma (one rounding, not two), which
    // moves b by up to half an ulp of |b| <= 4, left whole after subtracting 1 (seen on two H200s).
    Tolerance tol = tolerance(DType::float32, Accuracy::transcendental);
    tol.atol = std::max(tol.atol, 4.0 * std::ldexp(1.0, -23));
    EXPECT_TRUE(array_matches(c, DType::float32, {1 << 22}, ref, tol));
  }
}

// One host thread per GPU, each under its own DeviceScope, each doing its own work.
TEST_F(MultiDevice, OneThreadPerGpu) {
  const auto gpus = gpus_of_one_backend();
  PORTA_REQUIRE_TWO_GPUS(gpus);
  const std::int64_t n = 384;
  std::vector<std::string> failures(gpus.size());
  std::vector<std::vector<double>> as(gpus.size()), bs(gpus.size());
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    as[g] = random_values(n * n, DType::float32, -1, 1);
    bs[g] = random_values(n * n, DType::float32, -1, 1);
  }
  std::vector<std::thread> threads;
  for (std::size_t g = 0; g < gpus.size(); ++g)
    threads.emplace_back([&, g] {
      try {
        porta::DeviceScope scope(gpus[g]);
        if (porta::current_device() != gpus[g]) failures[g] = "current_device() is not the scope's device";
        Array a = upload(as[g], DType::float32, {n, n}, porta::current_device());
        Array b = upload(bs[g], DType::float32, {n, n}, porta::current_device());
        Array c = porta::matmul(a, b) + 1.0f;
        if (c.device() != gpus[g]) failures[g] = "the result is on " + c.device().spec();
        std::vector<double> ref(static_cast<std::size_t>(n * n));
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t k = 0; k < n; ++k) {
            double aik = as[g][static_cast<std::size_t>(i * n + k)];
            for (std::int64_t j = 0; j < n; ++j) ref[static_cast<std::size_t>(i * n + j)] += aik * bs[g][static_cast<std::size_t>(k * n + j)];
          }
        for (auto& r : ref) r += 1;
        auto ok = array_matches(c, DType::float32, {n, n}, ref, {1e-4, 1e-4});
        if (!ok) failures[g] = ok.message();
      } catch (const std::exception& e) {
        failures[g] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (std::size_t g = 0; g < gpus.size(); ++g) EXPECT_TRUE(failures[g].empty()) << gpus[g].spec() << ": " << failures[g];
}

// A pool over the GPUs: every task's result is right and on the device that ran it, and every
// GPU got work.
TEST_F(MultiDevice, PoolSpreadsMatmulsOverGpus) {
  const auto gpus = gpus_of_one_backend();
  PORTA_REQUIRE_TWO_GPUS(gpus);
  const std::int64_t n = 256;
  std::vector<double> av = random_values(n * n, DType::float32, -1, 1), bv = random_values(n * n, DType::float32, -1, 1);
  std::vector<double> ref(static_cast<std::size_t>(n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t k = 0; k < n; ++k)
      for (std::int64_t j = 0; j < n; ++j) ref[static_cast<std::size_t>(i * n + j)] += av[static_cast<std::size_t>(i * n + k)] * bv[static_cast<std::size_t>(k * n + j)];
  porta::DevicePool pool(gpus);
  auto results = pool.map(32, [&](const Device& d, std::int64_t task) {
    Array a = upload(av, DType::float32, {n, n}, d), b = upload(bv, DType::float32, {n, n}, d);
    Array c = porta::matmul(a, b) * static_cast<float>(task + 1);
    return std::make_pair(d, fetch(c));
  });
  std::set<std::string> used;
  for (std::size_t t = 0; t < results.size(); ++t) {
    const auto& [d, c] = results[t];
    used.insert(d.spec());
    std::vector<double> scaled(ref);
    for (auto& r : scaled) r *= static_cast<double>(t + 1);
    std::vector<double> got = c.values();
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - scaled[i]) / (1 + std::abs(scaled[i])));
    EXPECT_LT(worst, 1e-4 * static_cast<double>(t + 1)) << "task " << t << " on " << d.spec();
  }
  EXPECT_EQ(used.size(), gpus.size()) << "every GPU ran tasks";
}

}  // namespace
}  // namespace porta_test
