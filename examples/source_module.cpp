// Kernel source compiled at run time with an explicit launch shape (Python: PyCUDA's
// SourceModule, mem_alloc, memcpy_htod, add(..., block=(4, 4, 1), grid=(3, 3))).
// porta::RawKernel takes the backend's own language: CUDA C++ on CUDA devices (NVRTC), OpenCL C
// on OpenCL devices. On a device that compiles nothing at run time (Kokkos) it says so and exits
// with 77, which CTest reports as skipped.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include <porta/porta.hpp>

// c[row][col] = a[row][col] + b[row][col] on an n x n matrix, one thread per element.
constexpr const char* kCudaSource = R"(
extern "C" __global__ void add(float* c, const float* a, const float* b, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < n && col < n) c[row * n + col] = a[row * n + col] + b[row * n + col];
}
)";

constexpr const char* kOpenCLSource = R"(
__kernel void add(__global float* c, __global const float* a, __global const float* b, int n) {
  int col = get_global_id(0);
  int row = get_global_id(1);
  if (row < n && col < n) c[row * n + col] = a[row * n + col] + b[row * n + col];
}
)";

int main() try {
  const porta::Device d = porta::default_device();
  std::printf("device %s (%s)\n", d.spec().c_str(), d.name().c_str());
  if (!d.compiles_at_runtime()) {
    // 77: CTest's "skipped" (SKIP_RETURN_CODE in examples/CMakeLists.txt).
    std::printf("skipped: RawKernel needs CUDA or OpenCL source compiled at run time, and %s compiles nothing at "
                "run time. Set PORTA_DEVICE to a cuda or opencl device.\n", d.spec().c_str());
    return 77;
  }
  const porta::RawKernel add = d.backend() == porta::Backend::cuda
                                   ? porta::RawKernel(porta::Backend::cuda, kCudaSource, "add")
                                   : porta::RawKernel(porta::Backend::opencl, kOpenCLSource, "add");

  int failed = 0;
  // PyCUDA's 4 x 4 example: one block of (4, 4, 1) threads. Then a 10 x 10 matrix, which needs a
  // (3, 3, 1) grid of such blocks and the kernel's bounds check.
  for (std::int32_t n : {4, 10}) {
    std::vector<float> a_host(n * n), b_host(n * n);
    for (int i = 0; i < n * n; ++i) {
      a_host[i] = float(i);
      b_host[i] = 0.5f * float(i % 7);
    }
    // memcpy_htod: from_host copies to the device. The output starts as -1 so a missed element shows.
    porta::Array a = porta::from_host(a_host, {n, n}, d);
    porta::Array b = porta::from_host(b_host, {n, n}, d);
    porta::Array c = porta::full({n, n}, -1.0, porta::DType::float32, d).eval();

    const porta::Dim3 block{4, 4, 1};
    const porta::Dim3 grid{(n + block.x - 1) / block.x, (n + block.y - 1) / block.y, 1};
    add(grid, block, {c, a, b, n});
    std::vector<float> out = c.to_vector<float>();  // memcpy_dtoh

    std::printf("add, grid (%u, %u, 1), block (4, 4, 1), %d x %d matrix; last row:", grid.x, grid.y, n, n);
    for (int col = 0; col < n; ++col) std::printf(" %g", out[(n - 1) * n + col]);
    std::printf("\n");
    for (int i = 0; i < n * n; ++i)
      if (out[i] != a_host[i] + b_host[i]) {
        std::fprintf(stderr, "FAIL: %d x %d: c[%d] = %g, expected %g\n", n, n, i, out[i], a_host[i] + b_host[i]);
        ++failed;
        break;
      }
  }
  if (failed) return 1;
  std::printf("OK\n");
  return 0;
} catch (const porta::CompileError& e) {
  std::fprintf(stderr, "FAIL: the kernel did not compile:\n%s\n", e.what());
  return 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "FAIL: %s\n", e.what());
  return 1;
}
