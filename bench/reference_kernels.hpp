// Hand-written kernels that porta's generated code is measured against, in each backend's own
// language, launched through porta::RawKernel. The launch shape follows GPU.md's note: one
// element per work-item on OpenCL CPU devices (PoCL runs a work-group as a vectorised loop),
// a float4 grid-stride loop on GPUs.
#pragma once

namespace porta_bench::reference {

// OpenCL C, one element per work-item, launched over exactly n work-items: no bounds test,
// which would keep PoCL from vectorising the work-group loop (3-4x slower on 2^24 floats).
inline constexpr const char* kOpenCLScalar = R"CL(
__kernel void ref_copy(__global const float* x, __global float* out) {
  const size_t i = get_global_id(0);
  out[i] = x[i];
}
__kernel void ref_add(__global const float* x, __global const float* y, __global float* out) {
  const size_t i = get_global_id(0);
  out[i] = x[i] + y[i];
}
__kernel void ref_saxpy(const float a, __global const float* x, __global const float* y, __global float* out) {
  const size_t i = get_global_id(0);
  out[i] = a * x[i] + y[i];
}
)CL";

// OpenCL C, float4 grid-stride loops over n4 = n / 4 vectors.
inline constexpr const char* kOpenCLVector = R"CL(
__kernel void ref_copy4(__global const float4* x, __global float4* out, const ulong n4) {
  for (size_t i = get_global_id(0); i < n4; i += get_global_size(0)) out[i] = x[i];
}
__kernel void ref_add4(__global const float4* x, __global const float4* y, __global float4* out, const ulong n4) {
  for (size_t i = get_global_id(0); i < n4; i += get_global_size(0)) out[i] = x[i] + y[i];
}
__kernel void ref_saxpy4(const float a, __global const float4* x, __global const float4* y, __global float4* out,
                         const ulong n4) {
  for (size_t i = get_global_id(0); i < n4; i += get_global_size(0)) out[i] = a * x[i] + y[i];
}
)CL";

// CUDA C++ for NVRTC, float4 grid-stride loops over n4 = n / 4 vectors.
inline constexpr const char* kCudaVector = R"CU(
typedef unsigned long long u64;
extern "C" __global__ void ref_copy4(const float4* __restrict__ x, float4* __restrict__ out, u64 n4) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n4; i += (u64)gridDim.x * blockDim.x) out[i] = x[i];
}
extern "C" __global__ void ref_add4(const float4* __restrict__ x, const float4* __restrict__ y,
                                    float4* __restrict__ out, u64 n4) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n4; i += (u64)gridDim.x * blockDim.x) {
    const float4 a = x[i], b = y[i];
    out[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  }
}
extern "C" __global__ void ref_saxpy4(float s, const float4* __restrict__ x, const float4* __restrict__ y,
                                      float4* __restrict__ out, u64 n4) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n4; i += (u64)gridDim.x * blockDim.x) {
    const float4 a = x[i], b = y[i];
    out[i] = make_float4(s * a.x + b.x, s * a.y + b.y, s * a.z + b.z, s * a.w + b.w);
  }
}
)CU";

}  // namespace porta_bench::reference
