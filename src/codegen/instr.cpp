// Instructions to source text: one statement per instruction, with the semantics of plan.hpp.
#include <cstdint>
#include <stdexcept>

#include "codegen/codegen.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {

std::string csuffix(DType t) { return t == DType::complex128 ? "c128" : "c64"; }

namespace {


std::string fsuffix(DType t) { return t == DType::float64 ? "f64" : "f32"; }

// The suffix of an integer dtype's helpers in the prelude (porta_mod_i8 ... porta_shr_u64).
const char* int_suffix(DType t) {
  switch (t) {
    case DType::int8: return "i8";
    case DType::int16: return "i16";
    case DType::int32: return "i32";
    case DType::uint8: return "u8";
    case DType::uint16: return "u16";
    case DType::uint32: return "u32";
    case DType::uint64: return "u64";
    default: return "i64";
  }
}

// Integers narrower than int: C computes them in int, so results are converted back.
bool narrow_int(DType t) { return is_integral(t) && itemsize(t) < 4; }

// The C / OpenCL C function that computes `op` of one floating operand (the scalar and the vector
// forms, CUDA's with its float suffix); nullptr for the other ops.
const char* math_function(Op op) {
  switch (op) {
    case Op::exp: return "exp";
    case Op::log: return "log";
    case Op::log1p: return "log1p";
    case Op::expm1: return "expm1";
    case Op::sqrt: return "sqrt";
    case Op::rsqrt: return "rsqrt";
    case Op::sin: return "sin";
    case Op::cos: return "cos";
    case Op::tan: return "tan";
    case Op::tanh: return "tanh";
    case Op::acos: return "acos";
    case Op::asin: return "asin";
    case Op::atan: return "atan";
    case Op::acosh: return "acosh";
    case Op::asinh: return "asinh";
    case Op::atanh: return "atanh";
    case Op::sinh: return "sinh";
    case Op::cosh: return "cosh";
    case Op::log2: return "log2";
    case Op::log10: return "log10";
    case Op::erf: return "erf";
    case Op::floor: return "floor";
    case Op::ceil: return "ceil";
    case Op::round: return "rint";  // half to even
    case Op::trunc: return "trunc";
    default: return nullptr;
  }
}

// The same for the math functions of two floating operands.
const char* math_function2(Op op) {
  switch (op) {
    case Op::atan2: return "atan2";
    case Op::hypot: return "hypot";
    case Op::copysign: return "copysign";
    case Op::nextafter: return "nextafter";
    default: return nullptr;
  }
}

// base/complex.h's suffix of a complex dtype's functions.

std::string unary(const DialectText& d, const Instr& in, DType src, const std::string& a);

// Unary ops with a complex operand or result: base/complex.h's functions (porta_<op>_c64 ...).
std::string complex_unary(const DialectText& d, const Instr& in, DType src, const std::string& a) {
  const DType t = in.dtype;
  switch (in.op) {
    case Op::cast: {
      if (is_complex(t)) {
        const std::string rt = d.compute_type(real_dtype(t));
        if (is_complex(src)) return src == t ? a : cat("porta_c_", csuffix(t), "((", rt, ")(", a, ").re, (", rt, ")(", a, ").im)");
        return cat("porta_c_", csuffix(t), "((", rt, ")(", a, "), (", rt, ")0)");
      }
      // complex -> bool: either part nonzero; -> any other real dtype: the real part's cast (NumPy).
      if (t == DType::boolean) return cat("(porta_nonzero_", csuffix(src), "(", a, ") != 0)");
      return unary(d, in, real_dtype(src), cat("(", a, ").re"));
    }
    case Op::real: return is_complex(src) ? cat("(", a, ").re") : a;
    case Op::imag: return is_complex(src) ? cat("(", a, ").im") : d.literal(0, t);
    case Op::conj: return is_complex(src) ? cat("porta_conj_", csuffix(src), "(", a, ")") : a;
    case Op::abs: return cat("porta_abs_", csuffix(src), "(", a, ")");
    case Op::isnan: case Op::isinf: case Op::isfinite:
      return cat("(porta_", in.op == Op::isnan ? "isnan" : in.op == Op::isinf ? "isinf" : "isfinite", "_", csuffix(src), "(", a, ") != 0)");
    case Op::neg: return cat("porta_neg_", csuffix(t), "(", a, ")");
    case Op::sign: return cat("porta_sign_", csuffix(t), "(", a, ")");
    case Op::square: return cat("porta_square_", csuffix(t), "(", a, ")");
    case Op::round: return cat("porta_rint_", csuffix(t), "(", a, ")");
    default:
      if (const char* f = math_function(in.op)) return cat("porta_", f, "_", csuffix(t), "(", a, ")");
      break;
  }
  throw std::logic_error("codegen: not a complex unary op");
}

std::string unary(const DialectText& d, const Instr& in, DType src, const std::string& a) {
  DType t = in.dtype;
  if (is_complex(src) || is_complex(t)) return complex_unary(d, in, src, a);
  std::string ct = d.compute_type(t);
  auto fn = [&](const char* f) { return cat(d.math(f, t), "(", a, ")"); };
  if (const char* f = math_function(in.op)) return fn(f);
  switch (in.op) {
    case Op::cast: {
      if (t == DType::boolean) return is_floating(src) ? cat("((", a, ") != ", d.literal(0, src), ")") : cat("((", a, ") != 0)");
      // float -> integer saturates, NaN giving 0 (plan.hpp): a C cast leaves that undefined
      // (x86's cvttss2si gives INT_MIN for all of them), so say it in each dialect's own words.
      if (is_floating(src) && is_integral(t)) {
        if (d.cuda()) {
          const std::string from = src == DType::float64 ? "__double" : "__float";
          std::string c;
          switch (t) {
            // cvt.rzi saturates, but gives INT64_MIN for NaN from float64 or into int64 (PTX ISA).
            case DType::int32: c = cat(from, "2int_rz(", a, ")"); break;
            case DType::int64: c = cat(from, "2ll_rz(", a, ")"); break;
            case DType::uint32: c = cat(from, "2uint_rz(", a, ")"); break;  // negative gives 0
            case DType::uint64: c = cat(from, "2ull_rz(", a, ")"); break;
            default: {  // the narrow ones: int32's saturated value, clamped to the type's limits
              const IntInfo lim = iinfo(t);
              c = cat("(", ct, ")porta_clamp_i32(", from, "2int_rz(", a, "), ", lim.min, ", ", lim.max, ")");
            }
          }
          return cat("(isnan(", a, ") ? (", ct, ")0 : ", c, ")");
        }
        // OpenCL's _sat conversions give 0 for NaN by the spec, but NVIDIA's driver gives the
        // minimum (seen on the H200, driver 580): test NaN explicitly there too.
        return cat("(isnan(", a, ") ? (", ct, ")0 : convert_", ct, "_sat(", a, "))");
      }
      std::string v = cat("(", ct, ")(", a, ")");
      // From float64, round to odd in float32 first so that the value is rounded only once.
      if ((t == DType::float16 || t == DType::bfloat16) && src == DType::float64) v = cat("porta_odd_f32(", a, ")");
      if (t == DType::float16) return cat("porta_round_h(", v, ")");
      if (t == DType::bfloat16) return cat("porta_round_bf(", v, ")");
      return v;
    }
    // Narrow and unsigned integers: C promotes char and short to int, so the value is converted
    // back (wrapping, as NumPy: -(uint8)1 is 255, abs(int8 -128) is -128); no test of an
    // unsigned value against 0, which compilers warn about.
    case Op::neg: return narrow_int(t) ? cat("((", ct, ")(-(", a, ")))") : cat("(-(", a, "))");
    case Op::abs:
      if (is_floating(t)) return fn("fabs");
      if (is_unsigned_integer(t)) return a;
      return narrow_int(t) ? cat("((", ct, ")((", a, ") < 0 ? -(", a, ") : (", a, ")))") : cat("((", a, ") < 0 ? -(", a, ") : (", a, "))");
    case Op::sign:
      if (is_floating(t)) return cat("(isnan(", a, ") ? (", a, ") : (", ct, ")(((", a, ") > 0) - ((", a, ") < 0)))");
      if (is_unsigned_integer(t)) return cat("(", ct, ")((", a, ") > 0)");
      return cat("(", ct, ")(((", a, ") > 0) - ((", a, ") < 0))");
    case Op::square:
      if (narrow_int(t)) return cat("((", ct, ")((porta_u32)(", a, ") * (porta_u32)(", a, ")))");  // no int overflow (uint16)
      return cat("((", a, ") * (", a, "))");
    case Op::sigmoid:
      return cat("(", d.literal(1, t), " / (", d.literal(1, t), " + ", d.math("exp", t), "(-(", a, "))))");
    case Op::isnan: return is_floating(src) ? cat("(isnan(", a, ") != 0)") : "false";
    case Op::isinf: return is_floating(src) ? cat("(", d.cuda() ? "isinf" : "isinf", "(", a, ") != 0)") : "false";
    case Op::isfinite: return is_floating(src) ? cat("(", "isfinite", "(", a, ") != 0)") : "true";
    case Op::signbit:
      if (is_floating(src)) return cat("(signbit(", a, ") != 0)");
      return src == DType::boolean || is_unsigned_integer(src) ? "false" : cat("((", a, ") < 0)");
    case Op::logical_not: return cat("(!(", a, "))");
    case Op::bit_not:
      if (t == DType::boolean) return cat("(!(", a, "))");
      return narrow_int(t) ? cat("((", ct, ")(~(", a, ")))") : cat("(~(", a, "))");
    case Op::real: case Op::conj: return a;  // of a real value
    case Op::imag: return d.literal(0, t);
    default: break;
  }
  throw std::logic_error("codegen: not a unary op");
}

// An op of a value with itself (clip(x, x, hi), x == x): the answer without comparing the value
// with itself, which compilers warn about ("self-comparison always evaluates to false"); floats
// keep NaN's answers. Empty where the general form has no such comparison.
std::string self_binary(Op op, DType src, const std::string& a) {
  const bool fl = is_floating(src);
  const std::string nan = cat("(isnan(", a, ") != 0)"), number = cat("(isnan(", a, ") == 0)");
  switch (op) {
    case Op::maximum: case Op::minimum: return a;  // NaN stays NaN
    case Op::eq: case Op::le: case Op::ge: return fl ? number : "true";
    case Op::ne: return fl ? nan : "false";
    case Op::lt: case Op::gt: return "false";
    case Op::logical_xor: return "false";
    case Op::bit_xor: return src == DType::boolean ? "false" : "";
    default: return "";
  }
}

std::string binary(const DialectText& d, const Instr& in, DType src, const std::string& a, const std::string& b) {
  DType t = in.dtype;
  if (is_complex(src)) {  // base/complex.h: arithmetic, NumPy's lexicographic order and its max/min
    const char* f = nullptr;
    switch (in.op) {
      case Op::add: f = "add"; break;
      case Op::sub: f = "sub"; break;
      case Op::mul: f = "mul"; break;
      case Op::div: f = "div"; break;
      case Op::pow: f = "pow"; break;
      case Op::maximum: f = "max"; break;
      case Op::minimum: f = "min"; break;
      case Op::eq: f = "eq"; break;
      case Op::ne: f = "ne"; break;
      case Op::lt: f = "lt"; break;
      case Op::le: f = "le"; break;
      case Op::gt: f = "gt"; break;
      case Op::ge: f = "ge"; break;
      default: throw std::logic_error("codegen: not a complex binary op");
    }
    std::string call = cat("porta_", f, "_", csuffix(src), "(", a, ", ", b, ")");
    return t == DType::boolean ? cat("(", call, " != 0)") : call;
  }
  if (a == b) {
    std::string same = self_binary(in.op, src, a);
    if (!same.empty()) return same;
  }
  auto infix = [&](const char* op) { return cat("((", a, ") ", op, " (", b, "))"); };
  // A narrow integer's arithmetic is int's (C's promotion), converted back: it wraps.
  const std::string ct = d.compute_type(t);
  auto narrow = [&](const std::string& e) { return narrow_int(t) ? cat("((", ct, ")", e, ")") : e; };
  if (const char* f = math_function2(in.op)) return cat(d.math(f, t), "(", a, ", ", b, ")");
  switch (in.op) {
    case Op::add: return narrow(infix("+"));
    case Op::sub: return narrow(infix("-"));
    case Op::mul:  // uint16's 65535 * 65535 overflows int: multiply as unsigned
      return narrow_int(t) ? cat("((", ct, ")((porta_u32)(", a, ") * (porta_u32)(", b, ")))") : infix("*");
    case Op::div: return infix("/");
    case Op::mod:
      if (is_floating(t)) return cat("porta_mod_", fsuffix(t), "(", a, ", ", b, ")");
      return cat("porta_mod_", int_suffix(t), "(", a, ", ", b, ")");
    case Op::floor_div:
      if (is_floating(t)) return cat("porta_fdiv_", fsuffix(t), "(", a, ", ", b, ")");
      return cat("porta_fdiv_", int_suffix(t), "(", a, ", ", b, ")");
    case Op::pow:
      if (is_floating(t)) return cat(d.math("pow", t), "(", a, ", ", b, ")");
      return cat("porta_pow_", int_suffix(t), "(", a, ", ", b, ")");
    case Op::maximum:
      if (is_floating(t)) return cat("porta_max_", fsuffix(t), "(", a, ", ", b, ")");
      return cat("((", a, ") > (", b, ") ? (", a, ") : (", b, "))");
    case Op::minimum:
      if (is_floating(t)) return cat("porta_min_", fsuffix(t), "(", a, ", ", b, ")");
      return cat("((", a, ") < (", b, ") ? (", a, ") : (", b, "))");
    case Op::eq: return infix("==");
    case Op::ne: return infix("!=");
    case Op::lt: return infix("<");
    case Op::le: return infix("<=");
    case Op::gt: return infix(">");
    case Op::ge: return infix(">=");
    case Op::logical_and: return infix("&&");
    case Op::logical_or: return infix("||");
    case Op::logical_xor: return infix("!=");
    case Op::bit_and: return t == DType::boolean ? infix("&&") : narrow(infix("&"));
    case Op::bit_or: return t == DType::boolean ? infix("||") : narrow(infix("|"));
    case Op::bit_xor: return t == DType::boolean ? infix("!=") : narrow(infix("^"));
    case Op::shl: return cat("porta_shl_", int_suffix(t), "(", a, ", ", b, ")");
    case Op::shr: return cat("porta_shr_", int_suffix(t), "(", a, ", ", b, ")");
    default: break;
  }
  (void)src;
  throw std::logic_error("codegen: not a binary op");
}

}  // namespace

std::string emit_instructions(const DialectText& d, const ElementwisePlan& plan,
                              const std::vector<std::string>& input_exprs, const std::string& index_expr,
                              const std::string& suffix, const std::vector<std::string>* random_words) {
  std::string out;
  auto v = [&](int j) { return cat("v", j, suffix); };
  for (std::size_t j = 0; j < plan.code.size(); ++j) {
    const Instr& in = plan.code[j];
    std::string rhs;
    switch (in.op) {
      case Op::load: rhs = input_exprs.at(static_cast<std::size_t>(in.arg)); break;
      case Op::scalar:
        // float16/bfloat16 scalars arrive already rounded to their dtype (the builder does it).
        rhs = in.dtype == DType::boolean ? cat("(s", in.arg, " != 0)") : cat("s", in.arg);
        if (is_complex(in.dtype)) rhs = cat("porta_c_", csuffix(in.dtype), "(s", in.arg, ", si", in.arg, ")");
        break;
      case Op::index: rhs = cat("(", d.compute_type(DType::int64), ")(", index_expr, ")"); break;
      case Op::where: rhs = cat("((", v(in.a), ") ? (", v(in.b), ") : (", v(in.c), "))"); break;
      case Op::fma:
        rhs = cat(d.math("fma", in.dtype), "(", v(in.a), ", ", v(in.b), ", ", v(in.c), ")");
        if (in.dtype == DType::float16) rhs = cat("porta_round_h(", rhs, ")");
        if (in.dtype == DType::bfloat16) rhs = cat("porta_round_bf(", rhs, ")");
        break;
      case Op::uniform:
      case Op::normal: {
        if (random_words && !(*random_words)[j].empty()) {
          rhs = (*random_words)[j];
        } else {
          std::string fn = cat(in.op == Op::uniform ? "porta_uniform_" : "porta_normal_", fsuffix(in.dtype));
          rhs = cat(fn, "((porta_u64)", v(in.a), ", (porta_u64)s", in.arg + 1, ", (porta_u64)s", in.arg, ")");
        }
        if (in.dtype == DType::float16) rhs = cat("porta_round_h(", rhs, ")");
        if (in.dtype == DType::bfloat16) rhs = cat("porta_round_bf(", rhs, ")");
        break;
      }
      default:
        if (in.b < 0) {
          DType src = plan.code[static_cast<std::size_t>(in.a)].dtype;
          rhs = unary(d, in, src, v(in.a));
        } else {
          DType src = plan.code[static_cast<std::size_t>(in.a)].dtype;
          rhs = binary(d, in, src, v(in.a), v(in.b));
        }
        // NumPy's rule: each operation's float16/bfloat16 result is rounded to its dtype (plan.hpp).
        if (in.dtype == DType::float16 && rounds_half_result(in.op)) rhs = cat("porta_round_h(", rhs, ")");
        if (in.dtype == DType::bfloat16 && rounds_half_result(in.op)) rhs = cat("porta_round_bf(", rhs, ")");
    }
    out += cat("    const ", d.compute_type(in.dtype), " ", v(static_cast<int>(j)), " = ", rhs, ";\n");
  }
  return out;
}

namespace {

bool vector_dtype(DType t) { return t == DType::float32 || t == DType::float64; }
bool int_vector_dtype(DType t) { return is_integral(t); }
bool complex_vector_dtype(DType t) { return t == DType::complex64 || t == DType::complex128; }

// Complex instructions with a vector form (emit_complex_vector): arithmetic without branches.
// Division, abs and the math functions keep the element-at-a-time kernel.
bool complex_vector_instruction(const ElementwisePlan& plan, const Instr& in) {
  const auto dtype_of = [&](std::int32_t j) { return plan.code[static_cast<std::size_t>(j)].dtype; };
  const auto operands_are = [&](auto pred) {
    for (std::int32_t j : {in.a, in.b, in.c})
      if (j >= 0 && !pred(dtype_of(j))) return false;
    return true;
  };
  switch (in.op) {
    case Op::load: case Op::scalar:
      return complex_vector_dtype(in.dtype);
    case Op::neg: case Op::add: case Op::sub: case Op::mul: case Op::square: case Op::conj:
      return complex_vector_dtype(in.dtype) && operands_are([&](DType t) { return t == in.dtype; });
    case Op::cast:
      return complex_vector_dtype(in.dtype) && operands_are([](DType t) { return vector_dtype(t) || complex_vector_dtype(t); });
    case Op::real: case Op::imag:
      return vector_dtype(in.dtype) && operands_are(complex_vector_dtype);
    default:
      return false;
  }
}

}  // namespace

// Integer instructions with a vector form (emit_int_vector): NumPy's wrapping arithmetic, the
// bitwise ops, its shifts past the width, max/min, and casts between integers and to floats
// (float -> integer keeps its saturating element-at-a-time rule). Division, modulo, powers and
// comparisons keep the element-at-a-time kernel.
static bool int_vector_instruction(const ElementwisePlan& plan, const Instr& in) {
  if (!int_vector_dtype(in.dtype)) return false;
  const auto dtype_of = [&](std::int32_t j) { return plan.code[static_cast<std::size_t>(j)].dtype; };
  const auto same = [&] {
    for (std::int32_t j : {in.a, in.b, in.c})
      if (j >= 0 && dtype_of(j) != in.dtype) return false;
    return true;
  };
  switch (in.op) {
    case Op::load: case Op::scalar: return true;
    case Op::cast: return in.a >= 0 && int_vector_dtype(dtype_of(in.a));
    case Op::neg: case Op::abs: case Op::add: case Op::sub: case Op::mul: case Op::maximum: case Op::minimum:
    case Op::bit_and: case Op::bit_or: case Op::bit_xor: case Op::bit_not: case Op::shl: case Op::shr:
      return same();
    default: return false;
  }
}

bool vector_instructions_supported(const ElementwisePlan& plan) {
  for (const Instr& in : plan.code) {
    if (complex_vector_instruction(plan, in)) continue;
    if (int_vector_instruction(plan, in)) continue;
    // integer -> float (the image-loading pattern: uint8 -> float32)
    if (in.op == Op::cast && in.a >= 0 && vector_dtype(in.dtype) && int_vector_dtype(plan.code[static_cast<std::size_t>(in.a)].dtype)) continue;
    if (in.op == Op::uniform || in.op == Op::normal) {
      if (!vector_dtype(in.dtype)) return false;
      continue;
    }
    if (in.op == Op::index) {  // only as the counter of random numbers (emit_random_blocks)
      const auto j = static_cast<std::int32_t>(&in - plan.code.data());
      if (j == plan.result) return false;  // arange: no vector form
      for (const Instr& user : plan.code)
        if ((user.a == j && user.op != Op::uniform && user.op != Op::normal) || user.b == j || user.c == j) return false;
      continue;
    }
    if (!vector_dtype(in.dtype)) return false;
    if (in.a >= 0 && !vector_dtype(plan.code[static_cast<std::size_t>(in.a)].dtype)) return false;
    switch (in.op) {
      case Op::load: case Op::scalar: case Op::cast: case Op::neg: case Op::abs: case Op::square:
      case Op::sigmoid: case Op::add: case Op::sub: case Op::mul: case Op::div: case Op::pow:
      case Op::maximum: case Op::minimum: case Op::fma:
        break;
      default:
        if (!math_function(in.op) && !math_function2(in.op)) return false;  // the math functions have vector forms too
    }
  }
  return true;
}

namespace {

// A complex value of `lanes` lanes is two vectors, v<j>_re and v<j>_im; a load's expression is a
// vector of 2 * lanes interleaved components (storage order), split by .even and .odd. Products
// are statements of their own: the kernel body contracts a * b + c into an FMA within an
// expression (FP_CONTRACT ON), which NumPy's complex product does not (base/complex.h).
std::string emit_complex_vector(const DialectText& d, const ElementwisePlan& plan, const Instr& in, std::int32_t j,
                                const std::vector<std::string>& input_exprs, int lanes) {
  const DType comp = real_dtype(in.dtype);
  const std::string vt = cat(d.compute_type(complex_vector_dtype(in.dtype) ? comp : in.dtype), lanes);
  const std::string v = cat("v", j);
  const auto re = [](std::int32_t k) { return cat("v", k, "_re"); };
  const auto im = [](std::int32_t k) { return cat("v", k, "_im"); };
  const auto pair = [&](const std::string& r, const std::string& i) {
    return cat("    const ", vt, " ", v, "_re = ", r, ";\n    const ", vt, " ", v, "_im = ", i, ";\n");
  };
  const auto convert = [&](DType from, const std::string& x) {
    return real_dtype(from) == comp ? x : cat("convert_", vt, "(", x, ")");
  };
  switch (in.op) {
    case Op::load: {
      const std::string ri = cat(v, "_ri");
      return cat("    const ", d.compute_type(comp), 2 * lanes, " ", ri, " = ", input_exprs.at(static_cast<std::size_t>(in.arg)),
                 ";\n", pair(ri + ".even", ri + ".odd"));
    }
    case Op::scalar: return pair(cat("(", vt, ")(s", in.arg, ")"), cat("(", vt, ")(si", in.arg, ")"));
    case Op::cast: {
      const DType from = plan.code[static_cast<std::size_t>(in.a)].dtype;
      if (!is_complex(from)) return pair(convert(from, cat("v", in.a)), cat("(", vt, ")(", d.literal(0, comp), ")"));
      return pair(convert(from, re(in.a)), convert(from, im(in.a)));
    }
    case Op::real: return cat("    const ", vt, " ", v, " = ", re(in.a), ";\n");
    case Op::imag: return cat("    const ", vt, " ", v, " = ", im(in.a), ";\n");
    case Op::neg: return pair(cat("-", re(in.a)), cat("-", im(in.a)));
    case Op::conj: return pair(re(in.a), cat("-", im(in.a)));
    case Op::add: return pair(cat(re(in.a), " + ", re(in.b)), cat(im(in.a), " + ", im(in.b)));
    case Op::sub: return pair(cat(re(in.a), " - ", re(in.b)), cat(im(in.a), " - ", im(in.b)));
    case Op::mul: case Op::square: {
      const std::int32_t b = in.op == Op::square ? in.a : in.b;
      std::string s;
      const std::pair<const char*, std::pair<std::string, std::string>> products[] = {
          {"rr", {re(in.a), re(b)}}, {"ii", {im(in.a), im(b)}}, {"ri", {re(in.a), im(b)}}, {"ir", {im(in.a), re(b)}}};
      for (const auto& [name, f] : products) s += cat("    const ", vt, " ", v, "_", name, " = ", f.first, " * ", f.second, ";\n");
      return s + pair(cat(v, "_rr - ", v, "_ii"), cat(v, "_ri + ", v, "_ir"));
    }
    default: throw std::logic_error("codegen: no complex vector form for this op");
  }
}

// float32 sin, cos and tan of a vector: PoCL's vector forms (PoCL 5, LLVM 15, 2026-12-07) return
// wrong values for the lanes below 2^-7 in magnitude whenever another lane is 2^23 or more or
// infinite (sin(1e-4) came back 128 times too large, sin(1e-20) as 0.0115), so such a vector is
// taken lane by lane through the scalar function, which is right; the others keep the vector form.
std::string trig_lane_by_lane(const std::string& vt, const std::string& out, const std::string& x, const char* f, int lanes) {
  return cat("    ", vt, " ", out, " = ", f, "(", x, ");\n", "    if (any(fabs(", x, ") >= (", vt, ")(0x1p22f))) {\n",
             "      float ", out, "_in[", lanes, "], ", out, "_out[", lanes, "];\n", "      vstore", lanes, "(", x, ", 0, ", out,
             "_in);\n", "      for (int l = 0; l < ", lanes, "; ++l) ", out, "_out[l] = ", f, "(", out, "_in[l]);\n", "      ", out,
             " = vload", lanes, "(0, ", out, "_out);\n    }\n");
}

}  // namespace

// An integer instruction of `lanes` lanes (int_vector_instruction). Signed arithmetic and shifts
// run on the unsigned vector of the same width, reinterpreted (as_), so that they wrap as NumPy's
// and never overflow a signed type; a shift by the width or more (or by a negative count) gives
// NumPy's 0 (left, unsigned right) or the sign's fill (signed right), where OpenCL's vector
// shifts would take the count modulo the width.
static std::string emit_int_vector(const DialectText& d, const ElementwisePlan& plan, const Instr& in, std::int32_t j,
                                   const std::vector<std::string>& input_exprs, int lanes) {
  const DType t = in.dtype;
  const bool sgn = !is_unsigned_integer(t);
  const std::string vt = cat(d.compute_type(t), lanes), ut = cat(sgn ? "u" : "", vt), bits = cat(itemsize(t) * 8);
  const std::string a = cat("v", in.a), b = cat("v", in.b);
  auto u = [&](const std::string& x) { return sgn ? cat("as_", ut, "(", x, ")") : x; };        // as unsigned
  auto back = [&](const std::string& x) { return sgn ? cat("as_", vt, "(", x, ")") : x; };     // and back
  auto wrap = [&](const char* op) { return back(cat("(", u(a), " ", op, " ", u(b), ")")); };
  const std::string in_range = cat("(", u(b), " < (", ut, ")(", bits, "))");
  std::string rhs;
  switch (in.op) {
    case Op::load: rhs = input_exprs.at(static_cast<std::size_t>(in.arg)); break;
    case Op::scalar: rhs = cat("(", vt, ")(s", in.arg, ")"); break;
    case Op::cast:
      rhs = plan.code[static_cast<std::size_t>(in.a)].dtype == t ? a : cat("convert_", vt, "(", a, ")");  // integers: the low bits
      break;
    case Op::neg: rhs = back(cat("(-", u(a), ")")); break;
    case Op::abs: rhs = sgn ? cat("as_", vt, "(abs(", a, "))") : a; break;  // abs(-128) is 128 as uchar: -128 again
    case Op::add: rhs = wrap("+"); break;
    case Op::sub: rhs = wrap("-"); break;
    case Op::mul: rhs = wrap("*"); break;
    case Op::maximum: rhs = cat("max(", a, ", ", b, ")"); break;
    case Op::minimum: rhs = cat("min(", a, ", ", b, ")"); break;
    case Op::bit_and: rhs = cat("(", a, " & ", b, ")"); break;
    case Op::bit_or: rhs = cat("(", a, " | ", b, ")"); break;
    case Op::bit_xor: rhs = cat("(", a, " ^ ", b, ")"); break;
    case Op::bit_not: rhs = cat("(~", a, ")"); break;
    case Op::shl: rhs = cat("select((", vt, ")(0), ", wrap("<<"), ", ", in_range, ")"); break;
    case Op::shr:
      rhs = sgn ? cat("(", a, " >> select((", vt, ")(", itemsize(t) * 8 - 1, "), ", b, ", ", in_range, "))")
                : cat("select((", vt, ")(0), (", a, " >> ", b, "), ", in_range, ")");
      break;
    default: throw std::logic_error("codegen: no integer vector form for this op");
  }
  return cat("    const ", vt, " v", j, " = ", rhs, ";\n");
}

std::string emit_vector_instructions(const DialectText& d, const ElementwisePlan& plan,
                                     const std::vector<std::string>& input_exprs, int lanes,
                                     const std::vector<std::vector<std::string>>& random_words) {
  std::string out;
  auto v = [](std::int32_t j) { return cat("v", j); };
  for (std::size_t j = 0; j < plan.code.size(); ++j) {
    const Instr& in = plan.code[j];
    if (in.op == Op::index) continue;  // read only through random_words
    if (complex_vector_instruction(plan, in)) {
      out += emit_complex_vector(d, plan, in, static_cast<std::int32_t>(j), input_exprs, lanes);
      continue;
    }
    if (int_vector_instruction(plan, in)) {
      out += emit_int_vector(d, plan, in, static_cast<std::int32_t>(j), input_exprs, lanes);
      continue;
    }
    if (in.op == Op::uniform || in.op == Op::normal) {
      std::vector<std::string> ls;
      for (int ln = 0; ln < lanes; ++ln) ls.push_back(random_words.at(static_cast<std::size_t>(ln)).at(j));
      out += cat("    const ", d.compute_type(in.dtype), lanes, " v", j, " = (", d.compute_type(in.dtype), lanes, ")(", join(ls, ", "), ");\n");
      continue;
    }
    const std::string vt = cat(d.compute_type(in.dtype), lanes);
    const std::string one = cat("(", vt, ")(", d.literal(1, in.dtype), ")");
    auto fn = [&](const char* f) { return cat(f, "(", v(in.a), ")"); };
    auto infix = [&](const char* op) { return cat("((", v(in.a), ") ", op, " (", v(in.b), "))"); };
    std::string rhs;
    switch (in.op) {
      case Op::load: rhs = input_exprs.at(static_cast<std::size_t>(in.arg)); break;
      case Op::scalar: rhs = cat("(", vt, ")(s", in.arg, ")"); break;
      case Op::cast:
        rhs = plan.code[static_cast<std::size_t>(in.a)].dtype == in.dtype ? v(in.a) : cat("convert_", vt, "(", v(in.a), ")");
        break;
      case Op::neg: rhs = cat("(-(", v(in.a), "))"); break;
      case Op::abs: rhs = fn("fabs"); break;
      case Op::square: rhs = cat("((", v(in.a), ") * (", v(in.a), "))"); break;
      case Op::sigmoid: rhs = cat("(", one, " / (", one, " + exp(-(", v(in.a), "))))"); break;
      case Op::add: rhs = infix("+"); break;
      case Op::sub: rhs = infix("-"); break;
      case Op::mul: rhs = infix("*"); break;
      case Op::div: rhs = infix("/"); break;
      case Op::pow: rhs = cat("pow(", v(in.a), ", ", v(in.b), ")"); break;
      // porta_max_f32's rule lane by lane: a where a > b or a is NaN, else b (select takes the
      // second operand where the mask's sign bit is set).
      case Op::maximum:
        if (in.a == in.b) { rhs = v(in.a); break; }
        rhs = cat("select(", v(in.b), ", ", v(in.a), ", (", v(in.a), " > ", v(in.b), ") | isnan(", v(in.a), "))"); break;
      case Op::minimum:
        if (in.a == in.b) { rhs = v(in.a); break; }
        rhs = cat("select(", v(in.b), ", ", v(in.a), ", (", v(in.a), " < ", v(in.b), ") | isnan(", v(in.a), "))"); break;
      case Op::fma: rhs = cat("fma(", v(in.a), ", ", v(in.b), ", ", v(in.c), ")"); break;
      default:
        if (const char* f = math_function(in.op)) {
          rhs = fn(f);
          break;
        }
        if (const char* f = math_function2(in.op)) {
          rhs = cat(f, "(", v(in.a), ", ", v(in.b), ")");
          break;
        }
        throw std::logic_error("codegen: no vector form for this op");
    }
    if (in.dtype == DType::float32 && (in.op == Op::sin || in.op == Op::cos || in.op == Op::tan)) {
      out += trig_lane_by_lane(vt, v(static_cast<std::int32_t>(j)), v(in.a), math_function(in.op), lanes);
      continue;
    }
    out += cat("    const ", vt, " ", v(static_cast<std::int32_t>(j)), " = ", rhs, ";\n");
  }
  return out;
}

void append_instruction_key(std::string& k, const ElementwisePlan& plan) {
  // Raw bytes, fixed widths, each list led by its length: unambiguous, and several times
  // cheaper than printing the numbers (it runs on every evaluation).
  auto raw = [&k](auto v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
  k.reserve(k.size() + 12 + plan.code.size() * 18 + plan.scalars.size() + plan.inputs.size());
  raw(static_cast<std::uint32_t>(plan.code.size()));
  for (const Instr& in : plan.code) {
    raw(static_cast<std::uint8_t>(in.op));
    raw(static_cast<std::uint8_t>(in.dtype));
    raw(in.a);
    raw(in.b);
    raw(in.c);
    raw(in.arg);
  }
  raw(static_cast<std::uint32_t>(plan.scalars.size()));
  for (auto& s : plan.scalars) raw(static_cast<std::uint8_t>(s.dtype));
  raw(static_cast<std::uint32_t>(plan.inputs.size()));
  for (auto& in : plan.inputs) raw(static_cast<std::uint8_t>(in.dtype));
}

bool plan_uses_fp64(const ElementwisePlan& plan) {
  auto f64 = [](DType t) { return t == DType::float64 || t == DType::complex128; };
  for (auto& in : plan.code)
    if (f64(in.dtype)) return true;
  for (auto& s : plan.scalars)
    if (f64(s.dtype)) return true;
  for (auto& i : plan.inputs)
    if (f64(i.dtype)) return true;
  return f64(plan.output.dtype);
}

bool plan_uses_complex(const ElementwisePlan& plan) {
  for (auto& in : plan.code)
    if (is_complex(in.dtype)) return true;
  for (auto& i : plan.inputs)
    if (is_complex(i.dtype)) return true;
  return is_complex(plan.output.dtype);
}

}  // namespace porta::detail
