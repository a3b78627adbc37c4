/* What porta's tensor-core GEMM kernels share (kernels/gemm_mma.cl, gemm_tc.cl, gemm_wg.cl):
   gemm/tensor.cpp builds each with this text before its own, which restarts the line count with
   #line 1, so that build logs give the kernel file's own line numbers. Embedded at build time as
   kGemmCommonSource (embed_kernel.cmake). */

/* The value of a float16 pattern, and a float rounded to bfloat16 (to nearest even; NaNs stay
   NaNs): for the emulations and the stores of the 16-bit types. */
inline float f16_value(uint h) {
  const uint s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return as_float(s | 0x7f800000u | (m << 13));
  if (e == 0) return as_float(s | as_uint((float)m * 0x1p-24f));
  return as_float(s | ((e + 112u) << 23) | (m << 13));
}
inline ushort to_bfloat16(float f) {
  const uint u = as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* Columns col and col + 1 of C's row `row` at p, from v0 and v1, each only inside M x N: the
   guarded edges' stores (ELEM 16: float16, 17: bfloat16, else the accumulator's type; SUBTRACT,
   float32 and float64 only: C -= the product, MatmulArgs::subtract). */
#if ELEM == 16
#define GEMM_STORE_ONE(p, i, v) vstore_half_rte((v), (i), (__global half*)(p))
#elif ELEM == 17
#define GEMM_STORE_ONE(p, i, v) ((p)[i] = to_bfloat16(v))
#elif SUBTRACT
#define GEMM_STORE_ONE(p, i, v) ((p)[i] -= (v))
#else
#define GEMM_STORE_ONE(p, i, v) ((p)[i] = (v))
#endif
#define GEMM_STORE_GUARDED(p, row, col, v0, v1) do { \
    if ((row) < M) { \
      if ((col) < N) GEMM_STORE_ONE((p), 0, (v0)); \
      if ((col) + 1 < N) GEMM_STORE_ONE((p), 1, (v1)); \
    } } while (0)

/* Blocks in groups of GEMM_GROUP_M block rows, which share the panels of B in L2. */
#define GEMM_GROUP_M 8

/* The work-item's place. The batch entry z (group dimension 1) moves A, B and C to its product;
   warp and lane, and the fragment coordinates g = lane / 4, t = lane % 4; the block's first row
   bm0 and column bn0 (work-groups along dimension 0 numbered down GEMM_GROUP_M block rows at a
   time) and the warp's first row wm0 and column wn0 inside the block. Needs BM, BN, WM, WN and the
   kernel's arguments M, N, A, a_off, stride_a, B, b_off, stride_b, C, c_off, stride_c. */
#define GEMM_PROLOGUE() \
  const long z = get_group_id(1); \
  A += a_off + z * stride_a; \
  B += b_off + z * stride_b; \
  C += c_off + z * stride_c; \
  const int tid = get_local_id(0); \
  const int warp = tid >> 5; \
  const int lane = tid & 31; \
  const int g = lane >> 2; \
  const int t = lane & 3; \
  const int blocks_m = (M + BM - 1) / BM, blocks_n = (N + BN - 1) / BN; \
  const int pid = get_group_id(0); \
  const int per_group = GEMM_GROUP_M * blocks_n; \
  const int first_m = (pid / per_group) * GEMM_GROUP_M; \
  const int group_rows = min(blocks_m - first_m, GEMM_GROUP_M); \
  const int bm0 = (first_m + (pid % per_group) % group_rows) * BM; \
  const int bn0 = ((pid % per_group) / group_rows) * BN; \
  const int wm0 = (warp / (BN / WN)) * WM; \
  const int wn0 = (warp % (BN / WN)) * WN
#line 1
