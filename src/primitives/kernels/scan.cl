// The scans' kernels (primitives/scan.cpp), in OpenCL C with the macros that scan.cpp's scan_defs
// and descriptor_defs and work.cpp's common_prelude write before them (T, OP, IDENT, GROUP, ITEMS,
// TILE, WINDOW, PAD, LID, GROUP_ID, BARRIER, TAKE_TILE, LOCAL_MIN, DESC_*; KERNEL, GLOBAL, i64,
// GID, GSIZE). CUDA takes the same text in its spelling (primitives::kernel_text: __shared__ for
// __local, no __global). Embedded at build time; cut into sections at the `//@ name` lines, a
// section being the text up to the next such line.
//
// lookback: it loads the tile's `count` elements (IDENT past them) into buf, scans each
// work-item's ITEMS in place there (no registers held for them, so that six groups fit an SM:
// scan.cpp's scan_blocks) and leaves the Hillis-Steele inclusive scan of the work-items' totals in
// sums. Where the look-back finds an inclusive prefix (win_v[k], that of tile g - 1 - k), one
// work-item folds the aggregates after it into it, left to right, into shared_t[0], its loads
// eight at a time ahead of the adds.
//@ descriptor  the state word also carries a hash of the value (TAG): a reader that sees a word torn between two stores (were a compiler to split the 16-byte access) finds them disagree and reads again
#define TAG(b) ((((b) * (u64)0x9E3779B97F4A7C15) >> 8) << 8)
#define STATE_OF(w, b) (((w) & ~(u64)0xff) == TAG(b) ? (w) & 0xff : 0)
//@ descriptor_opencl  a tile's state and value as one volatile ulong2 (CUDA's: scan_cuda.cuh)
typedef ulong u64;
#define DESC_PTR __global volatile ulong2*
#define DESC_STORE(i, s, v) { ulong b_ = (v); desc[i] = (ulong2)(TAG(b_) | (ulong)(s), b_); }
#define DESC_LOAD(i, s, v) { ulong2 w_ = desc[i]; (v) = w_.y; (s) = STATE_OF(w_.x, w_.y); }
//@ lookback  the GPU look-back kernel, after `KERNEL ` and CUDA's __launch_bounds__ (scan.cpp's lookback_source tells how it works and what it measured; scan_local_bytes counts its local arrays: keep the two in step)
porta_k(GLOBAL const T* x, GLOBAL T* y, __global volatile int* status, DESC_PTR desc, DESC_PTR unused, i64 x_off, i64 y_off, i64 len, i64 row_tiles) {
  __local T buf[TILE + TILE / 32];
  __local T sums[GROUP];
  __local T win_v[WINDOW];
  __local int win_s[WINDOW];
  __local int shared_i[3];
  __local T shared_t[1];
  int lid = LID;
  if (lid == 0) { shared_i[0] = TAKE_TILE(status); shared_i[2] = WINDOW; }
  BARRIER
  i64 g = shared_i[0], row = g / row_tiles, t = g - row * row_tiles, first = row * row_tiles;
  i64 base = row * len + t * TILE;
  int count = len - t * TILE < TILE ? (int)(len - t * TILE) : TILE;
  for (int k = 0; k < ITEMS; ++k) { int e = k * GROUP + lid; buf[PAD(e)] = e < count ? x[x_off + base + e] : IDENT; }
  BARRIER
  T run = IDENT;
  for (int k = 0; k < ITEMS; ++k) { int p = PAD(lid * ITEMS + k); run = OP(run, buf[p]); buf[p] = run; }
  sums[lid] = run;
  BARRIER
  for (int off = 1; off < GROUP; off <<= 1) {
    T v = lid >= off ? sums[lid - off] : IDENT;
    BARRIER
    if (lid >= off) sums[lid] = OP(v, sums[lid]);
    BARRIER
  }
  T aggregate = sums[GROUP - 1];
  (void)unused;
  if (lid == 0) DESC_STORE(g, t == 0 ? 2 : 1, TO_BITS(aggregate));
  T prefix = IDENT;
  for (;;) {
    for (int w = lid; t > 0 && w < WINDOW; w += GROUP) {
      i64 j = g - 1 - w;
      u64 s = 0, b = 0;
      if (j >= first) DESC_LOAD(j, s, b);
      win_s[w] = (int)s;
      win_v[w] = s != 0 ? FROM_BITS(b) : IDENT;
      if (s != 1) LOCAL_MIN(&shared_i[2], w);
    }
    BARRIER
    if (lid == 0) {
      int done = 1;
      if (t > 0) {
        int k = shared_i[2];
        shared_i[2] = WINDOW;
        done = k < WINDOW && win_s[k] == 2;
        if (done) {
          T v = win_v[k];
          int m = k - 1;
          for (; m >= 7; m -= 8) {
            T u0 = win_v[m], u1 = win_v[m - 1], u2 = win_v[m - 2], u3 = win_v[m - 3];
            T u4 = win_v[m - 4], u5 = win_v[m - 5], u6 = win_v[m - 6], u7 = win_v[m - 7];
            v = OP(v, u0); v = OP(v, u1); v = OP(v, u2); v = OP(v, u3);
            v = OP(v, u4); v = OP(v, u5); v = OP(v, u6); v = OP(v, u7);
          }
          for (; m >= 0; --m) v = OP(v, win_v[m]);
          shared_t[0] = v;
        }
      }
      shared_i[1] = done;
    }
    BARRIER
    if (shared_i[1]) break;
  }
  if (t > 0) {
    prefix = shared_t[0];
    if (lid == 0) { T p = OP(prefix, aggregate); DESC_STORE(g, 2, TO_BITS(p)); }
  }
  T before = lid > 0 ? sums[lid - 1] : IDENT;
  if (t > 0) before = OP(prefix, before);
  for (int k = 0; k < ITEMS; ++k) { int p = PAD(lid * ITEMS + k); buf[p] = OP(before, buf[p]); }
  BARRIER
  for (int k = 0; k < ITEMS; ++k) { int e = k * GROUP + lid; if (e < count) y[y_off + base + e] = buf[PAD(e)]; }
}
//@ lookback_cpu  CPU devices: one work-item a tile, straight from global memory, in parts (scan.cpp's lookback_cpu_source writes the parts' folds and `T aggregate = ...;` after this section)
KERNEL porta_k(GLOBAL const T* x, GLOBAL T* y, __global volatile int* status, __global volatile T* agg, __global volatile T* incl, i64 x_off, i64 y_off, i64 len, i64 row_tiles) {
  __local T win_v[WINDOW];
  __local int win_s[WINDOW];
  i64 g = TAKE_TILE(status), row = g / row_tiles, t = g - row * row_tiles, first = row * row_tiles;
  i64 base = row * len + t * TILE;
  int count = len - t * TILE < TILE ? (int)(len - t * TILE) : TILE;
  GLOBAL const T* in = x + x_off + base;
  GLOBAL T* out = y + y_off + base;
//@ lookback_cpu_publish  the tile's aggregate or (its row's first tile) inclusive prefix published, then the look-back, window by window (then the parts' prefixes and outputs)
  if (t == 0) { incl[g] = aggregate; FENCE status[1 + g] = 2; }
  else { agg[g] = aggregate; FENCE status[1 + g] = 1; }
  T prefix = IDENT;
  if (t > 0) {
    for (;;) {
      for (int w = 0; w < WINDOW; ++w) {
        i64 j = g - 1 - w;
        int s = j >= first ? status[1 + j] : 0;
        FENCE
        win_s[w] = s;
        win_v[w] = s == 2 ? incl[j] : s == 1 ? agg[j] : IDENT;
        if (s != 1) break;
      }
      int k = 0;
      while (k < WINDOW && win_s[k] == 1) ++k;
      if (k < WINDOW && win_s[k] == 2) {
        prefix = win_v[k];
        for (int m = k - 1; m >= 0; --m) prefix = OP(prefix, win_v[m]);
        break;
      }
    }
    incl[g] = OP(prefix, aggregate); FENCE status[1 + g] = 2;
  }
//@ lookback_cpu_end
}
//@ short_rows  whole rows of one tile a work-group; work-item r scans row r left to right in local memory
KERNEL porta_k(GLOBAL const T* x, GLOBAL T* y, i64 x_off, i64 y_off, i64 outer, i64 len, i64 rows_per) {
  __local T buf[TILE + TILE / 32];
  int lid = LID;
  i64 r0 = GROUP_ID * rows_per;
  int rows = outer - r0 < rows_per ? (int)(outer - r0) : (int)rows_per, n = rows * (int)len;
  i64 base = r0 * len;
  for (int e = lid; e < n; e += GROUP) buf[PAD(e)] = x[x_off + base + e];
  BARRIER
  for (int r = lid; r < rows; r += GROUP) {
    T run = IDENT;
    for (int k = 0; k < (int)len; ++k) { int p = PAD(r * (int)len + k); run = OP(run, buf[p]); buf[p] = run; }
  }
  BARRIER
  for (int e = lid; e < n; e += GROUP) y[y_off + base + e] = buf[PAD(e)];
}
//@ short_rows_cpu  CPU devices: straight from global memory, row after row
KERNEL porta_k(GLOBAL const T* x, GLOBAL T* y, i64 x_off, i64 y_off, i64 outer, i64 len, i64 rows_per) {
  i64 r0 = GROUP_ID * rows_per, r1 = r0 + rows_per < outer ? r0 + rows_per : outer;
  for (i64 p = r0 * len; p < r1 * len; p += len) {
    T run = IDENT;
    for (i64 k = 0; k < len; ++k) { run = OP(run, x[x_off + p + k]); y[y_off + p + k] = run; }
  }
}
//@ columns  one work-item a column; eight rows loaded before any is stored (y is not restrict): eight reads in flight a work-item where there are few columns for the whole GPU
KERNEL porta_k(GLOBAL const T* x, GLOBAL T* y, i64 x_off, i64 y_off, i64 outer, i64 len, i64 inner) {
  for (i64 c = GID; c < outer * inner; c += GSIZE) {
    i64 o = c / inner, i = c - o * inner, p = o * len * inner + i;
    T run = IDENT;
    i64 k = 0;
    for (; k + 8 <= len; k += 8, p += 8 * inner) {
      T v[8];
      for (int u = 0; u < 8; ++u) v[u] = x[x_off + p + u * inner];
      for (int u = 0; u < 8; ++u) { run = OP(run, v[u]); y[y_off + p + u * inner] = run; }
    }
    for (; k < len; ++k, p += inner) { run = OP(run, x[x_off + p]); y[y_off + p] = run; }
  }
}
