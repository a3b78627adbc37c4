/* What porta's two tensor-core GEMM kernels share (kernels/gemm_mma.cl, kernels/gemm_tc.cl):
   gemm_tensor.cpp builds each with this text before its own, which restarts the line count with
   #line 1, so that build logs give the kernel file's own line numbers. Embedded at build time as
   kGemmCommonSource (embed_kernel.cmake). */

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
