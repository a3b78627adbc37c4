// Integer-array and boolean indexing: take, take_along_axis, a[idx], a[mask], put, scatter_add,
// nonzero, count_nonzero; on every device and dtype, against host references.
#include "test_common.hpp"
#include "typed_host.hpp"

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

PORTA_INSTANTIATE_DEVICES_DTYPES(Indexing, kAllDTypes);

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

// The dtypes of issue 37: gathers, scatters, scatter_add and compaction move 1-, 2-, 4-, 8- and
// 16-byte elements (complex128) as their bits, against host loops on the raw elements
// (typed_host.hpp). Every new dtype on every device; sizes past a mask tile (2048) and the CPU
// gather's run (1024), with odd remainders.
using NewDTypeIndexing = DeviceDTypeTest;

Bytes element(DType t, const Bytes& b, std::int64_t i) {
  const std::size_t item = porta::itemsize(t);
  return Bytes(b.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * item),
               b.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i + 1) * item));
}
void append(Bytes& out, const Bytes& e) { out.insert(out.end(), e.begin(), e.end()); }

TEST_P(NewDTypeIndexing, TakeTakeAlongAxisAndMasksMoveTheBits) {
  PORTA_REQUIRE_DTYPE(dtype());
  const DType t = dtype();
  std::mt19937_64 rng(3 + static_cast<int>(t));
  // A flat take (a[idx]) with negative indices, past one CPU run of 1024.
  const std::int64_t n = 2 * 2048 + 37, m = 3001;
  const Bytes b = random_bytes(t, n, rng);
  Array a = upload_bytes(b, t, {n}, dev());
  std::vector<std::int64_t> idx(static_cast<std::size_t>(m));
  std::uniform_int_distribution<std::int64_t> any(-n, n - 1);
  for (auto& k : idx) k = any(rng);
  Bytes want;
  for (auto k : idx) append(want, element(t, b, wrap(k, n)));
  Array ia = porta::from_host(idx, {m}, dev());
  EXPECT_TRUE(bytes_of(porta::take(a, ia)) == want) << "take";
  EXPECT_TRUE(bytes_of(a[ia]) == want) << "a[idx]";
  // Along the middle axis of (3, 5, 7), and take_along_axis along the last.
  const Bytes c = random_bytes(t, 3 * 5 * 7, rng);
  Array a3 = upload_bytes(c, t, {3, 5, 7}, dev());
  const std::vector<std::int64_t> mid{4, -1, 0, 2};
  want.clear();
  for (std::int64_t o = 0; o < 3; ++o)
    for (auto k : mid)
      for (std::int64_t i = 0; i < 7; ++i) append(want, element(t, c, (o * 5 + wrap(k, 5)) * 7 + i));
  Array taken = porta::take(a3, porta::from_host(mid, {4}, dev()), 1);
  EXPECT_EQ(taken.shape(), (Shape{3, 4, 7}));
  EXPECT_TRUE(bytes_of(taken) == want) << "take along axis 1";
  std::vector<std::int64_t> along(3 * 5 * 2);
  std::uniform_int_distribution<std::int64_t> seven(-7, 6);
  for (auto& k : along) k = seven(rng);
  want.clear();
  for (std::int64_t r = 0; r < 15; ++r)
    for (std::int64_t j = 0; j < 2; ++j) append(want, element(t, c, r * 7 + wrap(along[static_cast<std::size_t>(r * 2 + j)], 7)));
  EXPECT_TRUE(bytes_of(porta::take_along_axis(a3, porta::from_host(along, {3, 5, 2}, dev()), 2)) == want) << "take_along_axis";
  // Boolean masks: about half true, all false, all true.
  for (int kind : {0, 1, 2}) {
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(n));
    std::uniform_int_distribution<int> coin(0, 1);
    for (auto& x : mask) x = kind == 0 ? static_cast<std::uint8_t>(coin(rng)) : static_cast<std::uint8_t>(kind == 2);
    want.clear();
    for (std::int64_t i = 0; i < n; ++i)
      if (mask[static_cast<std::size_t>(i)]) append(want, element(t, b, i));
    Array mk = porta::from_host(mask.data(), DType::boolean, {n}, dev());
    Array got = porta::compress(mk, a);
    EXPECT_EQ(got.dtype(), t);
    EXPECT_TRUE(bytes_of(got) == want) << "mask kind " << kind;
  }
  // One element and an empty index.
  Array one = upload_bytes(element(t, b, 5), t, {1}, dev());
  want = element(t, b, 5);
  append(want, element(t, b, 5));
  EXPECT_TRUE(bytes_of(porta::take(one, porta::from_host(std::vector<std::int64_t>{0, -1}, {2}, dev()))) == want);
  EXPECT_EQ(porta::take(a, porta::zeros({0}, DType::int64, dev())).size(), 0);
  EXPECT_THROW((void)porta::take(a, porta::from_host(std::vector<std::int64_t>{n}, {1}, dev())), porta::InvalidArgument);
}

TEST_P(NewDTypeIndexing, PutAndScatterAddWriteTheFlatElements) {
  PORTA_REQUIRE_DTYPE(dtype());
  const DType t = dtype();
  std::mt19937_64 rng(9 + static_cast<int>(t));
  const std::int64_t n = 301;
  const Bytes b = random_bytes(t, n, rng);
  const std::size_t item = porta::itemsize(t);
  // put: distinct indices (where indices repeat, NumPy leaves which value lands unspecified).
  std::vector<std::int64_t> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);
  const std::int64_t m = 97;
  std::vector<std::int64_t> idx(perm.begin(), perm.begin() + m);
  for (std::size_t j = 0; j < idx.size(); j += 2) idx[j] -= n;  // negative ones count from the end
  const Bytes vals = random_bytes(t, m, rng);
  Bytes want = b;
  for (std::int64_t j = 0; j < m; ++j)
    std::memcpy(want.data() + static_cast<std::size_t>(wrap(idx[static_cast<std::size_t>(j)], n)) * item,
                vals.data() + static_cast<std::size_t>(j) * item, item);
  Array a = upload_bytes(b, t, {n}, dev());
  porta::put(a, porta::from_host(idx, {m}, dev()), upload_bytes(vals, t, {m}, dev()));
  EXPECT_TRUE(bytes_of(a) == want) << "put";
  // scatter_add with repeated indices: few (each element scans the indices) and many (sorted
  // runs, segment_add), summed in index order: integers wrap, complex parts add (NaN/inf edges).
  for (std::int64_t count : {std::int64_t{20}, std::int64_t{700}}) {
    std::vector<std::int64_t> rep(static_cast<std::size_t>(count));
    std::uniform_int_distribution<std::int64_t> pick(-n, n - 1);
    for (auto& k : rep) k = pick(rng) / 8;  // many repeats near 0 and -1
    const Bytes add = random_bytes(t, count, rng);
    Bytes ref = b;
    for (std::int64_t j = 0; j < count; ++j) {
      const std::int64_t q = wrap(rep[static_cast<std::size_t>(j)], n);
      if (porta::is_complex(t)) {
        const auto x = complex_at(t, ref, q), y = complex_at(t, add, j);
        if (t == DType::complex64)
          set_complex(t, ref, q, static_cast<float>(static_cast<float>(x.real()) + static_cast<float>(y.real())),
                      static_cast<float>(static_cast<float>(x.imag()) + static_cast<float>(y.imag())));
        else
          set_complex(t, ref, q, x.real() + y.real(), x.imag() + y.imag());
      } else {
        set_int(t, ref, q, static_cast<std::int64_t>(static_cast<std::uint64_t>(int_at(t, ref, q)) + static_cast<std::uint64_t>(int_at(t, add, j))));
      }
    }
    Array s = upload_bytes(b, t, {n}, dev());
    porta::scatter_add(s, porta::from_host(rep, {count}, dev()), upload_bytes(add, t, {count}, dev()));
    const Bytes got = bytes_of(s);
    for (std::int64_t i = 0; i < n; ++i) {
      bool same;
      if (porta::is_complex(t)) {
        auto g = complex_at(t, got, i), w = complex_at(t, ref, i);
        auto part = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || (x == y && std::signbit(x) == std::signbit(y)); };
        same = part(g.real(), w.real()) && part(g.imag(), w.imag());
      } else {
        same = int_at(t, got, i) == int_at(t, ref, i);
      }
      ASSERT_TRUE(same) << count << " indices, element " << i << ": " << element_text(t, got, i) << ", want " << element_text(t, ref, i);
    }
  }
}

// Indices of every integer dtype (NumPy's), through the elementwise cast to int64.
TEST_P(NewDTypeIndexing, IndicesOfEveryIntegerDType) {
  PORTA_REQUIRE_DTYPE(dtype());
  const DType t = dtype();
  if (porta::is_complex(t)) {
    EXPECT_THROW((void)porta::take(porta::zeros({3}, DType::float32, dev()), upload_bytes(Bytes(16), t, {1}, dev())), porta::DTypeError);
    return;
  }
  const std::vector<std::int64_t> k{2, 0, 1, 2};
  Bytes ib(k.size() * porta::itemsize(t));
  for (std::size_t j = 0; j < k.size(); ++j) set_int(t, ib, static_cast<std::int64_t>(j), k[j]);
  Array a = porta::from_host(std::vector<std::int64_t>{10, 11, 12}, {3}, dev());
  EXPECT_EQ(porta::take(a, upload_bytes(ib, t, {4}, dev())).to_vector<std::int64_t>(), (std::vector<std::int64_t>{12, 10, 11, 12}));
  if (t == DType::uint64) {  // 2^64 - 1 is no -1
    Bytes big(8);
    set_int(t, big, 0, -1);
    EXPECT_THROW((void)porta::take(a, upload_bytes(big, t, {1}, dev())), porta::InvalidArgument);
  }
}

PORTA_INSTANTIATE_DEVICES_DTYPES(NewDTypeIndexing, kNewDTypes);

}  // namespace
}  // namespace porta_test
