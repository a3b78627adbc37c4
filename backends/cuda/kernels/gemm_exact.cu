/* porta's exact integer GEMM on CUDA devices (cuBLAS has no general integer GEMM): blas.cpp
   compiles it once per dtype with -DELEM_CODE=<DType's number>, embedded as kGemmExactSource.

   Row-major C[m x n] = op(A) op(B) per batch (blockIdx.z), wrapping modulo 2^bits as NumPy's:
   products and sums in unsigned 32-bit (64-bit for int64/uint64), whose low bits are those of the
   two's-complement result, then truncated into C. A 64 x 64 block of C per 256 threads, 4 x 4 per
   thread (rows ty + 16 r, columns tx + 16 c: a warp's shared reads are consecutive), k in slices
   of 16 through shared memory; every load is bounds-checked, so any shape, stride and transpose
   runs. Correct first: int8 tensor cores (IMMA) are the later optimization. */
#if ELEM_CODE == 7
typedef signed char elem;
#elif ELEM_CODE == 8
typedef short elem;
#elif ELEM_CODE == 9
typedef unsigned char elem;
#elif ELEM_CODE == 10
typedef unsigned short elem;
#elif ELEM_CODE == 11
typedef unsigned int elem;
#elif ELEM_CODE == 12
typedef unsigned long long elem;
#elif ELEM_CODE == 1
typedef int elem;
#elif ELEM_CODE == 2
typedef long long elem;
#else
#error "ELEM_CODE names no integer dtype"
#endif
#if ELEM_CODE == 2 || ELEM_CODE == 12
typedef unsigned long long acc_t;
#else
typedef unsigned int acc_t;
#endif

#define TM 64
#define TN 64
#define TK 16

extern "C" __global__ void __launch_bounds__(256)
porta_gemm_exact(const int m, const int n, const int k, const int trans_a, const int trans_b,
                 const elem* __restrict__ A, const long long lda, const long long stride_a,
                 const elem* __restrict__ B, const long long ldb, const long long stride_b,
                 elem* __restrict__ C, const long long ldc, const long long stride_c) {
  __shared__ acc_t As[TK][TM + 1];
  __shared__ acc_t Bs[TK][TN + 1];
  const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
  const long long z = blockIdx.z;
  A += z * stride_a;
  B += z * stride_b;
  C += z * stride_c;
  const int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;
  /* op(A)(i, p) = A[i * as_i + p * as_p]; op(B)(p, j) = B[p * bs_p + j * bs_j] */
  const long long as_i = trans_a ? 1 : lda, as_p = trans_a ? lda : 1;
  const long long bs_p = trans_b ? 1 : ldb, bs_j = trans_b ? ldb : 1;
  acc_t acc[4][4];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int c = 0; c < 4; ++c) acc[r][c] = 0;
  for (int t = 0; t < k; t += TK) {
    /* Consecutive threads read consecutive elements of each operand's contiguous axis. */
#pragma unroll
    for (int s = 0; s < TM * TK / 256; ++s) {
      const int l = tid + s * 256;
      const int i = trans_a ? l % TM : l / TK, p = trans_a ? l / TM : l % TK;
      const int gi = row0 + i, gp = t + p;
      As[p][i] = (gi < m && gp < k) ? (acc_t)A[gi * as_i + gp * as_p] : (acc_t)0;
    }
#pragma unroll
    for (int s = 0; s < TN * TK / 256; ++s) {
      const int l = tid + s * 256;
      const int j = trans_b ? l / TK : l % TN, p = trans_b ? l % TK : l / TN;
      const int gj = col0 + j, gp = t + p;
      Bs[p][j] = (gj < n && gp < k) ? (acc_t)B[gp * bs_p + gj * bs_j] : (acc_t)0;
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < TK; ++p) {
      acc_t a[4], b[4];
#pragma unroll
      for (int r = 0; r < 4; ++r) a[r] = As[p][ty + 16 * r];
#pragma unroll
      for (int c = 0; c < 4; ++c) b[c] = Bs[p][tx + 16 * c];
#pragma unroll
      for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[r][c] += a[r] * b[c];
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int gi = row0 + ty + 16 * r;
    if (gi >= m) break;
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      const int gj = col0 + tx + 16 * c;
      if (gj < n) C[gi * ldc + gj] = (elem)acc[r][c];
    }
  }
}
