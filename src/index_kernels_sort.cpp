// Row scans (reduce-then-scan over tiles): generated kernels in both dialects (index_work.hpp runs
// them) and host loops for Kokkos. Declared in index_kernels.hpp. The radix sort is in
// index_kernels_radix.cpp.
#include <porta/error.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

#include "codegen.hpp"
#include "index_kernels.hpp"
#include "index_work.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {

using namespace index_work;

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

}  // namespace porta::detail
