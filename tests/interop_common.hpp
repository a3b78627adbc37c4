// What the interop tests share (interop_{native,memory,dlpack,cuda}_test.cpp): the vendor headers
// of the backends this build has, reading an array through its native handle with the test's own
// vendor calls, a kernel in each device's language, reading a DLPack tensor, counting deleters.
#pragma once

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

using Interop = DeviceTest;

// The host values of `a`'s elements as float32, read through its native handle on this thread's
// queue (the handle and the queue come from porta; the read is the test's own call).
inline std::vector<float> read_native(const Array& a) {
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
inline bool same_memory(const Array& a, const Array& b) {
  porta::NativeMemory ma = porta::native_memory(a), mb = porta::native_memory(b);
  if (a.device().backend() == porta::Backend::opencl) return ma.handle == mb.handle && ma.offset_bytes == mb.offset_bytes;
  return static_cast<char*>(ma.handle) + ma.offset_bytes == static_cast<char*>(mb.handle) + mb.offset_bytes;
}

// v[i] = -v[i] for i < n, in the device's own kernel language.
inline porta::RawKernel negate_kernel(const Device& d) {
  if (d.backend() == porta::Backend::cuda)
    return porta::RawKernel(porta::Backend::cuda, R"(extern "C" __global__ void neg(float* v, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] = -v[i]; })", "neg");
  return porta::RawKernel(porta::Backend::opencl,
                          "__kernel void neg(__global float* v, int n) { int i = get_global_id(0); if (i < n) v[i] = -v[i]; }", "neg");
}

// Reads element (i0, i1, ...) of a DLPack tensor's float32 data on the host, whatever its device
// (for views: the strides and offset a consumer would use).
inline std::vector<float> dl_elements(const DLTensor& t, const Device& d) {
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

inline std::atomic<int> g_deleted{0};
inline void (*g_porta_deleter)(DLManagedTensorVersioned*) = nullptr;
inline void counting_deleter(DLManagedTensorVersioned* t) {
  g_deleted++;
  g_porta_deleter(t);
}
// Counts the deleter calls of a tensor of porta's.
inline DLManagedTensorVersioned* counted(DLManagedTensorVersioned* t) {
  g_porta_deleter = t->deleter;
  t->deleter = &counting_deleter;
  return t;
}

// Host memory on devices whose memory is host memory (Kokkos, PoCL), wrapped in place.
inline bool host_memory_device(const Device& d) {
  return d.backend() == porta::Backend::kokkos || (d.backend() == porta::Backend::opencl && d.kind() == porta::DeviceKind::cpu);
}

}  // namespace porta_test
