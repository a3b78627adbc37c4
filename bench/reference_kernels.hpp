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

// FMA chains for the FLOP ceiling: independent chains a work-item, `iters` steps each, summed
// into one output so that nothing is dead code. a and b are arguments, so nothing folds at
// compile time. -DPORTA_F64 makes it double. OpenCL: twelve float8 chains (explicit vectors,
// because PoCL does not vectorise across work-items a kernel with a loop inside; twelve, because
// eight left a 2-core AVX2 PoCL device latency-bound at 54 GFLOP/s where twelve reach 83),
// 192 * iters flops a work-item. CUDA: eight scalar chains (occupancy hides the rest of the
// latency), 16 * iters flops a thread.
inline constexpr const char* kOpenCLFma = R"CL(
#ifdef PORTA_F64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double8 real8;
#else
typedef float real;
typedef float8 real8;
#endif
__kernel void fma_chain(__global real* out, const real a, const real b, const int iters) {
  const size_t i = get_global_id(0);
  const real8 base = (real8)((real)(i & 1023) * (real)1e-4);
  real8 x0 = base, x1 = base + (real)1, x2 = base + (real)2, x3 = base + (real)3;
  real8 x4 = base + (real)4, x5 = base + (real)5, x6 = base + (real)6, x7 = base + (real)7;
  real8 x8 = base + (real)8, x9 = base + (real)9, xa = base + (real)10, xb = base + (real)11;
  for (int k = 0; k < iters; ++k) {
    x0 = mad(x0, a, b); x1 = mad(x1, a, b); x2 = mad(x2, a, b); x3 = mad(x3, a, b);
    x4 = mad(x4, a, b); x5 = mad(x5, a, b); x6 = mad(x6, a, b); x7 = mad(x7, a, b);
    x8 = mad(x8, a, b); x9 = mad(x9, a, b); xa = mad(xa, a, b); xb = mad(xb, a, b);
  }
  const real8 s = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7)) + ((x8 + x9) + (xa + xb));
  out[i] = ((s.s0 + s.s1) + (s.s2 + s.s3)) + ((s.s4 + s.s5) + (s.s6 + s.s7));
}
)CL";
inline constexpr int kOpenCLFmaFlopsPerStep = 192;

inline constexpr const char* kCudaFma = R"CU(
#ifdef PORTA_F64
typedef double real;
#define PORTA_FMA fma
#else
typedef float real;
#define PORTA_FMA fmaf
#endif
extern "C" __global__ void fma_chain(real* out, real a, real b, int iters) {
  const unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  const real base = (real)(i & 1023) * (real)1e-4;
  real x[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) x[j] = base + (real)j;
  for (int k = 0; k < iters; ++k) {
#pragma unroll
    for (int j = 0; j < 8; ++j) x[j] = PORTA_FMA(x[j], a, b);
  }
  out[i] = ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7]));
}
)CU";
inline constexpr int kCudaFmaFlopsPerStep = 16;

}  // namespace porta_bench::reference
