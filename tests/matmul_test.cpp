// Matrix products against a double-precision host product: vectors, shapes that are not tile
// multiples, transposed, sliced and offset operands, batches (a batch of 1 broadcasts), k = 0;
// every dtype and transpose combination on every device, both variants of porta's OpenCL GEMM
// kernel (whole tiles and edges), its tensor-core kernels (float16, bfloat16, TF32, float64;
// emulated where the device lacks the instructions) in every shape class, the ranking search,
// every matmul path of the OpenCL backend (PORTA_OPENCL_GEMM); complex and integer products
// (MatmulComplexInteger); errors.
// Each distinct kernel variant costs PoCL a compile of a few seconds, so the shape classes
// are chosen to need few of them.
#include "test_common.hpp"

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <type_traits>

namespace porta_test {
namespace {

struct HostMatrix {
  std::int64_t batch, rows, cols;
  std::vector<double> v;  // row-major (batch, rows, cols)
  double at(std::int64_t b, std::int64_t r, std::int64_t c) const {
    return v[static_cast<std::size_t>(((batch == 1 ? 0 : b) * rows + r) * cols + c)];
  }
};

// C = A B in double, with the rounding bound of a product accumulated in `t` (float16 and
// bfloat16 accumulate in float32): k * eps * sum |a_ik b_kj| per element.
// With `tf32` the inputs are rounded to TF32 (10 bits of mantissa): eps is then 2^-11.
void host_matmul(const HostMatrix& a, const HostMatrix& b, DType t, std::vector<double>& c, std::vector<double>& bound,
                 bool tf32 = false) {
  std::int64_t batch = std::max(a.batch, b.batch);
  double eps = tf32 ? 0x1p-11 : accumulation_roundoff(t);
  c.assign(static_cast<std::size_t>(batch * a.rows * b.cols), 0);
  bound.assign(c.size(), 0);
  for (std::int64_t p = 0; p < batch; ++p)
    for (std::int64_t i = 0; i < a.rows; ++i)
      for (std::int64_t j = 0; j < b.cols; ++j) {
        double s = 0, mag = 0;
        for (std::int64_t k = 0; k < a.cols; ++k) {
          s += a.at(p, i, k) * b.at(p, k, j);
          mag += std::fabs(a.at(p, i, k) * b.at(p, k, j));
        }
        std::size_t o = static_cast<std::size_t>((p * a.rows + i) * b.cols + j);
        c[o] = s;
        bound[o] = 2 * static_cast<double>(a.cols + 2) * eps * mag;
      }
}

class Matmul : public DeviceTest {
 protected:
  // A random (batch, rows, cols) operand, stored transposed (as x.T of a (cols, rows) array) or
  // as a strided slice when asked, so matmul sees every layout.
  // offset: a view at row 3, column 1 of a larger array (an unaligned element offset);
  // offset_rows: at row 4 of a taller array (offset and leading dimension stay multiples of 4).
  enum class Layout { row_major, transposed, sliced, offset, offset_rows };
  Array operand(DType t, std::int64_t batch, std::int64_t rows, std::int64_t cols, Layout layout, HostMatrix& h, bool keep_2d) {
    h = {batch, rows, cols, {}};
    h.v = random_values(batch * rows * cols, t, -1, 1);
    Shape s = keep_2d ? Shape{rows, cols} : Shape{batch, rows, cols};
    switch (layout) {
      case Layout::row_major: return upload(h.v, t, s, dev());
      case Layout::transposed: {
        // Store x^T (cols, rows) per batch, then transpose the last two axes back.
        std::vector<double> tv(h.v.size());
        for (std::int64_t p = 0; p < batch; ++p)
          for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t c = 0; c < cols; ++c)
              tv[static_cast<std::size_t>((p * cols + c) * rows + r)] = h.v[static_cast<std::size_t>((p * rows + r) * cols + c)];
        if (keep_2d) return upload(tv, t, {cols, rows}, dev()).transpose();
        return upload(tv, t, {batch, cols, rows}, dev()).transpose({0, 2, 1});
      }
      case Layout::sliced: {
        // Every other column of a (.., rows, 2 cols) array.
        std::vector<double> wide(h.v.size() * 2);
        for (std::size_t i = 0; i < h.v.size(); ++i) {
          wide[2 * i] = h.v[i];
          wide[2 * i + 1] = 1e6;  // must never be read
        }
        Shape ws = keep_2d ? Shape{rows, 2 * cols} : Shape{batch, rows, 2 * cols};
        Array w = upload(wide, t, ws, dev());
        if (keep_2d) return w.slice({{}, {std::nullopt, std::nullopt, 2}});
        return w.slice({{}, {}, {std::nullopt, std::nullopt, 2}});
      }
      case Layout::offset:
      case Layout::offset_rows: {
        const std::int64_t r0 = layout == Layout::offset ? 3 : 4, c0 = layout == Layout::offset ? 1 : 0;
        const std::int64_t wr = rows + r0, wc = cols + 2 * c0;
        std::vector<double> big(static_cast<std::size_t>(batch * wr * wc), 1e6);  // 1e6: must never be read
        for (std::int64_t p = 0; p < batch; ++p)
          for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t c = 0; c < cols; ++c)
              big[static_cast<std::size_t>((p * wr + r + r0) * wc + c + c0)] = h.v[static_cast<std::size_t>((p * rows + r) * cols + c)];
        porta::Slice rs{r0, std::nullopt}, cs{c0, c0 + cols};
        if (keep_2d) return upload(big, t, {wr, wc}, dev()).slice({rs, cs});
        return upload(big, t, {batch, wr, wc}, dev()).slice({{}, rs, cs});
      }
    }
    return {};
  }

  void check(DType t, std::int64_t batch_a, std::int64_t batch_b, std::int64_t m, std::int64_t k, std::int64_t n, Layout la, Layout lb,
             bool a2d, bool b2d, const std::string& what,
             porta::MatmulPrecision precision = porta::MatmulPrecision::from_env) {
    HostMatrix ha, hb;
    Array a = operand(t, batch_a, m, k, la, ha, a2d);
    Array b = operand(t, batch_b, k, n, lb, hb, b2d);
    std::vector<double> ref, bound;
    host_matmul(ha, hb, t, ref, bound, precision == porta::MatmulPrecision::tf32);
    Shape out;
    if (!a2d || !b2d) out.push_back(std::max(batch_a, batch_b));
    out.push_back(m);
    out.push_back(n);
    Array c = porta::matmul(a, b, precision);
    ASSERT_EQ(c.dtype(), t) << what;
    ASSERT_EQ(c.shape(), out) << what;
    Tolerance tol = porta::is_floating(t) && t != DType::float32 && t != DType::float64 ? tolerance(t, Accuracy::simple) : Tolerance{0, 0};
    EXPECT_TRUE(values_match(fetch(c), ref, tol, nullptr, {}, &bound)) << what << " " << porta::name(t);
  }

  void check_shapes(DType t, const std::string& path) {
    using L = Layout;
    check(t, 1, 1, 1, 257, 1, L::row_major, L::row_major, true, true, path + " (1, N) x (N, 1)");
    check(t, 1, 1, 65, 1, 65, L::row_major, L::row_major, true, true, path + " (N, 1) x (1, N)");
    check(t, 1, 1, 67, 93, 51, L::row_major, L::row_major, true, true, path + " 67x93 x 93x51");
    check(t, 1, 1, 128, 128, 128, L::row_major, L::row_major, true, true, path + " 128x128 x 128x128");
    check(t, 1, 1, 67, 93, 51, L::transposed, L::row_major, true, true, path + " a.T x b");
    check(t, 1, 1, 67, 93, 51, L::row_major, L::transposed, true, true, path + " a x b.T");
    check(t, 1, 1, 33, 17, 70, L::transposed, L::transposed, true, true, path + " a.T x b.T");
    check(t, 1, 1, 20, 31, 9, L::sliced, L::sliced, true, true, path + " strided slices");
    check(t, 3, 3, 20, 30, 10, L::row_major, L::row_major, false, false, path + " batched (3) x (3)");
    check(t, 1, 3, 20, 30, 10, L::row_major, L::transposed, false, false, path + " batched (1) x (3), b transposed");
    check(t, 3, 1, 20, 30, 10, L::transposed, L::row_major, false, false, path + " batched (3) x (1), a transposed");
    check(t, 1, 3, 20, 30, 10, L::row_major, L::row_major, true, false, path + " 2-D x batched (3)");
    check(t, 3, 1, 7, 5, 3, L::row_major, L::row_major, false, true, path + " batched (3) x 2-D");
  }

  void check_vectors_and_empty(DType t) {
    HostMatrix hv, hm;
    // vector x matrix: (k) x (k, n) -> (n)
    Array v = operand(t, 1, 1, 30, Layout::row_major, hv, true).reshape({30});
    Array m = operand(t, 1, 30, 10, Layout::row_major, hm, true);
    std::vector<double> ref, bound;
    host_matmul(hv, hm, t, ref, bound);
    Array vm = porta::matmul(v, m);
    EXPECT_EQ(vm.shape(), Shape{10});
    EXPECT_TRUE(values_match(fetch(vm), ref, {0, 0}, nullptr, {}, &bound)) << "vector x matrix";
    // matrix x vector: (m, k) x (k) -> (m)
    HostMatrix hm2, hv2;
    Array m2 = operand(t, 1, 20, 30, Layout::transposed, hm2, true);
    Array v2 = operand(t, 1, 30, 1, Layout::row_major, hv2, true).reshape({30});
    host_matmul(hm2, hv2, t, ref, bound);
    Array mv = porta::matmul(m2, v2);
    EXPECT_EQ(mv.shape(), Shape{20});
    EXPECT_TRUE(values_match(fetch(mv), ref, {0, 0}, nullptr, {}, &bound)) << "matrix x vector";
    // dot: a 0-d array
    HostMatrix ha, hb;
    Array a = operand(t, 1, 1, 1000, Layout::row_major, ha, true).reshape({1000});
    Array b = operand(t, 1, 1000, 1, Layout::row_major, hb, true).reshape({1000});
    host_matmul(ha, hb, t, ref, bound);
    Array d = porta::dot(a, b);
    EXPECT_EQ(d.ndim(), 0);
    EXPECT_TRUE(values_match(fetch(d), ref, {0, 0}, nullptr, {}, &bound)) << "dot";
    // k = 0 gives zeros; m = 0 or n = 0 an empty result.
    Array z = porta::matmul(porta::ones({3, 0}, t, dev()), porta::ones({0, 4}, t, dev()));
    EXPECT_TRUE(array_matches(z, t, {3, 4}, std::vector<double>(12, 0), {0, 0})) << "k = 0";
    EXPECT_EQ(porta::matmul(porta::ones({0, 5}, t, dev()), porta::ones({5, 4}, t, dev())).shape(), (Shape{0, 4}));
    EXPECT_EQ(porta::matmul(porta::ones({2, 0, 5}, t, dev()), porta::ones({5, 4}, t, dev())).shape(), (Shape{2, 0, 4}));
  }
};

TEST_P(Matmul, ShapesLayoutsAndBatchesMatchReference) {
  for (DType t : {DType::float32, DType::float64}) {
    if (!dev().supports(t)) continue;
    check_shapes(t, std::string(porta::name(t)));
    check_vectors_and_empty(t);
  }
}

// porta-info's "matmul:" line: every device says how it multiplies; CUDA through cuBLAS, CPU
// devices through the host BLAS or porta's own code, never an empty answer.
TEST_P(Matmul, DeviceSaysHowItMultiplies) {
  std::string path = dev().matmul_path();
  EXPECT_FALSE(path.empty()) << dev().spec();
  if (dev().backend() == porta::Backend::cuda) {
    EXPECT_NE(path.find("cuBLAS"), std::string::npos) << path;
  }
  if (dev().kind() == porta::DeviceKind::cpu) {
    EXPECT_TRUE(path.find("host BLAS") != std::string::npos || path.find("blocked loop") != std::string::npos ||
                path.find("OpenCL GEMM") != std::string::npos)
        << path;
  }
}

TEST_P(Matmul, HalfPrecisionAccumulatesInFloat32) {
  bool any = false;
  for (DType t : {DType::float16, DType::bfloat16}) {
    if (!dev().supports(t)) continue;
    any = true;
    check(t, 1, 1, 67, 93, 51, Layout::row_major, Layout::transposed, true, true, "67x93 x 93x51");
    check(t, 2, 2, 9, 300, 5, Layout::row_major, Layout::row_major, false, false, "batched, k = 300");
  }
  if (!any) GTEST_SKIP() << dev().spec() << " has neither float16 nor bfloat16";
}

// Mixed operand dtypes are promoted; precision modes agree with the reference (TF32 loosely).
TEST_P(Matmul, PromotionAndPrecisionModes) {
  HostMatrix ha, hb;
  Array a = operand(DType::float32, 1, 40, 50, Layout::row_major, ha, true);
  Array b = operand(DType::float32, 1, 50, 30, Layout::row_major, hb, true);
  std::vector<double> ref, bound;
  host_matmul(ha, hb, DType::float32, ref, bound);
  EXPECT_TRUE(values_match(fetch(porta::matmul(a, b, porta::MatmulPrecision::exact)), ref, {0, 0}, nullptr, {}, &bound)) << "exact";
  EXPECT_TRUE(values_match(fetch(porta::matmul(a, b, porta::MatmulPrecision::tf32)), ref, {2e-2, 2e-2})) << "tf32";
  if (dev().supports(DType::float64)) {
    Array c = porta::matmul(a, b.astype(DType::float64));
    EXPECT_EQ(c.dtype(), DType::float64) << "float32 with float64 is float64";
    host_matmul(ha, hb, DType::float64, ref, bound);
    EXPECT_TRUE(values_match(fetch(c), ref, {0, 0}, nullptr, {}, &bound));
  }
}

TEST_P(Matmul, ErrorsNameTheShapes) {
  Array a = porta::ones({3, 4}, DType::float32, dev());
  Array b = porta::ones({5, 2}, DType::float32, dev());
  std::string msg = thrown_message<porta::ShapeError>([&] { (void)porta::matmul(a, b); });
  EXPECT_NE(msg.find("(3, 4)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(5, 2)"), std::string::npos) << msg;
  EXPECT_THROW((void)porta::matmul(porta::ones({2, 3, 4}, DType::float32, dev()), porta::ones({3, 4, 2}, DType::float32, dev())),
               porta::ShapeError)
      << "batch 2 against 3";
  EXPECT_THROW((void)porta::matmul(porta::ones({}, DType::float32, dev()), a), porta::ShapeError) << "0-d operand";
  EXPECT_THROW((void)porta::matmul(porta::ones({2, 1, 3, 4}, DType::float32, dev()), porta::ones({3, 3, 5, 2}, DType::float32, dev())),
               porta::ShapeError)
      << "4-D operands with inner dimensions 4 and 5";
  EXPECT_THROW((void)porta::matmul(porta::ones({2, 3, 3, 4}, DType::float32, dev()), porta::ones({4, 4, 2}, DType::float32, dev())),
               porta::ShapeError)
      << "leading dimensions (2, 3) and (4,)";
  EXPECT_THROW((void)porta::dot(a, a), porta::ShapeError) << "dot of matrices";
}

// NumPy's matmul of 4 or more dimensions: the leading dimensions broadcast ((2, 1) with (3,) is
// (2, 3)) and each pair of matrices is multiplied; a 1-D operand is a row or column. int32 exact,
// float64 within a few roundings of four terms, against a host product.
TEST_P(Matmul, StackedOperandsBroadcastTheirLeadingDimensions) {
  for (DType t : {DType::int32, DType::float64}) {
    if (!dev().supports(t)) continue;
    std::vector<double> va, vb, vv;
    const Array a = random_array({2, 1, 3, 4}, t, -9, 9, &va);  // (2, 1) x (3, 4)
    const Array b = random_array({3, 4, 5}, t, -9, 9, &vb);     // (3,) x (4, 5)
    const Array v = random_array({4}, t, -9, 9, &vv);
    const Tolerance tol = t == DType::int32 ? Tolerance{0, 0} : Tolerance{1e-14, 1e-13};
    std::vector<double> ref;  // c[i, j] = a[i, 0] @ b[j]: (2, 3, 3, 5)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 5; ++c) {
            double s = 0;
            for (int q = 0; q < 4; ++q) s += va[static_cast<std::size_t>((i * 3 + r) * 4 + q)] * vb[static_cast<std::size_t>((j * 4 + q) * 5 + c)];
            ref.push_back(s);
          }
    EXPECT_TRUE(array_matches(porta::matmul(a, b), t, {2, 3, 3, 5}, ref, tol)) << name(t);
    std::vector<double> row;  // a @ v: (2, 1, 3)
    for (int i = 0; i < 2; ++i)
      for (int r = 0; r < 3; ++r) {
        double s = 0;
        for (int q = 0; q < 4; ++q) s += va[static_cast<std::size_t>((i * 3 + r) * 4 + q)] * vv[static_cast<std::size_t>(q)];
        row.push_back(s);
      }
    EXPECT_TRUE(array_matches(porta::matmul(a, v), t, {2, 1, 3}, row, tol)) << name(t);
    const Array a2 = a.broadcast_to({2, 2, 3, 4});  // non-contiguous (a stride 0) and 2-D b
    const Array b2 = b[1];
    std::vector<double> ref2;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 5; ++c) ref2.push_back(ref[static_cast<std::size_t>(((i * 3 + 1) * 3 + r) * 5 + c)]);
    EXPECT_TRUE(array_matches(porta::matmul(a2, b2), t, {2, 2, 3, 5}, ref2, tol)) << name(t);
    EXPECT_EQ(porta::matmul(porta::zeros({0, 1, 3, 4}, t, dev()), b).shape(), (Shape{0, 3, 3, 5}));
  }
}

// Every dtype the device has, every shape class and all four transpose combinations. On OpenCL
// devices this runs porta's own kernel (PORTA_OPENCL_GEMM=tiled; CPU devices otherwise take the
// host BLAS): the guarded variant for the edge shapes (one kernel per dtype) and the fast one for
// whole 128x128 tiles with aligned rows (one per dtype and transposes).
class MatmulShapes : public Matmul {
 protected:
  void run_all() {
    using L = Layout;
    for (DType t : {DType::float32, DType::float64, DType::float16, DType::bfloat16}) {
      if (!dev().supports(t)) continue;
      const std::string d(porta::name(t));
      // Edges: sizes that are not tile multiples, 1xN, Nx1, k = 1, k not a multiple of the tile's k.
      check(t, 1, 1, 1, 300, 1, L::row_major, L::row_major, true, true, d + " (1, N) x (N, 1)");
      check(t, 1, 1, 130, 1, 131, L::row_major, L::row_major, true, true, d + " k = 1, (N, 1) x (1, N)");
      check(t, 1, 1, 1, 37, 200, L::row_major, L::transposed, true, true, d + " 1xN x (NxM).T");
      check(t, 1, 1, 200, 37, 1, L::transposed, L::row_major, true, true, d + " (MxN).T x Nx1");
      const L layouts[] = {L::row_major, L::transposed};
      for (L la : layouts)
        for (L lb : layouts)
          check(t, 1, 1, 131, 45, 259, la, lb, true, true,
                d + " 131x45 x 45x259 " + (la == L::transposed ? "a.T" : "a") + (lb == L::transposed ? " b.T" : " b"));
      check(t, 2, 2, 33, 70, 65, L::offset, L::transposed, false, false, d + " batched, a at an unaligned offset");
      // Whole tiles: every transpose combination for float32, A B for the other dtypes.
      for (L la : layouts)
        for (L lb : layouts) {
          if (t != DType::float32 && (la != L::row_major || lb != L::row_major)) continue;
          check(t, 1, 1, 256, 64, 128, la, lb, true, true,
                d + " 256x64 x 64x128 " + (la == L::transposed ? "a.T" : "a") + (lb == L::transposed ? " b.T" : " b"));
        }
      check(t, 3, 3, 128, 32, 128, L::offset_rows, L::row_major, false, false, d + " batched whole tiles, a at row 4");
      check(t, 1, 2, 128, 48, 256, L::row_major, L::row_major, true, false, d + " 2-D x batched (2), whole tiles");
      check(t, 1, 1, 128, 36, 128, L::row_major, L::offset, true, true, d + " whole tiles, b at an unaligned offset");
    }
  }
};

TEST_P(MatmulShapes, EveryDTypeShapeClassAndTransposeMatchesReference) {
  if (dev().backend() == porta::Backend::opencl) {
    ScopedEnv env("PORTA_OPENCL_GEMM", "tiled");
    run_all();
  } else {
    run_all();
  }
}

// PORTA_OPENCL_GEMM_SHAPE picks the kernel's parameters by hand; a malformed value says what it wants.
TEST_P(MatmulShapes, OpenCLShapeOverride) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "PORTA_OPENCL_GEMM_SHAPE concerns OpenCL devices";
  ScopedEnv env("PORTA_OPENCL_GEMM", "tiled");
  {
    ScopedEnv shape("PORTA_OPENCL_GEMM_SHAPE", "32x32x8:4x4");  // the older form, without :vV
    check(DType::float32, 1, 1, 64, 24, 96, Layout::row_major, Layout::transposed, true, true, "32x32x8:4x4, whole tiles");
    check(DType::float32, 1, 1, 40, 13, 33, Layout::transposed, Layout::row_major, true, true, "32x32x8:4x4, edges");
  }
  ScopedEnv bad("PORTA_OPENCL_GEMM_SHAPE", "128x128x8:8x8:v3");
  std::string msg = thrown_message<porta::InvalidArgument>(
      [&] { porta::matmul(porta::ones({2, 2}, DType::float32, dev()), porta::ones({2, 2}, DType::float32, dev())).eval(); });
  EXPECT_NE(msg.find("128x128x8:8x8:v3"), std::string::npos) << msg;
}

// Each path of the OpenCL backend: PORTA_OPENCL_GEMM is read at each call.
TEST_P(Matmul, EveryOpenCLGemmPath) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "PORTA_OPENCL_GEMM concerns OpenCL devices";
  for (const char* path : {"tiled", "host", "clblast", "mma", "auto"}) {
    ScopedEnv env("PORTA_OPENCL_GEMM", path);
    for (DType t : {DType::float32, DType::float64}) {
      if (!dev().supports(t)) continue;
      std::string what = std::string("PORTA_OPENCL_GEMM=") + path + " " + std::string(porta::name(t));
      try {
        porta::matmul(porta::ones({2, 2}, t, dev()), porta::ones({2, 2}, t, dev())).eval();
      } catch (const porta::BackendUnavailable& e) {
        std::cout << "[ skipped  ] " << what << ": " << e.what() << "\n";
        continue;
      } catch (const porta::DeviceError& e) {
        // The tiled kernel may not fit a device: the message must say which path to use instead.
        EXPECT_NE(std::string(e.what()).find("PORTA_OPENCL_GEMM"), std::string::npos) << e.what();
        continue;
      }
      using L = Layout;
      check(t, 1, 1, 67, 93, 51, L::row_major, L::row_major, true, true, what + " 67x93 x 93x51");
      check(t, 1, 1, 1, 129, 1, L::row_major, L::row_major, true, true, what + " (1, N) x (N, 1)");
      check(t, 1, 1, 33, 17, 70, L::transposed, L::transposed, true, true, what + " a.T x b.T");
      check(t, 1, 1, 64, 64, 64, L::row_major, L::transposed, true, true, what + " 64x64, b.T");
      check(t, 1, 3, 20, 30, 10, L::transposed, L::row_major, false, false, what + " batched (1) x (3)");
      check(t, 3, 3, 5, 7, 9, L::sliced, L::row_major, false, false, what + " batched, a sliced");
      EXPECT_TRUE(array_matches(porta::matmul(porta::ones({3, 0}, t, dev()), porta::ones({0, 4}, t, dev())), t, {3, 4},
                                std::vector<double>(12, 0), {0, 0}))
          << what << " k = 0";
    }
  }
  ScopedEnv bad("PORTA_OPENCL_GEMM", "fastest");
  std::string msg = thrown_message<porta::InvalidArgument>(
      [&] { porta::matmul(porta::ones({2, 2}, DType::float32, dev()), porta::ones({2, 2}, DType::float32, dev())).eval(); });
  EXPECT_NE(msg.find("fastest"), std::string::npos) << msg;
}

// The ranking search (backends/opencl/gemm/search.hpp) on a CPU device, where it runs only when
// PORTA_OPENCL_GEMM_SEARCH is set: every tiled candidate timed and checked on a 128^2 product, then
// the winner's products match the reference (whole tiles and edges). On GPUs the first matmul of
// a dtype searches whether or not this test runs.
TEST_P(Matmul, OpenCLSearchRanksCheckedCandidates) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "PORTA_OPENCL_GEMM_SEARCH concerns OpenCL devices";
  ScopedEnv env("PORTA_OPENCL_GEMM", "tiled");
  ScopedEnv search("PORTA_OPENCL_GEMM_SEARCH", "128");
  check(DType::float32, 1, 1, 128, 64, 128, Layout::row_major, Layout::row_major, true, true, "searched, whole tiles");
  check(DType::float32, 1, 1, 67, 93, 51, Layout::row_major, Layout::transposed, true, true, "searched, edges, b.T");
}

// float64 products of the shapes of the FP64 tensor-core kernel (backends/opencl/gemm/mma.hpp):
// whole tiles, batches, a broadcast operand, an even offset; and products that fit no tile, that
// are transposed or at an odd offset, which take the other kernels. On NVIDIA's OpenCL with
// compute capability 9.0 the fitting ones run on the tensor cores; elsewhere, and under
// PORTA_OPENCL_GEMM=mma (below), they check the same shapes on whatever path the device takes.
class MatmulTensorCore : public Matmul {
 protected:
  void check_mma_shapes(const std::string& what) {
    using L = Layout;
    const DType t = DType::float64;
    check(t, 1, 1, 256, 256, 256, L::row_major, L::row_major, true, true, what + " 256x256x256");
    check(t, 1, 1, 384, 64, 128, L::row_major, L::row_major, true, true, what + " 384x128x64");
    check(t, 3, 3, 128, 16, 128, L::row_major, L::row_major, false, false, what + " batch of 3 of 128x128x16");
    check(t, 2, 2, 128, 32, 128, L::offset_rows, L::row_major, false, false, what + " batched, a at row 4");
    check(t, 1, 2, 128, 16, 64, L::row_major, L::row_major, true, false, what + " 2-D x batched (2), n = 64");
    check(t, 1, 1, 130, 64, 128, L::row_major, L::row_major, true, true, what + " 130x128x64, no tile fits");
    check(t, 1, 1, 128, 32, 128, L::row_major, L::transposed, true, true, what + " 128x128x32, b transposed");
    check(t, 1, 1, 128, 32, 128, L::offset, L::row_major, true, true, what + " 128x128x32, a at an odd offset");
  }

  // Every shape class of the general tensor-core kernel (gemm_tc.hpp) in dtype t: edges, 1xN,
  // k = 1, the four transpose combinations, strided slices, offsets, batches and broadcast batches
  // (the guarded variant), whole tiles of row-major operands (the fast one, for the 64x64 tiles
  // of the configurations used here) and k = 0.
  void check_tc_shapes(DType t, const std::string& what) {
    using L = Layout;
    const auto precision = t == DType::float32 ? porta::MatmulPrecision::tf32 : porta::MatmulPrecision::exact;
    const std::string d = what + " " + std::string(porta::name(t));
    check(t, 1, 1, 1, 300, 1, L::row_major, L::row_major, true, true, d + " (1, N) x (N, 1)", precision);
    check(t, 1, 1, 130, 1, 131, L::row_major, L::row_major, true, true, d + " k = 1", precision);
    check(t, 1, 1, 67, 93, 51, L::row_major, L::row_major, true, true, d + " 67x93 x 93x51", precision);
    const L layouts[] = {L::row_major, L::transposed};
    for (L la : layouts)
      for (L lb : layouts)
        check(t, 1, 1, 45, 37, 70, la, lb, true, true,
              d + " 45x37 x 37x70 " + (la == L::transposed ? "a.T" : "a") + (lb == L::transposed ? " b.T" : " b"), precision);
    check(t, 1, 1, 20, 31, 9, L::sliced, L::sliced, true, true, d + " strided slices", precision);
    check(t, 2, 2, 33, 70, 65, L::offset, L::transposed, false, false, d + " batched, a at an unaligned offset, b.T", precision);
    check(t, 1, 3, 20, 30, 10, L::row_major, L::transposed, false, false, d + " batched (1) x (3), b.T", precision);
    check(t, 1, 2, 128, 64, 128, L::row_major, L::row_major, true, false, d + " 2-D x batched (2), whole tiles", precision);
    check(t, 3, 3, 64, 32, 64, L::offset_rows, L::row_major, false, false, d + " batched whole tiles, a at row 4", precision);
    check(t, 1, 1, 128, 64, 64, L::row_major, L::transposed, true, true, d + " whole tiles, b.T", precision);
    check(t, 1, 1, 64, 40, 64, L::row_major, L::offset, true, true, d + " k = 40, b at an unaligned offset", precision);
    EXPECT_TRUE(array_matches(porta::matmul(porta::ones({3, 0}, t, dev()), porta::ones({0, 4}, t, dev()), precision), t,
                              {3, 4}, std::vector<double>(12, 0), {0, 0}))
        << d << " k = 0";
  }
};

// The general tensor-core kernel forced in one configuration per dtype (mma:CONFIG refuses a
// product it does not take, so each product that passes ran through it): on NVIDIA's OpenCL with
// compute capability 8.0+ (9.0+ for float64) on the tensor cores, elsewhere with the instructions
// emulated, which checks every index of the kernel on PoCL. float16 and bfloat16 take their
// fragments through ldmatrix here, and through plain local reads in the next test.
TEST_P(MatmulTensorCore, EveryDTypeShapeClassAndTransposeOnTheTensorCores) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "PORTA_OPENCL_GEMM concerns OpenCL devices";
  for (DType t : {DType::float16, DType::bfloat16, DType::float32, DType::float64}) {
    if (!dev().supports(t)) continue;
    const char* config = t == DType::float16 || t == DType::bfloat16 ? "mma:tc64x64x32:w32x32:ldsm" : "mma:tc64x64x16:w32x32";
    ScopedEnv env("PORTA_OPENCL_GEMM", config);
    check_tc_shapes(t, std::string("PORTA_OPENCL_GEMM=") + config);
  }
}

// float16 and bfloat16 without ldmatrix; PORTA_OPENCL_GEMM=mma (the configuration the device's
// ranking or, emulated, the cheapest one gives) for every dtype; the errors of mma:CONFIG.
TEST_P(MatmulTensorCore, LocalReadsRankedConfigurationsAndErrors) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "PORTA_OPENCL_GEMM concerns OpenCL devices";
  using L = Layout;
  for (DType t : {DType::float16, DType::bfloat16}) {
    if (!dev().supports(t)) continue;
    ScopedEnv env("PORTA_OPENCL_GEMM", "mma:tc64x64x32:w32x32");
    const std::string d = "mma:tc64x64x32:w32x32 " + std::string(porta::name(t));
    check(t, 1, 1, 45, 37, 70, L::transposed, L::row_major, true, true, d + " 45x37 x 37x70, a.T");
    check(t, 1, 1, 45, 37, 70, L::row_major, L::transposed, true, true, d + " 45x37 x 37x70, b.T");
    check(t, 3, 3, 64, 32, 64, L::offset_rows, L::row_major, false, false, d + " batched whole tiles, a at row 4");
  }
  {
    ScopedEnv env("PORTA_OPENCL_GEMM", "mma");
    for (DType t : {DType::float16, DType::bfloat16, DType::float32, DType::float64}) {
      if (!dev().supports(t)) continue;
      const auto precision = t == DType::float32 ? porta::MatmulPrecision::tf32 : porta::MatmulPrecision::exact;
      const std::string d = "PORTA_OPENCL_GEMM=mma " + std::string(porta::name(t));
      check(t, 1, 1, 67, 93, 51, L::row_major, L::transposed, true, true, d + " 67x93 x 93x51, b.T", precision);
      check(t, 1, 2, 256, 64, 256, L::row_major, L::row_major, true, false, d + " 2-D x batched (2), 256x64 x 64x256", precision);
    }
  }
  if (dev().supports(DType::float16)) {
    ScopedEnv env("PORTA_OPENCL_GEMM", "mma:mma16x8x8:128x128x8:w64x32");
    std::string msg = thrown_message<porta::InvalidArgument>([&] {
      porta::matmul(porta::ones({64, 64}, DType::float16, dev()), porta::ones({64, 64}, DType::float16, dev())).eval();
    });
    EXPECT_NE(msg.find("float16"), std::string::npos) << msg;
  }
  ScopedEnv bad("PORTA_OPENCL_GEMM", "mma:tc64x64x30:w32x32");
  std::string msg = thrown_message<porta::InvalidArgument>(
      [&] { porta::matmul(porta::ones({2, 2}, DType::float32, dev()), porta::ones({2, 2}, DType::float32, dev())).eval(); });
  EXPECT_NE(msg.find("tc64x64x30:w32x32"), std::string::npos) << msg;
}

// Each configuration of the tensor-core searches (gemm_tc_candidates), forced, on one product of
// whole tiles (the fast variant) and one with edges and a transposed operand (the guarded one), on
// devices with the instructions: the search checks 64 entries of each, this checks every one.
// Emulated, each would cost PoCL two builds of a minute: the two tests above cover the indexing.
TEST_P(MatmulTensorCore, EveryTensorConfigurationWhereTheDeviceHasTheInstructions) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "PORTA_OPENCL_GEMM concerns OpenCL devices";
  const std::string platform = dev().platform();
  if (platform.find("NVIDIA") == std::string::npos)
    GTEST_SKIP() << dev().spec() << " (" << platform << ") has no tensor cores through OpenCL; the emulated kernel is tested above";
  using L = Layout;
  const std::vector<std::pair<DType, std::vector<const char*>>> configs = {
      {DType::float16,
       {"tc128x128x32:w64x64:ldsm:xor", "tc128x128x32:w64x64:ldsm", "tc128x128x16:w64x64:ldsm:s4",
        "tc128x128x32:w64x64:ldsm:xor:s3", "tc128x128x16:w64x64:ldsm:xor:s4", "tc128x256x32:w64x64:ldsm:xor:s2",
        "tc128x64x32:w64x32:ldsm", "tc64x128x32:w32x64:ldsm", "tc64x64x32:w32x32:ldsm"}},
      {DType::bfloat16, {"tc128x128x32:w64x64:ldsm:xor", "tc128x128x16:w64x64:ldsm:s4", "tc128x128x32:w64x64"}},
      {DType::float32,
       {"tc128x128x16:w64x64:ldsm", "tc128x128x16:w64x64", "tc128x128x16:w64x64:ldsm:xor:s3", "tc128x256x16:w64x64:ldsm:xor:s2",
        "tc128x64x16:w64x32:ldsm", "tc64x128x16:w32x64:ldsm", "tc64x64x16:w32x32"}},
      {DType::float64, {"tc128x64x8:w32x32", "tc64x128x8:w32x64", "tc64x64x16:w32x32", "tc128x128x8:w64x32"}},
  };
  for (const auto& [t, list] : configs) {
    if (!dev().supports(t)) continue;
    const auto precision = t == DType::float32 ? porta::MatmulPrecision::tf32 : porta::MatmulPrecision::exact;
    for (const char* config : list) {
      std::string value = std::string("mma:") + config;
      ScopedEnv env("PORTA_OPENCL_GEMM", value.c_str());
      const std::string d = value + " " + std::string(porta::name(t));
      check(t, 1, 2, 256, 64, 256, L::row_major, L::row_major, true, false, d + " 2-D x batched (2), whole tiles", precision);
      check(t, 1, 1, 131, 45, 259, L::transposed, L::row_major, true, true, d + " 131x45 x 45x259, a.T", precision);
    }
  }
}


TEST_P(MatmulTensorCore, Float64TileShapesMatchReference) {
  if (!dev().supports(DType::float64)) GTEST_SKIP() << dev().spec() << " has no float64";
  check_mma_shapes("float64");
}

// PORTA_OPENCL_GEMM=mma sends float64 products that fit to the tensor-core kernel on any OpenCL
// device, with the instruction emulated where the device lacks it: on PoCL this checks every
// index of the kernel. mma:CONFIG takes one configuration and refuses products it does not fit,
// so a product that passes has run through that configuration: each of them runs once here.
TEST_P(MatmulTensorCore, ForcedKernelMatchesReferenceInEveryConfiguration) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "PORTA_OPENCL_GEMM concerns OpenCL devices";
  if (!dev().supports(DType::float64)) GTEST_SKIP() << dev().spec() << " has no float64";
  {
    ScopedEnv env("PORTA_OPENCL_GEMM", "mma");
    check_mma_shapes("PORTA_OPENCL_GEMM=mma");
    check(DType::float32, 1, 1, 128, 16, 128, Layout::row_major, Layout::row_major, true, true,
          "PORTA_OPENCL_GEMM=mma float32 (the tiled kernel)");
  }
  // The configurations of gemm_mma_candidates().
  for (const char* config : {"mma16x8x8:128x128x8:w64x32", "mma16x8x4:64x64x16:w32x32", "mma16x8x4:128x128x8:w64x32",
                             "mma16x8x16:64x64x16:w32x32", "mma16x8x8:64x64x16:w32x32", "mma16x8x8:128x64x16:w32x32"}) {
    std::string value = std::string("mma:") + config;
    ScopedEnv env("PORTA_OPENCL_GEMM", value.c_str());
    try {
      check(DType::float64, 2, 2, 128, 32, 128, Layout::offset_rows, Layout::row_major, false, false,
            "PORTA_OPENCL_GEMM=" + value + " batched 128x128x32, a at row 4");
    } catch (const porta::InvalidArgument& e) {
      // A device with too little local memory or too small work-groups for the configuration.
      EXPECT_NE(std::string(e.what()).find("does not fit opencl"), std::string::npos) << e.what();
      std::cout << "[ skipped  ] " << value << ": " << e.what() << "\n";
    }
  }
  {
    ScopedEnv env("PORTA_OPENCL_GEMM", "mma:mma16x8x8:128x128x8:w64x32");
    std::string msg = thrown_message<porta::InvalidArgument>([&] {
      porta::matmul(porta::ones({130, 64}, DType::float64, dev()), porta::ones({64, 128}, DType::float64, dev())).eval();
    });
    EXPECT_NE(msg.find("130x128x64"), std::string::npos) << msg;
  }
  ScopedEnv bad("PORTA_OPENCL_GEMM", "mma:mma16x8x8:128x128x8");
  std::string msg = thrown_message<porta::InvalidArgument>(
      [&] { porta::matmul(porta::ones({2, 2}, DType::float64, dev()), porta::ones({2, 2}, DType::float64, dev())).eval(); });
  EXPECT_NE(msg.find("mma16x8x8:128x128x8"), std::string::npos) << msg;
}

// The cp.async variants (":sS", S stages) and the XOR layout of the local tiles (":xor"): the ring
// of stages over many slices, fewer slices than stages, batches at aligned offsets, and a product
// with edges, which takes the guarded variant (without cp.async) of the same configuration. Its
// own suite, instantiated last: on a GPU this is where cp.async first runs, and a kernel fault
// ends the device's context for the rest of the process.
class MatmulCpAsync : public MatmulTensorCore {};

TEST_P(MatmulCpAsync, StagesMatchReference) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "PORTA_OPENCL_GEMM concerns OpenCL devices";
  using L = Layout;
  const std::pair<DType, const char*> configs[] = {// The XOR layout (":xor"), with and without cp.async.
                                                   {DType::float16, "mma:tc64x64x32:w32x32:ldsm:xor:s3"},
                                                   {DType::bfloat16, "mma:tc64x64x16:w32x32:xor"},
                                                   {DType::float32, "mma:tc64x64x16:w32x32:xor:s2"},
                                                   {DType::float64, "mma:tc64x64x8:w32x32:xor"},
                                                   // TF32's A fragments through ldmatrix.
                                                   {DType::float32, "mma:tc64x64x16:w32x32:ldsm:xor:s3"},
                                                   {DType::float32, "mma:tc64x64x8:w32x32:ldsm"},
                                                   {DType::float32, "mma:tc64x64x16:w32x32:ldsm:xor"},
                                                   {DType::float16, "mma:tc64x64x16:w32x32:ldsm:s3"},
                                                   {DType::bfloat16, "mma:tc64x64x32:w32x32:ldsm:s2"},
                                                   {DType::float32, "mma:tc64x64x8:w32x32:s4"},
                                                   // A register bound (:rR, the PTX's .maxnreg on NVIDIA).
                                                   {DType::float64, "mma:tc64x64x8:w32x32:s4:r128"}};
  for (const auto& [t, config] : configs) {
    if (!dev().supports(t)) continue;
    // float32 as TF32: cp.async copies the float32 bits, rounded to TF32 as fragments are read.
    const auto precision = t == DType::float32 ? porta::MatmulPrecision::tf32 : porta::MatmulPrecision::exact;
    ScopedEnv env("PORTA_OPENCL_GEMM", config);
    const std::string d = std::string(config) + " " + std::string(porta::name(t));
    check(t, 1, 1, 128, 128, 64, L::row_major, L::row_major, true, true, d + " 128x128 x 128x64 (many slices)", precision);
    check(t, 1, 1, 64, 16, 64, L::row_major, L::row_major, true, true, d + " k = 16 (fewer slices than stages)", precision);
    check(t, 3, 3, 64, 64, 128, L::offset_rows, L::row_major, false, false, d + " batched, a at row 4", precision);
    check(t, 1, 1, 45, 37, 70, L::row_major, L::transposed, true, true, d + " 45x37 x 37x70, b.T (guarded)", precision);
  }
  // ldmatrix does not serve float64: a float64 product refuses the configuration by name.
  if (!dev().supports(DType::float64)) return;
  ScopedEnv bad("PORTA_OPENCL_GEMM", "mma:tc64x64x16:w32x32:ldsm:s3");
  std::string msg = thrown_message<porta::InvalidArgument>(
      [&] { porta::matmul(porta::ones({64, 64}, DType::float64, dev()), porta::ones({64, 64}, DType::float64, dev())).eval(); });
  EXPECT_NE(msg.find("tc64x64x16:w32x32:ldsm:s3"), std::string::npos) << msg;
}

// The warpgroup-MMA kernel (gemm_wg.hpp: wgmma from sm_90a PTX on an H200 through NVIDIA's OpenCL,
// its descriptors and swizzles emulated elsewhere), forced in each configuration: many slices and
// fewer slices than stages, two block rows and columns, a batch at aligned offsets, each operand
// transposed (float16 and bfloat16 take either MN-major; TF32 takes B transposed as it is, and a
// row-major B through a transposed copy, also when the batch shares it); a product it does not
// take is refused by name under mma:CONFIG (PORTA_OPENCL_GEMM=mma and the ranking send such
// products to the next configuration, tested above). Emulated on a device without the
// instruction, a few configurations cover the three swizzles, one and two warpgroups, six stages,
// the overlapped MMAs and the loads issued after the MMAs (each build costs PoCL seconds). Its own suite, instantiated last, as
// MatmulCpAsync is.
class MatmulWarpgroup : public MatmulTensorCore {};

TEST_P(MatmulWarpgroup, EveryConfigurationMatchesReference) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "PORTA_OPENCL_GEMM concerns OpenCL devices";
  using L = Layout;
  const bool nvidia = dev().platform().find("NVIDIA") != std::string::npos;
  struct Config {
    DType t;
    const char* text;
    std::int64_t bm, bn, bk;
  };
  // float16: A's 128-, 64- and 32-byte swizzles; TF32: 64 and 128 bytes.
  std::vector<Config> configs = {{DType::float16, "wg64x128x64:g1:s2", 64, 128, 64},
                                 {DType::bfloat16, "wg128x128x32:g2:s3:o:m", 128, 128, 32},
                                 {DType::float16, "wg64x64x16:g1:s6:o", 64, 64, 16},
                                 {DType::float32, "wg128x128x16:g2:s3", 128, 128, 16},
                                 {DType::float32, "wg64x128x32:g1:s2:m", 64, 128, 32}};
  if (nvidia)  // the rest of gemm_wg_candidates
    for (DType t : {DType::float16, DType::bfloat16})
      for (Config c : {Config{t, "wg128x128x32:g2:s3", 128, 128, 32}, Config{t, "wg128x128x32:g1:s3", 128, 128, 32},
                       Config{t, "wg128x128x16:g2:s4", 128, 128, 16}})
        configs.push_back(c);
  for (const Config& c : configs) {
    if (!dev().supports(c.t)) continue;
    const auto precision = c.t == DType::float32 ? porta::MatmulPrecision::tf32 : porta::MatmulPrecision::exact;
    const std::string value = std::string("mma:") + c.text;
    ScopedEnv env("PORTA_OPENCL_GEMM", value.c_str());
    const std::string d = value + " " + std::string(porta::name(c.t));
    try {
      check(c.t, 1, 1, 2 * c.bm, 5 * c.bk, c.bn, L::row_major, L::row_major, true, true, d + " two block rows, 5 slices", precision);
    } catch (const porta::InvalidArgument& e) {
      // A device without the instruction that is not emulated: an NVIDIA GPU before Hopper.
      EXPECT_NE(std::string(e.what()).find("needs wgmma"), std::string::npos) << e.what();
      std::cout << "[ skipped  ] " << value << ": " << e.what() << "\n";
      continue;
    }
    check(c.t, 1, 1, c.bm, c.bk, 2 * c.bn, L::row_major, L::row_major, true, true, d + " one slice, two block columns", precision);
    check(c.t, 3, 3, c.bm, 2 * c.bk, c.bn, L::offset_rows, L::row_major, false, false, d + " batched, a at row 4", precision);
    check(c.t, 1, 3, c.bm, 2 * c.bk, c.bn, L::row_major, L::row_major, true, false, d + " 2-D x batched (3)", precision);
    check(c.t, 3, 1, c.bm, 3 * c.bk, c.bn, L::row_major, L::transposed, false, true, d + " batched x 2-D b.T", precision);
    if (c.t != DType::float32) {
      check(c.t, 1, 1, c.bm, 3 * c.bk, c.bn, L::transposed, L::row_major, true, true, d + " a.T", precision);
      check(c.t, 1, 1, c.bm, 3 * c.bk, c.bn, L::transposed, L::transposed, true, true, d + " a.T b.T", precision);
    }
    // Guarded edges: sizes that are not whole tiles (rows kept 16-byte aligned).
    check(c.t, 1, 1, 2 * c.bm - 3, 5 * c.bk + 8, c.bn + 40, L::row_major, L::row_major, true, true, d + " edges in m, k and n",
          precision);
    check(c.t, 2, 2, 37, 8, 72, L::row_major, L::transposed, false, false, d + " k = 8, batched, b.T, one partial tile",
          precision);
    if (c.t != DType::float32)
      check(c.t, 1, 1, c.bm + 8, 24, 3 * c.bn / 2 + 8, L::transposed, L::row_major, true, true, d + " a.T with edges", precision);
    // Rows of A that are not 16-byte aligned (k = BK + 1): refused by name under mma:CONFIG.
    std::string msg = thrown_message<porta::InvalidArgument>([&] {
      porta::matmul(porta::ones({c.bm, c.bk + 1}, c.t, dev()), porta::ones({c.bk + 1, c.bn}, c.t, dev()), precision).eval();
    });
    EXPECT_NE(msg.find(std::to_string(c.bm) + "x" + std::to_string(c.bn) + "x" + std::to_string(c.bk + 1)), std::string::npos)
        << msg;
  }
  ScopedEnv bad("PORTA_OPENCL_GEMM", "mma:wg128x128x48:g2:s3");
  std::string msg = thrown_message<porta::InvalidArgument>(
      [&] { porta::matmul(porta::ones({2, 2}, DType::float32, dev()), porta::ones({2, 2}, DType::float32, dev())).eval(); });
  EXPECT_NE(msg.find("wg128x128x48:g2:s3"), std::string::npos) << msg;
}

// Complex and integer products (issue 37), typed host data in and out: complex against a
// std::complex<double> sum of the textbook products (4 real products each, as cgemm; each part's
// NaN / infinity where the reference's is, which does not depend on the order of the sum; see
// match() for what BLAS's alpha scaling makes of infinities), integers
// exactly, wrapping modulo 2^bits with NumPy's result dtype. Every integer dtype on the default path;
// on OpenCL also porta's own kernel (PORTA_OPENCL_GEMM=tiled) for a sample of dtypes (complex64,
// complex128, int8, uint64: each costs PoCL one compile), since PoCL's default is the host's.
class MatmulComplexInteger : public DeviceTest {
 protected:
  enum class Layout { row_major, transposed, offset };

  // A (batch, rows, cols) operand of T from `values` (row-major), stored as asked: row-major, as
  // the transpose of a (cols, rows) array, or at row 3, column 1 of a larger array (filled with
  // `fill`, which must never be read).
  template <class T>
  Array operand(const std::vector<T>& values, std::int64_t batch, std::int64_t rows, std::int64_t cols, Layout layout,
                bool keep_2d, T fill) {
    auto idx = [&](std::int64_t p, std::int64_t r, std::int64_t c) { return static_cast<std::size_t>((p * rows + r) * cols + c); };
    switch (layout) {
      case Layout::row_major:
        return porta::from_host(values, keep_2d ? Shape{rows, cols} : Shape{batch, rows, cols}, dev());
      case Layout::transposed: {
        std::vector<T> tv(values.size());
        for (std::int64_t p = 0; p < batch; ++p)
          for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t c = 0; c < cols; ++c) tv[static_cast<std::size_t>((p * cols + c) * rows + r)] = values[idx(p, r, c)];
        if (keep_2d) return porta::from_host(tv, {cols, rows}, dev()).transpose();
        return porta::from_host(tv, {batch, cols, rows}, dev()).transpose({0, 2, 1});
      }
      case Layout::offset: {
        const std::int64_t wr = rows + 3, wc = cols + 2;
        std::vector<T> big(static_cast<std::size_t>(batch * wr * wc), fill);
        for (std::int64_t p = 0; p < batch; ++p)
          for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t c = 0; c < cols; ++c) big[static_cast<std::size_t>((p * wr + r + 3) * wc + c + 1)] = values[idx(p, r, c)];
        porta::Slice rs{3, std::nullopt}, cs{1, 1 + cols};
        if (keep_2d) return porta::from_host(big, {wr, wc}, dev()).slice({rs, cs});
        return porta::from_host(big, {batch, wr, wc}, dev()).slice({{}, rs, cs});
      }
    }
    return {};
  }

  // Random values of T: integers over the whole range with 0, 1, -1, the minimum and the maximum
  // among them; complex parts in [-1, 1], with NaN, +-inf and -0.0 in some parts when `edges`.
  template <class T> std::vector<T> values(std::int64_t n, bool edges) {
    std::vector<T> v(static_cast<std::size_t>(n));
    if constexpr (std::is_integral_v<T>) {
      std::uniform_int_distribution<std::int64_t> any(std::numeric_limits<std::int64_t>::min(),
                                                      std::numeric_limits<std::int64_t>::max());
      const T special[] = {T(0), T(1), static_cast<T>(-1), std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
      for (auto& x : v) {
        const std::int64_t r = any(rng());
        x = (r & 7) == 0 ? special[static_cast<std::size_t>((r >> 3) & 0xffff) % 5] : static_cast<T>(r >> 8);
      }
    } else {
      using R = typename T::value_type;
      std::uniform_real_distribution<double> part(-1, 1);
      std::uniform_int_distribution<int> pick(0, 199);
      const R inf = std::numeric_limits<R>::infinity(), nan = std::numeric_limits<R>::quiet_NaN();
      const R special[] = {nan, inf, -inf, R(-0.0), R(0)};
      for (auto& x : v) {
        R re = static_cast<R>(part(rng())), im = static_cast<R>(part(rng()));
        if (edges) {
          const int s = pick(rng());
          if (s < 5) re = special[s];
          else if (s < 10) im = special[s - 5];
        }
        x = {re, im};
      }
    }
    return v;
  }

  // Checks op(A) op(B) of (batch, m, k) and (batch, k, n) values against the host reference.
  template <class T>
  void check(std::int64_t batch_a, std::int64_t batch_b, std::int64_t m, std::int64_t k, std::int64_t n, Layout la,
             Layout lb, bool a2d, bool b2d, bool edges, const std::string& what,
             porta::MatmulPrecision precision = porta::MatmulPrecision::exact) {
    const DType t = porta::dtype_of<T>;
    const std::vector<T> av = values<T>(batch_a * m * k, edges), bv = values<T>(batch_b * k * n, edges);
    T fill{};
    if constexpr (std::is_integral_v<T>) fill = T(77);
    else fill = T(std::numeric_limits<typename T::value_type>::quiet_NaN(), 0);
    const Array a = operand(av, batch_a, m, k, la, a2d, fill), b = operand(bv, batch_b, k, n, lb, b2d, fill);
    const Array c = porta::matmul(a, b, precision);
    const std::int64_t batch = std::max(batch_a, batch_b);
    Shape out;
    if (!a2d || !b2d) out.push_back(batch);
    out.push_back(m);
    out.push_back(n);
    ASSERT_EQ(c.dtype(), t) << what;
    ASSERT_EQ(c.shape(), out) << what;
    const std::vector<T> got = c.to_vector<T>();
    int bad = 0;
    for (std::int64_t p = 0; p < batch && bad < 5; ++p)
      for (std::int64_t i = 0; i < m && bad < 5; ++i)
        for (std::int64_t j = 0; j < n && bad < 5; ++j) {
          const T& g = got[static_cast<std::size_t>((p * m + i) * n + j)];
          auto at_a = [&](std::int64_t q) { return av[static_cast<std::size_t>(((batch_a == 1 ? 0 : p) * m + i) * k + q)]; };
          auto at_b = [&](std::int64_t q) { return bv[static_cast<std::size_t>(((batch_b == 1 ? 0 : p) * k + q) * n + j)]; };
          std::string why = match<T>(g, k, at_a, at_b, t, precision);
          if (!why.empty()) {
            ADD_FAILURE() << what << " " << porta::name(t) << ": C[" << p << ", " << i << ", " << j << "] " << why;
            ++bad;
          }
        }
  }

  // Empty when `g` is what the sum of products gives; else what differs.
  template <class T, class AtA, class AtB>
  static std::string match(const T& g, std::int64_t k, AtA at_a, AtB at_b, DType t, porta::MatmulPrecision precision) {
    std::ostringstream os;
    if constexpr (std::is_integral_v<T>) {
      std::uint64_t s = 0;  // modulo 2^64, then truncated: NumPy's wrap-around
      for (std::int64_t q = 0; q < k; ++q)
        s += static_cast<std::uint64_t>(static_cast<std::int64_t>(at_a(q))) * static_cast<std::uint64_t>(static_cast<std::int64_t>(at_b(q)));
      if (g == static_cast<T>(s)) return {};
      os << "is " << +g << ", the wrapped sum " << +static_cast<T>(s);
    } else {
      double re = 0, im = 0, mag = 0;
      for (std::int64_t q = 0; q < k; ++q) {
        const std::complex<double> x(at_a(q)), y(at_b(q));
        re += x.real() * y.real() - x.imag() * y.imag();
        im += x.real() * y.imag() + x.imag() * y.real();
        mag += std::abs(x) * std::abs(y);
      }
      // Rounding of a k-term sum in the dtype's precision (TF32: 10 bits of mantissa), relative to
      // the norms for the 3M form, whose error is not bounded part by part.
      double eps = t == DType::complex64 ? 0x1p-24 : 0x1p-53;
      if (precision == porta::MatmulPrecision::tf32 && t == DType::complex64) eps = 0x1p-11;
      const double bound = 4 * static_cast<double>(k + 2) * eps * mag * (precision == porta::MatmulPrecision::complex_3m ? 4 : 1);
      // A NaN stays NaN and an infinity stays infinite or becomes NaN; where the other part is not
      // finite, a finite part may become NaN: BLAS's cgemm (OpenBLAS's, which NumPy calls) scales
      // the sum by alpha = 1 + 0i, and inf * 0 is NaN.
      const bool finite = std::isfinite(re) && std::isfinite(im);
      auto part = [&](double want, double have, const char* name) {
        if (std::isnan(want) ? std::isnan(have)
            : std::isinf(want) ? have == want || std::isnan(have)
                               : std::fabs(have - want) <= bound || (!finite && std::isnan(have)))
          return;
        os << name << " part " << have << ", the reference's " << want << " (bound " << bound << "); ";
      };
      part(re, g.real(), "real");
      part(im, g.imag(), "imaginary");
    }
    return os.str();
  }

  template <class T> void check_shapes(const std::string& path, bool edges) {
    using L = Layout;
    const std::string d = path + " " + std::string(porta::name(porta::dtype_of<T>));
    check<T>(1, 1, 67, 93, 51, L::row_major, L::row_major, true, true, edges, d + " 67x93 x 93x51");
    check<T>(1, 1, 33, 17, 70, L::transposed, L::transposed, true, true, edges, d + " a.T x b.T");
    check<T>(1, 1, 40, 20, 30, L::row_major, L::transposed, true, true, edges, d + " a x b.T");
    check<T>(1, 1, 1, 300, 1, L::row_major, L::row_major, true, true, edges, d + " (1, N) x (N, 1)");
    check<T>(1, 1, 65, 1, 66, L::transposed, L::row_major, true, true, edges, d + " k = 1");
    check<T>(3, 3, 20, 30, 10, L::offset, L::row_major, false, false, edges, d + " batched, a at an unaligned offset");
    check<T>(1, 3, 20, 30, 10, L::row_major, L::transposed, false, false, edges, d + " batched (1) x (3), b transposed");
    check<T>(1, 2, 64, 32, 128, L::row_major, L::row_major, true, false, edges, d + " 2-D x batched (2), whole tiles");
    check<T>(1, 1, 64, 64, 64, L::transposed, L::transposed, true, true, edges, d + " a.T x b.T, whole tiles");
  }

  template <class T> void check_vectors_and_empty(const std::string& path) {
    const DType t = porta::dtype_of<T>;
    const std::string d = path + " " + std::string(porta::name(t));
    const std::vector<T> x = values<T>(40, false), y = values<T>(40, false), mv = values<T>(40 * 7, false);
    const Array a = porta::from_host(x, {40}, dev()), b = porta::from_host(y, {40}, dev());
    const Array dot = porta::dot(a, b);
    ASSERT_EQ(dot.ndim(), 0) << d;
    ASSERT_EQ(dot.dtype(), t) << d;
    const std::string why = match<T>(dot.to_vector<T>()[0], 40, [&](std::int64_t q) { return x[q]; },
                                     [&](std::int64_t q) { return y[q]; }, t, porta::MatmulPrecision::exact);
    EXPECT_TRUE(why.empty()) << d << " dot: " << why;
    // vector x matrix: (k) x (k, n) -> (n), no conjugation.
    const Array vm = porta::matmul(a, porta::from_host(mv, {40, 7}, dev()));
    ASSERT_EQ(vm.shape(), Shape{7}) << d;
    const std::vector<T> got = vm.to_vector<T>();
    for (std::int64_t j = 0; j < 7; ++j) {
      const std::string w = match<T>(got[j], 40, [&](std::int64_t q) { return x[q]; },
                                     [&](std::int64_t q) { return mv[q * 7 + j]; }, t, porta::MatmulPrecision::exact);
      EXPECT_TRUE(w.empty()) << d << " vector x matrix [" << j << "]: " << w;
    }
    // k = 0: zeros of the dtype; m = 0: an empty result.
    const Array z = porta::matmul(porta::from_host(std::vector<T>{}, {3, 0}, dev()), porta::from_host(std::vector<T>{}, {0, 4}, dev()));
    EXPECT_EQ(z.dtype(), t) << d;
    EXPECT_EQ(z.to_vector<T>(), std::vector<T>(12, T{})) << d << " k = 0";
    EXPECT_EQ(porta::matmul(porta::from_host(std::vector<T>{}, {0, 5}, dev()), porta::from_host(std::vector<T>(20), {5, 4}, dev())).shape(),
              (Shape{0, 4})) << d;
  }

  template <class T> void check_all(const std::string& path) {
    if (!dev().supports(porta::dtype_of<T>)) return;
    check_shapes<T>(path, false);
    if constexpr (!std::is_integral_v<T>) check_shapes<T>(path + " with NaN/inf/-0.0", true);
  }
};

TEST_P(MatmulComplexInteger, ComplexMatchesTextbookProductsWithNaNAndInf) {
  if (!dev().supports(DType::complex64)) GTEST_SKIP() << dev().spec() << " has no complex64";
  check_all<std::complex<float>>("default");
  check_all<std::complex<double>>("default");
  if (dev().backend() == porta::Backend::opencl) {
    ScopedEnv env("PORTA_OPENCL_GEMM", "tiled");
    check_all<std::complex<float>>("PORTA_OPENCL_GEMM=tiled");
    check_all<std::complex<double>>("PORTA_OPENCL_GEMM=tiled");
  }
}

// Every integer dtype is exact and wraps as NumPy's (int8 @ int8 is int8).
TEST_P(MatmulComplexInteger, IntegersAreExactAndWrap) {
  check_all<std::int8_t>("default");
  check_all<std::int16_t>("default");
  check_all<std::int32_t>("default");
  check_all<std::int64_t>("default");
  check_all<std::uint8_t>("default");
  check_all<std::uint16_t>("default");
  check_all<std::uint32_t>("default");
  check_all<std::uint64_t>("default");
  if (dev().backend() == porta::Backend::opencl) {
    ScopedEnv env("PORTA_OPENCL_GEMM", "tiled");
    check_all<std::int8_t>("PORTA_OPENCL_GEMM=tiled");
    check_all<std::uint64_t>("PORTA_OPENCL_GEMM=tiled");
    if (!dev().supports(DType::int8)) check_all<std::int32_t>("PORTA_OPENCL_GEMM=tiled");
  }
}

// dot (a 0-d array), vector x matrix, k = 0 (zeros of the dtype) and m = 0, for a sample of the
// dtypes: both complex, the narrowest and the widest integer.
TEST_P(MatmulComplexInteger, VectorsDotAndEmptyOperands) {
  if (!dev().supports(DType::int8) && !dev().supports(DType::complex64)) GTEST_SKIP() << dev().spec() << " lacks the new dtypes";
  if (dev().supports(DType::complex64)) check_vectors_and_empty<std::complex<float>>("default");
  if (dev().supports(DType::complex128)) check_vectors_and_empty<std::complex<double>>("default");
  if (dev().supports(DType::int8)) check_vectors_and_empty<std::int8_t>("default");
  if (dev().supports(DType::uint64)) check_vectors_and_empty<std::uint64_t>("default");
}

// The result dtype is NumPy's promotion of the operands' (int8 with uint8: int16; int64 with
// uint64: float64; float32 with complex64: complex64; float64 with complex64: complex128).
TEST_P(MatmulComplexInteger, ResultDTypesAreNumPys) {
  if (!dev().supports(DType::int8) && !dev().supports(DType::complex64)) GTEST_SKIP() << dev().spec() << " lacks the new dtypes";
  if (dev().supports(DType::int8)) {
    const std::vector<std::int8_t> a8 = values<std::int8_t>(6 * 5, false);
    const std::vector<std::uint8_t> b8 = values<std::uint8_t>(5 * 4, false);
    const Array c = porta::matmul(porta::from_host(a8, {6, 5}, dev()), porta::from_host(b8, {5, 4}, dev()));
    ASSERT_EQ(c.dtype(), DType::int16);
    const std::vector<std::int16_t> got = c.to_vector<std::int16_t>();
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 4; ++j) {
        std::int64_t s = 0;
        for (int q = 0; q < 5; ++q) s += static_cast<std::int64_t>(a8[i * 5 + q]) * b8[q * 4 + j];
        EXPECT_EQ(got[i * 4 + j], static_cast<std::int16_t>(s)) << "int8 @ uint8 at " << i << ", " << j;
      }
  }
  if (!dev().supports(DType::complex64)) return;
  const std::vector<float> fr = {1, 2, 3, 4};
  const std::vector<std::complex<float>> cz = {{1, 1}, {0, 2}, {-1, 0}, {3, -1}};
  const Array fc = porta::matmul(porta::from_host(fr, {2, 2}, dev()), porta::from_host(cz, {2, 2}, dev()));
  ASSERT_EQ(fc.dtype(), DType::complex64);
  const std::vector<std::complex<float>> want = {{1 * 1 + 2 * -1, 1 * 1 + 0}, {1 * 0 + 2 * 3, 1 * 2 + 2 * -1},
                                                 {3 * 1 + 4 * -1, 3 * 1 + 0}, {3 * 0 + 4 * 3, 3 * 2 + 4 * -1}};
  EXPECT_EQ(fc.to_vector<std::complex<float>>(), want) << "float32 @ complex64, no conjugation";
  if (dev().supports(DType::complex128)) {
    const Array d = porta::matmul(porta::from_host(std::vector<double>{1, 2}, {1, 2}, dev()), porta::from_host(cz, {2, 2}, dev()));
    EXPECT_EQ(d.dtype(), DType::complex128) << "float64 @ complex64";
  }
}

// bool @ bool is bool: whether any pair is true in both (as NumPy's), through int32 counts.
TEST_P(MatmulComplexInteger, BoolIsWhetherAnyPairIsTrueInBoth) {
  std::uniform_int_distribution<int> bit(0, 3);
  std::vector<std::uint8_t> ab(7 * 19), bb(19 * 5);
  for (auto& x : ab) x = bit(rng()) == 0;  // sparse, so that some results are false
  for (auto& x : bb) x = bit(rng()) == 0;
  std::vector<bool> want;
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 5; ++j) {
      bool any = false;
      for (int q = 0; q < 19; ++q) any = any || (ab[i * 19 + q] && bb[q * 5 + j]);
      want.push_back(any);
    }
  const Array bm = porta::matmul(porta::from_host(ab.data(), DType::boolean, {7, 19}, dev(), ab.size()),
                                 porta::from_host(bb.data(), DType::boolean, {19, 5}, dev(), bb.size()));
  ASSERT_EQ(bm.dtype(), DType::boolean);
  EXPECT_EQ(bm.to_vector<bool>(), want);
}

// TF32 (complex64) and the 3M form are taken only when asked, and stay within their own bounds.
TEST_P(MatmulComplexInteger, FastComplexFormsOnlyWhenAsked) {
  if (!dev().supports(DType::complex64)) GTEST_SKIP() << dev().spec() << " has no complex64";
  for (auto precision : {porta::MatmulPrecision::tf32, porta::MatmulPrecision::complex_3m}) {
    const std::string d = precision == porta::MatmulPrecision::tf32 ? "tf32" : "complex_3m";
    check<std::complex<float>>(1, 1, 70, 130, 50, Layout::row_major, Layout::transposed, true, true, false, d, precision);
    if (dev().supports(DType::complex128))
      check<std::complex<double>>(2, 2, 30, 40, 20, Layout::row_major, Layout::row_major, false, false, false, d, precision);
  }
}

// vecdot conjugates its first argument (the array API's, NumPy's); tensordot and matmul do not.
TEST_P(MatmulComplexInteger, VecdotConjugatesTensordotDoesNot) {
  if (!dev().supports(DType::complex64) && !dev().supports(DType::uint16)) GTEST_SKIP() << dev().spec() << " lacks the new dtypes";
  if (dev().supports(DType::complex64)) {
    const std::vector<std::complex<float>> x = values<std::complex<float>>(3 * 8, false), y = values<std::complex<float>>(3 * 8, false);
    const Array a = porta::from_host(x, {3, 8}, dev()), b = porta::from_host(y, {3, 8}, dev());
    const std::vector<std::complex<float>> v = porta::vecdot(a, b).to_vector<std::complex<float>>();
    ASSERT_EQ(v.size(), 3u);
    for (int r = 0; r < 3; ++r) {
      std::complex<double> s = 0;
      for (int q = 0; q < 8; ++q) s += std::conj(std::complex<double>(x[r * 8 + q])) * std::complex<double>(y[r * 8 + q]);
      EXPECT_LE(std::abs(std::complex<double>(v[r]) - s), 1e-5) << "vecdot row " << r;
    }
    // tensordot over both axes: the sum of x * y without conjugation.
    const std::vector<std::complex<float>> t = porta::tensordot(a, b, 2).to_vector<std::complex<float>>();
    ASSERT_EQ(t.size(), 1u);
    std::complex<double> s = 0;
    for (int q = 0; q < 24; ++q) s += std::complex<double>(x[q]) * std::complex<double>(y[q]);
    EXPECT_LE(std::abs(std::complex<double>(t[0]) - s), 1e-5) << "tensordot";
  }
  // Integers through tensordot: exact and wrapping.
  if (!dev().supports(DType::uint16)) return;
  const std::vector<std::uint16_t> p = values<std::uint16_t>(2 * 3 * 4, false), q = values<std::uint16_t>(3 * 4 * 5, false);
  const Array pt = porta::tensordot(porta::from_host(p, {2, 3, 4}, dev()), porta::from_host(q, {3, 4, 5}, dev()), 2);
  ASSERT_EQ(pt.dtype(), DType::uint16);
  ASSERT_EQ(pt.shape(), (Shape{2, 5}));
  const std::vector<std::uint16_t> got = pt.to_vector<std::uint16_t>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 5; ++j) {
      std::uint64_t w = 0;
      for (int l = 0; l < 12; ++l) w += static_cast<std::uint64_t>(p[i * 12 + l]) * q[l * 5 + j];
      EXPECT_EQ(got[i * 5 + j], static_cast<std::uint16_t>(w)) << "tensordot uint16 at " << i << ", " << j;
    }
}

PORTA_INSTANTIATE_DEVICES(Matmul);
PORTA_INSTANTIATE_DEVICES(MatmulComplexInteger);
PORTA_INSTANTIATE_DEVICES(MatmulTensorCore);
PORTA_INSTANTIATE_DEVICES(MatmulShapes);
PORTA_INSTANTIATE_DEVICES(MatmulCpAsync);
PORTA_INSTANTIATE_DEVICES(MatmulWarpgroup);

}  // namespace
}  // namespace porta_test

