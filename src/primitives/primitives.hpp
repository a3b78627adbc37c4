// Device primitives behind indexing, masks, scans and search (include/porta/index.hpp, scan.hpp,
// sort.hpp): gathers, scatters, a deterministic scatter-add, mask compaction, row scans and binary
// search. Each runs a generated
// kernel on devices that compile at run time (CUDA, OpenCL) and a host loop on devices whose memory
// the host addresses without a compiler (Kokkos). Views are contiguous; indices are int64, already
// checked to lie in [-len, len) (negative ones count from the end).
#pragma once

#include <cstdint>
#include <optional>

#include "lazy/node.hpp"
#include "porta_backend/backend.hpp"

namespace porta::detail {

// out[o, j, i] = a[o, k, i] with k = idx[along ? e : j] (e the element's linear index in out):
// a is [outer, len, inner], out [outer, m, inner], idx [m] or (along) [outer, m, inner].
// `check` (two int64, zero on entry), where given: an index outside [-len, len) sets check[0] = 1
// and check[1] to it (one of them, where several are), and its element of out is not written.
void gather(DType t, const View& a, const View& idx, const View& out, std::int64_t outer, std::int64_t m,
            std::int64_t inner, std::int64_t len, bool along, const View* check = nullptr);
// a[idx[k]] = v[k] for k < m over a of len elements (where indices repeat, one of the values lands).
void scatter(DType t, const View& a, const View& idx, const View& v, std::int64_t m, std::int64_t len);
// a[p] += v[k] for every k < m with idx[k] == p, added in the order of k whatever the device or the
// timing: each element sums its own contributions (m reads an element; no atomics).
void scatter_add(DType t, const View& a, const View& idx, const View& v, std::int64_t m, std::int64_t len);
// a[idx[i]] += v[i] over runs of equal indices: idx sorted (m of them, in [0, len)), starts[s] the
// first position of run s (segments of them); one work-item per run adds its values in order.
void segment_add(DType t, const View& a, const View& idx, const View& v, const View& starts, std::int64_t segments,
                 std::int64_t m);
// Mask compaction in tiles of 2048 elements: counts[tile] = the true elements of each tile of
// `mask` (bool, n elements; counts: int64, one per tile, a view at offset 0: InvalidArgument
// otherwise); then, with tile_prefix the inclusive scan of counts, out holds a's elements where
// mask is true, in order.
std::int64_t mask_tiles(std::int64_t n);
void mask_tile_counts(const View& mask, const View& counts, std::int64_t n);
void compress(DType t, const View& a, const View& mask, const View& tile_prefix, const View& out, std::int64_t n);
// out[e] = the number of elements of sorted `a` (n of them, NaNs last) before which v[e] goes:
// those < v[e] (right: <= v[e]); int64 out.
void searchsorted(DType t, const View& a, std::int64_t n, const View& v, std::int64_t m, const View& out, bool right);

// y[o, :] = inclusive scan (sum, or product) of x[o, :] for x, y contiguous [outer, len] of dtype t
// (int64, uint64 (int64's kernels: the same bits), float32, float64, complex64 or complex128;
// DTypeError otherwise). Complex: a work-item a row from its first element, long rows in chunks
// of 512 (scan.cpp's complex_scan and kComplexChunk say why). Compiling devices: one pass, a chained scan
// with decoupled look-back over tiles of each row, or for short rows a work-item per row in local
// memory (primitives/scan.cpp); Kokkos: left to right. A fixed order of accumulation on each
// device: the same bits on every run.
void scan_rows(DType t, const View& x, const View& y, std::int64_t outer, std::int64_t len, bool product);
// The same along the middle axis of contiguous [outer, len, inner]: one work-item per column,
// left to right.
void scan_columns(DType t, const View& x, const View& y, std::int64_t outer, std::int64_t len, std::int64_t inner,
                  bool product);
// The long-row scan's tile on a device: ITEMS 4-byte values a work-item (8-byte values take half),
// 256 work-items on GPUs, one on CPU devices. scan_items: `requested` (PORTA_SCAN_ITEMS) where
// given, else the largest power of two up to kScanMaxItems whose kernels' local memory fits the
// device's (kScanMaxItems where the device does not say); InvalidArgument, naming the sizes, where
// the tile does not fit. scan_local_bytes: the local memory a work-group of the look-back kernel
// takes (the short-row kernel's is part of it); scan_local_limit: what a work-group may take for
// it on the device (0: unknown).
inline constexpr int kScanMaxItems = 32;
int scan_items(const DeviceInfo& info, DType t, std::optional<int> requested, int window);
std::uint64_t scan_local_bytes(const DeviceInfo& info, DType t, int items, int window);
std::uint64_t scan_local_limit(const DeviceInfo& info);

// random::integers (api/random.cpp): out[e] = low + floor(F(e) * r / 2^128) for e < n, F(e) the
// four words of Philox counter e under (stream, seed) (base/philox.h) as a 128-bit fraction,
// r = r_lo + r_hi * 2^64 (1 to 2^64; r_hi 0 or 1), wrapping in 64 bits, stored in t's width (an
// integer dtype; out contiguous). The same bits on every device (primitives/random_integers.cpp).
void random_integers(DType t, const View& out, std::int64_t n, std::uint64_t seed, std::uint64_t stream, std::uint64_t low,
                     std::uint64_t r_lo, std::uint64_t r_hi);

// Stable LSD radix sort of n elements of `a` (dtype t, contiguous) by their order-preserving keys:
// floats with NaNs last and -0.0 equal to 0.0; descending: the keys' complement (ties keep their
// order). With len < n, each row of len elements is sorted apart (rows keep their order). Writes,
// where given, the sorted elements (values_out, dtype t, n: the input's bits, NaN payloads and
// -0.0 kept) and each one's flat index in `a` (index_out, int64, n). Devices that compile only
// (primitives/radix_sort.cpp says how).
void radix_sort(DType t, const View& a, std::int64_t n, std::int64_t len, bool descending, const View* values_out,
                const View* index_out);
// Devices without a compiler: idx_out[o, :] = the stable order of row o of `a` ([outer, len]) by
// the same keys.
void sort_rows_host(DType t, const View& a, const View& idx_out, std::int64_t outer, std::int64_t len, bool descending);

}  // namespace porta::detail
