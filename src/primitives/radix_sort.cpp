// The LSD radix sort (primitives/primitives.hpp: radix_sort): 8-bit digits, reduce-then-scan per pass
// (Merrill & Grimshaw; CUB's upsweep / scan / downsweep), generated in each dialect and run through
// primitives/work.hpp; and the host sort of devices without a compiler (Kokkos).
//
// Each pass over n elements splits them into G chunks, one work-group each, in order:
//  1. upsweep: every chunk counts its elements of each digit: counts[digit * G + chunk];
//  2. scan: a work-group per digit turns its row of counts into exclusive prefixes over chunks
//     and writes the digit's total;
//  3. downsweep: every chunk starts digit d at (the totals of smaller digits) + (its prefix of d)
//     and writes its elements there in order. GPUs ("tiled"): tile by tile (GROUP x ITEMS
//     elements), each element is ranked inside the tile in local memory (per warp of 32 work-items,
//     one round of 32 elements at a time, then across warps and digits), the tile is reordered in
//     local memory by digit and written out, so that each digit's run is contiguous. The warp's
//     round finds the work-items of the same digit with warp votes where the device has them
//     (CUDA sm_70+, NVIDIA's OpenCL through inline PTX) and through local memory elsewhere (Rank
//     says how). CPU devices ("serial"): a work-group of one work-item per large chunk, in order.
// A pass whose digit is the same for every element (a digit's total is n) is the identity: its
// downsweep copies. The elements move as their raw bits (NaN payloads and -0.0 survive); each pass
// computes the digit from the bits by the order-preserving map (host_radix_key's rule). Indices
// travel as uint32 (n <= 2^32) or uint64 beside them, from the element's position in the first
// pass, and the last pass writes int64.
#include <porta/error.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

#include "codegen/codegen.hpp"
#include "primitives/primitives.hpp"
#include "primitives/work.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {

namespace primitives {

namespace {
// The order-preserving key of a float's bits u (w bits wide): NaNs (every payload) last as one
// value, -0.0 as 0.0.
std::uint64_t float_key(std::uint64_t u, int w) {
  const std::uint64_t sign = std::uint64_t{1} << (w - 1), mask = w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1;
  const std::uint64_t exp_mask = w == 16 ? 0x7c00 : w == 32 ? 0x7f800000 : 0x7ff0000000000000ull;
  const std::uint64_t nan = w == 16 ? 0x7e00 : w == 32 ? 0x7fc00000 : 0x7ff8000000000000ull;
  if ((u & ~sign & mask) > exp_mask) u = nan;
  if (u == sign) u = 0;  // -0.0 sorts with 0.0
  return (u & sign) ? (~u & mask) : (u | sign);
}
bool float_is_nan(std::uint64_t u, int w) {
  const std::uint64_t sign = std::uint64_t{1} << (w - 1), mask = w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1;
  const std::uint64_t exp_mask = w == 32 ? 0x7f800000 : 0x7ff0000000000000ull;
  return (u & ~sign & mask) > exp_mask;
}
}  // namespace

// The order-preserving unsigned key of one element's bits, on the host.
std::uint64_t host_radix_key(DType t, const std::uint8_t* p, std::int64_t e, bool descending) {
  std::uint64_t u = 0, k = 0;
  int w = 0;
  auto bits = [&](int bytes) {
    std::memcpy(&u, p + bytes * e, static_cast<std::size_t>(bytes));  // little-endian: the low bytes of u
    w = 8 * bytes;
  };
  switch (t) {
    case DType::boolean: u = p[e] != 0; w = 8; k = u; break;
    // Signed integers: the sign bit flipped; unsigned ones as they are.
    case DType::int8: bits(1); k = u ^ 0x80u; break;
    case DType::int16: bits(2); k = u ^ 0x8000u; break;
    case DType::int32: bits(4); k = u ^ 0x80000000u; break;
    case DType::int64: bits(8); k = u ^ 0x8000000000000000ull; break;
    case DType::uint8: bits(1); k = u; break;
    case DType::uint16: bits(2); k = u; break;
    case DType::uint32: bits(4); k = u; break;
    case DType::uint64: bits(8); k = u; break;
    case DType::complex64:
    case DType::complex128:
      throw InvalidArgument(cat("porta internal error: host_radix_key of ", name(t), " (complex keys are host_sort_key's)"));
    default: {
      if (t == DType::bfloat16) {  // float16's rule with bfloat16's exponent: as float32's upper half
        std::uint16_t x;
        std::memcpy(&x, p + 2 * e, 2);
        u = x;
        w = 16;
        const std::uint64_t sign = 0x8000;
        if ((u & ~sign) > 0x7f80) u = 0x7fc0;
        if (u == sign) u = 0;
        k = (u & sign) ? (~u & 0xffff) : (u | sign);
        break;
      }
      bits(static_cast<int>(itemsize(t)));
      k = float_key(u, w);
    }
  }
  if (descending) k = ~k & (w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1);
  return k;
}

SortKey host_sort_key(DType t, const std::uint8_t* p, std::int64_t e, bool descending) {
  if (!is_complex(t)) return {0, 0, host_radix_key(t, p, e, descending)};
  // NumPy's order of complex numbers: by real part, then imaginary part, with NaNs in four classes
  // after all numbers: [R + Rj, R + nanj, nan + Rj, nan + nanj] (numpy.sort's notes), each class
  // ordered by its parts that are numbers.
  const int w = t == DType::complex64 ? 32 : 64, bytes = w / 8;
  std::uint64_t re = 0, im = 0;
  std::memcpy(&re, p + 2 * bytes * e, static_cast<std::size_t>(bytes));
  std::memcpy(&im, p + 2 * bytes * e + bytes, static_cast<std::size_t>(bytes));
  SortKey k{(float_is_nan(re, w) ? 2u : 0u) | (float_is_nan(im, w) ? 1u : 0u), float_key(re, w), float_key(im, w)};
  if (descending) {
    const std::uint64_t mask = w == 64 ? ~std::uint64_t{0} : 0xffffffffu;
    k = {3 - k[0], ~k[1] & mask, ~k[2] & mask};
  }
  return k;
}

}  // namespace primitives

using namespace primitives;

namespace primitives {

constexpr int kDigits = 256;
constexpr int kGroup = 256;  // work-items of a tiled work-group: one per digit in the digit scans

// Bits of the key: 8 for booleans (one pass), the storage width otherwise (1- and 2-byte integers:
// one and two passes); complex: the imaginary part's key, then the real part's, then a byte of
// NaN class (host_sort_key's order), least significant first.
int key_bits(DType t) {
  if (t == DType::boolean) return 8;
  if (is_complex(t)) return static_cast<int>(itemsize(t)) * 8 + 8;
  return static_cast<int>(itemsize(t)) * 8;
}
// The width of one part's key (complex: of a part's).
int part_bits(DType t) { return is_complex(t) ? static_cast<int>(itemsize(t)) * 4 : key_bits(t); }

// A real float dtype's constants in device text: its sign and width masks as KT (as wide as the
// key, a shift by the full width being undefined, except for 16-bit keys), its exponent mask and
// canonical quiet NaN.
struct FloatBits {
  std::string consts, exp_mask, nan;
};
FloatBits float_bits(DType t) {
  const int w = t == DType::float64 ? 64 : t == DType::float32 ? 32 : 16;
  const char* exp_mask = t == DType::float16 ? "0x7c00" : t == DType::bfloat16 ? "0x7f80" : t == DType::float32 ? "0x7f800000" : "0x7ff0000000000000";
  const char* nan = t == DType::float16 ? "0x7e00" : t == DType::bfloat16 ? "0x7fc0" : t == DType::float32 ? "0x7fc00000" : "0x7ff8000000000000";
  const char* suffix = w == 64 ? "ull" : "u";
  return {cat("KT sign = (KT)1 << ", w - 1, ", mask = ", w == 16 ? "(KT)0xffff" : "~(KT)0", "; "), cat("(KT)", exp_mask, suffix),
          cat("(KT)", nan, suffix)};
}
// A float's full key from its bits u (after FloatBits::consts): NaNs one value above every
// other, -0.0 as 0.0, the rest by the sign twiddle (kFastFloatKey).
constexpr const char* kFastFloatKey = "k = u ^ ((u & sign) ? mask : sign);";
std::string full_float_key(const FloatBits& f) {
  return cat("KT a_ = u & ~sign & mask; k = a_ > ", f.exp_mask, " ? (", f.nan, " | sign) : a_ == 0 ? sign : (u ^ ((u & sign) ? mask : sign));");
}

// Device text of host_radix_key's map: `u` (KT) holds the element's bits, `k` receives the key.
std::string map_text(DType t) {
  switch (t) {
    case DType::boolean: return "k = u != 0;";
    case DType::int8: return "k = u ^ (KT)0x80u;";
    case DType::int16: return "k = u ^ (KT)0x8000u;";
    case DType::int32: return "k = u ^ (KT)0x80000000u;";
    case DType::int64: return "k = u ^ ((KT)1 << 63);";
    case DType::uint8:
    case DType::uint16:
    case DType::uint32:
    case DType::uint64: return "k = u;";
    default: break;
  }
  const FloatBits f = float_bits(t);
  return cat(f.consts, full_float_key(f));
}

// The same where no element is -0.0 or a NaN other than the canonical quiet one (SPECIAL): then
// the plain sign twiddle (CUB's) orders the keys as map_text's key does, in fewer operations.
std::string map_fast_text(DType t) { return cat(float_bits(t).consts, kFastFloatKey); }

// Either, chosen by `fk_` (1: the fast key) in the kernel that defines it (FloatKey::select).
std::string map_select_text(DType t) {
  const FloatBits f = float_bits(t);
  return cat(f.consts, "if (fk_) ", kFastFloatKey, " else { ", full_float_key(f), " }");
}

// The inverse of a bijective map (integers' map_text, map_fast_text): `u` holds a key, `k`
// receives the element's bits.
std::string unmap_text(DType t) {
  if (!is_floating(t)) return map_text(t);  // the sign's XOR, or nothing
  return cat(float_bits(t).consts, "k = u ^ ((u & sign) ? sign : mask);");
}

// SPECIAL(raw, sp): sp := 1 where a float's bits make map_text's key differ from map_fast_text's
// (-0.0, a NaN other than the canonical one); nothing for every other dtype.
std::string special_text(DType t) {
  if (!is_floating(t)) return "#define SPECIAL(raw, sp)\n";
  const FloatBits f = float_bits(t);
  return cat("#define SPECIAL(raw, sp) { KT u = (KT)(raw); ", f.consts, "if (u == sign || ((u & ~sign & mask) > ", f.exp_mask, " && u != ",
             f.nan, ")) sp = 1u; }\n");
}

// KEY3(raw, c, hi, lo): an element's whole key as (class, high part, low part), compared in that
// order: complex numbers as host_sort_key (c their NaN class, hi and lo their real and imaginary
// parts' keys; KT a part's width), other dtypes (0, 0, the key). Before it: RT, KT.
std::string key3_text(const DialectText& d, DType t) {
  if (!is_complex(t))
    return cat("#define KEY3(raw, c, hi, lo) { KT u = (KT)(raw), k; { ", map_text(t), " } c = 0; hi = 0; lo = k; }\n");
  const bool c64 = t == DType::complex64;
  const DType part = c64 ? DType::float32 : DType::float64;
  const std::string re = c64 ? "(KT)(v_ & 0xffffffffu)" : "v_.x", im = c64 ? "(KT)(v_ >> 32)" : "v_.y";
  const std::string exp_mask = c64 ? "(KT)0x7f800000u" : "(KT)0x7ff0000000000000ull";
  const std::string low = c64 ? "(KT)0x7fffffffu" : "(KT)0x7fffffffffffffffull";
  (void)d;
  return cat("#define KEY3(raw, c, hi, lo) { RT v_ = (raw); KT u, k;"
             " u = ", re, "; c = ((u & ", low, ") > ", exp_mask, ") ? 2u : 0u; { ", map_text(part), " } hi = k;"
             " u = ", im, "; c |= ((u & ", low, ") > ", exp_mask, ") ? 1u : 0u; { ", map_text(part), " } lo = k; }\n");
}

}  // namespace primitives

namespace {

// How a device ranks: serial chunks (CPU devices), or tiles, whose warps find the work-items of
// equal digits through local memory (tiled: any device), or with one warp vote a digit bit (as
// CUB's MatchAny; match.any.sync measured slower on the H200) and scan with warp shuffles:
// CUDA's intrinsics, NVIDIA OpenCL's inline PTX, or both emulated in local memory (ballot_local:
// the same ranking on any device, for tests).
enum class Rank { serial, tiled, ballot_cuda, ballot_ptx, ballot_local };

const char* rank_name(Rank r) {
  switch (r) {
    case Rank::serial: return "serial";
    case Rank::tiled: return "tiled";
    case Rank::ballot_cuda: return "ballot_cuda";
    case Rank::ballot_ptx: return "ballot_ptx";
    case Rank::ballot_local: return "ballot_local";
  }
  return "?";
}

bool has_ballot(Rank r) { return r == Rank::ballot_cuda || r == Rank::ballot_ptx || r == Rank::ballot_local; }

// Set once a program with the inline PTX failed to build on an NVIDIA OpenCL platform (then: tiled).
std::atomic<bool> g_ptx_failed{false};

Rank choose_rank(const DeviceInfo& info) {
  // PORTA_RADIX=serial|tiled|ballot forces a ranking (ballot: the local-memory emulation), for tests.
  const std::string forced = setting_choice("PORTA_RADIX");
  if (forced == "serial") return Rank::serial;
  if (forced == "tiled") return Rank::tiled;
  if (forced == "ballot") return Rank::ballot_local;
  if (info.kind == DeviceKind::cpu) return Rank::serial;
  if (info.dialect == Dialect::cuda) {
    int cc = 0;
    if (info.arch.rfind("sm_", 0) == 0) cc = std::atoi(info.arch.c_str() + 3);
    return cc >= 70 ? Rank::ballot_cuda : Rank::tiled;
  }
  if (info.platform.find("NVIDIA") != std::string::npos && info.kind == DeviceKind::gpu && !g_ptx_failed.load())
    return Rank::ballot_ptx;
  return Rank::tiled;
}

// The blocks an SM is to hold in CUDA's sort passes without indices (their __launch_bounds__):
// PORTA_RADIX_BLOCKS, else 4 (64 registers a thread), or 3 where a work-item ranks more than 16
// keys (the one-sweep pass's tiles of 256 x 24: onesweep_items).
int radix_blocks(int items) {
  static const std::optional<int> forced = setting_int("PORTA_RADIX_BLOCKS");
  return forced ? *forced : items > 16 ? 3 : 4;
}

// How a float dtype's one-sweep pass takes the fast key where the histogram met no SPECIAL key
// (onesweep_source): never (full), by holding the tile's work twice under one branch (both), or
// by a branch in each key's map (select). PORTA_SORT_FLOAT_KEY; auto: both.
enum class FloatKey { full, both, select };

FloatKey float_key_for(DType t, bool gpu_like) {
  if (!is_floating(t) || !gpu_like) return FloatKey::full;
  const std::string forced = setting_choice("PORTA_SORT_FLOAT_KEY");
  return forced == "full" ? FloatKey::full : forced == "select" ? FloatKey::select : FloatKey::both;
}

// What one sort's kernels are compiled for.
struct RadixPlan {
  DType t;
  Rank rank;
  int pay = 0;   // bytes of the index that travels (0: none, 4, 8)
  int items = 16;  // elements a work-item ranks per tile
  int blocks = 0;  // CUDA: work-groups an SM is to hold (the downsweep's __launch_bounds__; 0: no bound)
  bool early = false;  // the one-sweep pass in CUB's order (PORTA_ONESWEEP=early: onesweep_early_source)
  FloatKey float_key = FloatKey::full;  // float keys: how the one-sweep pass takes map_fast_text's key where it may
  bool mapped = true;  // the one-sweep passes hand on mapped keys where they may (stored_form; PORTA_SORT_KEYS)
  int group() const { return rank == Rank::serial ? 1 : kGroup; }
  int tile() const { return group() * items; }
};

// Whether the one-sweep passes hand the keys on in their mapped form (digit_define's form): the
// late order's passes of every dtype whose map is a bijection, a float dtype's where the fast key
// may apply (FloatKey::both's branch).
bool stored_form(const RadixPlan& s) {
  if (!s.mapped || s.early || s.t == DType::boolean || is_complex(s.t)) return false;
  return !is_floating(s.t) || s.float_key == FloatKey::both;
}

int tile_items(int bytes) { return std::min(16, 32000 / (kGroup * bytes)); }
// The one-sweep pass's items a work-item (PORTA_SORT_ITEMS, read at each sort), at most what 32000
// bytes of local memory hold of a tile's elements and indices: the tile's tables take the rest of
// CUDA's 48 KiB of static local memory. Unset: 24 for 4-byte keys alone (with 3 blocks an SM), from
// the H200 (2026-12-06, 2^28 keys, G keys/s on cuda:0 / opencl:1, CuPy 38.3 float32, 39.1 int32):
// tiles of 256 x 16 with 4 blocks sorted float32 at 32.4 / 31.8 and int32 at 35.8 / 34.4, of
// 256 x 24 with 3 at 33.9 / 34.1 and 37.8 / 37.7 (256 x 31 with 2 had been slower than 16 before
// the ranking's last changes: 27.4 against 28.1 float32); other keys and sorts with indices
// tile_items' (untimed at other sizes).
int onesweep_items(int bytes) {
  const int fit = 32000 / (kGroup * bytes);
  const std::optional<int> forced = setting_int("PORTA_SORT_ITEMS");
  return forced ? std::min(*forced, fit) : bytes == 4 ? 24 : tile_items(bytes);
}

std::string u32t(const DialectText& d) { return d.cuda() ? "unsigned int" : "uint"; }

// DIGIT(raw, pay, dst) of a real dtype whose key `map` (map_text, map_fast_text) computes; with
// `form`, a one-sweep pass's, whose keys may come mapped (stored_form): then each digit as it stands.
std::string digit_define(const std::string& map, bool form = false) {
  const std::string key = cat("{ ", map, " } if (desc) k = ~k & KMASK;");
  return cat("#define DIGIT(raw, pay, dst) { if (by_row) dst = (u32)((((u64)(pay)) / (u64)len >> shift) & 255u);",
             " else { KT u = (KT)(raw), k; ", form ? cat("if (form & 1) k = u; else { ", key, " }") : key,
             " dst = (u32)((k >> shift) & 255u); } }\n");
}

// The one-sweep passes of a key whose map is a bijection (every integer dtype but bool; a float
// dtype's fast key, where the histogram met no SPECIAL key) pass the keys on between them in
// their mapped form, the descending order's complement included: the first pass maps the
// elements' bits on the way out, the passes between take each key's digit as it stands, and the
// last maps the keys back (CUB twiddles each key in and out of every pass instead). The pass's
// `form` says which: bit 0, the keys come mapped; bit 1, they go out mapped.
// FORM_OUT(v): the key v (RT) going out of the pass, in the form the next pass reads, where
// `guard` holds (the fast key's branch: the histogram met no SPECIAL key).
std::string form_out_define(DType t, const std::string& guard) {
  return cat("#define FORM_OUT(v) if ((", guard, ") && (form & 1) != ((form >> 1) & 1)) { KT u = (KT)(v), k;"
             " if (form & 2) { { ", is_floating(t) ? map_fast_text(t) : map_text(t), " } if (desc) k = ~k & KMASK; }"
             " else { if (desc) u = ~u & KMASK; { ", unmap_text(t), " } } v = (RT)k; }\n");
}

// Types and macros every radix kernel starts with. DIGIT(raw, pay, dst): the pass's digit of an
// element (of its key, or with by_row of its row: the flat index pay / len).
std::string defs(const DialectText& d, const RadixPlan& s, bool last_wide) {
  const int bits = part_bits(s.t);
  const bool wide = bits == 64;
  std::string kmask = bits >= 32 ? "(~(KT)0)" : cat("((KT)", (1u << bits) - 1, "u)");
  std::string pt = bits_type(d, s.pay == 8 ? 8 : 4), po = last_wide ? bits_type(d, 8) : pt;
  std::string r = cat("typedef ", bits_type(d, itemsize(s.t)), " RT;\ntypedef ", bits_type(d, wide ? 8 : 4), " KT;\n",
                      "typedef ", pt, " PT;\ntypedef ", po, " PO;\ntypedef ", u32t(d), " u32;\ntypedef ", bits_type(d, 8), " u64;\n",
                      "#define HAS_PAY ", s.pay ? 1 : 0, "\n#define GROUP ", s.group(), "\n#define ITEMS ", s.items,
                      "\n#define TILE ", s.tile(), "\n#define WARPS (GROUP / 32)\n#define DIGITS ", kDigits,
                      "\n#define LID ((int)", d.local_id(), ")\n#define GROUP_ID ((i64)", d.group_id(), ")\n#define BARRIER ",
                      d.barrier(), "\n#define KMASK ", kmask, "\n");
  if (!is_complex(s.t)) {
    r += digit_define(map_text(s.t));
  } else {
    // Complex: the passes take the imaginary part's bytes, the real part's, then the NaN class.
    r += cat("#define DIGIT(raw, pay, dst) { if (by_row) dst = (u32)((((u64)(pay)) / (u64)len >> shift) & 255u);",
             " else { u32 c_; KT hi_, lo_; KEY3(raw, c_, hi_, lo_) if (desc) { c_ = 3u - c_; hi_ = ~hi_; lo_ = ~lo_; }"
             " dst = shift < ", bits, " ? (u32)((lo_ >> shift) & 255u) : shift < ", 2 * bits, " ? (u32)((hi_ >> (shift - ", bits,
             ")) & 255u) : c_; } }\n", key3_text(d, s.t));
  }
  if (d.cuda()) {
    // The tiled downsweep's registers bounded so that s.blocks work-groups fit an SM (sorts
    // without indices: with them the tile's local memory allows four anyway, and a bound of 64
    // registers spilled, argsort float32 17.8 -> 14.5 G keys/s). Unbounded, NVRTC gave the int32
    // downsweep 118 registers a thread (two blocks of 256 an SM, 24% of the H200's warps; 3.19 ms
    // a pass of 2^28 keys) and float32's 80 (three blocks; 2.08 ms). Sort int32 of 2^28 keys on
    // the H200 (2026-12-01), G keys/s: 17.6 unbounded, 22.8 with 3 blocks, 26.7 with 4, 23.4 with 5;
    // float32 27.5, 26.6, 27.2, 22.8. NVIDIA's OpenCL takes no register bound (it refuses
    // -cl-nv-maxrregcount: "Don't understand command line argument"): there the bound is a
    // .maxnreg directive the OpenCL backend writes into the program's PTX (sort_with).
    r += cat("#define BOUNDS ", s.group() > 1 && s.blocks > 0 ? cat("__launch_bounds__(", s.group(), ", ", s.blocks, ")") : std::string(), "\n");
    r += kernel_text(d, kRadixSortSource, "ops_cuda");
  } else {
    r += kernel_text(d, kRadixSortSource, "ops_opencl");
  }
  // The ranking's BALLOT, SHFL_UP, WSYNC and PEERS (kernels/radix_sort.cl says what they do).
  switch (s.rank) {
    case Rank::ballot_cuda: r += kernel_text(d, kRadixSortSource, "rank_ballot_cuda"); break;
    case Rank::ballot_ptx: r += kernel_text(d, kRadixSortSource, "rank_ballot_ptx"); break;
    case Rank::ballot_local: r += kernel_text(d, kRadixSortSource, "rank_ballot_local"); break;
    default: r += kernel_text(d, kRadixSortSource, "rank_tiled");  // also serial's, which reads none of them
  }
  // PEERS: the votes in PTX where the device takes PTX (CUDA, NVIDIA's OpenCL), else through BALLOT.
  if (s.rank == Rank::ballot_cuda || s.rank == Rank::ballot_ptx) r += kernel_text(d, kRadixSortSource, "peers_ptx");
  else if (has_ballot(s.rank)) r += kernel_text(d, kRadixSortSource, "peers_ballot");
  // OFF_T: the digits' places in the output (downsweep_tables' goff), 32-bit in the one-sweep pass
  // (n < 2^30), whose kernels redefine it.
  return r + "#define OFF_T u64\n";
}

bool uses_pd(Rank r) { return r == Rank::tiled || r == Rank::ballot_local; }

// The pass's upsweep: counts[digit * G + chunk] of chunk [chunk * csize, ...) of n.
std::string upsweep_source(const DialectText& d, const RadixPlan& s) {
  // Local histograms (GPUs): four a warp, each 257 counters apart, so that keys of few digits
  // (int32 from float products: the low byte takes 4 values) collide on fewer counters and banks.
  // (On the H200, 2^28 such int32 sorted at 17.7 G keys/s against 27.7 for float32 with per-warp
  // histograms; these collisions are the likely cause, unmeasured.)
  return cat(defs(d, s, false), kernel_text(d, kRadixSortSource, s.rank == Rank::serial ? "upsweep_serial" : "upsweep"));
}

// counts[d * G + :] := its exclusive prefix over chunks, totals[d] := its sum; a work-group per digit.
std::string scan_source(const DialectText& d, int group) {
  return cat("typedef ", bits_type(d, 8), " u64;\n#define SG ", group, "\n#define LID ((int)", d.local_id(),
             ")\n#define GROUP_ID ((i64)", d.group_id(), ")\n#define BARRIER ", d.barrier(), "\n", kernel_text(d, kRadixSortSource, "scan"));
}

// Inclusive scan over the work-group (GROUP = DIGITS items, one each) of `v` into `out`, through
// the ping-pong arrays a, b (local, GROUP each); every work-item must reach it.
std::string group_scan(const std::string& type, const std::string& a, const std::string& b, const std::string& v,
                       const std::string& out) {
  return cat("  { ", a, "[lid] = ", v, "; BARRIER\n"
             "    int src = 0;\n"
             "    for (int off = 1; off < GROUP; off <<= 1) {\n"
             "      ", type, " x = src ? ", b, "[lid] : ", a, "[lid];\n"
             "      if (lid >= off) x += src ? ", b, "[lid - off] : ", a, "[lid - off];\n"
             "      if (src) ", a, "[lid] = x; else ", b, "[lid] = x;\n"
             "      src ^= 1;\n      BARRIER\n    }\n"
             "    ", out, " = src ? ", b, "[lid] : ", a, "[lid]; }\n");
}

std::string downsweep_source(const DialectText& d, const RadixPlan& s, bool last_wide) {
  if (s.rank == Rank::serial) return cat(defs(d, s, last_wide), kernel_text(d, kRadixSortSource, "downsweep_serial"));
  // The sections of kernels/radix_sort.cl's tiled downsweep that this plan takes, in order.
  auto part = [&](const char* name) { return kernel_text(d, kRadixSortSource, name); };
  const bool ballot = has_ballot(s.rank);
  return cat(defs(d, s, last_wide), part("downsweep"), s.pay ? part("downsweep_pay_buffer") : std::string(), part("downsweep_tables"),
             uses_pd(s.rank) ? part("downsweep_peer_digits") : std::string(), ballot ? part("downsweep_warp_totals") : std::string(),
             part("downsweep_digits"), group_scan("u64", "s64a", "s64b", "tot", "incl"), part("downsweep_tiles"), part("tile_rank"),
             // The tile's digit counts scanned: warp shuffles, then the warps' totals; without
             // ballots, the scan over the work-group.
             ballot ? part("downsweep_tile_scan_ballot")
                    : cat("    u64 tincl64;\n", group_scan("u64", "s64a", "s64b", "(u64)tcount", "tincl64"), "    u32 tincl = (u32)tincl64;\n"),
             part("downsweep_scatter"), s.pay ? part("downsweep_scatter_pay") : std::string(), part("downsweep_write"),
             part(s.pay ? "downsweep_read_pay" : "downsweep_read"), part("downsweep_end"));
}

// One sort with ranking `rank`; throws CompileError where a kernel does not build.
void sort_with(Rank rank, DType t, const View& a, std::int64_t n, std::int64_t len, bool descending,
               const View* values_out, const View* index_out) {
  const Device& device = a.buffer->device();
  const DeviceInfo& info = device.impl().info();
  const std::int64_t rows = n / len;
  int row_bits = 0;
  while ((std::int64_t{1} << row_bits) < rows) ++row_bits;
  const int key_passes = key_bits(t) / 8, row_passes = (row_bits + 7) / 8, passes = key_passes + row_passes;
  RadixPlan s{t, rank};
  if (index_out || row_passes) s.pay = n <= (std::int64_t{1} << 32) ? 4 : 8;
  // Local memory (48 KiB on NVIDIA's OpenCL and CUDA's static limit): the tile's elements and
  // indices (at most 32000 bytes), 8 KiB of warp histograms and 8 KiB of digit tables.
  s.items = tile_items(static_cast<int>(itemsize(t)) + s.pay);
  s.blocks = s.pay ? 0 : radix_blocks(s.items);
  const std::int64_t waves = 32;
  const std::int64_t cu = std::max(info.compute_units, 1);
  std::int64_t chunk;
  if (rank == Rank::serial) {
    std::int64_t g = std::max<std::int64_t>(1, std::min(cu * 4, (n + 4095) / 4096));
    chunk = (n + g - 1) / g;
  } else {
    // Many chunks of whole tiles (several waves of work-groups keep every unit busy to the end);
    // the counts stay small beside the data (256 x G).
    const std::int64_t tiles = (n + s.tile() - 1) / s.tile();
    chunk = std::max<std::int64_t>(1, (tiles + cu * waves - 1) / (cu * waves)) * s.tile();
  }
  const std::int64_t groups = (n + chunk - 1) / chunk;
  auto counts = make_buffer_node({kDigits * groups}, DType::int64, device);
  auto totals = make_buffer_node({kDigits}, DType::int64, device);
  const DType pay_dt = s.pay == 8 ? DType::int64 : DType::int32;
  NodePtr ktmp[2], ptmp[2];
  auto tmp = [&](NodePtr* slot, int i, DType dt) -> const View& {
    if (!slot[i]) slot[i] = make_buffer_node({n}, dt, device);
    return slot[i]->view();
  };
  const std::string rk = rank_name(rank);
  for (int pass = 0; pass < passes; ++pass) {
    const bool first = pass == 0, last = pass == passes - 1;
    const bool by_row = pass >= key_passes;
    const int shift = 8 * (by_row ? pass - key_passes : pass);
    const View& kin = first ? a : ktmp[(pass - 1) & 1]->view();
    const View& kout = last && values_out ? *values_out : tmp(ktmp, pass & 1, t);
    const View* pin = s.pay && !first ? &ptmp[(pass - 1) & 1]->view() : nullptr;
    const bool last_wide = s.pay && last && index_out;
    const View* pout = !s.pay ? nullptr : last_wide ? index_out : &tmp(ptmp, pass & 1, pay_dt);
    auto flags = [&](std::vector<KernelArg>& g) {
      g.push_back(KernelArg::scalar<std::int32_t>(shift));
      g.push_back(KernelArg::scalar<std::int32_t>(descending ? 1 : 0));
      g.push_back(KernelArg::scalar<std::int32_t>(by_row ? 1 : 0));
      g.push_back(i64(len));
    };
    // 1. Counts per chunk.
    Work u;
    u.reads = {&kin};
    if (pin) u.reads.push_back(pin);
    u.write = &counts->view();
    u.items = n;
    u.groups = static_cast<std::size_t>(groups);
    u.group = static_cast<std::size_t>(s.group());
    u.key = cat("radix_up|", rk, "|", static_cast<int>(t), "|", s.pay, "|", s.items);
    u.source = [s](const DialectText& d) { return upsweep_source(d, s); };
    u.args = [&](std::vector<KernelArg>& g) {
      g = {mem(kin), mem(pin ? *pin : kin), mem(counts->view()), i64(kin.offset), i64(n), i64(chunk), i64(groups)};
      flags(g);
    };
    run(u, DType::int64);
    // 2. Their prefixes over chunks, and each digit's total.
    Work c;
    c.reads = {};
    c.write = &counts->view();
    c.write2 = &totals->view();
    c.items = kDigits;
    c.groups = kDigits;
    c.group = static_cast<std::size_t>(s.group());
    c.key = cat("radix_scan|", s.group());
    c.source = [gs = s.group()](const DialectText& d) { return scan_source(d, gs); };
    c.args = [&](std::vector<KernelArg>& g) { g = {mem(counts->view()), mem(totals->view()), i64(groups)}; };
    run(c, DType::int64);
    // 3. The elements (and indices) to their places.
    Work w;
    w.reads = {&kin, &counts->view(), &totals->view()};
    if (pin) w.reads.push_back(pin);
    w.write = &kout;
    w.write2 = pout;
    w.items = n;
    w.groups = static_cast<std::size_t>(groups);
    w.group = static_cast<std::size_t>(s.group());
    w.key = cat("radix_down|", rk, "|", static_cast<int>(t), "|", s.pay, "|", s.items, "|", last_wide, "|", s.blocks);
    w.source = [s, last_wide](const DialectText& d) { return downsweep_source(d, s, last_wide); };
    // NVIDIA's OpenCL: the same bound as CUDA's __launch_bounds__ (s.blocks work-groups an SM).
    if (rank == Rank::ballot_ptx && s.blocks > 0)
      w.options = ptx_maxnreg_option(s.blocks * s.group());
    w.args = [&](std::vector<KernelArg>& g) {
      g = {mem(kin),  mem(pin ? *pin : kin), mem(counts->view()), mem(totals->view()), mem(kout), mem(pout ? *pout : kout),
           i64(kin.offset), i64(kout.offset), i64(pout ? pout->offset : 0), i64(n), i64(chunk), i64(groups)};
      flags(g);
      g.push_back(KernelArg::scalar<std::int32_t>(first ? 1 : 0));
    };
    run(w, DType::int64);
  }
}

// The one-sweep sort (Adinets & Merrill 2022, CUB's Onesweep): every pass's digit counts from one
// read of the keys (histogram), then per pass one kernel that ranks a tile as the downsweep does
// and finds each digit's offset by a decoupled look-back over the tiles before it (onesweep in
// kernels/radix_sort.cl), so that each pass reads and writes the data once where the two-pass
// sort reads it twice. docs/design/sorting.md says what the look-back relies on.
//
// The look-back's words hold a count in 30 bits: sorts of fewer than 2^30 elements.
constexpr std::int64_t kOnesweepMax = std::int64_t{1} << 30;
// The one-sweep pass's places in the output fit 32 bits (defs' OFF_T).
constexpr const char* kOnesweepOffsets = "#undef OFF_T\n#define OFF_T u32\n";
// Row passes a one-sweep sort can have: rows < 2^30, 8 bits a pass.
constexpr int kMaxRowPasses = 4;

int max_passes(DType t) { return key_bits(t) / 8 + kMaxRowPasses; }

// Copies of the histogram kernel's local histograms: as many (up to 4) as fit 32 KiB.
int hist_copies(DType t) { return std::clamp(32768 / (max_passes(t) * kDigits * 4), 1, 4); }

// The histogram reads keys alone and ranks nothing: one kernel a dtype (hist_plan), whatever the
// sort's ranking, indices and tile (fewer programs to build, the slow part on PoCL).
RadixPlan hist_plan(DType t) {
  RadixPlan h{t, Rank::tiled};
  h.pay = 4;
  return h;
}
// Where the early order's digit starts follow the counts in the histogram buffer (digit_starts),
// and where the histogram counts the work-groups that met a SPECIAL float key (flag_at, after the
// starts): where it is 0, the one-sweep passes of a float dtype take map_fast_text's key.
std::int64_t starts_at(DType t) { return std::int64_t{kDigits} * max_passes(t); }
std::int64_t flag_at(DType t) { return 2 * starts_at(t); }

std::string histogram_source(const DialectText& d, DType t) {
  return cat(defs(d, hist_plan(t), false), "#define HPASSES ", max_passes(t), "\n#define HCOPY ", hist_copies(t), "\n#define FLAG ",
             flag_at(t), "\n", special_text(t), kernel_text(d, kRadixSortSource, "histogram"));
}
std::string digit_starts_source(const DialectText& d, DType t) {
  return cat(defs(d, hist_plan(t), false), "#define STARTS ", starts_at(t), "\n", kernel_text(d, kRadixSortSource, "digit_starts"));
}

// One pass of the one-sweep sort in CUB's order (AgentRadixSortOnesweep with its early counts;
// PORTA_ONESWEEP=early): the tile is counted with local atomics and its counts published before
// it is ranked, the ranking gives each element its place in the tile at once (no scan after it),
// the tile goes to local memory, and the look-back comes after that, so that the wait for the tiles before overlaps the ranking; the
// write-out reads one table an element. The digit starts of every pass come from one small
// kernel a sort (digit_starts, CUB's exclusive sum), which only tile 0 reads: its PREFIX words
// carry them to every later tile's look-back. (A scan in tile 0 alone would put barriers under
// a condition, which PoCL's compiler took minutes over.) The late order (onesweep_source)
// publishes after the ranking, looks back before the tile goes to local memory, and scans the
// totals in every work-group.
std::string onesweep_early_source(const DialectText& d, const RadixPlan& s, bool last_wide) {
  auto part = [&](const char* name) { return kernel_text(d, kRadixSortSource, name); };
  const bool ballot = has_ballot(s.rank);
  return cat(defs(d, s, last_wide), kOnesweepOffsets, "#define STARTS ", starts_at(s.t), "\n#define EARLY_PAY(pos, v) ", s.pay ? "pbuf[pos] = (v);" : "", "\n",
             "#define FORM_OUT(v)\n", part("onesweep"),
             s.pay ? part("downsweep_pay_buffer") : std::string(), part("downsweep_tables"),
             uses_pd(s.rank) ? part("downsweep_peer_digits") : std::string(), ballot ? part("downsweep_warp_totals") : std::string(),
             part("onesweep_digits"), "  incl = 0;\n  BARRIER\n", part("onesweep_tile"), part("onesweep_block"), part("early_count"),
             part("early_publish"),
             ballot ? part("downsweep_tile_scan_ballot")
                    : cat("    u64 tincl64;\n", group_scan("u64", "s64a", "s64b", "(u64)tcount", "tincl64"), "    u32 tincl = (u32)tincl64;\n"),
             part("early_rank"), part("early_lookback"), part(s.pay ? "downsweep_read_pay" : "downsweep_read"), part("early_end"));
}

// One pass of the one-sweep sort: the downsweep's sections around its own (kernels/radix_sort.cl).
// With FloatKey::both (float dtypes), the tile's work is written twice, under a branch that every
// work-group takes alike: with map_fast_text's key where the histogram met no SPECIAL key
// (hist[FLAG] is 0: keys sort as by map_text's key, whose -0.0 and NaN rules then change
// nothing), else with map_text's. One kernel holds both so that the choice needs no wait on the
// host (docs/design/sorting.md).
std::string onesweep_source(const DialectText& d, const RadixPlan& s, bool last_wide) {
  if (s.early) return onesweep_early_source(d, s, last_wide);
  auto part = [&](const char* name) { return kernel_text(d, kRadixSortSource, name); };
  const bool ballot = has_ballot(s.rank);
  // The block's sections; the last one closes the block, then the kernel.
  const std::string block =
      cat(part("onesweep_block"), part("tile_rank"), part("onesweep_publish"),
          ballot ? part("downsweep_tile_scan_ballot")
                 : cat("    u64 tincl64;\n", group_scan("u64", "s64a", "s64b", "(u64)tcount", "tincl64"), "    u32 tincl = (u32)tincl64;\n"),
          part("onesweep_lookback"), part("onesweep_offset"), part("downsweep_scatter"), s.pay ? part("downsweep_scatter_pay") : std::string(),
          part("downsweep_write"), part(s.pay ? "downsweep_read_pay" : "downsweep_read"), part("downsweep_end"));
  std::string tiles = block;
  // FORM_OUT before the tile's copy (onesweep_tile), then in each block
  std::string form = "#define FORM_OUT(v)\n";
  if (s.float_key == FloatKey::both) {
    const std::size_t end = block.rfind('}');  // the kernel's closing brace
    form = form_out_define(s.t, "hist[FLAG] == 0u");
    tiles = cat("  if (hist[FLAG] == 0u)\n#undef DIGIT\n#undef FORM_OUT\n", digit_define(map_fast_text(s.t), true), form_out_define(s.t, "1"),
                block.substr(0, end), "  else\n#undef DIGIT\n#undef FORM_OUT\n#define FORM_OUT(v)\n", digit_define(map_text(s.t)), block);
  } else if (stored_form(s)) {
    form = cat("#undef DIGIT\n", digit_define(map_text(s.t), true), form_out_define(s.t, "1"));
  } else if (s.float_key == FloatKey::select) {
    tiles = cat("  const int fk_ = hist[FLAG] == 0u;\n#undef DIGIT\n", digit_define(map_select_text(s.t)), block);
  }
  return cat(defs(d, s, last_wide), kOnesweepOffsets, "#define FLAG ", flag_at(s.t), "\n", form, part("onesweep"),
             s.pay ? part("downsweep_pay_buffer") : std::string(), part("downsweep_tables"),
             uses_pd(s.rank) ? part("downsweep_peer_digits") : std::string(), ballot ? part("downsweep_warp_totals") : std::string(),
             part("onesweep_digits"), group_scan("u64", "s64a", "s64b", "tot", "incl"), part("onesweep_tile"), tiles);
}

// PORTA_SORT=onesweep|twopass forces either (onesweep: sorts of fewer than 2^30 elements; on CPU
// devices with the tiled ranking); auto: one-sweep on GPUs (devices that rank in tiles), the
// two passes on CPU devices, whose serial chunks are the fast way there (docs/design/sorting.md).
bool use_onesweep(Rank rank, std::int64_t n) {
  if (n >= kOnesweepMax) return false;
  const std::string forced = setting_choice("PORTA_SORT");
  if (forced == "onesweep") return true;
  if (forced == "twopass") return false;
  return rank != Rank::serial;
}

void sort_onesweep(Rank rank, DType t, const View& a, std::int64_t n, std::int64_t len, bool descending,
                   const View* values_out, const View* index_out) {
  const Device& device = a.buffer->device();
  const DeviceInfo& info = device.impl().info();
  if (rank == Rank::serial) rank = Rank::tiled;
  const std::int64_t rows = n / len;
  int row_bits = 0;
  while ((std::int64_t{1} << row_bits) < rows) ++row_bits;
  const int key_passes = key_bits(t) / 8, row_passes = (row_bits + 7) / 8, passes = key_passes + row_passes;
  RadixPlan s{t, rank};
  if (index_out || row_passes) s.pay = 4;  // n < 2^30
  s.items = onesweep_items(static_cast<int>(itemsize(t)) + s.pay);
  s.early = setting_choice("PORTA_ONESWEEP") == "early";
  s.mapped = setting_choice("PORTA_SORT_KEYS") != "own";
  // The fast key on GPUs, and where CPU devices run the GPUs' ranking (tests): PoCL compiles the
  // doubled tile work slowly (its sort tests took about 100 s more with it under every ranking).
  s.float_key = float_key_for(t, info.kind == DeviceKind::gpu || rank == Rank::ballot_local);
  s.blocks = s.pay ? 0 : radix_blocks(s.items);
  const std::int64_t tiles = (n + s.tile() - 1) / s.tile();
  // hist: every pass's digit counts; counter: each pass's tile counter; look: a pass's tile words.
  // (early: the digit starts after max_passes(t) passes' counts, starts_at)
  // (and flag_at: the count of work-groups that met a SPECIAL key)
  auto hist = make_buffer_node({flag_at(t) + 1}, DType::uint32, device);
  auto counter = make_buffer_node({passes}, DType::int32, device);
  auto look = make_buffer_node({std::int64_t{kDigits} * tiles}, DType::uint32, device);
  zero_fill(hist->view(), 4, static_cast<std::size_t>(flag_at(t) + 1));
  zero_fill(counter->view(), 4, static_cast<std::size_t>(passes));
  const std::string rk = rank_name(rank);
  {
    // A few work-groups an SM, each a long chunk: the histograms' global atomics stay few.
    const std::int64_t cu = std::max(info.compute_units, 1);
    const std::int64_t groups = std::max<std::int64_t>(1, std::min(cu * 4, (n + 4095) / 4096)), chunk = (n + groups - 1) / groups;
    Work h;
    h.reads = {&a};
    h.write = &hist->view();
    h.items = n;
    h.groups = static_cast<std::size_t>((n + chunk - 1) / chunk);
    h.group = static_cast<std::size_t>(hist_plan(t).group());
    h.key = cat("radix_hist|", static_cast<int>(t));
    h.source = [t](const DialectText& d) { return histogram_source(d, t); };
    h.args = [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(hist->view()), i64(a.offset), i64(n), i64(chunk), KernelArg::scalar<std::int32_t>(key_passes),
           KernelArg::scalar<std::int32_t>(passes), KernelArg::scalar<std::int32_t>(descending ? 1 : 0), i64(len)};
    };
    run(h, DType::uint32);
  }
  if (s.early) {
    Work c;
    c.write = &hist->view();
    c.items = std::int64_t{kDigits} * passes;
    c.groups = static_cast<std::size_t>(passes);
    c.group = kDigits;
    c.key = cat("radix_starts|", static_cast<int>(t));
    c.source = [t](const DialectText& d) { return digit_starts_source(d, t); };
    c.args = [&](std::vector<KernelArg>& g) { g = {mem(hist->view())}; };
    run(c, DType::uint32);
  }
  NodePtr ktmp[2], ptmp[2];
  auto tmp = [&](NodePtr* slot, int i, DType dt) -> const View& {
    if (!slot[i]) slot[i] = make_buffer_node({n}, dt, device);
    return slot[i]->view();
  };
  for (int pass = 0; pass < passes; ++pass) {
    const bool first = pass == 0, last = pass == passes - 1;
    const bool by_row = pass >= key_passes;
    const int shift = 8 * (by_row ? pass - key_passes : pass);
    const View& kin = first ? a : ktmp[(pass - 1) & 1]->view();
    const View& kout = last && values_out ? *values_out : tmp(ktmp, pass & 1, t);
    const View* pin = s.pay && !first ? &ptmp[(pass - 1) & 1]->view() : nullptr;
    const bool last_wide = s.pay && last && index_out;
    const View* pout = !s.pay ? nullptr : last_wide ? index_out : &tmp(ptmp, pass & 1, DType::int32);
    const int form = stored_form(s) ? (first ? 0 : 1) | (last ? 0 : 2) : 0;  // digit_define's form
    zero_fill(look->view(), 4, static_cast<std::size_t>(kDigits * tiles));  // every tile's word: nothing yet
    Work w;
    w.reads = {&kin, &hist->view(), &look->view(), &counter->view()};
    if (pin) w.reads.push_back(pin);
    w.write = &kout;
    w.write2 = pout;
    w.items = n;
    w.groups = static_cast<std::size_t>(tiles);
    w.group = static_cast<std::size_t>(s.group());
    w.key = cat("radix_onesweep|", rk, "|", static_cast<int>(t), "|", s.pay, "|", s.items, "|", last_wide, "|", s.blocks, "|", s.early, "|",
                static_cast<int>(s.float_key), "|", stored_form(s));
    w.source = [s, last_wide](const DialectText& d) { return onesweep_source(d, s, last_wide); };
    if (rank == Rank::ballot_ptx && s.blocks > 0)
      w.options = ptx_maxnreg_option(s.blocks * s.group());
    w.args = [&](std::vector<KernelArg>& g) {
      g = {mem(kin), mem(pin ? *pin : kin), mem(hist->view()), mem(look->view()), mem(counter->view()), mem(kout),
           mem(pout ? *pout : kout), i64(kin.offset), i64(kout.offset), i64(pout ? pout->offset : 0), i64(n),
           KernelArg::scalar<std::int32_t>(pass), KernelArg::scalar<std::int32_t>(shift),
           KernelArg::scalar<std::int32_t>(descending ? 1 : 0), KernelArg::scalar<std::int32_t>(by_row ? 1 : 0), i64(len),
           KernelArg::scalar<std::int32_t>(first ? 1 : 0), KernelArg::scalar<std::int32_t>(form)};
    };
    run(w, DType::int64);
  }
}

// One sort: one-sweep or two passes a digit (use_onesweep).
void sort_any(Rank rank, DType t, const View& a, std::int64_t n, std::int64_t len, bool descending, const View* values_out,
              const View* index_out) {
  if (use_onesweep(rank, n)) return sort_onesweep(rank, t, a, n, len, descending, values_out, index_out);
  sort_with(rank, t, a, n, len, descending, values_out, index_out);
}

}  // namespace

void radix_sort(DType t, const View& a, std::int64_t n, std::int64_t len, bool descending, const View* values_out,
                const View* index_out) {
  if (n == 0) return;
  const DeviceInfo& info = a.buffer->device().impl().info();
  const Rank rank = choose_rank(info);
  if (rank != Rank::ballot_ptx) return sort_any(rank, t, a, n, len, descending, values_out, index_out);
  try {
    sort_any(rank, t, a, n, len, descending, values_out, index_out);
  } catch (const CompileError& e) {
    // This NVIDIA OpenCL did not take the inline PTX: the portable ranking from now on. The sort
    // is whole again from its input (nothing of it reached the outputs that a later pass reads).
    PORTA_LOG(warn, info.name, ": the radix sort's warp-vote kernels (inline PTX) did not build, so sorts take the portable"
              " ranking: ", e.what());
    g_ptx_failed.store(true);
    sort_any(Rank::tiled, t, a, n, len, descending, values_out, index_out);
  }
}

// LSD radix passes, a byte a pass from byte `first`, over `passes` bytes (at most 8) of the words
// v[0, n) (tmp: n more): stable, so equal bytes keep their order. Every pass's counts come from
// one read of the words (the bytes' counts do not depend on the order), and a pass whose byte is
// the same for every word is skipped. Returns where the sorted words are (v or tmp).
template <class E, class Key>
E* radix_passes(E* v, E* tmp, std::size_t n, int first, int passes, Key key) {
  std::size_t count[8][kDigits + 1] = {};
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t k = key(v[i]);
    for (int pass = 0; pass < passes; ++pass) ++count[pass][((k >> (8 * (first + pass))) & 0xff) + 1];
  }
  for (int pass = 0; pass < passes; ++pass) {
    std::size_t* c = count[pass];
    const int shift = 8 * (first + pass);
    if (c[((key(v[0]) >> shift) & 0xff) + 1] == n) continue;  // one digit: the order stands
    for (int dgt = 0; dgt < kDigits; ++dgt) c[dgt + 1] += c[dgt];
    for (std::size_t i = 0; i < n; ++i) tmp[c[(key(v[i]) >> shift) & 0xff]++] = v[i];
    std::swap(v, tmp);
  }
  return v;
}

// Kokkos: an LSD radix sort of each row's (key, position) pairs on the host; keys of up to 32
// bits and rows of up to 2^32 share one 64-bit word with their position (the key above it). 2^22
// float32 keys' argsort took 0.96 s through std::stable_sort of positions compared by their keys
// (a random read per comparison) on the 2-core build machine.
void sort_rows_host(DType t, const View& a, const View& idx_out, std::int64_t outer, std::int64_t len, bool descending) {
  Work w;
  w.reads = {&a};
  w.write = &idx_out;
  w.items = outer * len;
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    const std::uint8_t* src = p[0] + a.offset * itemsize(t);
    auto* out = reinterpret_cast<std::int64_t*>(p[1]) + idx_out.offset;
    const std::size_t n = static_cast<std::size_t>(len);
    const int bytes = key_bits(t) / 8;
    const bool packed = bytes <= 4 && len <= (std::int64_t{1} << 32);
    struct Pair {
      std::uint64_t key;
      std::int64_t pos;
    };
    std::vector<std::uint64_t> words(packed ? 2 * n : 0);
    std::vector<Pair> pairs(packed || is_complex(t) ? 0 : 2 * n);
    // Complex: LSD passes over the imaginary part's key, then the real part's, then the NaN
    // class (host_sort_key), each stable.
    struct Triple {
      SortKey key;
      std::int64_t pos;
    };
    std::vector<Triple> triples(is_complex(t) ? 2 * n : 0);
    const int part_bytes = part_bits(t) / 8;
    for (std::int64_t o = 0; o < outer; ++o) {
      std::int64_t* row = out + o * len;
      const std::int64_t base = o * len;
      if (is_complex(t)) {
        Triple* v = triples.data();
        Triple* other = v + n;
        for (std::size_t i = 0; i < n; ++i)
          v[i] = {host_sort_key(t, src, base + static_cast<std::int64_t>(i), descending), static_cast<std::int64_t>(i)};
        for (int part = 2; part >= 0; --part) {
          Triple* r = radix_passes(v, other, n, 0, part == 0 ? 1 : part_bytes, [part](const Triple& x) { return x.key[static_cast<std::size_t>(part)]; });
          if (r != v) std::swap(v, other);
        }
        for (std::size_t i = 0; i < n; ++i) row[i] = v[i].pos;
      } else if (packed) {
        for (std::size_t i = 0; i < n; ++i)
          words[i] = host_radix_key(t, src, base + static_cast<std::int64_t>(i), descending) << 32 | i;
        const std::uint64_t* v = radix_passes(words.data(), words.data() + n, n, 4, bytes, [](std::uint64_t x) { return x; });
        for (std::size_t i = 0; i < n; ++i) row[i] = static_cast<std::int64_t>(v[i] & 0xffffffffu);
      } else {
        for (std::size_t i = 0; i < n; ++i)
          pairs[i] = {host_radix_key(t, src, base + static_cast<std::int64_t>(i), descending), static_cast<std::int64_t>(i)};
        const Pair* v = radix_passes(pairs.data(), pairs.data() + n, n, 0, bytes, [](const Pair& x) { return x.key; });
        for (std::size_t i = 0; i < n; ++i) row[i] = v[i].pos;
      }
    }
  };
  run(w, t);
}

namespace primitives {
NamedSources radix_sort_kernel_sources(const DialectText& d) {
  NamedSources out;
  const Rank ballot = d.cuda() ? Rank::ballot_cuda : Rank::ballot_ptx;
  for (Rank rank : {Rank::serial, Rank::tiled, ballot, Rank::ballot_local})
    // keys of 8, 16, 32 and 64 bits, and complex (16-byte elements: complex128)
    for (DType t : {DType::boolean, DType::int8, DType::float16, DType::uint16, DType::int32, DType::float64, DType::uint64,
                    DType::complex64, DType::complex128})
      for (int pay : {0, 4, 8}) {
        RadixPlan s{t, rank};
        s.pay = pay;
        s.items = tile_items(static_cast<int>(itemsize(t)) + s.pay);
        s.blocks = s.pay ? 0 : radix_blocks(s.items);
        const std::string what = cat(rank_name(rank), " ", name(t), " index bytes ", pay);
        out.emplace_back(cat("radix upsweep ", what), upsweep_source(d, s));
        out.emplace_back(cat("radix downsweep ", what), downsweep_source(d, s, false));
        if (pay == 4) out.emplace_back(cat("radix downsweep (wide last) ", what), downsweep_source(d, s, true));
        if (rank != Rank::serial && pay != 8) {  // the one-sweep sort: tiled rankings, 4-byte indices (n < 2^30)
          if (pay == 0 && rank == Rank::tiled) {
            out.emplace_back(cat("radix histogram ", name(t)), histogram_source(d, t));
            out.emplace_back(cat("radix digit starts ", name(t)), digit_starts_source(d, t));
          }
          RadixPlan o = s;  // the one-sweep pass's own tiles (onesweep_items: 256 x 24 for 4-byte keys alone)
          o.items = onesweep_items(static_cast<int>(itemsize(t)) + o.pay);
          o.blocks = o.pay ? 0 : radix_blocks(o.items);
          o.float_key = is_floating(t) && rank != Rank::tiled ? FloatKey::both : FloatKey::full;  // the float keys' two blocks (the same text under the tiled ranking)
          out.emplace_back(cat("radix onesweep ", what), onesweep_source(d, o, false));
          if (o.float_key == FloatKey::both && pay == 0) {
            o.float_key = FloatKey::select;
            out.emplace_back(cat("radix onesweep (float key select) ", what), onesweep_source(d, o, false));
          }
          if (pay == 4) out.emplace_back(cat("radix onesweep (wide last) ", what), onesweep_source(d, o, true));
        }
      }
  // The one sweep in CUB's order (PORTA_ONESWEEP=early): keys of 8 to 64 bits and complex, with
  // and without indices, and tiles of the most items local memory allows (PORTA_SORT_ITEMS).
  // (The local-memory ballots take the same sections as the tiled ranking: not compiled again.)
  for (Rank rank : {Rank::tiled, ballot})
    for (DType t : {DType::int8, DType::float32, DType::uint64, DType::complex128})
      for (int pay : {0, 4}) {
        RadixPlan s{t, rank};
        s.pay = pay;
        s.early = true;
        const int bytes = static_cast<int>(itemsize(t)) + s.pay;
        const std::string what = cat(rank_name(rank), " ", name(t), " index bytes ", pay);
        for (int items : {tile_items(bytes), 32000 / (kGroup * bytes)}) {
          if (pay && items != tile_items(bytes)) continue;
          s.items = items;
          s.blocks = s.pay ? 0 : radix_blocks(items);
          out.emplace_back(cat("radix onesweep early ", what, " items ", items), onesweep_source(d, s, false));
        }
        if (pay == 4) out.emplace_back(cat("radix onesweep early (wide last) ", what), onesweep_source(d, s, true));
      }
  out.emplace_back("radix digit scan", scan_source(d, kGroup));
  out.emplace_back("radix digit scan (CPU)", scan_source(d, 1));
  for (auto& [what, text] : out) text = common_prelude(d) + text;
  return out;
}
}  // namespace primitives

}  // namespace porta::detail
