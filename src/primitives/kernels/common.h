// What every primitive's kernel starts with (primitives::common_prelude), one section a dialect:
// i64, KERNEL (a kernel's qualifiers and return type), GLOBAL (a global pointer's address space),
// GID and GSIZE (the work-item's global index and the grid's size, 64-bit), CUDA's porta_u128. Embedded at build
// time; sections at the `//@ name` lines.
//@ cuda_names
typedef long long i64;
#define KERNEL extern "C" __global__ void
#define GLOBAL
#define GID (blockIdx.x * (long long)blockDim.x + threadIdx.x)
#define GSIZE ((long long)gridDim.x * blockDim.x)
// 16-byte elements (complex128) moved as their bits, as OpenCL's ulong2: .x, .y, and 0 converts
// to one (the kernels' `v = 0`, `(RT)0`); a trivial default constructor, for __shared__ arrays.
struct __align__(16) porta_u128 {
  unsigned long long x, y;
  porta_u128() = default;
  __device__ porta_u128(int z) : x((unsigned long long)z), y(0) {}
};
//@ opencl_names
typedef long i64;
#define KERNEL __kernel void
#define GLOBAL __global
#define GID ((long)get_global_id(0))
#define GSIZE ((long)get_global_size(0))
