// The block interpreter's op math that is not a template (interpreter_ops.hpp): conversions,
// exp of float32 four at a time, op names, the logical ops and the random ops.
#include "interpreter_ops.hpp"

#include <array>
#include <bit>

#include "philox.hpp"
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

void round_register(DType t, float* p, i64 n) {
  if (t == DType::float16)
    for (i64 i = 0; i < n; ++i) p[i] = static_cast<float>(half(p[i]));
  else if (t == DType::bfloat16)
    for (i64 i = 0; i < n; ++i) p[i] = static_cast<float>(bfloat16(p[i]));
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
            for (i64 i = 0; i < n; ++i) d[i] = float_round_odd(static_cast<double>(s[i]));
          }
          round_register(to, d, n);
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
      "rsqrt", "sin", "cos", "tan", "tanh", "sigmoid", "erf", "floor", "ceil", "round", "isnan", "isinf", "isfinite",
      "logical_not", "bit_not", "add", "sub", "mul", "div", "mod", "pow", "maximum", "minimum", "eq", "ne", "lt", "le",
      "gt", "ge", "logical_and", "logical_or", "logical_xor", "bit_and", "bit_or", "bit_xor", "where", "fma",
      "uniform", "normal"};
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

// One Philox call serves the elements that share its counter (philox.hpp): consecutive indices
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

void run_random(Op op, DType t, void* o, const i64* index, u64 seed, u64 stream, i64 n) {
  if (t == DType::float64) {
    double* d = static_cast<double*>(o);
    if (op == Op::uniform)
      for_each_block<2>(index, n, stream, seed, [&](i64 i, u64 e, const auto& x) {
        const std::size_t w = (e & 1) * 2;
        d[i] = uniform01_f64(x[w], x[w + 1]);
      });
    else
      for_each_block<2>(index, n, stream, seed, [&](i64 i, u64 e, const auto& x) { d[i] = box_muller_f64(x, (e & 1) != 0); });
    return;
  }
  float* f = static_cast<float*>(o);
  if (op == Op::uniform)
    for_each_block<4>(index, n, stream, seed, [&](i64 i, u64 e, const auto& x) { f[i] = uniform01_f32(x[e & 3]); });
  else
    for_each_block<4>(index, n, stream, seed, [&](i64 i, u64 e, const auto& x) {
      const std::size_t w = e & 2;
      f[i] = box_muller_f32(x[w], x[w + 1], (e & 1) != 0);
    });
  round_register(t, f, n);  // float16/bfloat16 numbers: the float32 ones, rounded
}


}  // namespace porta::detail::interp
