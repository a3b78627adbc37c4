// Interop (include/porta/interop.hpp): native handles of devices, queues and arrays, read and
// written by the test's own vendor calls; the ordering of porta's work with queues porta does not
// own (an OpenCL queue of the test's, in porta's cl_context and in a context of its own).
#include "test_common.hpp"

#include <porta/dlpack.hpp>
#include <porta/interop.hpp>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

#ifdef PORTA_TEST_OPENCL
#include <porta/native/opencl.hpp>
#endif
#ifdef PORTA_TEST_KOKKOS
#include <porta/native/kokkos.hpp>
#endif
#ifdef PORTA_TEST_CUDA
#include <porta/native/cuda.hpp>

#include "cuda_driver.hpp"
#endif

namespace porta_test {
namespace {

using Interop = DeviceTest;

// The host values of `a`'s elements as float32, read through its native handle on this thread's
// queue (the handle and the queue come from porta; the read is the test's own call).
std::vector<float> read_native(const Array& a) {
  porta::NativeMemory m = porta::native_memory(a);
  std::vector<float> out(static_cast<std::size_t>(a.size()));
  if (m.host) {
    std::memcpy(out.data(), m.host, out.size() * sizeof(float));
    return out;
  }
#ifdef PORTA_TEST_OPENCL
  if (a.device().backend() == porta::Backend::opencl) {
    cl_command_queue q = porta::native::opencl_queue(a.device());
    cl_int s = clEnqueueReadBuffer(q, static_cast<cl_mem>(m.handle), CL_TRUE, m.offset_bytes, out.size() * sizeof(float),
                                   out.data(), 0, nullptr, nullptr);
    EXPECT_EQ(s, CL_SUCCESS) << "clEnqueueReadBuffer";
    return out;
  }
#endif
#ifdef PORTA_TEST_CUDA
  if (a.device().backend() == porta::Backend::cuda) {
    const CudaDriver& cu = CudaDriver::get();
    porta::native::cuda_stream(a.device());  // porta's launches recorded so far are submitted
    porta::queue_wait_for(nullptr, a);
    EXPECT_EQ(cu.cuMemcpyDtoH(out.data(), porta::native::cuda_pointer(a), out.size() * sizeof(float)), CUDA_SUCCESS);
    return out;
  }
#endif
  ADD_FAILURE() << "no way to read " << a.device().spec() << " memory in this test";
  return out;
}

// Both arrays' element (0, 0, ...) is the same device memory.
bool same_memory(const Array& a, const Array& b) {
  porta::NativeMemory ma = porta::native_memory(a), mb = porta::native_memory(b);
  if (a.device().backend() == porta::Backend::opencl) return ma.handle == mb.handle && ma.offset_bytes == mb.offset_bytes;
  return static_cast<char*>(ma.handle) + ma.offset_bytes == static_cast<char*>(mb.handle) + mb.offset_bytes;
}

// v[i] = -v[i] for i < n, in the device's own kernel language.
porta::RawKernel negate_kernel(const Device& d) {
  if (d.backend() == porta::Backend::cuda)
    return porta::RawKernel(porta::Backend::cuda, R"(extern "C" __global__ void neg(float* v, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] = -v[i]; })", "neg");
  return porta::RawKernel(porta::Backend::opencl,
                          "__kernel void neg(__global float* v, int n) { int i = get_global_id(0); if (i < n) v[i] = -v[i]; }", "neg");
}

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
// place only when aligned), and counted releases.
struct HostBlock {
  float* data;
  explicit HostBlock(std::size_t n) : data(static_cast<float*>(std::aligned_alloc(4096, (n * sizeof(float) + 4095) / 4096 * 4096))) {}
  ~HostBlock() { std::free(data); }
};

// Host memory on devices whose memory is host memory (Kokkos, PoCL), wrapped in place.
bool host_memory_device(const Device& d) {
  return d.backend() == porta::Backend::kokkos || (d.backend() == porta::Backend::opencl && d.kind() == porta::DeviceKind::cpu);
}

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

// Reads element (i0, i1, ...) of a DLPack tensor's float32 data on the host, whatever its device
// (for views: the strides and offset a consumer would use).
std::vector<float> dl_elements(const DLTensor& t, const Device& d) {
  std::int64_t n = 1;
  for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
  std::vector<float> out(static_cast<std::size_t>(n));
  // The lowest and highest element addressed, for a read of the whole span.
  std::int64_t lo = 0, hi = 0;
  for (int i = 0; i < t.ndim; ++i) {
    std::int64_t r = (t.shape[i] - 1) * t.strides[i];
    (r < 0 ? lo : hi) += r;
  }
  std::vector<float> span(static_cast<std::size_t>(hi - lo + 1));
  std::size_t first = t.byte_offset + static_cast<std::size_t>(lo * 4);  // bytes from data (lo <= 0)
  if (t.device.device_type == kDLCPU) {
    std::memcpy(span.data(), static_cast<char*>(t.data) + static_cast<std::ptrdiff_t>(t.byte_offset) + lo * 4, span.size() * 4);
  } else if (t.device.device_type == kDLCUDA) {
#ifdef PORTA_TEST_CUDA
    EXPECT_EQ(CudaDriver::get().cuMemcpyDtoH(span.data(),
                                             reinterpret_cast<CUdeviceptr>(t.data) + t.byte_offset + static_cast<CUdeviceptr>(lo * 4),
                                             span.size() * 4),
              CUDA_SUCCESS);
#else
    ADD_FAILURE() << "cannot read " << d.spec();
#endif
  } else {
#ifdef PORTA_TEST_OPENCL
    EXPECT_EQ(t.device.device_type, kDLOpenCL);
    EXPECT_EQ(clEnqueueReadBuffer(porta::native::opencl_queue(d), static_cast<cl_mem>(t.data), CL_TRUE, first, span.size() * 4,
                                  span.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
#else
    ADD_FAILURE() << "cannot read " << d.spec();
#endif
  }
  (void)first;
  for (std::int64_t e = 0; e < n; ++e) {
    std::int64_t rem = e, at = -lo;
    for (int i = t.ndim; i-- > 0;) {
      at += (rem % t.shape[i]) * t.strides[i];
      rem /= t.shape[i];
    }
    out[static_cast<std::size_t>(e)] = span[static_cast<std::size_t>(at)];
  }
  return out;
}

std::atomic<int> g_deleted{0};
void (*g_porta_deleter)(DLManagedTensorVersioned*) = nullptr;
void counting_deleter(DLManagedTensorVersioned* t) {
  g_deleted++;
  g_porta_deleter(t);
}
// Counts the deleter calls of a tensor of porta's.
DLManagedTensorVersioned* counted(DLManagedTensorVersioned* t) {
  g_porta_deleter = t->deleter;
  t->deleter = &counting_deleter;
  return t;
}

TEST_P(Interop, DLPackRoundTripSharesMemoryAndDeletesOnce) {
  g_deleted = 0;
  const int n = 256;
  std::vector<double> x;
  Array a = random_array({n}, DType::float32, -3, 3, &x);
  DLManagedTensorVersioned* t = counted(porta::to_dlpack(a));
  EXPECT_EQ(t->version.major, 1u);
  EXPECT_EQ(t->flags, 0u);
  EXPECT_EQ(t->dl_tensor.ndim, 1);
  EXPECT_EQ(t->dl_tensor.shape[0], n);
  EXPECT_EQ(t->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(t->dl_tensor.dtype.bits, 32);
  DLDeviceType want_type = dev().backend() == porta::Backend::kokkos  ? kDLCPU
                           : dev().backend() == porta::Backend::cuda ? kDLCUDA
                                                                      : kDLOpenCL;
  EXPECT_EQ(t->dl_tensor.device.device_type, want_type);
  Array b = porta::from_dlpack(t, {dev(), nullptr});
  EXPECT_EQ(b.device(), dev());
  porta::NativeMemory mb = porta::native_memory(b);
  EXPECT_TRUE(same_memory(a, b)) << "zero-copy";
  // A write through one side is read on the other.
  if (dev().compiles_at_runtime()) {
    negate_kernel(dev())({4}, {64}, {b, n});
  } else {
    porta::queue_wait_for(nullptr, b);
    for (int i = 0; i < n; ++i) static_cast<float*>(mb.host)[i] = -static_cast<float*>(mb.host)[i];
    porta::wait_for_queue(b, nullptr);
  }
  std::vector<double> ref(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) ref[i] = -x[i];
  EXPECT_TRUE(array_matches(a, DType::float32, {n}, ref, {0, 0}));
  EXPECT_EQ(g_deleted.load(), 0);
  b = Array();
  EXPECT_EQ(g_deleted.load(), 1) << "the last porta array over the tensor is gone";
  EXPECT_TRUE(array_matches(a, DType::float32, {n}, ref, {0, 0})) << "a's buffer is a's own still";
}

TEST_P(Interop, DLPackViewsExportTheirStrides) {
  std::vector<double> x;
  Array a = random_array({6, 8}, DType::float32, -3, 3, &x);
  struct Case {
    Array view;
    std::vector<std::int64_t> strides;
  };
  std::vector<Case> cases = {
      {a.transpose(), {1, 8}},
      {a.slice({{1, 6, 2}, {std::nullopt, std::nullopt, -3}}), {16, -3}},
      {a.slice({{5, std::nullopt, -1}}).broadcast_to({2, 6, 8}), {0, -8, 1}},
  };
  for (auto& c : cases) {
    DLManagedTensorVersioned* t = porta::to_dlpack(c.view);
    ASSERT_EQ(t->dl_tensor.ndim, c.view.ndim());
    for (int i = 0; i < c.view.ndim(); ++i) {
      EXPECT_EQ(t->dl_tensor.shape[i], c.view.dim(i));
      EXPECT_EQ(t->dl_tensor.strides[i], c.strides[static_cast<std::size_t>(i)]) << "axis " << i;
    }
    bool zero_stride = c.strides[0] == 0;
    EXPECT_EQ((t->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0, zero_stride) << "aliased elements are read-only";
    std::vector<float> got = dl_elements(t->dl_tensor, dev());
    std::vector<float> want = c.view.contiguous().to_vector<float>();
    EXPECT_EQ(got, want);
    // And back: the import reads the same elements.
    EXPECT_EQ(porta::from_dlpack(t, {dev(), nullptr}).contiguous().to_vector<float>(), want);
  }
  // The legacy form carries the same layout.
  DLManagedTensor* legacy = porta::to_dlpack_legacy(cases[1].view);
  EXPECT_EQ(legacy->dl_tensor.strides[1], -3);
  EXPECT_EQ(dl_elements(legacy->dl_tensor, dev()), cases[1].view.contiguous().to_vector<float>());
  EXPECT_EQ(porta::from_dlpack(legacy, {dev(), nullptr}).contiguous().to_vector<float>(),
            cases[1].view.contiguous().to_vector<float>());
}

TEST_P(Interop, DLPackExportOutlivesTheArrayItsThreadAndItsPool) {
  g_deleted = 0;
  std::vector<double> x = random_values(1000, DType::float32, -2, 2);
  std::vector<float> xf(x.begin(), x.end());
  DLManagedTensorVersioned* t = nullptr;
  {
    porta::DevicePool pool({dev()}, 1);
    t = pool.submit([&](const Device& d) {
              Array a = porta::from_host(xf, {1000}, d) * 2.0f;
              return counted(porta::to_dlpack(a, {porta::native_queue(d), true}));
            }).get();
  }  // the worker, its queue and the array are gone
  for (int i = 0; i < 3; ++i) (void)porta::random::uniform({1 << 16}, 0, 1, DType::float32, dev()).eval();  // reuse freed memory
  std::vector<float> got = dl_elements(t->dl_tensor, dev());
  for (std::size_t i = 0; i < xf.size(); ++i) ASSERT_EQ(got[i], 2 * xf[i]) << i;
  // The consumer deletes it from a thread of its own.
  std::thread([t] { t->deleter(t); }).join();
  EXPECT_EQ(g_deleted.load(), 1);
}

TEST_P(Interop, DLPackToHostCopiesOnlyWhereNeeded) {
  std::vector<double> x;
  Array a = random_array({3, 4}, DType::float32, -3, 3, &x);
  porta::DLPackExport host;
  host.to_host = true;
  DLManagedTensorVersioned* t = porta::to_dlpack(a.transpose(), host);
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCPU);
  bool in_place = porta::native_memory(a).host != nullptr;
  EXPECT_EQ((t->flags & DLPACK_FLAG_BITMASK_IS_COPIED) != 0, !in_place);
  EXPECT_EQ(dl_elements(t->dl_tensor, dev()), a.transpose().contiguous().to_vector<float>());
  t->deleter(t);
}

// A tensor of the test's own over host memory, with a counted deleter.
struct HostTensor {
  static inline std::atomic<int> deleted{0};
  std::vector<float> data = std::vector<float>(64, 1.5f);
  std::vector<std::int64_t> shape{4, 4}, strides{4, 1};
  DLManagedTensorVersioned m{};
  HostTensor() {
    m.version = {1, 0};
    m.manager_ctx = this;
    m.deleter = [](DLManagedTensorVersioned*) { deleted++; };
    m.dl_tensor.data = data.data();
    m.dl_tensor.device = {kDLCPU, 0};
    m.dl_tensor.ndim = 2;
    m.dl_tensor.dtype = {kDLFloat, 32, 1};
    m.dl_tensor.shape = shape.data();
    m.dl_tensor.strides = strides.data();
  }
};

TEST_P(Interop, DLPackImportOfBadTensorsIsATypedErrorAndStillDeletes) {
  if (!host_memory_device(dev())) GTEST_SKIP() << dev().spec() << " does not use host memory in place";
  porta::DLPackImport on{dev(), nullptr};
  EXPECT_THROW(porta::from_dlpack(static_cast<DLManagedTensorVersioned*>(nullptr), on), porta::InvalidArgument);
  EXPECT_THROW(porta::from_dlpack(static_cast<DLManagedTensor*>(nullptr), on), porta::InvalidArgument);
  HostTensor::deleted = 0;
  int expected = 0;
  auto refused = [&](auto&& change, auto tag, const char* needle) {
    using E = decltype(tag);
    HostTensor h;
    change(h);
    std::string msg = thrown_message<E>([&] { (void)porta::from_dlpack(&h.m, on); });
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    EXPECT_EQ(HostTensor::deleted.load(), ++expected) << "the deleter ran for: " << msg;
  };
  refused([](HostTensor& h) { h.m.version.major = 2; }, porta::InvalidArgument{""}, "2.0");
  refused([](HostTensor& h) { h.m.dl_tensor.device = {kDLVulkan, 0}; }, porta::DeviceError{""}, "device type 7");
  refused([](HostTensor& h) { h.m.dl_tensor.device = {kDLCUDA, 99}; }, porta::DeviceError{""}, "cuda:99");
  refused([](HostTensor& h) { h.m.dl_tensor.device = {kDLOpenCL, 99}; }, porta::DeviceError{""}, "opencl:99");
  refused([](HostTensor& h) { h.m.dl_tensor.dtype = {kDLUInt, 8, 1}; }, porta::DTypeError{""}, "code 1 (kDLUInt), bits 8, lanes 1");
  refused([](HostTensor& h) { h.m.dl_tensor.dtype = {kDLFloat, 32, 4}; }, porta::DTypeError{""}, "lanes 4");
  refused([](HostTensor& h) { h.m.dl_tensor.data = reinterpret_cast<char*>(h.data.data()) + 2; }, porta::InvalidArgument{""},
          "aligned");
  refused([](HostTensor& h) { h.shape = {std::int64_t{1} << 61, 4}; }, porta::InvalidArgument{""}, "reach");
  refused([](HostTensor& h) { h.m.dl_tensor.data = nullptr; }, porta::InvalidArgument{""}, "null");
  refused([](HostTensor& h) { h.m.dl_tensor.shape = nullptr; }, porta::InvalidArgument{""}, "shape is null");
  // Good ones (host memory, pinned CUDA host memory as NumPy and CuPy label them): zero-copy, with
  // byte_offset and negative strides, deleted once when the last array goes, on another thread.
  for (DLDeviceType type : {kDLCPU, kDLCUDAHost}) {
    HostTensor h;
    for (int i = 0; i < 64; ++i) h.data[static_cast<std::size_t>(i)] = static_cast<float>(i);
    h.m.dl_tensor.device = {type, 0};
    h.strides = {-4, 2};
    h.shape = {3, 2};
    h.m.dl_tensor.byte_offset = 12 * sizeof(float);
    Array a = porta::from_dlpack(&h.m, on);
    EXPECT_EQ(porta::native_memory(a).host, h.data.data() + 12) << "zero-copy";
    EXPECT_EQ(a.contiguous().to_vector<float>(), (std::vector<float>{12, 14, 8, 10, 4, 6}));
    EXPECT_EQ(HostTensor::deleted.load(), expected);
    std::thread([b = std::move(a)]() mutable {
      EXPECT_EQ(porta::sum(b).item<float>(), 54.0f);
      b = Array();
    }).join();
    EXPECT_EQ(HostTensor::deleted.load(), ++expected);
  }
}

#ifdef PORTA_TEST_KOKKOS
TEST_P(Interop, KokkosViewsAndPortaArraysShareMemory) {
  if (dev().backend() != porta::Backend::kokkos) GTEST_SKIP() << "Kokkos Views";
  std::vector<double> x;
  Array a = random_array({5, 6}, DType::float64, -3, 3, &x);
  Array t = a.transpose();  // strides (1, 6)
  auto v = porta::native::kokkos_view<double**>(t);
  ASSERT_EQ(v.extent(0), 6u);
  ASSERT_EQ(v.extent(1), 5u);
  EXPECT_EQ(v.stride(0), 1u);
  EXPECT_EQ(v.stride(1), 6u);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 5; ++j) ASSERT_EQ(v(i, j), x[static_cast<std::size_t>(j * 6 + i)]);
  // A Kokkos kernel writes; porta reads.
  Kokkos::parallel_for("interop_test", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, 6),
                       [=](int i) { v(i, 0) = 100.0 + i; });
  Kokkos::fence();
  porta::wait_for_queue(t, nullptr);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(a[0][i].item<double>(), 100.0 + i);
  EXPECT_THROW(porta::native::kokkos_view<float**>(t), porta::DTypeError);
  EXPECT_THROW(porta::native::kokkos_view<double*>(t), porta::InvalidArgument);
  EXPECT_THROW(porta::native::kokkos_view<double*>(a[0].slice({{std::nullopt, std::nullopt, -1}})), porta::InvalidArgument);

  // A managed View as a porta array: the View's memory lives while the array does.
  Array w;
  {
    Kokkos::View<float**, Kokkos::HostSpace> managed("porta_interop_test", 3, 4);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) managed(i, j) = static_cast<float>(10 * i + j);
    w = porta::native::from_kokkos_view(managed, dev());
    EXPECT_EQ(porta::native_memory(w).host, managed.data());
  }
  EXPECT_EQ(porta::sum(w).item<float>(), 4 * (0 + 10 + 20) + 3 * (0 + 1 + 2 + 3));
  EXPECT_EQ(w.transpose()[3][2].item<float>(), 23.0f);
}
#endif

#ifdef PORTA_TEST_CUDA
// A kernel of the test's own: spins for `cycles` clock cycles (tens of milliseconds, so that an
// unordered read by porta would see the old values), then v[i] = 3 v[i] + 1.
constexpr const char* kCudaSlowTriple = R"(
extern "C" __global__ void slow_triple(float* v, int n, long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = 3.0f * v[i] + 1.0f;
}
)";

struct CudaTestKernel {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  std::string error;
  explicit CudaTestKernel(const Device& d) {
    const CudaDriver& cu = CudaDriver::get();
    CUdevice dev = porta::native::cuda_device(d);
    int major = 0, minor = 0;
    cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    std::string ptx = nvrtc_ptx(kCudaSlowTriple, major, minor, &error);
    if (ptx.empty()) return;
    if (cu.cuModuleLoadData(&module, ptx.c_str()) != CUDA_SUCCESS) error = "cuModuleLoadData failed";
    else if (cu.cuModuleGetFunction(&function, module, "slow_triple") != CUDA_SUCCESS) error = "cuModuleGetFunction failed";
  }
  ~CudaTestKernel() {
    if (module) CudaDriver::get().cuModuleUnload(module);
  }
  CUresult launch(CUstream s, CUdeviceptr v, int n, long long cycles) const {
    void* params[] = {&v, &n, &cycles};
    return CudaDriver::get().cuLaunchKernel(function, static_cast<unsigned>((n + 255) / 256), 1, 1, 256, 1, 1, 0, s, params,
                                            nullptr);
  }
};

#define PORTA_REQUIRE_CUDA_DRIVER()                                                                          \
  do {                                                                                                       \
    if (dev().backend() != porta::Backend::cuda) GTEST_SKIP() << dev().spec() << " is not a CUDA device";     \
    ASSERT_TRUE(CudaDriver::get().loaded) << "libcuda.so.1 lacks a function the test uses";                  \
    ASSERT_EQ(CudaDriver::get().cuCtxSetCurrent(porta::native::cuda_context(dev())), CUDA_SUCCESS);          \
  } while (0)

TEST_P(Interop, CudaKernelOnAForeignStreamIsOrderedBothWaysThroughDLPack) {
  PORTA_REQUIRE_CUDA_DRIVER();
  const CudaDriver& cu = CudaDriver::get();
  CudaTestKernel k(dev());
  ASSERT_TRUE(k.function) << k.error;
  CUstream foreign = nullptr;
  ASSERT_EQ(cu.cuStreamCreate(&foreign, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  const int n = 1 << 16;
  std::vector<double> x;
  Array xs = random_array({n}, DType::float32, -2, 2, &x);
  Array a = xs * 2.0f + 1.0f;  // lazy: porta writes it on its stream at export
  porta::DLPackExport out;
  out.consumer_queue = foreign;
  DLManagedTensorVersioned* t = porta::to_dlpack(a, out);
  ASSERT_EQ(t->dl_tensor.device.device_type, kDLCUDA);
  EXPECT_EQ(reinterpret_cast<CUdeviceptr>(t->dl_tensor.data), porta::native::cuda_pointer(a)) << "zero-copy";
  // About 50 ms at 2 GHz: porta's read would overtake it if it were not ordered after it.
  ASSERT_EQ(k.launch(foreign, reinterpret_cast<CUdeviceptr>(t->dl_tensor.data), n, 100'000'000LL), CUDA_SUCCESS);
  porta::DLPackImport in;
  in.producer_queue = foreign;
  Array b = porta::from_dlpack(t, in);
  EXPECT_EQ(cu.cuStreamQuery(foreign), CUDA_ERROR_NOT_READY) << "the import did not wait on the host";
  EXPECT_TRUE(same_memory(a, b));
  std::vector<double> ref(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) ref[i] = 3 * (2 * x[i] + 1) + 1;
  EXPECT_TRUE(array_matches(b, DType::float32, {n}, ref, {1e-6, 1e-6}));
  // Another thread's queue is ordered after the foreign kernel too.
  std::vector<float> other;
  std::thread([&] { other = (b + 0.0f).to_vector<float>(); }).join();
  for (std::size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(other[i], ref[i], 1e-5 * (1 + std::abs(ref[i]))) << i;
  b = Array();
  EXPECT_EQ(cu.cuStreamSynchronize(foreign), CUDA_SUCCESS);
  EXPECT_EQ(cu.cuStreamDestroy(foreign), CUDA_SUCCESS);
}

TEST_P(Interop, CudaStreamWaitsForPorta) {
  PORTA_REQUIRE_CUDA_DRIVER();
  const CudaDriver& cu = CudaDriver::get();
  CudaTestKernel k(dev());
  ASSERT_TRUE(k.function) << k.error;
  CUstream foreign = nullptr;
  ASSERT_EQ(cu.cuStreamCreate(&foreign, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  // porta's own slow work first (the kernel on porta's stream, through its native handle), then
  // its write of b, then the foreign read of b: the foreign stream must wait for both.
  const int n = 4096;
  std::vector<double> x;
  Array a = random_array({n}, DType::float32, -2, 2, &x);
  Array b = a.copy();
  ASSERT_EQ(k.launch(porta::native::cuda_stream(dev()), porta::native::cuda_pointer(b), n, 100'000'000LL), CUDA_SUCCESS);
  porta::wait_for_queue(b, porta::native::cuda_stream(dev()));  // porta's later work on b after it (same queue: free)
  porta::native::stream_wait_for(foreign, b);
  ASSERT_EQ(k.launch(foreign, porta::native::cuda_pointer(b), n, 0), CUDA_SUCCESS);  // 3 v + 1 again, after porta's
  ASSERT_EQ(cu.cuStreamSynchronize(foreign), CUDA_SUCCESS);
  std::vector<float> got(n);
  ASSERT_EQ(cu.cuMemcpyDtoH(got.data(), porta::native::cuda_pointer(b), n * sizeof(float)), CUDA_SUCCESS);
  for (int i = 0; i < n; ++i) {
    double want = 3 * (3 * x[static_cast<std::size_t>(i)] + 1) + 1;
    ASSERT_NEAR(got[static_cast<std::size_t>(i)], want, 1e-4) << i;
  }
  cu.cuStreamDestroy(foreign);
}

TEST_P(Interop, CudaWrappedDeviceMemoryIsCheckedSharedAndReleasedOnce) {
  PORTA_REQUIRE_CUDA_DRIVER();
  const CudaDriver& cu = CudaDriver::get();
  const int n = 1000;
  std::vector<double> x = random_values(n, DType::float32, -4, 4);
  std::vector<float> xf(x.begin(), x.end());
  CUdeviceptr p = 0;
  ASSERT_EQ(cu.cuMemAlloc(&p, n * sizeof(float)), CUDA_SUCCESS);
  ASSERT_EQ(cu.cuMemcpyHtoD(p, xf.data(), n * sizeof(float)), CUDA_SUCCESS);
  std::atomic<int> released{0};
  void* ptr = reinterpret_cast<void*>(p);
  {
    // Every other element from the 4th, as a view porta does not own.
    Array a = porta::wrap_memory({ptr, porta::MemoryKind::device, 0}, DType::float32, {400}, {2}, 4 * sizeof(float), dev(),
                                 [&] {
                                   released++;
                                   CudaDriver::get().cuMemFree(p);
                                 });
    EXPECT_EQ(porta::native::cuda_pointer(a), p + 4 * sizeof(float));
    double sum = 0;
    for (int i = 0; i < 400; ++i) sum += xf[static_cast<std::size_t>(4 + 2 * i)];
    EXPECT_NEAR(porta::sum(a.astype(DType::float64)).item<double>(), sum, 1e-9);
    // Beyond the allocation, and a host address as device memory, are refused (nothing released).
    std::string msg = thrown_message<porta::InvalidArgument>(
        [&] { porta::wrap_memory({ptr, porta::MemoryKind::device, 0}, DType::float32, {n + 1}, {}, 0, dev(), {}); });
    EXPECT_NE(msg.find("past the end"), std::string::npos) << msg;
    msg = thrown_message<porta::InvalidArgument>(
        [&] { porta::wrap_memory({xf.data(), porta::MemoryKind::device, 0}, DType::float32, {4}, {}, 0, dev(), {}); });
    // Unknown to the driver, or (with HMM) host memory: either way not memory of this device.
    EXPECT_NE(msg.find(dev().spec()), std::string::npos) << msg;
    EXPECT_EQ(released.load(), 0);
  }
  EXPECT_EQ(released.load(), 1);
}
#endif

PORTA_INSTANTIATE_DEVICES(Interop);

}  // namespace
}  // namespace porta_test
