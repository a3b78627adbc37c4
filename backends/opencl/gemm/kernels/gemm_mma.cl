/* porta's float64 GEMM on NVIDIA's FP64 tensor cores (gemm/mma.hpp says how it is built and
   where it runs); embedded into the plugin at build time as kMmaSource (embed_kernel.cmake).

   Row-major C = A B per batch (group dimension 1): A is M x K, B K x N, C M x N.

   Fragments (PTX ISA, "Matrix Fragments for mma.m16n8k4 / m16n8k8 / m16n8k16" .f64; CUTLASS's
   mma_traits_sm90), lane = 4 g + t, AR = MMA_M / 8, KJ = MMA_K / 4:
     A element i < AR KJ  at row g + 8 (i % AR), column t + 4 (i / AR);
     B element j < KJ     at row t + 4 j, column g;
     C element c < 2 AR   at row g + 8 (c / 2), column 2 t + c % 2.

   K is permuted inside each group of KG = max(8, MMA_K) consecutive k, for A and B alike (so the
   sum is unchanged): lane t owns the k 8 c + 2 t + e (c < KG / 8, e < 2), its list
   L[p] = 8 (p / 2) + 2 t + p % 2 of KP = KG / 4 entries, and fragment element j of the group's
   MMA s takes L[s KJ + j]. A lane then reads two consecutive k of a row of A as one double2.

   Local tiles, two stages (doubles are two of the 32 four-byte banks):
     As [BM][BK / 2] double2, the double2 index XOR 4 on odd rows when BK >= 16, so that rows g
        and g + 1 of a quarter-warp's reads fall on different banks;
     Bs [BK][BN] double, column n of row k at n ^ (((k / 2) % 4) * 4), so that the four rows
        2 t of a half-warp's reads fall on different banks. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#if MMA_M != 16 || (MMA_K != 4 && MMA_K != 8 && MMA_K != 16)
#error "the instruction is m16n8k4, m16n8k8 or m16n8k16"
#endif
#define AR (MMA_M / 8)
#define KJ (MMA_K / 4)
#define NC (2 * AR)
/* A pair of C's elements written (SUBTRACT: C -= the product, MatmulArgs::subtract). */
#if SUBTRACT
#define MMA_STORE(p, v) (*(__global double2*)(p) -= (v))
#else
#define MMA_STORE(p, v) (*(__global double2*)(p) = (v))
#endif

/* The registers of one MMA: tile (tm, tn) of the warp, step s of the k-group. */
#define A_FRAG(i) af[tm * AR + (i) % AR][s * KJ + (i) / AR]
#define B_FRAG(j) bf[tn][s * KJ + (j)]
#define C_FRAG(c) acc[tm][tn][c]

#ifdef MMA_EMULATE
/* The instruction's reference semantics, deferred to the end of the K slice so that the slice needs
   no barrier beyond its own (PoCL took 30-40 s to compile a barrier per MMA): each MMA puts its
   fragments where the layouts above say, in its warp's copy of the slice (emu_a: WM x BK, emu_b:
   BK x WN; logical k = kg KG + s MMA_K + k of the MMA), one copy per stage; MMA_SLICE_DONE, after
   the slice's barrier, adds the slice's products to each lane's C fragments. */
#define MMA() do { \
    __local double* ea_ = emu_a[cur][warp] + tm * MMA_M * BK + kg * KG + s * MMA_K; \
    __local double* eb_ = emu_b[cur][warp] + (kg * KG + s * MMA_K) * WN + tn * 8; \
    _Pragma("unroll") for (int i_ = 0; i_ < AR * KJ; ++i_) ea_[(g + 8 * (i_ % AR)) * BK + t + 4 * (i_ / AR)] = A_FRAG(i_); \
    _Pragma("unroll") for (int j_ = 0; j_ < KJ; ++j_) eb_[(t + 4 * j_) * WN + g] = B_FRAG(j_); \
  } while (0)
#define MMA_SLICE_DONE() do { \
    for (int tm = 0; tm < TM; ++tm) \
      for (int tn = 0; tn < TN; ++tn) \
        for (int c_ = 0; c_ < NC; ++c_) { \
          const int r_ = tm * MMA_M + g + 8 * (c_ >> 1), n_ = tn * 8 + 2 * t + (c_ & 1); \
          double v_ = C_FRAG(c_); \
          for (int k_ = 0; k_ < BK; ++k_) v_ += emu_a[cur][warp][r_ * BK + k_] * emu_b[cur][warp][k_ * WN + n_]; \
          C_FRAG(c_) = v_; \
        } \
  } while (0)
#else
#define MMA_SLICE_DONE() do { } while (0)
#if MMA_K == 4
#define MMA() do { double d0_, d1_, d2_, d3_; \
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};" \
      : "=d"(d0_), "=d"(d1_), "=d"(d2_), "=d"(d3_) \
      : "d"(A_FRAG(0)), "d"(A_FRAG(1)), "d"(B_FRAG(0)), \
        "d"(C_FRAG(0)), "d"(C_FRAG(1)), "d"(C_FRAG(2)), "d"(C_FRAG(3))); \
    C_FRAG(0) = d0_; C_FRAG(1) = d1_; C_FRAG(2) = d2_; C_FRAG(3) = d3_; } while (0)
#elif MMA_K == 8
#define MMA() do { double d0_, d1_, d2_, d3_; \
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" \
      : "=d"(d0_), "=d"(d1_), "=d"(d2_), "=d"(d3_) \
      : "d"(A_FRAG(0)), "d"(A_FRAG(1)), "d"(A_FRAG(2)), "d"(A_FRAG(3)), "d"(B_FRAG(0)), "d"(B_FRAG(1)), \
        "d"(C_FRAG(0)), "d"(C_FRAG(1)), "d"(C_FRAG(2)), "d"(C_FRAG(3))); \
    C_FRAG(0) = d0_; C_FRAG(1) = d1_; C_FRAG(2) = d2_; C_FRAG(3) = d3_; } while (0)
#elif MMA_K == 16
#define MMA() do { double d0_, d1_, d2_, d3_; \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%16,%17,%18,%19};" \
      : "=d"(d0_), "=d"(d1_), "=d"(d2_), "=d"(d3_) \
      : "d"(A_FRAG(0)), "d"(A_FRAG(1)), "d"(A_FRAG(2)), "d"(A_FRAG(3)), "d"(A_FRAG(4)), "d"(A_FRAG(5)), "d"(A_FRAG(6)), "d"(A_FRAG(7)), \
        "d"(B_FRAG(0)), "d"(B_FRAG(1)), "d"(B_FRAG(2)), "d"(B_FRAG(3)), \
        "d"(C_FRAG(0)), "d"(C_FRAG(1)), "d"(C_FRAG(2)), "d"(C_FRAG(3))); \
    C_FRAG(0) = d0_; C_FRAG(1) = d1_; C_FRAG(2) = d2_; C_FRAG(3) = d3_; } while (0)
#endif
#endif

#define WARPS_N (BN / WN)
#define THREADS ((BM / WM) * WARPS_N * 32)
#define KG (MMA_K > 8 ? MMA_K : 8)
#define KP (KG / 4)
#define TM (WM / MMA_M)
#define TN (WN / 8)
#define RW (WM / 8)
#define A_CHUNKS (BM * BK / 2)
#define B_CHUNKS (BK * BN / 2)
#define A_LOADS (A_CHUNKS / THREADS)
#define B_LOADS (B_CHUNKS / THREADS)
#define A_ROW_STEP (THREADS / (BK / 2))
#define B_ROW_STEP (THREADS / (BN / 2))
#if BK >= 16
#define A_SWIZZLE 4
#else
#define A_SWIZZLE 0
#endif
/* Where the double2 of row r, chunk c of a B slice lands in Bs (the column XOR of the layout). */
#define B_SLOT(r, c) ((r) * (BN / 2) + ((c) ^ ((((r) >> 1) & 3) << 1)))

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void porta_gemm_mma(const int M, const int N, const int K,
                    __global const double* restrict A, const long a_off, const long lda, const long stride_a,
                    __global const double* restrict B, const long b_off, const long ldb, const long stride_b,
                    __global double* restrict C, const long c_off, const long ldc, const long stride_c) {
  __local double2 As[2 * A_CHUNKS];
  __local double2 Bs[2 * B_CHUNKS];
#ifdef MMA_EMULATE
  __local double emu_a[2][THREADS / 32][WM * BK];
  __local double emu_b[2][THREADS / 32][BK * WN];
#endif
  GEMM_PROLOGUE();  /* gemm_common.cl: z, tid, warp, lane, g, t, bm0, bn0, wm0, wn0 */

  /* Copies: this work-item moves the double2 (a_r + i A_ROW_STEP, a_c) of each A slice and
     (b_r + i B_ROW_STEP, b_c) of each B slice; A_ROW_STEP is even, so the row parity of the
     A swizzle is that of a_r. */
  const int a_r = tid / (BK / 2), a_c = tid % (BK / 2);
  const int b_r = tid / (BN / 2), b_c = tid % (BN / 2);
  __global const double* a_src = A + (long)(bm0 + a_r) * lda + 2 * a_c;
  __global const double* b_src = B + (long)b_r * ldb + bn0 + 2 * b_c;
  const int a_dst = a_r * (BK / 2) + (a_c ^ ((a_r & 1) * A_SWIZZLE));

  /* Fragment reads. A: row wm0 + g + 8 r, double2 4 m + t of the row, swizzled: + 4 for even m,
     - 4 for odd m on odd rows. B: row 2 t + k0, column wn0 + 8 j + g, swizzled by t. */
  const int a_sw = (A_SWIZZLE != 0 && (g & 1)) ? 4 : 0;
  const int a_rd_even = (wm0 + g) * (BK / 2) + t + a_sw;
  const int a_rd_odd = (wm0 + g) * (BK / 2) + t - a_sw;
  const int b_rd0 = 2 * t * BN + wn0 + (g ^ (t << 2));
  const int b_rd1 = 2 * t * BN + wn0 + ((8 + g) ^ (t << 2));

  double acc[TM][TN][NC];
#pragma unroll
  for (int tm = 0; tm < TM; ++tm)
#pragma unroll
    for (int tn = 0; tn < TN; ++tn)
#pragma unroll
      for (int c = 0; c < NC; ++c) acc[tm][tn][c] = 0.0;

  const int slices = K / BK;
  double2 ra[A_LOADS], rb[B_LOADS];
#pragma unroll
  for (int i = 0; i < A_LOADS; ++i) ra[i] = *(__global const double2*)(a_src + (long)i * A_ROW_STEP * lda);
#pragma unroll
  for (int i = 0; i < B_LOADS; ++i) rb[i] = *(__global const double2*)(b_src + (long)i * B_ROW_STEP * ldb);
#pragma unroll
  for (int i = 0; i < A_LOADS; ++i) As[a_dst + i * A_ROW_STEP * (BK / 2)] = ra[i];
#pragma unroll
  for (int i = 0; i < B_LOADS; ++i) Bs[B_SLOT(b_r + i * B_ROW_STEP, b_c)] = rb[i];
  barrier(CLK_LOCAL_MEM_FENCE);

  for (int kt = 0; kt < slices; ++kt) {
    const int cur = kt & 1;
    if (kt + 1 < slices) {
      __global const double* an = a_src + (kt + 1) * BK;
      __global const double* bn = b_src + (long)(kt + 1) * BK * ldb;
#pragma unroll
      for (int i = 0; i < A_LOADS; ++i) ra[i] = *(__global const double2*)(an + (long)i * A_ROW_STEP * lda);
#pragma unroll
      for (int i = 0; i < B_LOADS; ++i) rb[i] = *(__global const double2*)(bn + (long)i * B_ROW_STEP * ldb);
    }
    __local const double2* as = As + cur * A_CHUNKS;
    __local const double* bs = (__local const double*)(Bs + cur * B_CHUNKS);

#pragma unroll
    for (int kg = 0; kg < BK / KG; ++kg) {
      double af[RW][KP];
      double bf[TN][KP];
#pragma unroll
      for (int r = 0; r < RW; ++r) {
#pragma unroll
        for (int c = 0; c < KP / 2; ++c) {
          const int m = kg * (KG / 8) + c;
          const double2 v = as[((m & 1) ? a_rd_odd : a_rd_even) + 4 * m + r * 8 * (BK / 2)];
          af[r][2 * c] = v.x;
          af[r][2 * c + 1] = v.y;
        }
      }
#pragma unroll
      for (int j = 0; j < TN; ++j) {
#pragma unroll
        for (int p = 0; p < KP; ++p)
          bf[j][p] = bs[((j & 1) ? b_rd1 : b_rd0) + (kg * KG + 8 * (p >> 1) + (p & 1)) * BN + 16 * (j >> 1)];
      }
#pragma unroll
      for (int s = 0; s < KG / MMA_K; ++s) {
#pragma unroll
        for (int tm = 0; tm < TM; ++tm) {
#pragma unroll
          for (int tn = 0; tn < TN; ++tn) {
            MMA();
          }
        }
      }
    }

    if (kt + 1 < slices) {
      __local double2* an = As + (cur ^ 1) * A_CHUNKS;
      __local double2* bn = Bs + (cur ^ 1) * B_CHUNKS;
#pragma unroll
      for (int i = 0; i < A_LOADS; ++i) an[a_dst + i * A_ROW_STEP * (BK / 2)] = ra[i];
#pragma unroll
      for (int i = 0; i < B_LOADS; ++i) bn[B_SLOT(b_r + i * B_ROW_STEP, b_c)] = rb[i];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    MMA_SLICE_DONE();
  }

#pragma unroll
  for (int tm = 0; tm < TM; ++tm) {
#pragma unroll
    for (int tn = 0; tn < TN; ++tn) {
      const int row = bm0 + wm0 + tm * MMA_M + g;
      const int col = bn0 + wn0 + tn * 8 + 2 * t;
      MMA_STORE(C + (long)row * ldc + col, (double2)(acc[tm][tn][0], acc[tm][tn][1]));
#if AR == 2
      MMA_STORE(C + (long)(row + 8) * ldc + col, (double2)(acc[tm][tn][2], acc[tm][tn][3]));
#endif
    }
  }
}
