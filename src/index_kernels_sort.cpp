// The LSD radix sort's passes (scans: index_kernels_scan.cpp): generated kernels in
// both dialects (index_work.hpp runs them) and host loops for Kokkos. Declared in index_kernels.hpp.
#include <porta/error.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

#include "codegen.hpp"
#include "index_kernels.hpp"
#include "index_work.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {

namespace index_work {

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

}  // namespace index_work

using namespace index_work;

namespace {

constexpr int kRadixBits = 4, kRadixDigits = 1 << kRadixBits;


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
