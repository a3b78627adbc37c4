// porta's own dense solvers' kernels (primitives/dense.cpp), in OpenCL C with the macros that
// dense.cpp's dense_defs writes before them: T (the element: float, double, porta_c64,
// porta_c128), R (its real type), the arithmetic ADD SUB MUL DIV CONJ SCALE (T times R) RE IM
// MKR (an R as a T) NONZERO ABS1 (LAPACK's pivot measure: |x|, or |re| + |im|) ABSV (|x|) SQRTR
// HYPOT3 (sqrt(a^2 + b^2 + c^2) without overflow); GROUP (work-items a work-group), LID,
// GROUP_ID, BARRIER; FN (a device function's qualifiers), AS (the address space of the matrix a
// function works on: __local for the small kernels, which hold a whole matrix in local memory,
// __global for the others; nothing in CUDA), LP (that of a local-memory pointer parameter);
// SMALL (the largest order the small kernels hold); FLAT (1 where the matrix is in local memory:
// BLOCK_LOOP's choice of how work-items share a block); PS and BS the address spaces of the pivots and
// info (global, or local in the fused kernels) and of getrs2's right-hand sides. CUDA takes the same text
// (primitives::kernel_text spells __local __shared__). The warp solve (k18, dense.cpp's warp_source)
// has its own: N (the order), W (lanes a matrix), CH (right-hand sides a lane holds at a time),
// RBITS (R's bits), IS_COMPLEX, EMU, and the exchanges of one warp_* section.
//
// Every function is run by all GROUP work-items of one work-group together (barriers inside), on
// one column-major matrix: A(i, j) = a[i + j * lda]. Each follows the LAPACK routine it names
// (unblocked, level 2), right-looking; the blocked drivers in dense.cpp call them for panels.
//
//@ access  the unblocked factorizations and solves, in sections that dense.cpp puts in the kernels that call them
#define A_(i, j) a[(i) + (i64)(j) * lda]
// Small matrices from any strides (the fused kernels, k16 and k17): element (i, j) of the n x n
// matrix at g[i sr + j sc] into s, column-major with leading dimension lda; all of it, or (lower)
// its lower triangle only.
FN void load_strided(AS T* s, int lda, GLOBAL const T* g, int n, i64 sr, i64 sc, int lower) {
  for (int e = LID; e < n * n; e += GROUP) {
    const int i = e / n, j = e - i * n;
    if (!lower || i >= j) s[i + j * lda] = g[i * sr + j * sc];
  }
}
// The work-items a reduction over `rows` values (one a work-item, the rest holding the identity)
// halves from: the least power of two that covers them, GROUP at most. Uniform, so the barriers
// in its loop are reached by all; a 64-row column in a group of 256 skips two of eight steps, and
// the column's last rows most of them.
FN int span2(int rows) {
  int p = 1;
  while (p < rows && p < GROUP) p <<= 1;
  return p;
}
// BLOCK_LOOP(rows, cols, i, j) { ... } BLOCK_END: the work-item's elements (i, j) of a rows x cols
// block, i < rows, j < cols. In local memory (FLAT: small matrices) a flat index a work-item,
// divided once an element, which keeps every work-item busy on a block of fewer rows than the
// group. In global memory (the blocked drivers' panels, thousands of rows by a few columns) the rows
// go over the least power of two of work-items that covers them (GROUP at most) and the columns over
// the rest: neighbouring work-items take neighbouring rows of one column, and nothing is divided an
// element (a 64-bit division an element was most of a tall panel's time on a GPU).
#if FLAT
#define BLOCK_LOOP(rows, cols, i, j) \
  for (int e_ = LID; e_ < (rows) * (cols); e_ += GROUP) {   \
    const int j = e_ / (rows), i = e_ - j * (rows);
#else
#define BLOCK_LOOP(rows, cols, i, j)                                          \
  for (int tr_ = span2(rows), j = LID / tr_; j < (cols); j += GROUP / tr_) \
    for (int i = LID % tr_; i < (rows); i += tr_) {
#endif
#define BLOCK_END }

//@ lu  getf2 and its pivot search
// The index of the largest ABS1 of rows [k, m) of column k (the first of equal ones, as LAPACK's
// i?amax; NaNs never win; k where every one is NaN), reduced in red_v / red_i. No barrier after
// the last read of red_i: the caller's next barrier comes before any work-item writes them again.
FN int pivot_row(AS T* a, i64 lda, int m, int k, LP R* red_v, LP int* red_i) {
  const int lid = LID;
  R best = (R)-1;
  int bi = m;
  for (int i = k + lid; i < m; i += GROUP) {
    R v = ABS1(A_(i, k));
    if (v > best) { best = v; bi = i; }
  }
  red_v[lid] = best;
  red_i[lid] = bi;
  BARRIER
  for (int s = span2(m - k) / 2; s > 0; s >>= 1) {
    if (lid < s) {
      R v = red_v[lid + s];
      int i = red_i[lid + s];
      if (v > red_v[lid] || (v == red_v[lid] && i < red_i[lid])) { red_v[lid] = v; red_i[lid] = i; }
    }
    BARRIER
  }
  int p = red_i[0];
  return p < m ? p : k;
}

// getf2 on m x n (the panel of a blocked getrf: m rows below its diagonal): rows swapped across
// the n columns only; ipiv[k] = the pivot's row + 1 + shift; *info (where 0) = the first zero
// pivot's column + 1 + shift.
FN void getf2(AS T* a, i64 lda, int m, int n, PS int* ipiv, PS int* info, int shift, LP R* red_v, LP int* red_i) {
  const int lid = LID, kn = m < n ? m : n;
  for (int k = 0; k < kn; ++k) {
    int p = pivot_row(a, lda, m, k, red_v, red_i);
    const T piv = A_(p, k), akk = A_(k, k);
    if (lid == 0) ipiv[k] = p + 1 + shift;
    BARRIER  // every work-item has read piv and A(k, k) before the swap moves them
    const int nz = NONZERO(piv);
    // One phase (one barrier less a column): rows k and p swapped in the other columns, and column
    // k below the diagonal divided by the pivot with the swap folded in (row p takes A(k, k)), its
    // diagonal the pivot: every element written by one work-item, read by no other.
    if (nz) {
      if (p != k)
        for (int j = lid; j < n; j += GROUP)
          if (j != k) { T t = A_(k, j); A_(k, j) = A_(p, j); A_(p, j) = t; }
      for (int i = k + 1 + lid; i < m; i += GROUP) A_(i, k) = DIV(i == p ? akk : A_(i, k), piv);
      if (lid == 0) A_(k, k) = piv;
    }
    if (!nz && lid == 0 && *info == 0) *info = k + 1 + shift;
    BARRIER
    const int rows = m - k - 1, cols = n - k - 1;
    BLOCK_LOOP(rows, cols, r, c)
      A_(k + 1 + r, k + 1 + c) = SUB(A_(k + 1 + r, k + 1 + c), MUL(A_(k + 1 + r, k), A_(k, k + 1 + c)));
    BLOCK_END
    BARRIER
  }
}

//@ cholesky  potf2
// potf2, lower: A = L L^H on n x n, the strict upper part untouched; on a diagonal that is not
// positive (or NaN) *info (where 0) = its index + 1 + shift, and nothing more is done (nor where
// *info was set on entry: an earlier block failed). Barriers are never inside a branch: PoCL's
// work-group loops crashed on a barrier under an (even uniform) condition.
FN void potf2(AS T* a, i64 lda, int n, PS int* info, int shift) {
  const int lid = LID;
  int stop = *info != 0;
  BARRIER  // all have read *info before work-item 0 may set it
  for (int k = 0; k < n; ++k) {
    R d = RE(A_(k, k));
    if (!stop && !(d > (R)0)) {
      stop = 1;
      if (lid == 0) *info = k + 1 + shift;
    }
    R s = SQRTR(d), inv = (R)1 / s;
    // Column k below the diagonal scaled at once (each element by its own work-item, read by none
    // before the barrier); the diagonal, which every work-item has just read, written after it,
    // beside the update, which does not read it: two barriers a column, not three.
    if (!stop)
      for (int i = k + 1 + lid; i < n; i += GROUP) A_(i, k) = SCALE(A_(i, k), inv);
    BARRIER
    if (!stop && lid == 0) A_(k, k) = MKR(s);
    // The trailing lower triangle: rows over the least power of two of work-items that covers them,
    // columns over the rest, nothing divided an element (BLOCK_LOOP's flat index divided once an
    // element of the whole square: most of a 64 x 64 diagonal block's time on the H100).
    const int r = stop ? 0 : n - k - 1, tr = span2(r);
    for (int rj = lid / tr; rj < r; rj += GROUP / tr)
      for (int ri = lid % tr; ri < r; ri += tr)
        if (ri >= rj) {
          const int i = k + 1 + ri, j = k + 1 + rj;
          A_(i, j) = SUB(A_(i, j), MUL(A_(i, k), CONJ(A_(j, k))));
        }
    BARRIER
  }
}

//@ lu_solve  getrs2
// getrs's solve with n x n LU (getf2's or getrf's, pivots ipiv 1-based) of nrhs columns of b (ldb).
FN void getrs2(AS T* a, i64 lda, PS const int* ipiv, BS T* b, i64 ldb, int n, int nrhs) {
  const int lid = LID;
  for (int c = lid; c < nrhs; c += GROUP)
    for (int k = 0; k < n; ++k) {
      int p = ipiv[k] - 1;
      if (p != k) { T t = b[k + c * ldb]; b[k + c * ldb] = b[p + c * ldb]; b[p + c * ldb] = t; }
    }
  BARRIER
  for (int k = 0; k < n; ++k) {
    const int rows = n - k - 1;
    for (i64 e = lid; e < (i64)rows * nrhs; e += GROUP) {
      i64 c = e / rows;
      int i = k + 1 + (int)(e % rows);
      b[i + c * ldb] = SUB(b[i + c * ldb], MUL(A_(i, k), b[k + c * ldb]));
    }
    BARRIER
  }
  for (int k = n - 1; k >= 0; --k) {
    for (int c = lid; c < nrhs; c += GROUP) b[k + c * ldb] = DIV(b[k + c * ldb], A_(k, k));
    BARRIER
    for (i64 e = lid; e < (i64)k * nrhs; e += GROUP) {
      i64 c = e / k;
      int i = (int)(e % k);
      b[i + c * ldb] = SUB(b[i + c * ldb], MUL(A_(i, k), b[k + c * ldb]));
    }
    BARRIER
  }
}

//@ cholesky_solve  potrs2
// potrs: L y = b, then L^H x = y, with potf2's or potrf's lower L (real diagonal).
FN void potrs2(AS T* a, i64 lda, GLOBAL T* b, i64 ldb, int n, int nrhs) {
  const int lid = LID;
  for (int k = 0; k < n; ++k) {
    for (int c = lid; c < nrhs; c += GROUP) b[k + c * ldb] = SCALE(b[k + c * ldb], (R)1 / RE(A_(k, k)));
    BARRIER
    const int rows = n - k - 1;
    for (i64 e = lid; e < (i64)rows * nrhs; e += GROUP) {
      i64 c = e / rows;
      int i = k + 1 + (int)(e % rows);
      b[i + c * ldb] = SUB(b[i + c * ldb], MUL(A_(i, k), b[k + c * ldb]));
    }
    BARRIER
  }
  for (int k = n - 1; k >= 0; --k) {
    for (int c = lid; c < nrhs; c += GROUP) b[k + c * ldb] = SCALE(b[k + c * ldb], (R)1 / RE(A_(k, k)));
    BARRIER
    for (i64 e = lid; e < (i64)k * nrhs; e += GROUP) {
      i64 c = e / k;
      int i = (int)(e % k);
      b[i + c * ldb] = SUB(b[i + c * ldb], MUL(CONJ(A_(k, i)), b[k + c * ldb]));
    }
    BARRIER
  }
}

//@ householder  LAPACK's larfg from alpha and the norm of the rest (geqr2, larfg_vec, k33)
// tau of H = I - tau v v^H with H^H (alpha, x) = (beta, 0), and in *scal the 1 / (alpha - beta)
// that scales x into v; tau 0, beta alpha (H = I) where there is nothing to annihilate and alpha
// is real (a NaN makes xnorm NaN and takes the other branch).
FN T householder(T alpha, R xnorm, R* beta, T* scal) {
  R ar = RE(alpha), ai = IM(alpha);  // not const: real T's ai is a constant 0, and clang warns of a constant || below
  *beta = ar;
  *scal = MKR((R)1);
  if (xnorm == (R)0 && ai == (R)0) return MKR((R)0);
  const R h = HYPOT3(ar, ai, xnorm);
  *beta = ar >= (R)0 ? -h : h;
  *scal = DIV(MKR((R)1), SUB(alpha, MKR(*beta)));
  return MKC((*beta - ar) / *beta, -ai / *beta);
}
//@ qr  geqr2 and org2r over Householder reflectors
// Applies H = I - tau v v^H (v = (1, A(k+1:m, k))) from the left to columns [j0, n) of rows
// [k, m). Columns go cb at a time (all of them, or GROUP); each column's dot product v^H A(:, j)
// is split over GROUP / cb work-items (rows strided), their parts summed in a fixed order in red,
// then every element of the columns is updated by its own work-item: a tall panel of few columns
// keeps the whole work-group busy (a work-item a column left most of it idle).
FN void apply_reflector(AS T* a, i64 lda, int m, int n, int k, int j0, T tau, LP T* red) {
  const int lid = LID, cols = n - j0, cb = cols < GROUP ? cols : GROUP, nz = NONZERO(tau);  // tau = 0: H = I (LAPACK's larf skips it)
  for (int c0 = 0; c0 < cols; c0 += cb) {
    // A column's parts are neighbouring work-items (neighbouring rows, one cache line among them);
    // red holds part p of column c at p cb + c, so that part 0 sums into its own slot.
    const int parts = GROUP / cb, c = lid / parts, part = lid - c * parts, j = j0 + c0 + c;
    T w = MKR((R)0);
    if (c < cb && c0 + c < cols) {
      if (part == 0) w = A_(k, j);
      for (int i = k + 1 + part; i < m; i += parts) w = ADD(w, MUL(CONJ(A_(i, k)), A_(i, j)));
    }
    if (c < cb) red[part * cb + c] = w;
    BARRIER
    if (c < cb && part == 0 && c0 + c < cols) {
      T sum = red[c];
      for (int p = 1; p < parts; ++p) sum = ADD(sum, red[c + p * cb]);
      red[c] = MUL(tau, sum);
    }
    BARRIER
    const int rows = m - k;
    const int width = cols - c0 < cb ? cols - c0 : cb;
    if (nz) {
      BLOCK_LOOP(rows, width, r, cc)
        const int i = k + r;
        const T x = red[cc];
        A_(i, j0 + c0 + cc) = SUB(A_(i, j0 + c0 + cc), i == k ? x : MUL(A_(i, k), x));
      BLOCK_END
    }
    BARRIER
  }
}

// geqr2: Householder QR of m x n, R on and above the diagonal, the reflectors' v below it, their
// tau in tau[0, min(m, n)) (LAPACK's larfg without its rescaling of norms below the safe minimum).
FN void geqr2(AS T* a, i64 lda, int m, int n, GLOBAL T* tau, LP R* red_v, LP T* red_t) {
  const int lid = LID, kn = m < n ? m : n;
  for (int k = 0; k < kn; ++k) {
    // ||A(k+1:m, k)||, scaled by its largest element against overflow and underflow.
    R mx = (R)0;
    for (int i = k + 1 + lid; i < m; i += GROUP) { R v = ABSV(A_(i, k)); mx = v > mx ? v : mx; }
    red_v[lid] = mx;
    BARRIER
    for (int s = span2(m - k - 1) / 2; s > 0; s >>= 1) {
      if (lid < s && red_v[lid + s] > red_v[lid]) red_v[lid] = red_v[lid + s];
      BARRIER
    }
    mx = red_v[0];
    BARRIER
    R ss = (R)0;
    if (mx > (R)0)
      for (int i = k + 1 + lid; i < m; i += GROUP) {
        T x = SCALE(A_(i, k), (R)1 / mx);
        ss += RE(x) * RE(x) + IM(x) * IM(x);
      }
    red_v[lid] = ss;
    BARRIER
    for (int s = span2(m - k - 1) / 2; s > 0; s >>= 1) {
      if (lid < s) red_v[lid] += red_v[lid + s];
      BARRIER
    }
    R xnorm = mx > (R)0 ? mx * SQRTR(red_v[0]) : (R)0;
    R beta;
    T scal;
    const T tk = householder(A_(k, k), xnorm, &beta, &scal);
    BARRIER
    if (NONZERO(tk)) {
      for (int i = k + 1 + lid; i < m; i += GROUP) A_(i, k) = MUL(scal, A_(i, k));
      if (lid == 0) A_(k, k) = MKR(beta);
    }
    if (lid == 0) tau[k] = tk;
    BARRIER
    apply_reflector(a, lda, m, n, k, k + 1, CONJ(tk), red_t);
  }
}

// org2r: the first n columns of Q = H(0) ... H(k-1) from geqr2's reflectors in m x n (m >= n >= k).
FN void org2r(AS T* a, i64 lda, int m, int n, int k, GLOBAL const T* tau, LP T* red_t) {
  const int lid = LID;
  BLOCK_LOOP(m, n - k, i, c)
    A_(i, k + c) = MKR(i == k + c ? (R)1 : (R)0);
  BLOCK_END
  BARRIER
  for (int i = k - 1; i >= 0; --i) {
    T ti = tau[i];
    if (lid == 0 && i < n - 1) A_(i, i) = MKR((R)1);
    BARRIER
    apply_reflector(a, lda, m, n, i, i + 1, ti, red_t);
    for (int l = i + 1 + lid; l < m; l += GROUP) A_(l, i) = MUL(NEG(ti), A_(l, i));
    for (int l = lid; l < i; l += GROUP) A_(l, i) = MKR((R)0);
    if (lid == 0) A_(i, i) = SUB(MKR((R)1), ti);
    BARRIER
  }
}
//@ k0  the kernels, a section each (dense.cpp's dense_source takes the one its kind names, so that a
// program holds one definition of porta_k: CUDA's backend puts its programmatic-launch wait into the
// first definition it finds, which under a preprocessor switch of kernels was kind 0's whatever the
// kind, and the other kinds then ran without it, before the work they read was done). k0-k5: a
// work-group a matrix of the batch; LOAD puts g at its matrix in global memory and MAT at the one
// the function works on, MLD its leading dimension (small kernels: a copy in local memory with
// leading dimension m, which STORE writes back); k6-k15:
// the blocked drivers' steps, a work-item a column or row or element; k16, k17: the fused small
// solves (a whole solve or Cholesky in one launch, from any strides).
KERNEL porta_k(GLOBAL T* a, GLOBAL int* ipiv, GLOBAL int* info, i64 a_off, i64 ipiv_off, i64 info_off, int m, int n, i64 lda,
               i64 stride, i64 ipiv_stride, int shift) {
  __local R red_v[GROUP];
  __local int red_i[GROUP];
  LOAD
  getf2(MAT, MLD, m, n, ipiv + ipiv_off + (i64)GROUP_ID * ipiv_stride, info + info_off + GROUP_ID, shift, red_v, red_i);
  STORE
}
//@ k1
KERNEL porta_k(GLOBAL T* a, GLOBAL int* info, i64 a_off, i64 info_off, int m, int n, i64 lda, i64 stride, int shift) {
  LOAD
  potf2(MAT, MLD, n, info + info_off + GROUP_ID, shift);
  STORE
}
//@ k2
KERNEL porta_k(GLOBAL T* a, GLOBAL const int* ipiv, GLOBAL T* b, i64 a_off, i64 ipiv_off, i64 b_off, int m, int n, i64 lda,
               i64 stride, int nrhs) {
  LOAD
  getrs2(MAT, MLD, ipiv + ipiv_off + (i64)GROUP_ID * n, b + b_off + (i64)GROUP_ID * n * nrhs, n, n, nrhs);
}
//@ k3
KERNEL porta_k(GLOBAL T* a, GLOBAL T* b, i64 a_off, i64 b_off, int m, int n, i64 lda, i64 stride, int nrhs) {
  LOAD
  potrs2(MAT, MLD, b + b_off + (i64)GROUP_ID * n * nrhs, n, n, nrhs);
}
//@ k4
KERNEL porta_k(GLOBAL T* a, GLOBAL T* tau, i64 a_off, i64 tau_off, int m, int n, i64 lda, i64 stride, i64 tau_stride) {
  __local R red_v[GROUP];
  __local T red_t[GROUP];
  LOAD
  geqr2(MAT, MLD, m, n, tau + tau_off + (i64)GROUP_ID * tau_stride, red_v, red_t);
  STORE
}
//@ k5
KERNEL porta_k(GLOBAL T* a, GLOBAL const T* tau, i64 a_off, i64 tau_off, int m, int n, i64 lda, i64 stride, int k, i64 tau_stride) {
  __local T red_t[GROUP];
  LOAD
  org2r(MAT, MLD, m, n, k, tau + tau_off + (i64)GROUP_ID * tau_stride, red_t);
  STORE
}
//@ k6
// laswp: rows k and ipiv[k] - 1 swapped for k in [j0, j0 + jb), in order, in the columns
// [c_lo, c_lo + cols) of n rows outside [skip_lo, skip_hi) (getrf's panel swapped its own),
// matrices astride apart. One matrix: the swaps 16 at a time, the work-group first working out in
// local memory where each row of those 16 and of their pivots' rows ends up (slots: the 16 rows,
// then the pivots' rows below them by first appearance, at most 32), then each work-item moves
// its column's rows at once, every load before any store, where swapping in order made a chain of
// dependent loads and stores a column (a work-item a column either way). Several matrices (their
// pivots differ): the swaps in order. No barrier under a branch (PoCL).
#define LS 16
KERNEL porta_k(GLOBAL T* a, GLOBAL const int* ipiv, i64 a_off, i64 ipiv_off, i64 n, i64 c_lo, i64 cols, i64 astride, i64 batch, int j0,
               int jb, i64 skip_lo, i64 skip_hi) {
  __local int pv[LS];           // the chunk's pivot rows
  __local int slot_of[LS];      // the slot that swap q exchanges with slot q
  __local i64 row_of[2 * LS];   // the row a slot stands for (-1: none)
  __local int from[2 * LS];     // the slot whose first value a slot ends with
  for (int k0 = j0; k0 < j0 + jb; k0 += LS) {
    const int kc = j0 + jb - k0 < LS ? j0 + jb - k0 : LS;
    BARRIER  // the last chunk's slots read by every work-item
    if (LID < kc) pv[LID] = ipiv[ipiv_off + k0 + LID] - 1;
    BARRIER
    if (LID < LS) {
      const int q = LID;
      i64 r = -1;
      int sl = q;
      if (q < kc) {
        const i64 p = pv[q];
        if (p < k0 + kc) {
          sl = (int)(p - k0);
        } else {
          int first = q;
          for (int q2 = 0; q2 < q; ++q2)
            if (pv[q2] == p) { first = q2; break; }
          sl = LS + first;
          if (first == q) r = p;
        }
      }
      slot_of[q] = sl;
      row_of[q] = q < kc ? k0 + q : -1;
      row_of[LS + q] = r;
    }
    BARRIER
    if (LID == 0) {
      for (int s2 = 0; s2 < 2 * LS; ++s2) from[s2] = s2;
      for (int q = 0; q < kc; ++q) { const int o = slot_of[q], t = from[q]; from[q] = from[o]; from[o] = t; }
    }
    BARRIER
    if (batch == 1)
      for (i64 e = GID; e < cols; e += GSIZE) {
        const i64 c = c_lo + e;
        if (c >= skip_lo && c < skip_hi) continue;
        GLOBAL T* col = a + a_off + c * n;
        T v[2 * LS];
#pragma unroll
        for (int s2 = 0; s2 < 2 * LS; ++s2)
          if (row_of[s2] >= 0 && from[s2] != s2) v[s2] = col[row_of[from[s2]]];
#pragma unroll
        for (int s2 = 0; s2 < 2 * LS; ++s2)
          if (row_of[s2] >= 0 && from[s2] != s2) col[row_of[s2]] = v[s2];
      }
  }
  if (batch > 1)
    for (i64 e = GID; e < batch * cols; e += GSIZE) {
      i64 b = e / cols, c = c_lo + (e - b * cols);
      if (c >= skip_lo && c < skip_hi) continue;
      GLOBAL T* col = a + a_off + b * astride + c * n;
      GLOBAL const int* piv = ipiv + ipiv_off + b * n;
      for (int k = j0; k < j0 + jb; ++k) {
        int p = piv[k] - 1;
        if (p != k) { T t = col[k]; col[k] = col[p]; col[p] = t; }
      }
    }
}
//@ k7
// trsm, left, lower, unit: A(j0:j0+jb, c) = L11^-1 A(j0:j0+jb, c) for the columns
// [c_lo, c_lo + cols).
KERNEL porta_k(GLOBAL T* a, i64 a_off, i64 n, i64 batch, int j0, int jb, i64 c_lo, i64 cols) {
  for (i64 e = GID; e < batch * cols; e += GSIZE) {
    i64 b = e / cols, c = c_lo + (e - b * cols);
    GLOBAL T* m = a + a_off + b * n * n;
    for (int r = 0; r < jb; ++r) {
      T x = m[j0 + r + c * n];
      for (int q = r + 1; q < jb; ++q) m[j0 + q + c * n] = SUB(m[j0 + q + c * n], MUL(m[j0 + q + (i64)(j0 + r) * n], x));
    }
  }
}
//@ k8
// trsm, right, lower, conjugate-transposed: A(i, j0:j0+jb) = A(i, j0:j0+jb) L11^-H for the rows
// i >= j0 + jb (potrf's panel below its diagonal block; L11's diagonal is real).
KERNEL porta_k(GLOBAL T* a, i64 a_off, i64 n, i64 batch, int j0, int jb) {
  const i64 rows = n - j0 - jb;
  for (i64 e = GID; e < batch * rows; e += GSIZE) {
    i64 b = e / rows, i = j0 + jb + (e - b * rows);
    GLOBAL T* m = a + a_off + b * n * n;
    for (int c = 0; c < jb; ++c) {
      T v = m[i + (i64)(j0 + c) * n];
      for (int l = 0; l < c; ++l) v = SUB(v, MUL(m[i + (i64)(j0 + l) * n], CONJ(m[j0 + c + (i64)(j0 + l) * n])));
      m[i + (i64)(j0 + c) * n] = SCALE(v, (R)1 / RE(m[j0 + c + (i64)(j0 + c) * n]));
    }
  }
}
//@ k9
// The trailing updates' subtraction: A(i, j) -= t[i + j * rows] over a rows x cols block (at
// a_off in matrix 0, matrices astride apart; lower: i >= j only, potrf's upper part untouched);
// t is the product GEMM left, a block after another.
KERNEL porta_k(GLOBAL T* a, GLOBAL const T* t, i64 a_off, i64 lda, i64 astride, i64 rows, i64 cols, i64 batch, int lower) {
  for (i64 e = GID; e < batch * rows * cols; e += GSIZE) {
    i64 b = e / (rows * cols), q = e - b * rows * cols, j = q / rows, i = q - j * rows;
    if (lower && i < j) continue;
    GLOBAL T* p = a + a_off + b * astride + i + j * lda;
    *p = SUB(*p, t[e]);
  }
}
//@ k10
// w = conj(a block of rows x cols at a_off), packed (a matrix after another, astride apart in a):
// the conjugate transposes GEMM takes as transposes of these (it does not conjugate).
KERNEL porta_k(GLOBAL const T* a, GLOBAL T* w, i64 a_off, i64 lda, i64 astride, i64 rows, i64 cols, i64 batch) {
  for (i64 e = GID; e < batch * rows * cols; e += GSIZE) {
    i64 b = e / (rows * cols), q = e - b * rows * cols, j = q / rows, i = q - j * rows;
    w[e] = CONJ(a[a_off + b * astride + i + j * lda]);
  }
}
//@ k11
// The block of reflectors V of geqrf's panel (rows x jb from a_off, the unit diagonal and the
// zeros above it written out) packed for GEMM, conjugated where conj is set.
KERNEL porta_k(GLOBAL const T* a, GLOBAL T* v, i64 a_off, i64 lda, i64 astride, i64 rows, int jb, i64 batch, int conj) {
  for (i64 e = GID; e < batch * rows * jb; e += GSIZE) {
    i64 b = e / (rows * jb), q = e - b * rows * jb, j = q / rows, i = q - j * rows;
    T x = i > j ? a[a_off + b * astride + i + j * lda] : MKR(i == j ? (R)1 : (R)0);
    v[e] = conj ? CONJ(x) : x;
  }
}
//@ k12
// larft (forward, columnwise) from g = V^H V (jb x jb, GEMM's) and the panel's tau: the upper
// triangular t of H(0) ... H(jb-1) = I - V t V^H, t(r, i) = -tau(i) sum_l t(r, l) g(l, i). A
// work-group a matrix, a column at a time.
KERNEL porta_k(GLOBAL const T* g, GLOBAL const T* tau, GLOBAL T* t, i64 tau_off, i64 tau_stride, int jb) {
  GLOBAL const T* gm = g + (i64)GROUP_ID * jb * jb;
  GLOBAL const T* tm = tau + tau_off + (i64)GROUP_ID * tau_stride;
  GLOBAL T* out = t + (i64)GROUP_ID * jb * jb;
  for (int i = 0; i < jb; ++i) {
    T ti = tm[i];
    for (int r = LID; r < jb; r += GROUP) {
      T v = MKR((R)0);
      if (r < i) {
        for (int l = r; l < i; ++l) v = ADD(v, MUL(out[r + l * jb], gm[l + i * jb]));
        v = MUL(NEG(ti), v);
      } else if (r == i) {
        v = ti;
      }
      out[r + i * jb] = v;
    }
    BARRIER
  }
}
//@ k13
// w2 = op(t) w1 (t jb x jb upper triangular, w1 jb x cols, both packed a matrix after another):
// op = t^H for geqrf's H^H, t for orgqr's H.
KERNEL porta_k(GLOBAL const T* t, GLOBAL const T* w1, GLOBAL T* w2, int jb, i64 cols, i64 batch, int herm) {
  for (i64 e = GID; e < batch * jb * cols; e += GSIZE) {
    i64 b = e / (jb * cols), q = e - b * jb * cols, c = q / jb;
    int i = (int)(q - c * jb);
    GLOBAL const T* tm = t + b * jb * jb;
    GLOBAL const T* wm = w1 + b * jb * cols + c * jb;
    T v = MKR((R)0);
    if (herm)
      for (int l = 0; l <= i; ++l) v = ADD(v, MUL(CONJ(tm[l + i * jb]), wm[l]));
    else
      for (int l = i; l < jb; ++l) v = ADD(v, MUL(tm[i + l * jb], wm[l]));
    w2[e] = v;
  }
}
//@ k14
// Zeros over a rows x cols block, ones on its diagonal where eye is set (orgqr's rows above its
// diagonal blocks, and the identity's columns that a block of reflectors is applied to).
KERNEL porta_k(GLOBAL T* a, i64 a_off, i64 lda, i64 astride, i64 rows, i64 cols, i64 batch, int eye) {
  for (i64 e = GID; e < batch * rows * cols; e += GSIZE) {
    i64 b = e / (rows * cols), q = e - b * rows * cols, j = q / rows, i = q - j * rows;
    a[a_off + b * astride + i + j * lda] = MKR((R)(eye && i == j ? 1 : 0));
  }
}
//@ k15
// The blocked solves' diagonal block: a work-item a right-hand side (nrhs a matrix), solving the
// jb x jb block at a_off (lda, astride) into the jb rows of b at b_off (ldb, bstride). mode (dense.cpp's
// Tri): 0 L unit lower, 1 L lower with a real diagonal (Cholesky's), 2 U upper, 3 L^H (L lower,
// its diagonal real), 4 L lower, 5 U unit upper; 0, 1, 4 forward, the others backward.
KERNEL porta_k(GLOBAL const T* a, GLOBAL T* b, i64 a_off, i64 lda, i64 astride, i64 b_off, i64 ldb, i64 bstride, int jb, i64 nrhs,
               i64 batch, int mode) {
  for (i64 e = GID; e < batch * nrhs; e += GSIZE) {
    i64 m = e / nrhs, c = e - m * nrhs;
    GLOBAL const T* l = a + a_off + m * astride;
    GLOBAL T* x = b + b_off + m * bstride + c * ldb;
    if (mode == 0 || mode == 1 || mode == 4) {
      for (int r = 0; r < jb; ++r) {
        T v = x[r];
        if (mode == 1) v = SCALE(v, (R)1 / RE(l[r + r * lda]));
        if (mode == 4) v = DIV(v, l[r + r * lda]);
        x[r] = v;
        for (int q = r + 1; q < jb; ++q) x[q] = SUB(x[q], MUL(l[q + r * lda], v));
      }
    } else {
      for (int r = jb - 1; r >= 0; --r) {
        T v = mode == 2 ? DIV(x[r], l[r + r * lda]) : mode == 3 ? SCALE(x[r], (R)1 / RE(l[r + r * lda])) : x[r];
        x[r] = v;
        for (int q = 0; q < r; ++q) x[q] = SUB(x[q], MUL(mode == 3 ? CONJ(l[r + q * lda]) : l[q + r * lda], v));
      }
    }
  }
}
//@ k16
// gesv of a small matrix a work-group, in one launch: A (n x n, element (i, j) at a[a_off + b a_sb +
// i a_sr + j a_sc], any strides: the row-major input itself, a broadcast or a view, no copy before)
// into local memory as column-major with an odd leading dimension (lda: the transposing load's
// stores fall in different banks), getf2 there (pivots and info in local memory), info written,
// then B's columns RHS at a time into local memory, solved (getrs2) and written to x, row-major
// (batch, n, nrhs): the answer as NumPy's. The LU is never written back.
KERNEL porta_k(GLOBAL const T* a, GLOBAL const T* bm, GLOBAL T* x, GLOBAL int* info, i64 a_off, i64 a_sb, i64 a_sr, i64 a_sc,
               i64 b_off, i64 b_sb, i64 b_sr, i64 b_sc, i64 x_off, i64 info_off, int n, i64 nrhs) {
  __local R red_v[GROUP];
  __local int red_i[GROUP];
  __local T s[SMALL * (SMALL + 1)];
  __local T sb[SMALL * RHS];
  __local int piv[SMALL];
  __local int bad[1];
  const int lid = LID, lda = n | 1;
  const i64 g = GROUP_ID;
  load_strided(s, lda, a + a_off + g * a_sb, n, a_sr, a_sc, 0);
  if (lid == 0) bad[0] = 0;
  BARRIER
  getf2(s, lda, n, n, piv, bad, 0, red_v, red_i);
  if (lid == 0) info[info_off + g] = bad[0];
  GLOBAL const T* bg = bm + b_off + g * b_sb;
  GLOBAL T* xg = x + x_off + g * n * nrhs;
  for (i64 c0 = 0; c0 < nrhs; c0 += RHS) {
    const int cb = nrhs - c0 < RHS ? (int)(nrhs - c0) : RHS;
    for (int e = lid; e < n * cb; e += GROUP) {
      const int i = e / cb, c = e - i * cb;
      sb[i + c * n] = bg[i * b_sr + (c0 + c) * b_sc];
    }
    BARRIER
    getrs2(s, lda, piv, sb, n, n, cb);
    for (int e = lid; e < n * cb; e += GROUP) {
      const int i = e / cb, c = e - i * cb;
      xg[i * nrhs + c0 + c] = sb[i + c * n];
    }
    BARRIER
  }
}
//@ k17
// potrf (lower) of a small matrix a work-group, in one launch: A from any strides (as k16) into
// local memory, potf2 there, info written, L written row-major (batch, n, n) with zeros above the
// diagonal: NumPy's cholesky as it returns it. Only A's lower triangle is read.
KERNEL porta_k(GLOBAL const T* a, GLOBAL T* l, GLOBAL int* info, i64 a_off, i64 a_sb, i64 a_sr, i64 a_sc, i64 l_off, i64 info_off,
               int n) {
  __local T s[SMALL * (SMALL + 1)];
  __local int bad[1];
  const int lid = LID, lda = n | 1;
  const i64 g = GROUP_ID;
  load_strided(s, lda, a + a_off + g * a_sb, n, a_sr, a_sc, 1);
  if (lid == 0) bad[0] = 0;
  BARRIER
  potf2(s, lda, n, bad, 0);
  if (lid == 0) info[info_off + g] = bad[0];
  GLOBAL T* lg = l + l_off + g * n * n;
  for (int e = lid; e < n * n; e += GROUP) {
    const int i = e / n, j = e - i * n;
    lg[e] = i >= j ? s[i + j * lda] : MKR((R)0);
  }
}
//@ warp_cuda  the warp solve's exchanges (k18), CUDA's intrinsics: SHFL_R(x, s) and SHFL_I(x, s) the R or int x of lane s of this sub-warp of W work-items, XOR_R(x, m) and XOR_I(x, m) that of lane (this one's ^ m); every lane of the warp reaches every one
#define SHFL_R(x, s) __shfl_sync(0xffffffffu, (x), (s), W)
#define SHFL_I(x, s) __shfl_sync(0xffffffffu, (x), (s), W)
#define XOR_R(x, m) __shfl_xor_sync(0xffffffffu, (x), (m), W)
#define XOR_I(x, m) __shfl_xor_sync(0xffffffffu, (x), (m), W)
//@ warp_ptx  the same in NVIDIA OpenCL's inline PTX (lanes numbered in the warp: the sub-warp's first is WLANE0), 32 bits a shuffle, float64 in two
#define WLANE0 ((LID & 31) & ~(W - 1))
FN uint porta_shfl_idx(uint v, int lane) {
  uint r;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(lane));
  return r;
}
FN uint porta_shfl_bfly(uint v, int m) {
  uint r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(m));
  return r;
}
#define SHFL_I(x, s) ((int)porta_shfl_idx((uint)(x), WLANE0 + (s)))
#define XOR_I(x, m) ((int)porta_shfl_bfly((uint)(x), (m)))
#if RBITS == 64
FN double porta_shfl_idx_f64(double x, int lane) {
  uint2 u = as_uint2(x);
  u.x = porta_shfl_idx(u.x, lane);
  u.y = porta_shfl_idx(u.y, lane);
  return as_double(u);
}
FN double porta_shfl_bfly_f64(double x, int m) {
  uint2 u = as_uint2(x);
  u.x = porta_shfl_bfly(u.x, m);
  u.y = porta_shfl_bfly(u.y, m);
  return as_double(u);
}
#define SHFL_R(x, s) porta_shfl_idx_f64((x), WLANE0 + (s))
#define XOR_R(x, m) porta_shfl_bfly_f64((x), (m))
#else
#define SHFL_R(x, s) as_float(porta_shfl_idx(as_uint(x), WLANE0 + (s)))
#define XOR_R(x, m) as_float(porta_shfl_bfly(as_uint(x), (m)))
#endif
//@ warp_local  the same emulated in local memory, on any device (EMU: k18 stores what a lane gives, a barrier, loads what it takes, a barrier; every work-item runs the same code, so every one reaches every barrier)
#define EMU 1
//@ k18
// gesv of small matrices in registers, without local memory or barriers on GPUs (MAGMA's batched
// tiny LU): a sub-warp of W lanes (the least power of two >= N, 4 at least) a matrix, GROUP / W
// matrices a work-group. Lane i holds row i of A (N values, N the order the program is compiled
// for: every loop unrolled, so that the row stays in registers), read through the view's strides
// as k16, and factors with LAPACK's partial pivoting without moving rows: `pos` is where its row
// stands in the permuted matrix. Each step: the pivot, the first largest ABS1 of column k over the
// rows from k on (NaNs never win; ties to the least row), by a butterfly over the sub-warp of
// (value, pos * 32 + lane); the two rows' positions exchanged; the pivot row taken from its lane
// value by value as the rows below it are updated. A zero pivot sets info (the first one only) and
// its column is not divided, as getf2; the rows are exchanged all the same, which differs from
// getf2 only where that column holds a NaN (whose solution is NaN anyway) and never in info. Then
// lane i takes row i of L\U from the lane that holds it (src: the lane of the i-th pivot, whose
// row of B is row i of P B), and B's columns, CH at a time, go through the forward and back
// substitutions with each solved value taken from its lane; X is written row-major (batch, n,
// nrhs), as k16 writes it.
// Exchanges: XPUT (EMU: a store to local memory), XSYNC (EMU: a barrier), XGET(v, j, s) (v of lane
// s: a shuffle, or EMU's load of that lane's store j).
#if EMU
#define XPUT(v, j) xs[lid * XS + (j)] = (v);
#define XSYNC BARRIER
#define XGET(v, j, s) xs[(sw0 + (s)) * XS + (j)]
#else
#define XPUT(v, j)
#define XSYNC
#if IS_COMPLEX
#define XGET(v, j, s) MKC(SHFL_R(RE(v), (s)), SHFL_R(IM(v), (s)))
#else
#define XGET(v, j, s) SHFL_R((v), (s))
#endif
#endif
#define XS (N > CH ? N : CH + 1)
// The steps' loops: unrolled over N on GPUs; with EMU not unrolled, over the argument n (= N), which
// keeps loops with barriers loops (PoCL took 3 to 7 s to compile them unrolled, 1 s so).
#if EMU
#define KN n
#else
#define KN N
#endif
KERNEL porta_k(GLOBAL const T* a, GLOBAL const T* bm, GLOBAL T* x, GLOBAL int* info, i64 a_off, i64 a_sb, i64 a_sr, i64 a_sc,
               i64 b_off, i64 b_sb, i64 b_sr, i64 b_sc, i64 x_off, i64 info_off, i64 batch, i64 nrhs, int n) {
  const int lid = LID, lane = lid & (W - 1);
#if EMU
  __local T xs[GROUP * XS];
  __local R xv[GROUP];
  __local int xk[GROUP];
  const int sw0 = lid - lane;  // the sub-warp's first work-item
#endif
  const i64 g = GROUP_ID * (GROUP / W) + lid / W;
  const int live = g < batch && lane < N;  // a row of a matrix of the batch
  T r[N];
#pragma unroll
  for (int j = 0; j < N; ++j) r[j] = MKR((R)0);
  if (live) {
    GLOBAL const T* ag = a + a_off + g * a_sb + lane * a_sr;
#pragma unroll
    for (int j = 0; j < N; ++j) r[j] = ag[j * a_sc];
  }
  int pos = lane, src = lane, bad = 0;
#if !EMU
#pragma unroll
#endif
  for (int k = 0; k < KN; ++k) {
    // The pivot: (value, key) reduced to the largest value, then the least key (pos, then lane).
    R v = ABS1(r[k]);
    int key = pos * 32 + lane;
    if (!(v >= (R)0)) v = (R)-1;  // NaN: loses to any number, wins (at the least pos) only among NaNs
    if (pos < k || lane >= N) { v = (R)-2; key = 1 << 20; }
#if EMU
    xv[lid] = v;
    xk[lid] = key;
    BARRIER
    for (int l = 0; l < W; ++l) {
      const R ov = xv[sw0 + l];
      const int ok = xk[sw0 + l];
      if (ov > v || (ov == v && ok < key)) { v = ov; key = ok; }
    }
    BARRIER
#else
#pragma unroll
    for (int m = W / 2; m > 0; m >>= 1) {
      const R ov = XOR_R(v, m);
      const int ok = XOR_I(key, m);
      if (ov > v || (ov == v && ok < key)) { v = ov; key = ok; }
    }
#endif
    const int pk = key >> 5, pv = key & 31;  // the pivot row's position and lane
    if (lane == k) src = pv;
#pragma unroll
    for (int j = 0; j < N; ++j)
      if (j >= k) { XPUT(r[j], j) }
    XSYNC
    const T piv = XGET(r[k], k, pv);
    const int nz = NONZERO(piv);
    if (!nz && bad == 0) bad = k + 1;
    if (pos == k) pos = pk;
    else if (lane == pv) pos = k;
    // The rows below the pivot: column k divided by it (L), the rest minus L(i, k) U(k, j).
    const int below = pos > k;
    const T l = nz ? DIV(r[k], piv) : r[k];
    if (below) r[k] = l;
#pragma unroll
    for (int j = 0; j < N; ++j)
      if (j > k) {
        const T u = XGET(r[j], j, pv);
        if (below) r[j] = SUB(r[j], MUL(l, u));
      }
    XSYNC
  }
  if (lane == 0 && g < batch) info[info_off + g] = bad;
  // Row `lane` of L\U into this lane.
#pragma unroll
  for (int j = 0; j < N; ++j) { XPUT(r[j], j) }
  XSYNC
#pragma unroll
  for (int j = 0; j < N; ++j) r[j] = XGET(r[j], j, src);
  XSYNC
  GLOBAL const T* bg = bm + b_off + g * b_sb + src * b_sr;
  GLOBAL T* xg = x + x_off + (g * N + lane) * nrhs;
  for (i64 c0 = 0; c0 < nrhs; c0 += CH) {
    T y[CH];
#pragma unroll
    for (int c = 0; c < CH; ++c) y[c] = live && c0 + c < nrhs ? bg[(c0 + c) * b_sc] : MKR((R)0);
    // L y = P b: y(k) from lane k, taken off the rows below it.
#if !EMU
#pragma unroll
#endif
    for (int k = 0; k < KN; ++k) {
#pragma unroll
      for (int c = 0; c < CH; ++c) { XPUT(y[c], c) }
      XSYNC
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        const T yk = XGET(y[c], c, k);
        if (lane > k) y[c] = SUB(y[c], MUL(r[k], yk));
      }
      XSYNC
    }
    // U x = y: x(k) = y(k) / U(k, k) from lane k, taken off the rows above it.
#if !EMU
#pragma unroll
#endif
    for (int k = KN - 1; k >= 0; --k) {
#pragma unroll
      for (int c = 0; c < CH; ++c) { XPUT(y[c], c) }
      XPUT(r[k], CH)
      XSYNC
      const T ukk = XGET(r[k], CH, k);
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        const T xk = DIV(XGET(y[c], c, k), ukk);
        if (lane == k) y[c] = xk;
        else if (lane < k) y[c] = SUB(y[c], MUL(r[k], xk));
      }
      XSYNC
    }
    if (live) {
#pragma unroll
      for (int c = 0; c < CH; ++c)
        if (c0 + c < nrhs) xg[c0 + c] = y[c];
    }
  }
}
//@ larfg  a Householder reflector of a strided vector in global memory (k19, k24)
// LAPACK's larfg (without its rescaling of norms below the safe minimum, as geqr2's) by the whole
// work-group on the len elements of x, inc apart, alpha x[0]: H = I - tau v v^H with H^H (alpha,
// x) = (beta, 0), v = (1, x / (alpha - beta)) written over x (its 1 too); returns tau, and beta
// in red_v[0] for work-item 0. len 0: tau and beta 0, x not touched. conj: the vector taken is the
// conjugate of the one stored (v is stored as computed).
FN T larfg_vec(GLOBAL T* x, i64 inc, int len, int conj, LP R* red_v) {
  const int lid = LID;
  R mx = (R)0;
  for (int i = 1 + lid; i < len; i += GROUP) { R v = ABSV(x[i * inc]); mx = v > mx ? v : mx; }
  red_v[lid] = mx;
  BARRIER
  for (int s = GROUP / 2; s > 0; s >>= 1) {
    if (lid < s && red_v[lid + s] > red_v[lid]) red_v[lid] = red_v[lid + s];
    BARRIER
  }
  mx = red_v[0];
  BARRIER
  R ss = (R)0;
  if (mx > (R)0)
    for (int i = 1 + lid; i < len; i += GROUP) {
      T y = SCALE(x[i * inc], (R)1 / mx);
      ss += RE(y) * RE(y) + IM(y) * IM(y);
    }
  red_v[lid] = ss;
  BARRIER
  for (int s = GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) red_v[lid] += red_v[lid + s];
    BARRIER
  }
  const R xnorm = mx > (R)0 ? mx * SQRTR(red_v[0]) : (R)0;
  const T alpha = len == 0 ? MKR((R)0) : conj ? CONJ(x[0]) : x[0];  // len 0: tau 0, beta 0, nothing read or written
  R beta;
  T scal;
  const T tk = householder(alpha, xnorm, &beta, &scal);
  BARRIER  // every work-item has read alpha before work-item 0 writes v's 1 over it
  if (NONZERO(tk))
    for (int i = 1 + lid; i < len; i += GROUP) x[i * inc] = MUL(scal, conj ? CONJ(x[i * inc]) : x[i * inc]);
  // else x is 0: nothing to scale or conjugate
  if (lid == 0) {  // every work-item read red_v[0] (xnorm) before the barrier above
    if (len > 0) x[0] = MKR((R)1);
    red_v[0] = beta;
  }
  return tk;
}
//@ k19
// The tridiagonal reduction (dense.cpp's sytrd; LAPACK's sytd2/hetd2, lower, unblocked), step k of
// a matrix whose both triangles the drivers keep: the reflector H(k) that annihilates A(k+2:n, k)
// (larfg_vec over A(k+1:n, k), v written there with its 1: k20-k22 read it), e[k] = beta, tau[k],
// d[k] = Re A(k, k) (final once step k - 1's update is done). Step n - 1: d[n - 1], tau and e 0
// (larfg_vec of no elements: every work-item reaches its barriers; a return before them, with the
// barriers in larfg_vec, crashed PoCL). A work-group a matrix.
KERNEL porta_k(GLOBAL T* a, GLOBAL R* d, GLOBAL R* e, GLOBAL T* tau, i64 a_off, i64 d_off, i64 e_off, i64 tau_off, int n, int k) {
  __local R red_v[GROUP];
  GLOBAL T* col = a + a_off + GROUP_ID * (i64)n * n + (i64)k * n;
  const i64 bo = GROUP_ID * (i64)n;
  const T tk = larfg_vec(col + k + 1, 1, n - k - 1, 0, red_v);
  if (LID == 0) {
    d[d_off + bo + k] = RE(col[k]);
    e[e_off + bo + k] = red_v[0];
    tau[tau_off + bo + k] = tk;
  }
}
//@ k20
// sytd2's step k, y = A22 v (A22 = A(k+1:n, k+1:n), whole; v = A(k+1:n, k), k19's) in `chunks`
// parts: part c sums columns [c len, (c + 1) len) of A22 into p[(b chunks + c) n + r], a
// work-item a (matrix, part, row), so that a column's reads are coalesced across rows and a
// large matrix still has many work-items.
KERNEL porta_k(GLOBAL const T* a, GLOBAL T* p, i64 a_off, int n, int k, int chunks, i64 batch) {
  const int rows = n - k - 1, len = (rows + chunks - 1) / chunks;
  for (i64 e = GID; e < batch * chunks * rows; e += GSIZE) {
    const i64 b = e / ((i64)chunks * rows);
    const int q = (int)(e - b * chunks * rows), c = q / rows, r = q - c * rows;
    GLOBAL const T* g = a + a_off + b * (i64)n * n + (i64)(k + 1) * n + k + 1;  // A22(0, 0)
    GLOBAL const T* v = g - n;
    const int j0 = c * len, j1 = j0 + len < rows ? j0 + len : rows;
    T s = MKR((R)0);
    for (int j = j0; j < j1; ++j) s = ADD(s, MUL(g[r + (i64)j * n], v[j]));
    p[(b * chunks + c) * n + r] = s;
  }
}
//@ k21
// sytd2's step k, w = tau y + alpha v with alpha = -tau (tau y)^H v / 2 (hetd2's), y the sum of
// k20's parts, into w[b n + r]. A work-group a matrix.
KERNEL porta_k(GLOBAL const T* a, GLOBAL const T* p, GLOBAL const T* tau, GLOBAL T* w, i64 a_off, i64 tau_off, int n, int k, int chunks) {
  __local T red[GROUP];
  const int lid = LID, rows = n - k - 1;
  const i64 b = GROUP_ID;
  GLOBAL const T* v = a + a_off + b * (i64)n * n + (i64)k * n + k + 1;
  GLOBAL T* wb = w + b * n;
  const T tk = tau[tau_off + b * n + k];
  T dot = MKR((R)0);
  for (int r = lid; r < rows; r += GROUP) {
    T y = MKR((R)0);
    for (int c = 0; c < chunks; ++c) y = ADD(y, p[(b * chunks + c) * n + r]);
    y = MUL(tk, y);
    wb[r] = y;
    dot = ADD(dot, MUL(CONJ(y), v[r]));
  }
  red[lid] = dot;
  BARRIER
  for (int s = GROUP / 2; s > 0; s >>= 1) {
    if (lid < s) red[lid] = ADD(red[lid], red[lid + s]);
    BARRIER
  }
  const T alpha = MUL(MKR((R)-0.5), MUL(tk, red[0]));
  for (int r = lid; r < rows; r += GROUP) wb[r] = ADD(wb[r], MUL(alpha, v[r]));  // the work-item's own wb[r]
}
//@ k22
// sytd2's step k, A22 -= v w^H + w v^H over the whole block (both triangles), a work-item an element.
KERNEL porta_k(GLOBAL T* a, GLOBAL const T* w, i64 a_off, int n, int k, i64 batch) {
  const i64 rows = n - k - 1;
  for (i64 e = GID; e < batch * rows * rows; e += GSIZE) {
    const i64 b = e / (rows * rows), q = e - b * rows * rows, j = q / rows, i = q - j * rows;
    GLOBAL T* g = a + a_off + b * (i64)n * n + (i64)(k + 1) * n + k + 1;
    GLOBAL const T* v = g - n;
    GLOBAL const T* wb = w + b * n;
    g[i + j * n] = SUB(g[i + j * n], ADD(MUL(v[i], CONJ(wb[j])), MUL(wb[i], CONJ(v[j]))));
  }
}
//@ k23
// A Hermitian matrix from one triangle (lower, or upper), as LAPACK's heevd reads it: the other
// triangle becomes its conjugate mirror and the diagonal its real part (sytrd's k20 and k22 then
// work on whole blocks).
KERNEL porta_k(GLOBAL T* a, i64 a_off, int n, i64 batch, int lower) {
  const i64 nn = (i64)n * n;
  for (i64 e = GID; e < batch * nn; e += GSIZE) {
    const i64 b = e / nn, q = e - b * nn, j = q / n, i = q - j * n;
    GLOBAL T* g = a + a_off + b * nn;
    if (i == j) g[i + j * n] = MKR(RE(g[i + j * n]));
    else if (lower ? i < j : i > j) g[i + j * n] = CONJ(g[j + i * n]);
  }
}
//@ k24
// The bidiagonal reduction's reflectors (dense.cpp's gebrd; LAPACK's gebd2): larfg_vec of the
// vector of len elements at x_off + GROUP_ID * stride in a, inc apart (a column: 1; a row: lda),
// beta to out[out_off + GROUP_ID * out_stride], tau to tau[tau_off + GROUP_ID * tau_stride]. conj:
// the vector taken is the conjugate of the one stored (a row, reduced from the right: gebrd's G =
// I - tau u u^H then has A G's row = (beta, 0)). A work-group a matrix.
KERNEL porta_k(GLOBAL T* a, GLOBAL R* out, GLOBAL T* tau, i64 x_off, i64 stride, i64 inc, int len, i64 out_off, i64 out_stride,
               i64 tau_off, i64 tau_stride, int conj) {
  __local R red_v[GROUP];
  const T tk = larfg_vec(a + x_off + GROUP_ID * stride, inc, len, conj, red_v);
  if (LID == 0) {
    out[out_off + GROUP_ID * out_stride] = red_v[0];
    tau[tau_off + GROUP_ID * tau_stride] = tk;
  }
}
//@ k25
// y[GROUP_ID] = sum_i conj(v[i]) C(i, j) over rows [0, rows) (gebrd's v^H C of a left reflector),
// C at c_off, v at v_off (both in a, matrices stride apart, lda the leading dimension), j the
// work-group's column: a work-group a (matrix, column), reading down its column.
KERNEL porta_k(GLOBAL const T* a, GLOBAL T* y, i64 c_off, i64 v_off, i64 lda, i64 stride, int rows, int cols) {
  __local T red[GROUP];
  const int lid = LID;
  const i64 g = GROUP_ID, b = g / cols, j = g - b * cols;
  GLOBAL const T* c = a + c_off + b * stride + j * lda;
  GLOBAL const T* v = a + v_off + b * stride;
  T s = MKR((R)0);
  for (int i = lid; i < rows; i += GROUP) s = ADD(s, MUL(CONJ(v[i]), c[i]));
  red[lid] = s;
  BARRIER
  for (int h = GROUP / 2; h > 0; h >>= 1) {
    if (lid < h) red[lid] = ADD(red[lid], red[lid + h]);
    BARRIER
  }
  if (lid == 0) y[g] = red[0];
}
//@ k26
// z = C u in `chunks` parts (gebrd's product with a right reflector; k20's shape): part c of row r
// sums columns [c len, (c + 1) len) of C (rows x cols at c_off in a, lda, matrices stride apart)
// times u (at u_off, u_inc apart: a row of a) into p[(b chunks + c) rows + r].
KERNEL porta_k(GLOBAL const T* a, GLOBAL T* p, i64 c_off, i64 u_off, i64 u_inc, i64 lda, i64 stride, int rows, int cols, int chunks,
               i64 batch) {
  const int len = (cols + chunks - 1) / chunks;
  for (i64 e = GID; e < batch * chunks * rows; e += GSIZE) {
    const i64 b = e / ((i64)chunks * rows);
    const int q = (int)(e - b * chunks * rows), c = q / rows, r = q - c * rows;
    GLOBAL const T* m = a + c_off + b * stride + r;
    GLOBAL const T* u = a + u_off + b * stride;
    const int j0 = c * len, j1 = j0 + len < cols ? j0 + len : cols;
    T s = MKR((R)0);
    for (int j = j0; j < j1; ++j) s = ADD(s, MUL(m[(i64)j * lda], u[(i64)j * u_inc]));
    p[(b * chunks + c) * rows + r] = s;
  }
}
//@ k27
// z[b rows + r] = the sum of k26's parts of row r.
KERNEL porta_k(GLOBAL const T* p, GLOBAL T* z, int rows, int chunks, i64 batch) {
  for (i64 e = GID; e < batch * rows; e += GSIZE) {
    const i64 b = e / rows;
    const int r = (int)(e - b * rows);
    T s = MKR((R)0);
    for (int c = 0; c < chunks; ++c) s = ADD(s, p[(b * chunks + c) * rows + r]);
    z[e] = s;
  }
}
//@ k28
// C -= s x y' (gebrd's rank-one updates): C rows x cols at c_off in a (lda, matrices stride apart),
// x[i] at x_off + b x_stride + i x_inc of x, y'[j] the same of y, conjugated where cy; s = tau[k]
// of the matrix (tau_off + b tau_stride), conjugated where ct.
KERNEL porta_k(GLOBAL T* a, GLOBAL const T* x, GLOBAL const T* y, GLOBAL const T* tau, i64 c_off, i64 lda, i64 stride, i64 rows, i64 cols,
               i64 x_off, i64 x_inc, i64 x_stride, i64 y_off, i64 y_inc, i64 y_stride, i64 tau_off, i64 tau_stride, int cy, int ct,
               i64 batch) {
  for (i64 e = GID; e < batch * rows * cols; e += GSIZE) {
    const i64 b = e / (rows * cols), q = e - b * rows * cols, j = q / rows, i = q - j * rows;
    const T t0 = tau[tau_off + b * tau_stride], s = ct ? CONJ(t0) : t0;
    const T yj = y[y_off + b * y_stride + j * y_inc];
    GLOBAL T* c = a + c_off + b * stride + i + j * lda;
    *c = SUB(*c, MUL(MUL(s, x[x_off + b * x_stride + i * x_inc]), cy ? CONJ(yj) : yj));
  }
}
//@ k29
// CALU's tournament (Grigori, Demmel & Xiang 2011), one round: the panel's rows (panel-relative,
// rows [0, m) of the w columns at a_off) in sets of at most SMALL, a work-group a set: round 0
// (first) splits [0, m) evenly over the `groups` sets (dense.cpp makes every set hold w rows or
// more), later rounds take SMALL candidates at a time of the `count` a matrix in idx_in. A set's
// rows go to local memory, getf2 picks w of them with partial pivoting, and those rows, in its
// pivot order, are the set's candidates (idx_out, w a set). The last round (one set a matrix)
// applies its choice to the panel instead: each chosen row k becomes row k by an exchange with the
// row now there, in order, as getf2 exchanges rows (ipiv[k] = that row + 1 + shift; the chosen
// row's current place is tracked through the exchanges before it), over the panel's w columns;
// then its factored top (L11 and U11 of the chosen rows) is written over the panel's top w rows,
// and a zero pivot's column + 1 + shift goes to info (where 0). The work-group's matrix is
// GROUP_ID / groups. No barrier under a branch (the last round's steps are loops that run no
// trips in the other rounds).
KERNEL porta_k(GLOBAL T* a, GLOBAL const int* idx_in, GLOBAL int* idx_out, GLOBAL int* ipiv, GLOBAL int* info, i64 a_off, i64 lda,
               i64 astride, i64 ipiv_off, i64 ipiv_stride, int m, int w, int count, int groups, i64 info_off, int shift, int first,
               int last) {
  __local R red_v[GROUP];
  __local int red_i[GROUP];
  __local T s[SMALL * COLS];
  __local int idx[SMALL];
  __local int piv[COLS];
  __local int pv[COLS];
  __local int bad[1];
  const int lid = LID;
  const i64 b = GROUP_ID / groups;
  const int g = (int)(GROUP_ID - b * groups);
  GLOBAL T* p = a + a_off + b * astride;
  int rows;
  if (first) {
    const int lo = (int)((i64)g * m / groups);
    rows = (int)((i64)(g + 1) * m / groups) - lo;
    for (int q = lid; q < rows; q += GROUP) idx[q] = lo + q;
  } else {
    rows = count - g * SMALL < SMALL ? count - g * SMALL : SMALL;
    for (int q = lid; q < rows; q += GROUP) idx[q] = idx_in[b * count + g * SMALL + q];
  }
  if (lid == 0) bad[0] = 0;
  BARRIER
  for (int e = lid; e < rows * w; e += GROUP) {
    const int c = e / rows, q = e - c * rows;
    s[q + c * SMALL] = p[idx[q] + (i64)c * lda];
  }
  BARRIER
  getf2(s, SMALL, rows, w, piv, bad, shift, red_v, red_i);
  if (lid == 0) {
    for (int k = 0; k < w; ++k) {
      const int q = piv[k] - 1 - shift, t = idx[k];
      idx[k] = idx[q];
      idx[q] = t;
    }
    if (last) {
      // at[i]: the row now in place i < w; moved_row[d] sits at moved_at[d] >= w (a top row exchanged down).
      int at[COLS], moved_at[COLS], moved_row[COLS], moved = 0;
      for (int k = 0; k < w; ++k) at[k] = k;
      for (int k = 0; k < w; ++k) {
        const int r = idx[k];
        int q = -1, d = -1;
        for (int i = k; i < w && q < 0; ++i)
          if (at[i] == r) q = i;
        for (int e = 0; e < moved && q < 0; ++e)
          if (moved_row[e] == r) { q = moved_at[e]; d = e; }
        if (q < 0) q = r;
        const int out = at[k];
        if (q < w) at[q] = out;
        else if (d >= 0) moved_row[d] = out;
        else { moved_at[moved] = q; moved_row[moved] = out; ++moved; }
        at[k] = r;
        pv[k] = q;
        ipiv[ipiv_off + b * ipiv_stride + k] = q + 1 + shift;
      }
      if (bad[0] != 0 && info[info_off + b] == 0) info[info_off + b] = bad[0];
    }
  }
  BARRIER
  for (int k = lid; k < (last ? 0 : w); k += GROUP) idx_out[(b * groups + g) * w + k] = idx[k];
  for (int c = lid; c < (last ? w : 0); c += GROUP)
    for (int k = 0; k < w; ++k) {
      const int q = pv[k];
      if (q != k) { T t = p[k + (i64)c * lda]; p[k + (i64)c * lda] = p[q + (i64)c * lda]; p[q + (i64)c * lda] = t; }
    }
  BARRIER
  for (int e = lid; e < (last ? w * w : 0); e += GROUP) {
    const int c = e / w, r = e - c * w;
    p[r + (i64)c * lda] = s[r + c * SMALL];
  }
}
//@ k30
// The panel's rows below its top, L21 = A21 U11^-1 (a work-item a row; U11 above the diagonal of
// the panel's top w x w, which the tournament's last round wrote): a zero on U11's diagonal
// leaves its column's value as it is (getf2 does not divide by a zero pivot).
KERNEL porta_k(GLOBAL T* a, i64 a_off, i64 lda, i64 astride, int m, int w, i64 batch) {
  const i64 rows = m - w;
  for (i64 e = GID; e < batch * rows; e += GSIZE) {
    const i64 b = e / rows;
    GLOBAL const T* u = a + a_off + b * astride;
    GLOBAL T* p = a + a_off + b * astride + w + (e - b * rows);
    for (int c = 0; c < w; ++c) {
      T v = p[(i64)c * lda];
      for (int l = 0; l < c; ++l) v = SUB(v, MUL(p[(i64)l * lda], u[l + (i64)c * lda]));
      const T d = u[c + (i64)c * lda];
      p[(i64)c * lda] = NONZERO(d) ? DIV(v, d) : v;
    }
  }
}
//@ k31
// Inverses of diagonal blocks (the blocked solves' and updates' triangular solves become products
// through GEMM, as MAGMA's trsm): work-group (b, k) inverts the block of order min(jb, n - k jb) at
// (k jb, k jb) from a_off of matrix b (astride apart, leading dimension lda), its lower or upper
// triangle (unit: ones on the diagonal, not read), written to w at (b nblk + k) jb jb with leading
// dimension jb, as it is or (herm) conjugate-transposed, zeros outside the triangle. SMALL > 1
// (dense.cpp: jb = SMALL fits 32 KiB): the inverse grows in local memory by right-looking
// substitution, X = I, then for each step k the rows past it (before it, upper) take
// L(i, k) X(k, :) / L(k, k) off, every work-item a few elements, a barrier a step; the rows are
// divided by their diagonal at the end. Else a work-item a column by forward (lower) or backward
// (upper) substitution against e_j in global memory.
KERNEL porta_k(GLOBAL const T* a, GLOBAL T* w, i64 a_off, i64 lda, i64 astride, i64 n, int jb, int nblk, int upper, int unit, int herm) {
  const i64 b = GROUP_ID / nblk;
  const int k = (int)(GROUP_ID - b * nblk);
  const int o = (i64)jb < n - (i64)k * jb ? jb : (int)(n - (i64)k * jb);
  GLOBAL const T* l = a + a_off + b * astride + (i64)k * jb * (lda + 1);
  GLOBAL T* x = w + (b * nblk + k) * jb * jb;
#if SMALL > 1
  __local T xs[SMALL * SMALL];
#define L_(i, j) l[(i) + (i64)(j) * lda]
  for (int e = LID; e < o * o; e += GROUP) {
    const int j = e / o, i = e - j * o;
    xs[e] = MKR(i == j ? (R)1 : (R)0);
  }
  for (int s = 0; s + 1 < o; ++s) {
    BARRIER
    const int kk = upper ? o - 1 - s : s, rows = o - 1 - s, cols = s + 1;  // rows past kk, columns of X's row kk
    const T d = unit ? MKR((R)1) : L_(kk, kk);
    for (int e = LID; e < rows * cols; e += GROUP) {
      const int c = e / rows, r = e - c * rows;
      const int i = upper ? r : kk + 1 + r, j = upper ? kk + c : c;
      xs[i + j * o] = SUB(xs[i + j * o], MUL(L_(i, kk), unit ? xs[kk + j * o] : DIV(xs[kk + j * o], d)));
    }
  }
  BARRIER
  for (int e = LID; e < o * o; e += GROUP) {
    const int j = e / o, i = e - j * o;
    const T v = unit ? xs[e] : DIV(xs[e], L_(i, i));
    x[herm ? j + i * jb : i + j * jb] = herm ? CONJ(v) : v;
  }
#undef L_
#else
#define XI(i) x[herm ? j + (i) * jb : (i) + j * jb]
  for (int j = LID; j < o; j += GROUP) {
    for (int i = 0; i < o; ++i)
      if (upper ? i > j : i < j) XI(i) = MKR((R)0);
    for (int s = 0; s <= (upper ? j : o - 1 - j); ++s) {
      const int i = upper ? j - s : j + s;
      T v = MKR(i == j ? (R)1 : (R)0);
      if (upper)
        for (int q = i + 1; q <= j; ++q) v = SUB(v, MUL(l[i + (i64)q * lda], herm ? CONJ(XI(q)) : XI(q)));
      else
        for (int q = j; q < i; ++q) v = SUB(v, MUL(l[i + (i64)q * lda], herm ? CONJ(XI(q)) : XI(q)));
      if (!unit) v = DIV(v, l[i + (i64)i * lda]);
      XI(i) = herm ? CONJ(v) : v;
    }
  }
#undef XI
#endif
}
//@ k32
// A block of a (rows x cols at a_off, leading dimension lda, matrices astride apart) = w, packed
// (rows x cols a matrix, a matrix after another): a product through GEMM's scratch put back.
KERNEL porta_k(GLOBAL T* a, GLOBAL const T* w, i64 a_off, i64 lda, i64 astride, i64 rows, i64 cols, i64 batch) {
  for (i64 e = GID; e < batch * rows * cols; e += GSIZE) {
    const i64 b = e / (rows * cols), q = e - b * rows * cols, j = q / rows, i = q - j * rows;
    a[a_off + b * astride + i + j * lda] = w[e];
  }
}
//@ k33
// geqr2 of a tall panel over many work-groups, a launch a column (geqrf's inner panels of many
// rows; one work-group walking the whole panel was bounded by one compute unit's bandwidth). The
// panel is rows x w (w <= COLS reflectors, rows >= w) at a_off; work-item r of work-group g holds
// row g GROUP + r of it in registers. Launch j reads column j's sums from the launch before it,
// each work-group's parts summed in the same order by every work-group: the largest magnitude
// below the diagonal and the sum of squares scaled by it (LAPACK's larfg's norm, safe from
// overflow), and d_k = sum over rows i > j of conj(A(i, j)) A(i, k) for k > j, beside row j
// itself (rowbuf: the work-group that holds row j copied it there, as no work-group may read
// another's rows while they change). From them every work-group forms the same beta, tau and
// w_k = v^H A(:, k) = A(j, k) + conj(1 / (alpha - beta)) d_k, writes v over its rows of column j
// and applies H^H (A(:, k) -= conj(tau) w_k v) to its rows, then sums its parts of column j + 1
// into work for the next launch. j = -1: only column 0's parts. work: [2][groups][QRS] parts
// (even and odd columns) and [2][COLS] rows.
#define QRS (COLS + 2)
// The values a work-group sums at once: what 32 KiB of local memory holds (complex128 in groups
// of 256: 8 at a time).
#define QRB_ (32768 / (GROUP * (int)sizeof(T)))
#define QRB (QRB_ < QRS ? QRB_ : QRS)
// tot[q] = the work-group's sums (largest: maxima) of the work-items' private v[q], q < QRS, QRB
// at a time: each value's GROUP entries in red, in parts of 16 summed by one work-item each, then
// the parts by one, in a fixed order. (Written out in the kernel: PoCL ran a function's barriers
// here as if they were not there.)
#define QR_SUMS(v, largest)                                                                  \
  _Pragma("unroll") for (int q0_ = 0; q0_ < QRS; q0_ += QRB) {                               \
    const int n_ = QRS - q0_ < QRB ? QRS - q0_ : QRB, parts_ = GROUP / 16;                   \
    _Pragma("unroll") for (int q_ = 0; q_ < n_; ++q_) red[q_ * GROUP + LID] = v[q0_ + q_];   \
    BARRIER                                                                                  \
    for (int e_ = LID; e_ < n_ * parts_; e_ += GROUP) {                                      \
      const int q_ = e_ / parts_, p_ = e_ - q_ * parts_;                                     \
      T s_ = red[q_ * GROUP + p_ * 16];                                                      \
      for (int r_ = 1; r_ < 16; ++r_) {                                                      \
        const T x_ = red[q_ * GROUP + p_ * 16 + r_];                                         \
        s_ = largest ? (RE(x_) > RE(s_) ? x_ : s_) : ADD(s_, x_);                            \
      }                                                                                      \
      red[q_ * GROUP + p_ * 16] = s_;                                                        \
    }                                                                                        \
    BARRIER                                                                                  \
    if (LID < n_) {                                                                          \
      T s_ = red[LID * GROUP];                                                               \
      for (int p_ = 1; p_ < parts_; ++p_) {                                                  \
        const T x_ = red[LID * GROUP + p_ * 16];                                             \
        s_ = largest ? (RE(x_) > RE(s_) ? x_ : s_) : ADD(s_, x_);                            \
      }                                                                                      \
      tot[q0_ + LID] = s_;                                                                   \
    }                                                                                        \
    BARRIER                                                                                  \
  }
KERNEL porta_k(GLOBAL T* a, GLOBAL T* tau, GLOBAL T* work, i64 a_off, i64 lda, int rows, int w, int j, i64 tau_off, int groups) {
  __local T red[QRB * GROUP];
  __local T tot[QRS];
  const int lid = LID, g = (int)GROUP_ID, i = g * GROUP + lid, in = i < rows, j0 = j < 0 ? 0 : j, jn = j + 1;
  GLOBAL T* p = a + a_off;
  GLOBAL T* parts = work;
  GLOBAL T* rowbuf = work + 2 * (i64)groups * QRS;
  T x[COLS], v[QRS];
#pragma unroll
  for (int k = 0; k < COLS; ++k) x[k] = in && i >= j0 && k >= j0 && k < w ? p[i + (i64)k * lda] : MKR((R)0);
  // Column j's sums over every work-group: the largest magnitude, then the scaled squares and the
  // dots. (Every work-item reaches every barrier: the first launch, j = -1, sums what it does not
  // use, and the last one parts it does not write; PoCL lost barriers under a branch here.)
  GLOBAL const T* pin = parts + (i64)(j0 & 1) * groups * QRS;
  R mx = (R)0;
  if (j >= 0)
    for (int h = lid; h < groups; h += GROUP) mx = RE(pin[h * QRS]) > mx ? RE(pin[h * QRS]) : mx;
#pragma unroll
  for (int q = 0; q < QRS; ++q) v[q] = MKR((R)0);
  v[0] = MKR(mx);
  QR_SUMS(v, 1)
  const R big = RE(tot[0]);
  v[0] = MKR((R)0);
  if (j >= 0)
    for (int h = lid; h < groups; h += GROUP) {
      const R s = big > (R)0 ? RE(pin[h * QRS]) / big : (R)0;
      v[1] = ADD(v[1], MKR(RE(pin[h * QRS + 1]) * s * s));
#pragma unroll
      for (int k = 0; k < COLS; ++k) v[2 + k] = ADD(v[2 + k], pin[h * QRS + 2 + k]);
    }
  QR_SUMS(v, 0)
  if (j >= 0) {
    const R xnorm = big > (R)0 ? big * SQRTR(RE(tot[1])) : (R)0;
    GLOBAL const T* rj = rowbuf + (j & 1) * COLS;
    T alpha = MKR((R)0);
#pragma unroll
    for (int k = 0; k < COLS; ++k)
      if (k == j) alpha = rj[k];
    R beta;
    T scal;
    const T tk = householder(alpha, xnorm, &beta, &scal);
    const int nz = NONZERO(tk);
    const T ct = CONJ(tk), cs = CONJ(scal);
    if (in && i >= j) {
      T vi = MKR((R)1);
#pragma unroll
      for (int k = 0; k < COLS; ++k)
        if (k == j) {
          if (i > j && nz) x[k] = MUL(scal, x[k]);
          if (i > j) vi = x[k];
          if (i == j) x[k] = MKR(beta);
        }
      if (nz)
#pragma unroll
        for (int k = 0; k < COLS; ++k)
          if (k > j && k < w) x[k] = SUB(x[k], MUL(MUL(ct, ADD(rj[k], MUL(cs, tot[2 + k]))), vi));
#pragma unroll
      for (int k = 0; k < COLS; ++k)
        if (k >= j && k < w) p[i + (i64)k * lda] = x[k];
      if (i == j) tau[tau_off + j] = tk;
    }
  }
  // This work-group's parts of column jn over the rows below it, and row jn for the next launch.
  T xn = MKR((R)0);
#pragma unroll
  for (int k = 0; k < COLS; ++k)
    if (k == jn) xn = x[k];
  if (jn < w && in && i == jn)
#pragma unroll
    for (int k = 0; k < COLS; ++k)
      if (k >= jn && k < w) rowbuf[(jn & 1) * COLS + k] = x[k];
  const int below = jn < w && in && i > jn;
#pragma unroll
  for (int q = 0; q < QRS; ++q) v[q] = MKR((R)0);
  v[0] = MKR(below ? ABSV(xn) : (R)0);
  QR_SUMS(v, 1)
  const R gbig = RE(tot[0]);
  const T y = below && gbig > (R)0 ? SCALE(xn, (R)1 / gbig) : MKR((R)0);
  v[0] = MKR((R)0);
  v[1] = MKR(RE(y) * RE(y) + IM(y) * IM(y));
#pragma unroll
  for (int k = 0; k < COLS; ++k) v[2 + k] = below && k > jn && k < w ? MUL(CONJ(xn), x[k]) : MKR((R)0);
  QR_SUMS(v, 0)
  if (jn < w) {
    GLOBAL T* pout = parts + ((i64)(jn & 1) * groups + g) * QRS;
    if (lid == 0) pout[0] = MKR(gbig);
    if (lid > 0 && lid < QRS) pout[lid] = tot[lid];
  }
}
