// Interop, memory porta does not own (porta::wrap_memory): host memory shared both ways and
// released once, on the thread that drops it last, with any strides and offset; bad memory as a
// typed error that still releases; a cl_mem shared with raw kernels and retained.
#include "interop_common.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

namespace porta_test {
namespace {

// Host memory the test owns, aligned as drivers like it (PoCL uses CL_MEM_USE_HOST_PTR memory in
// place only when aligned), and counted releases.
struct HostBlock {
  float* data;
  explicit HostBlock(std::size_t n) : data(static_cast<float*>(std::aligned_alloc(4096, (n * sizeof(float) + 4095) / 4096 * 4096))) {}
  ~HostBlock() { std::free(data); }
};

TEST_P(Interop, WrappedHostMemoryIsSharedBothWaysAndReleasedOnce) {
  if (!host_memory_device(dev())) GTEST_SKIP() << dev().spec() << " does not use host memory in place";
  const int rows = 5, cols = 7;
  HostBlock block(rows * cols);
  std::vector<double> x = random_values(rows * cols, DType::float32, -5, 5);
  for (int i = 0; i < rows * cols; ++i) block.data[i] = static_cast<float>(x[static_cast<std::size_t>(i)]);
  std::atomic<int> released{0};
  {
    Array a = porta::wrap_memory({block.data, porta::MemoryKind::host, rows * cols * sizeof(float)}, DType::float32,
                                 {rows, cols}, {}, 0, dev(), [&] { released++; });
    EXPECT_EQ(porta::native_memory(a).host, block.data) << "zero-copy: porta's array is the caller's memory";
    std::vector<double> ref(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) ref[i] = x[i] * 2;
    EXPECT_TRUE(array_matches(a * 2.0f, DType::float32, {rows, cols}, ref, {0, 0}));
    // The caller writes; porta reads the new values.
    porta::queue_wait_for(nullptr, a);
    for (int i = 0; i < rows * cols; ++i) block.data[i] = static_cast<float>(i);
    porta::wait_for_queue(a, nullptr);
    std::vector<float> got = porta::sum(a).eval().to_vector<float>();
    EXPECT_EQ(got[0], static_cast<float>((rows * cols - 1) * rows * cols / 2));
    EXPECT_EQ(released.load(), 0);
    Array t = a.transpose();  // a view keeps the memory too
    a = Array();
    EXPECT_EQ(released.load(), 0);
    EXPECT_EQ(t[2][3].item<float>(), static_cast<float>(3 * cols + 2));
  }
  EXPECT_EQ(released.load(), 1);
}

TEST_P(Interop, WrappedMemoryTakesAnyStridesAndOffset) {
  if (!host_memory_device(dev())) GTEST_SKIP() << dev().spec() << " does not use host memory in place";
  HostBlock block(64);
  std::vector<double> x = random_values(64, DType::float32, -5, 5);
  for (int i = 0; i < 64; ++i) block.data[i] = static_cast<float>(x[static_cast<std::size_t>(i)]);
  std::atomic<int> released{0};
  // Element (i, j) at 40 - 8 i + 0 j... : negative rows, a broadcast (0-stride) column axis.
  Array a = porta::wrap_memory({block.data, porta::MemoryKind::host, 64 * sizeof(float)}, DType::float32, {4, 3, 2},
                               {-8, 0, 3}, 40 * sizeof(float), dev(), [&] { released++; });
  std::vector<double> ref;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k) ref.push_back(round_to(DType::float32, x[static_cast<std::size_t>(40 - 8 * i + 3 * k)] + 1));
  EXPECT_TRUE(array_matches(a + 1.0f, DType::float32, {4, 3, 2}, ref, {0, 0}));
  a = Array();
  EXPECT_EQ(released.load(), 1);
}

TEST_P(Interop, WrappedMemoryReleasedOnTheThreadThatDropsItLast) {
  if (!host_memory_device(dev())) GTEST_SKIP() << dev().spec() << " does not use host memory in place";
  HostBlock block(1024);
  for (int i = 0; i < 1024; ++i) block.data[i] = 1.0f;
  std::atomic<int> released{0};
  std::thread::id where;
  Array a = porta::wrap_memory({block.data, porta::MemoryKind::host, 1024 * sizeof(float)}, DType::float32, {1024}, {}, 0,
                               dev(), [&] {
                                 released++;
                                 where = std::this_thread::get_id();
                               });
  std::thread worker([b = std::move(a)]() mutable {
    EXPECT_EQ(porta::sum(b * 3.0f).item<float>(), 3072.0f);
    b = Array();
  });
  std::thread::id worker_id = worker.get_id();
  worker.join();
  EXPECT_EQ(released.load(), 1);
  EXPECT_EQ(where, worker_id);
}

TEST_P(Interop, WrappingBadMemoryIsATypedErrorAndStillReleases) {
  if (!host_memory_device(dev())) GTEST_SKIP() << dev().spec() << " does not use host memory in place";
  HostBlock block(64);
  std::atomic<int> released{0};
  auto release = [&] { released++; };
  porta::ExternalMemory mem{block.data, porta::MemoryKind::host, 64 * sizeof(float)};
  std::string msg = thrown_message<porta::InvalidArgument>(
      [&] { porta::wrap_memory({nullptr, porta::MemoryKind::host, 0}, DType::float32, {4}, {}, 0, dev(), release); });
  EXPECT_NE(msg.find("null"), std::string::npos) << msg;
  msg = thrown_message<porta::InvalidArgument>(
      [&] { porta::wrap_memory(mem, DType::float32, {4}, {}, 2, dev(), release); });
  EXPECT_NE(msg.find("aligned"), std::string::npos) << msg;
  msg = thrown_message<porta::InvalidArgument>(
      [&] { porta::wrap_memory(mem, DType::float32, {4, 4}, {-4, 1}, 0, dev(), release); });
  EXPECT_NE(msg.find("before the start"), std::string::npos) << msg;
  msg = thrown_message<porta::InvalidArgument>(
      [&] { porta::wrap_memory(mem, DType::float32, {8, 9}, {}, 0, dev(), release); });
  EXPECT_NE(msg.find("288"), std::string::npos) << msg;  // where the elements end
  EXPECT_NE(msg.find("256"), std::string::npos) << msg;  // the 256 bytes the caller owns
  msg = thrown_message<porta::InvalidArgument>(
      [&] { porta::wrap_memory(mem, DType::float32, {4}, {1, 1}, 0, dev(), release); });
  EXPECT_EQ(released.load(), 5) << "every refused wrap still released the memory";
}

#ifdef PORTA_TEST_OPENCL
TEST_P(Interop, WrappedClMemIsSharedWithRawKernelsAndRetained) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "cl_mem";
  cl_context ctx = porta::native::opencl_context(dev());
  cl_command_queue q = porta::native::opencl_queue(dev());
  const int n = 300;
  std::vector<double> x = random_values(n, DType::float32, -5, 5);
  std::vector<float> xf(x.begin(), x.end());
  cl_int s = CL_SUCCESS;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), xf.data(), &s);
  ASSERT_EQ(s, CL_SUCCESS);
  std::atomic<int> released{0};
  Array a = porta::wrap_memory({m, porta::MemoryKind::device, 0}, DType::float32, {n}, {}, 0, dev(), [&] { released++; });
  ASSERT_EQ(clReleaseMemObject(m), CL_SUCCESS);  // porta holds its own reference
  EXPECT_EQ(porta::native::opencl_memory(a).buffer, m);
  porta::RawKernel twice(porta::Backend::opencl, "__kernel void twice(__global float* v, int n) { int i = get_global_id(0); if (i < n) v[i] *= 2.0f; }", "twice");
  twice({5}, {64}, {a, n});
  // The caller reads its buffer after porta's write, through porta's ordering.
  porta::queue_wait_for(q, a);
  std::vector<float> got(n);
  ASSERT_EQ(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof(float), got.data(), 0, nullptr, nullptr), CL_SUCCESS);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[static_cast<std::size_t>(i)], 2 * xf[static_cast<std::size_t>(i)]) << i;
  // A cl_mem of another context, and a too small one, are refused.
  std::string msg = thrown_message<porta::InvalidArgument>(
      [&] { porta::wrap_memory({m, porta::MemoryKind::device, 0}, DType::float32, {n + 1}, {}, 0, dev(), {}); });
  EXPECT_NE(msg.find("holds"), std::string::npos) << msg;
  cl_device_id id = porta::native::opencl_device(dev());
  cl_context other = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &s);
  cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, 64, nullptr, &s);
  msg = thrown_message<porta::InvalidArgument>(
      [&] { porta::wrap_memory({foreign, porta::MemoryKind::device, 0}, DType::float32, {4}, {}, 0, dev(), {}); });
  EXPECT_NE(msg.find("context"), std::string::npos) << msg;
  clReleaseMemObject(foreign);
  clReleaseContext(other);
  a = Array();
  EXPECT_EQ(released.load(), 1);
}
#endif

PORTA_INSTANTIATE_DEVICES(Interop);

}  // namespace
}  // namespace porta_test
