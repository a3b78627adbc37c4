// The radix sort's kernels (primitives/radix_sort.cpp), in OpenCL C with the macros that
// radix_sort.cpp's defs and work.cpp's common_prelude write before them (RT, KT, PT, PO, u32, u64,
// HAS_PAY, GROUP, ITEMS, TILE, WARPS, DIGITS, LID, GROUP_ID, BARRIER, DIGIT, BOUNDS; KERNEL,
// GLOBAL, i64), defs taking the dialect's POPC and LATOMIC_ADD and the ranking's BALLOT, SHFL_UP,
// PEERS and WSYNC from the ops_*, rank_* and peers_ballot sections below. CUDA takes the same text
// in its spelling (primitives::kernel_text: __shared__ for __local). Embedded at build time and
// cut into sections at the `//@ name` lines, a section being the text up to the next such line;
// radix_sort.cpp puts a kernel's sections together in the order they stand here, leaving out
// those its plan does not take and writing group_scan's text between downsweep_digits and
// downsweep_tiles and (without ballots) in place of downsweep_tile_scan_ballot.
//
//@ ops_opencl  (after defs' per-plan defines) OpenCL's: no register bound, popcount, local atomics
#define BOUNDS
#define POPC(x) popcount(x)
#define LATOMIC_ADD(p, v) atomic_add((volatile __local uint*)(p), (v))
#define GATOMIC_ADD(p, v) atomic_add((volatile __global uint*)(p), (v))
#define TAKE_TILE(p) atomic_add((volatile __global int*)(p), 1)
//@ ops_cuda  (after BOUNDS, the __launch_bounds__ radix_sort.cpp's defs writes) CUDA's
#define POPC(x) __popc(x)
#define LATOMIC_ADD(p, v) atomicAdd((p), (v))
#define GATOMIC_ADD(p, v) atomicAdd((unsigned int*)(p), (v))
#define TAKE_TILE(p) atomicAdd((int*)(p), 1)
//@ rank_ballot_cuda  BALLOT(pred, out): the warp's mask of work-items whose pred (0/1) is 1; SHFL_UP(v, o, out): v of the work-item o lanes below (every work-item of the warp reaches both). CUDA's intrinsics
#define BALLOT(pr, out) out = __ballot_sync(0xffffffffu, (pr));
#define SHFL_UP(v, o, out) out = __shfl_up_sync(0xffffffffu, (v), (o));
#define WSYNC __syncwarp();
//@ rank_ballot_ptx  the same in NVIDIA OpenCL's inline PTX
#define BALLOT(pr, out) { u32 pr_ = (pr); asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }" : "=r"(out) : "r"(pr_)); }
#define SHFL_UP(v, o, out) { u32 v_ = (v), o_ = (o); asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(out) : "r"(v_), "r"(o_)); }
#define WSYNC asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
//@ rank_ballot_local  the same emulated in local memory (pd), on any device
#define BALLOT(pr, out) { pd[lid] = (pr); BARRIER out = 0; for (int j_ = 0; j_ < 32; ++j_) out |= pd[(lid & ~31) + j_] << j_; BARRIER }
#define SHFL_UP(v, o, out) { pd[lid] = (v); BARRIER out = (lid & 31) >= (o) ? pd[lid - (o)] : pd[lid]; BARRIER }
#define WSYNC BARRIER
//@ rank_tiled  PEERS(dg, m): the work-items of the warp with digit dg; here through local memory, each work-item reading its warp's 32 digits
#define PEERS(dg, m) { pd[lid] = (dg); BARRIER m = 0; for (int j_ = 0; j_ < 32; ++j_) m |= (u32)(pd[(lid & ~31) + j_] == (dg)) << j_; }
#define WSYNC BARRIER
//@ peers_ballot  (rankings with ballots) PEERS from the votes on each of the digit's 8 bits, as CUB's MatchAny (the downsweep masks out the work-items past the end)
#define PEERS(dg, m) { u32 dg_ = (dg); m = 0xffffffffu; for (int b_ = 0; b_ < 8; ++b_) { u32 bit_ = (dg_ >> b_) & 1u, v_; BALLOT(bit_, v_); m &= bit_ ? v_ : ~v_; } }
//@ peers_ptx  (CUDA and NVIDIA's OpenCL) the same votes in PTX, each inverted by a predicated not where the work-item's bit is 0 (CUB's MatchAny): five instructions a bit, where peers_ballot's compiled to seven
#define PEER_BIT(m, dg, b) asm volatile("{ .reg .pred p; .reg .b32 t, v; and.b32 t, %1, %2; setp.ne.u32 p, t, 0; vote.sync.ballot.b32 v, p, 0xffffffff; @!p not.b32 v, v; and.b32 %0, %0, v; }" : "+r"(m) : "r"(dg), "r"(1u << (b)));
#define PEERS(dg, m) { u32 dg_ = (dg); m = 0xffffffffu; PEER_BIT(m, dg_, 0) PEER_BIT(m, dg_, 1) PEER_BIT(m, dg_, 2) PEER_BIT(m, dg_, 3) PEER_BIT(m, dg_, 4) PEER_BIT(m, dg_, 5) PEER_BIT(m, dg_, 6) PEER_BIT(m, dg_, 7) }
//@ scan  counts[d * G + :] := its exclusive prefix over chunks, totals[d] := its sum; a work-group per digit (after its own defines: u64, SG, LID, GROUP_ID, BARRIER)
KERNEL porta_k(GLOBAL u64* counts, GLOBAL u64* totals, i64 G) {
  __local u64 sh[SG];
  int lid = LID;
  i64 dg = GROUP_ID, per = (G + SG - 1) / SG, lo = lid * per, hi = lo + per < G ? lo + per : G;
  GLOBAL u64* row = counts + dg * G;
  u64 s = 0;
  for (i64 j = lo; j < hi; ++j) s += row[j];
  sh[lid] = s;
  BARRIER
  if (lid == 0) { u64 r = 0; for (int j = 0; j < SG; ++j) { u64 v = sh[j]; sh[j] = r; r += v; } totals[dg] = r; }
  BARRIER
  u64 r = sh[lid];
  for (i64 j = lo; j < hi; ++j) { u64 v = row[j]; row[j] = r; r += v; }
}
//@ upsweep_serial  the pass's upsweep, one work-item a chunk: counts[digit * G + chunk] of chunk [chunk * csize, ...) of n
KERNEL porta_k(GLOBAL const RT* keys, GLOBAL const PT* pay, GLOBAL u64* counts, i64 k_off, i64 n, i64 csize, i64 G, int shift, int desc, int by_row, i64 len) {
  i64 b = GROUP_ID, lo = b * csize, hi = lo + csize < n ? lo + csize : n;
  u32 c[DIGITS];
  for (int q = 0; q < DIGITS; ++q) c[q] = 0;
  for (i64 e = lo; e < hi; ++e) { u32 dg; DIGIT(keys[k_off + e], HAS_PAY ? pay[e] : 0, dg); c[dg]++; }
  for (int q = 0; q < DIGITS; ++q) counts[(i64)q * G + b] = c[q];
}
//@ upsweep  the same, a work-group a chunk: histograms in local memory, four a warp (work-items lid % 4 share one), each 257 counters apart, so that keys of few digits collide on fewer counters and banks (radix_sort.cpp's upsweep_source)
KERNEL porta_k(GLOBAL const RT* keys, GLOBAL const PT* pay, GLOBAL u64* counts, i64 k_off, i64 n, i64 csize, i64 G, int shift, int desc, int by_row, i64 len) {
  i64 b = GROUP_ID, lo = b * csize, hi = lo + csize < n ? lo + csize : n;
#define HCOPIES (WARPS * 4)
#define HSTRIDE (DIGITS + 1)
  __local u32 h[HCOPIES * HSTRIDE];
  int lid = LID, hc = (lid >> 5) * 4 + (lid & 3);
  for (int q = lid; q < HCOPIES * HSTRIDE; q += GROUP) h[q] = 0;
  BARRIER
  for (i64 e0 = lo; e0 < hi; e0 += 8 * GROUP) {
    u32 dg[8];
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      i64 e = e0 + q * GROUP + lid;
      dg[q] = DIGITS;
      if (e < hi) DIGIT(keys[k_off + e], HAS_PAY ? pay[e] : 0, dg[q]);
    }
#pragma unroll
    for (int q = 0; q < 8; ++q)
      if (dg[q] < DIGITS) LATOMIC_ADD(&h[hc * HSTRIDE + dg[q]], 1u);
  }
  BARRIER
  { u64 c = 0; for (int w = 0; w < HCOPIES; ++w) c += h[w * HSTRIDE + lid]; counts[(i64)lid * G + b] = c; }
}
//@ downsweep_serial  the pass's downsweep, one work-item a chunk, in order
KERNEL BOUNDS porta_k(GLOBAL const RT* keys, GLOBAL const PT* pay_in, GLOBAL const u64* counts, GLOBAL const u64* totals, GLOBAL RT* keys_out, GLOBAL PO* pay_out, i64 k_off, i64 ko_off, i64 po_off, i64 n, i64 csize, i64 G, int shift, int desc, int by_row, i64 len, int iota) {
  i64 b = GROUP_ID, lo = b * csize, hi = lo + csize < n ? lo + csize : n;
#define LOAD_PAY(e) (HAS_PAY ? (iota ? (PT)(e) : pay_in[e]) : (PT)0)
#define STORE(pos, raw, p) { keys_out[ko_off + (pos)] = (raw); if (HAS_PAY) pay_out[po_off + (pos)] = (PO)(p); }
  u64 off[DIGITS];
  u64 r = 0;
  for (int q = 0; q < DIGITS; ++q) { u64 t = totals[q]; off[q] = r + counts[(i64)q * G + b]; r += t; }
  for (i64 e = lo; e < hi; ++e) {
    RT raw = keys[k_off + e]; PT p = LOAD_PAY(e); u32 dg; DIGIT(raw, p, dg);
    u64 pos = off[dg]++;
    STORE(pos, raw, p)
  }
}
//@ downsweep  a work-group a chunk, tile by tile: each warp ranks its elements by digit (PEERS), the tile is scattered in local memory by digit and written out in that order (radix_sort.cpp's downsweep_source)
KERNEL BOUNDS porta_k(GLOBAL const RT* keys, GLOBAL const PT* pay_in, GLOBAL const u64* counts, GLOBAL const u64* totals, GLOBAL RT* keys_out, GLOBAL PO* pay_out, i64 k_off, i64 ko_off, i64 po_off, i64 n, i64 csize, i64 G, int shift, int desc, int by_row, i64 len, int iota) {
  i64 b = GROUP_ID, lo = b * csize, hi = lo + csize < n ? lo + csize : n;
#define LOAD_PAY(e) (HAS_PAY ? (iota ? (PT)(e) : pay_in[e]) : (PT)0)
#define STORE(pos, raw, p) { keys_out[ko_off + (pos)] = (raw); if (HAS_PAY) pay_out[po_off + (pos)] = (PO)(p); }
  __local RT kbuf[TILE];
//@ downsweep_pay_buffer  (with indices)
  __local PT pbuf[TILE];
//@ downsweep_tables
  __local u32 wh[WARPS * DIGITS];
  __local OFF_T goff[DIGITS];
  __local u64 s64a[DIGITS];
  __local u64 s64b[DIGITS];
  __local u32 tstart[DIGITS];
//@ downsweep_peer_digits  (rankings through local memory: tiled, ballot_local)
  __local u32 pd[GROUP];
//@ downsweep_warp_totals  (rankings with ballots)
  __local u32 wtot[WARPS];
//@ downsweep_digits  where this chunk's run of each digit starts: incl, the inclusive scan of tot (group_scan, radix_sort.cpp)
  __local int trivial[1];
  int lid = LID, warp = lid >> 5, lane = lid & 31;
  u64 tot = totals[lid];
  if (lid == 0) trivial[0] = 0;
  u64 incl;
//@ downsweep_tiles  the chunk's digit offsets, then its tiles (the ranking: tile_rank)
  goff[lid] = incl - tot + counts[(i64)lid * G + b];
  if (tot == (u64)n) trivial[0] = 1;
  BARRIER
  if (trivial[0]) {  // one digit: the pass keeps the order
    for (i64 e = lo + lid; e < hi; e += GROUP) { RT raw = keys[k_off + e]; PT p = LOAD_PAY(e); STORE(e, raw, p) }
    return;
  }
  for (i64 t0 = lo; t0 < hi; t0 += TILE) {
//@ tile_rank  (downsweep and onesweep) the tile [t0, min(t0 + TILE, hi)) ranked: round q of warp w takes the tile's elements w * 32 * ITEMS + q * 32 + lane (the tile's order), all of a work-item's loads first (ITEMS in flight), then the rounds; work-items past the end vote with digit 0 and are masked out of every peer set (vm: the round's lanes inside the tile), where a ninth vote had told them apart: 8 votes an element; tcount: the tile's count of digit lid
    for (int q = lid; q < WARPS * DIGITS; q += GROUP) wh[q] = 0;
    BARRIER
    RT kr[ITEMS];
    PT pr[ITEMS];
    u32 dr[ITEMS];  // digit | rank in the warp << 16
    i64 e0 = t0 + (i64)warp * (32 * ITEMS) + lane, rem = hi - e0;
    const int rc = rem + lane >= 32 * ITEMS ? 32 * ITEMS : rem + lane <= 0 ? 0 : (int)(rem + lane);
    GLOBAL const RT* kp = keys + k_off + e0;
    GLOBAL const PT* pp = pay_in + e0;
#pragma unroll
    for (int q = 0; q < ITEMS; ++q) {
      kr[q] = q * 32 + lane < rc ? kp[q * 32] : (RT)0;
      pr[q] = q * 32 + lane < rc ? (HAS_PAY ? (iota ? (PT)(e0 + q * 32) : pp[q * 32]) : (PT)0) : (PT)0;
    }
#pragma unroll
    for (int q = 0; q < ITEMS; ++q) {
      const int c_ = rc - q * 32, in_ = lane < c_;
      const u32 vm = c_ >= 32 ? 0xffffffffu : (1u << ((u32)c_ & 31u)) - 1u;  // c_ <= 0: no work-item is in, any mask will do
      u32 dg = 0;
      if (in_) DIGIT(kr[q], pr[q], dg);
      u32 m; PEERS(dg, m);
      m &= vm;
      u32 lower = POPC(m & ((1u << lane) - 1u)), cnt = POPC(m);
      u32 before = in_ ? wh[warp * DIGITS + dg] : 0u;
      WSYNC
      if (in_ && lower == cnt - 1u) wh[warp * DIGITS + dg] = before + cnt;
      WSYNC
      dr[q] = in_ ? dg | ((before + lower) << 16) : (u32)DIGITS;
    }
    BARRIER
    u32 tcount = 0;
    for (int w = 0; w < WARPS; ++w) { u32 v = wh[w * DIGITS + lid]; wh[w * DIGITS + lid] = tcount; tcount += v; }
//@ downsweep_tile_scan_ballot  the tile's digit counts (tcount of digit lid) scanned: warp shuffles, then the warps' totals (without ballots: group_scan over s64a, s64b)
    u32 tincl = tcount;
    for (int o = 1; o < 32; o <<= 1) { u32 y; SHFL_UP(tincl, o, y); if (lane >= o) tincl += y; }
    if (lane == 31) wtot[warp] = tincl;
    BARRIER
    for (int w = 0; w < warp; ++w) tincl += wtot[w];
//@ downsweep_scatter  the tile's elements into local memory in digit order
    tstart[lid] = tincl - tcount;
    goff[lid] -= (OFF_T)(tincl - tcount);  // goff[d] + i: the place of the tile's element i (one table read in the write-out)
    BARRIER
#pragma unroll
    for (int q = 0; q < ITEMS; ++q) {
      u32 dg = dr[q] & 0xffffu;
      if (dg < DIGITS) {
        u32 pos = tstart[dg] + wh[warp * DIGITS + dg] + (dr[q] >> 16);
        kbuf[pos] = kr[q];
//@ downsweep_scatter_pay  (with indices)
        pbuf[pos] = pr[q];
//@ downsweep_write  then out to each digit's run, in order
      }
    }
    BARRIER
    int count = hi - t0 < TILE ? (int)(hi - t0) : TILE;
    for (int i = lid; i < count; i += GROUP) {
//@ downsweep_read_pay  (with indices)
      RT raw = kbuf[i]; PT p = pbuf[i]; u32 dg; DIGIT(raw, p, dg);
//@ downsweep_read  (without)
      RT raw = kbuf[i]; PT p = (PT)0; u32 dg; DIGIT(raw, p, dg);
//@ downsweep_end
      OFF_T pos = goff[dg] + (OFF_T)i;
      STORE(pos, raw, p)
    }
    BARRIER
    goff[lid] += (OFF_T)tstart[lid] + tcount;
  }
}
//@ histogram  (onesweep) every pass's digit counts in one read of the keys: hist[pass * DIGITS + digit], a work-group a chunk [chunk * csize, ...) of n, HCOPY copies of the histograms in local memory (work-item lid adds to copy lid % HCOPY, so that keys of few digits collide on fewer counters), added to hist with global atomics; an element's row digits (by_row) from its flat index e; hist[FLAG] counts the work-groups that met a SPECIAL key (floats: -0.0, a NaN other than the canonical one)
KERNEL porta_k(GLOBAL const RT* keys, GLOBAL u32* hist, i64 k_off, i64 n, i64 csize, int key_passes, int passes, int desc, i64 len) {
  __local u32 h[HCOPY * HPASSES * DIGITS];
  __local u32 special[1];
  int lid = LID, copy = (lid % HCOPY) * HPASSES * DIGITS;
  i64 b = GROUP_ID, lo = b * csize, hi = lo + csize < n ? lo + csize : n;
  for (int q = lid; q < HCOPY * HPASSES * DIGITS; q += GROUP) h[q] = 0;
  if (lid == 0) special[0] = 0;
  u32 sp = 0;
  BARRIER
  for (i64 e0 = lo; e0 < hi; e0 += 8 * GROUP) {  // eight loads in flight a work-item, then their counts
    RT raw[8];
#pragma unroll
    for (int q = 0; q < 8; ++q) { i64 e = e0 + q * GROUP + lid; raw[q] = e < hi ? keys[k_off + e] : (RT)0; }
#pragma unroll
    for (int q = 0; q < 8; ++q) {
      i64 e = e0 + q * GROUP + lid;
      if (e < hi) {
        SPECIAL(raw[q], sp)
        for (int p = 0; p < passes; ++p) {
          const int by_row = p >= key_passes, shift = 8 * (by_row ? p - key_passes : p);
          u32 dg; DIGIT(raw[q], (PT)e, dg);
          LATOMIC_ADD(&h[copy + p * DIGITS + dg], 1u);
        }
      }
    }
  }
  if (sp) LATOMIC_ADD(&special[0], 1u);
  BARRIER
  if (lid == 0 && special[0]) GATOMIC_ADD(&hist[FLAG], 1u);
  for (int q = lid; q < passes * DIGITS; q += GROUP) {
    u32 c = 0;
    for (int k = 0; k < HCOPY; ++k) c += h[k * HPASSES * DIGITS + q];
    if (c) GATOMIC_ADD(&hist[q], c);
  }
}
//@ onesweep  one pass of the one-sweep sort (radix_sort.cpp's onesweep_source): a work-group a tile, tiles taken in launch order from counter[pass] (a work-group only ever waits on tiles that running work-groups took before it); the tile is ranked as in the downsweep (the same sections), its digit counts published in look[tile * DIGITS + digit], each work-item looks back over the tiles before it for its digit's offset, and the tile goes out through local memory as in the downsweep; FORM_OUT(v) turns a key going out into the form the next pass reads (form: radix_sort.cpp's stored_form)
KERNEL BOUNDS porta_k(GLOBAL const RT* keys, GLOBAL const PT* pay_in, GLOBAL const u32* hist, __global volatile u32* look, __global volatile int* counter, GLOBAL RT* keys_out, GLOBAL PO* pay_out, i64 k_off, i64 ko_off, i64 po_off, i64 n, int pass, int shift, int desc, int by_row, i64 len, int iota, int form) {
#define LOAD_PAY(e) (HAS_PAY ? (iota ? (PT)(e) : pay_in[e]) : (PT)0)
  GLOBAL RT* kout_ = keys_out + ko_off;  // positions are 32-bit (n < 2^30): the offsets added once
  GLOBAL PO* pout_ = pay_out + po_off;
#define STORE(pos, raw, p) { RT o_ = (raw); FORM_OUT(o_) kout_[pos] = o_; if (HAS_PAY) pout_[pos] = (PO)(p); }
  __local RT kbuf[TILE];
//@ onesweep_digits  (after the downsweep's tables) the pass's digit totals from the histogram, the tile's index taken; then group_scan: incl, the inclusive scan of tot over digits
  __local int trivial[1];
  __local int tile_id[1];
  int lid = LID, warp = lid >> 5, lane = lid & 31;
  u64 tot = hist[pass * DIGITS + lid];
  if (lid == 0) { trivial[0] = 0; tile_id[0] = TAKE_TILE(counter + pass); }
  u64 incl;
//@ onesweep_tile  a pass whose digit is the same for every element copies the tile; others rank it (tile_rank)
  if (tot == (u64)n) trivial[0] = 1;
  BARRIER
  const i64 tile = tile_id[0], lo = tile * TILE, hi = lo + TILE < n ? lo + TILE : n;
  if (trivial[0]) {  // one digit: the pass keeps the order
    for (i64 e = lo + lid; e < hi; e += GROUP) { RT raw = keys[k_off + e]; PT p = LOAD_PAY(e); STORE(e, raw, p) }
    return;
  }
//@ onesweep_block  the tile's work, a block (radix_sort.cpp's onesweep_source writes it twice for floats: with the fast key where hist[FLAG] is 0, else with the full one)
  {
    const i64 t0 = lo;
//@ onesweep_publish  (after tile_rank) the tile's count of digit lid published: a 32-bit word, the state in its top two bits (0: nothing yet, AGGREGATE: this tile's count, PREFIX: the count over this tile and all before it) and the count below (n < 2^30), written and read as one word, so that no reader sees a state with another count
#define AGGREGATE 0x40000000u
#define PREFIX 0x80000000u
#define COUNT_MASK 0x3fffffffu
    __global volatile u32* mine = look + tile * DIGITS + lid;
    *mine = (tile == 0 ? PREFIX : AGGREGATE) | tcount;
//@ onesweep_lookback  (after the tile's scan) digit lid's offset: the counts of the tiles before, walked back from the nearest until a PREFIX (tile 0's always is), waiting where a tile has published nothing yet; this tile's PREFIX published; goff: where the tile's run of the digit starts in the output
    u32 excl = 0;
    if (tile > 0) {
      __global volatile u32* p = mine - DIGITS;
      for (;;) {
        const u32 w = *p;
        if (w == 0u) continue;  // that tile has not published yet: it is running (it took its index first)
        excl += w & COUNT_MASK;
        if (w & PREFIX) break;
        p -= DIGITS;
      }
      *mine = PREFIX | (excl + tcount);
    }
//@ onesweep_offset  (late) the digit's start from the work-group's own scan of the pass's totals
    goff[lid] = incl - tot + excl;
//@ digit_starts  (early) the digit starts of every pass, once a sort (CUB's exclusive sum kernel): a work-group of DIGITS work-items a pass, hist[STARTS + pass * DIGITS + d] := the count of digits below d in hist[pass * DIGITS + :]
KERNEL porta_k(GLOBAL u32* hist) {
  __local u32 sa[DIGITS], sb[DIGITS];
  int lid = LID;
  i64 pass = GROUP_ID;
  u32 c = hist[pass * DIGITS + lid];
  sa[lid] = c;
  BARRIER
  int src = 0;
  for (int off = 1; off < DIGITS; off <<= 1) {
    u32 x = src ? sb[lid] : sa[lid];
    if (lid >= off) x += src ? sb[lid - off] : sa[lid - off];
    if (src) sa[lid] = x; else sb[lid] = x;
    src ^= 1;
    BARRIER
  }
  hist[STARTS + pass * DIGITS + lid] = (src ? sb[lid] : sa[lid]) - c;
}
//@ early_count  (PORTA_ONESWEEP=early, CUB's order: counts, publish, rank, look back) after onesweep_tile: the tile's keys loaded as tile_rank loads them, then counted into the warps' histograms with local atomics (CUB's early counts) before any ranking, so that the tile publishes its counts after one pass over its registers; tcount: the tile's count of digit lid, wh[w * DIGITS + d]: the count of digit d in the warps before w
    for (int q = lid; q < WARPS * DIGITS; q += GROUP) wh[q] = 0;
    BARRIER
    RT kr[ITEMS];
    PT pr[ITEMS];
    i64 e0 = t0 + (i64)warp * (32 * ITEMS) + lane, rem = hi - e0;
    const int rc = rem + lane >= 32 * ITEMS ? 32 * ITEMS : rem + lane <= 0 ? 0 : (int)(rem + lane);
    GLOBAL const RT* kp = keys + k_off + e0;
    GLOBAL const PT* pp = pay_in + e0;
#pragma unroll
    for (int q = 0; q < ITEMS; ++q) {
      kr[q] = q * 32 + lane < rc ? kp[q * 32] : (RT)0;
      pr[q] = q * 32 + lane < rc ? (HAS_PAY ? (iota ? (PT)(e0 + q * 32) : pp[q * 32]) : (PT)0) : (PT)0;
    }
#pragma unroll
    for (int q = 0; q < ITEMS; ++q)
      if (q * 32 + lane < rc) { u32 dg; DIGIT(kr[q], pr[q], dg); LATOMIC_ADD(&wh[warp * DIGITS + dg], 1u); }
    BARRIER
    u32 tcount = 0;
    for (int w = 0; w < WARPS; ++w) { u32 v = wh[w * DIGITS + lid]; wh[w * DIGITS + lid] = tcount; tcount += v; }
//@ early_publish  the tile's counts published at once (onesweep_publish's words); tile 0's PREFIX holds the digit's start in the output besides (digit_starts'), so that every look-back ends with the digit's place in the output and no work-group scans the totals
#define AGGREGATE 0x40000000u
#define PREFIX 0x80000000u
#define COUNT_MASK 0x3fffffffu
    __global volatile u32* mine = look + tile * DIGITS + lid;
    const u32 start = tile == 0 ? hist[STARTS + pass * DIGITS + lid] : 0u;
    *mine = tile == 0 ? PREFIX | (start + tcount) : AGGREGATE | tcount;
//@ early_rank  (after the tile's scan: tincl) wh[w * DIGITS + d] := where warp w's elements of digit d start in the tile; then each round ranks its elements as tile_rank does, dr holding each one's place in the tile (the warps' histograms already hold the tile's offsets, so no scan follows), and the tile goes to local memory after the rounds (CUB's ranks in registers, then ScatterKeysShared; stored in each round, the elements came out wrong on PoCL, a cause not found), EARLY_PAY storing an index beside its key
    u32 texcl = tincl - tcount;
    for (int w = 0; w < WARPS; ++w) wh[w * DIGITS + lid] += texcl;
    BARRIER
    u32 dr[ITEMS];  // the elements' places in the tile (TILE: none)
#pragma unroll
    for (int q = 0; q < ITEMS; ++q) {
      const int c_ = rc - q * 32, in_ = lane < c_;
      const u32 vm = c_ >= 32 ? 0xffffffffu : (1u << ((u32)c_ & 31u)) - 1u;  // c_ <= 0: no work-item is in, any mask will do
      u32 dg = 0;
      if (in_) DIGIT(kr[q], pr[q], dg);
      u32 m; PEERS(dg, m);
      m &= vm;
      u32 lower = POPC(m & ((1u << lane) - 1u)), cnt = POPC(m);
      u32 before = in_ ? wh[warp * DIGITS + dg] : 0u;
      WSYNC
      if (in_ && lower == cnt - 1u) wh[warp * DIGITS + dg] = before + cnt;
      WSYNC
      dr[q] = in_ ? before + lower : (u32)TILE;
    }
#pragma unroll
    for (int q = 0; q < ITEMS; ++q)
      if (dr[q] < TILE) { kbuf[dr[q]] = kr[q]; EARLY_PAY(dr[q], pr[q]) }
//@ early_lookback  (after the tile is in local memory, so that the wait on the tiles before overlaps the ranking's tail) digit lid's place in the output: tile 0's from digit_starts, the others' from the look-back (onesweep_lookback's walk, whose PREFIX words include the digit's start); goff[d] - (its start in the tile): one table read an element in the write-out
    u32 excl = 0;
    if (tile == 0) excl = start;
    else {
      __global volatile u32* p = mine - DIGITS;
      for (;;) {
        const u32 w = *p;
        if (w == 0u) continue;  // that tile has not published yet: it is running (it took its index first)
        excl += w & COUNT_MASK;
        if (w & PREFIX) break;
        p -= DIGITS;
      }
      *mine = PREFIX | (excl + tcount);
    }
    goff[lid] = (OFF_T)excl - (OFF_T)texcl;  // modulo 2^32: goff[d] + i is the place of the tile's element i
    BARRIER
    int count = hi - t0 < TILE ? (int)(hi - t0) : TILE;
    for (int i = lid; i < count; i += GROUP) {
//@ early_end  (after downsweep_read or downsweep_read_pay)
      OFF_T pos = goff[dg] + (OFF_T)i;
      STORE(pos, raw, p)
    }
  }
}
