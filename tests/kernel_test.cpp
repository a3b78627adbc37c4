// User kernels: ElementwiseKernel (one body for every run-time compiling backend: outputs,
// broadcasting, numbers, the element index i) and RawKernel (OpenCL C on OpenCL devices, CUDA
// C++ on CUDA devices, launched with grid/block); compile errors carry the log and the
// numbered source; devices that compile nothing say so with BackendUnavailable.
#include "test_common.hpp"

#include <cmath>
#include <thread>

namespace porta_test {
namespace {

using porta::Backend;
using porta::Dim3;
using porta::ElementwiseKernel;
using porta::RawKernel;

using Kernels = DeviceTest;

#define PORTA_REQUIRE_COMPILER()                                                                                     \
  do {                                                                                                               \
    if (!dev().compiles_at_runtime()) GTEST_SKIP() << dev().spec() << " compiles no kernels at run time (checked in " \
                                                   << "CompilingNothingIsBackendUnavailable)";                       \
  } while (0)

TEST_P(Kernels, CompilingNothingIsBackendUnavailable) {
  if (dev().compiles_at_runtime()) GTEST_SKIP() << dev().spec() << " compiles kernels at run time";
  Array x = porta::ones({8}, DType::float32, dev());
  ElementwiseKernel k("float32 x", "float32 y", "y = x * 2", "twice");
  std::string msg = thrown_message<porta::BackendUnavailable>([&] { (void)k({x}); });
  EXPECT_NE(msg.find(dev().spec()), std::string::npos) << msg;
  // The message names the devices that can run it.
  for (const auto& d : porta::devices())
    if (d.compiles_at_runtime()) {
      EXPECT_NE(msg.find(d.spec()), std::string::npos) << msg;
    }
  RawKernel raw(Backend::opencl, "__kernel void f(__global float* x) { x[0] = 1; }", "f");
  std::string rmsg = thrown_message<porta::BackendUnavailable>([&] { raw.launch({1}, {1}, {x.copy()}); });
  EXPECT_NE(rmsg.find(dev().spec()), std::string::npos) << rmsg;
  EXPECT_TRUE(array_matches(x, DType::float32, {8}, std::vector<double>(8, 1), {0, 0})) << "x is unchanged";
}

TEST_P(Kernels, ElementwiseKernelOneOutput) {
  PORTA_REQUIRE_COMPILER();
  std::vector<double> x, y;
  Array xd = random_array({1001}, DType::float32, -3, 3, &x);
  Array yd = random_array({1001}, DType::float32, -3, 3, &y);
  ElementwiseKernel k("float32 x, float32 y", "float32 z", "z = x * x + y", "square_add");
  EXPECT_EQ(k.inputs().size(), 2u);
  EXPECT_EQ(k.outputs().size(), 1u);
  EXPECT_EQ(k.outputs()[0].dtype, DType::float32);
  EXPECT_EQ(k.inputs()[1].name, "y");
  std::vector<double> ref(x.size());
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = x[i] * x[i] + y[i];
  EXPECT_TRUE(array_matches(k({xd, yd}), DType::float32, {1001}, ref, {1e-6, 1e-6}));
  // Lazy and strided inputs are evaluated and read in order.
  std::vector<double> m;
  Array md = random_array({7, 9}, DType::float32, -3, 3, &m);
  std::vector<double> tref;
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 7; ++j) {
      double a = m[static_cast<std::size_t>(j * 9 + i)], b = 2 * m[static_cast<std::size_t>(j * 9 + i)];
      tref.push_back(a * a + b);
    }
  EXPECT_TRUE(array_matches(k({md.transpose(), md.transpose() * 2.0f}), DType::float32, {9, 7}, tref, {1e-6, 1e-6}));
  // Empty inputs give empty outputs.
  EXPECT_EQ(k({porta::zeros({0}, DType::float32, dev()), porta::zeros({0}, DType::float32, dev())}).shape(), Shape{0});
}

TEST_P(Kernels, ElementwiseKernelSeveralOutputsBroadcastNumbersAndIndex) {
  PORTA_REQUIRE_COMPILER();
  // Several outputs, broadcast (4, 1) x (1, 5), a number by value.
  std::vector<double> c, r;
  Array cd = random_array({4, 1}, DType::float32, -3, 3, &c);
  Array rd = random_array({1, 5}, DType::float32, -3, 3, &r);
  ElementwiseKernel k("float32 a, float32 b, float32 s", "float32 sum, float32 diff", "sum = (a + b) * s; diff = a - b", "sumdiff");
  auto out = k.call({cd, rd, 2.5});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> sref, dref;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j) {
      sref.push_back((c[static_cast<std::size_t>(i)] + r[static_cast<std::size_t>(j)]) * 2.5);
      dref.push_back(c[static_cast<std::size_t>(i)] - r[static_cast<std::size_t>(j)]);
    }
  EXPECT_TRUE(array_matches(out[0], DType::float32, {4, 5}, sref, {1e-6, 1e-6}));
  EXPECT_TRUE(array_matches(out[1], DType::float32, {4, 5}, dref, {1e-6, 1e-6}));
  EXPECT_THROW((void)k({cd, rd, 1.0}), porta::InvalidArgument) << "operator() of a kernel with two outputs";

  // The element index i (int64, row-major in the output shape); int64 and bool parameters; an
  // int32 parameter given a float32 array converts it.
  std::vector<double> v, mask;
  Array vd = random_array({3, 50}, DType::int64, -1000, 1000, &v);
  Array md = random_array({3, 50}, DType::boolean, 0, 1, &mask);
  ElementwiseKernel idx("int64 v, bool m, int32 k", "int64 y", "y = m ? v + i : k", "with_index");
  std::vector<double> iref(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) iref[i] = mask[i] != 0 ? v[i] + static_cast<double>(i) : -7;
  EXPECT_TRUE(array_matches(idx({vd, md, -7}), DType::int64, {3, 50}, iref, {0, 0}));
  Array fk = porta::full({3, 50}, -7.75, DType::float32, dev());
  EXPECT_TRUE(array_matches(idx({vd, md, fk}), DType::int64, {3, 50}, [&] {
    auto x = iref;  // -7.75 converts to -7
    return x;
  }(), {0, 0}));
  // float64 and a preamble macro, which both dialects accept.
  if (dev().supports(DType::float64)) {
    ElementwiseKernel p("float64 x", "float64 y", "y = TWICE_PLUS_ONE(x)", "preambled", "#define TWICE_PLUS_ONE(v) (2 * (v) + 1)");
    Array xd = upload({1.5, -2.25, 1e300}, DType::float64, {3}, dev());
    EXPECT_TRUE(array_matches(p({xd}), DType::float64, {3}, {4.0, -3.5, 2e300 + 1}, {1e-15, 0}));
  }
  // float16 parameters are float32 in the body and rounded when stored.
  if (dev().supports(DType::float16)) {
    ElementwiseKernel h("float16 x", "float16 y, float32 wide", "wide = x / 3.0f; y = wide", "halves");
    auto hv = h.call({upload({1.0, 2.0, -0.5}, DType::float16, {3}, dev())});
    EXPECT_TRUE(array_matches(hv[0], DType::float16, {3}, {round_to(DType::float16, 1.0 / 3), round_to(DType::float16, 2.0 / 3),
                                                            round_to(DType::float16, -0.5 / 3)},
                              {0, 0}));
    EXPECT_TRUE(array_matches(hv[1], DType::float32, {3}, {1.0 / 3, 2.0 / 3, -0.5 / 3}, {1e-6, 0}));
  }
}

TEST_P(Kernels, ElementwiseKernelArgumentErrors) {
  EXPECT_THROW(ElementwiseKernel("float32", "float32 y", "y = 1"), porta::InvalidArgument) << "a parameter without a name";
  EXPECT_THROW(ElementwiseKernel("float32 x", "", "x = 1"), porta::InvalidArgument) << "no outputs";
  EXPECT_THROW(ElementwiseKernel("float32 i", "float32 y", "y = i"), porta::InvalidArgument) << "i is the element index";
  EXPECT_THROW(ElementwiseKernel("float32 x, float32 x", "float32 y", "y = x"), porta::InvalidArgument) << "x twice";
  EXPECT_THROW(ElementwiseKernel("float128 x", "float32 y", "y = x"), porta::DTypeError) << "unknown dtype";
  EXPECT_THROW(ElementwiseKernel("float32 x", "float32 y", "y = x", "not a name"), porta::InvalidArgument);
  for (const char* word : {"kernel", "global", "int", "__kernel", "template"}) {
    EXPECT_THROW(ElementwiseKernel("float32 x", "float32 y", "y = x", word), porta::InvalidArgument) << word << " as a name";
    EXPECT_THROW(ElementwiseKernel(std::string("float32 ") + word, "float32 y", "y = 1"), porta::InvalidArgument) << word << " as a parameter";
  }
  try {
    ElementwiseKernel("float32 x", "float32 y", "y = x", "kernel");
    ADD_FAILURE() << "'kernel' accepted as a kernel name";
  } catch (const porta::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'kernel' is a keyword"), std::string::npos) << e.what();
  }
  ElementwiseKernel k("float32 x, float32 y", "float32 z", "z = x + y", "add2");
  Array a = porta::ones({3}, DType::float32, dev());
  EXPECT_THROW((void)k({a}), porta::InvalidArgument) << "one argument for two inputs";
  EXPECT_THROW((void)k({a, porta::ones({4}, DType::float32, dev())}), porta::ShapeError) << "(3,) with (4,)";
  EXPECT_THROW((void)k({a, Array()}), porta::InvalidArgument) << "an empty Array";
}

TEST_P(Kernels, ElementwiseKernelCompileErrorCarriesLogAndNumberedSource) {
  PORTA_REQUIRE_COMPILER();
  ElementwiseKernel k("float32 x", "float32 y", "y = x +* undefined_name_42", "broken_body");
  Array a = porta::ones({3}, DType::float32, dev());
  try {
    (void)k({a});
    FAIL() << "a body that does not compile must throw CompileError";
  } catch (const porta::CompileError& e) {
    std::string what = e.what();
    EXPECT_NE(e.source().find("undefined_name_42"), std::string::npos) << "source() is the generated source";
    EXPECT_FALSE(e.log().empty()) << "log() is the compiler's log";
    EXPECT_NE(what.find("undefined_name_42"), std::string::npos) << what;
    EXPECT_NE(what.find("   1 | "), std::string::npos) << "the message holds the numbered source:\n" << what;
  }
  // The error is remembered, not compiled again, and the input is unchanged.
  EXPECT_THROW((void)k({a}), porta::CompileError);
  EXPECT_TRUE(array_matches(a, DType::float32, {3}, {1, 1, 1}, {0, 0}));
}

// ---- RawKernel -------------------------------------------------------------------------------

const char* kOpenCLAdd = R"(
__kernel void vadd(__global float* out, __global const float* a, __global const float* b, int n) {
  int i = get_global_id(0);
  if (i < n) out[i] = a[i] + b[i];
}
__kernel void coords(__global int* out, int width) {
  int x = get_global_id(0), y = get_global_id(1);
  out[y * width + x] = x + 1000 * y + 100000 * (int)get_group_id(0) + 1000000 * (int)get_local_id(1);
}
__kernel void scalars(__global double* out, float f, double d, long l, uint u) {
  out[0] = f; out[1] = d; out[2] = (double)l; out[3] = (double)u;
}
__kernel void reverse_block(__global float* x, __local float* tile) {
  int t = get_local_id(0), b = get_group_id(0), w = get_local_size(0);
  tile[t] = x[b * w + t];
  barrier(CLK_LOCAL_MEM_FENCE);
  x[b * w + t] = tile[w - 1 - t];
}
)";

const char* kCudaAdd = R"(
extern "C" __global__ void vadd(float* out, const float* a, const float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
extern "C" __global__ void coords(int* out, int width) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * width + x] = x + 1000 * y + 100000 * (int)blockIdx.x + 1000000 * (int)threadIdx.y;
}
extern "C" __global__ void scalars(double* out, float f, double d, long long l, unsigned u) {
  out[0] = f; out[1] = d; out[2] = (double)l; out[3] = (double)u;
}
extern "C" __global__ void reverse_block(float* x) {
  extern __shared__ float tile[];
  int t = threadIdx.x;
  tile[t] = x[blockIdx.x * blockDim.x + t];
  __syncthreads();
  x[blockIdx.x * blockDim.x + t] = tile[blockDim.x - 1 - t];
}
)";

const char* raw_source(const Device& d) { return d.backend() == Backend::cuda ? kCudaAdd : kOpenCLAdd; }

TEST_P(Kernels, RawKernelLaunchesWithGridAndBlock) {
  PORTA_REQUIRE_COMPILER();
  const Backend lang = dev().backend();
  const std::int32_t n = 1000;
  std::vector<double> a, b;
  Array ad = random_array({n}, DType::float32, -5, 5, &a);
  Array bd = random_array({n}, DType::float32, -5, 5, &b);
  Array out = porta::empty({n}, DType::float32, dev());
  RawKernel add(lang, raw_source(dev()), "vadd");
  add.compile(dev());
  add({(n + 63) / 64, 1, 1}, {64, 1, 1}, {out, ad, bd, n});
  std::vector<double> ref(a.size());
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = a[i] + b[i];
  EXPECT_TRUE(array_matches(out, DType::float32, {n}, ref, {1e-6, 0}));
  // Later porta work sees the kernel's writes; a lazy argument is evaluated first.
  EXPECT_TRUE(array_matches(out * 2.0f, DType::float32, {n}, [&] {
    auto r = ref;
    for (auto& x : r) x *= 2;
    return r;
  }(), {1e-6, 0}));
  Array out2 = porta::empty({n}, DType::float32, dev());
  add.launch({(n + 127) / 128}, {128}, {out2, ad * 2.0f, bd, n}, 0, dev());
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = 2 * a[i] + b[i];
  EXPECT_TRUE(array_matches(out2, DType::float32, {n}, ref, {1e-6, 0}));

  // A 2-D launch: grid (4, 3) of blocks (4, 2) covers 16 x 6.
  RawKernel coords(lang, raw_source(dev()), "coords");
  Array grid = porta::empty({6, 16}, DType::int32, dev());
  coords({4, 3, 1}, {4, 2, 1}, {grid, std::int32_t{16}});
  std::vector<double> gref;
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 16; ++x) gref.push_back(x + 1000 * y + 100000 * (x / 4) + 1000000 * (y % 2));
  EXPECT_TRUE(array_matches(grid, DType::int32, {6, 16}, gref, {0, 0}));

  // Numbers of each C type.
  if (dev().supports(DType::float64)) {
    RawKernel sc(lang, raw_source(dev()), "scalars");
    Array s = porta::zeros({4}, DType::float64, dev()).copy();
    sc({1}, {1}, {s, 1.5f, -2.25, std::int64_t{-(std::int64_t{1} << 40)}, std::uint32_t{4000000000u}});
    EXPECT_TRUE(array_matches(s, DType::float64, {4}, {1.5, -2.25, -1099511627776.0, 4e9}, {0, 0}));
  }
  // CUDA's dynamic shared memory (shared_bytes, or a RawArg::local that joins it); OpenCL's
  // __local parameter (RawArg::local).
  for (int form = 0; form < 2; ++form) {
    if (lang == Backend::opencl && form == 0) continue;
    std::vector<double> x;
    Array xd = random_array({256}, DType::float32, -1, 1, &x);
    RawKernel rev(lang, raw_source(dev()), "reverse_block");
    if (form == 0) rev.launch({4}, {64}, {xd}, 64 * sizeof(float));
    else rev.launch({4}, {64}, {xd, porta::RawArg::local(64 * sizeof(float))});
    std::vector<double> rref(256);
    for (int blk = 0; blk < 4; ++blk)
      for (int t = 0; t < 64; ++t) rref[static_cast<std::size_t>(blk * 64 + t)] = x[static_cast<std::size_t>(blk * 64 + 63 - t)];
    EXPECT_TRUE(array_matches(xd, DType::float32, {256}, rref, {0, 0}));
  }
}

// One RawKernel and one ElementwiseKernel object shared by 8 threads, each launching on its own
// queue with its own arrays: every result is checked.
TEST_P(Kernels, UserKernelsSharedAcrossThreads) {
  PORTA_REQUIRE_COMPILER();
  RawKernel add(dev().backend(), raw_source(dev()), "vadd");
  ElementwiseKernel axpy("float32 x, float32 y, float32 a", "float32 z", "z = a * x + y", "threads_axpy");
  constexpr int kThreads = 8, kRounds = 6;
  constexpr std::int32_t n = 4099;
  std::vector<std::vector<double>> xs(kThreads), ys(kThreads);
  std::vector<Array> xd, yd;
  for (int t = 0; t < kThreads; ++t) {
    xd.push_back(random_array({n}, DType::float32, -3, 3, &xs[static_cast<std::size_t>(t)]));
    yd.push_back(random_array({n}, DType::float32, -3, 3, &ys[static_cast<std::size_t>(t)]));
  }
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      try {
        porta::DeviceScope scope(dev());
        const auto& x = xs[static_cast<std::size_t>(t)];
        const auto& y = ys[static_cast<std::size_t>(t)];
        for (int r = 0; r < kRounds; ++r) {
          Array sum = porta::empty({n}, DType::float32, dev());
          add({(n + 127) / 128}, {128}, {sum, xd[static_cast<std::size_t>(t)], yd[static_cast<std::size_t>(t)], n});
          const float a = static_cast<float>(t + r) * 0.25f;
          Array z = axpy({sum, yd[static_cast<std::size_t>(t)], a});
          std::vector<double> ref(x.size());
          for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = a * (static_cast<float>(x[i] + y[i])) + y[i];
          auto ok = array_matches(z, DType::float32, {n}, ref, {1e-5, 1e-5});
          if (!ok) failures[static_cast<std::size_t>(t)] = ok.message();
        }
      } catch (const std::exception& e) {
        failures[static_cast<std::size_t>(t)] = e.what();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(failures[static_cast<std::size_t>(t)].empty()) << "thread " << t << ": " << failures[static_cast<std::size_t>(t)];
}

TEST_P(Kernels, RawKernelArgumentErrors) {
  PORTA_REQUIRE_COMPILER();
  const Backend lang = dev().backend();
  RawKernel add(lang, raw_source(dev()), "vadd");
  Array m = porta::ones({4, 4}, DType::float32, dev());
  Array out = porta::empty({4}, DType::float32, dev());
  EXPECT_THROW(add({1}, {4}, {out, m.transpose()[0], m[0], std::int32_t{4}}), porta::InvalidArgument) << "a strided view";
  EXPECT_THROW(add({0}, {4}, {out, m[0], m[0], std::int32_t{4}}), porta::InvalidArgument) << "an empty grid";
  // The other language on this device.
  RawKernel other(lang == Backend::cuda ? Backend::opencl : Backend::cuda, lang == Backend::cuda ? kOpenCLAdd : kCudaAdd, "vadd");
  EXPECT_THROW(other.compile(dev()), porta::InvalidArgument);
  EXPECT_THROW(RawKernel(Backend::kokkos, "", "f"), porta::InvalidArgument);
  EXPECT_THROW(RawKernel(lang, raw_source(dev()), ""), porta::InvalidArgument);
  // A kernel name the source does not have.
  RawKernel missing(lang, raw_source(dev()), "no_such_kernel");
  EXPECT_THROW(missing.compile(dev()), porta::CompileError);
  EXPECT_TRUE(array_matches(m, DType::float32, {4, 4}, std::vector<double>(16, 1), {0, 0})) << "m is unchanged";
}

// Arguments are checked against the kernel's parameters before the driver sees them (PoCL
// crashed when given a number where the kernel takes a buffer): each error names the argument
// and what the parameter is. CUDA lists only parameter sizes, so there a pointer and an 8-byte
// number look alike; a 4-byte number for a pointer is still caught.
TEST_P(Kernels, RawKernelArgumentsAreCheckedAgainstTheParameters) {
  PORTA_REQUIRE_COMPILER();
  const Backend lang = dev().backend();
  RawKernel add(lang, raw_source(dev()), "vadd");
  std::vector<double> a;
  Array ad = random_array({64}, DType::float32, -5, 5, &a);
  Array out = random_array({64}, DType::float32, -5, 5);
  const auto before = fetch(out).values();
  const std::int32_t n = 64;
  auto expect_error = [&](const std::vector<porta::RawArg>& args, const std::string& needle, const char* what) {
    std::string msg = thrown_message<porta::InvalidArgument>([&] { add({1}, {64}, args); });
    EXPECT_NE(msg.find(needle), std::string::npos) << what << ": " << msg;
  };
  const porta::RawArg number_for_pointer = lang == Backend::cuda ? porta::RawArg(std::int32_t{7}) : porta::RawArg(std::int64_t{7});
  expect_error({out, number_for_pointer, ad, n}, "argument 1", "a number where the kernel takes a buffer");
  expect_error({out, ad, ad, ad}, "argument 3", "an array where the kernel takes an int");
  expect_error({out, ad, ad}, "takes 4 parameters", "too few arguments");
  expect_error({out, ad, ad, n, n}, "takes 4 parameters", "too many arguments");
  expect_error({out, Array(), ad, n}, "empty Array", "an empty Array");
  if (lang == Backend::opencl) {
    // A typedef'd parameter (porta-bench's FMA-chain kernel takes a `real`) is not second-guessed.
    RawKernel typed(lang, "typedef float real;\n__kernel void set(__global real* o, real s) { o[get_global_id(0)] = s; }", "set");
    Array o = porta::empty({4}, DType::float32, dev());
    typed({4}, {0, 0, 0}, {o, 2.5f});
    EXPECT_TRUE(array_matches(o, DType::float32, {4}, {2.5, 2.5, 2.5, 2.5}, {0, 0}));
    expect_error({out, ad, ad, 64.0f}, "argument 3", "a float where the kernel takes an int");
    expect_error({out, ad, ad, porta::RawArg::local(16)}, "argument 3", "local memory where the kernel takes an int");
  }
  // Local and shared memory beyond what the device allows per block names the limit.
  const std::string limit = std::to_string(dev().max_local_bytes());
  RawKernel rev(lang, raw_source(dev()), "reverse_block");
  std::string msg = thrown_message<porta::InvalidArgument>([&] {
    if (lang == Backend::cuda) rev.launch({1}, {64}, {ad}, std::size_t{64} << 20);
    else rev.launch({1}, {64}, {ad, porta::RawArg::local(std::size_t{64} << 20)});
  });
  EXPECT_NE(msg.find(limit), std::string::npos) << msg;
  if (lang == Backend::opencl) {
    msg = thrown_message<porta::InvalidArgument>([&] { rev.launch({1}, {64}, {ad, porta::RawArg::local(256)}, 256); });
    EXPECT_NE(msg.find("RawArg::local"), std::string::npos) << "shared_bytes on OpenCL: " << msg;
  }
  // Empty source.
  msg = thrown_message<porta::InvalidArgument>([&] { RawKernel(lang, "  \n", "vadd"); });
  EXPECT_NE(msg.find("source is empty"), std::string::npos) << msg;
  EXPECT_TRUE(array_matches(out, DType::float32, {64}, before, {0, 0})) << "out is unchanged after the refused launches";
  EXPECT_TRUE(array_matches(ad, DType::float32, {64}, a, {0, 0})) << "ad is unchanged";
  add({1}, {64}, {out, ad, ad, n});  // and the kernel still runs
  std::vector<double> ref(a.size());
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = 2 * a[i];
  EXPECT_TRUE(array_matches(out, DType::float32, {64}, ref, {1e-6, 0}));
}

TEST_P(Kernels, RawKernelCompileErrorCarriesLogAndNumberedSource) {
  PORTA_REQUIRE_COMPILER();
  const Backend lang = dev().backend();
  const std::string src = lang == Backend::cuda
                              ? "extern \"C\" __global__ void broken(float* x) {\n  x[0] = undeclared_thing_17;\n}\n"
                              : "__kernel void broken(__global float* x) {\n  x[0] = undeclared_thing_17;\n}\n";
  RawKernel k(lang, src, "broken");
  try {
    k.compile(dev());
    FAIL() << "must throw CompileError";
  } catch (const porta::CompileError& e) {
    std::string what = e.what();
    EXPECT_EQ(e.source(), src);
    EXPECT_NE(e.log().find("undeclared_thing_17"), std::string::npos) << "log():\n" << e.log();
    EXPECT_NE(what.find(e.log()), std::string::npos) << "what() holds the log:\n" << what;
    EXPECT_NE(what.find("   2 |   x[0] = undeclared_thing_17;"), std::string::npos) << "what() holds the numbered source:\n" << what;
  }
  Array x = porta::ones({4}, DType::float32, dev());
  EXPECT_THROW(k.launch({1}, {1}, {x}), porta::CompileError);
  EXPECT_TRUE(array_matches(x, DType::float32, {4}, {1, 1, 1, 1}, {0, 0}));
}

// Device-event timing, as the benchmarks use it: elapsed_ms waits for both events, so it may be
// asked right after the work is queued (CUDA answers "not ready" to a bare cuEventElapsedTime).
TEST_P(Kernels, EventElapsedWaitsForTheWork) {
  std::vector<double> xs;
  Array x = random_array({1 << 20}, DType::float32, -1, 1, &xs);
  porta::Event start = porta::Event::record(dev());
  Array y = x;
  for (int k = 0; k < 4; ++k) y = porta::exp(porta::sin(y) * 0.5f);
  y.eval();
  porta::Event end = porta::Event::record(dev());
  double ms = end.elapsed_ms(start);
  EXPECT_TRUE(std::isfinite(ms) && ms >= 0) << ms;
  EXPECT_TRUE(end.done());
  EXPECT_TRUE(start.done());
  std::vector<double> ref(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    double v = xs[i];
    for (int k = 0; k < 4; ++k) v = std::exp(std::sin(v) * 0.5);
    ref[i] = v;
  }
  EXPECT_TRUE(array_matches(y, DType::float32, {1 << 20}, ref, tolerance(DType::float32, Accuracy::transcendental)));
}

// Events of two devices have two clocks: timing one against the other is an error naming both.
TEST_P(Kernels, EventsOfTwoDevicesCannotBeTimedAgainstEachOther) {
  for (const Device& other : porta::devices()) {
    if (other == dev()) continue;
    porta::Event a = porta::Event::record(dev()), b = porta::Event::record(other);
    std::string msg = thrown_message<porta::InvalidArgument>([&] { (void)b.elapsed_ms(a); });
    EXPECT_NE(msg.find(dev().spec()), std::string::npos) << msg;
    EXPECT_NE(msg.find(other.spec()), std::string::npos) << msg;
    EXPECT_EQ(msg.find("wait"), std::string::npos) << "not about a queue wait: " << msg;
  }
}

PORTA_INSTANTIATE_DEVICES(Kernels);

}  // namespace
}  // namespace porta_test
