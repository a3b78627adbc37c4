// The block interpreter (interface/porta_backend/services.hpp) for devices without a run-time compiler.
//
// A plan is first checked and laid out (Program): which instructions the result needs, which are
// the same for every element (scalars, fully broadcast inputs, and what is computed only from
// them: evaluated once per call), which inputs are read in place (contiguous, stored as they are
// computed) and which register each instruction writes. Then, for each block of up to
// kInterpreterBlock elements, the instructions run one at a time, each as one typed loop over the
// block (NumExpr's scheme): the registers stay in cache and the loops vectorise.
//
// Registers hold bool as one byte 0/1 (a loaded byte is tested != 0), int32 and int64 as
// themselves, float16 and bfloat16 as float32 values, float32 and float64 as themselves. As in
// the generated kernels (src/codegen_*), a float16/bfloat16 value is rounded to its dtype only
// where it is cast to that dtype, drawn at random, or stored; arithmetic between stays in float32.
// Integer arithmetic wraps (computed in unsigned); integer div is floor division and div or mod
// by zero gives 0; float -> integer casts saturate, NaN giving 0 (what CUDA's cvt.rzi and OpenCL's
// convert_*_sat do).
#include "porta_backend/services.hpp"

#include <porta/error.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "philox.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {
namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;
using u8 = std::uint8_t;

constexpr i64 kBlock = kInterpreterBlock;

// Dtypes and conversions.

template <class T> struct Type { using type = T; };

bool is_half(DType t) { return t == DType::float16 || t == DType::bfloat16; }

// Calls f(Type<C>{}) with C the register type of `t`.
template <class F> void visit_compute(DType t, F&& f) {
  switch (t) {
    case DType::boolean: f(Type<u8>{}); return;
    case DType::int32: f(Type<std::int32_t>{}); return;
    case DType::int64: f(Type<std::int64_t>{}); return;
    case DType::float16:
    case DType::bfloat16:
    case DType::float32: f(Type<float>{}); return;
    case DType::float64: f(Type<double>{}); return;
  }
  throw InvalidArgument(cat("porta internal error: dtype value ", static_cast<int>(t), " in a plan"));
}

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

template <class D, class S> D saturate(S v) {
  if (!(v == v)) return 0;
  constexpr S lo = static_cast<S>(std::numeric_limits<D>::min());
  constexpr S hi = static_cast<S>(std::numeric_limits<D>::max());  // may round up to 2^31 or 2^63
  if (v <= lo) return std::numeric_limits<D>::min();
  if (v >= hi) return std::numeric_limits<D>::max();
  return static_cast<D>(v);
}

// C conversion between register types, defined everywhere: to bool is != 0, float -> integer
// saturates, integer -> integer wraps.
template <class D, class S> D convert(S v) {
  if constexpr (std::is_same_v<D, u8>)
    return v != S(0);
  else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<S>)
    return saturate<D>(v);
  else
    return static_cast<D>(v);
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

// Calls f(Type<S>{}, load) with S the storage type of `t` and load(S) -> register value.
template <class F> void visit_storage(DType t, F&& f) {
  switch (t) {
    case DType::boolean: f(Type<u8>{}, [](u8 v) -> u8 { return v != 0; }); return;
    case DType::int32: f(Type<std::int32_t>{}, [](std::int32_t v) { return v; }); return;
    case DType::int64: f(Type<std::int64_t>{}, [](std::int64_t v) { return v; }); return;
    case DType::float16:
      f(Type<std::uint16_t>{}, [](std::uint16_t v) { return static_cast<float>(half::from_bits(v)); });
      return;
    case DType::bfloat16:
      f(Type<std::uint16_t>{}, [](std::uint16_t v) { return static_cast<float>(bfloat16::from_bits(v)); });
      return;
    case DType::float32: f(Type<float>{}, [](float v) { return v; }); return;
    case DType::float64: f(Type<double>{}, [](double v) { return v; }); return;
  }
  throw InvalidArgument(cat("porta internal error: dtype value ", static_cast<int>(t), " in a plan"));
}

// Calls f(Type<C>{}, Type<S>{}, store) with store(C) -> S, for registers of dtype `t`.
template <class F> void visit_store(DType t, F&& f) {
  switch (t) {
    case DType::boolean: f(Type<u8>{}, Type<u8>{}, [](u8 v) { return v; }); return;
    case DType::int32: f(Type<std::int32_t>{}, Type<std::int32_t>{}, [](std::int32_t v) { return v; }); return;
    case DType::int64: f(Type<std::int64_t>{}, Type<std::int64_t>{}, [](std::int64_t v) { return v; }); return;
    case DType::float16: f(Type<float>{}, Type<std::uint16_t>{}, [](float v) { return half(v).bits; }); return;
    case DType::bfloat16: f(Type<float>{}, Type<std::uint16_t>{}, [](float v) { return bfloat16(v).bits; }); return;
    case DType::float32: f(Type<float>{}, Type<float>{}, [](float v) { return v; }); return;
    case DType::float64: f(Type<double>{}, Type<double>{}, [](double v) { return v; }); return;
  }
  throw InvalidArgument(cat("porta internal error: dtype value ", static_cast<int>(t), " in a plan"));
}

// Register type equals storage type: an output can be written in place, and an input read in
// place (but bool, whose loads are tested != 0).
bool stored_as_computed(DType t) { return !is_half(t); }
bool loaded_as_stored(DType t) { return !is_half(t) && t != DType::boolean; }

// The operations, one typed loop each.

template <class O, class A, class F> void map1(O* __restrict o, const A* __restrict a, i64 n, F f) {
  for (i64 i = 0; i < n; ++i) o[i] = f(a[i]);
}
template <class O, class A, class F>
void map2(O* __restrict o, const A* __restrict a, const A* __restrict b, i64 n, F f) {
  for (i64 i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
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

template <class T> using Unsigned = std::make_unsigned_t<T>;

template <class T> T wrap_add(T a, T b) { return static_cast<T>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b)); }
template <class T> T wrap_sub(T a, T b) { return static_cast<T>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b)); }
template <class T> T wrap_mul(T a, T b) { return static_cast<T>(static_cast<Unsigned<T>>(a) * static_cast<Unsigned<T>>(b)); }

template <class T> T int_div(T a, T b) {  // floor division; x / 0 is 0; MIN / -1 wraps to MIN
  if (b == 0) return 0;
  if (b == -1) return wrap_sub(T(0), a);
  T q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
template <class T> T int_mod(T a, T b) {  // NumPy remainder: the sign of the divisor; x % 0 is 0
  if (b == 0 || b == -1) return 0;
  T r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
template <class T> T int_pow(T a, T b) {  // exact by squaring, wrapping; plan.hpp for b < 0
  if (b < 0) return a == 1 ? T(1) : a == -1 ? T((b & 1) ? -1 : 1) : T(0);
  Unsigned<T> base = static_cast<Unsigned<T>>(a), e = static_cast<Unsigned<T>>(b), r = 1;
  while (e) {
    if (e & 1u) r *= base;
    base *= base;
    e >>= 1;
  }
  return static_cast<T>(r);
}
template <class T> T float_mod(T a, T b) {  // NumPy remainder
  T m = std::fmod(a, b);
  if (b == 0) return m;
  if (m != 0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = std::copysign(T(0), b);
  }
  return m;
}
template <class T> T nan_max(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return (a > b || a != a) ? a : b;
  else
    return a > b ? a : b;
}
template <class T> T nan_min(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return (a < b || a != a) ? a : b;
  else
    return a < b ? a : b;
}

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

// Unary ops whose operand and result share the register type T.
template <class T> void run_unary(Op op, DType t, T* o, const T* a, i64 n) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case Op::neg: map1(o, a, n, [](T x) { return -x; }); return;
      case Op::abs: map1(o, a, n, [](T x) { return std::fabs(x); }); return;
      case Op::sign: map1(o, a, n, [](T x) { return x != x ? x : T((x > 0) - (x < 0)); }); return;
      case Op::square: map1(o, a, n, [](T x) { return x * x; }); return;
      case Op::exp:
        if constexpr (std::is_same_v<T, float>) exp_f32(o, a, n, false);
        else map1(o, a, n, [](T x) { return std::exp(x); });
        return;
      case Op::log: map1(o, a, n, [](T x) { return std::log(x); }); return;
      case Op::log1p: map1(o, a, n, [](T x) { return std::log1p(x); }); return;
      case Op::expm1: map1(o, a, n, [](T x) { return std::expm1(x); }); return;
      case Op::sqrt: map1(o, a, n, [](T x) { return std::sqrt(x); }); return;
      case Op::rsqrt: map1(o, a, n, [](T x) { return T(1) / std::sqrt(x); }); return;
      case Op::sin: map1(o, a, n, [](T x) { return std::sin(x); }); return;
      case Op::cos: map1(o, a, n, [](T x) { return std::cos(x); }); return;
      case Op::tan: map1(o, a, n, [](T x) { return std::tan(x); }); return;
      case Op::tanh: map1(o, a, n, [](T x) { return std::tanh(x); }); return;
      case Op::sigmoid:
        if constexpr (std::is_same_v<T, float>) exp_f32(o, a, n, true);
        else map1(o, a, n, [](T x) { return T(1) / (T(1) + std::exp(-x)); });
        return;
      case Op::erf: map1(o, a, n, [](T x) { return std::erf(x); }); return;
      case Op::floor: map1(o, a, n, [](T x) { return std::floor(x); }); return;
      case Op::ceil: map1(o, a, n, [](T x) { return std::ceil(x); }); return;
      case Op::round: map1(o, a, n, [](T x) { return std::nearbyint(x); }); return;
      default: break;
    }
  } else if constexpr (std::is_same_v<T, u8>) {
    switch (op) {
      case Op::neg:
      case Op::abs:
      case Op::sign:
      case Op::square:
      case Op::floor:
      case Op::ceil:
      case Op::round: map1(o, a, n, [](u8 x) { return x; }); return;
      case Op::bit_not:
      case Op::logical_not: map1(o, a, n, [](u8 x) -> u8 { return x == 0; }); return;
      default: break;
    }
  } else {
    switch (op) {
      case Op::neg: map1(o, a, n, [](T x) { return wrap_sub(T(0), x); }); return;
      case Op::abs: map1(o, a, n, [](T x) { return x < 0 ? wrap_sub(T(0), x) : x; }); return;
      case Op::sign: map1(o, a, n, [](T x) { return static_cast<T>((x > 0) - (x < 0)); }); return;
      case Op::square: map1(o, a, n, [](T x) { return wrap_mul(x, x); }); return;
      case Op::floor:
      case Op::ceil:
      case Op::round: map1(o, a, n, [](T x) { return x; }); return;
      case Op::bit_not: map1(o, a, n, [](T x) { return static_cast<T>(~x); }); return;
      default: break;
    }
  }
  unsupported(op, t);
}

// Binary ops whose operands and result share the register type T.
template <class T> void run_binary(Op op, DType t, T* o, const T* a, const T* b, i64 n) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case Op::add: map2(o, a, b, n, [](T x, T y) { return x + y; }); return;
      case Op::sub: map2(o, a, b, n, [](T x, T y) { return x - y; }); return;
      case Op::mul: map2(o, a, b, n, [](T x, T y) { return x * y; }); return;
      case Op::div: map2(o, a, b, n, [](T x, T y) { return x / y; }); return;
      case Op::mod: map2(o, a, b, n, [](T x, T y) { return float_mod(x, y); }); return;
      case Op::pow: map2(o, a, b, n, [](T x, T y) { return std::pow(x, y); }); return;
      case Op::maximum: map2(o, a, b, n, [](T x, T y) { return nan_max(x, y); }); return;
      case Op::minimum: map2(o, a, b, n, [](T x, T y) { return nan_min(x, y); }); return;
      default: break;
    }
  } else if constexpr (std::is_same_v<T, u8>) {
    switch (op) {
      case Op::add:
      case Op::maximum:
      case Op::bit_or: map2(o, a, b, n, [](u8 x, u8 y) -> u8 { return x | y; }); return;
      case Op::mul:
      case Op::minimum:
      case Op::bit_and: map2(o, a, b, n, [](u8 x, u8 y) -> u8 { return x & y; }); return;
      case Op::sub:
      case Op::bit_xor: map2(o, a, b, n, [](u8 x, u8 y) -> u8 { return x ^ y; }); return;
      default: break;
    }
  } else {
    switch (op) {
      case Op::add: map2(o, a, b, n, [](T x, T y) { return wrap_add(x, y); }); return;
      case Op::sub: map2(o, a, b, n, [](T x, T y) { return wrap_sub(x, y); }); return;
      case Op::mul: map2(o, a, b, n, [](T x, T y) { return wrap_mul(x, y); }); return;
      case Op::div: map2(o, a, b, n, [](T x, T y) { return int_div(x, y); }); return;
      case Op::mod: map2(o, a, b, n, [](T x, T y) { return int_mod(x, y); }); return;
      case Op::pow: map2(o, a, b, n, [](T x, T y) { return int_pow(x, y); }); return;
      case Op::maximum: map2(o, a, b, n, [](T x, T y) { return nan_max(x, y); }); return;
      case Op::minimum: map2(o, a, b, n, [](T x, T y) { return nan_min(x, y); }); return;
      case Op::bit_and: map2(o, a, b, n, [](T x, T y) { return static_cast<T>(x & y); }); return;
      case Op::bit_or: map2(o, a, b, n, [](T x, T y) { return static_cast<T>(x | y); }); return;
      case Op::bit_xor: map2(o, a, b, n, [](T x, T y) { return static_cast<T>(x ^ y); }); return;
      default: break;
    }
  }
  unsupported(op, t);
}

template <class T> void run_compare(Op op, u8* o, const T* a, const T* b, i64 n) {
  switch (op) {
    case Op::eq: map2(o, a, b, n, [](T x, T y) -> u8 { return x == y; }); return;
    case Op::ne: map2(o, a, b, n, [](T x, T y) -> u8 { return x != y; }); return;
    case Op::lt: map2(o, a, b, n, [](T x, T y) -> u8 { return x < y; }); return;
    case Op::le: map2(o, a, b, n, [](T x, T y) -> u8 { return x <= y; }); return;
    case Op::gt: map2(o, a, b, n, [](T x, T y) -> u8 { return x > y; }); return;
    case Op::ge: map2(o, a, b, n, [](T x, T y) -> u8 { return x >= y; }); return;
    default: break;
  }
  unsupported(op, DType::boolean);
}

template <class T> void run_predicate(Op op, u8* o, const T* a, i64 n) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case Op::isnan: map1(o, a, n, [](T x) -> u8 { return x != x; }); return;
      case Op::isinf: map1(o, a, n, [](T x) -> u8 { return std::fabs(x) == std::numeric_limits<T>::infinity(); }); return;
      case Op::isfinite: map1(o, a, n, [](T x) -> u8 { return std::fabs(x) < std::numeric_limits<T>::infinity(); }); return;
      default: break;
    }
  } else {
    u8 v = op == Op::isfinite;
    std::fill(o, o + n, v);
    return;
  }
  unsupported(op, DType::boolean);
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

template <class T> void run_where(T* __restrict o, const u8* __restrict a, const T* __restrict b, const T* __restrict c, i64 n) {
  for (i64 i = 0; i < n; ++i) o[i] = a[i] ? b[i] : c[i];
}

template <class T> void run_fma(T* __restrict o, const T* __restrict a, const T* __restrict b, const T* __restrict c, i64 n) {
  if constexpr (std::is_floating_point_v<T>) {
    for (i64 i = 0; i < n; ++i) o[i] = std::fma(a[i], b[i], c[i]);
  } else if constexpr (std::is_same_v<T, u8>) {
    for (i64 i = 0; i < n; ++i) o[i] = static_cast<u8>((a[i] & b[i]) | c[i]);
  } else {
    for (i64 i = 0; i < n; ++i) o[i] = wrap_add(wrap_mul(a[i], b[i]), c[i]);
  }
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

// Plan layout.

bool is_math(Op op) {
  switch (op) {
    case Op::exp: case Op::log: case Op::log1p: case Op::expm1: case Op::sqrt: case Op::rsqrt:
    case Op::sin: case Op::cos: case Op::tan: case Op::tanh: case Op::sigmoid: case Op::erf:
      return true;
    default: return false;
  }
}
bool is_unary_same(Op op) {
  switch (op) {
    case Op::neg: case Op::abs: case Op::sign: case Op::square: case Op::floor: case Op::ceil: case Op::round:
    case Op::bit_not:
      return true;
    default: return is_math(op);
  }
}
bool is_binary_same(Op op) {
  switch (op) {
    case Op::add: case Op::sub: case Op::mul: case Op::div: case Op::mod: case Op::pow: case Op::maximum:
    case Op::minimum: case Op::bit_and: case Op::bit_or: case Op::bit_xor:
      return true;
    default: return false;
  }
}
bool is_compare(Op op) { return op >= Op::eq && op <= Op::ge; }
bool is_predicate(Op op) { return op == Op::isnan || op == Op::isinf || op == Op::isfinite; }
bool is_logical2(Op op) { return op == Op::logical_and || op == Op::logical_or || op == Op::logical_xor; }
int arity(Op op) {
  switch (op) {
    case Op::load: case Op::scalar: case Op::index: return 0;
    case Op::where: case Op::fma: return 3;
    case Op::uniform: case Op::normal: return 1;
    default:
      if (is_binary_same(op) || is_compare(op) || is_logical2(op)) return 2;
      return 1;
  }
}
struct InputView {
  DType dtype = DType::float32;
  const std::byte* base = nullptr;  // the element at the input's offset
  std::size_t item = 0;
  const std::vector<i64>* strides = nullptr;
  bool contiguous = false;  // element e at base + e
  bool constant = false;    // one element for all of the shape
};

bool is_contiguous(const std::vector<i64>& shape, const std::vector<i64>& strides) {
  i64 expected = 1;
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] != 1 && strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}
bool is_constant(const std::vector<i64>& shape, const std::vector<i64>& strides) {
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] != 1 && strides[d] != 0) return false;
  return true;
}

[[noreturn]] void bad_plan(const std::string& what) {
  throw InvalidArgument(cat("porta internal error: malformed plan for the block interpreter: ", what));
}

struct Program {
  const ElementwisePlan* plan = nullptr;
  int ndim = 0;
  i64 total = 1;
  int result = -1;
  std::vector<InputView> inputs;
  std::vector<u8> live, constant, in_place;  // per instruction
  std::vector<int> slot;                      // per instruction; -1: none
  std::vector<int> steps;                     // live, not constant, in order
  std::vector<int> const_steps;               // live and constant, in order
  int nslots = 0;
  bool needs_index = false;  // some input or the output is walked by multi-index

  bool has_output = false;
  DType out_dtype = DType::float32;
  std::byte* out_base = nullptr;
  std::size_t out_item = 0;
  bool out_contiguous = true;
  bool direct_output = false;  // the result instruction writes the output memory itself
  int out_cast_slot = -1;      // output dtype differs from the result's: the cast goes here
};

void check_instruction(const ElementwisePlan& p, int j) {
  const Instr& in = p.code[j];
  auto operand = [&](std::int32_t k, const char* which) -> DType {
    if (k < 0 || k >= j) bad_plan(cat("instruction ", j, " has operand ", which, " = ", k, ", not an earlier instruction"));
    return p.code[k].dtype;
  };
  DType t = in.dtype;
  int n = arity(in.op);
  DType a = n >= 1 ? operand(in.a, "a") : t, b = n >= 2 ? operand(in.b, "b") : t, c = n >= 3 ? operand(in.c, "c") : t;
  auto need = [&](bool ok, const char* rule) {
    if (!ok)
      bad_plan(cat("instruction ", j, " (", op_name(in.op), ", ", name(t), ") with operands ", name(a),
                   n >= 2 ? cat(", ", name(b)) : std::string(), n >= 3 ? cat(", ", name(c)) : std::string(), ": ", rule));
  };
  switch (in.op) {
    case Op::load:
      if (in.arg < 0 || in.arg >= static_cast<std::int32_t>(p.inputs.size()))
        bad_plan(cat("instruction ", j, " loads input ", in.arg, " of ", p.inputs.size()));
      need(p.inputs[in.arg].dtype == t, "a load has its input's dtype");
      return;
    case Op::scalar:
      if (in.arg < 0 || in.arg >= static_cast<std::int32_t>(p.scalars.size()))
        bad_plan(cat("instruction ", j, " reads scalar ", in.arg, " of ", p.scalars.size()));
      return;
    case Op::index: need(t == DType::int64, "index is int64"); return;
    case Op::cast: return;
    case Op::uniform:
    case Op::normal:
      need(is_floating(t) && a == DType::int64, "random numbers are floating, counted by an int64 index");
      if (in.arg < 0 || in.arg + 1 >= static_cast<std::int32_t>(p.scalars.size()))
        bad_plan(cat("instruction ", j, " takes its key and stream from scalars ", in.arg, " and ", in.arg + 1, " of ",
                     p.scalars.size()));
      return;
    case Op::logical_not: need(t == DType::boolean && a == DType::boolean, "bool from bool"); return;
    case Op::where: need(a == DType::boolean && b == t && c == t, "where(bool, x, x) has x's dtype"); return;
    case Op::fma: need(a == t && b == t && c == t, "operands have the instruction's dtype"); return;
    default: break;
  }
  if (is_predicate(in.op)) return need(t == DType::boolean, "gives bool");
  if (is_compare(in.op)) return need(t == DType::boolean && a == b, "bool from two operands of one dtype");
  if (is_logical2(in.op)) return need(t == DType::boolean && a == t && b == t, "bool from bool");
  if (is_math(in.op)) return need(is_floating(t) && a == t, "math functions take and give floating dtypes");
  if (in.op == Op::bit_not) return need(!is_floating(t) && a == t, "integers or bool");
  if (in.op == Op::bit_and || in.op == Op::bit_or || in.op == Op::bit_xor)
    return need(!is_floating(t) && a == t && b == t, "integers or bool");
  if (t == DType::boolean && (in.op == Op::div || in.op == Op::mod || in.op == Op::pow))
    need(false, "not defined for bool");
  if (is_unary_same(in.op)) return need(a == t, "the operand has the instruction's dtype");
  if (is_binary_same(in.op)) return need(a == t && b == t, "operands have the instruction's dtype");
  bad_plan(cat("instruction ", j, " has unknown op ", static_cast<int>(in.op)));
}

Program compile(const ElementwisePlan& plan, bool with_output, bool tiled = false) {
  Program p;
  p.plan = &plan;
  p.ndim = static_cast<int>(plan.shape.size());
  for (i64 s : plan.shape) {
    if (s < 0) bad_plan(cat("negative extent ", s, " in the shape"));
    p.total *= s;
  }
  const int n = static_cast<int>(plan.code.size());
  if (plan.result < 0 || plan.result >= n) bad_plan(cat("result ", plan.result, " of ", n, " instructions"));
  p.result = plan.result;
  for (int j = 0; j < n; ++j) check_instruction(plan, j);

  p.inputs.resize(plan.inputs.size());
  for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
    const PlanInput& in = plan.inputs[k];
    InputView& v = p.inputs[k];
    if (in.strides.size() != plan.shape.size())
      bad_plan(cat("input ", k, " has ", in.strides.size(), " strides for a shape of ", plan.shape.size(), " dimensions"));
    v.dtype = in.dtype;
    v.item = itemsize(in.dtype);
    v.base = static_cast<const std::byte*>(in.handle) + in.offset * static_cast<i64>(v.item);
    v.strides = &in.strides;
    v.contiguous = is_contiguous(plan.shape, in.strides);
    v.constant = is_constant(plan.shape, in.strides);
  }

  // Liveness, and what is the same for every element.
  p.live.assign(n, 0);
  p.constant.assign(n, 0);
  p.in_place.assign(n, 0);
  p.live[p.result] = 1;
  std::vector<int> last_use(n, -1);
  last_use[p.result] = n;  // past the end: the result is read after the last instruction
  for (int j = n - 1; j >= 0; --j) {
    if (!p.live[j]) continue;
    const Instr& in = plan.code[j];
    const int ar = arity(in.op);
    for (std::int32_t k : {ar >= 1 ? in.a : -1, ar >= 2 ? in.b : -1, ar >= 3 ? in.c : -1})
      if (k >= 0) {
        p.live[k] = 1;
        last_use[k] = std::max(last_use[k], j);
      }
  }
  for (int j = 0; j < n; ++j) {
    if (!p.live[j]) continue;
    const Instr& in = plan.code[j];
    int ar = arity(in.op);
    bool c;
    if (in.op == Op::load) c = p.inputs[in.arg].constant;
    else if (in.op == Op::scalar) c = true;
    else if (in.op == Op::index || in.op == Op::uniform || in.op == Op::normal) c = false;
    else {
      c = p.constant[in.a] && (ar < 2 || p.constant[in.b]) && (ar < 3 || p.constant[in.c]);
    }
    p.constant[j] = c;
  }

  // The output.
  p.has_output = with_output;
  const DType result_dtype = plan.code[p.result].dtype;
  if (with_output) {
    const PlanOutput& out = plan.output;
    if (!out.strides.empty() && out.strides.size() != plan.shape.size())
      bad_plan(cat("the output has ", out.strides.size(), " strides for a shape of ", plan.shape.size(), " dimensions"));
    p.out_dtype = out.dtype;
    p.out_item = itemsize(out.dtype);
    p.out_base = static_cast<std::byte*>(out.handle) + out.offset * static_cast<i64>(p.out_item);
    p.out_contiguous = out.strides.empty() || is_contiguous(plan.shape, out.strides);
    if (!p.out_contiguous) p.needs_index = true;
    bool aliases_input = false;
    for (auto& in : plan.inputs) aliases_input = aliases_input || in.handle == out.handle;
    p.direct_output = p.out_contiguous && out.dtype == result_dtype && stored_as_computed(out.dtype) &&
                      !p.constant[p.result] && !aliases_input && !tiled;
  }

  // Registers: constants keep theirs for the whole call; others are reused once their last
  // reader has run. An instruction never writes the register of one of its own operands.
  p.slot.assign(n, -1);
  for (int j = 0; j < n; ++j)
    if (p.live[j] && p.constant[j]) p.const_steps.push_back(j);
  for (int j : p.const_steps) p.slot[j] = p.nslots++;
  std::vector<int> free_slots;
  for (int j = 0; j < n; ++j) {
    if (!p.live[j] || p.constant[j]) continue;
    p.steps.push_back(j);
    const Instr& in = plan.code[j];
    if (in.op == Op::load) {
      const InputView& v = p.inputs[in.arg];
      if (!v.contiguous || tiled) p.needs_index = true;
      if (v.contiguous && loaded_as_stored(v.dtype) && !(j == p.result && p.direct_output) && !tiled) p.in_place[j] = 1;
    }
    bool needs_slot = !p.in_place[j] && !(j == p.result && p.direct_output);
    if (needs_slot) {
      if (!free_slots.empty()) {
        p.slot[j] = free_slots.back();
        free_slots.pop_back();
      } else {
        p.slot[j] = p.nslots++;
      }
    }
    int ar = arity(in.op);
    int ops[3] = {in.a, ar >= 2 ? in.b : -1, ar >= 3 ? in.c : -1};
    if (ar == 0) ops[0] = -1;
    for (int q = 0; q < 3; ++q) {
      int k = ops[q];
      if (k < 0 || (q > 0 && k == ops[0]) || (q > 1 && k == ops[1])) continue;
      if (!p.constant[k] && last_use[k] == j && p.slot[k] >= 0) free_slots.push_back(p.slot[k]);
    }
  }
  if (with_output && !p.direct_output && plan.output.dtype != result_dtype) p.out_cast_slot = p.nslots++;
  return p;
}

// Per-thread scratch: the registers.

struct Scratch {
  std::vector<std::vector<double>> slots;  // kBlock 8-byte values each (32 KiB)
  std::vector<void*> ptr;                  // per instruction: where its values for this block are
  std::vector<i64> start_index;            // the multi-index of the block's first element
  std::vector<i64> walk_index;
  // A 2-D tile instead of a linear block: rows [r0, r0 + tr) by columns [c0, c0 + tc) of the
  // plan's shape, its values row-major (see interpret_elementwise).
  bool tile = false;
  i64 r0 = 0, c0 = 0, tr = 0, tc = 0;

  void prepare(const Program& p) {
    if (slots.size() < static_cast<std::size_t>(p.nslots)) slots.resize(p.nslots);
    for (int s = 0; s < p.nslots; ++s)
      if (slots[s].size() < static_cast<std::size_t>(kBlock)) slots[s].resize(kBlock);
    ptr.assign(p.plan->code.size(), nullptr);
    start_index.resize(p.ndim);
    walk_index.resize(p.ndim);
    tile = false;
  }
  void* slot(int s) { return slots[s].data(); }
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// Calls run(k, pos, len, stride) for each run of the block along the last dimension: block
// elements [k, k + len) are at element offsets pos, pos + stride, ... of the view.
template <class F>
void walk(const std::vector<i64>& shape, const std::vector<i64>& strides, const std::vector<i64>& start_index,
          std::vector<i64>& idx, i64 n, F&& run) {
  const int nd = static_cast<int>(shape.size());
  if (nd == 0) {
    run(i64{0}, i64{0}, n, i64{0});
    return;
  }
  std::copy(start_index.begin(), start_index.end(), idx.begin());
  i64 pos = 0;
  for (int d = 0; d < nd; ++d) pos += idx[d] * strides[d];
  const i64 last = shape[nd - 1], s = strides[nd - 1];
  i64 k = 0;
  while (k < n) {
    i64 len = std::min(n - k, last - idx[nd - 1]);
    run(k, pos, len, s);
    k += len;
    if (k >= n) break;
    pos += len * s;
    idx[nd - 1] += len;
    for (int d = nd - 1; d > 0 && idx[d] == shape[d]; --d) {
      pos -= idx[d] * strides[d];
      idx[d] = 0;
      ++idx[d - 1];
      pos += strides[d - 1];
    }
  }
}

// A 2-D view whose elements are closer down a column than along a row (a transposed view):
// tiles are read and written column by column for it.
bool reads_down_columns(i64 s0, i64 s1) {
  return s0 != 0 && s1 != 0 && std::abs(s0) < std::abs(s1);
}

// Block [start, start + n) of input `v`, converted to registers, into dst; or the tile.
void gather(const Program& p, Scratch& sc, const InputView& v, i64 start, i64 n, void* dst) {
  visit_storage(v.dtype, [&](auto st, auto load) {
    using S = typename decltype(st)::type;
    using C = decltype(load(S{}));
    const S* base = reinterpret_cast<const S*>(v.base);
    C* d = static_cast<C*>(dst);
    if (v.constant) {
      std::fill(d, d + n, load(base[0]));
    } else if (sc.tile) {
      const i64 s0 = (*v.strides)[0], s1 = (*v.strides)[1], tr = sc.tr, tc = sc.tc;
      const S* s = base + sc.r0 * s0 + sc.c0 * s1;
      if (reads_down_columns(s0, s1)) {
        for (i64 c = 0; c < tc; ++c)
          for (i64 r = 0; r < tr; ++r) d[r * tc + c] = load(s[r * s0 + c * s1]);
      } else {
        for (i64 r = 0; r < tr; ++r) {
          const S* row = s + r * s0;
          C* o = d + r * tc;
          if (s1 == 1) {
            for (i64 c = 0; c < tc; ++c) o[c] = load(row[c]);
          } else {
            for (i64 c = 0; c < tc; ++c) o[c] = load(row[c * s1]);
          }
        }
      }
    } else if (v.contiguous) {
      const S* s = base + start;
      for (i64 i = 0; i < n; ++i) d[i] = load(s[i]);
    } else {
      walk(p.plan->shape, *v.strides, sc.start_index, sc.walk_index, n, [&](i64 k, i64 pos, i64 len, i64 stride) {
        const S* s = base + pos;
        C* o = d + k;
        if (stride == 1) {
          for (i64 i = 0; i < len; ++i) o[i] = load(s[i]);
        } else if (stride == 0) {
          std::fill(o, o + len, load(s[0]));
        } else {
          for (i64 i = 0; i < len; ++i) o[i] = load(s[i * stride]);
        }
      });
    }
  });
}

// Registers of the output's dtype -> output elements [start, start + n).
void scatter(const Program& p, Scratch& sc, const void* src, i64 start, i64 n) {
  visit_store(p.out_dtype, [&](auto ct, auto st, auto store) {
    using C = typename decltype(ct)::type;
    using S = typename decltype(st)::type;
    const C* s = static_cast<const C*>(src);
    S* base = reinterpret_cast<S*>(p.out_base);
    if (sc.tile) {
      const auto& shape = p.plan->shape;
      const i64 s0 = p.out_contiguous ? shape[1] : p.plan->output.strides[0];
      const i64 s1 = p.out_contiguous ? 1 : p.plan->output.strides[1], tr = sc.tr, tc = sc.tc;
      S* d = base + sc.r0 * s0 + sc.c0 * s1;
      if (reads_down_columns(s0, s1)) {
        for (i64 c = 0; c < tc; ++c)
          for (i64 r = 0; r < tr; ++r) d[r * s0 + c * s1] = store(s[r * tc + c]);
      } else {
        for (i64 r = 0; r < tr; ++r)
          for (i64 c = 0; c < tc; ++c) d[r * s0 + c * s1] = store(s[r * tc + c]);
      }
      return;
    }
    if (p.out_contiguous) {
      S* d = base + start;
      for (i64 i = 0; i < n; ++i) d[i] = store(s[i]);
      return;
    }
    walk(p.plan->shape, p.plan->output.strides, sc.start_index, sc.walk_index, n, [&](i64 k, i64 pos, i64 len, i64 stride) {
      S* d = base + pos;
      const C* in = s + k;
      if (stride == 1) {
        for (i64 i = 0; i < len; ++i) d[i] = store(in[i]);
      } else {
        for (i64 i = 0; i < len; ++i) d[i * stride] = store(in[i]);
      }
    });
  });
}

void fill_scalar(const ScalarValue& sv, DType t, void* dst, i64 n) {
  // The scalar as a register of its own dtype, cast to the instruction's, then repeated.
  alignas(8) std::byte one[8];
  if (is_floating(sv.dtype)) {
    double f = sv.f;
    cast_values(DType::float64, &f, t, one, 1);
  } else if (sv.dtype == DType::boolean) {
    u8 b = sv.i != 0;
    cast_values(DType::boolean, &b, t, one, 1);
  } else {
    i64 i = sv.i;
    cast_values(DType::int64, &i, t, one, 1);
  }
  visit_compute(t, [&](auto ct) {
    using C = typename decltype(ct)::type;
    C v;
    std::memcpy(&v, one, sizeof(C));
    std::fill(static_cast<C*>(dst), static_cast<C*>(dst) + n, v);
  });
}

// Where a strided input's values for a linear block are, when the block lies in one run of
// stride 1 along the last dimension (a row of a matrix plus a row vector, a slice's row) and
// its registers are its storage; null otherwise.
const std::byte* in_place_run(const Program& p, const Scratch& sc, const InputView& v, i64 n) {
  if (sc.tile || !p.needs_index || v.constant || !loaded_as_stored(v.dtype) || p.ndim == 0) return nullptr;
  const auto& shape = p.plan->shape;
  const auto& strides = *v.strides;
  const int last = p.ndim - 1;
  if (strides[last] != 1 || n > shape[last] - sc.start_index[last]) return nullptr;
  i64 pos = 0;
  for (int d = 0; d < p.ndim; ++d) pos += sc.start_index[d] * strides[d];
  return v.base + pos * static_cast<i64>(v.item);
}

void run_instruction(const Program& p, Scratch& sc, int j, void* dst, i64 start, i64 n) {
  const ElementwisePlan& plan = *p.plan;
  const Instr& in = plan.code[j];
  const DType t = in.dtype;
  switch (in.op) {
    case Op::load: {
      const InputView& v = p.inputs[in.arg];
      if (p.in_place[j]) {
        sc.ptr[j] = const_cast<std::byte*>(v.base) + start * static_cast<i64>(v.item);
        return;
      }
      if (const std::byte* at = (j == p.result && p.direct_output) ? nullptr : in_place_run(p, sc, v, n)) {
        sc.ptr[j] = const_cast<std::byte*>(at);
        return;
      }
      gather(p, sc, v, start, n, dst);
      break;
    }
    case Op::scalar: fill_scalar(plan.scalars[in.arg], t, dst, n); break;
    case Op::index: {
      i64* d = static_cast<i64*>(dst);
      if (sc.tile) {
        const i64 cols = plan.shape[1];
        for (i64 r = 0; r < sc.tr; ++r)
          for (i64 c = 0; c < sc.tc; ++c) d[r * sc.tc + c] = (sc.r0 + r) * cols + sc.c0 + c;
        break;
      }
      for (i64 i = 0; i < n; ++i) d[i] = start + i;
      break;
    }
    case Op::cast: cast_values(plan.code[in.a].dtype, sc.ptr[in.a], t, dst, n); break;
    case Op::uniform:
    case Op::normal:
      run_random(in.op, t, dst, static_cast<const i64*>(sc.ptr[in.a]), static_cast<u64>(plan.scalars[in.arg].i),
                 static_cast<u64>(plan.scalars[in.arg + 1].i), n);
      break;
    case Op::where:
      visit_compute(t, [&](auto ct) {
        using C = typename decltype(ct)::type;
        run_where(static_cast<C*>(dst), static_cast<const u8*>(sc.ptr[in.a]), static_cast<const C*>(sc.ptr[in.b]),
                  static_cast<const C*>(sc.ptr[in.c]), n);
      });
      break;
    case Op::fma:
      visit_compute(t, [&](auto ct) {
        using C = typename decltype(ct)::type;
        run_fma(static_cast<C*>(dst), static_cast<const C*>(sc.ptr[in.a]), static_cast<const C*>(sc.ptr[in.b]),
                static_cast<const C*>(sc.ptr[in.c]), n);
      });
      break;
    case Op::logical_not:
      run_unary<u8>(Op::logical_not, t, static_cast<u8*>(dst), static_cast<const u8*>(sc.ptr[in.a]), n);
      break;
    default:
      if (is_compare(in.op)) {
        visit_compute(plan.code[in.a].dtype, [&](auto ct) {
          using C = typename decltype(ct)::type;
          run_compare(in.op, static_cast<u8*>(dst), static_cast<const C*>(sc.ptr[in.a]),
                      static_cast<const C*>(sc.ptr[in.b]), n);
        });
      } else if (is_predicate(in.op)) {
        visit_compute(plan.code[in.a].dtype, [&](auto ct) {
          using C = typename decltype(ct)::type;
          run_predicate(in.op, static_cast<u8*>(dst), static_cast<const C*>(sc.ptr[in.a]), n);
        });
      } else if (is_logical2(in.op)) {
        run_logical(in.op, static_cast<u8*>(dst), static_cast<const u8*>(sc.ptr[in.a]),
                    static_cast<const u8*>(sc.ptr[in.b]), n);
      } else if (is_binary_same(in.op)) {
        visit_compute(t, [&](auto ct) {
          using C = typename decltype(ct)::type;
          run_binary<C>(in.op, t, static_cast<C*>(dst), static_cast<const C*>(sc.ptr[in.a]),
                        static_cast<const C*>(sc.ptr[in.b]), n);
        });
      } else {
        visit_compute(t, [&](auto ct) {
          using C = typename decltype(ct)::type;
          run_unary<C>(in.op, t, static_cast<C*>(dst), static_cast<const C*>(sc.ptr[in.a]), n);
        });
      }
      break;
  }
  sc.ptr[j] = dst;
}

// Sets up the registers for a call covering at most `span` elements: the constants, once.
Scratch& begin_call(const Program& p, i64 span) {
  Scratch& sc = scratch();
  sc.prepare(p);
  i64 n = std::min(span, kBlock);
  for (int j : p.const_steps) {
    const Instr& in = p.plan->code[j];
    void* dst = sc.slot(p.slot[j]);
    if (in.op == Op::load) {
      gather(p, sc, p.inputs[in.arg], 0, n, dst);  // a constant input: one element, repeated
      sc.ptr[j] = dst;
    } else {
      run_instruction(p, sc, j, dst, 0, n);
    }
  }
  return sc;
}

// Computes the result for elements [start, start + n), n <= kBlock; returns where its values
// are (the output itself when the result is written there directly).
const void* eval_block(const Program& p, Scratch& sc, i64 start, i64 n) {
  if (p.needs_index) {
    i64 rest = start;
    for (int d = p.ndim; d-- > 0;) {
      i64 e = p.plan->shape[d];
      sc.start_index[d] = rest % e;
      rest /= e;
    }
  }
  for (int j : p.steps) {
    void* dst = (j == p.result && p.direct_output) ? static_cast<void*>(p.out_base + start * static_cast<i64>(p.out_item))
                : p.slot[j] >= 0 ? sc.slot(p.slot[j])
                                 : nullptr;
    run_instruction(p, sc, j, dst, start, n);
  }
  return sc.ptr[p.result];
}

// Computes the result for the tile set in sc (tr * tc <= kBlock elements).
const void* eval_tile(const Program& p, Scratch& sc) {
  const i64 n = sc.tr * sc.tc;
  for (int j : p.steps) {
    void* dst = p.slot[j] >= 0 ? sc.slot(p.slot[j]) : nullptr;
    run_instruction(p, sc, j, dst, 0, n);
  }
  return sc.ptr[p.result];
}

// Whether to run a 2-D plan in tiles: some operand is transposed, so linear blocks would read
// (or write) it one cache line per element.
bool wants_tiles(const ElementwisePlan& plan) {
  if (plan.shape.size() != 2 || plan.shape[0] < 2 || plan.shape[1] < 2) return false;
  for (auto& in : plan.inputs)
    if (reads_down_columns(in.strides[0], in.strides[1])) return true;
  return plan.output.strides.size() == 2 && reads_down_columns(plan.output.strides[0], plan.output.strides[1]);
}

// Reductions.

template <class T> T pairwise_sum(const T* v, i64 n) {
  if (n < 8) {
    T s = 0;
    for (i64 i = 0; i < n; ++i) s += v[i];
    return s;
  }
  if (n <= 128) {
    T r[8];
    for (int j = 0; j < 8; ++j) r[j] = v[j];
    i64 i = 8;
    for (; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j) r[j] += v[i + j];
    T s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) s += v[i];
    return s;
  }
  i64 half_n = n / 2;
  half_n -= half_n % 8;
  return pairwise_sum(v, half_n) + pairwise_sum(v + half_n, n - half_n);
}

// Partial sums of 1, 2, 4, ... chunks, merged like a binary counter: the error of a float sum
// grows with log(n), not n. `width` values per entry (one per output of a tile).
template <class A> class Cascade {
 public:
  explicit Cascade(i64 width) : width_(width) {}
  void push(const A* x) {
    carry_.assign(x, x + width_);
    std::size_t l = 0;
    for (; l < full_.size() && full_[l]; ++l) {
      const A* lv = level_[l].data();
      for (i64 i = 0; i < width_; ++i) carry_[i] = lv[i] + carry_[i];
      full_[l] = 0;
    }
    if (l == level_.size()) {
      level_.emplace_back();
      full_.push_back(0);
    }
    level_[l] = carry_;
    full_[l] = 1;
  }
  void total(A* out) const {
    bool any = false;
    for (std::size_t l = 0; l < level_.size(); ++l) {
      if (!full_[l]) continue;
      const A* lv = level_[l].data();
      if (!any) std::copy(lv, lv + width_, out);
      else for (i64 i = 0; i < width_; ++i) out[i] = lv[i] + out[i];
      any = true;
    }
    if (!any) std::fill(out, out + width_, A(0));
  }

 private:
  i64 width_;
  std::vector<std::vector<A>> level_;
  std::vector<u8> full_;
  std::vector<A> carry_;
};

template <ReduceOp R, class T> struct Reducer {
  static constexpr bool kArg = R == ReduceOp::argmin || R == ReduceOp::argmax;
  static constexpr bool kPairwise = R == ReduceOp::sum && std::is_floating_point_v<T>;
  using Acc = std::conditional_t<R == ReduceOp::sum && std::is_same_v<T, u8>, i64,
                                 std::conditional_t<R == ReduceOp::all || R == ReduceOp::any, u8, T>>;
  static constexpr DType acc_dtype(DType value) {
    if constexpr (std::is_same_v<Acc, i64>) return DType::int64;
    else if constexpr (std::is_same_v<Acc, u8>) return DType::boolean;
    else if constexpr (std::is_same_v<Acc, float>) return DType::float32;
    else return value;
  }

  static Acc identity() {
    constexpr bool fp = std::is_floating_point_v<T>;
    if constexpr (R == ReduceOp::sum || R == ReduceOp::any) {
      return Acc(0);
    } else if constexpr (R == ReduceOp::prod || R == ReduceOp::all) {
      return Acc(1);
    } else if constexpr (R == ReduceOp::min || R == ReduceOp::argmin) {
      if constexpr (fp) return std::numeric_limits<T>::infinity();
      else return std::numeric_limits<T>::max();
    } else {
      if constexpr (fp) return -std::numeric_limits<T>::infinity();
      else return std::numeric_limits<T>::lowest();
    }
  }
  // acc combined with a later value (or a later partial result).
  template <class V> static Acc combine(Acc acc, V v) {
    if constexpr (R == ReduceOp::sum) {
      if constexpr (std::is_integral_v<Acc>) return wrap_add(acc, static_cast<Acc>(v));
      else return acc + v;
    } else if constexpr (R == ReduceOp::prod) {
      if constexpr (std::is_same_v<Acc, u8>) return static_cast<u8>(acc & v);
      else if constexpr (std::is_integral_v<Acc>) return wrap_mul(acc, static_cast<Acc>(v));
      else return acc * v;
    } else if constexpr (R == ReduceOp::min) {
      return nan_min(acc, static_cast<Acc>(v));
    } else if constexpr (R == ReduceOp::max) {
      return nan_max(acc, static_cast<Acc>(v));
    } else if constexpr (R == ReduceOp::all) {
      return static_cast<u8>(acc & (v != V(0)));
    } else if constexpr (R == ReduceOp::any) {
      return static_cast<u8>(acc | (v != V(0)));
    } else {
      return acc;  // arg reductions use better()
    }
  }
  // A later value v replaces the arg reduction's best: strictly more extreme, or the first NaN.
  static bool better(T v, T best) {
    if constexpr (std::is_floating_point_v<T>) {
      bool nan = v != v && best == best;
      return (R == ReduceOp::argmin ? v < best : v > best) || nan;
    } else {
      return R == ReduceOp::argmin ? v < best : v > best;
    }
  }

  // Reduces contiguous values; for arg reductions idx gets the position within v.
  static Acc segment(const T* v, i64 n, i64& idx) {
    if constexpr (kArg) {
      T best = identity();
      idx = 0;
      for (i64 i = 0; i < n; ++i)
        if (better(v[i], best)) {
          best = v[i];
          idx = i;
        }
      return best;
    } else if constexpr (kPairwise) {
      return pairwise_sum(v, n);
    } else {
      Acc lane[8];
      for (auto& l : lane) l = identity();
      i64 i = 0;
      for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; ++j) lane[j] = combine(lane[j], v[i + j]);
      Acc s = combine(combine(combine(lane[0], lane[1]), combine(lane[2], lane[3])),
                      combine(combine(lane[4], lane[5]), combine(lane[6], lane[7])));
      for (; i < n; ++i) s = combine(s, v[i]);
      return s;
    }
  }
};

// Where the results of a reduction go: converted from the accumulator's dtype to the output's.
class ReductionOutput {
 public:
  ReductionOutput(const ReductionPlan& rp, DType acc_dtype)
      : acc_dtype_(acc_dtype), out_dtype_(rp.out_dtype), item_(itemsize(rp.out_dtype)),
        base_(static_cast<std::byte*>(rp.out) + rp.out_offset * static_cast<i64>(item_)), tmp_(kBlock) {}
  // out[first .. first + n) = values (registers of acc_dtype), n <= kBlock.
  void write(i64 first, const void* values, i64 n) {
    const void* src = values;
    if (acc_dtype_ != out_dtype_) {
      cast_values(acc_dtype_, values, out_dtype_, tmp_.data(), n);
      src = tmp_.data();
    }
    visit_store(out_dtype_, [&](auto ct, auto st, auto store) {
      using C = typename decltype(ct)::type;
      using S = typename decltype(st)::type;
      const C* s = static_cast<const C*>(src);
      S* d = reinterpret_cast<S*>(base_) + first;
      for (i64 i = 0; i < n; ++i) d[i] = store(s[i]);
    });
  }

 private:
  DType acc_dtype_, out_dtype_;
  std::size_t item_;
  std::byte* base_;
  std::vector<double> tmp_;
};

// Buffers results of consecutive outputs and writes them kBlock at a time.
template <class V> class ResultBuffer {
 public:
  explicit ResultBuffer(ReductionOutput& out) : out_(out) { values_.reserve(kBlock); }
  void add(i64 index, V v) {
    if (values_.empty()) first_ = index;
    values_.push_back(v);
    if (static_cast<i64>(values_.size()) == kBlock) flush();
  }
  void flush() {
    if (!values_.empty()) out_.write(first_, values_.data(), static_cast<i64>(values_.size()));
    values_.clear();
  }

 private:
  ReductionOutput& out_;
  i64 first_ = 0;
  std::vector<V> values_;
};

constexpr i64 kPairwiseRows = 16;  // rows summed in order before they join the cascade

template <ReduceOp R, class T>
void reduce(const Program& p, const ReductionPlan& rp, i64 out_begin, i64 out_end) {
  using Red = Reducer<R, T>;
  using Acc = typename Red::Acc;
  const DType value_dtype = p.plan->code[p.result].dtype;
  const DType acc_dtype = Red::kArg ? DType::int64 : Red::acc_dtype(value_dtype);
  ReductionOutput out(rp, acc_dtype);
  const i64 extent = rp.extent, inner = rp.inner;

  if (extent == 0) {
    ResultBuffer<std::conditional_t<Red::kArg, i64, Acc>> buf(out);
    for (i64 o = out_begin; o < out_end; ++o) {
      if constexpr (Red::kArg) buf.add(o, 0);
      else buf.add(o, Red::identity());
    }
    buf.flush();
    return;
  }
  Scratch& sc = begin_call(p, std::min<i64>(p.total, kBlock));

  if (inner == 1) {
    // Each output reduces `extent` consecutive values.
    ResultBuffer<std::conditional_t<Red::kArg, i64, Acc>> buf(out);
    if (extent <= kBlock / 2) {
      const i64 per_block = kBlock / extent;
      for (i64 o = out_begin; o < out_end; o += per_block) {
        i64 m = std::min(per_block, out_end - o);
        const T* v = static_cast<const T*>(eval_block(p, sc, o * extent, m * extent));
        for (i64 q = 0; q < m; ++q) {
          i64 idx = 0;
          Acc a = Red::segment(v + q * extent, extent, idx);
          if constexpr (Red::kArg) buf.add(o + q, idx);
          else buf.add(o + q, a);
        }
      }
    } else {
      for (i64 o = out_begin; o < out_end; ++o) {
        Acc acc = Red::identity();
        i64 best_idx = 0;
        Cascade<Acc> cascade(1);
        for (i64 r0 = 0; r0 < extent; r0 += kBlock) {
          i64 n = std::min(kBlock, extent - r0);
          const T* v = static_cast<const T*>(eval_block(p, sc, o * extent + r0, n));
          i64 idx = 0;
          Acc part = Red::segment(v, n, idx);
          if constexpr (Red::kArg) {
            if (Red::better(part, acc)) {
              acc = part;
              best_idx = r0 + idx;
            }
          } else if constexpr (Red::kPairwise) {
            cascade.push(&part);
          } else {
            acc = Red::combine(acc, part);
          }
        }
        if constexpr (Red::kArg) buf.add(o, best_idx);
        else if constexpr (Red::kPairwise) {
          cascade.total(&acc);
          buf.add(o, acc);
        } else {
          buf.add(o, acc);
        }
      }
    }
    buf.flush();
    return;
  }

  // inner > 1: tiles of up to kBlock outputs of one outer index, reduced row by row.
  std::vector<Acc> acc(kBlock);
  std::vector<i64> idx(Red::kArg ? kBlock : 0);
  for (i64 o = out_begin / inner; o * inner < out_end; ++o) {
    const i64 lo = std::max<i64>(out_begin - o * inner, 0), hi = std::min<i64>(out_end - o * inner, inner);
    for (i64 t0 = lo; t0 < hi; t0 += kBlock) {
      const i64 w = std::min(kBlock, hi - t0);
      // Whole rows of a narrow tile are consecutive: several per block.
      const i64 rows_per_block = (w == inner && inner <= kBlock / 2) ? kBlock / inner : 1;
      std::fill(acc.begin(), acc.begin() + w, Red::identity());
      if constexpr (Red::kArg) std::fill(idx.begin(), idx.begin() + w, i64{0});
      Cascade<Acc> cascade(Red::kPairwise ? w : 0);
      i64 rows_in_sum = 0;
      for (i64 r = 0; r < extent; r += rows_per_block) {
        const i64 m = std::min(rows_per_block, extent - r);
        const i64 first = (o * extent + r) * inner + t0;
        const T* v = static_cast<const T*>(eval_block(p, sc, first, m == 1 ? w : m * inner));
        for (i64 q = 0; q < m; ++q) {
          const T* row = v + q * inner;
          Acc* __restrict a = acc.data();
          if constexpr (Red::kArg) {
            for (i64 i = 0; i < w; ++i)
              if (Red::better(row[i], a[i])) {
                a[i] = row[i];
                idx[i] = r + q;
              }
          } else {
            for (i64 i = 0; i < w; ++i) a[i] = Red::combine(a[i], row[i]);
          }
          if constexpr (Red::kPairwise) {
            if (++rows_in_sum == kPairwiseRows) {
              cascade.push(a);
              std::fill(a, a + w, Acc(0));
              rows_in_sum = 0;
            }
          }
        }
      }
      if constexpr (Red::kPairwise) {
        if (rows_in_sum > 0) cascade.push(acc.data());
        cascade.total(acc.data());
      }
      if constexpr (Red::kArg) out.write(o * inner + t0, idx.data(), w);
      else out.write(o * inner + t0, acc.data(), w);
    }
  }
}

template <ReduceOp R> void reduce_op(const Program& p, const ReductionPlan& rp, i64 b, i64 e) {
  visit_compute(p.plan->code[p.result].dtype, [&](auto ct) {
    using T = typename decltype(ct)::type;
    reduce<R, T>(p, rp, b, e);
  });
}

}  // namespace

void interpret_elementwise(const ElementwisePlan& plan, std::int64_t begin, std::int64_t end) {
  if (!plan.output.handle) bad_plan("the output has no memory");
  const bool tiled = wants_tiles(plan);
  Program p = compile(plan, true, tiled);
  begin = std::max<i64>(begin, 0);
  end = std::min(end, p.total);
  if (begin >= end) return;
  Scratch& sc = begin_call(p, end - begin);
  auto finish = [&](const void* values, i64 start, i64 n) {
    if (p.direct_output) return;
    if (p.out_cast_slot >= 0) {
      void* tmp = sc.slot(p.out_cast_slot);
      cast_values(plan.code[p.result].dtype, values, p.out_dtype, tmp, n);
      values = tmp;
    }
    scatter(p, sc, values, start, n);
  };
  // Blocks end at row ends when rows are long: a row of a strided operand with stride 1 is then
  // read in place (in_place_run), a broadcast column is one value.
  const i64 last = p.ndim ? plan.shape[p.ndim - 1] : 1;
  const bool by_rows = p.needs_index && last >= kBlock / 4;
  auto linear = [&](i64 from, i64 to) {
    for (i64 start = from; start < to;) {
      i64 n = std::min(kBlock, to - start);
      if (by_rows) n = std::min(n, last - start % last);
      finish(eval_block(p, sc, start, n), start, n);
      start += n;
    }
  };
  if (!tiled) {
    linear(begin, end);
    return;
  }
  // The whole rows of the range in tiles of kTileRows x (kBlock / kTileRows), each operand read
  // and written along its own closer direction; partial rows at either end as linear blocks.
  constexpr i64 kTileRows = 32, kTileCols = kBlock / kTileRows;
  const i64 cols = plan.shape[1];
  const i64 row_begin = (begin + cols - 1) / cols, row_end = end / cols;
  if (row_begin >= row_end) {
    linear(begin, end);
    return;
  }
  linear(begin, row_begin * cols);
  for (i64 r0 = row_begin; r0 < row_end; r0 += kTileRows) {
    for (i64 c0 = 0; c0 < cols; c0 += kTileCols) {
      sc.tile = true;
      sc.r0 = r0;
      sc.c0 = c0;
      sc.tr = std::min(kTileRows, row_end - r0);
      sc.tc = std::min(kTileCols, cols - c0);
      finish(eval_tile(p, sc), 0, sc.tr * sc.tc);
      sc.tile = false;
    }
  }
  linear(row_end * cols, end);
}

void interpret_reduction(const ReductionPlan& plan, std::int64_t out_begin, std::int64_t out_end) {
  Program p = compile(plan.input, false);
  if (plan.outer < 0 || plan.extent < 0 || plan.inner < 0 || plan.outer * plan.extent * plan.inner != p.total)
    bad_plan(cat("reduction of [", plan.outer, ", ", plan.extent, ", ", plan.inner, "] over ", p.total, " elements"));
  out_begin = std::max<i64>(out_begin, 0);
  out_end = std::min(out_end, plan.outer * plan.inner);
  if (out_begin >= out_end) return;
  if (!plan.out) bad_plan("the reduction's output has no memory");
  switch (plan.op) {
    case ReduceOp::sum: reduce_op<ReduceOp::sum>(p, plan, out_begin, out_end); return;
    case ReduceOp::prod: reduce_op<ReduceOp::prod>(p, plan, out_begin, out_end); return;
    case ReduceOp::min: reduce_op<ReduceOp::min>(p, plan, out_begin, out_end); return;
    case ReduceOp::max: reduce_op<ReduceOp::max>(p, plan, out_begin, out_end); return;
    case ReduceOp::argmin: reduce_op<ReduceOp::argmin>(p, plan, out_begin, out_end); return;
    case ReduceOp::argmax: reduce_op<ReduceOp::argmax>(p, plan, out_begin, out_end); return;
    case ReduceOp::all: reduce_op<ReduceOp::all>(p, plan, out_begin, out_end); return;
    case ReduceOp::any: reduce_op<ReduceOp::any>(p, plan, out_begin, out_end); return;
  }
  bad_plan(cat("unknown reduce op ", static_cast<int>(plan.op)));
}

}  // namespace porta::detail
