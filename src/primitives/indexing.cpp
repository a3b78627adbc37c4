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

// A 16-byte element's bits (complex128).
struct Word16 {
  std::uint64_t x, y;
};

// f(U{}) with U the unsigned integer of an element's `item` bytes (1, 2, 4, 8 or 16): the host
// loops move elements as such words.
template <class F> void with_word(std::size_t item, F&& f) {
  switch (item) {
    case 1: f(std::uint8_t{}); break;
    case 2: f(std::uint16_t{}); break;
    case 4: f(std::uint32_t{}); break;
    case 8: f(std::uint64_t{}); break;
    default: f(Word16{}); break;
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

namespace {
// What scatter_add's and segment_add's kernels need of dtype t: its compute type, loads, stores
// and sum. The dtypes that the dialect text has no compute type for yet (the narrow and unsigned
// integers, complex numbers) are spelled here: integers wrap (C's conversion back to the
// element's type), complex numbers add part by part.
struct AddText {
  std::string prelude, ct, add, in_ptr, out_ptr;
  std::function<std::string(const std::string&, const std::string&)> load;
  std::function<std::string(const std::string&, const std::string&, const std::string&)> store;
};

bool own_add_type(DType t) { return is_complex(t) || (is_integral(t) && t != DType::int32 && t != DType::int64); }

AddText add_text(const DialectText& d, DType t) {
  AddText r;
  if (!own_add_type(t)) {
    r.prelude = cat(d.prelude(t == DType::float64, false), "\n");
    r.ct = d.compute_type(t);
    r.add = t == DType::boolean ? "(s || x)" : "(s + x)";
    r.in_ptr = d.global_ptr(t);
    r.out_ptr = d.global_out_ptr(t);
    r.load = [&d, t](const std::string& p, const std::string& i) { return d.load(t, p, i); };
    r.store = [&d, t](const std::string& p, const std::string& i, const std::string& v) { return d.store(t, p, i, v); };
    return r;
  }
  std::string ty;
  switch (t) {
    case DType::int8: ty = d.cuda() ? "signed char" : "char"; break;
    case DType::int16: ty = "short"; break;
    case DType::complex64: ty = "float2"; break;
    case DType::complex128: ty = "double2"; break;
    default: ty = bits_type(d, itemsize(t));
  }
  r.prelude = t == DType::complex128 && !d.cuda() ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "";
  r.ct = ty;
  if (!is_complex(t)) r.add = cat("((", ty, ")(s + x))");
  else r.add = d.cuda() ? cat("make_", ty, "(s.x + x.x, s.y + x.y)") : "(s + x)";
  r.in_ptr = cat("GLOBAL const ", ty, "*");
  r.out_ptr = cat("GLOBAL ", ty, "*");
  r.load = [](const std::string& p, const std::string& i) { return cat(p, "[", i, "]"); };
  r.store = [](const std::string& p, const std::string& i, const std::string& v) { return cat(p, "[", i, "] = ", v, ";"); };
  return r;
}

// scatter_add's host loop for the dtypes of own_add_type: integers as unsigned words of their
// width (wrapping), complex numbers part by part.
void host_add_own(DType t, std::uint8_t* dst, std::int64_t q, const std::uint8_t* src, std::int64_t k) {
  // Element q of dst += element k of src, as `parts` values of type U each.
  auto add = [&](auto zero, int parts) {
    using U = decltype(zero);
    const std::size_t item = sizeof(U) * static_cast<std::size_t>(parts);
    for (int j = 0; j < parts; ++j) {
      U x, y;
      std::memcpy(&x, dst + item * static_cast<std::size_t>(q) + sizeof(U) * j, sizeof(U));
      std::memcpy(&y, src + item * static_cast<std::size_t>(k) + sizeof(U) * j, sizeof(U));
      x = static_cast<U>(x + y);
      std::memcpy(dst + item * static_cast<std::size_t>(q) + sizeof(U) * j, &x, sizeof(U));
    }
  };
  switch (t) {
    case DType::int8: case DType::uint8: add(std::uint8_t{}, 1); break;
    case DType::int16: case DType::uint16: add(std::uint16_t{}, 1); break;
    case DType::uint32: add(std::uint32_t{}, 1); break;
    case DType::uint64: add(std::uint64_t{}, 1); break;
    case DType::complex64: add(0.0f, 2); break;
    case DType::complex128: add(0.0, 2); break;
    default: break;
  }
}
}  // namespace

void scatter_add(DType t, const View& a, const View& idx, const View& v, std::int64_t m, std::int64_t len) {
  Work w;
  w.reads = {&idx, &v};
  w.write = &a;
  w.items = len;
  w.key = cat("scatter_add|", static_cast<int>(t));
  w.source = [t](const DialectText& d) {
    const AddText x = add_text(d, t);
    return cat(x.prelude,
               "KERNEL porta_k(", d.global_ptr(DType::int64), " idx, ", x.in_ptr, " v, ", x.out_ptr,
               " a, i64 idx_off, i64 v_off, i64 a_off, i64 m, i64 len) {\n"
               "  for (i64 p = GID; p < len; p += GSIZE) {\n"
               "    ", x.ct, " s = ", x.load("a", "a_off + p"), ";\n"
               "    int hit = 0;\n"
               "    for (i64 k = 0; k < m; ++k) {\n"
               "      i64 q = idx[idx_off + k];\n"
               "      if (q < 0) q += len;\n"
               "      if (q == p) { ", x.ct, " x = ", x.load("v", "v_off + k"), "; s = ", x.add, "; hit = 1; }\n"
               "    }\n"
               "    if (hit) { ", x.store("a", "a_off + p", "s"), " }\n"
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
      if (own_add_type(t)) {
        host_add_own(t, dst, q, src, k);
        continue;
      }
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
        default: break;  // own_add_type's, above
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
    const AddText x = add_text(d, t);
    return cat(x.prelude,
               "KERNEL porta_k(", d.global_ptr(DType::int64), " idx, ", x.in_ptr, " v, ", d.global_ptr(DType::int64),
               " starts, ", x.out_ptr, " a, i64 idx_off, i64 v_off, i64 st_off, i64 a_off, i64 segments, i64 m) {\n"
               "  for (i64 g = GID; g < segments; g += GSIZE) {\n"
               "    i64 b = starts[st_off + g], e = g + 1 < segments ? starts[st_off + g + 1] : m;\n"
               "    i64 p = idx[idx_off + b];\n"
               "    ", x.ct, " s = ", x.load("a", "a_off + p"), ";\n"
               "    for (i64 i = b; i < e; ++i) { ", x.ct, " x = ", x.load("v", "v_off + i"), "; s = ", x.add, "; }\n"
               "    ", x.store("a", "a_off + p", "s"), "\n"
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
  // 16-byte elements (complex128) take the CPU devices' kernel everywhere: the GPU kernel's two
  // tiles in local memory would be 66 KiB, past CUDA's 48 KiB of static shared memory.
  const bool cpu = on_cpu(out) || item > 8;
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

namespace {
// searchsorted's kernel on the elements' bits compared as the radix sort's keys (KEY3: class,
// high, low): the dtypes that have no compute type of their own in the generated code's
// dialect text (the narrow and unsigned integers, complex numbers).
std::string searchsorted_key_source(const DialectText& d, DType t) {
  const bool kt64 = is_complex(t) ? t == DType::complex128 : itemsize(t) == 8;
  return cat("typedef ", bits_type(d, itemsize(t)), " RT;\ntypedef ", bits_type(d, kt64 ? 8 : 4), " KT;\n", key3_text(d, t),
             "#define KLT(ac, ah, al, bc, bh, bl) ((ac) < (bc) || ((ac) == (bc) && ((ah) < (bh) || ((ah) == (bh) && (al) < (bl)))))\n"
             "KERNEL porta_k(GLOBAL const RT* a, GLOBAL const RT* v, GLOBAL i64* out, i64 a_off, i64 v_off, i64 out_off, i64 n, i64 m,"
             " int right) {\n"
             "  for (i64 e = GID; e < m; e += GSIZE) {\n"
             "    unsigned int xc, yc; KT xh, xl, yh, yl;\n"
             "    KEY3(v[v_off + e], xc, xh, xl)\n"
             "    i64 lo = 0, hi = n;\n"
             "    while (lo < hi) {\n"
             "      i64 mid = lo + (hi - lo) / 2;\n"
             "      KEY3(a[a_off + mid], yc, yh, yl)\n"
             "      int go = right ? !KLT(xc, xh, xl, yc, yh, yl) : KLT(yc, yh, yl, xc, xh, xl);\n"
             "      if (go) lo = mid + 1; else hi = mid;\n"
             "    }\n"
             "    out[out_off + e] = lo;\n"
             "  }\n}\n");
}
}  // namespace

void searchsorted(DType t, const View& a, std::int64_t n, const View& v, std::int64_t m, const View& out, bool right) {
  Work w;
  w.reads = {&a, &v};
  w.write = &out;
  w.items = m;
  w.key = cat("searchsorted|", static_cast<int>(t));
  w.source = [t](const DialectText& d) {
    if (is_complex(t) || (is_integral(t) && t != DType::int32 && t != DType::int64)) return searchsorted_key_source(d, t);
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
    // Compared as the radix sort's order-preserving keys: exact for int64, NaNs last, complex
    // numbers in NumPy's order.
    for (std::int64_t e = 0; e < m; ++e) {
      const SortKey x = host_sort_key(t, val, e, false);
      std::int64_t lo = 0, hi = n;
      while (lo < hi) {
        std::int64_t mid = lo + (hi - lo) / 2;
        const SortKey y = host_sort_key(t, src, mid, false);
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
      if (item <= 8 || cpu) out.emplace_back(cat("compress of ", item, "-byte elements", cpu ? " (CPU)" : ""), compress_source(d, item, cpu));
  }
  for (DType t : {DType::int8, DType::uint16, DType::uint32, DType::uint64, DType::complex64, DType::complex128})
    out.emplace_back(cat("searchsorted by keys, ", name(t)), searchsorted_key_source(d, t));
  for (bool cpu : {false, true}) out.emplace_back(cat("mask tile counts", cpu ? " (CPU)" : ""), mask_counts_source(d, cpu));
  for (auto& [what, text] : out) text = common_prelude(d) + text;
  return out;
}
}  // namespace primitives

}  // namespace porta::detail
