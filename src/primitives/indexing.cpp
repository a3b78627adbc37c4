// Gathers, scatters, scatter-add, mask compaction and binary search: one small generated kernel
// each (CUDA C++ or OpenCL C, a grid-stride loop) and the same loop on the host for Kokkos.
#include "primitives/primitives.hpp"

#include <porta/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <type_traits>

#include "codegen/codegen.hpp"
#include "runtime/device_state.hpp"
#include "primitives/work.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {
using namespace primitives;


namespace {

// 16-byte elements (complex128) as two words.
struct Word16 {
  std::uint64_t lo, hi;
};

// f(U{}) with U the unsigned integer of an element's `item` bytes (1, 2, 4 or 8; 16: Word16): the
// host loops move elements as such words.
template <class F> void with_word(std::size_t item, F&& f) {
  switch (item) {
    case 1: f(std::uint8_t{}); break;
    case 2: f(std::uint16_t{}); break;
    case 4: f(std::uint32_t{}); break;
    case 16: f(Word16{}); break;
    default: f(std::uint64_t{}); break;
  }
}

// gather's host loop (Kokkos), elements as U: the output in order, outer, index and inner
// positions counted by loops, not divided out of each element's position (take of 2^22 float32
// by random int64 indices ran at 14.5 M elements/s with four 64-bit divisions an element).
template <class U>
void host_gather(const std::vector<std::uint8_t*>& p, const View& a, const View& idx, const View& out, const View* check,
                 std::int64_t outer, std::int64_t m, std::int64_t inner, std::int64_t len, bool along) {
  const U* src = reinterpret_cast<const U*>(p[0]) + a.offset;
  const std::uint8_t* ix = p[1] + idx.offset * 8;
  U* dst = reinterpret_cast<U*>(p[2]) + out.offset;
  // Inline loads (primitives::host_load_int and primitives::wrap are calls through the PLT here: 3x slower).
  auto index = [ix](std::int64_t j) {
    std::int64_t k;
    std::memcpy(&k, ix + 8 * j, 8);
    return k;
  };
  auto bad = [&](std::int64_t k) {
    if (!check || (k >= -len && k < len)) return false;
    const std::int64_t flag[2] = {1, k};
    std::memcpy(p[3] + check->offset * 8, flag, 16);
    return true;
  };
  std::int64_t e = 0;
  for (std::int64_t o = 0; o < outer; ++o) {
    const U* row = src + o * len * inner;
    if (!along && inner == 1) {
      for (std::int64_t j = 0; j < m; ++j, ++e) {
        const std::int64_t k = index(j);
        if (!bad(k)) dst[e] = row[k < 0 ? k + len : k];
      }
      continue;
    }
    for (std::int64_t j = 0; j < m; ++j) {
      if (!along) {
        const std::int64_t k = index(j);
        if (!bad(k)) {
          const U* from = row + (k < 0 ? k + len : k) * inner;
          for (std::int64_t i = 0; i < inner; ++i) dst[e + i] = from[i];
        }
        e += inner;
        continue;
      }
      for (std::int64_t i = 0; i < inner; ++i, ++e) {
        const std::int64_t k = index(e);
        if (!bad(k)) dst[e] = row[(k < 0 ? k + len : k) * inner + i];
      }
    }
  }
}

// compress's host loop (Kokkos), elements as U, `kept` of them: as the CPU kernel, without a
// branch on the mask (every value written at q, q moved on where the mask is true) until the
// last kept value is placed. A branch on a random mask ran 2^24 float32 at 0.81 GB/s there.
template <class U>
void host_compress(const std::vector<std::uint8_t*>& p, const View& a, const View& mask, const View& out, std::int64_t n,
                   std::int64_t kept) {
  const U* src = reinterpret_cast<const U*>(p[0]) + a.offset;
  const std::uint8_t* mk = p[1] + mask.offset;
  U* dst = reinterpret_cast<U*>(p[3]) + out.offset;
  std::int64_t q = 0;
  for (std::int64_t e = 0; e < n && q < kept; ++e) {
    dst[q] = src[e];
    q += mk[e] != 0;
  }
}

// CPU devices' flat gather: a work-item a run of kCpuRun elements (gather() says why).
constexpr std::int64_t kCpuRun = 1024;

std::string gather_source(const DialectText& d, std::size_t item, bool checked, bool flat, bool blocked) {
  auto part = [&](const char* name) { return kernel_text(d, kIndexingSource, name); };
  auto when = [&](bool on, const char* name) { return on ? part(name) : std::string(); };
  const std::string head = cat("typedef ", bits_type(d, item), " T;\n", part("gather_head"), when(flat && checked, "gather_bad_vars"));
  const std::string tail = cat(when(flat && checked, "gather_bad_report"), part("gather_end"));
  if (flat && blocked)  // CPU devices: a work-group a run of kCpuRun elements
    return cat(head,
               "  const i64 b = (i64)", d.group_id(), " * ", kCpuRun, ", end = b + ", kCpuRun, " < n ? b + ", kCpuRun, " : n;\n"
               "  for (i64 e = b; e < end; ++e) {\n"
               "    i64 k = idx[idx_off + e];\n",
               checked ? "    if (k < -len || k >= len) { bad_k = k; saw_bad = 1; continue; }\n" : "",
               "    if (k < 0) k += len;\n"
               "    out[out_off + e] = a[a_off + k];\n"
               "  }\n",
               tail);
  if (flat) return cat(head, part("gather_flat"), when(checked, "gather_flat_check"), part("gather_flat_load"), tail);
  return cat(head, part("gather_rows"), when(checked, "gather_rows_check"), part("gather_rows_load"));
}

std::string scatter_source(const DialectText& d, std::size_t item) {
  return cat("typedef ", bits_type(d, item), " T;\n", kernel_text(d, kIndexingSource, "scatter"));
}
}  // namespace

void gather(DType t, const View& a, const View& idx, const View& out, std::int64_t outer, std::int64_t m,
            std::int64_t inner, std::int64_t len, bool along, const View* check) {
  const std::size_t item = itemsize(t);
  Work w;
  w.reads = {&a, &idx};
  w.write = &out;
  w.write2 = check;
  w.items = outer * m * inner;
  // A flat gather (take of a 1-D array, a[idx]): no division per element, and four elements a
  // work-item per step, a grid apart (each load and store coalesced across work-items), their
  // index loads issued before their gathers (four random reads in flight instead of one).
  const bool flat = outer == 1 && inner == 1 && !along;
  if (flat) w.items = (m + 3) / 4;
  // CPU devices: one work-item a run of kCpuRun elements, a plain loop (four elements a
  // work-item a grid apart were four streams a work-item, 3x slower on PoCL; four neighbours a
  // work-item in groups of 256, 2x slower than this).
  const bool blocked = out.buffer->device().impl().info().kind == DeviceKind::cpu;
  if (flat && blocked) {
    w.groups = static_cast<std::size_t>((m + kCpuRun - 1) / kCpuRun);
    w.group = 1;
  }
  w.key = cat("gather|", item, "|", check != nullptr, "|", flat, "|", blocked);
  const bool checked = check != nullptr;
  w.source = [item, checked, flat, blocked](const DialectText& d) { return gather_source(d, item, checked, flat, blocked); };
  w.args = [&](std::vector<KernelArg>& g) {
    g = {mem(a), mem(idx), mem(out), check ? mem(*check) : mem(out), i64(a.offset), i64(idx.offset), i64(out.offset),
         i64(check ? check->offset : 0), i64(outer * m * inner), i64(m), i64(inner), i64(len), KernelArg::scalar<std::int32_t>(along ? 1 : 0)};
  };
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    with_word(item, [&](auto word) { host_gather<decltype(word)>(p, a, idx, out, check, outer, m, inner, len, along); });
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
  w.source = [item](const DialectText& d) { return scatter_source(d, item); };
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

namespace {

// Whether v lives on a CPU device (PoCL): there a work-group of many work-items runs as a loop
// between each two barriers, and one work-item a tile with a plain loop is faster.
bool on_cpu(const View& v) { return v.buffer->device().impl().info().kind == DeviceKind::cpu; }

// Mask tiles a work-group counts on GPUs (a tile alone is 2 KiB of reads for 256 work-items).
constexpr int kCountTiles = 8;

// Each work-item's ITEMS consecutive mask bytes of the tile (one 8-byte word where the tile is
// whole and the mask 8-byte aligned) as bits: mbits's bit k is element lid * ITEMS + k.
std::string mask_bits_text(const DialectText& d) {
  return cat("#define GROUP ", kScanGroup, "\n#define ITEMS ", kScanItems, "\n#define TILE ", kScanTile, "\n#define BARRIER ",
             d.barrier(), "\n#define PAD(e) ((e) + ((e) >> 5))\ntypedef ", bits_type(d, 8), " W;\n",
             kernel_text(d, kIndexingSource, "mask_bits"),
             "#define POPCOUNT(x) ", d.cuda() ? "__popc(x)" : "popcount(x)", "\n");
}

std::string mask_counts_source(const DialectText& d, bool cpu) {
  if (cpu)
    return cat("KERNEL porta_k(GLOBAL const ", bits_type(d, 1), "* mask, GLOBAL i64* counts, i64 mask_off, i64 n) {\n"
               "  i64 t0 = (i64)", d.group_id(), " * ", kScanTile, ", end = t0 + ", kScanTile, " < n ? t0 + ", kScanTile, " : n;\n"
               "  int c = 0;\n"
               "  for (i64 e = t0; e < end; ++e) c += mask[mask_off + e] != 0;\n"
               "  counts[", d.group_id(), "] = c;\n}\n");
  // GPUs: kCountTiles tiles a work-group, a word of each a work-item (their loads in flight
  // together), reduced side by side.
  return cat(mask_bits_text(d), "#define TPG ", kCountTiles, "\n", kernel_text(d, kIndexingSource, "mask_counts"));
}

std::string compress_source(const DialectText& d, std::size_t item, bool cpu) {
  if (cpu)
    return cat("typedef ", bits_type(d, item), " T;\n",
               "KERNEL porta_k(GLOBAL const T* a, GLOBAL const ", bits_type(d, 1), "* mask, GLOBAL const i64* prefix, GLOBAL T* out,"
               " i64 a_off, i64 mask_off, i64 pre_off, i64 out_off, i64 n) {\n"
               "  i64 tile = (i64)", d.group_id(), ", t0 = tile * ", kScanTile, ", end = t0 + ", kScanTile, " < n ? t0 + ", kScanTile,
               " : n;\n"
               // Without a branch on the mask (random masks mispredict: 2.9x slower on PoCL):
               // every value written at p, p moved on where the mask is true; the last kept
               // value's slot is the tile's end.
               "  i64 p = out_off + (tile > 0 ? prefix[pre_off + tile - 1] : 0), last = out_off + prefix[pre_off + tile];\n"
               "  for (i64 e = t0; e < end; ++e) { if (p < last) out[p] = a[a_off + e]; p += mask[mask_off + e] != 0; }\n}\n");
  // GPUs: kernels/indexing.cl's compress.
  return cat("typedef ", bits_type(d, item), " T;\n", mask_bits_text(d), kernel_text(d, kIndexingSource, "compress"));
}

}  // namespace

void mask_tile_counts(const View& mask, const View& counts, std::int64_t n) {
  // The kernels write the counts from the buffer's first element (they take no offset for them,
  // so that their text stays as it is on every device); compress() passes a fresh array.
  if (counts.offset != 0)
    throw InvalidArgument(cat("porta internal error: mask_tile_counts writes its counts from element 0 of their buffer, but the "
                              "counts view starts at element ", counts.offset, "; pass a fresh int64 array"));
  const std::int64_t tiles = (n + kScanTile - 1) / kScanTile;
  Work w;
  w.reads = {&mask};
  w.write = &counts;
  w.items = tiles;
  const bool cpu = on_cpu(counts);
  w.groups = static_cast<std::size_t>(cpu ? tiles : (tiles + kCountTiles - 1) / kCountTiles);
  w.group = cpu ? 1 : kScanGroup;
  w.key = cat("mask_counts|", cpu);
  w.source = [cpu](const DialectText& d) { return mask_counts_source(d, cpu); };
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
  const bool cpu = on_cpu(out);
  w.group = cpu ? 1 : kScanGroup;
  w.key = cat("compress|", item, "|", cpu);
  // CPU devices: one work-item a tile, a plain loop. GPUs: the tile's values read in order of work-items (coalesced) into local memory, each work-item's
  // kept elements packed at its offset within the tile into a second local array, then that
  // written out in order of work-items from the tile's offset: coalesced writes.
  w.source = [item, cpu](const DialectText& d) { return compress_source(d, item, cpu); };
  w.args = [&](std::vector<KernelArg>& g) {
    g = {mem(a), mem(mask), mem(tile_prefix), mem(out), i64(a.offset), i64(mask.offset), i64(tile_prefix.offset), i64(out.offset),
         i64(n)};
  };
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    const std::int64_t kept = tiles ? host_load_int(p[2] + tile_prefix.offset * 8, tiles - 1) : 0;
    with_word(item, [&](auto word) { host_compress<decltype(word)>(p, a, mask, out, n, kept); });
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

namespace primitives {
NamedSources indexing_kernel_sources(const DialectText& d) {
  NamedSources out;
  for (std::size_t item : {1, 2, 4, 8, 16}) {
    for (bool checked : {false, true})
      for (int kind = 0; kind < 3; ++kind)  // rows, flat (GPUs), flat (CPU devices)
        out.emplace_back(cat("gather of ", item, "-byte elements, ", kind == 0 ? "rows" : kind == 1 ? "flat" : "flat CPU",
                             checked ? ", checked" : ""),
                         gather_source(d, item, checked, kind > 0, kind == 2));
    out.emplace_back(cat("scatter of ", item, "-byte elements"), scatter_source(d, item));
    for (bool cpu : {false, true})
      out.emplace_back(cat("compress of ", item, "-byte elements", cpu ? " (CPU)" : ""), compress_source(d, item, cpu));
  }
  for (bool cpu : {false, true}) out.emplace_back(cat("mask tile counts", cpu ? " (CPU)" : ""), mask_counts_source(d, cpu));
  for (auto& [what, text] : out) text = common_prelude(d) + text;
  return out;
}
}  // namespace primitives

}  // namespace porta::detail
