// The block interpreter's complex64 / complex128 ops (interpreter/ops.hpp): one loop per op over
// base/complex.h's functions, which the generated kernels embed too.
#include "interpreter/ops.hpp"

namespace porta::detail::interp {

namespace {

// base/complex.h's functions of one complex type, by name.
template <class C> struct Cx;
#define PORTA_CX_TABLE(C, S)                                                                       \
  template <> struct Cx<C> {                                                                       \
    using R = decltype(C{}.re);                                                                    \
    static C neg(C a) { return porta_neg_##S(a); }                                                 \
    static C conj(C a) { return porta_conj_##S(a); }                                               \
    static C square(C a) { return porta_square_##S(a); }                                           \
    static C sign(C a) { return porta_sign_##S(a); }                                               \
    static C rint(C a) { return porta_rint_##S(a); }                                               \
    static C exp(C a) { return porta_exp_##S(a); }                                                 \
    static C log(C a) { return porta_log_##S(a); }                                                 \
    static C log2(C a) { return porta_log2_##S(a); }                                               \
    static C log10(C a) { return porta_log10_##S(a); }                                             \
    static C log1p(C a) { return porta_log1p_##S(a); }                                             \
    static C expm1(C a) { return porta_expm1_##S(a); }                                             \
    static C sqrt(C a) { return porta_sqrt_##S(a); }                                               \
    static C sin(C a) { return porta_sin_##S(a); }                                                 \
    static C cos(C a) { return porta_cos_##S(a); }                                                 \
    static C tan(C a) { return porta_tan_##S(a); }                                                 \
    static C sinh(C a) { return porta_sinh_##S(a); }                                               \
    static C cosh(C a) { return porta_cosh_##S(a); }                                               \
    static C tanh(C a) { return porta_tanh_##S(a); }                                               \
    static C asin(C a) { return porta_asin_##S(a); }                                               \
    static C acos(C a) { return porta_acos_##S(a); }                                               \
    static C atan(C a) { return porta_atan_##S(a); }                                               \
    static C asinh(C a) { return porta_asinh_##S(a); }                                             \
    static C acosh(C a) { return porta_acosh_##S(a); }                                             \
    static C atanh(C a) { return porta_atanh_##S(a); }                                             \
    static C add(C a, C b) { return porta_add_##S(a, b); }                                         \
    static C sub(C a, C b) { return porta_sub_##S(a, b); }                                         \
    static C mul(C a, C b) { return porta_mul_##S(a, b); }                                         \
    static C div(C a, C b) { return porta_div_##S(a, b); }                                         \
    static C pow(C a, C b) { return porta_pow_##S(a, b); }                                         \
    static C max(C a, C b) { return porta_max_##S(a, b); }                                         \
    static C min(C a, C b) { return porta_min_##S(a, b); }                                         \
    static bool eq(C a, C b) { return porta_eq_##S(a, b); }                                        \
    static bool ne(C a, C b) { return porta_ne_##S(a, b); }                                        \
    static bool lt(C a, C b) { return porta_lt_##S(a, b); }                                        \
    static bool le(C a, C b) { return porta_le_##S(a, b); }                                        \
    static bool gt(C a, C b) { return porta_gt_##S(a, b); }                                        \
    static bool ge(C a, C b) { return porta_ge_##S(a, b); }                                        \
    static bool isnan(C a) { return porta_isnan_##S(a); }                                          \
    static bool isinf(C a) { return porta_isinf_##S(a); }                                          \
    static bool isfinite(C a) { return porta_isfinite_##S(a); }                                    \
    static R abs(C a) { return porta_abs_##S(a); }                                                 \
  };
PORTA_CX_TABLE(porta_c64, c64)
PORTA_CX_TABLE(porta_c128, c128)
#undef PORTA_CX_TABLE

template <class C> DType dtype_of_register() { return std::is_same_v<C, porta_c64> ? DType::complex64 : DType::complex128; }

template <class C> void unary(Op op, DType t, C* o, const C* a, i64 n) {
  using X = Cx<C>;
  switch (op) {
    case Op::neg: map1(o, a, n, X::neg); return;
    case Op::conj: map1(o, a, n, X::conj); return;
    case Op::square: map1(o, a, n, X::square); return;
    case Op::sign: map1(o, a, n, X::sign); return;
    case Op::round: map1(o, a, n, X::rint); return;
    case Op::exp: map1(o, a, n, X::exp); return;
    case Op::log: map1(o, a, n, X::log); return;
    case Op::log2: map1(o, a, n, X::log2); return;
    case Op::log10: map1(o, a, n, X::log10); return;
    case Op::log1p: map1(o, a, n, X::log1p); return;
    case Op::expm1: map1(o, a, n, X::expm1); return;
    case Op::sqrt: map1(o, a, n, X::sqrt); return;
    case Op::sin: map1(o, a, n, X::sin); return;
    case Op::cos: map1(o, a, n, X::cos); return;
    case Op::tan: map1(o, a, n, X::tan); return;
    case Op::sinh: map1(o, a, n, X::sinh); return;
    case Op::cosh: map1(o, a, n, X::cosh); return;
    case Op::tanh: map1(o, a, n, X::tanh); return;
    case Op::asin: map1(o, a, n, X::asin); return;
    case Op::acos: map1(o, a, n, X::acos); return;
    case Op::atan: map1(o, a, n, X::atan); return;
    case Op::asinh: map1(o, a, n, X::asinh); return;
    case Op::acosh: map1(o, a, n, X::acosh); return;
    case Op::atanh: map1(o, a, n, X::atanh); return;
    default: break;
  }
  unsupported(op, t);
}

template <class C> void binary(Op op, DType t, C* o, const C* a, const C* b, i64 n) {
  using X = Cx<C>;
  switch (op) {
    case Op::add: map2(o, a, b, n, X::add); return;
    case Op::sub: map2(o, a, b, n, X::sub); return;
    case Op::mul: map2(o, a, b, n, X::mul); return;
    case Op::div: map2(o, a, b, n, X::div); return;
    case Op::pow: map2(o, a, b, n, X::pow); return;
    case Op::maximum: map2(o, a, b, n, X::max); return;
    case Op::minimum: map2(o, a, b, n, X::min); return;
    default: break;
  }
  unsupported(op, t);
}

template <class C> void compare(Op op, u8* o, const C* a, const C* b, i64 n) {
  using X = Cx<C>;
  auto f = [&](auto g) { map2(o, a, b, n, [g](C x, C y) -> u8 { return g(x, y); }); };
  switch (op) {
    case Op::eq: f(X::eq); return;
    case Op::ne: f(X::ne); return;
    case Op::lt: f(X::lt); return;
    case Op::le: f(X::le); return;
    case Op::gt: f(X::gt); return;
    case Op::ge: f(X::ge); return;
    default: break;
  }
  unsupported(op, dtype_of_register<C>());
}

template <class C> void predicate(Op op, u8* o, const C* a, i64 n) {
  using X = Cx<C>;
  auto f = [&](auto g) { map1(o, a, n, [g](C x) -> u8 { return g(x); }); };
  switch (op) {
    case Op::isnan: f(X::isnan); return;
    case Op::isinf: f(X::isinf); return;
    case Op::isfinite: f(X::isfinite); return;
    default: break;
  }
  unsupported(op, dtype_of_register<C>());
}

}  // namespace

void run_unary_cx(Op op, DType t, porta_c64* o, const porta_c64* a, i64 n) { unary(op, t, o, a, n); }
void run_unary_cx(Op op, DType t, porta_c128* o, const porta_c128* a, i64 n) { unary(op, t, o, a, n); }
void run_binary_cx(Op op, DType t, porta_c64* o, const porta_c64* a, const porta_c64* b, i64 n) { binary(op, t, o, a, b, n); }
void run_binary_cx(Op op, DType t, porta_c128* o, const porta_c128* a, const porta_c128* b, i64 n) { binary(op, t, o, a, b, n); }
void run_compare_cx(Op op, u8* o, const porta_c64* a, const porta_c64* b, i64 n) { compare(op, o, a, b, n); }
void run_compare_cx(Op op, u8* o, const porta_c128* a, const porta_c128* b, i64 n) { compare(op, o, a, b, n); }
void run_predicate_cx(Op op, u8* o, const porta_c64* a, i64 n) { predicate(op, o, a, n); }
void run_predicate_cx(Op op, u8* o, const porta_c128* a, i64 n) { predicate(op, o, a, n); }

void run_part(Op op, DType from, const void* a, void* o, i64 n) {
  visit_compute(from, [&](auto ct) {
    using C = typename decltype(ct)::type;
    const C* s = static_cast<const C*>(a);
    if constexpr (is_cx_v<C>) {
      using R = typename CxReal<C>::type;
      R* d = static_cast<R*>(o);
      if (op == Op::real) map1(d, s, n, [](C x) { return x.re; });
      else if (op == Op::imag) map1(d, s, n, [](C x) { return x.im; });
      else if (op == Op::abs) map1(d, s, n, Cx<C>::abs);
      else unsupported(op, from);
    } else {
      C* d = static_cast<C*>(o);
      if (op == Op::real) std::copy(s, s + n, d);
      else if (op == Op::imag) std::fill(d, d + n, C{});
      else unsupported(op, from);
    }
  });
}

}  // namespace porta::detail::interp
