// Gathers, scatters, scatter-add, mask compaction and binary search: one small generated kernel
// each (CUDA C++ or OpenCL C, a grid-stride loop) and the same loop on the host for Kokkos.
#include "index_kernels.hpp"

#include <porta/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <type_traits>

#include "codegen.hpp"
#include "device_state.hpp"
#include "index_work.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {
using namespace index_work;


void gather(DType t, const View& a, const View& idx, const View& out, std::int64_t outer, std::int64_t m,
            std::int64_t inner, std::int64_t len, bool along, const View* check) {
  const std::size_t item = itemsize(t);
  Work w;
  w.reads = {&a, &idx};
  w.write = &out;
  w.write2 = check;
  w.items = outer * m * inner;
  w.key = cat("gather|", item, "|", check != nullptr);
  const bool checked = check != nullptr;
  w.source = [item, checked](const DialectText& d) {
    return cat("typedef ", bits_type(d, item), " T;\n",
               "KERNEL porta_k(GLOBAL const T* a, GLOBAL const i64* idx, GLOBAL T* out, GLOBAL i64* bad, i64 a_off, i64 idx_off,"
               " i64 out_off, i64 bad_off, i64 n, i64 m, i64 inner, i64 len, int along) {\n"
               "  for (i64 e = GID; e < n; e += GSIZE) {\n"
               "    i64 i = e % inner, r = e / inner, j = r % m, o = r / m;\n"
               "    i64 k = idx[idx_off + (along ? e : j)];\n",
               checked ? "    if (k < -len || k >= len) { bad[bad_off] = 1; bad[bad_off + 1] = k; continue; }\n" : "",
               "    if (k < 0) k += len;\n"
               "    out[out_off + e] = a[a_off + (o * len + k) * inner + i];\n"
               "  }\n}\n");
  };
  w.args = [&](std::vector<KernelArg>& g) {
    g = {mem(a), mem(idx), mem(out), check ? mem(*check) : mem(out), i64(a.offset), i64(idx.offset), i64(out.offset),
         i64(check ? check->offset : 0), i64(w.items), i64(m), i64(inner), i64(len), KernelArg::scalar<std::int32_t>(along ? 1 : 0)};
  };
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    const std::uint8_t* src = p[0] + a.offset * item;
    const std::uint8_t* ix = p[1] + idx.offset * 8;
    std::uint8_t* dst = p[2] + out.offset * item;
    for (std::int64_t e = 0; e < w.items; ++e) {
      std::int64_t i = e % inner, r = e / inner, j = r % m, o = r / m;
      std::int64_t k = host_load_int(ix, along ? e : j);
      if (check && (k < -len || k >= len)) {
        std::int64_t flag[2] = {1, k};
        std::memcpy(p[3] + check->offset * 8, flag, 16);
        continue;
      }
      std::memcpy(dst + e * item, src + ((o * len + wrap(k, len)) * inner + i) * item, item);
    }
  };
  run(w, t);
}

void scatter(DType t, const View& a, const View& idx, const View& v, std::int64_t m, std::int64_t len) {
  const std::size_t item = itemsize(t);
  Work w;
  w.reads = {&idx, &v};
  w.write = &a;
  w.items = m;
  w.key = cat("scatter|", item);
  w.source = [item](const DialectText& d) {
    return cat("typedef ", bits_type(d, item), " T;\n",
               "KERNEL porta_k(GLOBAL const i64* idx, GLOBAL const T* v, GLOBAL T* a, i64 idx_off, i64 v_off, i64 a_off,"
               " i64 m, i64 len) {\n"
               "  for (i64 e = GID; e < m; e += GSIZE) {\n"
               "    i64 k = idx[idx_off + e];\n"
               "    if (k < 0) k += len;\n"
               "    a[a_off + k] = v[v_off + e];\n"
               "  }\n}\n");
  };
  w.args = [&](std::vector<KernelArg>& g) {
    g = {mem(idx), mem(v), mem(a), i64(idx.offset), i64(v.offset), i64(a.offset), i64(m), i64(len)};
  };
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    const std::uint8_t* ix = p[0] + idx.offset * 8;
    const std::uint8_t* src = p[1] + v.offset * item;
    std::uint8_t* dst = p[2] + a.offset * item;
    for (std::int64_t e = 0; e < m; ++e) std::memcpy(dst + wrap(host_load_int(ix, e), len) * item, src + e * item, item);
  };
  run(w, t);
}

void scatter_add(DType t, const View& a, const View& idx, const View& v, std::int64_t m, std::int64_t len) {
  Work w;
  w.reads = {&idx, &v};
  w.write = &a;
  w.items = len;
  w.key = cat("scatter_add|", static_cast<int>(t));
  w.source = [t](const DialectText& d) {
    const std::string ct = d.compute_type(t);
    const std::string add = t == DType::boolean ? "(s || x)" : "(s + x)";
    return cat(d.prelude(t == DType::float64, false), d.cuda() ? "" : "\n",
               "KERNEL porta_k(", d.global_ptr(DType::int64), " idx, ", d.global_ptr(t), " v, ", d.global_out_ptr(t),
               " a, i64 idx_off, i64 v_off, i64 a_off, i64 m, i64 len) {\n"
               "  for (i64 p = GID; p < len; p += GSIZE) {\n"
               "    ", ct, " s = ", d.load(t, "a", "a_off + p"), ";\n"
               "    int hit = 0;\n"
               "    for (i64 k = 0; k < m; ++k) {\n"
               "      i64 q = idx[idx_off + k];\n"
               "      if (q < 0) q += len;\n"
               "      if (q == p) { ", ct, " x = ", d.load(t, "v", "v_off + k"), "; s = ", add, "; hit = 1; }\n"
               "    }\n"
               "    if (hit) { ", d.store(t, "a", "a_off + p", "s"), " }\n"
               "  }\n}\n");
  };
  w.args = [&](std::vector<KernelArg>& g) {
    g = {mem(idx), mem(v), mem(a), i64(idx.offset), i64(v.offset), i64(a.offset), i64(m), i64(len)};
  };
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    const std::uint8_t* ix = p[0] + idx.offset * 8;
    const std::uint8_t* src = p[1] + v.offset * itemsize(t);
    std::uint8_t* dst = p[2] + a.offset * itemsize(t);
    // Each element's contributions in the order of k, in the compute type the kernels use.
    for (std::int64_t k = 0; k < m; ++k) {
      std::int64_t q = wrap(host_load_int(ix, k), len);
      switch (t) {
        case DType::boolean: dst[q] = (dst[q] != 0 || src[k] != 0) ? 1 : 0; break;
        case DType::int32: {
          std::uint32_t x, y;
          std::memcpy(&x, dst + 4 * q, 4);
          std::memcpy(&y, src + 4 * k, 4);
          x += y;  // wraps, as the device's int
          std::memcpy(dst + 4 * q, &x, 4);
          break;
        }
        case DType::int64: {
          std::uint64_t x, y;
          std::memcpy(&x, dst + 8 * q, 8);
          std::memcpy(&y, src + 8 * k, 8);
          x += y;
          std::memcpy(dst + 8 * q, &x, 8);
          break;
        }
        case DType::float32: {
          float x = static_cast<float>(host_load(t, dst, q)) + static_cast<float>(host_load(t, src, k));
          std::memcpy(dst + 4 * q, &x, 4);
          break;
        }
        case DType::float64: {
          double x = host_load(t, dst, q) + host_load(t, src, k);
          std::memcpy(dst + 8 * q, &x, 8);
          break;
        }
        case DType::float16:
        case DType::bfloat16: break;  // below: accumulated in float32, rounded once
      }
    }
    if (t == DType::float16 || t == DType::bfloat16) {
      std::vector<float> acc(static_cast<std::size_t>(len));
      std::vector<bool> hit(static_cast<std::size_t>(len), false);
      for (std::int64_t q = 0; q < len; ++q) acc[static_cast<std::size_t>(q)] = static_cast<float>(host_load(t, dst, q));
      for (std::int64_t k = 0; k < m; ++k) {
        auto q = static_cast<std::size_t>(wrap(host_load_int(ix, k), len));
        acc[q] += static_cast<float>(host_load(t, src, k));
        hit[q] = true;
      }
      for (std::int64_t q = 0; q < len; ++q) {
        if (!hit[static_cast<std::size_t>(q)]) continue;
        std::uint16_t b = t == DType::float16 ? half(acc[static_cast<std::size_t>(q)]).bits
                                              : bfloat16(acc[static_cast<std::size_t>(q)]).bits;
        std::memcpy(dst + 2 * q, &b, 2);
      }
    }
  };
  run(w, t);
}

void segment_add(DType t, const View& a, const View& idx, const View& v, const View& starts, std::int64_t segments,
                 std::int64_t m) {
  Work w;
  w.reads = {&idx, &v, &starts};
  w.write = &a;
  w.items = segments;
  w.key = cat("segment_add|", static_cast<int>(t));
  w.source = [t](const DialectText& d) {
    const std::string ct = d.compute_type(t);
    const std::string add = t == DType::boolean ? "(s || x)" : "(s + x)";
    return cat(d.prelude(t == DType::float64, false), "\n",
               "KERNEL porta_k(", d.global_ptr(DType::int64), " idx, ", d.global_ptr(t), " v, ", d.global_ptr(DType::int64),
               " starts, ", d.global_out_ptr(t), " a, i64 idx_off, i64 v_off, i64 st_off, i64 a_off, i64 segments, i64 m) {\n"
               "  for (i64 g = GID; g < segments; g += GSIZE) {\n"
               "    i64 b = starts[st_off + g], e = g + 1 < segments ? starts[st_off + g + 1] : m;\n"
               "    i64 p = idx[idx_off + b];\n"
               "    ", ct, " s = ", d.load(t, "a", "a_off + p"), ";\n"
               "    for (i64 i = b; i < e; ++i) { ", ct, " x = ", d.load(t, "v", "v_off + i"), "; s = ", add, "; }\n"
               "    ", d.store(t, "a", "a_off + p", "s"), "\n"
               "  }\n}\n");
  };
  w.args = [&](std::vector<KernelArg>& g) {
    g = {mem(idx), mem(v), mem(starts), mem(a), i64(idx.offset), i64(v.offset), i64(starts.offset), i64(a.offset), i64(segments),
         i64(m)};
  };
  w.host = [](const std::vector<std::uint8_t*>&) {
    throw InvalidArgument("segment_add runs on devices that compile kernels; the host scatter_add covers the others");
  };
  run(w, t);
}

std::int64_t mask_tiles(std::int64_t n) { return (n + kScanTile - 1) / kScanTile; }

void mask_tile_counts(const View& mask, const View& counts, std::int64_t n) {
  const std::int64_t tiles = (n + kScanTile - 1) / kScanTile;
  Work w;
  w.reads = {&mask};
  w.write = &counts;
  w.items = tiles;
  w.groups = static_cast<std::size_t>(tiles);
  w.group = kScanGroup;
  w.key = "mask_counts";
  w.source = [](const DialectText& d) {
    return cat("#define GROUP ", kScanGroup, "\n#define ITEMS ", kScanItems, "\n#define TILE ", kScanTile, "\n",
               "KERNEL porta_k(GLOBAL const ", bits_type(d, 1), "* mask, GLOBAL i64* counts, i64 mask_off, i64 n) {\n  ",
               d.local_array("int", "red", "GROUP"), "\n"
               "  i64 tile = (i64)", d.group_id(), "; int lid = (int)", d.local_id(), ";\n"
               "  int c = 0;\n"
               "  for (int k = 0; k < ITEMS; ++k) { i64 e = tile * TILE + (i64)k * GROUP + lid; if (e < n && mask[mask_off + e]) ++c; }\n"
               "  red[lid] = c;\n  ", d.barrier(), "\n"
               "  for (int h = GROUP / 2; h > 0; h >>= 1) { if (lid < h) red[lid] += red[lid + h]; ", d.barrier(), " }\n"
               "  if (lid == 0) counts[tile] = red[0];\n}\n");
  };
  w.args = [&](std::vector<KernelArg>& g) { g = {mem(mask), mem(counts), i64(mask.offset), i64(n)}; };
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    const std::uint8_t* mk = p[0] + mask.offset;
    for (std::int64_t t = 0; t < tiles; ++t) {
      std::int64_t c = 0;
      for (std::int64_t e = t * kScanTile; e < std::min(n, (t + 1) * kScanTile); ++e) c += mk[e] != 0;
      std::memcpy(p[1] + (counts.offset + t) * 8, &c, 8);
    }
  };
  run(w, DType::int64);
}

void compress(DType t, const View& a, const View& mask, const View& tile_prefix, const View& out, std::int64_t n) {
  const std::size_t item = itemsize(t);
  const std::int64_t tiles = (n + kScanTile - 1) / kScanTile;
  Work w;
  w.reads = {&a, &mask, &tile_prefix};
  w.write = &out;
  w.items = tiles;
  w.groups = static_cast<std::size_t>(tiles);
  w.group = kScanGroup;
  w.key = cat("compress|", item);
  w.source = [item](const DialectText& d) {
    return cat("typedef ", bits_type(d, item), " T;\n#define GROUP ", kScanGroup, "\n#define ITEMS ", kScanItems,
               "\n#define TILE ", kScanTile, "\n#define BARRIER ", d.barrier(), "\n",
               "KERNEL porta_k(GLOBAL const T* a, GLOBAL const ", bits_type(d, 1), "* mask, GLOBAL const i64* prefix, GLOBAL T* out,"
               " i64 a_off, i64 mask_off, i64 pre_off, i64 out_off, i64 n) {\n  ",
               d.local_array("int", "sums", "GROUP"), "\n"
               "  i64 tile = (i64)", d.group_id(), "; int lid = (int)", d.local_id(), ";\n"
               "  i64 base = tile * TILE + (i64)lid * ITEMS;\n"
               "  int c = 0;\n"
               "  for (int k = 0; k < ITEMS; ++k) { i64 e = base + k; if (e < n && mask[mask_off + e]) ++c; }\n"
               "  sums[lid] = c;\n  BARRIER\n"
               "  for (int off = 1; off < GROUP; off <<= 1) {\n"
               "    int v = lid >= off ? sums[lid - off] : 0;\n    BARRIER\n"
               "    if (lid >= off) sums[lid] += v;\n    BARRIER\n  }\n"
               "  i64 p = (tile > 0 ? prefix[pre_off + tile - 1] : 0) + (lid > 0 ? sums[lid - 1] : 0);\n"
               "  for (int k = 0; k < ITEMS; ++k) { i64 e = base + k; if (e < n && mask[mask_off + e]) out[out_off + p++] = a[a_off + e]; }\n"
               "}\n");
  };
  w.args = [&](std::vector<KernelArg>& g) {
    g = {mem(a), mem(mask), mem(tile_prefix), mem(out), i64(a.offset), i64(mask.offset), i64(tile_prefix.offset), i64(out.offset),
         i64(n)};
  };
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    const std::uint8_t* src = p[0] + a.offset * item;
    const std::uint8_t* mk = p[1] + mask.offset;
    std::uint8_t* dst = p[3] + out.offset * item;
    std::int64_t q = 0;
    for (std::int64_t e = 0; e < n; ++e)
      if (mk[e]) std::memcpy(dst + (q++) * item, src + e * item, item);
  };
  run(w, t);
}

void searchsorted(DType t, const View& a, std::int64_t n, const View& v, std::int64_t m, const View& out, bool right) {
  Work w;
  w.reads = {&a, &v};
  w.write = &out;
  w.items = m;
  w.key = cat("searchsorted|", static_cast<int>(t));
  w.source = [t](const DialectText& d) {
    const std::string ct = d.compute_type(t);
    return cat(d.prelude(t == DType::float64, false), d.cuda() ? "" : "\n", "#define LT(x, y) ", compute_lt(t), "\n",
               "KERNEL porta_k(", d.global_ptr(t), " a, ", d.global_ptr(t), " v, GLOBAL i64* out, i64 a_off, i64 v_off,"
               " i64 out_off, i64 n, i64 m, int right) {\n"
               "  for (i64 e = GID; e < m; e += GSIZE) {\n"
               "    ", ct, " x = ", d.load(t, "v", "v_off + e"), ";\n"
               "    i64 lo = 0, hi = n;\n"
               "    while (lo < hi) {\n"
               "      i64 mid = lo + (hi - lo) / 2;\n"
               "      ", ct, " y = ", d.load(t, "a", "a_off + mid"), ";\n"
               "      int go = right ? !LT(x, y) : LT(y, x);\n"
               "      if (go) lo = mid + 1; else hi = mid;\n"
               "    }\n"
               "    out[out_off + e] = lo;\n"
               "  }\n}\n");
  };
  w.args = [&](std::vector<KernelArg>& g) {
    g = {mem(a), mem(v), mem(out), i64(a.offset), i64(v.offset), i64(out.offset), i64(n), i64(m),
         KernelArg::scalar<std::int32_t>(right ? 1 : 0)};
  };
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    const std::uint8_t* src = p[0] + a.offset * itemsize(t);
    const std::uint8_t* val = p[1] + v.offset * itemsize(t);
    std::uint8_t* dst = p[2] + out.offset * 8;
    // Compared as the radix sort's order-preserving keys: exact for int64, NaNs last.
    for (std::int64_t e = 0; e < m; ++e) {
      std::uint64_t x = host_radix_key(t, val, e, false);
      std::int64_t lo = 0, hi = n;
      while (lo < hi) {
        std::int64_t mid = lo + (hi - lo) / 2;
        std::uint64_t y = host_radix_key(t, src, mid, false);
        bool go = right ? !(x < y) : y < x;
        if (go) lo = mid + 1;
        else hi = mid;
      }
      std::memcpy(dst + 8 * e, &lo, 8);
    }
  };
  run(w, t);
}

}  // namespace porta::detail
