/* porta's tiled OpenCL GEMM (gemm/kernel.hpp says how it is built and which variants it has);
   embedded into the plugin at build time as kGemmSource (embed_kernel.cmake).

   Row-major C[m x n] = op(A) op(B) per batch (global dimension 2). Local tiles are k-major
   (As[p][i], Bs[p][j]) with VW elements of padding per row, which keeps rows vector-aligned and
   spreads the transposing stores of a tile over the banks. */
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
/* ELEM: 0 float32, 1 float64, 2 float16, 3 bfloat16, 4 complex64, 5 complex128 (a float2 / double2
   of real and imaginary parts, products without conjugation), 100 + DType's number for the
   integers. Complex and integer products run with VW 1. SUBTRACT (float and complex ELEMs only):
   C -= the product (MatmulArgs::subtract), C read where it is written. */
#if ELEM == 1 || ELEM == 5
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if ELEM == 1
#define REAL double
typedef double elem;
#elif ELEM == 2
#define REAL float
typedef half elem; /* storage only, through vload_half / vstore_half (no cl_khr_fp16 needed) */
#elif ELEM == 3
#define REAL float
typedef ushort elem; /* bfloat16: the upper half of a float32 */
#elif ELEM == 4
#define COMPLEX 1
typedef float2 elem;
typedef float2 real;
#elif ELEM == 5
#define COMPLEX 1
typedef double2 elem;
typedef double2 real;
#elif ELEM >= 100
/* Integers: products and sums in uint (ulong for the 64-bit types), whose low bits are those of the
   two's-complement result (NumPy wraps modulo 2^bits), then truncated into C. */
#define INTEGER 1
#if ELEM == 102 || ELEM == 112
typedef ulong real;
#else
typedef uint real;
#endif
#if ELEM == 101
typedef int elem;
#define WRAP(v) as_int(v)
#elif ELEM == 102
typedef long elem;
#define WRAP(v) as_long(v)
#elif ELEM == 107
typedef char elem;
#define WRAP(v) as_char((uchar)(v))
#elif ELEM == 108
typedef short elem;
#define WRAP(v) as_short((ushort)(v))
#elif ELEM == 109
typedef uchar elem;
#define WRAP(v) ((uchar)(v))
#elif ELEM == 110
typedef ushort elem;
#define WRAP(v) ((ushort)(v))
#elif ELEM == 111
typedef uint elem;
#define WRAP(v) (v)
#elif ELEM == 112
typedef ulong elem;
#define WRAP(v) (v)
#endif
#else
#define REAL float
typedef float elem;
#endif
#ifdef REAL
typedef REAL real;
#endif

#if ELEM == 2
#define LOAD(p, i) vload_half((i), (p))
#define STORE(p, i, v) vstore_half_rte((v), (i), (p))
#elif ELEM == 3
inline ushort to_bfloat16(float f) {
  uint u = as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
#define LOAD(p, i) as_float((uint)(p)[i] << 16)
#define STORE(p, i, v) ((p)[i] = to_bfloat16(v))
#elif defined(INTEGER)
#define LOAD(p, i) ((real)(p)[i])
#define STORE(p, i, v) ((p)[i] = WRAP(v))
#elif SUBTRACT
#define LOAD(p, i) (p)[i]
#define STORE(p, i, v) ((p)[i] -= (v))
#else
#define LOAD(p, i) (p)[i]
#define STORE(p, i, v) ((p)[i] = (v))
#endif

/* c += a b: complex in the textbook form (4 real products, as cgemm), each part's two products
   fused into the sum. */
#ifdef COMPLEX
#define MAC(c, a, b)                 \
  do {                               \
    (c).x = fma((a).x, (b).x, (c).x); \
    (c).x = fma(-(a).y, (b).y, (c).x); \
    (c).y = fma((a).x, (b).y, (c).y); \
    (c).y = fma((a).y, (b).x, (c).y); \
  } while (0)
#else
#define MAC(c, a, b) ((c) += (a) * (b))
#endif

#if VW == 1
typedef real realv;
#define VSTORE_PRIV(v, p) (*(p) = (v))
#define VLOAD_PRIV(p) (*(p))
#define LOADV(p, i) LOAD(p, i)
#else
typedef CAT(REAL, VW) realv;
#define VSTORE_PRIV(v, p) CAT(vstore, VW)((v), 0, (p))
#define VLOAD_PRIV(p) CAT(vload, VW)(0, (p))
#if ELEM == 2
#define LOADV(p, i) CAT(vload_half, VW)(0, (p) + (i))
#elif ELEM == 3
#define LOADV(p, i) CAT(as_float, VW)(CAT(convert_uint, VW)(CAT(vload, VW)(0, (p) + (i))) << 16)
#else
#define LOADV(p, i) (*(__global const realv*)((p) + (i)))
#if SUBTRACT
#define STOREV(p, i, v) (*(__global realv*)((p) + (i)) -= (v))
#else
#define STOREV(p, i, v) (*(__global realv*)((p) + (i)) = (v))
#endif
#endif
#endif

#define GM (TM / WM)
#define GN (TN / WN)
#define THREADS (GM * GN)
#define LDA_S (TM + VW) /* row length of the local A tile, k-major */
#define LDB_S (TN + VW)
#define ASIZE (TK * LDA_S)
#define BSIZE (TK * LDB_S)

__kernel __attribute__((reqd_work_group_size(GN, GM, 1)))
void porta_gemm(const int m, const int n, const int k, const int trans_a, const int trans_b,
                __global const elem* restrict A, const long a_off, const long lda, const long stride_a,
                __global const elem* restrict B, const long b_off, const long ldb, const long stride_b,
                __global elem* restrict C, const long c_off, const long ldc, const long stride_c) {
  const int lx = get_local_id(0), ly = get_local_id(1);
  const int tid = ly * GN + lx;
  const int col0 = get_group_id(0) * TN, row0 = get_group_id(1) * TM;
  const long z = get_global_id(2);
  A += a_off + z * stride_a;
  B += b_off + z * stride_b;
  C += c_off + z * stride_c;
  __local realv Av[2 * ASIZE / VW];
  __local realv Bv[2 * BSIZE / VW];
  __local real* As = (__local real*)Av;
  __local real* Bs = (__local real*)Bv;
  real acc[WM][WN];
#pragma unroll
  for (int i = 0; i < WM; ++i)
#pragma unroll
    for (int j = 0; j < WN; ++j) acc[i][j] = (real)0;
  const int tiles = (k + TK - 1) / TK;

#if FAST
  /* Each work-item loads NA vectors of the A tile and NB of the B tile per slice, along the
     operand's contiguous axis; consecutive work-items read consecutive vectors. */
#define NA (TM * TK / VW / THREADS)
#define NB (TN * TK / VW / THREADS)
  __global const elem* pa[NA];
  __global const elem* pb[NB];
  int la[NA], lb[NB]; /* where each vector lands in the local tile */
#pragma unroll
  for (int s = 0; s < NA; ++s) {
    const int l = tid + s * THREADS;
#if TRANS_A /* A is k x m: vectors along m */
    const int p = l / (TM / VW), iv = l % (TM / VW);
    pa[s] = A + (long)p * lda + row0 + iv * VW;
    la[s] = p * LDA_S + iv * VW;
#else /* A is m x k: vectors along k, stored transposed */
    const int i = l / (TK / VW), kv = l % (TK / VW);
    pa[s] = A + (long)(row0 + i) * lda + kv * VW;
    la[s] = kv * VW * LDA_S + i;
#endif
  }
#pragma unroll
  for (int s = 0; s < NB; ++s) {
    const int l = tid + s * THREADS;
#if TRANS_B /* B is n x k: vectors along k, stored transposed */
    const int j = l / (TK / VW), kv = l % (TK / VW);
    pb[s] = B + (long)(col0 + j) * ldb + kv * VW;
    lb[s] = kv * VW * LDB_S + j;
#else /* B is k x n: vectors along n */
    const int p = l / (TN / VW), jv = l % (TN / VW);
    pb[s] = B + (long)p * ldb + col0 + jv * VW;
    lb[s] = p * LDB_S + jv * VW;
#endif
  }
#if TRANS_A
  const long step_a = TK * lda;
#else
  const long step_a = TK;
#endif
#if TRANS_B
  const long step_b = TK;
#else
  const long step_b = TK * ldb;
#endif
  realv ra[NA], rb[NB];
#define LOAD_SLICE(t)                                 \
  for (int s = 0; s < NA; ++s) {                      \
    ra[s] = LOADV(pa[s], 0);                          \
    pa[s] += step_a;                                  \
  }                                                   \
  for (int s = 0; s < NB; ++s) {                      \
    rb[s] = LOADV(pb[s], 0);                          \
    pb[s] += step_b;                                  \
  }
#if TRANS_A
#define STORE_A(buf) \
  for (int s = 0; s < NA; ++s) Av[((buf) * ASIZE + la[s]) / VW] = ra[s];
#else
#define STORE_A(buf)                                                            \
  for (int s = 0; s < NA; ++s) {                                                \
    real x[VW];                                                                 \
    VSTORE_PRIV(ra[s], x);                                                      \
    for (int v = 0; v < VW; ++v) As[(buf) * ASIZE + la[s] + v * LDA_S] = x[v]; \
  }
#endif
#if TRANS_B
#define STORE_B(buf)                                                            \
  for (int s = 0; s < NB; ++s) {                                                \
    real x[VW];                                                                 \
    VSTORE_PRIV(rb[s], x);                                                      \
    for (int v = 0; v < VW; ++v) Bs[(buf) * BSIZE + lb[s] + v * LDB_S] = x[v]; \
  }
#else
#define STORE_B(buf) \
  for (int s = 0; s < NB; ++s) Bv[((buf) * BSIZE + lb[s]) / VW] = rb[s];
#endif

#else /* guarded: scalar loads with bounds checks; op(A)(i, p) = A[i * as_i + p * as_p] */
#define NA (TM * TK / THREADS)
#define NB (TN * TK / THREADS)
  const long as_i = trans_a ? 1 : lda, as_p = trans_a ? lda : 1;
  const long bs_p = trans_b ? 1 : ldb, bs_j = trans_b ? ldb : 1;
  real ra[NA], rb[NB];
  /* Consecutive work-items take consecutive elements of the operand's contiguous axis. */
#define A_COORDS(l, i, p)        \
  if (trans_a) {                 \
    i = (l) % TM;                \
    p = (l) / TM;                \
  } else {                       \
    i = (l) / TK;                \
    p = (l) % TK;                \
  }
#define B_COORDS(l, p, j)        \
  if (trans_b) {                 \
    j = (l) / TK;                \
    p = (l) % TK;                \
  } else {                       \
    j = (l) % TN;                \
    p = (l) / TN;                \
  }
#define LOAD_SLICE(t)                                                                          \
  for (int s = 0; s < NA; ++s) {                                                               \
    int i, p;                                                                                  \
    A_COORDS(tid + s * THREADS, i, p);                                                         \
    const int gi = row0 + i, gp = (t) * TK + p;                                                \
    ra[s] = (gi < m && gp < k) ? LOAD(A, (long)gi * as_i + (long)gp * as_p) : (real)0;         \
  }                                                                                            \
  for (int s = 0; s < NB; ++s) {                                                               \
    int p, j;                                                                                  \
    B_COORDS(tid + s * THREADS, p, j);                                                         \
    const int gj = col0 + j, gp = (t) * TK + p;                                                \
    rb[s] = (gj < n && gp < k) ? LOAD(B, (long)gp * bs_p + (long)gj * bs_j) : (real)0;         \
  }
#define STORE_A(buf)                             \
  for (int s = 0; s < NA; ++s) {                 \
    int i, p;                                    \
    A_COORDS(tid + s * THREADS, i, p);           \
    As[(buf) * ASIZE + p * LDA_S + i] = ra[s];   \
  }
#define STORE_B(buf)                             \
  for (int s = 0; s < NB; ++s) {                 \
    int p, j;                                    \
    B_COORDS(tid + s * THREADS, p, j);           \
    Bs[(buf) * BSIZE + p * LDB_S + j] = rb[s];   \
  }
#endif

  LOAD_SLICE(0)
  STORE_A(0)
  STORE_B(0)
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int t = 0; t < tiles; ++t) {
    const int cur = t & 1;
    if (t + 1 < tiles) {
      LOAD_SLICE(t + 1)
    }
    __local const realv* at = Av + cur * (ASIZE / VW) + ly;
    __local const realv* bt = Bv + cur * (BSIZE / VW) + lx;
#pragma unroll
    for (int p = 0; p < TK; ++p) {
      real a[WM], b[WN];
#pragma unroll
      for (int i = 0; i < WM / VW; ++i) VSTORE_PRIV(at[p * (LDA_S / VW) + i * GM], a + i * VW);
#pragma unroll
      for (int j = 0; j < WN / VW; ++j) VSTORE_PRIV(bt[p * (LDB_S / VW) + j * GN], b + j * VW);
#pragma unroll
      for (int i = 0; i < WM; ++i)
#pragma unroll
        for (int j = 0; j < WN; ++j) MAC(acc[i][j], a[i], b[j]);
    }
    if (t + 1 < tiles) {
      STORE_A(1 - cur)
      STORE_B(1 - cur)
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  /* acc[i * VW + v][j * VW + w] is C[(i * GM + ly) * VW + v][(j * GN + lx) * VW + w]. */
#pragma unroll
  for (int i = 0; i < WM / VW; ++i) {
#pragma unroll
    for (int v = 0; v < VW; ++v) {
      const int r = row0 + (i * GM + ly) * VW + v;
#if !FAST
      if (r >= m) break;
#endif
      __global elem* crow = C + (long)r * ldc;
#pragma unroll
      for (int j = 0; j < WN / VW; ++j) {
        const int c = col0 + (j * GN + lx) * VW;
#if FAST && defined(STOREV)
        STOREV(crow, c, VLOAD_PRIV(&acc[i * VW + v][j * VW]));
#else
#pragma unroll
        for (int w = 0; w < VW; ++w) {
#if !FAST
          if (c + w < n)
#endif
            STORE(crow, c + w, acc[i * VW + v][j * VW + w]);
        }
#endif
      }
    }
  }
}
