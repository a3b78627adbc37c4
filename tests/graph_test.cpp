// Graphs (porta::record, Graph::replay): every replay's results against a host reference on fresh
// random inputs, rebinding to other arrays, many replays, a reduction and a matmul inside, replays
// from another thread, and every error record() and replay() give.
#include "test_common.hpp"

#include <thread>

namespace porta_test {
namespace {

using GraphTest = DeviceTest;

const Shape kSizes[] = {{0}, {1}, {1237}, {37, 29}};

// float32 rounds each intermediate (|x * y| <= 16 here): an absolute term as well as a relative one.
constexpr Tolerance kTol{1e-5, 1e-5};

// out = x * 2 + y - x * y, on the host.
std::vector<double> mix_reference(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<double> r(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) r[i] = x[i] * 2 + y[i] - x[i] * y[i];
  return r;
}

TEST_P(GraphTest, ReplayOnRecordedArraysMatchesReference) {
  for (const Shape& shape : kSizes) {
    SCOPED_TRACE(shape_str(shape));
    std::vector<double> xv, yv;
    Array x = random_array(shape, DType::float32, -2, 2, &xv);
    Array y = random_array(shape, DType::float32, -2, 2, &yv);
    Array out = porta::empty(shape, DType::float32, dev());
    porta::Graph g = porta::record({x, y}, {out}, [&] { out.assign(x * 2 + y - x * y); });
    EXPECT_EQ(g.device(), dev());
    EXPECT_EQ(g.inputs(), 2u);
    EXPECT_EQ(g.outputs(), 1u);
    // The warm-up computed the output already.
    EXPECT_TRUE(array_matches(out, DType::float32, shape, mix_reference(xv, yv), kTol));
    for (int rep = 0; rep < 12; ++rep) {
      // New values in the recorded inputs (the static-tensor way), then a replay.
      x.assign(random_array(shape, DType::float32, -3, 3, &xv));
      y.assign(random_array(shape, DType::float32, -3, 3, &yv));
      g.replay();
      ASSERT_TRUE(array_matches(out, DType::float32, shape, mix_reference(xv, yv), kTol))
          << "replay " << rep;
    }
  }
}

TEST_P(GraphTest, ReplayRebindsOtherArraysOfTheSameShape) {
  const Shape shape{random_int(900, 1500)};
  std::vector<double> xv, yv;
  Array x = random_array(shape, DType::float32, -2, 2, &xv);
  Array y = random_array(shape, DType::float32, -2, 2, &yv);
  Array out = porta::empty(shape, DType::float32, dev());
  porta::Graph g = porta::record({x, y}, {out}, [&] { out.assign(x * 2 + y - x * y); });
  const auto recorded_ref = mix_reference(xv, yv);
  const auto tol = kTol;
  for (int rep = 0; rep < 10; ++rep) {
    std::vector<double> x2v, y2v;
    Array x2 = random_array(shape, DType::float32, -4, 4, &x2v);
    Array y2 = random_array(shape, DType::float32, -4, 4, &y2v);
    Array out2 = porta::full(shape, 123.0, DType::float32, dev()).copy();
    g.replay({x2, y2}, {out2});
    ASSERT_TRUE(array_matches(out2, DType::float32, shape, mix_reference(x2v, y2v), tol)) << "rebound replay " << rep;
    // The recorded output is untouched by a replay on other arrays.
    ASSERT_TRUE(array_matches(out, DType::float32, shape, recorded_ref, tol)) << "recorded output after replay " << rep;
    // And a replay on the recorded arrays still uses them (the rebinding is undone).
    if (rep % 3 == 2) {
      g.replay();
      ASSERT_TRUE(array_matches(out, DType::float32, shape, recorded_ref, tol)) << "recorded replay " << rep;
    }
  }
  // Inputs swapped: y2 in x's place.
  std::vector<double> av, bv;
  Array a = random_array(shape, DType::float32, -1, 1, &av);
  Array b = random_array(shape, DType::float32, -1, 1, &bv);
  Array o = porta::empty(shape, DType::float32, dev());
  g.replay({b, a}, {o});
  EXPECT_TRUE(array_matches(o, DType::float32, shape, mix_reference(bv, av), tol));
}

// Ten sets of arrays, kept alive, replayed in turn three times over, new values each time: a
// graph that keeps something per binding (OpenCL command buffers: one per binding, eight kept)
// must give each set its own results, and a set again after others.
TEST_P(GraphTest, ReplayCyclesThroughManyBindings) {
  const Shape shape{random_int(100, 600)};
  struct Set {
    Array x, y, out;
  };
  auto make = [&] {
    return Set{random_array(shape, DType::float32, -1, 1), random_array(shape, DType::float32, -1, 1),
               porta::empty(shape, DType::float32, dev())};
  };
  Set first = make();
  porta::Graph g = porta::record({first.x, first.y}, {first.out}, [&] { first.out.assign(first.x * 2 + first.y - first.x * first.y); });
  std::vector<Set> sets{first};
  for (int i = 0; i < 9; ++i) sets.push_back(make());
  for (int round = 0; round < 3; ++round)
    for (std::size_t i = 0; i < sets.size(); ++i) {
      std::vector<double> xv, yv;
      sets[i].x.assign(random_array(shape, DType::float32, -2, 2, &xv));
      sets[i].y.assign(random_array(shape, DType::float32, -2, 2, &yv));
      sets[i].out.fill(7.0);
      if (i == 0 && round == 1) g.replay();  // the recorded set, named or not
      else g.replay({sets[i].x, sets[i].y}, {sets[i].out});
      ASSERT_TRUE(array_matches(sets[i].out, DType::float32, shape, mix_reference(xv, yv), kTol))
          << "set " << i << ", round " << round << " (" << g.kind() << ")";
    }
}

TEST_P(GraphTest, TenEvaluatedStepsReplayInOrder) {
  const Shape shape{random_int(200, 700)};
  std::vector<double> xv, yv;
  Array x = random_array(shape, DType::float32, -1, 1, &xv);
  Array y = random_array(shape, DType::float32, -1, 1, &yv);
  Array out = porta::empty(shape, DType::float32, dev());
  porta::Graph g = porta::record({x, y}, {out}, [&] {
    Array t = x;
    for (int i = 0; i < 9; ++i) t = (t + y * static_cast<double>(i + 1)).eval();  // a launch each
    out.assign(t + y);
  });
  EXPECT_GE(g.operations(), 10u) << g.kind();
  for (int rep = 0; rep < 5; ++rep) {
    std::vector<double> x2v, y2v;
    Array x2 = random_array(shape, DType::float32, -1, 1, &x2v);
    Array y2 = random_array(shape, DType::float32, -1, 1, &y2v);
    Array out2 = porta::empty(shape, DType::float32, dev());
    g.replay({x2, y2}, {out2});
    std::vector<double> ref(x2v.size());
    for (std::size_t e = 0; e < ref.size(); ++e) {
      double t = x2v[e];
      for (int i = 0; i < 9; ++i) t += y2v[e] * (i + 1);
      ref[e] = t + y2v[e];
    }
    ASSERT_TRUE(array_matches(out2, DType::float32, shape, ref, Tolerance{1e-5, 1e-4}));
  }
}

TEST_P(GraphTest, ReductionAndMatmulReplay) {
  const std::int64_t m = random_int(5, 40), k = random_int(5, 40), n = random_int(5, 40);
  std::vector<double> av, bv;
  Array a = random_array({m, k}, DType::float32, -1, 1, &av);
  Array b = random_array({k, n}, DType::float32, -1, 1, &bv);
  Array c = porta::empty({m, n}, DType::float32, dev());
  Array total = porta::empty({}, DType::float32, dev());
  Array rows = porta::empty({m}, DType::float32, dev());
  porta::Graph g = porta::record({a, b}, {c, total, rows}, [&] {
    Array p = porta::matmul(a, b);
    c.assign(p);
    total.assign(porta::sum(p));
    rows.assign(porta::sum(a * a, 1));
  });
  auto check = [&](const Array& ga, const Array& gb, const Array& gc, const Array& gt, const Array& gr,
                   const std::vector<double>& ha, const std::vector<double>& hb) {
    std::vector<double> pc(m * n, 0.0), pr(m, 0.0);
    double pt = 0, abs_sum = 0;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::int64_t l = 0; l < k; ++l) s += ha[i * k + l] * hb[l * n + j];
        pc[i * n + j] = s;
        pt += s;
        abs_sum += std::abs(s);
      }
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t l = 0; l < k; ++l) pr[i] += ha[i * k + l] * ha[i * k + l];
    (void)ga, (void)gb;
    Tolerance tol{1e-4, 1e-4 * static_cast<double>(k)};
    EXPECT_TRUE(array_matches(gc, DType::float32, {m, n}, pc, tol));
    EXPECT_TRUE(array_matches(gt, DType::float32, {}, {pt}, Tolerance{1e-4, 1e-5 * (abs_sum + 1) * k}));
    EXPECT_TRUE(array_matches(gr, DType::float32, {m}, pr, Tolerance{1e-5, 1e-5 * static_cast<double>(k)}));
  };
  for (int rep = 0; rep < 4; ++rep) {
    a.assign(random_array({m, k}, DType::float32, -1, 1, &av));
    b.assign(random_array({k, n}, DType::float32, -1, 1, &bv));
    g.replay();
    check(a, b, c, total, rows, av, bv);
    std::vector<double> a2v, b2v;
    Array a2 = random_array({m, k}, DType::float32, -1, 1, &a2v);
    Array b2 = random_array({k, n}, DType::float32, -1, 1, &b2v);
    Array c2 = porta::empty({m, n}, DType::float32, dev());
    Array t2 = porta::empty({}, DType::float32, dev());
    Array r2 = porta::empty({m}, DType::float32, dev());
    g.replay({a2, b2}, {c2, t2, r2});
    check(a2, b2, c2, t2, r2, a2v, b2v);
  }
}

TEST_P(GraphTest, ArraysMadeInsideAreStaticAndConstantsAreKept) {
  const Shape shape{random_int(100, 400)};
  std::vector<double> xv, wv;
  Array x = random_array(shape, DType::float32, -1, 1, &xv);
  Array inside;
  porta::Graph g;
  {
    // `w` is read by the graph but not named: the graph keeps it after this scope.
    Array w = random_array(shape, DType::float32, -1, 1, &wv);
    g = porta::record({x}, {}, [&] { inside = (x * w + 1).eval(); });
  }
  for (int rep = 0; rep < 5; ++rep) {
    x.assign(random_array(shape, DType::float32, -2, 2, &xv));
    g.replay();
    std::vector<double> ref(xv.size());
    for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = xv[i] * wv[i] + 1;
    ASSERT_TRUE(array_matches(inside, DType::float32, shape, ref, kTol));
  }
}

TEST_P(GraphTest, LazyReaderOfAnOutputSeesTheValuesFromBeforeTheReplay) {
  const Shape shape{random_int(50, 300)};
  std::vector<double> xv, yv;
  Array x = random_array(shape, DType::float32, -1, 1, &xv);
  Array out = porta::empty(shape, DType::float32, dev());
  porta::Graph g = porta::record({x}, {out}, [&] { out.assign(x + 1); });
  Array before = out * 2;  // lazy: reads out as it is now (x + 1)
  std::vector<double> ref_before(xv.size());
  for (std::size_t i = 0; i < xv.size(); ++i) ref_before[i] = (xv[i] + 1) * 2;
  x.assign(random_array(shape, DType::float32, -1, 1, &yv));
  g.replay();
  EXPECT_TRUE(array_matches(before, DType::float32, shape, ref_before, kTol));
  std::vector<double> ref(yv.size());
  for (std::size_t i = 0; i < yv.size(); ++i) ref[i] = yv[i] + 1;
  EXPECT_TRUE(array_matches(out, DType::float32, shape, ref, kTol));
}

TEST_P(GraphTest, ReplayFromAnotherThread) {
  const Shape shape{random_int(300, 900)};
  std::vector<double> xv, yv;
  Array x = random_array(shape, DType::float32, -2, 2, &xv);
  Array y = random_array(shape, DType::float32, -2, 2, &yv);
  Array out = porta::empty(shape, DType::float32, dev());
  porta::Graph g = porta::record({x, y}, {out}, [&] { out.assign(x * 2 + y - x * y); });
  std::vector<double> x2v, y2v;
  Array x2 = random_array(shape, DType::float32, -2, 2, &x2v);
  Array y2 = random_array(shape, DType::float32, -2, 2, &y2v);
  Array out2 = porta::empty(shape, DType::float32, dev());
  std::thread worker([&] {
    porta::DeviceScope scope(dev());  // the graph's device, current there too
    for (int i = 0; i < 3; ++i) g.replay({x2, y2}, {out2});
  });
  worker.join();
  EXPECT_TRUE(array_matches(out2, DType::float32, shape, mix_reference(x2v, y2v), kTol));
  g.replay();  // back on this thread, on the recorded arrays
  EXPECT_TRUE(array_matches(out, DType::float32, shape, mix_reference(xv, yv), kTol));
}

TEST_P(GraphTest, HostWorkInsideIsRefusedAtRecordAndTheQueueStaysUsable) {
  std::vector<double> xv;
  Array x = random_array({64}, DType::float32, -1, 1, &xv);
  Array out = porta::empty({64}, DType::float32, dev());
  auto msg = thrown_message<porta::InvalidArgument>([&] {
    porta::record({x}, {out}, [&] {
      out.assign(x + 1);
      (void)out.to_vector<float>();
    });
  });
  EXPECT_NE(msg.find("reading device memory to the host"), std::string::npos) << msg;
  EXPECT_NE(msg.find(dev().spec()), std::string::npos) << msg;
  msg = thrown_message<porta::InvalidArgument>([&] {
    porta::record({x}, {out}, [&] { out.assign(x + porta::from_host(std::vector<float>(64, 1.0f), {64}, dev())); });
  });
  EXPECT_NE(msg.find("host memory to the device"), std::string::npos) << msg;
  msg = thrown_message<porta::InvalidArgument>([&] {
    porta::record({x}, {out}, [&] {
      out.assign(x * 3);
      porta::synchronize(dev());
    });
  });
  EXPECT_NE(msg.find("synchronize"), std::string::npos) << msg;
  // A pool's workers run on their own queues.
  msg = thrown_message<porta::InvalidArgument>([&] {
    porta::DevicePool pool({dev()});
    porta::record({x}, {out}, [&] { pool.submit([](const Device&) { return 1; }).get(); });
  });
  EXPECT_NE(msg.find("DevicePool"), std::string::npos) << msg;
  // Nested records.
  msg = thrown_message<porta::InvalidArgument>([&] {
    porta::record({x}, {out}, [&] { porta::record({x}, {out}, [&] { out.assign(x); }); });
  });
  EXPECT_NE(msg.find("do not nest"), std::string::npos) << msg;
  // The queue records nothing now: ordinary work runs, and a new graph records.
  Array again = (x * 4).eval();
  std::vector<double> ref(xv.size());
  for (std::size_t i = 0; i < xv.size(); ++i) ref[i] = xv[i] * 4;
  EXPECT_TRUE(array_matches(again, DType::float32, {64}, ref, kTol));
  porta::Graph g = porta::record({x}, {out}, [&] { out.assign(x * 4); });
  out.fill(0.0);
  g.replay();
  EXPECT_TRUE(array_matches(out, DType::float32, {64}, ref, kTol));
}

TEST_P(GraphTest, ReplayWithMismatchedArraysIsATypedError) {
  Array x = random_array({40}, DType::float32, -1, 1);
  Array out = porta::empty({40}, DType::float32, dev());
  porta::Graph g = porta::record({x}, {out}, [&] { out.assign(x + 2); });
  Array o2 = porta::empty({40}, DType::float32, dev());
  auto msg = thrown_message<porta::DTypeError>(
      [&] { g.replay({random_array({40}, DType::float64, -1, 1)}, {o2}); });
  EXPECT_NE(msg.find("float64"), std::string::npos) << msg;
  EXPECT_NE(msg.find("float32"), std::string::npos) << msg;
  msg = thrown_message<porta::ShapeError>([&] { g.replay({random_array({41}, DType::float32, -1, 1)}, {o2}); });
  EXPECT_NE(msg.find("(41,)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(40,)"), std::string::npos) << msg;
  msg = thrown_message<porta::InvalidArgument>([&] { g.replay({x}, {}); });
  EXPECT_NE(msg.find("1 inputs and 0 outputs"), std::string::npos) << msg;
  // A strided view of the right shape has another layout.
  Array wide = random_array({80}, DType::float32, -1, 1);
  msg = thrown_message<porta::InvalidArgument>([&] { g.replay({wide.slice({porta::every(2)})}, {o2}); });
  EXPECT_NE(msg.find("strides"), std::string::npos) << msg;
  // A broadcast output cannot be written.
  (void)thrown_message<porta::InvalidArgument>(
      [&] { g.replay({x}, {porta::full({1}, 1.0, DType::float32, dev()).copy().broadcast_to({40})}); });
  // An empty graph.
  porta::Graph none;
  EXPECT_FALSE(none.valid());
  (void)thrown_message<porta::InvalidArgument>([&] { none.replay(); });
  // Arrays of another device, given to replay or used inside record.
  for (const Device& other : porta::devices()) {
    if (other == dev()) continue;
    Array xo = porta::from_host(std::vector<float>(40, 1.0f), {40}, other);
    Array oo = porta::empty({40}, DType::float32, other);
    msg = thrown_message<porta::InvalidArgument>([&] { g.replay({xo}, {oo}); });
    EXPECT_NE(msg.find(other.spec()), std::string::npos) << msg;
    EXPECT_NE(msg.find(dev().spec()), std::string::npos) << msg;
    msg = thrown_message<porta::InvalidArgument>([&] {
      porta::record({x}, {out}, [&] {
        out.assign(x + 1);
        (void)(xo + 1).eval();
      }, porta::RecordOptions{false});
    });
    EXPECT_NE(msg.find(other.spec()), std::string::npos) << msg;
    msg = thrown_message<porta::InvalidArgument>([&] { porta::record({x}, {oo}, [] {}); });
    EXPECT_NE(msg.find(other.spec()), std::string::npos) << msg;
    {
      // A thread whose current device is another one.
      porta::DeviceScope scope(other);
      msg = thrown_message<porta::InvalidArgument>([&] { g.replay(); });
      EXPECT_NE(msg.find(other.spec()), std::string::npos) << msg;
      EXPECT_NE(msg.find(dev().spec()), std::string::npos) << msg;
    }
    break;
  }
  // Nothing above broke the graph.
  std::vector<double> xv;
  x.assign(random_array({40}, DType::float32, -1, 1, &xv));
  g.replay();
  std::vector<double> ref(xv.size());
  for (std::size_t i = 0; i < xv.size(); ++i) ref[i] = xv[i] + 2;
  EXPECT_TRUE(array_matches(out, DType::float32, {40}, ref, kTol));
}

TEST_P(GraphTest, ReplayOfFreedArraysIsATypedError) {
  porta::Graph g;
  {
    Array x = random_array({33}, DType::float32, -1, 1);
    Array out = porta::empty({33}, DType::float32, dev());
    g = porta::record({x}, {out}, [&] { out.assign(x * x); });
  }
  auto msg = thrown_message<porta::InvalidArgument>([&] { g.replay(); });
  EXPECT_NE(msg.find("input 0 (float32 (33,))"), std::string::npos) << msg;
  EXPECT_NE(msg.find("freed"), std::string::npos) << msg;
  // Named anew, the graph runs.
  std::vector<double> xv;
  Array x2 = random_array({33}, DType::float32, -1, 1, &xv);
  Array out2 = porta::empty({33}, DType::float32, dev());
  g.replay({x2}, {out2});
  std::vector<double> ref(xv.size());
  for (std::size_t i = 0; i < xv.size(); ++i) ref[i] = xv[i] * xv[i];
  EXPECT_TRUE(array_matches(out2, DType::float32, {33}, ref, kTol));
}

PORTA_INSTANTIATE_DEVICES(GraphTest);

}  // namespace
}  // namespace porta_test
