// Device primitives behind indexing, masks, scans and search (include/porta/index.hpp, scan.hpp,
// sort.hpp): gathers, scatters, a deterministic scatter-add, mask compaction, row scans and binary
// search. Each runs a generated
// kernel on devices that compile at run time (CUDA, OpenCL) and a host loop on devices whose memory
// the host addresses without a compiler (Kokkos). Views are contiguous; indices are int64, already
// checked to lie in [-len, len) (negative ones count from the end).
#pragma once

#include <cstdint>

#include "node.hpp"

namespace porta::detail {

// out[o, j, i] = a[o, k, i] with k = idx[along ? e : j] (e the element's linear index in out):
// a is [outer, len, inner], out [outer, m, inner], idx [m] or (along) [outer, m, inner].
void gather(DType t, const View& a, const View& idx, const View& out, std::int64_t outer, std::int64_t m,
            std::int64_t inner, std::int64_t len, bool along);
// a[idx[k]] = v[k] for k < m over a of len elements (where indices repeat, one of the values lands).
void scatter(DType t, const View& a, const View& idx, const View& v, std::int64_t m, std::int64_t len);
// a[p] += v[k] for every k < m with idx[k] == p, added in the order of k whatever the device or the
// timing: each element sums its own contributions (m reads an element; no atomics).
void scatter_add(DType t, const View& a, const View& idx, const View& v, std::int64_t m, std::int64_t len);
// out[pos[e]] = a[e] for every e < n where mask[e] (bool) is true.
void compress(DType t, const View& a, const View& mask, const View& pos, const View& out, std::int64_t n);
// out[e] = the number of elements of sorted `a` (n of them, NaNs last) before which v[e] goes:
// those < v[e] (right: <= v[e]); int64 out.
void searchsorted(DType t, const View& a, std::int64_t n, const View& v, std::int64_t m, const View& out, bool right);

// y[o, :] = inclusive scan (sum, or product) of x[o, :] for x, y contiguous [outer, len] of dtype t
// (int64, float32 or float64). GPUs and OpenCL: reduce-then-scan over tiles of 2048 elements (tile
// sums, their scan, then each tile rescanned from its offset), a fixed order on each device;
// Kokkos: left to right.
void scan_rows(DType t, const View& x, const View& y, std::int64_t outer, std::int64_t len, bool product);

// LSD radix sort pieces. radix_keys writes the order-preserving unsigned key of each element of
// `a` (n of them): 32-bit keys for dtypes up to 4 bytes, 64-bit for int64/float64; floats with
// NaNs (canonicalised) last and -0.0 equal to 0.0; descending: the keys' complement.
int radix_key_bits(DType t);
void radix_keys(DType t, const View& a, const View& keys, std::int64_t n, bool descending);
// One stable pass on 4 bits: the digit is (key >> shift) & 15, or with by_row ((idx / len) >> shift)
// & 15 (the row of a flat index, to group rows after the key passes). Tile histograms, their scan
// (scan_rows), then a scatter that ranks each tile's elements in order.
void radix_pass(bool wide, const View& keys, const View& idx, const View& keys_out, const View& idx_out, std::int64_t n,
                int shift, bool by_row, std::int64_t len);
// Devices without a compiler: idx_out[o, :] = the stable order of row o of `a` ([outer, len]) by
// the same keys.
void sort_rows_host(DType t, const View& a, const View& idx_out, std::int64_t outer, std::int64_t len, bool descending);

}  // namespace porta::detail
