// Interop with the test's own CUDA driver calls (built where the CUDA backend is): a kernel on a
// foreign stream ordered both ways through DLPack, a stream waiting for porta's work, device
// memory of the test's wrapped, checked and released once. Runs only on cuda devices.
#include "interop_common.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>

namespace porta_test {
namespace {

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
