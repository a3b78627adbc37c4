/* porta's GEMM on NVIDIA's tensor cores through OpenCL for float16, bfloat16, float32 as TF32 and
   float64 (gemm/tc.hpp says how it is built and where it runs); embedded into the plugin at build
   time as kTcSource (embed_kernel.cmake).

   Row-major C = op(A) op(B) per batch (group dimension 1), op(A) M x K, op(B) K x N, C M x N. A
   work-group computes a BM x BN block of C with (BM / WM) x (BN / WN) warps, each a WM x WN tile
   held as 16 x 8 MMA tiles in registers. BK-deep slices of A and B are double-buffered in local
   memory, the next one loaded into registers during the MMAs of the current one (OpenCL C has no
   asynchronous copy into local memory that overlaps compute; STAGES below uses PTX's), so there is
   one barrier per slice.

   The instruction (PTX ISA, "Matrix Fragments for mma.m16n8k16 / m16n8k8"), lane = 4 g + t:
     ELEM 16, 17  m16n8k16 .f32.f16.f16.f32 / .bf16: registers hold two 16-bit values, k and k + 1;
     ELEM 32      m16n8k8 .f32.tf32.tf32.f32 (the inputs rounded to TF32 as they reach local memory);
     ELEM 64      m16n8k8 .f64 (sm_90), whose fragments are laid out as TF32's.
   With KE elements a register (2 or 1) and MMA_K = 16 or 8:
     A register i < 4 at row g + 8 (i % 2), k KE t + (MMA_K / 2) (i / 2) (and the next k when KE = 2);
     B register j < 2 at k KE t + (MMA_K / 2) j (and the next), column g;
     C element c < 4  at row g + 8 (c / 2), column 2 t + c % 2.

   Local tiles, row-major with PAD elements (16 bytes; 32 for float64) of padding per row, so that
   the eight rows g of a fragment read fall on different banks (PAD_B: 32 bytes for TF32's B):
     As [BM][BK + PAD], Bs [BK][BN + PAD_B];
   or, with SWZ, without padding and with the 16-byte chunks of each row permuted (AIX, BIX below).
   With LDSM (16-bit types) the fragments come from ldmatrix: .x4 for an A tile (lanes 0-15 give
   rows 0-15 at k 0, lanes 16-31 the same rows at k 8) and .x4.trans for two B tiles (lanes give
   k rows 0-15 of columns 8 (lane / 16) onwards); without it, from 32-bit and 16-bit local reads.
   For TF32, LDSM takes A's fragments by the same .x4 (an 8 x 8 matrix of b16 is 8 rows of four
   32-bit values, lane 4 g + t receiving (g, t): TF32's A layout; lanes 16-31 point at k 4), and B's
   come from 32-bit reads (ldmatrix's .trans moves 16-bit values).

   Two variants of the loads and stores (FAST):
     1  every dimension a multiple of the tile, neither operand transposed, leading dimensions,
        offsets and batch strides multiples of 16 bytes: 16-byte global loads and wide stores;
     0  any shape: element loads through a (row, column) stride pair per operand, so one kernel
        serves the four transpose combinations, with zeros past the edges and guarded stores.

   With STAGES = S (2 to 4, fast variant) the slices travel from global to local memory by cp.async
   (inline PTX, 16 bytes each, bypassing the registers) S - 1 slices ahead of the MMAs, CUTLASS's
   multistage pipeline; without it, through registers one slice ahead. TF32 inputs then reach
   local memory as float32 and are rounded (cvt.rna) as each fragment is read.

   With MMA_EMULATE the instruction and ldmatrix are replaced by their reference semantics
   (gemm_mma.cl's scheme): each MMA puts its fragments where the layouts above say in its warp's
   copy of the slice, and after the slice's barrier every lane adds the products to its
   accumulators; ldmatrix reads what the lane it takes each row from would have pointed at; cp.async
   is a plain copy (so the emulation checks the stages' indexing, not the wait counts). That
   runs on any OpenCL device (PoCL in CI), so every index of the kernel is tested without the GPU. */
#if ELEM == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#if ELEM == 16 || ELEM == 17
typedef ushort gt; /* the 16-bit pattern in global and local memory */
typedef uint ft;   /* a fragment register: two of them */
typedef float acc_t;
#define MMA_K 16
#define KE 2
#define VEC 8
#define PAD 8
#elif ELEM == 32
typedef float gt;
typedef uint ft;
typedef float acc_t;
#define MMA_K 8
#define KE 1
#define VEC 4
#define PAD 4
#elif ELEM == 64
typedef double gt;
typedef double ft;
typedef double acc_t;
#define MMA_K 8
#define KE 1
#define VEC 2
#define PAD 4
#else
#error "ELEM is 16 (float16), 17 (bfloat16), 32 (TF32) or 64 (float64)"
#endif
#ifndef LDSM
#define LDSM 0
#endif
#ifndef SWZ
#define SWZ 0
#endif
/* B's rows: TF32's B fragments are 32-bit reads of four k rows by eight columns, on 32 banks
   only when rows are 8 words apart modulo 32 (4: two-way conflicts). */
#if SWZ
#undef PAD
#define PAD 0
#define PAD_B 0
#elif ELEM == 32
#define PAD_B 8
#else
#define PAD_B PAD
#endif
#ifndef STAGES
#define STAGES 0
#endif
#if STAGES && (!FAST || STAGES < 2 || STAGES > 4)
#error "cp.async stages (2 to 4) serve the fast variant"
#endif
#define NSTAGE (STAGES ? STAGES : 2)
#define STR2(x) #x
#define STR(x) STR2(x)
#ifndef MMA_EMULATE
#define LOCAL_ADDRESS(p) ((uint)(size_t)(p))
#endif
#if LDSM && ELEM == 64
#error "ldmatrix serves the 16-bit types and TF32's A fragments"
#endif

#define WARPS_N (BN / WN)
#define THREADS ((BM / WM) * WARPS_N * 32)
#define TM (WM / 16)
#define TN (WN / 8)
#define LDA_S (BK + PAD)
#define LDB_S (BN + PAD_B)
#define A_STAGE (BM * LDA_S)
#define B_STAGE (BK * LDB_S)
/* Element (r, e) of a stage of As (AIX) and of Bs (BIX). With SWZ the rows have no padding and
   the 16-byte chunks of row r are permuted, chunk c stored at c ^ f(r) with f(r) = (r / (8 / W))
   mod W for W < 8 chunks a row (a power of two), r mod 8 from W = 8 on: the 16 bytes that any
   eight consecutive rows keep at one chunk fall on eight different bank groups, so ldmatrix and
   the fragment reads are conflict-free, and the local tiles need no padding (more stages in the
   same local memory). */
#define SW_(r, c, W) ((c) ^ (((r) / ((W) >= 8 ? 1 : 8 / (W))) % ((W) >= 8 ? 8 : (W))))
#if SWZ
#define AIX(r, e) ((r) * LDA_S + SW_((r), (e) / VEC, BK / VEC) * VEC + (e) % VEC)
#define BIX(r, e) ((r) * LDB_S + SW_((r), (e) / VEC, BN / VEC) * VEC + (e) % VEC)
#else
#define AIX(r, e) ((r) * LDA_S + (e))
#define BIX(r, e) ((r) * LDB_S + (e))
#endif

/* Values of the stored patterns (f16_value, to_bfloat16: gemm_common.cl). */
#if ELEM == 16
#define LO_VALUE(r) f16_value((r) & 0xffffu)
#define HI_VALUE(r) f16_value((r) >> 16)
#elif ELEM == 17
#define LO_VALUE(r) as_float((r) << 16)
#define HI_VALUE(r) as_float((r) & 0xffff0000u)
#elif ELEM == 32
#define VALUE(r) as_float(r)
#else
#define VALUE(r) (r)
#endif

/* TF32 rounding (round to nearest, ties away: cvt.rna), applied as values reach local memory. */
#if ELEM == 32
#ifdef MMA_EMULATE
inline float tf32(float x) {
  const uint u = as_uint(x);
  return (u & 0x7f800000u) == 0x7f800000u ? x : as_float((u + 0x1000u) & 0xffffe000u);
}
#else
inline float tf32(float x) {
  uint r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return as_float(r);
}
#endif
#define TO_LOCAL(x) tf32(x)
#if STAGES /* cp.async copies the float32 bits: they are rounded as fragments leave local memory */
#define TO_FRAG(x) as_uint(tf32(x))
#else
#define TO_FRAG(x) as_uint(x)
#endif
#define TO_LOCAL4(v) as_uint4((float4)(tf32(as_float((v).x)), tf32(as_float((v).y)), tf32(as_float((v).z)), tf32(as_float((v).w))))
#else
#define TO_LOCAL(x) (x)
#define TO_LOCAL4(v) (v)
#endif

/* The registers of one MMA: tile (tm, tn) of the warp, k step kk of the slice. */
#ifdef MMA_EMULATE
#if KE == 2
#define EMU_A(i) do { const int r_ = tm * 16 + g + 8 * ((i) & 1), k_ = kk * MMA_K + 2 * t + 8 * ((i) >> 1); \
    ea_[r_ * BK + k_] = LO_VALUE(af[tm][i]); ea_[r_ * BK + k_ + 1] = HI_VALUE(af[tm][i]); } while (0)
#define EMU_B(j) do { const int k_ = kk * MMA_K + 2 * t + 8 * (j); \
    eb_[k_ * WN + tn * 8 + g] = LO_VALUE(bf[tn][j]); eb_[(k_ + 1) * WN + tn * 8 + g] = HI_VALUE(bf[tn][j]); } while (0)
#else
#define EMU_A(i) (ea_[(tm * 16 + g + 8 * ((i) & 1)) * BK + kk * MMA_K + t + 4 * ((i) >> 1)] = VALUE(af[tm][i]))
#define EMU_B(j) (eb_[(kk * MMA_K + t + 4 * (j)) * WN + tn * 8 + g] = VALUE(bf[tn][j]))
#endif
#define MMA() do { \
    __local acc_t* ea_ = emu_a[cur][warp]; \
    __local acc_t* eb_ = emu_b[cur][warp]; \
    EMU_A(0); EMU_A(1); EMU_A(2); EMU_A(3); EMU_B(0); EMU_B(1); \
  } while (0)
#define MMA_SLICE_DONE() do { \
    for (int tm = 0; tm < TM; ++tm) \
      for (int tn = 0; tn < TN; ++tn) \
        for (int c_ = 0; c_ < 4; ++c_) { \
          const int r_ = tm * 16 + g + 8 * (c_ >> 1), n_ = tn * 8 + 2 * t + (c_ & 1); \
          acc_t v_ = acc[tm][tn][c_]; \
          for (int k_ = 0; k_ < BK; ++k_) v_ += emu_a[cur][warp][r_ * BK + k_] * emu_b[cur][warp][k_ * WN + n_]; \
          acc[tm][tn][c_] = v_; \
        } \
  } while (0)
#else
#define MMA_SLICE_DONE() do { } while (0)
#if ELEM == 64
#define MMA() do { double d0_, d1_, d2_, d3_; \
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" \
      : "=d"(d0_), "=d"(d1_), "=d"(d2_), "=d"(d3_) \
      : "d"(af[tm][0]), "d"(af[tm][1]), "d"(af[tm][2]), "d"(af[tm][3]), "d"(bf[tn][0]), "d"(bf[tn][1]), \
        "d"(acc[tm][tn][0]), "d"(acc[tm][tn][1]), "d"(acc[tm][tn][2]), "d"(acc[tm][tn][3])); \
    acc[tm][tn][0] = d0_; acc[tm][tn][1] = d1_; acc[tm][tn][2] = d2_; acc[tm][tn][3] = d3_; } while (0)
#else
#if ELEM == 16
#define MMA_OP "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
#elif ELEM == 17
#define MMA_OP "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
#else
#define MMA_OP "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
#endif
#define MMA() do { float d0_, d1_, d2_, d3_; \
    asm volatile(MMA_OP " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" \
      : "=f"(d0_), "=f"(d1_), "=f"(d2_), "=f"(d3_) \
      : "r"(af[tm][0]), "r"(af[tm][1]), "r"(af[tm][2]), "r"(af[tm][3]), "r"(bf[tn][0]), "r"(bf[tn][1]), \
        "f"(acc[tm][tn][0]), "f"(acc[tm][tn][1]), "f"(acc[tm][tn][2]), "f"(acc[tm][tn][3])); \
    acc[tm][tn][0] = d0_; acc[tm][tn][1] = d1_; acc[tm][tn][2] = d2_; acc[tm][tn][3] = d3_; } while (0)
#endif
#endif

/* ldmatrix: lane L points at row A_ROW(L) of the A tile and B_ROW(L) of the B tiles. */
#if LDSM
#define A_ROW(L) (as + AIX(wm0 + tm * 16 + ((L) & 15), kk * MMA_K + (MMA_K / 2) * ((L) >> 4)))
#define B_ROW(L) (bs + BIX(kk * 16 + ((L) & 15), wn0 + (tn + ((L) >> 4)) * 8))
#ifdef MMA_EMULATE
#define LDSM_A(r) do { for (int i_ = 0; i_ < 4; ++i_) \
    r[i_] = *(__local const uint*)(A_ROW(8 * i_ + (lane >> 2)) + KE * t); } while (0)
#define LDSM_B(r0, r1) do { for (int i_ = 0; i_ < 4; ++i_) { \
    const uint lo_ = B_ROW(8 * i_ + 2 * t)[g], hi_ = B_ROW(8 * i_ + 2 * t + 1)[g]; \
    if (i_ < 2) r0[i_] = lo_ | (hi_ << 16); else r1[i_ - 2] = lo_ | (hi_ << 16); } } while (0)
#else
#define LDSM_A(r) asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" \
    : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(LOCAL_ADDRESS(A_ROW(lane))))
#define LDSM_B(r0, r1) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" \
    : "=r"(r0[0]), "=r"(r0[1]), "=r"(r1[0]), "=r"(r1[1]) : "r"(LOCAL_ADDRESS(B_ROW(lane))))
#endif
#endif

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void porta_gemm_tc(const int M, const int N, const int K,
                   __global const gt* restrict A, const long a_off, const long lda, const long stride_a,
                   __global const gt* restrict B, const long b_off, const long ldb, const long stride_b,
                   __global gt* restrict C, const long c_off, const long ldc, const long stride_c,
                   const int trans_a, const int trans_b) {
  __local gt As[NSTAGE * A_STAGE] __attribute__((aligned(16)));
  __local gt Bs[NSTAGE * B_STAGE] __attribute__((aligned(16)));
#ifdef MMA_EMULATE
  __local acc_t emu_a[2][THREADS / 32][WM * BK];
  __local acc_t emu_b[2][THREADS / 32][BK * WN];
#endif
  GEMM_PROLOGUE();  /* gemm_common.cl: z, tid, warp, lane, g, t, bm0, bn0, wm0, wn0 */

#if FAST
  /* 16-byte pieces: this work-item moves piece tid + i THREADS of each slice of A and of B. */
#define A_LOADS (BM * BK / VEC / THREADS)
#define B_LOADS (BK * BN / VEC / THREADS)
#if STAGES
#ifdef MMA_EMULATE
#define CP16(dst, src) (*(__local uint4*)(dst) = *(__global const uint4*)(src))
#define CP_COMMIT() do { } while (0)
#define CP_WAIT() do { } while (0)
#else
#define CP16(dst, src) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" \
    :: "r"(LOCAL_ADDRESS(dst)), "l"((ulong)(size_t)(src)) : "memory")
#define CP_COMMIT() asm volatile("cp.async.commit_group;" ::: "memory")
#define CP_WAIT() asm volatile("cp.async.wait_group " STR(STAGES_WAIT) ";" ::: "memory")
#endif
#define ISSUE_SLICE(k0, stage) do { \
    __local gt* as_ = As + (stage) * A_STAGE; \
    __local gt* bs_ = Bs + (stage) * B_STAGE; \
    _Pragma("unroll") for (int i_ = 0; i_ < A_LOADS; ++i_) { \
      const int p_ = tid + i_ * THREADS, r_ = p_ / (BK / VEC), c_ = p_ % (BK / VEC); \
      CP16(as_ + AIX(r_, c_ * VEC), A + (long)(bm0 + r_) * lda + (k0) + c_ * VEC); } \
    _Pragma("unroll") for (int i_ = 0; i_ < B_LOADS; ++i_) { \
      const int p_ = tid + i_ * THREADS, r_ = p_ / (BN / VEC), c_ = p_ % (BN / VEC); \
      CP16(bs_ + BIX(r_, c_ * VEC), B + (long)((k0) + r_) * ldb + bn0 + c_ * VEC); } \
  } while (0)
#else
  uint4 ra[A_LOADS], rb[B_LOADS];
#define LOAD_SLICE(k0) do { \
    _Pragma("unroll") for (int i_ = 0; i_ < A_LOADS; ++i_) { \
      const int p_ = tid + i_ * THREADS, r_ = p_ / (BK / VEC), c_ = p_ % (BK / VEC); \
      ra[i_] = *(__global const uint4*)(A + (long)(bm0 + r_) * lda + (k0) + c_ * VEC); } \
    _Pragma("unroll") for (int i_ = 0; i_ < B_LOADS; ++i_) { \
      const int p_ = tid + i_ * THREADS, r_ = p_ / (BN / VEC), c_ = p_ % (BN / VEC); \
      rb[i_] = *(__global const uint4*)(B + (long)((k0) + r_) * ldb + bn0 + c_ * VEC); } \
  } while (0)
#define STORE_SLICE(stage) do { \
    __local gt* as_ = As + (stage) * A_STAGE; \
    __local gt* bs_ = Bs + (stage) * B_STAGE; \
    _Pragma("unroll") for (int i_ = 0; i_ < A_LOADS; ++i_) { \
      const int p_ = tid + i_ * THREADS, r_ = p_ / (BK / VEC), c_ = p_ % (BK / VEC); \
      *(__local uint4*)(as_ + AIX(r_, c_ * VEC)) = TO_LOCAL4(ra[i_]); } \
    _Pragma("unroll") for (int i_ = 0; i_ < B_LOADS; ++i_) { \
      const int p_ = tid + i_ * THREADS, r_ = p_ / (BN / VEC), c_ = p_ % (BN / VEC); \
      *(__local uint4*)(bs_ + BIX(r_, c_ * VEC)) = TO_LOCAL4(rb[i_]); } \
  } while (0)
#endif
  const int slices = K / BK;
#else
  /* Elements: this work-item moves element tid + i THREADS of each slice, numbered along the
     operand's contiguous axis so that neighbouring work-items read neighbouring addresses. */
#define A_LOADS (BM * BK / THREADS)
#define B_LOADS (BK * BN / THREADS)
  gt ra[A_LOADS], rb[B_LOADS];
  const long sam = trans_a ? 1 : lda, sak = trans_a ? lda : 1;
  const long sbk = trans_b ? 1 : ldb, sbn = trans_b ? ldb : 1;
#define A_AT(e, r, c) do { if (trans_a) { r = (e) % BM; c = (e) / BM; } else { r = (e) / BK; c = (e) % BK; } } while (0)
#define B_AT(e, r, c) do { if (trans_b) { r = (e) % BK; c = (e) / BK; } else { r = (e) / BN; c = (e) % BN; } } while (0)
#define LOAD_SLICE(k0) do { \
    _Pragma("unroll") for (int i_ = 0; i_ < A_LOADS; ++i_) { \
      int r_, c_; A_AT(tid + i_ * THREADS, r_, c_); \
      const int m_ = bm0 + r_, k_ = (k0) + c_; \
      ra[i_] = m_ < M && k_ < K ? A[m_ * sam + k_ * sak] : (gt)0; } \
    _Pragma("unroll") for (int i_ = 0; i_ < B_LOADS; ++i_) { \
      int r_, c_; B_AT(tid + i_ * THREADS, r_, c_); \
      const int k_ = (k0) + r_, n_ = bn0 + c_; \
      rb[i_] = k_ < K && n_ < N ? B[k_ * sbk + n_ * sbn] : (gt)0; } \
  } while (0)
#define STORE_SLICE(stage) do { \
    __local gt* as_ = As + (stage) * A_STAGE; \
    __local gt* bs_ = Bs + (stage) * B_STAGE; \
    _Pragma("unroll") for (int i_ = 0; i_ < A_LOADS; ++i_) { \
      int r_, c_; A_AT(tid + i_ * THREADS, r_, c_); as_[AIX(r_, c_)] = TO_LOCAL(ra[i_]); } \
    _Pragma("unroll") for (int i_ = 0; i_ < B_LOADS; ++i_) { \
      int r_, c_; B_AT(tid + i_ * THREADS, r_, c_); bs_[BIX(r_, c_)] = TO_LOCAL(rb[i_]); } \
  } while (0)
  const int slices = (K + BK - 1) / BK;
#endif

  acc_t acc[TM][TN][4];
#pragma unroll
  for (int tm = 0; tm < TM; ++tm)
#pragma unroll
    for (int tn = 0; tn < TN; ++tn)
#pragma unroll
      for (int c = 0; c < 4; ++c) acc[tm][tn][c] = 0;

#if STAGES
  /* Slice s goes to stage s % STAGES in commit group s; at slice kt the wait leaves the
     STAGES - 2 newest groups in flight, so group kt has landed, and the barrier after it also
     says every warp is done with slice kt - 1, whose stage the next copy overwrites. */
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < slices) ISSUE_SLICE(s * BK, s);
    CP_COMMIT();
  }
#else
  if (slices > 0) {
    LOAD_SLICE(0);
    STORE_SLICE(0);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#endif

  for (int kt = 0; kt < slices; ++kt) {
#if STAGES
    CP_WAIT();
    barrier(CLK_LOCAL_MEM_FENCE);
#ifdef MMA_EMULATE
    if (kt > 0) {
      const int cur = (kt - 1) & 1;
      MMA_SLICE_DONE();
    }
#endif
    if (kt + STAGES - 1 < slices) ISSUE_SLICE((kt + STAGES - 1) * BK, (kt + STAGES - 1) % STAGES);
    CP_COMMIT();
    const int stage = kt % STAGES;
#else
    if (kt + 1 < slices) LOAD_SLICE((kt + 1) * BK);
    const int stage = kt & 1;
#endif
    const int cur = kt & 1;
    __local const gt* as = As + stage * A_STAGE;
    __local const gt* bs = Bs + stage * B_STAGE;

#pragma unroll
    for (int kk = 0; kk < BK / MMA_K; ++kk) {
      ft af[TM][4];
      ft bf[TN][2];
#if LDSM
#pragma unroll
      for (int tm = 0; tm < TM; ++tm) {
        LDSM_A(af[tm]);
#if ELEM == 32
#pragma unroll
        for (int i = 0; i < 4; ++i) af[tm][i] = TO_FRAG(as_float(af[tm][i]));
#endif
      }
#else
#pragma unroll
      for (int tm = 0; tm < TM; ++tm)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          __local const gt* p = as + AIX(wm0 + tm * 16 + g + 8 * (i & 1), kk * MMA_K + KE * t + (MMA_K / 2) * (i >> 1));
#if KE == 2
          af[tm][i] = *(__local const uint*)p;
#elif ELEM == 32
          af[tm][i] = TO_FRAG(*p);
#else
          af[tm][i] = *p;
#endif
        }
#endif
#if LDSM && KE == 2
#pragma unroll
      for (int tn = 0; tn < TN; tn += 2) LDSM_B(bf[tn], bf[tn + 1]);
#else
#pragma unroll
      for (int tn = 0; tn < TN; ++tn)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const int kr = kk * MMA_K + KE * t + (MMA_K / 2) * j;
          __local const gt* p = bs + BIX(kr, wn0 + tn * 8 + g);
#if KE == 2
          bf[tn][j] = (uint)p[0] | ((uint)bs[BIX(kr + 1, wn0 + tn * 8 + g)] << 16);
#elif ELEM == 32
          bf[tn][j] = TO_FRAG(*p);
#else
          bf[tn][j] = *p;
#endif
        }
#endif
#pragma unroll
      for (int tm = 0; tm < TM; ++tm) {
#pragma unroll
        for (int tn = 0; tn < TN; ++tn) {
          MMA();
        }
      }
    }

#if !STAGES
    if (kt + 1 < slices) STORE_SLICE(cur ^ 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    MMA_SLICE_DONE();
#endif
  }
#if STAGES && defined(MMA_EMULATE)
  barrier(CLK_LOCAL_MEM_FENCE);
  if (slices > 0) {
    const int cur = (slices - 1) & 1;
    MMA_SLICE_DONE();
  }
#endif

  /* C: each lane holds pairs of columns 2 t, 2 t + 1 of rows g and g + 8 of each tile. */
#pragma unroll
  for (int tm = 0; tm < TM; ++tm) {
#pragma unroll
    for (int tn = 0; tn < TN; ++tn) {
      const int col = bn0 + wn0 + tn * 8 + 2 * t;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = bm0 + wm0 + tm * 16 + g + 8 * h;
        const acc_t v0 = acc[tm][tn][2 * h], v1 = acc[tm][tn][2 * h + 1];
        __global gt* p = C + (long)row * ldc + col;
#if FAST
#if ELEM == 16
        vstore_half2_rte((float2)(v0, v1), 0, (__global half*)p);
#elif ELEM == 17
        *(__global ushort2*)p = (ushort2)(to_bfloat16(v0), to_bfloat16(v1));
#elif ELEM == 32 && SUBTRACT
        *(__global float2*)p -= (float2)(v0, v1);
#elif ELEM == 32
        *(__global float2*)p = (float2)(v0, v1);
#elif SUBTRACT
        *(__global double2*)p -= (double2)(v0, v1);
#else
        *(__global double2*)p = (double2)(v0, v1);
#endif
#else
        GEMM_STORE_GUARDED(p, row, col, v0, v1);
#endif
      }
    }
  }
}
