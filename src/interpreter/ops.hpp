// The block interpreter's op math (the interpreter's counterpart of src/codegen/instr.cpp): dtypes
// and conversions of registers, and each operation of plan.hpp as one typed loop over a block.
//
// Registers hold bool as one byte 0/1 (a loaded byte is tested != 0), the integers as
// themselves (uint8 too is a u8 register: the ops tell it from bool by the instruction's dtype),
// float16 and bfloat16 as float32 values, float32 and float64 as themselves, complex64 and
// complex128 as base/complex.hpp's structs (as stored; 16-byte registers for complex128). As in
// the generated kernels (src/codegen_*), a float16/bfloat16 value is computed in float32 and
// rounded to its dtype after every operation that may leave it (plan.hpp's rounds_half_result).
// Integer arithmetic wraps (computed in unsigned); integer div is floor division and div or mod
// by zero gives 0; float -> integer casts saturate, NaN giving 0 (what CUDA's cvt.rzi and OpenCL's
// convert_*_sat do).
#pragma once

#include <porta/dtype.hpp>
#include <porta/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "base/complex.hpp"
#include "porta_backend/services.hpp"

namespace porta::detail::interp {

using i64 = std::int64_t;
using u64 = std::uint64_t;
using u8 = std::uint8_t;

constexpr i64 kBlock = kInterpreterBlock;

// The hot loops, compiled also for AVX-512 and AVX2 and picked once, when the library is loaded,
// for the CPU it runs on (GCC's function multi-versioning: target_clones, through an ifunc): x86-64
// builds otherwise target SSE2 only. What a clone computes is what the SSE2 code computes: its
// loops keep their order of operations (floating-point sums are not reordered, and
// src/CMakeLists.txt compiles the interpreter with -ffp-contract=off, so that no a * b + c
// becomes an FMA, which AVX-512 has), only more lanes of the same loop run at once. Elsewhere (other CPUs, other compilers, C libraries without ifunc)
// the attribute is empty; so it is under ThreadSanitizer and AddressSanitizer, whose instrumented
// ifunc resolvers run before the sanitizer's runtime is up (every test of a TSan build crashed at
// load).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__) && defined(__GLIBC__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define PORTA_INTERP_WIDE __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define PORTA_INTERP_WIDE
#endif

// The explicit SSE2/AVX2/AVX-512 paths (Philox's lanes, extreme values): GCC on x86-64, which
// takes intrinsics and gnu::target functions of any of them in one translation unit.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PORTA_INTERP_X86 1
// The widest of them this CPU runs, found once: 2 AVX-512, 1 AVX2, 0 SSE2 only.
int simd_level();
#else
#define PORTA_INTERP_X86 0
#endif

// Dtypes and conversions.

template <class T> struct Type { using type = T; };

inline bool is_half(DType t) { return t == DType::float16 || t == DType::bfloat16; }

// complex64 / complex128 registers: base/complex.hpp's structs (real part first, as stored), whose
// arithmetic and functions are base/complex.h's, the generated kernels' too (interpreter/complex.cpp).
template <class T> inline constexpr bool is_cx_v = std::is_same_v<T, porta_c64> || std::is_same_v<T, porta_c128>;
template <class T> struct CxReal { using type = T; };
template <> struct CxReal<porta_c64> { using type = float; };
template <> struct CxReal<porta_c128> { using type = double; };
// The real value of a register (a complex one's real part), as a double.
template <class S> double real_value(S v) {
  if constexpr (is_cx_v<S>) return static_cast<double>(v.re);
  else return static_cast<double>(v);
}

// Calls f(Type<C>{}) with C the register type of `t`.
template <class F> void visit_compute(DType t, F&& f) {
  switch (t) {
    case DType::boolean: f(Type<u8>{}); return;
    case DType::int32: f(Type<std::int32_t>{}); return;
    case DType::int64: f(Type<std::int64_t>{}); return;
    case DType::int8: f(Type<std::int8_t>{}); return;
    case DType::int16: f(Type<std::int16_t>{}); return;
    case DType::uint8: f(Type<u8>{}); return;
    case DType::uint16: f(Type<std::uint16_t>{}); return;
    case DType::uint32: f(Type<std::uint32_t>{}); return;
    case DType::uint64: f(Type<u64>{}); return;
    case DType::float16:
    case DType::bfloat16:
    case DType::float32: f(Type<float>{}); return;
    case DType::float64: f(Type<double>{}); return;
    case DType::complex64: f(Type<porta_c64>{}); return;
    case DType::complex128: f(Type<porta_c128>{}); return;
  }
  throw InvalidArgument(cat("porta internal error: dtype value ", static_cast<int>(t), " in a plan"));
}

// Round-to-odd float32 of a double: rounding that to float16 or bfloat16 then rounds only once.
float float_round_odd(double d);
// Rounds registers of a float16 / bfloat16 dtype to that dtype (the values stay float32).
void round_register(DType t, float* p, i64 n);

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
  if constexpr (is_cx_v<S> || is_cx_v<D>) {
    // complex -> real: the real part (NumPy's rule); -> bool: either part nonzero; real -> complex: (v, 0)
    if constexpr (is_cx_v<S> && is_cx_v<D>) {
      using R = typename CxReal<D>::type;
      return D{static_cast<R>(v.re), static_cast<R>(v.im)};
    } else if constexpr (is_cx_v<S>) {
      if constexpr (std::is_same_v<D, u8>) return static_cast<u8>(v.re != 0 || v.im != 0);
      else return convert<D>(v.re);
    } else {
      using R = typename CxReal<D>::type;
      return D{static_cast<R>(v), R(0)};
    }
  } else if constexpr (std::is_same_v<D, u8>)
    return v != S(0);
  else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<S>)
    return saturate<D>(v);
  else
    return static_cast<D>(v);
}

// dst (registers of dtype `to`) = cast of src (registers of dtype `from`).
void cast_values(DType from, const void* src, DType to, void* dst, i64 n);

// Calls f(Type<S>{}, load) with S the storage type of `t` and load(S) -> register value.
template <class F> void visit_storage(DType t, F&& f) {
  switch (t) {
    case DType::boolean: f(Type<u8>{}, [](u8 v) -> u8 { return v != 0; }); return;
    case DType::int32: f(Type<std::int32_t>{}, [](std::int32_t v) { return v; }); return;
    case DType::int64: f(Type<std::int64_t>{}, [](std::int64_t v) { return v; }); return;
    case DType::int8: f(Type<std::int8_t>{}, [](std::int8_t v) { return v; }); return;
    case DType::int16: f(Type<std::int16_t>{}, [](std::int16_t v) { return v; }); return;
    case DType::uint8: f(Type<u8>{}, [](u8 v) { return v; }); return;
    case DType::uint16: f(Type<std::uint16_t>{}, [](std::uint16_t v) { return v; }); return;
    case DType::uint32: f(Type<std::uint32_t>{}, [](std::uint32_t v) { return v; }); return;
    case DType::uint64: f(Type<u64>{}, [](u64 v) { return v; }); return;
    case DType::float16:
      f(Type<std::uint16_t>{}, [](std::uint16_t v) { return static_cast<float>(half::from_bits(v)); });
      return;
    case DType::bfloat16:
      f(Type<std::uint16_t>{}, [](std::uint16_t v) { return static_cast<float>(bfloat16::from_bits(v)); });
      return;
    case DType::float32: f(Type<float>{}, [](float v) { return v; }); return;
    case DType::float64: f(Type<double>{}, [](double v) { return v; }); return;
    case DType::complex64: f(Type<porta_c64>{}, [](porta_c64 v) { return v; }); return;
    case DType::complex128: f(Type<porta_c128>{}, [](porta_c128 v) { return v; }); return;
  }
  throw InvalidArgument(cat("porta internal error: dtype value ", static_cast<int>(t), " in a plan"));
}

// Calls f(Type<C>{}, Type<S>{}, store) with store(C) -> S, for registers of dtype `t`.
template <class F> void visit_store(DType t, F&& f) {
  switch (t) {
    case DType::boolean: f(Type<u8>{}, Type<u8>{}, [](u8 v) { return v; }); return;
    case DType::int32: f(Type<std::int32_t>{}, Type<std::int32_t>{}, [](std::int32_t v) { return v; }); return;
    case DType::int64: f(Type<std::int64_t>{}, Type<std::int64_t>{}, [](std::int64_t v) { return v; }); return;
    case DType::int8: f(Type<std::int8_t>{}, Type<std::int8_t>{}, [](std::int8_t v) { return v; }); return;
    case DType::int16: f(Type<std::int16_t>{}, Type<std::int16_t>{}, [](std::int16_t v) { return v; }); return;
    case DType::uint8: f(Type<u8>{}, Type<u8>{}, [](u8 v) { return v; }); return;
    case DType::uint16: f(Type<std::uint16_t>{}, Type<std::uint16_t>{}, [](std::uint16_t v) { return v; }); return;
    case DType::uint32: f(Type<std::uint32_t>{}, Type<std::uint32_t>{}, [](std::uint32_t v) { return v; }); return;
    case DType::uint64: f(Type<u64>{}, Type<u64>{}, [](u64 v) { return v; }); return;
    case DType::float16: f(Type<float>{}, Type<std::uint16_t>{}, [](float v) { return half(v).bits; }); return;
    case DType::bfloat16: f(Type<float>{}, Type<std::uint16_t>{}, [](float v) { return bfloat16(v).bits; }); return;
    case DType::float32: f(Type<float>{}, Type<float>{}, [](float v) { return v; }); return;
    case DType::float64: f(Type<double>{}, Type<double>{}, [](double v) { return v; }); return;
    case DType::complex64: f(Type<porta_c64>{}, Type<porta_c64>{}, [](porta_c64 v) { return v; }); return;
    case DType::complex128: f(Type<porta_c128>{}, Type<porta_c128>{}, [](porta_c128 v) { return v; }); return;
  }
  throw InvalidArgument(cat("porta internal error: dtype value ", static_cast<int>(t), " in a plan"));
}

// Register type equals storage type: an output can be written in place, and an input read in
// place (but bool, whose loads are tested != 0).
inline bool stored_as_computed(DType t) { return !is_half(t); }
inline bool loaded_as_stored(DType t) { return !is_half(t) && t != DType::boolean; }

// The operations, one typed loop each.

template <class O, class A, class F> void map1(O* __restrict o, const A* __restrict a, i64 n, F f) {
  for (i64 i = 0; i < n; ++i) o[i] = f(a[i]);
}
template <class O, class A, class F>
void map2(O* __restrict o, const A* __restrict a, const A* __restrict b, i64 n, F f) {
  for (i64 i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
}

// o = exp(a), or with `sigmoid` o = 1 / (1 + exp(-a)), float32 four at a time (interpreter/ops.cpp).
void exp_f32(float* o, const float* a, i64 n, bool sigmoid);

template <class T> using Unsigned = std::make_unsigned_t<T>;
// The unsigned type integer arithmetic of T wraps in: at least 32 bits, since C++ promotes
// narrower operands to int (where uint16's 65535 * 65535 would overflow).
template <class T> using Wide = std::conditional_t<(sizeof(T) < 4), std::uint32_t, Unsigned<T>>;

template <class T> T wrap_add(T a, T b) { return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b)); }
template <class T> T wrap_sub(T a, T b) { return static_cast<T>(static_cast<Wide<T>>(a) - static_cast<Wide<T>>(b)); }
template <class T> T wrap_mul(T a, T b) { return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b)); }

template <class T> T int_div(T a, T b) {  // floor division; x / 0 is 0; MIN / -1 wraps to MIN
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrap_sub(T(0), a);
    T q = static_cast<T>(a / b);
    if (a % b != 0 && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    return static_cast<T>(a / b);
  }
}
template <class T> T int_mod(T a, T b) {  // NumPy remainder: the sign of the divisor; x % 0 is 0
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return static_cast<T>(a % b);
  }
}
template <class T> T int_pow(T a, T b) {  // exact by squaring, wrapping; plan.hpp for b < 0
  if constexpr (std::is_signed_v<T>)
    if (b < 0) return a == 1 ? T(1) : a == -1 ? T((b & 1) ? -1 : 1) : T(0);
  Wide<T> base = static_cast<Wide<T>>(a), r = 1;
  Unsigned<T> e = static_cast<Unsigned<T>>(b);
  while (e) {
    if (e & 1u) r *= base;
    base *= base;
    e = static_cast<Unsigned<T>>(e >> 1);
  }
  return static_cast<T>(r);
}
template <class T> T shift_left(T a, T b) {  // NumPy's: a count outside [0, bits) gives 0
  constexpr auto bits = std::numeric_limits<Unsigned<T>>::digits;
  return static_cast<Unsigned<T>>(b) < bits ? static_cast<T>(static_cast<Wide<T>>(a) << b) : T(0);
}
template <class T> T shift_right(T a, T b) {  // arithmetic; a count outside [0, bits) gives 0 or -1 (unsigned: 0)
  constexpr auto bits = std::numeric_limits<Unsigned<T>>::digits;
  if (static_cast<Unsigned<T>>(b) < bits) return static_cast<T>(a >> b);
  if constexpr (std::is_signed_v<T>) return T(a < 0 ? -1 : 0);
  else return T(0);
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
template <class T> T float_floor_div(T a, T b) {  // NumPy floor_divide (npy_floor_divide)
  if (b == 0) return a / b;
  const T m = std::fmod(a, b);
  T d = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) d -= 1;
  if (d == 0) return std::copysign(T(0), a / b);
  T f = std::floor(d);
  return d - f > T(0.5) ? f + 1 : f;
}
template <class T> T nan_max(T a, T b) {
  if constexpr (is_cx_v<T>)
    return cx_max(a, b);
  else if constexpr (std::is_floating_point_v<T>)
    return (a > b || a != a) ? a : b;
  else
    return a > b ? a : b;
}
template <class T> T nan_min(T a, T b) {
  if constexpr (is_cx_v<T>)
    return cx_min(a, b);
  else if constexpr (std::is_floating_point_v<T>)
    return (a < b || a != a) ? a : b;
  else
    return a < b ? a : b;
}

const char* op_name(Op op);
[[noreturn]] void unsupported(Op op, DType t);

// The complex ops (interpreter/complex.cpp): unary and binary ops of one complex type, comparisons
// and predicates giving bool, and the parts (real, imag, abs) giving the real type.
void run_unary_cx(Op op, DType t, porta_c64* o, const porta_c64* a, i64 n);
void run_unary_cx(Op op, DType t, porta_c128* o, const porta_c128* a, i64 n);
void run_binary_cx(Op op, DType t, porta_c64* o, const porta_c64* a, const porta_c64* b, i64 n);
void run_binary_cx(Op op, DType t, porta_c128* o, const porta_c128* a, const porta_c128* b, i64 n);
void run_compare_cx(Op op, u8* o, const porta_c64* a, const porta_c64* b, i64 n);
void run_compare_cx(Op op, u8* o, const porta_c128* a, const porta_c128* b, i64 n);
void run_predicate_cx(Op op, u8* o, const porta_c64* a, i64 n);
void run_predicate_cx(Op op, u8* o, const porta_c128* a, i64 n);
// real, imag, abs of complex registers of dtype `from` into registers of its real dtype; of real
// registers (real: a copy, imag: zeros) where `from` is real.
void run_part(Op op, DType from, const void* a, void* o, i64 n);

// Unary ops whose operand and result share the register type T.
template <class T> void run_unary(Op op, DType t, T* o, const T* a, i64 n) {
  if constexpr (is_cx_v<T>) {
    run_unary_cx(op, t, o, a, n);
    return;
  } else if constexpr (std::is_floating_point_v<T>) {
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
      case Op::acos: map1(o, a, n, [](T x) { return std::acos(x); }); return;
      case Op::asin: map1(o, a, n, [](T x) { return std::asin(x); }); return;
      case Op::atan: map1(o, a, n, [](T x) { return std::atan(x); }); return;
      case Op::acosh: map1(o, a, n, [](T x) { return std::acosh(x); }); return;
      case Op::asinh: map1(o, a, n, [](T x) { return std::asinh(x); }); return;
      case Op::atanh: map1(o, a, n, [](T x) { return std::atanh(x); }); return;
      case Op::sinh: map1(o, a, n, [](T x) { return std::sinh(x); }); return;
      case Op::cosh: map1(o, a, n, [](T x) { return std::cosh(x); }); return;
      case Op::log2: map1(o, a, n, [](T x) { return std::log2(x); }); return;
      case Op::log10: map1(o, a, n, [](T x) { return std::log10(x); }); return;
      case Op::sigmoid:
        if constexpr (std::is_same_v<T, float>) exp_f32(o, a, n, true);
        else map1(o, a, n, [](T x) { return T(1) / (T(1) + std::exp(-x)); });
        return;
      case Op::erf: map1(o, a, n, [](T x) { return std::erf(x); }); return;
      case Op::floor: map1(o, a, n, [](T x) { return std::floor(x); }); return;
      case Op::ceil: map1(o, a, n, [](T x) { return std::ceil(x); }); return;
      case Op::round: map1(o, a, n, [](T x) { return std::nearbyint(x); }); return;
      case Op::trunc: map1(o, a, n, [](T x) { return std::trunc(x); }); return;
      default: break;
    }
  } else if (std::is_same_v<T, u8> && (t == DType::boolean || op == Op::logical_not)) {  // bool, not uint8
    switch (op) {
      case Op::neg:
      case Op::abs:
      case Op::sign:
      case Op::square:
      case Op::floor:
      case Op::ceil:
      case Op::round:
      case Op::trunc: map1(o, a, n, [](u8 x) { return x; }); return;
      case Op::bit_not:
      case Op::logical_not: map1(o, a, n, [](u8 x) -> u8 { return x == 0; }); return;
      default: break;
    }
  } else {
    switch (op) {
      case Op::neg: map1(o, a, n, [](T x) { return wrap_sub(T(0), x); }); return;
      case Op::abs:
        if constexpr (std::is_signed_v<T>) map1(o, a, n, [](T x) { return x < 0 ? wrap_sub(T(0), x) : x; });
        else map1(o, a, n, [](T x) { return x; });
        return;
      case Op::sign:
        if constexpr (std::is_signed_v<T>) map1(o, a, n, [](T x) { return static_cast<T>((x > 0) - (x < 0)); });
        else map1(o, a, n, [](T x) { return static_cast<T>(x > 0); });
        return;
      case Op::square: map1(o, a, n, [](T x) { return wrap_mul(x, x); }); return;
      case Op::floor:
      case Op::ceil:
      case Op::round:
      case Op::trunc: map1(o, a, n, [](T x) { return x; }); return;
      case Op::bit_not: map1(o, a, n, [](T x) { return static_cast<T>(~x); }); return;
      default: break;
    }
  }
  unsupported(op, t);
}

// Binary ops whose operands and result share the register type T.
template <class T> void run_binary(Op op, DType t, T* o, const T* a, const T* b, i64 n) {
  if constexpr (is_cx_v<T>) {
    run_binary_cx(op, t, o, a, b, n);
    return;
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case Op::add: map2(o, a, b, n, [](T x, T y) { return x + y; }); return;
      case Op::sub: map2(o, a, b, n, [](T x, T y) { return x - y; }); return;
      case Op::mul: map2(o, a, b, n, [](T x, T y) { return x * y; }); return;
      case Op::div: map2(o, a, b, n, [](T x, T y) { return x / y; }); return;
      case Op::mod: map2(o, a, b, n, [](T x, T y) { return float_mod(x, y); }); return;
      case Op::floor_div: map2(o, a, b, n, [](T x, T y) { return float_floor_div(x, y); }); return;
      case Op::pow: map2(o, a, b, n, [](T x, T y) { return std::pow(x, y); }); return;
      case Op::maximum: map2(o, a, b, n, [](T x, T y) { return nan_max(x, y); }); return;
      case Op::minimum: map2(o, a, b, n, [](T x, T y) { return nan_min(x, y); }); return;
      case Op::atan2: map2(o, a, b, n, [](T x, T y) { return std::atan2(x, y); }); return;
      case Op::hypot: map2(o, a, b, n, [](T x, T y) { return std::hypot(x, y); }); return;
      case Op::copysign: map2(o, a, b, n, [](T x, T y) { return std::copysign(x, y); }); return;
      case Op::nextafter: map2(o, a, b, n, [](T x, T y) { return std::nextafter(x, y); }); return;
      default: break;
    }
  } else if (std::is_same_v<T, u8> && t == DType::boolean) {  // bool, not uint8
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
      case Op::floor_div: map2(o, a, b, n, [](T x, T y) { return int_div(x, y); }); return;
      case Op::pow: map2(o, a, b, n, [](T x, T y) { return int_pow(x, y); }); return;
      case Op::maximum: map2(o, a, b, n, [](T x, T y) { return nan_max(x, y); }); return;
      case Op::minimum: map2(o, a, b, n, [](T x, T y) { return nan_min(x, y); }); return;
      case Op::bit_and: map2(o, a, b, n, [](T x, T y) { return static_cast<T>(x & y); }); return;
      case Op::bit_or: map2(o, a, b, n, [](T x, T y) { return static_cast<T>(x | y); }); return;
      case Op::bit_xor: map2(o, a, b, n, [](T x, T y) { return static_cast<T>(x ^ y); }); return;
      case Op::shl: map2(o, a, b, n, [](T x, T y) { return shift_left(x, y); }); return;
      case Op::shr: map2(o, a, b, n, [](T x, T y) { return shift_right(x, y); }); return;
      default: break;
    }
  }
  unsupported(op, t);
}

template <class T> void run_compare(Op op, u8* o, const T* a, const T* b, i64 n) {
  if constexpr (is_cx_v<T>) {
    run_compare_cx(op, o, a, b, n);
    return;
  } else
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
  if constexpr (is_cx_v<T>) {
    run_predicate_cx(op, o, a, n);
    return;
  } else if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case Op::isnan: map1(o, a, n, [](T x) -> u8 { return x != x; }); return;
      case Op::isinf: map1(o, a, n, [](T x) -> u8 { return std::fabs(x) == std::numeric_limits<T>::infinity(); }); return;
      case Op::isfinite: map1(o, a, n, [](T x) -> u8 { return std::fabs(x) < std::numeric_limits<T>::infinity(); }); return;
      case Op::signbit: map1(o, a, n, [](T x) -> u8 { return std::signbit(x); }); return;
      default: break;
    }
  } else if (op == Op::signbit) {
    if constexpr (std::is_signed_v<T>) map1(o, a, n, [](T x) -> u8 { return x < 0; });
    else std::fill(o, o + n, u8{0});
    return;
  } else {
    u8 v = op == Op::isfinite;
    std::fill(o, o + n, v);
    return;
  }
  unsupported(op, DType::boolean);
}

void run_logical(Op op, u8* o, const u8* a, const u8* b, i64 n);

template <class T> void run_where(T* __restrict o, const u8* __restrict a, const T* __restrict b, const T* __restrict c, i64 n) {
  for (i64 i = 0; i < n; ++i) o[i] = a[i] ? b[i] : c[i];
}

template <class T> void run_fma(T* __restrict o, const T* __restrict a, const T* __restrict b, const T* __restrict c, i64 n) {
  if constexpr (is_cx_v<T>) {  // never planned for complex (arange and random build it for real dtypes)
    (void)o, (void)a, (void)b, (void)c, (void)n;
    unsupported(Op::fma, std::is_same_v<T, porta_c64> ? DType::complex64 : DType::complex128);
  } else if constexpr (std::is_floating_point_v<T>) {
    for (i64 i = 0; i < n; ++i) o[i] = std::fma(a[i], b[i], c[i]);
  } else if constexpr (std::is_same_v<T, u8>) {
    for (i64 i = 0; i < n; ++i) o[i] = static_cast<u8>((a[i] & b[i]) | c[i]);
  } else {
    for (i64 i = 0; i < n; ++i) o[i] = wrap_add(wrap_mul(a[i], b[i]), c[i]);
  }
}

// uniform / normal: Philox values of the elements whose linear indices are index[0, n), or with
// first >= 0 (index then unread) of the elements first .. first + n - 1.
void run_random(Op op, DType t, void* o, const i64* index, i64 first, u64 seed, u64 stream, i64 n);

}  // namespace porta::detail::interp
