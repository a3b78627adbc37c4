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
#include "porta_backend/strings.hpp"

namespace porta::detail {
namespace {

std::string common_prelude(const DialectText& d) {
  if (d.cuda())
    return "typedef long long i64;\n#define KERNEL extern \"C\" __global__ void\n#define GLOBAL\n"
           "#define GID (blockIdx.x * (long long)blockDim.x + threadIdx.x)\n"
           "#define GSIZE ((long long)gridDim.x * blockDim.x)\n";
  return "typedef long i64;\n#define KERNEL __kernel void\n#define GLOBAL __global\n#define GID ((long)get_global_id(0))\n"
         "#define GSIZE ((long)get_global_size(0))\n";
}

// The unsigned type of `bytes` bytes: gathers and scatters move elements without looking at them.
std::string bits_type(const DialectText& d, std::size_t bytes) {
  switch (bytes) {
    case 1: return d.cuda() ? "unsigned char" : "uchar";
    case 2: return d.cuda() ? "unsigned short" : "ushort";
    case 4: return d.cuda() ? "unsigned int" : "uint";
    default: return d.cuda() ? "unsigned long long" : "ulong";
  }
}

// What one primitive needs to run: its buffers (reads and the one write), kernel source and
// arguments for compiling devices, and a host loop for the others.
struct Work {
  std::vector<const View*> reads;
  const View* write = nullptr;
  const View* write2 = nullptr;  // a second output (radix passes: keys and indices)
  std::string key;
  std::function<std::string(const DialectText&)> source;  // defines the kernel "porta_k"
  std::function<void(std::vector<KernelArg>&)> args;       // after the pointers, in order
  std::int64_t items = 0;                                  // loop length
  std::size_t groups = 0, group = 0;                       // an exact launch of `groups` x `group` (scans)
  std::function<void(const std::vector<std::uint8_t*>&)> host;  // pointers: reads..., write
};

std::uint8_t* host_pointer(DeviceImpl& dev, const View& v) {
  auto* p = static_cast<std::uint8_t*>(dev.host_address(v.buffer->handle()));
  if (!p)
    throw BackendUnavailable(cat("device ", dev.info().name, " neither compiles kernels nor exposes host memory: "
                                 "indexing and sorting cannot run on it"));
  return p;
}

void run(const Work& w, DType t_write) {
  (void)t_write;
  const Device& device = w.write->buffer->device();
  DeviceImpl& dev = device.impl();
  const auto& q = thread_queue_shared(device);
  for (auto* r : w.reads) r->buffer->before_read(q);
  w.write->buffer->before_write(q);
  if (w.write2) w.write2->buffer->before_write(q);
  if (w.items > 0) {
    const DeviceInfo& info = dev.info();
    if (info.dialect == Dialect::none) {
      q->synchronize();
      std::vector<std::uint8_t*> ptrs;
      for (auto* r : w.reads) ptrs.push_back(host_pointer(dev, *r));
      ptrs.push_back(host_pointer(dev, *w.write));
      if (w.write2) ptrs.push_back(host_pointer(dev, *w.write2));
      w.host(ptrs);
    } else {
      DialectText d{info.dialect};
      auto kernel = dev.state().kernels().get(w.key, [&] {
        return KernelSource{common_prelude(d) + w.source(d), "porta_k", {}};
      });
      std::vector<KernelArg> args;
      w.args(args);
      LaunchDims dims;
      if (w.groups) {
        dims.global[0] = w.groups * w.group;
        dims.local[0] = w.group;
        dev.launch(*q, *kernel, dims, args);
        w.write->buffer->after_write(q);
        if (w.write2) w.write2->buffer->after_write(q);
        return;
      }
      const std::size_t group = info.launch.group_size ? info.launch.group_size : 256;
      std::size_t groups = static_cast<std::size_t>((w.items + static_cast<std::int64_t>(group) - 1) /
                                                    static_cast<std::int64_t>(group));
      if (info.launch.grid_stride) groups = std::min(groups, std::max<std::size_t>(info.launch.max_groups, 1) * 4);
      dims.global[0] = groups * group;
      dims.local[0] = group;
      dev.launch(*q, *kernel, dims, args);
    }
  }
  w.write->buffer->after_write(q);
  if (w.write2) w.write2->buffer->after_write(q);
}

KernelArg mem(const View& v) { return KernelArg::memory(v.buffer->handle()); }
KernelArg i64(std::int64_t x) { return KernelArg::scalar<std::int64_t>(x); }

// Host values of dtype t as double / int64, for the loops that compute.
double host_load(DType t, const std::uint8_t* p, std::int64_t i) {
  switch (t) {
    case DType::boolean: return p[i] != 0;
    case DType::int32: { std::int32_t x; std::memcpy(&x, p + 4 * i, 4); return x; }
    case DType::int64: { std::int64_t x; std::memcpy(&x, p + 8 * i, 8); return static_cast<double>(x); }
    case DType::float16: { std::uint16_t b; std::memcpy(&b, p + 2 * i, 2); return static_cast<float>(half::from_bits(b)); }
    case DType::bfloat16: { std::uint16_t b; std::memcpy(&b, p + 2 * i, 2); return static_cast<float>(bfloat16::from_bits(b)); }
    case DType::float32: { float x; std::memcpy(&x, p + 4 * i, 4); return x; }
    case DType::float64: { double x; std::memcpy(&x, p + 8 * i, 8); return x; }
  }
  return 0;
}

std::int64_t host_load_int(const std::uint8_t* p, std::int64_t i) {
  std::int64_t x;
  std::memcpy(&x, p + 8 * i, 8);
  return x;
}

std::int64_t wrap(std::int64_t k, std::int64_t len) { return k < 0 ? k + len : k; }

// Scans, radix passes and compaction work in tiles of GROUP x ITEMS elements, one work-group each.
constexpr int kScanGroup = 256, kScanItems = 8, kScanTile = kScanGroup * kScanItems;

std::uint64_t host_radix_key(DType t, const std::uint8_t* p, std::int64_t e, bool descending);  // below

std::string compute_lt(DType t) {
  // NaNs sort last: x < y, or x is a number and y is NaN.
  return is_floating(t) ? "((x) < (y) || ((x) == (x) && (y) != (y)))" : "((x) < (y))";
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

namespace {

std::string scan_defs(const DialectText& d, DType t, bool product) {
  return cat("typedef ", d.storage_type(t), " T;\n#define OP(a, b) ", product ? "((a) * (b))" : "((a) + (b))", "\n#define IDENT ",
             product ? "((T)1)" : "((T)0)", "\n#define GROUP ", kScanGroup, "\n#define ITEMS ", kScanItems, "\n#define TILE ",
             kScanTile, "\n#define LID ((int)", d.local_id(), ")\n#define GROUP_ID ((i64)", d.group_id(), ")\n#define BARRIER ",
             d.barrier(), "\n");
}

}  // namespace

void scan_rows(DType t, const View& x, const View& y, std::int64_t outer, std::int64_t len, bool product) {
  DeviceImpl& dev = x.buffer->device().impl();
  if (outer * len == 0) return;
  if (dev.info().dialect == Dialect::none) {
    Work w;
    w.reads = {&x};
    w.write = &y;
    w.items = outer * len;
    w.host = [&](const std::vector<std::uint8_t*>& p) {
      auto rows = [&](auto zero) {
        using T = decltype(zero);
        const T* in = reinterpret_cast<const T*>(p[0]) + x.offset;
        T* out = reinterpret_cast<T*>(p[1]) + y.offset;
        for (std::int64_t o = 0; o < outer; ++o) {
          T acc = product ? T(1) : T(0);
          for (std::int64_t i = 0; i < len; ++i) {
            T v = in[o * len + i];
            if constexpr (std::is_integral_v<T>) {  // wrapping, as the devices' int64
              using U = std::make_unsigned_t<T>;
              acc = static_cast<T>(product ? static_cast<U>(acc) * static_cast<U>(v) : static_cast<U>(acc) + static_cast<U>(v));
            } else {
              acc = product ? acc * v : acc + v;
            }
            out[o * len + i] = acc;
          }
        }
      };
      if (t == DType::int64) rows(std::int64_t{0});
      else if (t == DType::float32) rows(0.0f);
      else rows(0.0);
    };
    run(w, t);
    return;
  }
  const std::int64_t tiles = (len + kScanTile - 1) / kScanTile;
  NodePtr partial, prefix;
  if (tiles > 1) {
    // The sum (product) of every tile, then their inclusive scan along each row.
    partial = make_buffer_node({outer, tiles}, t, x.buffer->device());
    Work a;
    a.reads = {&x};
    a.write = &partial->view();
    a.items = outer * tiles;
    a.groups = static_cast<std::size_t>(outer * tiles);
    a.group = kScanGroup;
    a.key = cat("scan_tiles|", static_cast<int>(t), "|", product);
    a.source = [t, product](const DialectText& d) {
      return cat(d.prelude(t == DType::float64, false), "\n", scan_defs(d, t, product),
                 "KERNEL porta_k(GLOBAL const T* x, GLOBAL T* partial, i64 x_off, i64 len, i64 tiles) {\n  ",
                 d.local_array("T", "red", "GROUP"), "\n"
                 "  i64 g = GROUP_ID, row = g / tiles, t = g % tiles;\n"
                 "  int lid = LID;\n"
                 "  i64 base = x_off + row * len + t * TILE, count = len - t * TILE < TILE ? len - t * TILE : TILE;\n"
                 "  T s = IDENT;\n"
                 "  for (int k = 0; k < ITEMS; ++k) { i64 e = (i64)k * GROUP + lid; if (e < count) s = OP(s, x[base + e]); }\n"
                 "  red[lid] = s;\n  BARRIER\n"
                 "  for (int h = GROUP / 2; h > 0; h >>= 1) { if (lid < h) red[lid] = OP(red[lid], red[lid + h]); BARRIER }\n"
                 "  if (lid == 0) partial[g] = red[0];\n}\n");
    };
    a.args = [&](std::vector<KernelArg>& g) { g = {mem(x), mem(partial->view()), i64(x.offset), i64(len), i64(tiles)}; };
    run(a, t);
    prefix = make_buffer_node({outer, tiles}, t, x.buffer->device());
    scan_rows(t, partial->view(), prefix->view(), outer, tiles, product);
  }
  const View* pre = prefix ? &prefix->view() : &x;  // unread when there is one tile
  Work b;
  b.reads = {&x, pre};
  b.write = &y;
  b.items = outer * tiles;
  b.groups = static_cast<std::size_t>(outer * tiles);
  b.group = kScanGroup;
  b.key = cat("scan_rows|", static_cast<int>(t), "|", product);
  b.source = [t, product](const DialectText& d) {
    return cat(d.prelude(t == DType::float64, false), "\n", scan_defs(d, t, product),
               "KERNEL porta_k(GLOBAL const T* x, GLOBAL const T* prefix, GLOBAL T* y, i64 x_off, i64 pre_off, i64 y_off, i64 len,"
               " i64 tiles, int has_prefix) {\n  ",
               d.local_array("T", "buf", "TILE"), "\n  ", d.local_array("T", "sums", "GROUP"), "\n"
               "  i64 g = GROUP_ID, row = g / tiles, t = g % tiles;\n"
               "  int lid = LID;\n"
               "  i64 base = row * len + t * TILE, count = len - t * TILE < TILE ? len - t * TILE : TILE;\n"
               "  for (int k = 0; k < ITEMS; ++k) { i64 e = (i64)k * GROUP + lid; buf[e] = e < count ? x[x_off + base + e] : IDENT; }\n"
               "  BARRIER\n"
               "  T run = IDENT;\n"
               "  for (int k = 0; k < ITEMS; ++k) { run = OP(run, buf[lid * ITEMS + k]); buf[lid * ITEMS + k] = run; }\n"
               "  sums[lid] = run;\n  BARRIER\n"
               "  for (int off = 1; off < GROUP; off <<= 1) {\n"
               "    T v = lid >= off ? sums[lid - off] : IDENT;\n    BARRIER\n"
               "    if (lid >= off) sums[lid] = OP(v, sums[lid]);\n    BARRIER\n  }\n"
               "  T before = lid > 0 ? sums[lid - 1] : IDENT;\n"
               "  if (has_prefix && t > 0) before = OP(prefix[pre_off + row * tiles + t - 1], before);\n"
               "  for (int k = 0; k < ITEMS; ++k) buf[lid * ITEMS + k] = OP(before, buf[lid * ITEMS + k]);\n"
               "  BARRIER\n"
               "  for (int k = 0; k < ITEMS; ++k) { i64 e = (i64)k * GROUP + lid; if (e < count) y[y_off + base + e] = buf[e]; }\n"
               "}\n");
  };
  b.args = [&](std::vector<KernelArg>& g) {
    g = {mem(x), mem(*pre), mem(y), i64(x.offset), i64(pre->offset), i64(y.offset), i64(len), i64(tiles),
         KernelArg::scalar<std::int32_t>(prefix ? 1 : 0)};
  };
  run(b, t);
}

namespace {

constexpr int kRadixBits = 4, kRadixDigits = 1 << kRadixBits;

// The order-preserving unsigned key of one element's bits (radix_keys' rule), on the host.
std::uint64_t host_radix_key(DType t, const std::uint8_t* p, std::int64_t e, bool descending) {
  std::uint64_t u = 0, k = 0;
  int w = 0;
  switch (t) {
    case DType::boolean: u = p[e] != 0; w = 8; k = u; break;
    case DType::int32: { std::uint32_t x; std::memcpy(&x, p + 4 * e, 4); w = 32; k = x ^ 0x80000000u; break; }
    case DType::int64: { std::memcpy(&u, p + 8 * e, 8); w = 64; k = u ^ 0x8000000000000000ull; break; }
    default: {
      std::uint64_t sign, exp_mask, nan;
      if (t == DType::float16) { std::uint16_t x; std::memcpy(&x, p + 2 * e, 2); u = x; w = 16; exp_mask = 0x7c00; nan = 0x7e00; }
      else if (t == DType::bfloat16) { std::uint16_t x; std::memcpy(&x, p + 2 * e, 2); u = x; w = 16; exp_mask = 0x7f80; nan = 0x7fc0; }
      else if (t == DType::float32) { std::uint32_t x; std::memcpy(&x, p + 4 * e, 4); u = x; w = 32; exp_mask = 0x7f800000; nan = 0x7fc00000; }
      else { std::memcpy(&u, p + 8 * e, 8); w = 64; exp_mask = 0x7ff0000000000000ull; nan = 0x7ff8000000000000ull; }
      sign = std::uint64_t{1} << (w - 1);
      if ((u & ~sign) > exp_mask) u = nan;
      if (u == sign) u = 0;  // -0.0 sorts with 0.0
      std::uint64_t mask = w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1;
      k = (u & sign) ? (~u & mask) : (u | sign);
    }
  }
  if (descending) k = ~k & (w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1);
  return k;
}

// Device text of the same rule: `u` holds the element's bits in KT.
std::string radix_map_text(DType t) {
  switch (t) {
    case DType::boolean: return "k = u != 0;";
    case DType::int32: return "k = u ^ (KT)0x80000000u;";
    case DType::int64: return "k = u ^ ((KT)1 << 63);";
    default: break;
  }
  int w = t == DType::float64 ? 64 : t == DType::float32 ? 32 : 16;
  const char* exp_mask = t == DType::float16 ? "0x7c00" : t == DType::bfloat16 ? "0x7f80" : t == DType::float32 ? "0x7f800000" : "0x7ff0000000000000";
  const char* nan = t == DType::float16 ? "0x7e00" : t == DType::bfloat16 ? "0x7fc0" : t == DType::float32 ? "0x7fc00000" : "0x7ff8000000000000";
  // KT is as wide as the key (a shift by the full width would be undefined) except for 16-bit keys.
  return cat("KT sign = (KT)1 << ", w - 1, ", mask = ", w == 16 ? "(KT)0xffff" : "~(KT)0", ";\n",
             "    if ((u & ~sign) > (KT)", exp_mask, (w == 64 ? "ull" : "u"), ") u = (KT)", nan, (w == 64 ? "ull" : "u"), ";\n",
             "    if (u == sign) u = 0;\n",
             "    k = (u & sign) ? (~u & mask) : (u | sign);");
}

}  // namespace

int radix_key_bits(DType t) {
  switch (t) {
    case DType::boolean: return 4;
    case DType::float16:
    case DType::bfloat16: return 16;
    case DType::int32:
    case DType::float32: return 32;
    default: return 64;
  }
}

namespace {

std::string radix_defs(const DialectText& d, bool wide) {
  return cat("typedef ", bits_type(d, wide ? 8 : 4), " KT;\n#define GROUP ", kScanGroup, "\n#define ITEMS ", kScanItems,
             "\n#define TILE ", kScanTile, "\n#define DIGITS ", kRadixDigits, "\n#define LID ((int)", d.local_id(),
             ")\n#define GROUP_ID ((i64)", d.group_id(), ")\n#define BARRIER ", d.barrier(), "\n",
             "#define DIGIT(e) (by_row ? (int)(((idx[e] / len) >> shift) & (DIGITS - 1)) : (int)((keys[e] >> shift) & (DIGITS - 1)))\n");
}

// Counts of this thread's ITEMS consecutive elements per digit into cnt[d * GROUP + lid].
const char* kRadixCount =
    "  i64 tile = GROUP_ID; int lid = LID;\n"
    "  i64 base = tile * TILE + (i64)lid * ITEMS;\n"
    "  int c[DIGITS];\n"
    "  for (int d = 0; d < DIGITS; ++d) c[d] = 0;\n"
    "  for (int k = 0; k < ITEMS; ++k) { i64 e = base + k; if (e < n) c[DIGIT(e)]++; }\n"
    "  for (int d = 0; d < DIGITS; ++d) cnt[d * GROUP + lid] = c[d];\n"
    "  BARRIER\n";

}  // namespace

void radix_keys(DType t, const View& a, const View& keys, std::int64_t n, bool descending) {
  const bool wide = radix_key_bits(t) == 64;
  const std::size_t item = itemsize(t);
  Work w;
  w.reads = {&a};
  w.write = &keys;
  w.items = n;
  w.key = cat("radix_keys|", static_cast<int>(t), "|", descending);
  w.source = [t, wide, item, descending](const DialectText& d) {
    int bits = radix_key_bits(t);
    std::string mask = bits >= 32 ? "~(KT)0" : cat("(((KT)1 << ", bits, ") - 1)");
    return cat("typedef ", bits_type(d, wide ? 8 : 4), " KT;\ntypedef ", bits_type(d, item), " ST;\n",
               "KERNEL porta_k(GLOBAL const ST* a, GLOBAL KT* keys, i64 a_off, i64 n) {\n"
               "  for (i64 e = GID; e < n; e += GSIZE) {\n"
               "    KT u = (KT)a[a_off + e], k;\n    ", radix_map_text(t), "\n",
               descending ? cat("    k = ~k & ", mask, ";\n") : std::string(), "    keys[e] = k;\n  }\n}\n");
  };
  w.args = [&](std::vector<KernelArg>& g) { g = {mem(a), mem(keys), i64(a.offset), i64(n)}; };
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    const std::uint8_t* src = p[0] + a.offset * item;
    for (std::int64_t e = 0; e < n; ++e) {
      std::uint64_t k = host_radix_key(t, src, e, descending);
      if (wide) std::memcpy(p[1] + keys.offset * 8 + 8 * e, &k, 8);
      else { auto k32 = static_cast<std::uint32_t>(k); std::memcpy(p[1] + keys.offset * 4 + 4 * e, &k32, 4); }
    }
  };
  run(w, t);
}

void radix_pass(bool wide, const View& keys, const View& idx, const View& keys_out, const View& idx_out, std::int64_t n,
                int shift, bool by_row, std::int64_t len) {
  const Device& device = keys.buffer->device();
  const std::int64_t tiles = (n + kScanTile - 1) / kScanTile;
  auto hist = make_buffer_node({kRadixDigits * tiles}, DType::int64, device);
  auto incl = make_buffer_node({kRadixDigits * tiles}, DType::int64, device);
  auto common_args = [&](std::vector<KernelArg>& g) {
    for (auto a : {i64(n), KernelArg::scalar<std::int32_t>(shift), KernelArg::scalar<std::int32_t>(by_row ? 1 : 0), i64(len),
                   i64(tiles)})
      g.push_back(a);
  };
  Work h;
  h.reads = {&keys, &idx};
  h.write = &hist->view();
  h.items = tiles;
  h.groups = static_cast<std::size_t>(tiles);
  h.group = kScanGroup;
  h.key = cat("radix_hist|", wide);
  h.source = [wide](const DialectText& d) {
    return cat(radix_defs(d, wide),
               "KERNEL porta_k(GLOBAL const KT* keys, GLOBAL const i64* idx, GLOBAL i64* hist, i64 n, int shift, int by_row,"
               " i64 len, i64 tiles) {\n  ",
               d.local_array("int", "cnt", "DIGITS * GROUP"), "\n", kRadixCount,
               "  if (lid < DIGITS) {\n    i64 s = 0;\n    for (int t = 0; t < GROUP; ++t) s += cnt[lid * GROUP + t];\n"
               "    hist[(i64)lid * tiles + tile] = s;\n  }\n}\n");
  };
  h.args = [&](std::vector<KernelArg>& g) {
    g = {mem(keys), mem(idx), mem(hist->view())};
    common_args(g);
  };
  run(h, DType::int64);
  // Where each (digit, tile) starts: every smaller digit, then this digit in earlier tiles.
  scan_rows(DType::int64, hist->view(), incl->view(), 1, kRadixDigits * tiles, false);
  Work s;
  s.reads = {&keys, &idx, &hist->view(), &incl->view()};
  s.write = &keys_out;
  s.write2 = &idx_out;
  s.items = tiles;
  s.groups = static_cast<std::size_t>(tiles);
  s.group = kScanGroup;
  s.key = cat("radix_scatter|", wide);
  s.source = [wide](const DialectText& d) {
    return cat(radix_defs(d, wide),
               "KERNEL porta_k(GLOBAL const KT* keys, GLOBAL const i64* idx, GLOBAL const i64* hist, GLOBAL const i64* incl,"
               " GLOBAL KT* keys_out, GLOBAL i64* idx_out, i64 n, int shift, int by_row, i64 len, i64 tiles) {\n  ",
               d.local_array("int", "cnt", "DIGITS * GROUP"), "\n", kRadixCount,
               "  if (lid < DIGITS) {\n    int s = 0;\n"
               "    for (int t = 0; t < GROUP; ++t) { int v = cnt[lid * GROUP + t]; cnt[lid * GROUP + t] = s; s += v; }\n  }\n"
               "  BARRIER\n"
               "  i64 off[DIGITS];\n"
               "  for (int d = 0; d < DIGITS; ++d) {\n"
               "    i64 j = (i64)d * tiles + tile;\n"
               "    off[d] = incl[j] - hist[j] + cnt[d * GROUP + lid];\n  }\n"
               "  for (int k = 0; k < ITEMS; ++k) {\n"
               "    i64 e = base + k;\n"
               "    if (e < n) { i64 p = off[DIGIT(e)]++; keys_out[p] = keys[e]; idx_out[p] = idx[e]; }\n  }\n}\n");
  };
  s.args = [&](std::vector<KernelArg>& g) {
    g = {mem(keys), mem(idx), mem(hist->view()), mem(incl->view()), mem(keys_out), mem(idx_out)};
    common_args(g);
  };
  run(s, DType::int64);
}

void sort_rows_host(DType t, const View& a, const View& idx_out, std::int64_t outer, std::int64_t len, bool descending) {
  Work w;
  w.reads = {&a};
  w.write = &idx_out;
  w.items = outer * len;
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    const std::uint8_t* src = p[0] + a.offset * itemsize(t);
    auto* out = reinterpret_cast<std::int64_t*>(p[1]) + idx_out.offset;
    std::vector<std::uint64_t> keys(static_cast<std::size_t>(len));
    for (std::int64_t o = 0; o < outer; ++o) {
      for (std::int64_t i = 0; i < len; ++i) keys[static_cast<std::size_t>(i)] = host_radix_key(t, src, o * len + i, descending);
      std::int64_t* row = out + o * len;
      for (std::int64_t i = 0; i < len; ++i) row[i] = i;
      std::stable_sort(row, row + len, [&](std::int64_t x, std::int64_t y) {
        return keys[static_cast<std::size_t>(x)] < keys[static_cast<std::size_t>(y)];
      });
    }
  };
  run(w, t);
}

}  // namespace porta::detail
