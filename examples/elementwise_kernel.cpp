// A user kernel over 1,000,000 elements (Python: Numba's @cuda.jit add kernel with
// i = threadIdx.x + blockIdx.x * blockDim.x and 1024 threads per block; CuPy's ElementwiseKernel).
// porta::ElementwiseKernel takes one body for every backend that compiles at run time (CUDA,
// OpenCL) and writes the index arithmetic, launch shape and bounds check itself. The Numba way,
// with the index and the launch written out, is a porta::RawKernel (source_module.cpp has more).
// On a device that compiles nothing at run time (Kokkos) the kernel throws BackendUnavailable;
// the program prints why and exits with 77, which CTest reports as skipped.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include <porta/porta.hpp>

constexpr const char* kCudaAdd = R"(
extern "C" __global__ void add(const float* x, const float* y, float* out, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < n) out[i] = x[i] + y[i];
}
)";
constexpr const char* kOpenCLAdd = R"(
__kernel void add(__global const float* x, __global const float* y, __global float* out, int n) {
  int i = get_local_id(0) + get_group_id(0) * get_local_size(0);
  if (i < n) out[i] = x[i] + y[i];
}
)";

bool same(const std::vector<float>& got, const std::vector<float>& x, const std::vector<float>& y, const char* what) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != x[i] + y[i]) {
      std::fprintf(stderr, "FAIL: %s: out[%zu] = %g, expected %g\n", what, i, got[i], x[i] + y[i]);
      return false;
    }
  return true;
}

int main() try {
  const porta::Device d = porta::default_device();
  std::printf("device %s (%s)\n", d.spec().c_str(), d.name().c_str());

  constexpr std::int32_t n = 1000000;
  porta::random::Generator gen(42);
  const porta::Array x = gen.uniform({n}, -1.0, 1.0, porta::DType::float32, d).eval();
  const porta::Array y = gen.uniform({n}, -1.0, 1.0, porta::DType::float32, d).eval();
  const auto xs = x.to_vector<float>(), ys = y.to_vector<float>();

  // CuPy's ElementwiseKernel: parameters, one body, porta chooses the launch.
  const porta::ElementwiseKernel add("float32 x, float32 y", "float32 out", "out = x + y", "add");
  porta::Array out;
  try {
    out = add({x, y});
  } catch (const porta::BackendUnavailable& e) {
    std::printf("skipped: %s\n", e.what());
    return 77;
  }
  if (!same(out.to_vector<float>(), xs, ys, "ElementwiseKernel add")) return 1;
  std::printf("ElementwiseKernel add: %d elements, out[0] = %g + %g = %g\n", n, xs[0], ys[0], out.to_vector<float>()[0]);

  // Numba's kernel as written: 1024 threads per block, enough blocks to cover n.
  const porta::RawKernel raw_add = d.backend() == porta::Backend::cuda ? porta::RawKernel(porta::Backend::cuda, kCudaAdd, "add")
                                                                       : porta::RawKernel(porta::Backend::opencl, kOpenCLAdd, "add");
  std::uint32_t threads_per_block = 1024;
  std::uint32_t blocks = (n + threads_per_block - 1) / threads_per_block;
  porta::Array raw_out = porta::empty({n}, porta::DType::float32, d);
  try {
    raw_add({blocks, 1, 1}, {threads_per_block, 1, 1}, {x, y, raw_out, n});
  } catch (const porta::InvalidArgument& e) {
    // A device may cap a kernel's work-group below 1024 (NVIDIA's OpenCL driver reported 256 for
    // this kernel on an H200): porta says so before launching, and a smaller block does the same.
    std::printf("1024 threads per block refused: %s\nrelaunching with 256\n", e.what());
    threads_per_block = 256;
    blocks = (n + threads_per_block - 1) / threads_per_block;
    raw_add({blocks, 1, 1}, {threads_per_block, 1, 1}, {x, y, raw_out, n});
  }
  if (!same(raw_out.to_vector<float>(), xs, ys, "RawKernel add")) return 1;
  std::printf("RawKernel add<<<%u, %u>>>: the same %d sums\n", blocks, threads_per_block, n);

  // Broadcasting and numbers, as CuPy: a (2, 5) matrix against a (5,) row, and against 5.
  const porta::ElementwiseKernel squared_diff("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "squared_diff");
  porta::Array m = porta::arange(0.0, 10.0, 1.0, porta::DType::float32, d).reshape({2, 5});
  porta::Array row = porta::arange(0.0, 5.0, 1.0, porta::DType::float32, d);
  const auto by_row = squared_diff({m, row}).to_vector<float>();
  const auto by_five = squared_diff({m, 5.0f}).to_vector<float>();
  std::printf("squared_diff(m, row) =");
  for (float v : by_row) std::printf(" %g", v);
  std::printf("\nsquared_diff(m, 5)   =");
  for (float v : by_five) std::printf(" %g", v);
  std::printf("\n");
  for (int i = 0; i < 10; ++i) {
    float a = float(i) - float(i % 5), b = float(i) - 5.0f;
    if (by_row[i] != a * a || by_five[i] != b * b) {
      std::fprintf(stderr, "FAIL: squared_diff at %d: %g and %g, expected %g and %g\n", i, by_row[i], by_five[i], a * a, b * b);
      return 1;
    }
  }
  std::printf("OK\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "FAIL: %s\n", e.what());
  return 1;
}
