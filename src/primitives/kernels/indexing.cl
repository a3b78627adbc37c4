// Gathers and scatters (primitives/indexing.cpp), in OpenCL C over the macros of work.cpp's
// common_prelude (KERNEL, GLOBAL, i64, GID, GSIZE) and `typedef ... T`, the unsigned type of the
// elements' size (gathers and scatters move elements without looking at them); compaction's over
// indexing.cpp's mask_bits_text too. CUDA takes the same text in its spelling
// (primitives::kernel_text). Embedded at build time and cut into sections at the
// `//@ name` lines, a section being the text up to the next such line; indexing.cpp puts a
// kernel's sections together in the order they stand here, leaving out those it does not take.
// What is generated per dtype (scatter_add, segment_add, searchsorted: their loads and stores)
// stays in indexing.cpp, as do the CPU devices' gather, mask counts and compress, which write
// their run and tile lengths into their text.
//
//@ gather_head  out[e] = a[..., idx[...], ...]; bad[0..1] (checked gathers): 1 and the first index out of range
KERNEL porta_k(GLOBAL const T* a, GLOBAL const i64* idx, GLOBAL T* out, GLOBAL i64* bad, i64 a_off, i64 idx_off, i64 out_off, i64 bad_off, i64 n, i64 m, i64 inner, i64 len, int along) {
//@ gather_bad_vars  (flat and checked)
  i64 bad_k = 0;
  int saw_bad = 0;
//@ gather_flat  a flat gather (a[idx] of a 1-D array) on GPUs: four elements a work-item per step, a grid apart (each load and store coalesced across work-items), their index loads issued before their gathers; the four values loaded before any is stored (out and a are not restrict, and a store between two gathers would keep the second from being issued before the first returns)
  const i64 step = GSIZE;
  for (i64 b = GID; b < n; b += 4 * step) {
    i64 kk[4];
    T v[4];
    int ok = 0;
    for (int u = 0; u < 4; ++u) kk[u] = b + u * step < n ? idx[idx_off + b + u * step] : 0;
    for (int u = 0; u < 4; ++u) {
      v[u] = 0;
      if (b + u * step >= n) continue;
      i64 k = kk[u];
//@ gather_flat_check  (checked)
      if (k < -len || k >= len) { bad_k = k; saw_bad = 1; continue; }
//@ gather_flat_load
      if (k < 0) k += len;
      v[u] = a[a_off + k];
      ok |= 1 << u;
    }
    for (int u = 0; u < 4; ++u) if ((ok >> u) & 1) out[out_off + b + u * step] = v[u];
  }
//@ gather_bad_report  (flat and checked)
  if (saw_bad) { bad[bad_off] = 1; bad[bad_off + 1] = bad_k; }
//@ gather_end
}
//@ gather_rows  any other gather (along an axis, or take_along_axis with `along`): element e of out is (o, j, i) of its (outer, m, inner)
  for (i64 e = GID; e < n; e += GSIZE) {
    i64 i = e % inner, r = e / inner, j = r % m, o = r / m;
    i64 k = idx[idx_off + (along ? e : j)];
//@ gather_rows_check  (checked)
    if (k < -len || k >= len) { bad[bad_off] = 1; bad[bad_off + 1] = k; continue; }
//@ gather_rows_load
    if (k < 0) k += len;
    out[out_off + e] = a[a_off + (o * len + k) * inner + i];
  }
}
//@ scatter  a[idx[e]] = v[e]
KERNEL porta_k(GLOBAL const i64* idx, GLOBAL const T* v, GLOBAL T* a, i64 idx_off, i64 v_off, i64 a_off, i64 m, i64 len) {
  for (i64 e = GID; e < m; e += GSIZE) {
    i64 k = idx[idx_off + e];
    if (k < 0) k += len;
    a[a_off + k] = v[v_off + e];
  }
}
//@ mask_bits  MASK_BITS: each work-item's ITEMS consecutive mask bytes of the tile (one 8-byte word where the tile is whole and the mask 8-byte aligned) as bits: mbits's bit k is element lid * ITEMS + k
#define MASK_BITS \
  unsigned int mbits = 0; \
  if (count == TILE && ((mask_off & 7) == 0)) { \
    W w = *((GLOBAL const W*)(mask + mask_off + t0 + lid * ITEMS)); \
    for (int k = 0; k < ITEMS; ++k) if ((w >> (8 * k)) & 0xff) mbits |= 1u << k; \
  } else { \
    for (int k = 0; k < ITEMS; ++k) { int e = lid * ITEMS + k; if (e < count && mask[mask_off + t0 + e]) mbits |= 1u << k; } \
  }
//@ mask_counts  (GPUs, after MASK_BITS and TPG) the mask's kept elements a tile: TPG tiles a work-group, a word of each a work-item (their loads in flight together), reduced side by side
KERNEL porta_k(GLOBAL const uchar* mask, GLOBAL i64* counts, i64 mask_off, i64 n) {
  __local int red[TPG * GROUP];
  i64 first = (i64)get_group_id(0) * TPG, tiles = (n + TILE - 1) / TILE; int lid = (int)get_local_id(0);
  int c[TPG];
  for (int j = 0; j < TPG; ++j) {
    i64 t0 = (first + j) * TILE;
    int count = t0 >= n ? 0 : n - t0 < TILE ? (int)(n - t0) : TILE;
    MASK_BITS
    c[j] = POPCOUNT(mbits);
  }
  for (int j = 0; j < TPG; ++j) red[j * GROUP + lid] = c[j];
  BARRIER
  for (int h = GROUP / 2; h > 0; h >>= 1) {
    if (lid < h) for (int j = 0; j < TPG; ++j) red[j * GROUP + lid] += red[j * GROUP + lid + h];
    BARRIER
  }
  if (lid < TPG && first + lid < tiles) counts[first + lid] = red[lid * GROUP];
}
//@ compress  (GPUs, after T and MASK_BITS) a tile a work-group: its values read in order of work-items (coalesced) into local memory, each work-item's kept elements packed at its offset within the tile into a second local array, then that written out in order of work-items from the tile's offset (prefix: the tiles' inclusive counts): coalesced writes
KERNEL porta_k(GLOBAL const T* a, GLOBAL const uchar* mask, GLOBAL const i64* prefix, GLOBAL T* out, i64 a_off, i64 mask_off, i64 pre_off, i64 out_off, i64 n) {
  __local T buf[TILE + TILE / 32];
  __local T stage[TILE];
  __local int sums[GROUP];
  i64 tile = (i64)get_group_id(0); int lid = (int)get_local_id(0);
  i64 t0 = tile * TILE; int count = n - t0 < TILE ? (int)(n - t0) : TILE;
  for (int k = 0; k < ITEMS; ++k) { int e = k * GROUP + lid; if (e < count) buf[PAD(e)] = a[a_off + t0 + e]; }
  MASK_BITS
  sums[lid] = POPCOUNT(mbits);
  BARRIER
  for (int off = 1; off < GROUP; off <<= 1) {
    int v = lid >= off ? sums[lid - off] : 0;
    BARRIER
    if (lid >= off) sums[lid] += v;
    BARRIER
  }
  int pos = lid > 0 ? sums[lid - 1] : 0, total = sums[GROUP - 1];
  for (int k = 0; k < ITEMS; ++k) if ((mbits >> k) & 1u) stage[pos++] = buf[PAD(lid * ITEMS + k)];
  BARRIER
  i64 p0 = out_off + (tile > 0 ? prefix[pre_off + tile - 1] : 0);
  for (int e = lid; e < total; e += GROUP) out[p0 + e] = stage[e];
}
