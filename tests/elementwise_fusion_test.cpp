// Fused elementwise trees: a five-op expression as one kernel, deep and wide trees split
// correctly, laziness (shared subexpressions once, compound assignment), and the generated
// kernels that compilers used to warn about, compiled without warnings.
#include "elementwise_reference.hpp"
#include "test_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include <unistd.h>

namespace porta_test {
namespace {

// ---- fused trees, laziness ------------------------------------------------------------------

using Fusion = DeviceTest;

TEST_P(Fusion, FiveOpExpressionMatchesReference) {
  for (DType t : {DType::float32, DType::float64, DType::float16}) {
    if (!dev().supports(t)) continue;
    const std::int64_t n = 4099;
    std::vector<double> x, y;
    Array xd = random_array({n}, t, -2, 2, &x);
    Array yd = random_array({n}, t, -2, 2, &y);
    const double a = 0.75, b = -1.25, c = 2.5;
    Array r = a * xd * xd + b * xd + c * porta::exp(-yd);
    EXPECT_FALSE(r.is_evaluated()) << "elementwise work is lazy";
    std::vector<double> ref(static_cast<std::size_t>(n)), bound(static_cast<std::size_t>(n));
    // Each of the five steps may round (float16 at most to float16): the error is bounded by the
    // terms' magnitude, which matters where they cancel.
    const double step = t == DType::float16 ? 0x1p-11 : t == DType::float32 ? 4 * 0x1p-24 : 4 * 0x1p-53;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      double t1 = a * x[i] * x[i], t2 = b * x[i], t3 = c * std::exp(-y[i]);
      ref[i] = t1 + t2 + t3;
      bound[i] = 5 * step * (std::fabs(t1) + std::fabs(t2) + std::fabs(t3));
    }
    Tolerance tol = tolerance(t, Accuracy::transcendental);
    EXPECT_TRUE(values_match(fetch(r), ref, tol, nullptr, {}, &bound)) << porta::name(t);
    r.eval();
    EXPECT_TRUE(r.is_evaluated());
    EXPECT_TRUE(r.is_contiguous());
    EXPECT_EQ(r.dtype(), t);
    EXPECT_TRUE(values_match(fetch(r), ref, tol, nullptr, {}, &bound)) << porta::name(t) << " after eval()";
  }
}

// A tree taller than the fusion limit and one with more leaves than a kernel takes are split
// by the core; the values do not change.
TEST_P(Fusion, DeepAndWideTreesAreSplitCorrectly) {
  const std::int64_t n = 301;
  std::vector<double> x;
  Array xd = random_array({n}, DType::float32, -1, 1, &x);
  Array acc = xd;
  std::vector<double> ref = x;
  for (int k = 0; k < 100; ++k) {
    acc = acc * 0.5f + xd;
    for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = static_cast<float>(static_cast<float>(ref[i] * 0.5) + static_cast<float>(x[i]));
  }
  EXPECT_TRUE(array_matches(acc, DType::float32, {n}, ref, {1e-5, 1e-6})) << "100-deep chain";

  std::vector<Array> leaves;
  std::vector<double> sum(static_cast<std::size_t>(n), 0.0);
  Array total = porta::zeros({n}, DType::float64, dev());
  for (int k = 0; k < 40; ++k) {
    std::vector<double> v;
    leaves.push_back(random_array({n}, DType::float64, -1, 1, &v));
    total = total + leaves.back() * static_cast<double>(k + 1);
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += v[i] * (k + 1);
  }
  EXPECT_TRUE(array_matches(total, DType::float64, {n}, sum, {1e-12, 1e-12})) << "40 leaves";
}

// A long chain is evaluated only where a limit says so (docs/design/evaluation.md#fusion: one
// kernel per evaluated tree): once a subtree has been evaluated it counts as one leaf, so the chain
// after it fuses again instead of evaluating at every step.
TEST_P(Fusion, LongChainsStayFusedAfterAForcedEvaluation) {
  const std::int64_t n = 64;
  std::vector<Array> steps;
  std::vector<double> sum(static_cast<std::size_t>(n), 0.0);
  Array total = porta::zeros({n}, DType::float32, dev());
  for (int k = 0; k < 60; ++k) {
    std::vector<double> v;
    Array leaf = random_array({n}, DType::float32, -1, 1, &v);
    total = total + leaf;
    steps.push_back(total);
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += v[i];
  }
  int evaluated = 0;
  for (auto& s : steps) evaluated += s.is_evaluated() ? 1 : 0;
  // 60 additions of one new leaf each: a kernel takes about 20 of them, so a handful of forced
  // evaluations, not one per step.
  EXPECT_LE(evaluated, 6) << "intermediate results evaluated before anything asked for data";
  EXPECT_TRUE(array_matches(total, DType::float32, {n}, sum, {1e-5, 1e-5}));
}

// One lazy node feeding several trees, and the same operand used many times in one tree.
TEST_P(Fusion, SharedSubexpressionsAreEvaluatedOnce) {
  const std::int64_t n = 1000;
  std::vector<double> x;
  Array xd = random_array({n}, DType::float32, -2, 2, &x);
  Array y = porta::exp(xd) + 1.0f;
  Array z1 = y * y, z2 = y - xd;
  std::vector<double> r1(x.size()), r2(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    double yy = std::exp(x[i]) + 1;
    r1[i] = yy * yy;
    r2[i] = yy - x[i];
  }
  Tolerance tol = tolerance(DType::float32, Accuracy::transcendental);
  EXPECT_TRUE(array_matches(z2, DType::float32, {n}, r2, tol));
  y.eval();
  EXPECT_TRUE(y.is_evaluated());
  EXPECT_TRUE(array_matches(z1, DType::float32, {n}, r1, tol));
  EXPECT_TRUE(array_matches(z2, DType::float32, {n}, r2, tol));
  // x * x * x * x reads x once per use and agrees with the host.
  std::vector<double> r4(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) r4[i] = x[i] * x[i] * x[i] * x[i];
  EXPECT_TRUE(array_matches(xd * xd * xd * xd, DType::float32, {n}, r4, tolerance(DType::float32, Accuracy::simple)));
}

// Arrays are values: a += b rebinds a; copies of the old a do not change.
TEST_P(Fusion, CompoundAssignmentDoesNotChangeOtherArrays) {
  std::vector<double> x, y;
  Array a = random_array({33}, DType::float32, -3, 3, &x);
  Array b = random_array({33}, DType::float32, -3, 3, &y);
  Array keep = a;
  a += b;
  a *= b;
  a -= 1.0f * b;
  a /= porta::full({33}, 2.0, DType::float32, dev());
  std::vector<double> ref(x.size());
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = ((x[i] + y[i]) * y[i] - y[i]) / 2;
  EXPECT_TRUE(array_matches(a, DType::float32, {33}, ref, {1e-5, 1e-5}));
  EXPECT_TRUE(array_matches(keep, DType::float32, {33}, x, tolerance(DType::float32, Accuracy::exact)));
  // The operators -x, !x and ~x.
  std::vector<double> neg(x.size()), lnot(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    neg[i] = -x[i];
    lnot[i] = x[i] == 0;
  }
  EXPECT_TRUE(array_matches(-keep, DType::float32, {33}, neg, tolerance(DType::float32, Accuracy::exact)));
  EXPECT_TRUE(array_matches(!keep, DType::boolean, {33}, lnot, tolerance(DType::boolean, Accuracy::exact)));
  Array ints = upload({0, 1, -2, 7}, DType::int32, {4}, dev());
  EXPECT_TRUE(array_matches(~ints, DType::int32, {4}, {-1, -2, 1, -8}, tolerance(DType::int32, Accuracy::exact)));
}

// NumPy's rule for float16 and bfloat16 (plan.hpp): every operation's result is rounded to the
// dtype, fused or not, so a fused tree gives the bits of the operations one at a time (a float32
// intermediate gave (0.5 - 0.1) * 3 = 1.2 in float16, where NumPy has 1.199). n is no multiple of
// any vector width.
TEST_P(Fusion, HalfPrecisionRoundsAfterEveryOperation) {
  for (DType t : {DType::float16, DType::bfloat16}) {
    if (!dev().supports(t)) continue;
    auto rnd = [t](float v) {
      return t == DType::float16 ? static_cast<float>(porta::half(v)) : static_cast<float>(porta::bfloat16(v));
    };
    const std::int64_t n = 1031;
    std::vector<double> x, y, z;
    Array xd = random_array({n}, t, -4, 4, &x);
    Array yd = random_array({n}, t, -4, 4, &y);
    Array zd = random_array({n}, t, 0, 4, &z);
    Array r = ((xd - 0.1) * 3 + xd * yd) / (zd + 1.5) - yd;
    const float s = rnd(0.1f);  // the weak scalar, in the array's dtype
    std::vector<double> ref;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float xi = static_cast<float>(x[i]), yi = static_cast<float>(y[i]), zi = static_cast<float>(z[i]);
      const float a = rnd(rnd(rnd(xi - s) * 3.0f) + rnd(xi * yi));
      ref.push_back(rnd(rnd(a / rnd(zi + 1.5f)) - yi));
    }
    EXPECT_TRUE(array_matches(r, t, {n}, ref, {0, 0})) << porta::name(t);
    // Read through a fused cast to float32 (how Python's .get() reads bfloat16): the same values.
    EXPECT_TRUE(array_matches(r.astype(DType::float32), DType::float32, {n}, ref, {0, 0})) << porta::name(t);
    const Array one = porta::full({1}, 0.5, t, dev());
    EXPECT_EQ(((one - 0.1) * 3).astype(DType::float32).item<float>(), rnd(rnd(0.5f - s) * 3.0f)) << porta::name(t);
  }
}

PORTA_INSTANTIATE_DEVICES(Fusion);

using CompileWarnings = DeviceTest;

// The generated kernels compilers used to warn about: an op of a value with itself (clip(x, x,
// hi) is maximum(x, x): "self-comparison always evaluates to false"; x == x of bools), argmax
// and argmin of bool arrays, where of bools, the float -> integer casts. Each is computed here
// and checked; the test below runs this one in a subprocess and reads the build logs.
TEST_P(CompileWarnings, KernelsOfTheWarningCheckComputeRightValues) {
  const std::int64_t n = 300;
  std::vector<double> xv, yv;
  for (DType t : {DType::int32, DType::float32}) {
    Array x = random_array({n}, t, -50, 50, &xv), y = random_array({n}, t, -50, 50, &yv);
    std::vector<double> ref(xv.size()), eq(xv.size(), 1), lt(xv.size(), 0);
    for (std::size_t i = 0; i < xv.size(); ++i) ref[i] = std::min(xv[i], yv[i]);
    const Tolerance exact = tolerance(t, Accuracy::exact);
    EXPECT_TRUE(array_matches(porta::clip(x, x, y), t, {n}, ref, exact)) << "clip(x, x, y) of " << porta::name(t);
    EXPECT_TRUE(array_matches(x == x, DType::boolean, {n}, eq, exact)) << "x == x of " << porta::name(t);
    EXPECT_TRUE(array_matches(x < x, DType::boolean, {n}, lt, exact)) << "x < x of " << porta::name(t);
  }
  std::vector<double> bv, cv;
  Array b = random_array({n}, DType::boolean, 0, 1, &bv), c = random_array({n}, DType::boolean, 0, 1, &cv);
  std::vector<double> w(bv.size()), ne(bv.size(), 0), ge(bv.size(), 1);
  for (std::size_t i = 0; i < bv.size(); ++i) w[i] = bv[i] != 0 ? cv[i] : bv[i];
  const Tolerance exact = tolerance(DType::boolean, Accuracy::exact);
  EXPECT_TRUE(array_matches(porta::where(b, c, b), DType::boolean, {n}, w, exact)) << "where of bools";
  EXPECT_TRUE(array_matches(b != b, DType::boolean, {n}, ne, exact)) << "b != b";
  EXPECT_TRUE(array_matches(b >= b, DType::boolean, {n}, ge, exact)) << "b >= b";
  const std::int64_t first_true = std::find(bv.begin(), bv.end(), 1.0) - bv.begin();
  const auto first_false = std::find(bv.begin(), bv.end(), 0.0);
  EXPECT_EQ(porta::argmax(b).item<std::int64_t>(), first_true);
  EXPECT_EQ(porta::argmin(b).item<std::int64_t>(), first_false == bv.end() ? 0 : first_false - bv.begin());
  Array f = upload({3e9, -3e9, kNaN, kInf, -kInf, 2.5}, DType::float32, {6}, dev());
  EXPECT_TRUE(array_matches(f.astype(DType::int32), DType::int32, {6}, {2147483647.0, -2147483648.0, 0, 2147483647.0, -2147483648.0, 2},
                            tolerance(DType::int32, Accuracy::exact)));
  EXPECT_TRUE(array_matches(f.astype(DType::boolean), DType::boolean, {6}, {1, 1, 1, 1, 1, 1}, exact));
}

// porta's own kernels compile without a warning: the subprocess runs the test above with the
// kernel caches off (PORTA_CACHE=off, PoCL's POCL_KERNEL_CACHE=0, NVIDIA's CUDA_CACHE_DISABLE=1)
// so that every kernel is compiled, and PORTA_LOG=debug, which prints every non-empty build log.
// PoCL's clang also prints "N warning(s) generated." to stderr by itself, which no porta setting
// can redirect: only a kernel without warnings keeps stderr quiet.
TEST_P(CompileWarnings, GeneratedKernelsCompileWithoutWarnings) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "only OpenCL compilers' build logs are read";
  const std::string filter = "Devices/CompileWarnings.KernelsOfTheWarningCheckComputeRightValues/" + device_label(dev());
  char self[4096];
  const ssize_t len = ::readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(len, 0) << "readlink /proc/self/exe";
  self[len] = '\0';
  // CTest runs this program as GoogleTest shards: the child runs its one test whatever the shard.
  const std::string cmd = "env -u GTEST_SHARD_INDEX -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_STATUS_FILE -u GTEST_OUTPUT POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1 PORTA_CACHE=off PORTA_LOG=debug PORTA_TEST_SEED=" + std::to_string(seed()) +
                          " '" + self + "' --gtest_filter=" + filter + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr) << cmd;
  std::string out;
  char buf[4096];
  for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, got);
  const int status = ::pclose(p);
  ASSERT_EQ(status, 0) << cmd << "\n" << out;
  ASSERT_NE(out.find("[  PASSED  ] 1 test"), std::string::npos) << "the subprocess ran no test: " << cmd << "\n" << out;
  ASSERT_NE(out.find("compiled porta_"), std::string::npos) << "the subprocess compiled nothing:\n" << out;
  for (const char* bad : {"warning:", "warning generated", "warnings generated"}) {
    const auto at = out.find(bad);
    EXPECT_EQ(at, std::string::npos) << "'" << bad << "' in the output of " << cmd << ":\n"
                                     << out.substr(at == std::string::npos ? 0 : (at > 2000 ? at - 2000 : 0), 6000);
  }
}

PORTA_INSTANTIATE_DEVICES(CompileWarnings);

}  // namespace
}  // namespace porta_test
