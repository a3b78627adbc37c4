// Writes into arrays and views: Array::assign, Array::fill, porta::assign with a mask; the rule
// that lazy expressions made before a write see the values from before it
// (docs/design/threading.md#writes-and-lazy-readers).
#include "test_common.hpp"
#include "typed_host.hpp"

#include <optional>
#include <thread>

namespace porta_test {
namespace {

using porta::Slice;

// Python's slice.indices for one axis: (start, step, count).
std::tuple<std::int64_t, std::int64_t, std::int64_t> slice_indices(std::int64_t len, std::optional<std::int64_t> b,
                                                                   std::optional<std::int64_t> e, std::int64_t step) {
  std::int64_t start, stop;
  if (step > 0) {
    start = b ? std::clamp(*b < 0 ? *b + len : *b, std::int64_t{0}, len) : 0;
    stop = e ? std::clamp(*e < 0 ? *e + len : *e, std::int64_t{0}, len) : len;
  } else {
    start = b ? std::clamp(*b < 0 ? *b + len : *b, std::int64_t{-1}, len - 1) : len - 1;
    stop = e ? std::clamp(*e < 0 ? *e + len : *e, std::int64_t{-1}, len - 1) : -1;
  }
  std::int64_t span = step > 0 ? stop - start : start - stop;
  std::int64_t count = span > 0 ? (span - 1) / (step > 0 ? step : -step) + 1 : 0;
  return {start, step, count};
}

// The positions in a row-major array of `shape` of the elements of a 2-D slice.
std::vector<std::int64_t> slice_positions(const Shape& shape, const Slice& s0, const Slice& s1, Shape* view_shape) {
  auto [b0, st0, n0] = slice_indices(shape[0], s0.start, s0.stop, s0.step);
  auto [b1, st1, n1] = slice_indices(shape[1], s1.start, s1.stop, s1.step);
  *view_shape = {n0, n1};
  return view_positions(*view_shape, {st0 * shape[1], st1}, b0 * shape[1] + b1);
}

double as_dtype(DType t, double v) {
  if (t == DType::boolean) return v != 0 ? 1 : 0;
  if (porta::is_floating(t)) return round_to(t, v);
  return round_to(t, std::trunc(v));  // integers wrap at the dtype's width (uint8: -2 is 254)
}

using Writes = DeviceDTypeTest;

TEST_P(Writes, ArrayIntoSteppedSliceChangesTheBaseAndItsViews) {
  PORTA_REQUIRE_DTYPE(dtype());
  const Shape shape{7, 9};
  const Slice s0{1, 6, 2}, s1{std::nullopt, std::nullopt, -3};
  std::vector<double> base;
  Array a = random_array(shape, dtype(), -50, 50, &base);
  Array other_view = a.slice({Slice{}, Slice{2, std::nullopt}});  // made before the write
  Shape vs;
  auto pos = slice_positions(shape, s0, s1, &vs);
  ASSERT_EQ(vs, (Shape{3, 3}));
  std::vector<double> src;
  Array b = random_array(vs, dtype(), -50, 50, &src);
  Array view = a.slice({s0, s1});
  const Array& r = view.assign(b);
  EXPECT_EQ(&r, &view);
  std::vector<double> ref = base;
  for (std::size_t i = 0; i < pos.size(); ++i) ref[static_cast<std::size_t>(pos[i])] = src[i];
  EXPECT_TRUE(array_matches(a, dtype(), shape, ref, {0, 0}));
  EXPECT_TRUE(array_matches(view, dtype(), vs, src, {0, 0}));
  std::vector<double> other;
  for (std::int64_t i = 0; i < 7; ++i)
    for (std::int64_t j = 2; j < 9; ++j) other.push_back(ref[static_cast<std::size_t>(i * 9 + j)]);
  EXPECT_TRUE(array_matches(other_view, dtype(), {7, 7}, other, {0, 0}));
}

TEST_P(Writes, NumbersAndBroadcastArraysConvertToTheDestination) {
  PORTA_REQUIRE_DTYPE(dtype());
  const Shape shape{5, 11};
  std::vector<double> base;
  Array a = random_array(shape, dtype(), -20, 20, &base);
  // A number into a stepped column range, as a[:, 1::4] = 3.75.
  a.slice({Slice{}, Slice{1, std::nullopt, 4}}).fill(3.75);
  std::vector<double> ref = base;
  for (std::int64_t i = 0; i < 5; ++i)
    for (std::int64_t j = 1; j < 11; j += 4) ref[static_cast<std::size_t>(i * 11 + j)] = as_dtype(dtype(), 3.75);
  EXPECT_TRUE(array_matches(a, dtype(), shape, ref, {0, 0}));
  // A row broadcast over rows 3 and 4: a[3:] = row.
  std::vector<double> row;
  Array r = random_array({11}, dtype(), -20, 20, &row);
  porta::assign(a.slice({Slice{3, std::nullopt}}), r);
  for (std::int64_t i = 3; i < 5; ++i)
    for (std::int64_t j = 0; j < 11; ++j) ref[static_cast<std::size_t>(i * 11 + j)] = row[static_cast<std::size_t>(j)];
  EXPECT_TRUE(array_matches(a, dtype(), shape, ref, {0, 0}));
  // An integer number through the free function, into the whole (contiguous) array.
  porta::assign(a[1], 7);
  for (std::int64_t j = 0; j < 11; ++j) ref[static_cast<std::size_t>(11 + j)] = as_dtype(dtype(), 7);
  EXPECT_TRUE(array_matches(a, dtype(), shape, ref, {0, 0}));
  a.fill(-2);
  EXPECT_TRUE(array_matches(a, dtype(), shape, std::vector<double>(55, as_dtype(dtype(), -2)), {0, 0}));
}

// Transposed copies, `x.T.copy()` and `d.T = x`, of a block cut out of a larger array (an
// offset and a row stride on the way in, an offset on the way out), over whole tiles and edges
// of the CPU register tile (16 x 16 for 4 bytes, 8 x 8 for 8) and of the GPUs' local tile (32).
TEST_P(Writes, TransposedCopiesOfBlocksOverTilesAndEdges) {
  PORTA_REQUIRE_DTYPE(dtype());
  for (const auto& [r, c] : std::vector<std::pair<std::int64_t, std::int64_t>>{{16, 16}, {47, 70}, {300, 129}}) {
    std::vector<double> xv, dv;
    Array x = random_array({r + 5, c + 9}, dtype(), -100, 100, &xv);
    Array src = x.slice({Slice{3, 3 + r}, Slice{2, 2 + c}});
    auto at = [&](std::int64_t i, std::int64_t j) { return xv[static_cast<std::size_t>((3 + i) * (c + 9) + 2 + j)]; };
    std::vector<double> want(static_cast<std::size_t>(r * c));
    for (std::int64_t i = 0; i < r; ++i)
      for (std::int64_t j = 0; j < c; ++j) want[static_cast<std::size_t>(j * r + i)] = at(i, j);
    EXPECT_TRUE(array_matches(src.transpose().copy(), dtype(), {c, r}, want, {0, 0})) << "x.T.copy() of " << r << " x " << c;
    Array d = random_array({c + 2, r}, dtype(), -100, 100, &dv);
    d.slice({Slice{1, 1 + c}}).transpose().assign(src);
    std::vector<double> ref = dv;
    std::copy(want.begin(), want.end(), ref.begin() + r);
    EXPECT_TRUE(array_matches(d, dtype(), {c + 2, r}, ref, {0, 0})) << "d[1:" << 1 + c << "].T = x of " << r << " x " << c;
  }
}

PORTA_INSTANTIATE_DEVICES_DTYPES(Writes, kAllDTypes);

using WriteRules = DeviceTest;

TEST_P(WriteRules, TransposedViewWritesTheTranspose) {
  std::vector<double> base, src;
  Array a = random_array({6, 13}, DType::float32, -9, 9, &base);
  Array b = random_array({13, 6}, DType::float32, -9, 9, &src);
  a.transpose().assign(b);
  std::vector<double> ref(78);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 13; ++j) ref[static_cast<std::size_t>(i * 13 + j)] = src[static_cast<std::size_t>(j * 6 + i)];
  EXPECT_TRUE(array_matches(a, DType::float32, {6, 13}, ref, {0, 0}));
}

TEST_P(WriteRules, LazyExpressionsMadeBeforeAWriteSeeTheOldValues) {
  std::vector<double> base, src;
  Array a = random_array({1000}, DType::float32, -9, 9, &base);
  Array e = a * 2.0f + 1.0f;                 // lazy, reads a
  Array c = a - 3.0f;
  Array d = c * c;                           // lazy over lazy c
  c.eval();                                  // d now reads c's buffer
  Array b = random_array({500}, DType::float32, -9, 9, &src);
  a.slice({Slice{250, 750}}).assign(b);
  c.fill(0.5);                               // a write into c's buffer: d keeps c's old values
  Array after = a * 2.0f + 1.0f;             // made after the write
  std::vector<double> e_ref, d_ref, after_ref, a_ref = base;
  for (int i = 250; i < 750; ++i) a_ref[static_cast<std::size_t>(i)] = src[static_cast<std::size_t>(i - 250)];
  for (int i = 0; i < 1000; ++i) {
    e_ref.push_back(round_to(DType::float32, base[static_cast<std::size_t>(i)] * 2 + 1));
    double ci = round_to(DType::float32, base[static_cast<std::size_t>(i)] - 3);
    d_ref.push_back(round_to(DType::float32, ci * ci));
    after_ref.push_back(round_to(DType::float32, a_ref[static_cast<std::size_t>(i)] * 2 + 1));
  }
  EXPECT_TRUE(array_matches(e, DType::float32, {1000}, e_ref, {0, 0}));
  EXPECT_TRUE(array_matches(d, DType::float32, {1000}, d_ref, {0, 0}));
  EXPECT_TRUE(array_matches(after, DType::float32, {1000}, after_ref, {0, 0}));
  EXPECT_TRUE(array_matches(c, DType::float32, {1000}, std::vector<double>(1000, 0.5), {0, 0}));
}

// Functions that keep some dtypes' values (abs of unsigned and bool, floor/ceil/trunc/round of
// integers, real/conj of real arrays) still give new arrays: a later write into the operand does
// not reach them (abs of a uint8 array returned the operand itself: test_differential.py found it).
TEST_P(WriteRules, FunctionsThatKeepTheValuesGiveNewArrays) {
  std::vector<double> vu, vi;
  Array u = random_array({37}, DType::uint8, 0, 200, &vu);
  Array i = random_array({37}, DType::int32, -50, 50, &vi);
  const std::vector<Array> of_u = {porta::abs(u)};
  const std::vector<Array> of_i = {porta::floor(i), porta::ceil(i), porta::trunc(i), porta::round(i), porta::real(i),
                                   porta::conj(i)};
  u.fill(7);
  i.fill(-1);
  for (const Array& r : of_u) EXPECT_TRUE(array_matches(r, DType::uint8, {37}, vu, {0, 0}));
  for (const Array& r : of_i) EXPECT_TRUE(array_matches(r, DType::int32, {37}, vi, {0, 0}));
}

TEST_P(WriteRules, OverlappingSourceIsReadBeforeItIsWritten) {
  // a[1:] = a[:-1] (NumPy copies through a temporary), and a[::-1] = a.
  std::vector<double> base;
  Array a = random_array({1031}, DType::int32, -1000, 1000, &base);
  a.slice({Slice{1, std::nullopt}}).assign(a.slice({Slice{std::nullopt, -1}}));
  std::vector<double> ref = base;
  for (std::size_t i = 1; i < ref.size(); ++i) ref[i] = base[i - 1];
  EXPECT_TRUE(array_matches(a, DType::int32, {1031}, ref, {0, 0}));
  std::vector<double> rev(ref.rbegin(), ref.rend());
  a.slice({Slice{std::nullopt, std::nullopt, -1}}).assign(a);
  EXPECT_TRUE(array_matches(a, DType::int32, {1031}, rev, {0, 0}));
  // In place, element for element: a = a * 3 through the array itself.
  Array y = a * 3;
  a.assign(y);
  std::vector<double> tri;
  for (double v : rev) tri.push_back(v * 3);
  EXPECT_TRUE(array_matches(a, DType::int32, {1031}, tri, {0, 0}));
  EXPECT_TRUE(array_matches(y, DType::int32, {1031}, tri, {0, 0}));  // y was made before: 3x the old a
}

TEST_P(WriteRules, MaskedAssignmentWritesOnlyWhereTrue) {
  std::vector<double> base, vals;
  const Shape shape{9, 37};
  Array a = random_array(shape, DType::float64, -5, 5, &base);
  Array b = random_array(shape, DType::float64, -5, 5, &vals);
  Array before = a + 0.0;  // lazy, reads a
  porta::assign(a, 0, a < 0.0);  // a[a < 0] = 0
  std::vector<double> ref = base;
  for (auto& v : ref) v = v < 0 ? 0 : v;
  EXPECT_TRUE(array_matches(a, DType::float64, shape, ref, {0, 0}));
  EXPECT_TRUE(array_matches(before, DType::float64, shape, base, {0, 0}));
  // Through a transposed view, with an array value: at[mask] = bt.
  Array at = a.transpose(), bt = b.transpose();
  Array mask = bt > 1.0;
  porta::assign(at, bt, mask);
  for (std::size_t i = 0; i < ref.size(); ++i)
    if (vals[i] > 1.0) ref[i] = vals[i];
  EXPECT_TRUE(array_matches(a, DType::float64, shape, ref, {0, 0}));
}

TEST_P(WriteRules, RawKernelOutputsAreWritesToo) {
  if (!dev().compiles_at_runtime()) GTEST_SKIP() << dev().spec() << " compiles no RawKernel";
  const porta::RawKernel set =
      dev().backend() == porta::Backend::cuda
          ? porta::RawKernel(porta::Backend::cuda, "extern \"C\" __global__ void set(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = 7.0f; }", "set")
          : porta::RawKernel(porta::Backend::opencl, "__kernel void set(__global float* x, int n) { int i = get_global_id(0); if (i < n) x[i] = 7.0f; }", "set");
  std::vector<double> base;
  Array a = random_array({256}, DType::float32, -9, 9, &base);
  Array before = a + 1.0f;  // lazy, reads a
  set(porta::Dim3{4, 1, 1}, porta::Dim3{64, 1, 1}, {a, 256});
  std::vector<double> ref;
  for (double v : base) ref.push_back(round_to(DType::float32, v + 1));
  EXPECT_TRUE(array_matches(before, DType::float32, {256}, ref, {0, 0}));
  EXPECT_TRUE(array_matches(a, DType::float32, {256}, std::vector<double>(256, 7.0), {0, 0}));
}

TEST_P(WriteRules, WritesOnAnotherThreadAreSeenAfterTheHandOver) {
  // Writes queued on a second thread's queue; the first thread reads after the join, through
  // porta's ordering of queues (an event on the writer's queue), and writes again.
  std::vector<double> base, src;
  Array a = random_array({70001}, DType::float32, -9, 9, &base);
  Array b = random_array({69001}, DType::float32, -9, 9, &src);
  Array before = a * 2.0f;  // lazy, made on this thread
  std::thread t([&] {
    porta::DeviceScope scope(dev());
    a.slice({porta::upto(1000)}).fill(3.0);
    a.slice({porta::from(1000)}).assign(b);
  });
  t.join();
  std::vector<double> ref(1000, 3.0);
  ref.insert(ref.end(), src.begin(), src.end());
  EXPECT_TRUE(array_matches(a, DType::float32, {70001}, ref, {0, 0}));
  std::vector<double> twice;
  for (double v : base) twice.push_back(round_to(DType::float32, v * 2));
  EXPECT_TRUE(array_matches(before, DType::float32, {70001}, twice, {0, 0}));
  a.slice({porta::every(2)}).fill(-1);
  for (std::size_t i = 0; i < ref.size(); i += 2) ref[i] = -1;
  EXPECT_TRUE(array_matches(a, DType::float32, {70001}, ref, {0, 0}));
}

TEST_P(WriteRules, EmptyAndOneElementWrites) {
  Array e = porta::zeros({0, 4}, DType::float32, dev());
  e.assign(porta::ones({4}, DType::float32, dev()));
  e.fill(3);
  EXPECT_EQ(e.size(), 0);
  std::vector<double> base;
  Array a = random_array({5}, DType::float32, 1, 9, &base);
  a.slice({Slice{2, 2}}).assign(porta::zeros({0}, DType::float32, dev()));  // nothing written
  EXPECT_TRUE(array_matches(a, DType::float32, {5}, base, {0, 0}));
  Array one = random_array({1}, DType::int64, 1, 9);
  one.assign(porta::full({}, 42, DType::int64, dev()));
  EXPECT_EQ(one.to_vector<std::int64_t>(), (std::vector<std::int64_t>{42}));
  Array s = porta::zeros({}, DType::float32, dev());
  s.fill(1.5);
  EXPECT_EQ(s.item<float>(), 1.5f);
}

TEST_P(WriteRules, BadWritesThrowAndWriteNothing) {
  std::vector<double> base;
  Array a = random_array({4, 6}, DType::float32, -3, 3, &base);
  auto msg = thrown_message<porta::ShapeError>([&] { a.assign(porta::ones({5}, DType::float32, dev())); });
  EXPECT_NE(msg.find("(5,)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(4, 6)"), std::string::npos) << msg;
  Array bc = porta::ones({6}, DType::float32, dev()).eval().broadcast_to({4, 6});
  msg = thrown_message<porta::InvalidArgument>([&] { bc.fill(2); });
  EXPECT_NE(msg.find("broadcast"), std::string::npos) << msg;
  msg = thrown_message<porta::ShapeError>([&] { porta::assign(a, 1, porta::ones({6, 4}, DType::boolean, dev())); });
  EXPECT_NE(msg.find("(6, 4)"), std::string::npos) << msg;
  msg = thrown_message<porta::DTypeError>([&] { porta::assign(a, 1, porta::ones({4, 6}, DType::int32, dev())); });
  EXPECT_NE(msg.find("int32"), std::string::npos) << msg;
  EXPECT_THROW(Array().assign(a), porta::InvalidArgument);
  EXPECT_TRUE(array_matches(a, DType::float32, {4, 6}, base, {0, 0}));
}

TEST_P(WriteRules, LargeSteppedAndPermutedViewsWriteEveryElement) {
  // a[::2] = y over 2^20 + 5 elements, the odd elements kept.
  const std::int64_t n = (std::int64_t{1} << 20) + 5;
  std::vector<double> base, src;
  Array a = random_array({2 * n}, DType::float32, -9, 9, &base);
  Array y = random_array({n}, DType::float32, -9, 9, &src);
  a.slice({porta::every(2)}).assign(y);
  std::vector<double> ref = base;
  for (std::int64_t i = 0; i < n; ++i) ref[static_cast<std::size_t>(2 * i)] = src[static_cast<std::size_t>(i)];
  EXPECT_TRUE(array_matches(a, DType::float32, {2 * n}, ref, {0, 0}));
  // Transposed and permuted destinations of sizes that are no multiple of a tile: the write goes
  // along the destination's memory (write.cpp), the source read transposed.
  for (auto [shape, perm] : std::vector<std::pair<Shape, std::vector<int>>>{
           {{333, 517}, {1, 0}}, {{7, 40, 33}, {2, 0, 1}}, {{5, 1, 61}, {2, 1, 0}}, {{64, 96}, {1, 0}}}) {
    std::vector<double> b, s;
    Array d = random_array(shape, DType::int32, -1000, 1000, &b);
    Array view = d.transpose(perm);
    Array v = random_array(view.shape(), DType::int32, -1000, 1000, &s);
    view.assign(v);
    // Element (i0, i1, ...) of the view is element (i_perm^-1 ...) of d.
    std::vector<double> want(b.size());
    const Shape vs = view.shape();
    std::vector<std::int64_t> dstride(shape.size());
    for (std::size_t k = shape.size(); k-- > 0;) dstride[k] = k + 1 < shape.size() ? dstride[k + 1] * shape[k + 1] : 1;
    std::vector<std::int64_t> c(vs.size(), 0);
    for (std::size_t e = 0; e < s.size(); ++e) {
      std::int64_t pos = 0;
      for (std::size_t k = 0; k < vs.size(); ++k) pos += c[k] * dstride[static_cast<std::size_t>(perm[k])];
      want[static_cast<std::size_t>(pos)] = s[e];
      for (std::size_t k = vs.size(); k-- > 0;) {
        if (++c[k] < vs[k]) break;
        c[k] = 0;
      }
    }
    EXPECT_TRUE(array_matches(d, DType::int32, shape, want, {0, 0})) << porta::to_string(shape);
  }
}

PORTA_INSTANTIATE_DEVICES(WriteRules);

// The dtypes of issue 37: an array into a stepped slice, into a transposed view, a number into a
// contiguous array (the driver's fill; complex128 of unequal parts: a kernel) and into a strided
// view (a kernel), a masked assign; against the raw elements (typed_host.hpp). Every new dtype on
// every device.
using NewDTypeWrites = DeviceDTypeTest;

TEST_P(NewDTypeWrites, ArraysAndNumbersIntoViews) {
  PORTA_REQUIRE_DTYPE(dtype());
  const DType t = dtype();
  const std::size_t item = porta::itemsize(t);
  std::mt19937_64 rng(21 + static_cast<int>(t));
  const std::int64_t rows = 5, cols = 7;
  const Bytes base = random_bytes(t, rows * cols, rng), src = random_bytes(t, 2 * cols, rng);
  auto at = [&](Bytes& b, std::int64_t r, std::int64_t c) { return b.data() + static_cast<std::size_t>(r * cols + c) * item; };
  // a[1::2] = src (rows 1 and 3).
  Array a = upload_bytes(base, t, {rows, cols}, dev());
  a.slice({Slice{1, std::nullopt, 2}}).assign(upload_bytes(src, t, {2, cols}, dev()));
  Bytes want = base;
  for (std::int64_t k = 0; k < 2; ++k) std::memcpy(at(want, 1 + 2 * k, 0), src.data() + static_cast<std::size_t>(k * cols) * item, cols * item);
  EXPECT_TRUE(bytes_of(a) == want) << "a[1::2] = src";
  // a.T = b.T writes b (a transposed view of a fresh array).
  Array c = upload_bytes(base, t, {rows, cols}, dev());
  const Bytes other = random_bytes(t, rows * cols, rng);
  c.transpose().assign(upload_bytes(other, t, {rows, cols}, dev()).transpose());
  EXPECT_TRUE(bytes_of(c) == other) << "a.T = b.T";
  // Numbers: into the whole array (contiguous) and into a column (strided).
  Array f = upload_bytes(base, t, {rows, cols}, dev());
  Bytes one(item);
  if (porta::is_complex(t)) {
    set_complex(t, one, 0, 2.5, -0.5);
    f.fill(std::complex<double>(2.5, -0.5));
  } else {
    const porta::IntInfo info = porta::iinfo(t);
    set_int(t, one, 0, static_cast<std::int64_t>(info.max));
    if (t == DType::uint64) f.fill(info.max);
    else f.fill(static_cast<std::int64_t>(info.max));
  }
  want.clear();
  for (std::int64_t i = 0; i < rows * cols; ++i) want.insert(want.end(), one.begin(), one.end());
  EXPECT_TRUE(bytes_of(f) == want) << "fill";
  Array g = upload_bytes(base, t, {rows, cols}, dev());
  g.slice({Slice{}, Slice{2, 3}}).fill(porta::is_complex(t) ? 0.0 : 1.0);
  Bytes zero_or_one(item);
  if (porta::is_complex(t)) set_complex(t, zero_or_one, 0, 0.0, 0.0);
  else set_int(t, zero_or_one, 0, 1);
  want = base;
  for (std::int64_t r = 0; r < rows; ++r) std::memcpy(at(want, r, 2), zero_or_one.data(), item);
  EXPECT_TRUE(bytes_of(g) == want) << "a[:, 2:3] = number";
  // A masked assign: where(mask, src, dst) in place.
  Array h = upload_bytes(base, t, {rows, cols}, dev());
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(rows * cols));
  for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = static_cast<std::uint8_t>(i % 3 == 0);
  const Bytes vals = random_bytes(t, rows * cols, rng);
  porta::assign(h, upload_bytes(vals, t, {rows, cols}, dev()), porta::from_host(mask.data(), DType::boolean, {rows, cols}, dev()));
  want = base;
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i]) std::memcpy(want.data() + i * item, vals.data() + i * item, item);
  EXPECT_TRUE(bytes_of(h) == want) << "masked assign";
}

PORTA_INSTANTIATE_DEVICES_DTYPES(NewDTypeWrites, kNewDTypes);

}  // namespace
}  // namespace porta_test
