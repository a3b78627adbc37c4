// The block interpreter's op math that is not a template (interpreter/ops.hpp): conversions,
// exp of float32 four at a time, op names, the logical ops and the random ops.
#include "interpreter/ops.hpp"

#include <array>
#include <bit>

#if PORTA_INTERP_X86
#include <immintrin.h>
#endif

#include "base/philox.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail::interp {

// Round-to-odd float32 of a double: rounding that to float16 or bfloat16 then rounds only once.
float float_round_odd(double d) {
  float f = static_cast<float>(d);
  if (std::isfinite(d) && static_cast<double>(f) != d) {
    std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
    if (std::fabs(static_cast<double>(f)) > std::fabs(d)) --bits;  // the value truncated toward zero
    f = std::bit_cast<float>(bits | 1u);
  }
  return f;
}

namespace {

// float32 rounded to the nearest float16 (ties to even), as a float: prelude_opencl.cl's
// porta_round_h, which the compiler vectorizes (half(float) is a call per element; every
// arithmetic float16 result is rounded, plan.hpp).
inline float round_to_half(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f), a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return f;
  if (a < 0x38800000u) return std::copysign((std::fabs(f) + 0.5f) - 0.5f, f);
  std::uint32_t r = (a + 0x0fffu + ((a >> 13) & 1u)) & ~0x1fffu;
  if (r >= 0x47800000u) r = 0x7f800000u;
  return std::bit_cast<float>(r | (u & 0x80000000u));
}

// float32 rounded to the nearest bfloat16 (ties to even), as a float: bfloat16(float)'s rounding
// inline (a NaN keeps its upper half, made quiet).
inline float round_to_bfloat16(float f) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  u = (u & 0x7fffffffu) > 0x7f800000u ? u | 0x00400000u : u + 0x7fffu + ((u >> 16) & 1u);
  return std::bit_cast<float>(u & 0xffff0000u);
}

}  // namespace

void round_register(DType t, float* p, i64 n) {
  if (t == DType::float16)
    for (i64 i = 0; i < n; ++i) p[i] = round_to_half(p[i]);
  else if (t == DType::bfloat16)
    for (i64 i = 0; i < n; ++i) p[i] = round_to_bfloat16(p[i]);
}

// dst (registers of dtype `to`) = cast of src (registers of dtype `from`).
void cast_values(DType from, const void* src, DType to, void* dst, i64 n) {
  visit_compute(from, [&](auto sf) {
    using S = typename decltype(sf)::type;
    visit_compute(to, [&](auto dt) {
      using D = typename decltype(dt)::type;
      const S* s = static_cast<const S*>(src);
      D* d = static_cast<D*>(dst);
      if constexpr (std::is_same_v<D, float>) {
        if (is_half(to)) {
          if constexpr (std::is_same_v<S, float>) {
            for (i64 i = 0; i < n; ++i) d[i] = s[i];
          } else {
            for (i64 i = 0; i < n; ++i) d[i] = float_round_odd(real_value(s[i]));
          }
          round_register(to, d, n);
          return;
        }
      }
      if constexpr (std::is_same_v<D, u8>) {
        if (to == DType::uint8) {  // a u8 register, but not bool's: wraps (saturates from floats)
          for (i64 i = 0; i < n; ++i) {
            if constexpr (std::is_floating_point_v<S>) d[i] = saturate<u8>(s[i]);
            else if constexpr (is_cx_v<S>) d[i] = saturate<u8>(real_value(s[i]));  // the real part
            else d[i] = static_cast<u8>(s[i]);
          }
          return;
        }
      }
      for (i64 i = 0; i < n; ++i) d[i] = convert<D>(s[i]);
    });
  });
}

// exp of float32 four at a time (GCC/Clang vector extensions; SSE2 on any x86-64), since the C
// library's expf does not vectorise: Cody-Waite reduction by ln 2, Cephes' degree-6 polynomial,
// 2^k applied in two halves so subnormal results come out right. Within 1 ulp of the exact
// value for every float (checked exhaustively over [-104, 89]); inf, 0 and NaN as expf. Every
// element takes the same path, so a value does not depend on where in a block it sits.
#if defined(__GNUC__)
typedef float F32x4 __attribute__((vector_size(16)));
typedef std::int32_t I32x4 __attribute__((vector_size(16)));

inline F32x4 exp_f32x4(F32x4 x) {
  const F32x4 hi = F32x4{} + 88.72283935546875f;      // above: expf overflows
  const F32x4 lo = F32x4{} + -103.97208404541015625f;  // below: expf is 0
  F32x4 xc = x > hi ? hi : x;
  xc = xc < lo ? lo : xc;
  const float shift = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  F32x4 k = (xc * 1.44269504088896341f + shift) - shift;
  F32x4 r = xc - k * 0.693359375f;
  r = r - k * -2.12194440e-4f;
  F32x4 p = F32x4{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  I32x4 ki = __builtin_convertvector(k, I32x4);
  I32x4 k1 = ki >> 1, k2 = ki - k1;
  F32x4 y = p * (F32x4)((k1 + 127) << 23) * (F32x4)((k2 + 127) << 23);
  y = x > hi ? F32x4{} + std::numeric_limits<float>::infinity() : y;
  y = x < lo ? F32x4{} : y;
  return x != x ? x : y;
}

// o = exp(a), or with `sigmoid` o = 1 / (1 + exp(-a)).
void exp_f32(float* o, const float* a, i64 n, bool sigmoid) {
  auto one = [sigmoid](F32x4 v) { return sigmoid ? 1.0f / (1.0f + exp_f32x4(-v)) : exp_f32x4(v); };
  i64 i = 0;
  for (; i + 4 <= n; i += 4) {
    F32x4 v;
    std::memcpy(&v, a + i, sizeof v);
    v = one(v);
    std::memcpy(o + i, &v, sizeof v);
  }
  if (i < n) {
    F32x4 v{};
    std::memcpy(&v, a + i, static_cast<std::size_t>(n - i) * sizeof(float));
    v = one(v);
    std::memcpy(o + i, &v, static_cast<std::size_t>(n - i) * sizeof(float));
  }
}
#else
void exp_f32(float* o, const float* a, i64 n, bool sigmoid) {
  for (i64 i = 0; i < n; ++i) o[i] = sigmoid ? 1.0f / (1.0f + std::exp(-a[i])) : std::exp(a[i]);
}
#endif

const char* op_name(Op op) {
  static const char* const kNames[] = {
      "load", "scalar", "index", "cast", "neg", "abs", "sign", "square", "exp", "log", "log1p", "expm1", "sqrt",
      "rsqrt", "sin", "cos", "tan", "tanh", "acos", "asin", "atan", "acosh", "asinh", "atanh", "sinh", "cosh",
      "log2", "log10", "sigmoid", "erf", "floor", "ceil", "round", "trunc", "isnan", "isinf", "isfinite", "signbit",
      "logical_not", "bit_not", "real", "imag", "conj", "add", "sub", "mul", "div", "mod", "floor_div", "pow", "maximum", "minimum", "atan2", "hypot",
      "copysign", "nextafter", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
      "bit_and", "bit_or", "bit_xor", "shl", "shr", "where", "fma", "uniform", "normal"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kOpCount, "one name per Op");
  int i = static_cast<int>(op);
  return i >= 0 && i < kOpCount ? kNames[i] : "unknown";
}

[[noreturn]] void unsupported(Op op, DType t) {
  throw DTypeError(cat("porta internal error: the plan applies ", op_name(op), " to ", name(t),
                       ", which the interpreter does not define"));
}

void run_logical(Op op, u8* o, const u8* a, const u8* b, i64 n) {
  switch (op) {
    case Op::logical_and: map2(o, a, b, n, [](u8 x, u8 y) -> u8 { return (x != 0) & (y != 0); }); return;
    case Op::logical_or: map2(o, a, b, n, [](u8 x, u8 y) -> u8 { return (x != 0) | (y != 0); }); return;
    case Op::logical_xor: map2(o, a, b, n, [](u8 x, u8 y) -> u8 { return (x != 0) ^ (y != 0); }); return;
    default: break;
  }
  unsupported(op, DType::boolean);
}

namespace {

// One Philox call serves the elements that share its counter (base/philox.hpp): consecutive indices
// reuse the last block, any other order recomputes it (the same values, just slower).
template <int kPer, class F> void for_each_block(const i64* index, i64 n, u64 stream, u64 seed, F&& f) {
  u64 have = ~u64{0};
  std::array<std::uint32_t, 4> x{};
  for (i64 i = 0; i < n; ++i) {
    const u64 e = static_cast<u64>(index[i]), c = e / kPer;
    if (c != have) {
      x = philox4x32_10(c, stream, seed);
      have = c;
    }
    f(i, e, x);
  }
}

// Philox of kLanes consecutive counters at once: w[j][l] is word j of counter c + l (in the low
// 32 bits), the same words as philox4x32_10's: PORTA_PHILOX_ROUND of base/philox.h with its
// constants, the keys of the ten rounds computed ahead. On x86-64 the lanes are vectors of 64-bit lanes,
// each a counter's word in its low half, so that a round is one 32 x 32 -> 64-bit multiply
// (pmuludq) per product, and the widest vectors the CPU has are picked once (GCC's vectoriser
// does not see that the high halves are zero and multiplies all 64 bits, three times the work).
constexpr int kLanes = 64;
using Words = u64[4][kLanes];

#if PORTA_INTERP_X86
#pragma GCC diagnostic push
// philox_vectors<Avx2/Avx512> passes AVX vectors between functions that are all inlined into
// one function of that target (gnu::flatten): no call crosses an ABI boundary. (Clang rejects
// such calls outright, so it takes the portable loop below.)
#pragma GCC diagnostic ignored "-Wpsabi"
// V: a vector of N u64 lanes with the operations below (SSE2, AVX2, AVX-512).
template <class V> void philox_vectors(u64 c, u64 stream, u64 seed, Words& w) {
  const std::uint32_t k0 = static_cast<std::uint32_t>(seed), k1 = static_cast<std::uint32_t>(seed >> 32);
  typename V::T keys0[10], keys1[10];
  for (int r = 0; r < 10; ++r) {
    keys0[r] = V::set1(std::uint32_t(k0 + std::uint32_t(r) * PORTA_PHILOX_W0));
    keys1[r] = V::set1(std::uint32_t(k1 + std::uint32_t(r) * PORTA_PHILOX_W1));
  }
  const auto m0 = V::set1(PORTA_PHILOX_M0), m1 = V::set1(PORTA_PHILOX_M1);
  const auto s0 = V::set1(static_cast<std::uint32_t>(stream)), s1 = V::set1(static_cast<std::uint32_t>(stream >> 32));
  for (int l = 0; l < kLanes; l += V::N) {
    auto x0 = V::counters(c + static_cast<u64>(l)), x1 = V::high(x0), x2 = s0, x3 = s1;
    for (int r = 0; r < 10; ++r) {
      const auto p0 = V::mul(x0, m0), p1 = V::mul(x2, m1);
      x0 = V::xor3(V::high(p1), x1, keys0[r]);
      x2 = V::xor3(V::high(p0), x3, keys1[r]);
      x1 = p1;
      x3 = p0;
    }
    V::store(w[0] + l, x0);
    V::store(w[1] + l, x1);
    V::store(w[2] + l, x2);
    V::store(w[3] + l, x3);
  }
}
// The counters c .. c + N - 1 (their 64 bits; high() gives their upper words).
struct Sse2 {
  using T = __m128i;
  static constexpr int N = 2;
  static T set1(std::uint32_t v) { return _mm_set1_epi64x(static_cast<long long>(v)); }
  static T counters(u64 c) { return _mm_set_epi64x(static_cast<long long>(c + 1), static_cast<long long>(c)); }
  static T high(T x) { return _mm_srli_epi64(x, 32); }
  static T mul(T a, T b) { return _mm_mul_epu32(a, b); }
  static T xor3(T a, T b, T c) { return _mm_xor_si128(_mm_xor_si128(a, b), c); }
  static void store(u64* p, T x) { _mm_storeu_si128(reinterpret_cast<T*>(p), x); }
};
struct Avx2 {
  using T = __m256i;
  static constexpr int N = 4;
  [[gnu::target("avx2")]] static T set1(std::uint32_t v) { return _mm256_set1_epi64x(static_cast<long long>(v)); }
  [[gnu::target("avx2")]] static T counters(u64 c) {
    return _mm256_add_epi64(_mm256_set1_epi64x(static_cast<long long>(c)), _mm256_set_epi64x(3, 2, 1, 0));
  }
  [[gnu::target("avx2")]] static T high(T x) { return _mm256_srli_epi64(x, 32); }
  [[gnu::target("avx2")]] static T mul(T a, T b) { return _mm256_mul_epu32(a, b); }
  [[gnu::target("avx2")]] static T xor3(T a, T b, T c) { return _mm256_xor_si256(_mm256_xor_si256(a, b), c); }
  [[gnu::target("avx2")]] static void store(u64* p, T x) { _mm256_storeu_si256(reinterpret_cast<T*>(p), x); }
};
struct Avx512 {
  using T = __m512i;
  static constexpr int N = 8;
  [[gnu::target("avx512f")]] static T set1(std::uint32_t v) { return _mm512_set1_epi64(static_cast<long long>(v)); }
  [[gnu::target("avx512f")]] static T counters(u64 c) {
    return _mm512_add_epi64(_mm512_set1_epi64(static_cast<long long>(c)), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
  }
  // The zero-masked forms: GCC 12's unmasked ones read a self-initialised _mm512_undefined
  // and warn (-Wuninitialized, GCC bug 105593); a full mask compiles to the plain instruction.
  [[gnu::target("avx512f")]] static T high(T x) { return _mm512_maskz_srli_epi64(0xFF, x, 32); }
  [[gnu::target("avx512f")]] static T mul(T a, T b) { return _mm512_maskz_mul_epu32(0xFF, a, b); }
  [[gnu::target("avx512f")]] static T xor3(T a, T b, T c) { return _mm512_ternarylogic_epi64(a, b, c, 0x96); }
  [[gnu::target("avx512f")]] static void store(u64* p, T x) { _mm512_storeu_si512(p, x); }
};
[[gnu::flatten]] void philox_sse2(u64 c, u64 stream, u64 seed, Words& w) { philox_vectors<Sse2>(c, stream, seed, w); }
[[gnu::target("avx2"), gnu::flatten]] void philox_avx2(u64 c, u64 stream, u64 seed, Words& w) { philox_vectors<Avx2>(c, stream, seed, w); }
[[gnu::target("avx512f"), gnu::flatten]] void philox_avx512(u64 c, u64 stream, u64 seed, Words& w) {
  philox_vectors<Avx512>(c, stream, seed, w);
}
using PhiloxLanes = void (*)(u64, u64, u64, Words&);
void philox_lanes(u64 c, u64 stream, u64 seed, Words& w) {
  static const PhiloxLanes f = simd_level() == 2 ? philox_avx512 : simd_level() == 1 ? philox_avx2 : philox_sse2;
  f(c, stream, seed, w);
}
#pragma GCC diagnostic pop
#else
void philox_lanes(u64 c, u64 stream, u64 seed, Words& w) {
  for (int l = 0; l < kLanes; ++l) {
    const auto x = philox4x32_10(c + static_cast<u64>(l), stream, seed);
    for (int j = 0; j < 4; ++j) w[j][l] = x[j];
  }
}
#endif

// The float32 uniforms of counters c .. c + kLanes - 1, element 4 l + j from word j of counter
// c + l (uniform01_f32's expression, exact at any width).
PORTA_INTERP_WIDE void uniform_f32_lanes(const Words& w, float* out) {
  for (int l = 0; l < kLanes; ++l)
    for (int j = 0; j < 4; ++j) out[4 * l + j] = uniform01_f32(static_cast<std::uint32_t>(w[j][l]));
}
// The float64 uniforms: element 2 l + h from words 2 h and 2 h + 1 of counter c + l.
PORTA_INTERP_WIDE void uniform_f64_lanes(const Words& w, double* out) {
  for (int l = 0; l < kLanes; ++l)
    for (int h = 0; h < 2; ++h)
      out[2 * l + h] = uniform01_f64(static_cast<std::uint32_t>(w[2 * h][l]), static_cast<std::uint32_t>(w[2 * h + 1][l]));
}

// Elements first .. first + n of a generator whose counter c serves elements kPer c .. kPer c +
// kPer - 1: lanes(c, values) computes the kPer * kLanes values from counter c on, of which the
// range's are copied to o.
template <int kPer, class V, class F> void by_lanes(V* o, u64 first, i64 n, F&& lanes) {
  constexpr u64 kSpan = u64{kPer} * kLanes;
  V values[kSpan];
  const u64 end = first + static_cast<u64>(n);
  for (u64 e = first; e < end;) {
    const u64 c = e / kPer, base = c * kPer, stop = std::min(end, base + kSpan);
    if (e == base && stop == base + kSpan) {
      lanes(c, o + (e - first));  // a whole chunk: straight to o
    } else {
      lanes(c, values);
      std::copy(values + (e - base), values + (stop - base), o + (e - first));
    }
    e = stop;
  }
}

// by_lanes with Philox: values(words, out) turns the words of counters c .. c + kLanes - 1 into the
// chunk's values.
template <int kPer, class V, class F> void philox_by_lanes(V* o, u64 first, i64 n, u64 stream, u64 seed, F&& values) {
  by_lanes<kPer>(o, first, n, [&](u64 c, V* v) {
    Words w;
    philox_lanes(c, stream, seed, w);
    values(w, v);
  });
}

}  // namespace

void run_random(Op op, DType t, void* o, const i64* index, i64 first_index, u64 seed, u64 stream, i64 n) {
  // Consecutive elements (a linear block, the usual case): Philox on lanes of consecutive
  // counters. Otherwise (tiles of 2-D plans) element by element; the same values either way.
  const bool lanes = first_index >= 0;
  const u64 first = lanes ? static_cast<u64>(first_index) : 0;
  if (t == DType::float64) {
    double* d = static_cast<double*>(o);
    if (op == Op::uniform) {
      if (lanes)
        philox_by_lanes<2>(d, first, n, stream, seed, uniform_f64_lanes);
      else
        for_each_block<2>(index, n, stream, seed, [&](i64 i, u64 e, const auto& x) {
          const std::size_t w = (e & 1) * 2;
          d[i] = uniform01_f64(x[w], x[w + 1]);
        });
    } else if (lanes) {
      philox_by_lanes<2>(d, first, n, stream, seed, [](const Words& w, double* v) {
        // The radius and angle once per counter, then even (cos) and odd (sin) elements in loops
        // of their own: in one loop GCC merges the two into a sincos call, whose last bits need
        // not be sin's and cos's. The same expressions as box_muller_f64.
        double r[kLanes], theta[kLanes];
        for (int l = 0; l < kLanes; ++l) {
          r[l] = box_muller_radius_f64(static_cast<std::uint32_t>(w[0][l]), static_cast<std::uint32_t>(w[1][l]));
          theta[l] = box_muller_angle_f64(static_cast<std::uint32_t>(w[2][l]), static_cast<std::uint32_t>(w[3][l]));
        }
        for (int l = 0; l < kLanes; ++l) v[2 * l] = r[l] * std::cos(theta[l]);
        for (int l = 0; l < kLanes; ++l) v[2 * l + 1] = r[l] * std::sin(theta[l]);
      });
    } else {
      for_each_block<2>(index, n, stream, seed, [&](i64 i, u64 e, const auto& x) { d[i] = box_muller_f64(x, (e & 1) != 0); });
    }
    return;
  }
  float* f = static_cast<float*>(o);
  if (op == Op::uniform) {
    if (lanes)
      philox_by_lanes<4>(f, first, n, stream, seed, uniform_f32_lanes);
    else
      for_each_block<4>(index, n, stream, seed, [&](i64 i, u64 e, const auto& x) { f[i] = uniform01_f32(x[e & 3]); });
  } else if (lanes) {
    philox_by_lanes<4>(f, first, n, stream, seed, [](const Words& w, float* v) {
      // Pair p of counter l (words 2 p and 2 p + 1) gives elements 4 l + 2 p (cos) and 4 l + 2 p + 1
      // (sin): radius and angle once per pair, cos and sin apart, as for float64.
      float r[2 * kLanes], theta[2 * kLanes];
      for (int l = 0; l < kLanes; ++l)
        for (int q = 0; q < 2; ++q) {
          r[2 * l + q] = box_muller_radius_f32(static_cast<std::uint32_t>(w[2 * q][l]));
          theta[2 * l + q] = box_muller_angle_f32(static_cast<std::uint32_t>(w[2 * q + 1][l]));
        }
      for (int k = 0; k < 2 * kLanes; ++k) v[2 * k] = r[k] * std::cos(theta[k]);
      for (int k = 0; k < 2 * kLanes; ++k) v[2 * k + 1] = r[k] * std::sin(theta[k]);
    });
  } else {
    for_each_block<4>(index, n, stream, seed, [&](i64 i, u64 e, const auto& x) {
      const std::size_t w = e & 2;
      f[i] = box_muller_f32(x[w], x[w + 1], (e & 1) != 0);
    });
  }
  round_register(t, f, n);  // float16/bfloat16 numbers: the float32 ones, rounded
}

#if PORTA_INTERP_X86
int simd_level() {
  static const int level = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
  }();
  return level;
}
#endif

}  // namespace porta::detail::interp
