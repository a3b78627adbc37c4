// random::integers' values (primitives/primitives.hpp: random_integers): one generated kernel on
// devices that compile, the same loop on the host for Kokkos, both from base/philox.h.
//
// Element e takes the four words of Philox counter e (stream, seed) as a 128-bit fraction F (word
// 0 the most significant) and is low + floor(F * r / 2^128), r = high - low (1 to 2^64): the
// product's bits 128 to 191, computed in 32-bit limbs with 64-bit products (exact in every
// dialect, so every device gives the same bits). Each of the r values is taken by 2^128 / r
// fractions, rounded down or up: a bias below r / 2^128 (at most 2^-64), where NumPy rejects and
// redraws (exactly uniform, but a variable number of draws an element, no fixed map from e).
#include <cstring>

#include "base/philox.hpp"
#include "primitives/primitives.hpp"
#include "primitives/work.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {

using namespace primitives;

namespace {

// floor(F * r / 2^128) for F = words (x0 most significant) and r = r_lo + r_hi * 2^64 (r_hi 0 or 1).
std::uint64_t host_scaled(const std::array<std::uint32_t, 4>& x, std::uint64_t r_lo, std::uint64_t r_hi) {
  const std::uint64_t f[4] = {x[3], x[2], x[1], x[0]};
  const std::uint64_t g[3] = {r_lo & 0xffffffffu, r_lo >> 32, r_hi};
  std::uint64_t p[7] = {};
  for (int i = 0; i < 4; ++i) {
    std::uint64_t carry = 0;
    for (int j = 0; j < 3; ++j) {
      const std::uint64_t t = f[i] * g[j] + p[i + j] + carry;  // < 2^64: (2^32 - 1)^2 + 2 (2^32 - 1)
      p[i + j] = t & 0xffffffffu;
      carry = t >> 32;
    }
    p[i + 3] = carry;
  }
  return p[4] | (p[5] << 32);
}

// The kernel: the same limbs in the dialect's 64-bit unsigned type.
std::string integers_source(const DialectText& d, std::size_t item) {
  return cat(d.prelude(false, true), "\n", "typedef ", bits_type(d, item), " OT;\n",
             "KERNEL porta_k(GLOBAL OT* out, i64 out_off, i64 n, i64 seed, i64 stream, i64 low, i64 r_lo, i64 r_hi) {\n"
             "  for (i64 e = GID; e < n; e += GSIZE) {\n"
             "    const porta_u32x4 x = porta_philox((porta_u64)e, (porta_u64)stream, (porta_u64)seed);\n"
             "    const porta_u64 f[4] = {x.x3, x.x2, x.x1, x.x0};\n"
             "    const porta_u64 g[3] = {(porta_u64)r_lo & 0xffffffffu, (porta_u64)r_lo >> 32, (porta_u64)r_hi};\n"
             "    porta_u64 p[7] = {0, 0, 0, 0, 0, 0, 0};\n"
             "    for (int i = 0; i < 4; ++i) {\n"
             "      porta_u64 carry = 0;\n"
             "      for (int j = 0; j < 3; ++j) {\n"
             "        const porta_u64 t = f[i] * g[j] + p[i + j] + carry;\n"
             "        p[i + j] = t & 0xffffffffu;\n"
             "        carry = t >> 32;\n"
             "      }\n"
             "      p[i + 3] = carry;\n"
             "    }\n"
             "    out[out_off + e] = (OT)((porta_u64)low + (p[4] | (p[5] << 32)));\n"
             "  }\n}\n");
}

}  // namespace

void random_integers(DType t, const View& out, std::int64_t n, std::uint64_t seed, std::uint64_t stream, std::uint64_t low,
                     std::uint64_t r_lo, std::uint64_t r_hi) {
  const std::size_t item = itemsize(t);
  Work w;
  w.reads = {};
  w.write = &out;
  w.items = n;
  w.key = cat("random_integers|", item);
  w.source = [item](const DialectText& d) { return integers_source(d, item); };
  auto bits = [](std::uint64_t u) { return i64(static_cast<std::int64_t>(u)); };
  w.args = [&](std::vector<KernelArg>& g) {
    g = {mem(out), i64(out.offset), i64(n), bits(seed), bits(stream), bits(low), bits(r_lo), bits(r_hi)};
  };
  w.host = [&](const std::vector<std::uint8_t*>& p) {
    std::uint8_t* dst = p[0] + out.offset * static_cast<std::int64_t>(item);
    for (std::int64_t e = 0; e < n; ++e) {
      const std::uint64_t v = low + host_scaled(philox4x32_10(static_cast<std::uint64_t>(e), stream, seed), r_lo, r_hi);
      std::memcpy(dst + e * static_cast<std::int64_t>(item), &v, item);  // the low bytes (little-endian)
    }
  };
  run(w, t);
}

namespace primitives {
NamedSources random_integers_kernel_sources(const DialectText& d) {
  NamedSources out;
  for (std::size_t item : {1, 2, 4, 8}) out.emplace_back(cat("random integers of ", item, " bytes"), common_prelude(d) + integers_source(d, item));
  return out;
}
}  // namespace primitives

}  // namespace porta::detail
