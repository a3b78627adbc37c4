// Interop (include/porta/interop.hpp), native handles: the vendor objects behind a device, its
// queues and arrays, read and written by the test's own vendor calls; the ordering of porta's
// work with queues porta does not own (an OpenCL queue of the test's, in porta's cl_context and
// in a context of its own); Kokkos, which has nothing to order.
#include "interop_common.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

namespace porta_test {
namespace {

TEST_P(Interop, NativeDeviceNamesTheBackendsObjects) {
  porta::NativeDevice n = porta::native_device(dev());
  EXPECT_EQ(n.backend, dev().backend());
  switch (dev().backend()) {
    case porta::Backend::cuda:
      EXPECT_NE(n.context, nullptr);
      EXPECT_EQ(n.ordinal, dev().index());  // CUDA_VISIBLE_DEVICES order is porta's order
      EXPECT_NE(porta::native_queue(dev()), nullptr);
      break;
    case porta::Backend::opencl: {
      ASSERT_NE(n.context, nullptr);
      ASSERT_NE(n.device, nullptr);
      ASSERT_NE(n.platform, nullptr);
#ifdef PORTA_TEST_OPENCL
      // The queue is porta's, of this device and context.
      cl_command_queue q = porta::native::opencl_queue(dev());
      cl_context ctx = nullptr;
      cl_device_id id = nullptr;
      ASSERT_EQ(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr), CL_SUCCESS);
      ASSERT_EQ(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof id, &id, nullptr), CL_SUCCESS);
      EXPECT_EQ(ctx, porta::native::opencl_context(dev()));
      EXPECT_EQ(id, porta::native::opencl_device(dev()));
      cl_platform_id platform = nullptr;
      ASSERT_EQ(clGetDeviceInfo(id, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr), CL_SUCCESS);
      EXPECT_EQ(platform, porta::native::opencl_platform(dev()));
#endif
      break;
    }
    case porta::Backend::kokkos:
      EXPECT_EQ(n.context, nullptr);
      EXPECT_EQ(porta::native_queue(dev()), nullptr) << "Kokkos work is finished when each call returns";
      break;
  }
  // Each thread has its own queue.
  void* mine = porta::native_queue(dev());
  void* theirs = nullptr;
  std::thread([&] { theirs = porta::native_queue(dev()); }).join();
  if (mine) {
    EXPECT_NE(mine, theirs);
  }
}

TEST_P(Interop, NativeMemoryOfViewsPointsAtTheirFirstElement) {
  std::vector<double> x;
  Array a = random_array({6, 10}, DType::float32, -4, 4, &x);
  Array lazy = a * 2.0f;  // native_memory evaluates
  std::vector<float> got = read_native(lazy);
  for (std::size_t i = 0; i < x.size(); ++i) ASSERT_EQ(got[i], static_cast<float>(2 * x[i])) << i;
  // Row 3 from column 2 on: the offset is 3 * 10 + 2 elements into the same buffer.
  Array row = a.slice({{3, 4}, {2, std::nullopt}});
  porta::NativeMemory whole = porta::native_memory(a), part = porta::native_memory(row);
  EXPECT_EQ(part.handle, whole.handle);
  EXPECT_EQ(part.offset_bytes, whole.offset_bytes + (3 * 10 + 2) * sizeof(float));
  EXPECT_GE(part.buffer_bytes, 60 * sizeof(float));
  std::vector<float> tail = read_native(row.flatten().contiguous().slice({{0, 8}}));
  for (int j = 0; j < 8; ++j) EXPECT_EQ(tail[static_cast<std::size_t>(j)], static_cast<float>(x[static_cast<std::size_t>(32 + j)]));
  EXPECT_THROW((void)porta::native_memory(Array()), porta::InvalidArgument);
}

#ifdef PORTA_TEST_OPENCL
// A kernel that spins long enough (on PoCL and on a GPU) that porta's next read, if it were not
// ordered after it, would read the old values; then it writes v[i] = 3 * v[i] + 1.
constexpr const char* kSlowTriple = R"(
__kernel void slow_triple(__global float* v, int n, int spins) {
  int i = get_global_id(0);
  if (i >= n) return;
  float acc = v[i];
  float junk = 0.0f;
  for (int k = 0; k < spins; ++k) junk = junk * 0.999f + 1e-7f;
  v[i] = 3.0f * acc + 1.0f + (junk < 0.0f ? 1.0f : 0.0f);
}
)";

struct ClProgram {
  cl_program program = nullptr;
  cl_kernel kernel = nullptr;
  ClProgram(cl_context ctx, cl_device_id dev, const char* src, const char* entry) {
    cl_int s = CL_SUCCESS;
    program = clCreateProgramWithSource(ctx, 1, &src, nullptr, &s);
    EXPECT_EQ(s, CL_SUCCESS);
    s = clBuildProgram(program, 1, &dev, "", nullptr, nullptr);
    EXPECT_EQ(s, CL_SUCCESS) << "clBuildProgram";
    kernel = clCreateKernel(program, entry, &s);
    EXPECT_EQ(s, CL_SUCCESS);
  }
  ~ClProgram() {
    if (kernel) clReleaseKernel(kernel);
    if (program) clReleaseProgram(program);
  }
};

TEST_P(Interop, ForeignOpenCLQueueIsOrderedBothWays) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "an OpenCL queue of the test's own";
  cl_context ctx = porta::native::opencl_context(dev());
  cl_device_id id = porta::native::opencl_device(dev());
  cl_int s = CL_SUCCESS;
  cl_command_queue foreign = clCreateCommandQueue(ctx, id, 0, &s);
  ASSERT_EQ(s, CL_SUCCESS);
  ClProgram prog(ctx, id, kSlowTriple, "slow_triple");
  const int n = 4096;
  std::vector<double> x;
  Array xs = random_array({n}, DType::float32, -2, 2, &x);
  // porta's write (lazy until here), then the foreign kernel on it, then porta's read.
  Array b = (xs + 1.0f).eval();
  porta::native::OpenCLMemory m = porta::native::opencl_memory(b);
  ASSERT_EQ(m.offset_bytes, 0u);
  porta::native::queue_wait_for(foreign, b);
  int spins = dev().kind() == porta::DeviceKind::gpu ? 200000 : 20000;
  ASSERT_EQ(clSetKernelArg(prog.kernel, 0, sizeof(cl_mem), &m.buffer), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(prog.kernel, 1, sizeof n, &n), CL_SUCCESS);
  ASSERT_EQ(clSetKernelArg(prog.kernel, 2, sizeof spins, &spins), CL_SUCCESS);
  std::size_t global = n;
  ASSERT_EQ(clEnqueueNDRangeKernel(foreign, prog.kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr), CL_SUCCESS);
  porta::native::wait_for_queue(b, foreign);
  // Read on another thread's queue too: the order reaches every porta queue.
  std::vector<float> other;
  std::thread([&] { other = (b * 1.0f).to_vector<float>(); }).join();
  std::vector<float> got = b.to_vector<float>();
  for (int i = 0; i < n; ++i) {
    double want = 3.0 * (x[static_cast<std::size_t>(i)] + 1) + 1.0;  // the kernel may contract to an fma
    ASSERT_NEAR(got[static_cast<std::size_t>(i)], want, 1e-5) << i;
    ASSERT_NEAR(other[static_cast<std::size_t>(i)], want, 1e-5) << i;
  }
  EXPECT_EQ(clFinish(foreign), CL_SUCCESS);
  clReleaseCommandQueue(foreign);
}

TEST_P(Interop, ForeignQueueOfAnotherContextIsWaitedForOnTheHost) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "an OpenCL context of the test's own";
  cl_device_id id = porta::native::opencl_device(dev());
  cl_int s = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &s);
  ASSERT_EQ(s, CL_SUCCESS);
  cl_command_queue foreign = clCreateCommandQueue(ctx, id, 0, &s);
  ASSERT_EQ(s, CL_SUCCESS);
  ClProgram prog(ctx, id, kSlowTriple, "slow_triple");
  const int n = 2048;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * sizeof(float), nullptr, &s);
  ASSERT_EQ(s, CL_SUCCESS);
  int spins = dev().kind() == porta::DeviceKind::gpu ? 200000 : 20000;
  clSetKernelArg(prog.kernel, 0, sizeof(cl_mem), &buf);
  clSetKernelArg(prog.kernel, 1, sizeof n, &n);
  clSetKernelArg(prog.kernel, 2, sizeof spins, &spins);
  std::size_t global = n;
  cl_event done = nullptr;
  ASSERT_EQ(clEnqueueNDRangeKernel(foreign, prog.kernel, 1, nullptr, &global, nullptr, 0, nullptr, &done), CL_SUCCESS);
  // porta's queue cannot wait on another context's event on the device: the host waits.
  porta::wait_for_queue(dev(), foreign);
  cl_int status = -1;
  ASSERT_EQ(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr), CL_SUCCESS);
  EXPECT_EQ(status, CL_COMPLETE);
  // And a foreign queue of another context waits for porta's work on the host as well.
  Array a = porta::random::uniform({1 << 16}, 0, 1, DType::float32, dev());
  Array b = porta::exp(a) * 2.0f;
  porta::queue_wait_for(foreign, b);
  EXPECT_TRUE(b.is_evaluated());
  clReleaseEvent(done);
  clReleaseMemObject(buf);
  clFinish(foreign);
  clReleaseCommandQueue(foreign);
  clReleaseContext(ctx);
}

TEST_P(Interop, ForeignQueueOfAnotherDeviceIsInvalidArgument) {
  if (dev().backend() != porta::Backend::opencl) GTEST_SKIP() << "OpenCL queues";
  Array a = porta::ones({4}, DType::float32, dev());
  for (const auto& other : porta::devices()) {
    if (other.backend() != porta::Backend::opencl || other == dev()) continue;
    if (porta::native::opencl_device(other) == porta::native::opencl_device(dev())) continue;
    std::string msg = thrown_message<porta::InvalidArgument>(
        [&] { porta::queue_wait_for(porta::native_queue(other), a); });
    EXPECT_NE(msg.find(dev().spec()), std::string::npos) << msg;
    return;
  }
  GTEST_SKIP() << "no OpenCL device other than " << dev().spec();
}
#endif

TEST_P(Interop, KokkosHasNothingToOrder) {
  if (dev().backend() != porta::Backend::kokkos) GTEST_SKIP() << "Kokkos";
  std::vector<double> x;
  Array a = random_array({100}, DType::float32, -1, 1, &x);
  Array b = a + 1.0f;
  porta::queue_wait_for(nullptr, b);  // evaluates; nothing is pending afterwards
  EXPECT_TRUE(b.is_evaluated());
  porta::NativeMemory m = porta::native_memory(b);
  ASSERT_NE(m.host, nullptr);
  // A write through the host pointer, ordered back with wait_for_queue, is what porta reads next.
  auto* p = static_cast<float*>(m.host);
  for (int i = 0; i < 100; ++i) p[i] = static_cast<float>(i);
  porta::wait_for_queue(b, nullptr);
  std::vector<float> got = (b * 2.0f).to_vector<float>();
  for (int i = 0; i < 100; ++i) EXPECT_EQ(got[static_cast<std::size_t>(i)], 2.0f * static_cast<float>(i));
}

// Host memory the test owns, aligned as drivers like it (PoCL uses CL_MEM_USE_HOST_PTR memory in

PORTA_INSTANTIATE_DEVICES(Interop);

}  // namespace
}  // namespace porta_test
