// CUDA's half of the scans' tile descriptors (scan.cl has OpenCL's): a tile's state and value in
// one 16-byte word, stored and loaded as one relaxed gpu-scope vector access. Embedded at build
// time; sections at the `//@ name` lines (primitives/scan.cpp's descriptor_defs).
//@ descriptor_cuda
typedef unsigned long long u64;
#define DESC_PTR u64*
__device__ __forceinline__ void desc_store(u64* p, u64 s, u64 v) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" :: "l"(p), "l"(s), "l"(v) : "memory");
}
__device__ __forceinline__ void desc_load(const u64* p, u64* s, u64* v) {
  u64 a, b;
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
  *s = a; *v = b;
}
#define DESC_STORE(i, s, v) { u64 b_ = (v); desc_store(desc + 2 * (i), TAG(b_) | (u64)(s), b_); }
#define DESC_LOAD(i, s, v) { u64 w_; desc_load(desc + 2 * (i), &w_, &(v)); (s) = STATE_OF(w_, v); }
