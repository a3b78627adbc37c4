/* porta's GEMM on Hopper's warpgroup MMA (wgmma.mma_async) through OpenCL, for float16, bfloat16
   and float32 as TF32, with float32 accumulation (gemm/wg.hpp says how the program is built and
   where it runs); embedded into the plugin at build time as kWgSource (embed_kernel.cmake).

   C = op(A) op(B) per batch (group dimension 1): op(A) M x K, op(B) K x N, C M x N row-major,
   leading dimensions, offsets and batch strides multiples of 16 bytes (other products take
   gemm_tc.cl); with EDGE any M, N and K > 0 (pieces past the operands' ends zero-filled by
   cp.async's src-size, stores guarded), else whole tiles (M, N, K multiples of BM, BN, BK).
   TA / TB: the operand is stored transposed (A as K x M, B as N x K). A work-group of WGS warpgroups (128 work-items each)
   computes a BM x BN block of C; warpgroup w owns rows w BM / WGS onwards, MT = BM / (64 WGS)
   tiles of 64 x BN, each one wgmma m64nBNk16 (k8 for TF32) a 32-byte step of k, with its
   accumulators in registers.

   BK-deep slices of A and B travel from global to local memory by cp.async (16 bytes each) into
   STAGES stages, AHEAD slices ahead of the MMAs (below). The MMAs read both operands from local
   memory through matrix descriptors (PTX ISA, "Matrix Descriptor Format"), so the tiles are laid
   out in the canonical swizzled forms, KB = BK x the element's bytes:
     K-major (A, or B stored transposed; TF32 takes only these): row r of the slice (of M or N) at
       r KB bytes, its 16-byte chunk c stored at chunk c ^ f(r): the 32-byte swizzle for KB = 32
       (f(r) = (r / 4) % 2), the 64-byte one for KB = 64 (f(r) = (r / 2) % 4), the 128-byte one
       for KB = 128 (f(r) = r % 8). Descriptor: the start of the instruction's rows plus 32 bytes a
       k step, stride byte offset 8 rows (SBO = 8 KB), swizzle mode 3 (32 B), 2 (64 B) or 1 (128 B).
     MN-major (B, or A stored transposed; 16-bit types, imm-trans = 1): atoms of 64 columns (of N
       or M), each BK rows (of k) of 128 bytes, chunk c of row k stored at chunk c ^ (k % 8) (the
       128-byte swizzle). Descriptor: the atom's start plus 16 rows (2048 bytes) a k step, leading
       byte offset the atom stride (LBO = 128 BK), SBO = 1024 (8 rows).
   Every stage starts at a multiple of 1024 bytes, as the swizzles require (they act on address bits
   4-6 against bits 7-9). The 128- and 64-byte layouts were checked against a host product on an
   H200 by scripts/dev/wgmma_probe.cpp. TF32 reads the float32 bits in local memory as they are
   (the instruction uses their top 19), where gemm_tc.cl rounds them (cvt.rna).

   NVIDIA's OpenCL compiler targets sm_90, where ptxas refuses wgmma: the instructions only sm_90a
   has are written as comments that start with "// @sm90a " (A90 below), and the plugin removes the
   marks from the program's PTX, retargets it to sm_90a and builds that (compile.cpp). Accumulator
   fragment (PTX ISA, "Register Fragments: wgmma .m64nNk16"): work-item 32 w + 4 g + t of a
   warpgroup holds element 4 j + e at row 16 w + g + 8 (e / 2), column 8 j + 2 t + e % 2.

   With MMA_EMULATE the instructions are replaced by their reference semantics: cp.async is a
   plain copy and the MMA reads each operand element where its descriptor says the hardware would
   (address bits swizzled as above), so every index and descriptor of the kernel is tested on any
   OpenCL device (PoCL in CI). The generated WGMMA macro (gemm/wg.cpp) precedes this text. */
#if ELEM == 16 || ELEM == 17
typedef ushort gt; /* the 16-bit pattern in global and local memory */
#define ESZ 2
#elif ELEM == 32
typedef float gt;  /* float32, read as TF32 (the low 13 bits of the mantissa ignored) */
#define ESZ 4
#else
#error "ELEM is 16 (float16), 17 (bfloat16) or 32 (float32 as TF32)"
#endif
#ifndef TA
#define TA 0
#endif
#ifndef TB
#define TB 0
#endif
#ifndef EDGE
#define EDGE 0
#endif
#ifndef MMA_FIRST
#define MMA_FIRST 0
#endif
#if ELEM == 32 && (TA || !TB)
#error "TF32 takes both operands K-major: A row-major, B transposed (N x K)"
#endif
/* The instruction's imm-trans-a and imm-trans-b: 1 for an MN-major operand (A stored transposed,
   B stored row-major), as the loads below lay them out. The emulation reads by these too. */
#if TA
#define IMM_TRANS_A 1
#else
#define IMM_TRANS_A 0
#endif
#if TB
#define IMM_TRANS_B 0
#else
#define IMM_TRANS_B 1
#endif
#define KB (BK * ESZ) /* bytes of a K-major row of a slice: 32, 64 or 128 */
#if KB != 32 && KB != 64 && KB != 128
#error "BK * the element's bytes must be 32, 64 or 128 (the 32-, 64- or 128-byte swizzle)"
#endif
#if BN % 64 || BN > 256
#error "BN is 64, 128, 192 or 256"
#endif
#if STAGES < 2 || STAGES > 6
#error "2 to 6 stages"
#endif
#define STR2(x) #x
#define STR(x) STR2(x)
#define THREADS (WGS * 128)
#define MT (BM / (64 * WGS))
#define PIECE (16 / ESZ)        /* elements of a 16-byte piece */
#define A_BYTES (BM * KB)       /* A's slice */
#define B_BYTES (BN * KB)       /* B's slice */
#define MN_ATOM (BK * 128)      /* an MN-major atom: 64 columns of 16-bit values by BK rows */
#define STAGE_BYTES (A_BYTES + B_BYTES)
#define A_PIECES (BM * BK / PIECE / THREADS) /* 16-byte pieces a work-item copies a slice */
#define B_PIECES (BK * BN / PIECE / THREADS)
#define K_MODE (KB == 128 ? 1ul : KB == 64 ? 2ul : 3ul) /* descriptor swizzle mode: 1 = 128 B, 2 = 64 B, 3 = 32 B */
#define K_SWZ(r) (KB == 128 ? (r) % 8 : KB == 64 ? ((r) / 2) % 4 : ((r) / 4) % 2)

/* Values of the stored patterns (f16_value, to_bfloat16: gemm_common.cl). */
#if ELEM == 16
#define VALUE(h) f16_value(h)
#elif ELEM == 17
#define VALUE(h) as_float((uint)(h) << 16)
#else
#define VALUE(h) as_float(as_uint(h) & 0xffffe000u) /* TF32: the top 19 bits */
#endif

#ifdef MMA_EMULATE
/* Addresses are offsets into the work-group's local buffer `sm`, which starts at a multiple of
   1024 bytes as the hardware's swizzle assumes. */
#define LOCAL_ADDRESS(p) ((uint)((__local const uchar*)(p) - sm))
/* The byte of element (row, k) of a K-major operand and of element (k, col) of an MN-major one,
   where descriptor d says: its start, strides and swizzle, the swizzle applied to the address. */
inline uint swizzled(uint a, uint mode) {
  return mode == 1 ? a ^ (((a >> 7) & 7u) << 4) : mode == 2 ? a ^ (((a >> 7) & 3u) << 4) : mode == 3 ? a ^ (((a >> 7) & 1u) << 4) : a;
}
inline uint k_major_at(ulong d, int row, int k) {
  const uint start = (uint)(d & 0x3fff) << 4, sbo = (uint)((d >> 32) & 0x3fff) << 4, mode = (uint)(d >> 62);
  const uint width = mode == 1 ? 128 : mode == 2 ? 64 : 32;
  return swizzled(start + (row / 8) * sbo + (row % 8) * width + ESZ * k, mode);
}
inline uint mn_major_at(ulong d, int k, int col) {
  const uint start = (uint)(d & 0x3fff) << 4, lbo = (uint)((d >> 16) & 0x3fff) << 4,
             sbo = (uint)((d >> 32) & 0x3fff) << 4, mode = (uint)(d >> 62);
  return swizzled(start + (col / 64) * lbo + (col % 64) * 2 + (k / 8) * sbo + (k % 8) * 128, mode);
}
/* Element (row, k) of A and (k, col) of B for one instruction, by its transpose immediates. */
#if IMM_TRANS_A
#define A_AT(d, row, k) mn_major_at((d), (k), (row))
#else
#define A_AT(d, row, k) k_major_at((d), (row), (k))
#endif
#if IMM_TRANS_B
#define B_AT(d, k, col) mn_major_at((d), (k), (col))
#else
#define B_AT(d, k, col) k_major_at((d), (col), (k))
#endif
/* One m64nBNk(32 / ESZ) step: this work-item's accumulators (row 16 w + g + 8 (e / 2), column
   8 j + 2 t + e % 2). */
#define WGMMA(ACC, DA, DB, SCALE) do { \
    const int w_ = (tid % 128) / 32, g_ = (tid % 32) / 4, t_ = tid % 4; \
    for (int i_ = 0; i_ < BN / 2; ++i_) { \
      const int r_ = 16 * w_ + g_ + 8 * ((i_ % 4) / 2), c_ = 8 * (i_ / 4) + 2 * t_ + i_ % 2; \
      float v_ = (SCALE) ? ACC[i_] : 0.0f; \
      for (int k_ = 0; k_ < 32 / ESZ; ++k_) \
        v_ += VALUE(*(__local const gt*)(sm + A_AT((DA), r_, k_))) * VALUE(*(__local const gt*)(sm + B_AT((DB), k_, c_))); \
      ACC[i_] = v_; \
    } } while (0)
#define CP16(dst, src) (*(__local uint4*)(dst) = *(__global const uint4*)(src))
/* The first `bytes` of the 16 from src, zeros after them (cp.async's src-size). */
#define CP16_PART(dst, src, bytes) do { \
    for (int b_ = 0; b_ < 16; ++b_) \
      ((__local uchar*)(dst))[b_] = b_ < (bytes) ? ((__global const uchar*)(src))[b_] : (uchar)0; } while (0)
#define CP_COMMIT() do { } while (0)
#define CP_WAIT() do { } while (0)
#define FENCE_ASYNC() do { } while (0)
#define WG_ARRIVE() do { } while (0)
#define WG_COMMIT() do { } while (0)
#define WG_WAIT() do { } while (0)
#define WG_WAIT_1() do { } while (0)
#else
#define A90(text) "// @sm90a " text "\n"
#define LOCAL_ADDRESS(p) ((uint)(size_t)(p))
#define CP16(dst, src) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" \
    :: "r"(LOCAL_ADDRESS(dst)), "l"((ulong)(size_t)(src)) : "memory")
#define CP16_PART(dst, src, bytes) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" \
    :: "r"(LOCAL_ADDRESS(dst)), "l"((ulong)(size_t)(src)), "r"((uint)(bytes)) : "memory")
#define CP_COMMIT() asm volatile("cp.async.commit_group;" ::: "memory")
#define CP_WAIT() asm volatile("cp.async.wait_group " STR(STAGES_WAIT) ";" ::: "memory")
/* cp.async writes through the generic proxy, wgmma reads through the async one. */
#define FENCE_ASYNC() asm volatile(A90("fence.proxy.async.shared::cta;") ::: "memory")
#define WG_ARRIVE() asm volatile(A90("wgmma.fence.sync.aligned;") ::: "memory")
#define WG_COMMIT() asm volatile(A90("wgmma.commit_group.sync.aligned;") ::: "memory")
#define WG_WAIT() asm volatile(A90("wgmma.wait_group.sync.aligned 0;") ::: "memory")
#define WG_WAIT_1() asm volatile(A90("wgmma.wait_group.sync.aligned 1;") ::: "memory")
#endif

/* Descriptors: a K-major tile at byte `at` (the 32 bytes of k of one instruction further a step),
   an MN-major one (16 rows of 128 bytes further a step). */
#define K_DESC(at) ((ulong)(((at) >> 4) & 0x3fff) | (1ul << 16) | ((ulong)(8 * KB / 16) << 32) | (K_MODE << 62))
#define MN_DESC(at) ((ulong)(((at) >> 4) & 0x3fff) | ((ulong)(MN_ATOM / 16) << 16) | (64ul << 32) | (1ul << 62))
/* A's rows of m-tile `mt` of this warpgroup at k step kk, B's at kk, in stage `st`. */
#define STAGE_AT(st) (LOCAL_ADDRESS(sm) + (st) * STAGE_BYTES)
#if TA
#define A_DESC(st, mt, kk) MN_DESC(STAGE_AT(st) + (wg * MT + (mt)) * MN_ATOM + (kk) * 2048)
#else
#define A_DESC(st, mt, kk) K_DESC(STAGE_AT(st) + (wg * MT + (mt)) * 64 * KB + (kk) * 32)
#endif
#if TB
#define B_DESC(st, kk) K_DESC(STAGE_AT(st) + A_BYTES + (kk) * 32)
#else
#define B_DESC(st, kk) MN_DESC(STAGE_AT(st) + A_BYTES + (kk) * 2048)
#endif

/* GEMM_PROLOGUE (gemm_common.cl) asks for a warp tile: 16 rows by BN, which it uses for wm0 and
   wn0 only (not used here). */
#define WM 16
#define WN BN

__kernel __attribute__((reqd_work_group_size(THREADS, 1, 1)))
void porta_gemm_wg(const int M, const int N, const int K,
                   __global const gt* restrict A, const long a_off, const long lda, const long stride_a,
                   __global const gt* restrict B, const long b_off, const long ldb, const long stride_b,
                   __global gt* restrict C, const long c_off, const long ldc, const long stride_c) {
  __local uchar sm[STAGES * STAGE_BYTES] __attribute__((aligned(1024)));
  GEMM_PROLOGUE();  /* gemm_common.cl: z, tid, warp, lane, g, t, bm0, bn0 */
  const int wg = tid / 128;

  /* Piece p = tid + i THREADS of a slice. K-major (A, or B transposed): row p / (KB / 16) of the
     operand's rows, 16-byte chunk p % (KB / 16) of its k. MN-major (B, or A transposed): k row
     p / (C / 8) of the slice, chunk p % (C / 8) of its C columns, in atom chunk / 8. */
/* With EDGE the tiles may cross the operands' ends: a piece keeps the bytes before the end of its
   row (R rows of K elements for K-major, K rows of R for MN-major) and zeros after them, and one
   wholly past the end reads none (its address the operand's start). */
#if EDGE
#define PIECE_AT(dst, src, row, col, rows, cols, ld) do { \
    const int left_ = (row) < (rows) ? min(max((cols) - (col), 0), PIECE) * ESZ : 0; \
    CP16_PART((dst), left_ ? (src) + (long)(row) * (ld) + (col) : (src), left_); } while (0)
#else
#define PIECE_AT(dst, src, row, col, rows, cols, ld) CP16((dst), (src) + (long)(row) * (ld) + (col))
#endif
#define K_PIECE(dst, src, ld, r0, k0, p, R) do { const int r_ = (p) / (KB / 16), c_ = (p) % (KB / 16); \
    PIECE_AT((dst) + r_ * KB + ((c_ ^ K_SWZ(r_)) * 16), (src), (r0) + r_, (k0) + c_ * PIECE, (R), K, (ld)); } while (0)
/* Each MN-major piece computes (k0 + r) ld. Addressing from the slice's first row instead (one
   k0 ld product a slice; 122 instructions in the main loop instead of 143, 202 registers instead
   of 212) ran slower: float16 wg128x128x32:g1:s3 431.2-431.6 / 473.9-477.6 TFLOP/s at 4096 / 8192
   against 447.5-448.5 / 484.0-489.7 with this form (opencl:1, H200, three alternating searches
   each, 2026-12-05 02:46), so it was reverted. */
#define MN_PIECE(dst, src, ld, c0, k0, p, C, R) do { const int r_ = (p) / ((C) / 8), c_ = (p) % ((C) / 8); \
    PIECE_AT((dst) + (c_ / 8) * MN_ATOM + r_ * 128 + (((c_ % 8) ^ (r_ % 8)) * 16), (src), (k0) + r_, (c0) + c_ * 8, K, (R), (ld)); } while (0)
#if TA
#define A_PIECE(dst, k0, p) MN_PIECE(dst, A, lda, bm0, k0, p, BM, M)
#else
#define A_PIECE(dst, k0, p) K_PIECE(dst, A, lda, bm0, k0, p, M)
#endif
#if TB
#define B_PIECE(dst, k0, p) K_PIECE(dst, B, ldb, bn0, k0, p, N)
#else
#define B_PIECE(dst, k0, p) MN_PIECE(dst, B, ldb, bn0, k0, p, BN, N)
#endif
#define ISSUE_SLICE(k0, st) do { \
    __local uchar* as_ = sm + (st) * STAGE_BYTES; \
    __local uchar* bs_ = as_ + A_BYTES; \
    _Pragma("unroll") for (int i_ = 0; i_ < A_PIECES; ++i_) A_PIECE(as_, (k0), tid + i_ * THREADS); \
    _Pragma("unroll") for (int i_ = 0; i_ < B_PIECES; ++i_) B_PIECE(bs_, (k0), tid + i_ * THREADS); \
  } while (0)

  const int slices = (K + BK - 1) / BK;
  float acc[MT][BN / 2];
#if OVERLAP
  /* No zeros are written to the accumulators: the first step's MMA has scale-d 0 (D = A B). With
     MMAs in flight across iterations, ptxas serialized them (C7514, "non wgmma instructions
     reading accumulator registers") where the zeros were copied from one accumulator register to
     the others before the loop (H200, 23:32); whether this removes that is for the next sweep. */
#define FIRST_SCALE (kt > 0 || kk > 0)
#else
#define FIRST_SCALE 1
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc[mt][i] = 0.0f;
#endif

  /* Slice s goes to stage s % STAGES in commit group s, AHEAD slices before its MMAs: STAGES - 1,
     or STAGES - 2 with OVERLAP. At slice kt the wait leaves the AHEAD - 1 newest groups in flight,
     so group kt has landed. Without OVERLAP each warpgroup waits for its MMAs of a slice before
     the next slice's barrier, so after that barrier the stage of slice kt - 1 is free for slice
     kt + STAGES - 1. With OVERLAP the MMAs of one slice stay in flight (wgmma.wait_group 1) while
     the next slice is waited for and issued: after the barrier of slice kt only the MMAs of slice
     kt - 2 are known done, whose stage takes slice kt + STAGES - 2. With MMA_FIRST (":m") the
     loads of slice kt + AHEAD are issued after slice kt's MMAs, into the same stage, so that their
     address arithmetic runs while the tensor cores work: in the SASS of wg128x128x32:g1:s3 built
     from the driver's PTX (2026-12-04) 116 instructions stand between a slice's barrier and its
     first MMA (97 in scripts/dev/gemm_sass.sh's build, 20 there with MMA_FIRST). */
  for (int s = 0; s < AHEAD; ++s) {
    if (s < slices) ISSUE_SLICE(s * BK, s);
    CP_COMMIT();
  }
  for (int kt = 0; kt < slices; ++kt) {
    CP_WAIT();
    FENCE_ASYNC();
    barrier(CLK_LOCAL_MEM_FENCE);
#if !MMA_FIRST
    if (kt + AHEAD < slices) ISSUE_SLICE((kt + AHEAD) * BK, (kt + AHEAD) % STAGES);
    CP_COMMIT();
#endif
    const int st = kt % STAGES;
    WG_ARRIVE();
#pragma unroll
    for (int kk = 0; kk < KB / 32; ++kk) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) WGMMA(acc[mt], A_DESC(st, mt, kk), B_DESC(st, kk), FIRST_SCALE);
    }
    WG_COMMIT();
#if MMA_FIRST
    /* The loads of slice kt + AHEAD while this slice's MMAs run: their stage held slice kt - 1
       (kt - 2 with OVERLAP), whose MMAs every warpgroup finished before the barrier above. */
    if (kt + AHEAD < slices) ISSUE_SLICE((kt + AHEAD) * BK, (kt + AHEAD) % STAGES);
    CP_COMMIT();
#endif
#if OVERLAP
    WG_WAIT_1();
#else
    WG_WAIT();
#endif
  }
  WG_WAIT();

  /* C: element 4 j + e of m-tile mt at row 16 w + g + 8 (e / 2), columns 8 j + 2 t and the next. */
  const int w4 = warp % 4;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
      const int col = bn0 + 8 * j + 2 * t;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = bm0 + (wg * MT + mt) * 64 + 16 * w4 + g + 8 * h;
        const float v0 = acc[mt][4 * j + 2 * h], v1 = acc[mt][4 * j + 2 * h + 1];
        __global gt* p = C + (long)row * ldc + col;
#if EDGE
        GEMM_STORE_GUARDED(p, row, col, v0, v1);
#elif ELEM == 16
        vstore_half2_rte((float2)(v0, v1), 0, (__global half*)p);
#elif ELEM == 17
        *(__global ushort2*)p = (ushort2)(to_bfloat16(v0), to_bfloat16(v1));
#else
        *(__global float2*)p = (float2)(v0, v1);
#endif
      }
    }
  }
}
