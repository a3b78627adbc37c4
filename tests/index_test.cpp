// Integer-array and boolean indexing: take, take_along_axis, a[idx], a[mask], put, scatter_add,
// nonzero, count_nonzero; on every device and dtype, against host references.
#include "test_common.hpp"

#include <porta/index.hpp>

#include "primitives/primitives.hpp"

namespace porta_test {
namespace {

using porta::Slice;

std::vector<std::int64_t> random_indices(TestContext& t, std::int64_t n, std::int64_t len, bool negative) {
  std::vector<std::int64_t> v;
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t k = t.random_int(0, static_cast<int>(len) - 1);
    if (negative && t.random_int(0, 1)) k -= len;
    v.push_back(k);
  }
  return v;
}

std::int64_t wrap(std::int64_t k, std::int64_t len) { return k < 0 ? k + len : k; }

using Indexing = DeviceDTypeTest;

TEST_P(Indexing, TakeAlongEachAxisMatchesNumPy) {
  PORTA_REQUIRE_DTYPE(dtype());
  const Shape shape{5, 7, 3};
  std::vector<double> v;
  Array base = random_array({7, 5, 3}, dtype(), -100, 100, &v);
  Array a = base.transpose({1, 0, 2});  // non-contiguous: a[i, j, k] = base[j, i, k]
  auto at = [&](std::int64_t i, std::int64_t j, std::int64_t k) { return v[static_cast<std::size_t>((j * 5 + i) * 3 + k)]; };
  for (int axis = 0; axis < 3; ++axis) {
    const std::int64_t len = shape[static_cast<std::size_t>(axis)];
    auto idx = random_indices(*this, 11, len, true);
    Array ia = porta::from_host(idx, {11}, dev());
    if (axis == 1) ia = ia.astype(DType::int32);
    Array got = porta::take(a, ia, axis);
    Shape os = shape;
    os[static_cast<std::size_t>(axis)] = 11;
    std::vector<double> ref;
    for (std::int64_t i = 0; i < os[0]; ++i)
      for (std::int64_t j = 0; j < os[1]; ++j)
        for (std::int64_t k = 0; k < os[2]; ++k) {
          std::int64_t c[3] = {i, j, k};
          c[axis] = wrap(idx[static_cast<std::size_t>(c[axis])], len);
          ref.push_back(at(c[0], c[1], c[2]));
        }
    EXPECT_TRUE(array_matches(got, dtype(), os, ref, {0, 0})) << "axis " << axis;
  }
  // Without an axis: the flattened array; a 2-D index array keeps its shape.
  auto idx = random_indices(*this, 6, 105, true);
  Array flat = porta::take(a, porta::from_host(idx, {2, 3}, dev()));
  std::vector<double> ref;
  for (auto k : idx) {
    std::int64_t f = wrap(k, 105);
    ref.push_back(at(f / 21, f / 3 % 7, f % 3));
  }
  EXPECT_TRUE(array_matches(flat, dtype(), {2, 3}, ref, {0, 0}));
  // a[idx] along axis 0.
  auto rows = random_indices(*this, 4, 5, false);
  Array r = a[porta::from_host(rows, {4}, dev())];
  ref.clear();
  for (auto i : rows)
    for (std::int64_t j = 0; j < 7; ++j)
      for (std::int64_t k = 0; k < 3; ++k) ref.push_back(at(i, j, k));
  EXPECT_TRUE(array_matches(r, dtype(), {4, 7, 3}, ref, {0, 0}));
}

TEST_P(Indexing, TakeAlongAxisMatchesNumPy) {
  PORTA_REQUIRE_DTYPE(dtype());
  std::vector<double> v;
  Array a = random_array({4, 9}, dtype(), -100, 100, &v);
  auto idx = random_indices(*this, 4 * 13, 9, true);
  Array got = porta::take_along_axis(a, porta::from_host(idx, {4, 13}, dev()), 1);
  std::vector<double> ref;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 13; ++j) ref.push_back(v[static_cast<std::size_t>(i * 9 + wrap(idx[static_cast<std::size_t>(i * 13 + j)], 9))]);
  EXPECT_TRUE(array_matches(got, dtype(), {4, 13}, ref, {0, 0}));
  auto idx0 = random_indices(*this, 2 * 9, 4, false);
  Array got0 = porta::take_along_axis(a, porta::from_host(idx0, {2, 9}, dev()), 0);
  ref.clear();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 9; ++j) ref.push_back(v[static_cast<std::size_t>(idx0[static_cast<std::size_t>(i * 9 + j)] * 9 + j)]);
  EXPECT_TRUE(array_matches(got0, dtype(), {2, 9}, ref, {0, 0}));
}

TEST_P(Indexing, MaskSelectsInRowMajorOrder) {
  PORTA_REQUIRE_DTYPE(dtype());
  std::vector<double> v, mv;
  Array a = random_array({6, 17}, dtype(), -100, 100, &v);
  Array mask = random_array({17, 6}, DType::boolean, 0, 1, &mv).transpose();  // non-contiguous mask
  std::vector<double> ref;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 17; ++j)
      if (mv[static_cast<std::size_t>(j * 6 + i)] != 0) ref.push_back(v[static_cast<std::size_t>(i * 17 + j)]);
  Array got = a[mask];
  EXPECT_TRUE(array_matches(got, dtype(), {static_cast<std::int64_t>(ref.size())}, ref, {0, 0}));
  Array none = porta::compress(porta::zeros({6, 17}, DType::boolean, dev()), a);
  EXPECT_EQ(none.shape(), (Shape{0}));
}

TEST_P(Indexing, PutAndScatterAddWriteTheFlatElements) {
  PORTA_REQUIRE_DTYPE(dtype());
  std::vector<double> v, vals;
  Array a = random_array({5, 8}, dtype(), -20, 20, &v);
  // put with distinct indices, through a stepped (non-contiguous) view of a.
  Array view = a.slice({Slice{}, Slice{std::nullopt, std::nullopt, 2}});  // (5, 4)
  std::vector<std::int64_t> idx = {0, 19, -2, 7, 3, -12};  // distinct once wrapped: 0 19 18 7 3 8
  Array pv = random_array({6}, dtype(), -20, 20, &vals);
  porta::put(view, porta::from_host(idx, {6}, dev()), pv);
  std::vector<double> ref = v;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    std::int64_t f = wrap(idx[k], 20);
    ref[static_cast<std::size_t>(f / 4 * 8 + f % 4 * 2)] = vals[k];
  }
  EXPECT_TRUE(array_matches(a, dtype(), {5, 8}, ref, {0, 0}));
  // scatter_add with repeated indices: every contribution counts, in index order.
  if (dtype() == DType::boolean) return;
  auto sidx = random_indices(*this, 97, 40, true);
  std::vector<double> add;
  Array av = random_array({97}, dtype(), -4, 4, &add);
  porta::scatter_add(a, porta::from_host(sidx, {97}, dev()), av);
  std::vector<double> sums(40, 0);
  std::vector<bool> hit(40, false);
  for (std::size_t k = 0; k < sidx.size(); ++k) {
    auto f = static_cast<std::size_t>(wrap(sidx[k], 40));
    sums[f] += add[k];
    hit[f] = true;
  }
  for (std::size_t f = 0; f < 40; ++f)
    if (hit[f]) ref[f] = round_to(dtype(), ref[f] + sums[f]);
  Tolerance tol = porta::is_floating(dtype()) ? tolerance(dtype(), Accuracy::simple) : Tolerance{0, 0};
  if (porta::is_floating(dtype())) tol.atol = 8 * 20 * (dtype() == DType::float64 ? 1e-15 : dtype() == DType::float32 ? 1e-6 : 1e-2);
  EXPECT_TRUE(array_matches(a, dtype(), {5, 8}, ref, tol));
}

// issue 37: primitives for the new integer dtypes land separately
PORTA_INSTANTIATE_DEVICES_DTYPES(Indexing, kOldDTypes);

using IndexRules = DeviceTest;

TEST_P(IndexRules, NonzeroAndCountNonzero) {
  std::vector<double> v;
  Array a = random_array({4, 5, 6}, DType::int32, -2, 2, &v);
  auto nz = porta::nonzero(a);
  ASSERT_EQ(nz.size(), 3u);
  std::vector<double> r0, r1, r2;
  for (int i = 0; i < 120; ++i)
    if (v[static_cast<std::size_t>(i)] != 0) {
      r0.push_back(i / 30);
      r1.push_back(i / 6 % 5);
      r2.push_back(i % 6);
    }
  const Shape s{static_cast<std::int64_t>(r0.size())};
  EXPECT_TRUE(array_matches(nz[0], DType::int64, s, r0, {0, 0}));
  EXPECT_TRUE(array_matches(nz[1], DType::int64, s, r1, {0, 0}));
  EXPECT_TRUE(array_matches(nz[2], DType::int64, s, r2, {0, 0}));
  EXPECT_EQ(porta::count_nonzero(a).item<std::int64_t>(), static_cast<std::int64_t>(r0.size()));
  std::vector<double> per_row(4, 0);
  for (int i = 0; i < 120; ++i) per_row[static_cast<std::size_t>(i / 30)] += v[static_cast<std::size_t>(i)] != 0;
  EXPECT_TRUE(array_matches(porta::count_nonzero(a.reshape({4, 30}), 1), DType::int64, {4}, per_row, {0, 0}));
  EXPECT_EQ(porta::nonzero(porta::zeros({0}, DType::float32, dev()))[0].size(), 0);
}

TEST_P(IndexRules, MaskOverManyTiles) {
  // 10001 elements: tiles of 2048 with a partial last one, about a third selected.
  std::vector<double> v, u;
  Array a = random_array({10001}, DType::float32, -9, 9, &v);
  Array w = random_array({10001}, DType::float32, 0, 1, &u);
  Array got = a[w < 0.33f];
  std::vector<double> ref;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (static_cast<float>(u[i]) < 0.33f) ref.push_back(v[i]);
  EXPECT_TRUE(array_matches(got, DType::float32, {static_cast<std::int64_t>(ref.size())}, ref, {0, 0}));
  auto nz = porta::flatnonzero(w < 0.33f);
  std::vector<double> idx;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (static_cast<float>(u[i]) < 0.33f) idx.push_back(static_cast<double>(i));
  EXPECT_TRUE(array_matches(nz, DType::int64, {static_cast<std::int64_t>(idx.size())}, idx, {0, 0}));
}

TEST_P(IndexRules, MaskTileCountsTakeAFreshCountsArrayOnly) {
  // The count kernels write from element 0 of the counts' buffer (src/primitives/primitives.hpp): a view
  // further in is refused before any kernel runs; the buffer's own view gets each tile's count.
  const std::int64_t n = 5000, tiles = porta::detail::mask_tiles(n);
  std::vector<double> u;
  Array mask = random_array({n}, DType::float32, 0, 1, &u) < 0.4f;
  Array counts = porta::full({tiles + 2}, -1, DType::int64, dev());
  const auto& mask_view = porta::detail::evaluate(mask.node());
  const auto& tail = porta::detail::evaluate(counts.slice({Slice{2, std::nullopt}}).node());
  ASSERT_EQ(tail.offset, 2);
  EXPECT_THROW(porta::detail::mask_tile_counts(mask_view, tail, n), porta::InvalidArgument);
  std::vector<double> ref(static_cast<std::size_t>(tiles + 2), -1.0);
  EXPECT_TRUE(array_matches(counts, DType::int64, {tiles + 2}, ref, {0, 0}));
  porta::detail::mask_tile_counts(mask_view, porta::detail::evaluate(counts.node()), n);
  std::fill(ref.begin(), ref.begin() + tiles, 0.0);
  for (std::size_t i = 0; i < u.size(); ++i) ref[i / 2048] += static_cast<float>(u[i]) < 0.4f;
  EXPECT_TRUE(array_matches(counts, DType::int64, {tiles + 2}, ref, {0, 0}));
}

TEST_P(IndexRules, ScatterAddAddsInIndexOrderExactly) {
  // float32 accumulated element by element in the order of the indices (NumPy's add.at): the
  // same bits as a float32 loop on the host, on every run.
  std::vector<double> base, vals;
  Array a = random_array({5000}, DType::float32, -1, 1, &base);
  auto idx = random_indices(*this, 20000, 5000, true);
  Array v = random_array({20000}, DType::float32, -1, 1, &vals);
  Array i = porta::from_host(idx, {20000}, dev());
  Array again = a.copy();
  porta::scatter_add(a, i, v);
  porta::scatter_add(again, i, v);
  std::vector<float> ref(base.begin(), base.end());
  for (std::size_t k = 0; k < idx.size(); ++k) ref[static_cast<std::size_t>(wrap(idx[k], 5000))] += static_cast<float>(vals[k]);
  EXPECT_EQ(a.to_vector<float>(), ref);
  EXPECT_EQ(again.to_vector<float>(), ref);
  // Few indices (each element scans them all), repeats included.
  auto few = random_indices(*this, 50, 40, true);
  Array fv = random_array({50}, DType::float32, -1, 1, &vals);
  porta::scatter_add(a, porta::from_host(few, {50}, dev()), fv);
  for (std::size_t k = 0; k < few.size(); ++k) ref[static_cast<std::size_t>(wrap(few[k], 5000))] += static_cast<float>(vals[k]);
  EXPECT_EQ(a.to_vector<float>(), ref);
}

TEST_P(IndexRules, BadIndicesThrowAndWriteNothing) {
  std::vector<double> v;
  Array a = random_array({3, 4}, DType::float32, -5, 5, &v);
  Array far = porta::from_host(std::vector<std::int64_t>{0, 4}, {2}, dev());
  auto msg = thrown_message<porta::InvalidArgument>([&] { (void)porta::take(a, far, 1); });
  EXPECT_NE(msg.find("index 4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("size 4"), std::string::npos) << msg;
  msg = thrown_message<porta::InvalidArgument>(
      [&] { (void)porta::take(a, porta::from_host(std::vector<std::int64_t>{-4}, {1}, dev()), 0); });
  EXPECT_NE(msg.find("-4"), std::string::npos) << msg;
  msg = thrown_message<porta::InvalidArgument>([&] { porta::put(a, porta::from_host(std::vector<std::int64_t>{1, 12}, {2}, dev()), 1.0); });
  EXPECT_NE(msg.find("12"), std::string::npos) << msg;
  msg = thrown_message<porta::InvalidArgument>([&] { (void)porta::take(a, far, 2); });
  EXPECT_NE(msg.find("axis 2"), std::string::npos) << msg;
  EXPECT_THROW((void)porta::take(a, porta::ones({2}, DType::float32, dev()), 0), porta::DTypeError);
  msg = thrown_message<porta::ShapeError>([&] { (void)a[porta::ones({4, 3}, DType::boolean, dev())]; });
  EXPECT_NE(msg.find("(4, 3)"), std::string::npos) << msg;
  EXPECT_THROW((void)porta::take_along_axis(a, porta::zeros({2, 2}, DType::int64, dev()), 1), porta::ShapeError);
  msg = thrown_message<porta::InvalidArgument>(
      [&] { (void)porta::take_along_axis(a, porta::full({3, 2}, -5, DType::int32, dev()), 1); });
  EXPECT_NE(msg.find("index -5"), std::string::npos) << msg;
  EXPECT_THROW((void)porta::take(porta::zeros({0, 3}, DType::float32, dev()), far, 1), porta::InvalidArgument);
  EXPECT_THROW(porta::scatter_add(a, porta::from_host(std::vector<std::int64_t>{-13}, {1}, dev()), 1.0), porta::InvalidArgument);
  EXPECT_TRUE(array_matches(a, DType::float32, {3, 4}, v, {0, 0}));
  // Empty index arrays and one-element arrays.
  EXPECT_EQ(porta::take(a, porta::zeros({0}, DType::int64, dev()), 1).shape(), (Shape{3, 0}));
  Array one = random_array({1}, DType::float64, 1, 9, &v);
  EXPECT_TRUE(array_matches(porta::take(one, porta::from_host(std::vector<std::int64_t>{-1, 0}, {2}, dev())), DType::float64,
                            {2}, {v[0], v[0]}, {0, 0}));
}

TEST_P(IndexRules, CompressAndFlatTakeOverAMillionElements) {
  // 2^20 + 37 elements: 513 mask tiles with a partial last one; every item size (1, 2, 4, 8
  // bytes), masks all true, all false, about half true and a mask view at an odd offset (the
  // kernels' byte path, not their 8-byte words).
  const std::int64_t n = (std::int64_t{1} << 20) + 37;
  std::vector<double> u;
  Array w = random_array({n + 3}, DType::float32, 0, 1, &u);
  for (DType t : {DType::boolean, DType::float16, DType::float32, DType::int64}) {
    std::vector<double> v;
    Array a = random_array({n}, t, -100, 100, &v);
    for (int kind = 0; kind < 4; ++kind) {
      Array mask = kind == 0 ? porta::full({n}, 1.0, DType::boolean, dev())
                 : kind == 1 ? porta::zeros({n}, DType::boolean, dev())
                 : kind == 2 ? (w.slice({Slice{0, n}}) < 0.5f).eval()
                             : (w < 0.5f).eval().slice({Slice{3, n + 3}});
      std::vector<double> ref;
      for (std::int64_t i = 0; i < n; ++i) {
        bool keep = kind == 0 || (kind == 2 && static_cast<float>(u[static_cast<std::size_t>(i)]) < 0.5f) ||
                    (kind == 3 && static_cast<float>(u[static_cast<std::size_t>(i + 3)]) < 0.5f);
        if (keep) ref.push_back(v[static_cast<std::size_t>(i)]);
      }
      EXPECT_TRUE(array_matches(porta::compress(mask, a), t, {static_cast<std::int64_t>(ref.size())}, ref, {0, 0}))
          << porta::name(t) << " mask " << kind;
    }
  }
  // A flat take of 2^20 + 3 random indices (both signs, int64 and int32) from 2^20 + 37 values,
  // four a work-item with a partial last step.
  std::vector<double> v;
  Array a = random_array({n}, DType::float32, -100, 100, &v);
  for (std::int64_t m : {(std::int64_t{1} << 20) + 3, std::int64_t{5}, std::int64_t{1}}) {
    auto idx = random_indices(*this, m, n, true);
    Array ia = porta::from_host(idx, {m}, dev());
    std::vector<double> ref;
    for (auto k : idx) ref.push_back(v[static_cast<std::size_t>(wrap(k, n))]);
    EXPECT_TRUE(array_matches(porta::take(a, ia), DType::float32, {m}, ref, {0, 0})) << m;
    EXPECT_TRUE(array_matches(a[ia.astype(DType::int32)], DType::float32, {m}, ref, {0, 0})) << m;
  }
  {
    std::vector<std::int64_t> bad = {0, 1, n, 2};
    EXPECT_THROW((void)porta::take(a, porta::from_host(bad, {4}, dev())), porta::InvalidArgument);
    // Index 0 of an empty array is out of range too (the flat gather's flag, not its index, says so).
    std::vector<std::int64_t> zero = {0};
    EXPECT_THROW((void)porta::take(porta::zeros({0}, DType::float32, dev()), porta::from_host(zero, {1}, dev())),
                 porta::InvalidArgument);
  }
}

PORTA_INSTANTIATE_DEVICES(IndexRules);

}  // namespace
}  // namespace porta_test
