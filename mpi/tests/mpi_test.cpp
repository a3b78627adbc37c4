// porta::mpi's collectives and point-to-point on every device and dtype, against a host reference
// in double precision built on every rank from every rank's inputs (each rank's inputs are drawn
// from a seed rank 0 chose, plus the rank). The tests use EXPECT, never ASSERT, after the first
// collective: a rank that left a test early would leave the others waiting in the next one.
#include <gtest/gtest.h>

#include <porta/mpi.hpp>

#include "test_common.hpp"
#include "typed_host.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <future>
#include <thread>

using namespace porta_test;
using porta::mpi::Communicator;
using porta::mpi::Op;
using porta::element_count;

namespace {

Communicator& world() {
  static Communicator c;
  return c;
}

constexpr Op kOps[] = {Op::sum, Op::prod, Op::min, Op::max};

class MpiTest : public DeviceDTypeTest {
 protected:
  void SetUp() override {
    DeviceDTypeTest::SetUp();
    std::uint64_t s = seed();
    MPI_Bcast(&s, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    shared_seed_ = s;
  }
  // Rank r's values for draw `k` of this test: the same on every rank.
  std::vector<double> values_of(int r, int k, std::int64_t n, double lo, double hi) {
    rng().seed(shared_seed_ * 7919 + static_cast<std::uint64_t>(r) * 104729 + static_cast<std::uint64_t>(k));
    return random_values(n, dtype(), lo, hi);
  }
  std::vector<std::vector<double>> all_values(int k, std::int64_t n, double lo, double hi) {
    std::vector<std::vector<double>> v;
    for (int r = 0; r < world().size(); ++r) v.push_back(values_of(r, k, n, lo, hi));
    return v;
  }
  Array mine(const std::vector<std::vector<double>>& all, const Shape& shape) {
    return upload(all[static_cast<std::size_t>(world().rank())], dtype(), shape, dev());
  }
  // The tolerance of a reduction over the ranks: one rounding of the exact result, plus the
  // rounding of partial sums that may cancel.
  Tolerance reduce_tolerance() const {
    Tolerance t = tolerance(dtype(), Accuracy::simple);
    if (porta::is_floating(dtype())) t.atol = std::max(t.atol, 8 * t.rtol);
    return t;
  }
  std::uint64_t shared_seed_ = 0;
};

class MpiDeviceTest : public DeviceTest {};

double combine(Op op, DType t, double a, double b) {
  if (t == DType::boolean) {
    const bool x = a != 0, y = b != 0;
    return (op == Op::sum || op == Op::max) ? (x || y) : (x && y);
  }
  switch (op) {
    case Op::sum: return a + b;
    case Op::prod: return a * b;
    case Op::min: return std::min(a, b);
    case Op::max: return std::max(a, b);
  }
  return 0;
}

std::vector<double> reference(const std::vector<std::vector<double>>& all, Op op, DType t) {
  std::vector<double> r = all[0];
  for (std::size_t k = 1; k < all.size(); ++k)
    for (std::size_t i = 0; i < r.size(); ++i) r[i] = combine(op, t, r[i], all[k][i]);
  for (auto& v : r) v = round_to(t, v);
  return r;
}

// Inputs that keep every op exact or well inside the dtype's range.
std::pair<double, double> range_for(Op op) { return op == Op::prod ? std::pair{0.5, 2.0} : std::pair{-8.0, 8.0}; }

// The messages of `fn`'s exception of type E on every rank are one message.
template <class E>
void expect_same_error_everywhere(const std::function<void()>& fn, const std::string& must_contain) {
  const std::string msg = thrown_message<E>(fn);
  EXPECT_NE(msg.find(must_contain), std::string::npos) << msg;
  const std::uint64_t h = std::hash<std::string>{}(msg);
  std::vector<std::uint64_t> all(static_cast<std::size_t>(world().size()));
  MPI_Allgather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  for (auto v : all) EXPECT_EQ(v, h) << "another rank saw a different message than: " << msg;
}

TEST_P(MpiTest, AllreduceEveryOpMatchesReference) {
  PORTA_REQUIRE_DTYPE(dtype());
  const Shape shape{3, 7};
  int k = 0;
  for (Op op : kOps) {
    const auto [lo, hi] = range_for(op);
    const auto all = all_values(k++, element_count(shape), lo, hi);
    const Array got = world().allreduce(mine(all, shape), op);
    EXPECT_TRUE(array_matches(got, dtype(), shape, reference(all, op, dtype()), reduce_tolerance()))
        << porta::mpi::name(op);
    EXPECT_EQ(got.device(), dev());
  }
}

TEST_P(MpiTest, ReduceGivesRootTheReductionAndOthersNothing) {
  PORTA_REQUIRE_DTYPE(dtype());
  const Shape shape{11};
  const int root = world().size() - 1;
  int k = 0;
  for (Op op : {Op::sum, Op::max}) {
    const auto [lo, hi] = range_for(op);
    const auto all = all_values(k++, element_count(shape), lo, hi);
    const Array got = world().reduce(mine(all, shape), op, root);
    if (world().rank() == root) {
      EXPECT_TRUE(array_matches(got, dtype(), shape, reference(all, op, dtype()), reduce_tolerance()));
    } else {
      EXPECT_FALSE(got.valid());
    }
  }
}

TEST_P(MpiTest, BroadcastGivesEveryRankRootsArray) {
  PORTA_REQUIRE_DTYPE(dtype());
  const Shape shape{2, 3, 4};
  const int root = 1 % world().size();
  const auto all = all_values(0, element_count(shape), -8, 8);
  // Odd ranks pass no array and take root's shape; even ranks pass one of the same shape.
  const Array in = (world().rank() == root || world().rank() % 2 == 0) ? mine(all, shape) : Array();
  const Array got = world().broadcast(in, root);
  EXPECT_TRUE(array_matches(got, dtype(), shape, all[static_cast<std::size_t>(root)], Tolerance{}));
}

TEST_P(MpiTest, AllgatherStacksEveryRanksArray) {
  PORTA_REQUIRE_DTYPE(dtype());
  const Shape shape{5, 2};
  const auto all = all_values(0, element_count(shape), -8, 8);
  const Array got = world().allgather(mine(all, shape));
  std::vector<double> ref;
  for (const auto& v : all) ref.insert(ref.end(), v.begin(), v.end());
  EXPECT_TRUE(array_matches(got, dtype(), Shape{world().size(), 5, 2}, ref, Tolerance{}));
}

TEST_P(MpiTest, ReduceScatterGivesRankRItsBlockOfTheReduction) {
  PORTA_REQUIRE_DTYPE(dtype());
  const int n = world().size();
  const Shape shape{2 * n, 3};
  int k = 0;
  for (Op op : {Op::sum, Op::min}) {
    const auto all = all_values(k++, element_count(shape), -8, 8);
    const Array got = world().reduce_scatter(mine(all, shape), op);
    const auto full = reference(all, op, dtype());
    const std::size_t block = 6;
    const auto at = full.begin() + static_cast<std::ptrdiff_t>(block * static_cast<std::size_t>(world().rank()));
    EXPECT_TRUE(array_matches(got, dtype(), Shape{2, 3}, std::vector<double>(at, at + 6), reduce_tolerance()))
        << porta::mpi::name(op);
  }
}

TEST_P(MpiTest, AlltoallSendsBlockRToRankR) {
  PORTA_REQUIRE_DTYPE(dtype());
  const int n = world().size();
  const Shape shape{n, 3};
  const auto all = all_values(0, element_count(shape), -8, 8);
  const Array got = world().alltoall(mine(all, shape));
  std::vector<double> ref;
  for (int s = 0; s < n; ++s) {
    const auto& v = all[static_cast<std::size_t>(s)];
    ref.insert(ref.end(), v.begin() + 3 * world().rank(), v.begin() + 3 * world().rank() + 3);
  }
  EXPECT_TRUE(array_matches(got, dtype(), shape, ref, Tolerance{}));
}

TEST_P(MpiTest, SendRecvAroundTheRingBlockingAndNot) {
  PORTA_REQUIRE_DTYPE(dtype());
  const int n = world().size(), r = world().rank();
  const Shape shape{4, 3};
  const auto all = all_values(0, element_count(shape), -8, 8);
  const int next = (r + 1) % n, prev = (r + n - 1) % n;
  // Blocking: even ranks send first, odd ranks receive first (no rank waits for itself).
  Array got;
  if (r % 2 == 0) {
    world().send(mine(all, shape), next, 7);
    got = world().recv(prev, 7, dev());
  } else {
    got = world().recv(prev, 7, dev());
    world().send(mine(all, shape), next, 7);
  }
  EXPECT_TRUE(array_matches(got, dtype(), shape, all[static_cast<std::size_t>(prev)], Tolerance{}));
  // Non-blocking both ways at once, then recv_like with the expected shape.
  auto rx = world().irecv(next, 8, dev());
  auto tx = world().isend(mine(all, shape), prev, 8);
  const Array back = rx.wait();
  tx.wait();
  EXPECT_TRUE(array_matches(back, dtype(), shape, all[static_cast<std::size_t>(next)], Tolerance{}));
}

TEST_P(MpiTest, IallreducesInFlightFinishInAnyOrder) {
  PORTA_REQUIRE_DTYPE(dtype());
  const Shape shape{9};
  std::vector<std::vector<std::vector<double>>> inputs;
  std::vector<porta::mpi::Request> requests;
  for (int k = 0; k < 3; ++k) {
    inputs.push_back(all_values(k, element_count(shape), -8, 8));
    requests.push_back(world().iallreduce(mine(inputs.back(), shape), Op::sum));
  }
  for (int k = 2; k >= 0; --k) {
    const Array got = requests[static_cast<std::size_t>(k)].wait();
    EXPECT_TRUE(array_matches(got, dtype(), shape, reference(inputs[static_cast<std::size_t>(k)], Op::sum, dtype()),
                              reduce_tolerance()));
  }
}

TEST_P(MpiDeviceTest, NonContiguousViewsAreReducedInRowMajorOrder) {
  const int n = world().size();
  std::uint64_t s = seed();
  MPI_Bcast(&s, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  std::vector<std::vector<double>> base;
  for (int r = 0; r < n; ++r) {
    rng().seed(s + static_cast<std::uint64_t>(r));
    base.push_back(random_values(6 * 8, DType::float32, -1, 1));
  }
  const Array x = upload(base[static_cast<std::size_t>(world().rank())], DType::float32, Shape{6, 8}, dev());
  // A transposed view and a strided slice: both are read in their own row-major order.
  const Array t = x.transpose();
  const Array sl = x.slice({porta::Slice{1, 6, 2}, porta::Slice{0, 8, 3}});
  const Array gt = world().allreduce(t, Op::sum);
  const Array gs = world().allgather(sl);
  std::vector<double> ref_t(48, 0.0), ref_s;
  for (int r = 0; r < n; ++r)
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 6; ++j) ref_t[static_cast<std::size_t>(i * 6 + j)] += base[static_cast<std::size_t>(r)][static_cast<std::size_t>(j * 8 + i)];
  for (int r = 0; r < n; ++r)
    for (int i = 1; i < 6; i += 2)
      for (int j = 0; j < 8; j += 3) ref_s.push_back(base[static_cast<std::size_t>(r)][static_cast<std::size_t>(i * 8 + j)]);
  EXPECT_TRUE(array_matches(gt, DType::float32, Shape{8, 6}, ref_t, Tolerance{1e-6, 1e-6}));
  EXPECT_TRUE(array_matches(gs, DType::float32, Shape{n, 3, 3}, ref_s, Tolerance{}));
}

TEST_P(MpiDeviceTest, ZeroSizeArraysGoThroughEveryCollective) {
  const Shape shape{0, 3};
  const Array z = porta::zeros(shape, DType::float32, dev());
  EXPECT_EQ(world().allreduce(z).shape(), shape);
  EXPECT_EQ(world().allgather(z).shape(), (Shape{world().size(), 0, 3}));
  EXPECT_EQ(world().broadcast(z, 0).shape(), shape);
  EXPECT_EQ(world().alltoall(porta::zeros(Shape{0}, DType::int32, dev())).shape(), Shape{0});
  EXPECT_EQ(world().iallreduce(z, Op::max).wait().shape(), shape);
  const int n = world().size(), r = world().rank();
  auto rx = world().irecv((r + n - 1) % n, 3, dev());
  world().send(z, (r + 1) % n, 3);
  EXPECT_EQ(rx.wait().shape(), shape);
}

TEST_P(MpiDeviceTest, MismatchesAreTheSameErrorOnEveryRank) {
  const int r = world().rank();
  const Array a = porta::ones(Shape{3, r == 1 ? 4 : 5}, DType::float32, dev());
  expect_same_error_everywhere<porta::ShapeError>([&] { world().allreduce(a); }, "rank 1: (3, 4) float32");
  const Array b = porta::ones(Shape{4}, r == 2 % world().size() ? DType::float64 : DType::float32, dev());
  expect_same_error_everywhere<porta::DTypeError>([&] { world().allgather(b); }, "different dtypes");
  const Array c = porta::ones(Shape{world().size() + 1}, DType::int32, dev());
  expect_same_error_everywhere<porta::ShapeError>([&] { world().reduce_scatter(c); }, "multiple of the");
  expect_same_error_everywhere<porta::InvalidArgument>([&] { world().reduce(c, Op::sum, world().size()); },
                                                       "is not a rank");
  // Rank 0 calls allreduce while the others call allgather.
  expect_same_error_everywhere<porta::InvalidArgument>(
      [&] {
        if (r == 0)
          world().allreduce(c);
        else
          world().allgather(c);
      },
      "different collectives");
  expect_same_error_everywhere<porta::InvalidArgument>([&] { world().allreduce(r == 0 ? Array() : c); },
                                                       "rank 0 passed an invalid");
  // The communicator still works after each of them.
  const Array ok = world().allreduce(porta::full(Shape{2}, 1.5, DType::float32, dev()));
  EXPECT_EQ(ok.to_vector<float>(), (std::vector<float>{1.5f * static_cast<float>(world().size()),
                                                        1.5f * static_cast<float>(world().size())}));
  // recv_like: a shape other than the sender's is an error on the receiver, after the message.
  const int n = world().size();
  auto tx = world().isend(porta::ones(Shape{2, 2}, DType::float32, dev()), (r + 1) % n, 5);
  const std::string msg = thrown_message<porta::ShapeError>(
      [&] { world().recv_like(porta::ones(Shape{4}, DType::float32, dev()), (r + n - 1) % n, 5); });
  EXPECT_NE(msg.find("expected (4,)"), std::string::npos) << msg;
  tx.wait();
}

TEST_P(MpiDeviceTest, CollectivesFollowPendingWritesAndPrecedeLaterWork) {
  const int n = world().size(), r = world().rank();
  const std::int64_t size = 1 << 16;
  // The input is written by kernels still queued on another thread's queue, which stays alive
  // (a thread's queue is drained when the thread ends) and never synchronises.
  Array x;
  std::promise<void> written, done;
  std::thread writer([&] {
    porta::DeviceScope scope(dev());
    x = (porta::random::Generator(11 + static_cast<std::uint64_t>(r)).uniform({size}, -1, 1, DType::float32) * 2.0f + 1.0f)
            .eval();
    written.set_value();
    done.get_future().wait();
  });
  written.get_future().wait();
  const Array sum = world().allreduce(x);
  // Later porta work on the result, straight away.
  const auto got = (sum * 0.5f).to_vector<float>();
  done.set_value();
  writer.join();
  std::vector<double> ref(static_cast<std::size_t>(size), 0.0);
  for (int k = 0; k < n; ++k) {
    const auto v = (porta::random::Generator(11 + static_cast<std::uint64_t>(k)).uniform({size}, -1, 1, DType::float32, dev()) *
                        2.0f +
                    1.0f)
                       .to_vector<float>();
    for (std::size_t i = 0; i < v.size(); ++i) ref[i] += 0.5 * v[i];
  }
  std::int64_t bad = 0;
  for (std::size_t i = 0; i < ref.size(); ++i)
    if (std::fabs(got[i] - ref[i]) > 1e-5 * (1 + std::fabs(ref[i]))) ++bad;
  EXPECT_EQ(bad, 0) << "elements that differ from the reference, of " << size;
}

TEST_P(MpiDeviceTest, TwoThreadsRunCollectivesAtOnceOnTheirOwnCommunicators) {
  // Made in the same order on every rank; each thread then uses its own.
  std::vector<Communicator> comms{world().dup(), world().dup()};
  Failures failures;
  const int n = world().size(), r = world().rank();
  auto work = [&](int t) {
    try {
      porta::DeviceScope scope(dev());
      const auto& c = comms[static_cast<std::size_t>(t)];
      std::vector<porta::mpi::Request> inflight;
      for (int i = 0; i < 20; ++i) {
        const double v = (t + 1) * 100 + i + r;
        const Array x = porta::full(Shape{64}, v, DType::float64, dev());
        // Expected: sum over ranks of (t+1)*100 + i + rank.
        const double want = n * ((t + 1) * 100 + i) + n * (n - 1) / 2.0;
        if (i % 2 == 0) {
          const auto got = c.allreduce(x).to_vector<double>();
          if (got.front() != want || got.back() != want)
            failures.add("thread " + std::to_string(t) + " allreduce " + std::to_string(i) + ": " +
                         std::to_string(got.front()) + ", expected " + std::to_string(want));
        } else {
          inflight.push_back(c.iallreduce(x));
        }
      }
      for (std::size_t k = 0; k < inflight.size(); ++k) {
        const int i = static_cast<int>(2 * k + 1);
        const double want = n * ((t + 1) * 100 + i) + n * (n - 1) / 2.0;
        const auto got = inflight[k].wait().to_vector<double>();
        if (got.front() != want) failures.add("thread " + std::to_string(t) + " iallreduce " + std::to_string(i));
      }
    } catch (const std::exception& e) {
      failures.add(std::string("thread ") + std::to_string(t) + ": " + e.what());
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  failures.report();
}

TEST(MpiCommunicator, RanksHostsAndDevice) {
  EXPECT_GE(world().rank(), 0);
  EXPECT_LT(world().rank(), world().size());
  EXPECT_LT(world().local_rank(), world().local_size());
  EXPECT_LE(world().local_size(), world().size());
  EXPECT_TRUE(world().device().valid());
  EXPECT_EQ(world().device(), world().device());
  EXPECT_EQ(world().comm(), MPI_COMM_WORLD);
  int provided = 0;
  MPI_Query_thread(&provided);
  EXPECT_EQ(provided, MPI_THREAD_MULTIPLE) << "porta::mpi::Environment asks for MPI_THREAD_MULTIPLE";
}

// Each collective is counted once, by the engine that moved it: the host path on CPU devices, and
// on CUDA devices NCCL where it serves these ranks. PORTA_MPI_EXPECT_NCCL=1 (the GPU host's run)
// makes NCCL a requirement, so that a silent fall-back to the host fails the run.
TEST(MpiTransport, EveryCollectiveIsCountedByTheEngineThatMovedIt) {
  const Communicator c = world().dup();
  const porta::Device d = c.device();
  const auto before = c.transport_counts();
  EXPECT_EQ(before.nccl + before.host, 0u) << "a new communicator has moved nothing";
  TestContext ctx;
  ctx.start(d);
  const auto values = ctx.random_values(4099, porta::DType::float32, -1, 1);
  const Array x = upload(values, porta::DType::float32, {4099}, d);
  const Array sum = c.allreduce(x);
  const Array all = c.allgather(x);
  c.broadcast(x, 0).eval();
  EXPECT_EQ(sum.shape(), x.shape());
  EXPECT_EQ(all.dim(0), c.size());
  const auto after = c.transport_counts();
  EXPECT_EQ(after.nccl + after.host, 3u);
  const char* expect = std::getenv("PORTA_MPI_EXPECT_NCCL");
  if (expect && std::string(expect) == "1") {
    EXPECT_EQ(d.backend(), porta::Backend::cuda) << "PORTA_MPI_EXPECT_NCCL=1 needs every rank on a CUDA device";
    EXPECT_EQ(after.nccl, 3u) << "CUDA arrays went through the host";
  } else if (d.backend() != porta::Backend::cuda) {
    EXPECT_EQ(after.host, 3u) << "arrays on " << d.spec() << " have no NCCL path";
  }
  ctx.finish(::testing::Test::HasFailure());
}

}  // namespace

// The dtypes of issue 37 through MPI's own types (MPI_INT8_T ... MPI_C_DOUBLE_COMPLEX): sums that
// stay exact (whole numbers; integers wrap as MPI's and NumPy's do), allgather, broadcast; and
// min/max of complex numbers, which MPI does not order, the same DTypeError on every rank. Raw
// elements (typed_host.hpp): no elementwise kernel.
TEST_P(MpiDeviceTest, NewDTypesMoveAndSum) {
  const int r = world().rank(), n = world().size();
  const std::int64_t len = 7;
  for (DType t : kNewDTypes) {
    if (!dev().supports(t)) continue;
    SCOPED_TRACE(name(t));
    // Rank q's element i: (q + 1) (i - 3), and for complex numbers (q - i) as the imaginary part.
    auto rank_bytes = [&](int q) {
      Bytes b(static_cast<std::size_t>(len) * porta::itemsize(t));
      for (std::int64_t i = 0; i < len; ++i) {
        if (porta::is_complex(t)) set_complex(t, b, i, (q + 1.0) * static_cast<double>(i - 3), static_cast<double>(q - i));
        else set_int(t, b, i, (q + 1) * (i - 3));
      }
      return b;
    };
    Bytes sum(static_cast<std::size_t>(len) * porta::itemsize(t)), gathered;
    for (std::int64_t i = 0; i < len; ++i) {
      std::int64_t si = 0;
      double re = 0, im = 0;
      for (int q = 0; q < n; ++q) {
        si += (q + 1) * (i - 3);
        re += (q + 1.0) * static_cast<double>(i - 3);
        im += static_cast<double>(q - i);
      }
      if (porta::is_complex(t)) set_complex(t, sum, i, re, im);
      else set_int(t, sum, i, si);  // the low bytes: wraps as the dtype's sum
    }
    for (int q = 0; q < n; ++q) {
      const Bytes b = rank_bytes(q);
      gathered.insert(gathered.end(), b.begin(), b.end());
    }
    const Array mine = upload_bytes(rank_bytes(r), t, {len}, dev());
    const Array total = world().allreduce(mine);
    EXPECT_EQ(total.dtype(), t);
    EXPECT_TRUE(bytes_of(total) == sum) << "allreduce sum";
    EXPECT_TRUE(bytes_of(world().allgather(mine)) == gathered) << "allgather";
    EXPECT_TRUE(bytes_of(world().broadcast(mine, n - 1)) == rank_bytes(n - 1)) << "broadcast";
    if (porta::is_complex(t)) expect_same_error_everywhere<porta::DTypeError>([&] { world().allreduce(mine, Op::max); }, "orders no complex");
  }
}

PORTA_INSTANTIATE_DEVICES_DTYPES(MpiTest, kAllDTypes);
PORTA_INSTANTIATE_DEVICES(MpiDeviceTest);

// Run only by the CTest entry mpi.runner_reports_a_failure_on_another_rank (it is disabled): a
// failure on rank 1 alone must fail the whole run, with rank 0 saying so.
TEST(MpiRunner, DISABLED_FailsOnRankOneOnly) { EXPECT_NE(world().rank(), 1) << "the failure rank 1 is meant to report"; }
