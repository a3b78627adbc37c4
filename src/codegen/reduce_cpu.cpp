// Reduction code generation's shared pieces (codegen/reduce_text.hpp) and the explicit-vector
// first passes of CPU devices, which codegen/reduce.cpp launches before its interleaved passes.
#include "codegen/reduce_text.hpp"

#include <algorithm>

#include "porta_backend/strings.hpp"

namespace porta::detail::reduce_text {

bool is_arg(ReduceOp op) { return op == ReduceOp::argmin || op == ReduceOp::argmax; }

DType accumulator(DType value) {
  return (value == DType::float16 || value == DType::bfloat16) ? DType::float32 : value;
}

std::string identity(const DialectText& d, ReduceOp op, DType acc) {
  bool lowest = op == ReduceOp::max || op == ReduceOp::argmax;
  if (is_complex(acc) && op != ReduceOp::all && op != ReduceOp::any) {
    // 0, 1; for NumPy's lexicographic extremes both parts infinite.
    const DType r = real_dtype(acc);
    const std::string part = op == ReduceOp::sum ? d.literal(0, r) : op == ReduceOp::prod ? d.literal(1, r) : identity(d, op, r);
    return cat("porta_c_", acc == DType::complex128 ? "c128(" : "c64(", part, ", ", op == ReduceOp::prod ? d.literal(0, r) : part, ")");
  }
  switch (op) {
    case ReduceOp::sum: return d.literal(0, acc);
    case ReduceOp::prod: return d.literal(1, acc);
    case ReduceOp::all: return "true";
    case ReduceOp::any: return "false";
    default: break;
  }
  switch (acc) {
    case DType::boolean: return lowest ? "false" : "true";
    case DType::int32: return lowest ? "(-2147483647 - 1)" : "2147483647";
    case DType::int64: return d.cuda() ? (lowest ? "(-9223372036854775807LL - 1)" : "9223372036854775807LL")
                                       : (lowest ? "(-9223372036854775807L - 1)" : "9223372036854775807L");
    case DType::int8:
    case DType::int16:
    case DType::uint8:
    case DType::uint16:
    case DType::uint32:
    case DType::uint64: {  // the type's limits, converted to it
      const IntInfo lim = iinfo(acc);
      const char* suffix = acc == DType::uint64 ? (d.cuda() ? "ULL" : "UL") : acc == DType::uint32 ? "u" : "";
      return cat("((", d.compute_type(acc), ")", lowest ? cat("(", lim.min, ")") : cat(lim.max, suffix), ")");
    }
    case DType::float64:
      return d.cuda() ? (lowest ? "(-__longlong_as_double(0x7ff0000000000000LL))" : "__longlong_as_double(0x7ff0000000000000LL)")
                      : (lowest ? "(-as_double(0x7ff0000000000000UL))" : "as_double(0x7ff0000000000000UL)");
    default:
      return d.cuda() ? (lowest ? "(-__int_as_float(0x7f800000))" : "__int_as_float(0x7f800000)")
                      : (lowest ? "(-as_float(0x7f800000u))" : "as_float(0x7f800000u)");
  }
}

// Statement folding value `v` (with axis index `i` for arg ops) into accumulator `a` (`ai`).
std::string combine(ReduceOp op, DType acc, const std::string& a, const std::string& ai, const std::string& v,
                    const std::string& i) {
  bool fl = is_floating(acc);
  std::string fs = acc == DType::float64 ? "f64" : "f32";
  if (is_complex(acc) && op != ReduceOp::all && op != ReduceOp::any) {  // base/complex.h's functions
    const std::string cs = acc == DType::complex128 ? "_c128(" : "_c64(";
    auto f = [&](const char* name, const std::string& x, const std::string& y) { return cat("porta_", name, cs, x, ", ", y, ")"); };
    switch (op) {
      case ReduceOp::sum: return cat(a, " = ", f("add", a, v), ";");
      case ReduceOp::prod: return cat(a, " = ", f("mul", a, v), ";");
      case ReduceOp::min: return cat(a, " = ", f("min", a, v), ";");
      case ReduceOp::max: return cat(a, " = ", f("max", a, v), ";");
      default: {
        const std::string vn = cat("porta_isnan", cs, v, ")"), an = cat("porta_isnan", cs, a, ")");
        const std::string better = cat("(", vn, " ? (!", an, " || ", i, " < ", ai, ") : (!", an, " && (",
                                       f(op == ReduceOp::argmin ? "lt" : "gt", v, a), " || (", f("eq", v, a), " && ", i, " < ", ai, "))))");
        return cat("if (", i, " >= 0 && (", ai, " < 0 || ", better, ")) { ", a, " = ", v, "; ", ai, " = ", i, "; }");
      }
    }
  }
  switch (op) {
    case ReduceOp::sum: return acc == DType::boolean ? cat(a, " = ", a, " || ", v, ";") : cat(a, " += ", v, ";");
    case ReduceOp::prod: return acc == DType::boolean ? cat(a, " = ", a, " && ", v, ";") : cat(a, " *= ", v, ";");
    case ReduceOp::all: return cat(a, " = ", a, " && ", v, ";");
    case ReduceOp::any: return cat(a, " = ", a, " || ", v, ";");
    case ReduceOp::min:
      if (fl) return cat(a, " = porta_min_", fs, "(", a, ", ", v, ");");
      if (acc == DType::boolean) return cat(a, " = ", a, " && ", v, ";");
      return cat("if (", v, " < ", a, ") ", a, " = ", v, ";");
    case ReduceOp::max:
      if (fl) return cat(a, " = porta_max_", fs, "(", a, ", ", v, ");");
      if (acc == DType::boolean) return cat(a, " = ", a, " || ", v, ";");
      return cat("if (", v, " > ", a, ") ", a, " = ", v, ";");
    case ReduceOp::argmin:
    case ReduceOp::argmax: {
      const char* cmp = op == ReduceOp::argmin ? "<" : ">";
      std::string better;
      // NaN tests through isnan and bool order through && and !: compilers warn about x != x
      // where they can see x, and about ordering comparisons of bools.
      if (fl)
        better = cat("(isnan(", v, ") ? (!isnan(", a, ") || ", i, " < ", ai, ") : (!isnan(", a, ") && (", v,
                     " ", cmp, " ", a, " || (", v, " == ", a, " && ", i, " < ", ai, "))))");
      else if (acc == DType::boolean)
        better = op == ReduceOp::argmax ? cat("(((", v, ") && !(", a, ")) || ((", v, ") == (", a, ") && ", i, " < ", ai, "))")
                                        : cat("((!(", v, ") && (", a, ")) || ((", v, ") == (", a, ") && ", i, " < ", ai, "))");
      else
        better = cat("(", v, " ", cmp, " ", a, " || (", v, " == ", a, " && ", i, " < ", ai, "))");
      return cat("if (", i, " >= 0 && (", ai, " < 0 || ", better, ")) { ", a, " = ", v, "; ", ai, " = ", i, "; }");
    }
  }
  return "";
}

// The same fold for arg ops where each accumulator sees its positions in increasing order (a
// thread's pass over the input): a tie or a later NaN never wins, so the index comparisons of
// combine() drop out, and so does the test for "no position yet": the accumulator starts at the
// identity (-inf for argmax) with position -1, and only a strictly better value or the first NaN
// replaces it (for floats `!(v <= a) && a == a`: v greater, or v NaN while a is not). A run of
// values all equal to the identity leaves -1, which in_order_first() then replaces by the
// accumulator's first position. One flag and two selects, no branch: a GPU thread's unrolled
// loads all issue before the folds, and PoCL's vectoriser widens the fold (with the "none yet"
// test in it, PoCL ran the first pass at a quarter of the speed). The position `ai` may be the
// kernel's index type (32-bit where the sizes allow).
std::string combine_in_order(ReduceOp op, DType acc, const std::string& a, const std::string& ai, const std::string& v,
                             const std::string& i) {
  const bool is_max = op == ReduceOp::argmax;
  std::string better;
  if (is_complex(acc)) {
    const std::string cs = acc == DType::complex128 ? "_c128(" : "_c64(";
    better = cat("(!porta_isnan", cs, a, ") && (porta_isnan", cs, v, ") || porta_", is_max ? "gt" : "lt", cs, v, ", ", a, ")))");
  } else if (acc == DType::boolean)
    better = is_max ? cat("((", v, ") & !(", a, "))") : cat("(!(", v, ") & (", a, "))");
  else if (is_floating(acc))
    better = cat("(!(", v, is_max ? " <= " : " >= ", a, ") & (", a, " == ", a, "))");
  else
    better = cat("(", v, is_max ? " > " : " < ", a, ")");
  return cat("{ const bool b_ = ", better, "; ", a, " = b_ ? ", v, " : ", a, "; ", ai, " = b_ ? ", i, " : ", ai, "; }");
}
// The first pass for CPU devices where the input is one contiguous array read as it is (no
// fused operations; sum, argmin, argmax; rows or the whole array): work-item w reads chunk c of
// row o, kVecChunk consecutive elements, with explicit 8-wide vector loads into two vector
// accumulators, and writes one partial (and its position). The work-items after the last full
// chunk of a row fold its tail one element at a time. Explicit vectors are SIMD code whatever
// PoCL's work-group vectoriser makes of a kernel: 2^24 float32 summed at 38-46 GB/s in this
// form against 12-13 GB/s for the interleaved lanes on the 2-core build machine. Sums add each
// vector lane's elements in order and then the lanes in a fixed tree: the same bits every run.

bool reads_one_contiguous_array(const Source& src) {
  if (!src.plan) return false;
  const ElementwisePlan& p = *src.plan;
  if (p.code.size() != 1 || p.code[0].op != Op::load || p.result != 0 || p.inputs.size() != 1) return false;
  return src.layout.access.size() == 1 && src.layout.access[0] == Access::contiguous && !src.layout.wide;
}

bool vector_pass_fits(const ReductionPlan& rp, const Source& src, const DialectText& d) {
  if (d.dialect != Dialect::opencl || rp.inner != 1 || rp.extent < 2 * kVecChunk) return false;
  if (!reads_one_contiguous_array(src)) return false;
  const ElementwisePlan& p = *src.plan;
  if (rp.outer * rp.extent > 0x7ffffff0LL) return false;
  const DType t = p.inputs[0].dtype;
  if (rp.op == ReduceOp::sum) return t == DType::float32 || t == DType::float64 || t == DType::int64;
  if (is_arg(rp.op)) return t == DType::float32 || t == DType::int32;  // int8 masks and positions
  if (rp.op == ReduceOp::max || rp.op == ReduceOp::min)
    return t == DType::float32 || t == DType::float64 || t == DType::int32 || t == DType::int64;
  return false;
}

bool vector_pass_extreme(const ReductionPlan& rp) {
  return rp.op == ReduceOp::max || rp.op == ReduceOp::min || (is_arg(rp.op) && rp.outer == 1);
}

KernelSource generate_vector_pass(const ReductionPlan& rp, DType t, const DialectText& d) {
  const bool arg = is_arg(rp.op);
  const std::string T = d.compute_type(t), T8 = T + "8", T4 = T + "4", T2 = T + "2";
  const std::string id = identity(d, rp.op, t);
  std::string s = d.prelude(t == DType::float64, false);
  s += cat(d.kernel_prefix(), "porta_reduce_vec(", d.global_ptr(t), " in0, const int off0, ", d.global_out_ptr(t), " pv, ",
           arg ? cat(d.global_out_ptr(DType::int64), " pi, ") : std::string(),
           "const int extent, const int P, const int full, const int total) {\n"
           "  const int w = (int)", d.global_id(), ";\n  if (w >= total) return;\n  const int o = w / P;\n  const int c = w - o * P;\n",
           "  ", d.global_ptr(t), " p = in0 + off0 + o * extent;\n  const int r0 = c * ", kVecChunk, ";\n  ", T, " acc;\n");
  if (arg) s += "  int ai;\n";
  s += "  if (c < full) {\n";
  const int steps = static_cast<int>(kVecChunk / 16);
  if (!arg) {
    s += cat("    ", T8, " a0 = (", T8, ")(", d.literal(0, t), "), a1 = a0;\n    for (int j = 0; j < ", steps,
             "; ++j) {\n      a0 += vload8(2 * j, p + r0);\n      a1 += vload8(2 * j + 1, p + r0);\n    }\n    const ", T8,
             " a8 = a0 + a1;\n    const ", T4, " a4 = a8.lo + a8.hi;\n    const ", T2, " a2 = a4.lo + a4.hi;\n    acc = a2.x + a2.y;\n");
  } else {
    const bool mx = rp.op == ReduceOp::argmax;
    auto better = [&](const std::string& v, const std::string& a) {
      if (is_floating(t)) return cat("(!(", v, mx ? " <= " : " >= ", a, ") & (", a, " == ", a, "))");
      return cat("(", v, mx ? " > " : " < ", a, ")");
    };
    s += cat("    ", T8, " a0 = (", T8, ")(", id, "), a1 = a0;\n    int8 i0 = (int8)(-1), i1 = i0;\n",
             "    const int8 lane = (int8)(0, 1, 2, 3, 4, 5, 6, 7);\n    for (int j = 0; j < ", steps, "; ++j) {\n",
             "      const int pos = r0 + 16 * j;\n      const ", T8, " v0 = vload8(2 * j, p + r0), v1 = vload8(2 * j + 1, p + r0);\n",
             "      const int8 b0 = ", better("v0", "a0"), ", b1 = ", better("v1", "a1"), ";\n",
             "      a0 = select(a0, v0, b0);\n      i0 = select(i0, (int8)(pos) + lane, b0);\n",
             "      a1 = select(a1, v1, b1);\n      i1 = select(i1, (int8)(pos + 8) + lane, b1);\n    }\n",
             // A lane that saw only identity values takes its first position (combine_in_order).
             "    i0 = select(i0, (int8)(r0) + lane, i0 < 0);\n    i1 = select(i1, (int8)(r0 + 8) + lane, i1 < 0);\n",
             "");
    // The lanes merged in a fixed tree of vector halves (8 + 8, then 4 + 4, 2 + 2), each a
    // branch-free choice: the better value, or on a tie the smaller position; NaN first.
    auto pick = [&](const std::string& v, const std::string& vi, const std::string& a, const std::string& ai) {
      std::string order = mx ? " > " : " < ";
      if (is_floating(t))
        return cat("((isnan(", v, ") & (!isnan(", a, ") | (", vi, " < ", ai, "))) | (!isnan(", v, ") & !isnan(", a, ") & ((", v,
                   order, a, ") | ((", v, " == ", a, ") & (", vi, " < ", ai, ")))))");
      return cat("((", v, order, a, ") | ((", v, " == ", a, ") & (", vi, " < ", ai, ")))");
    };
    s += cat("    { const int8 t_ = ", pick("a1", "i1", "a0", "i0"), "; a0 = select(a0, a1, t_); i0 = select(i0, i1, t_); }\n",
             "    ", T4, " a4 = a0.lo; int4 i4 = i0.lo;\n    { const ", T4, " h = a0.hi; const int4 hi = i0.hi; const int4 t_ = ",
             pick("h", "hi", "a4", "i4"), "; a4 = select(a4, h, t_); i4 = select(i4, hi, t_); }\n",
             "    ", T2, " a2 = a4.lo; int2 i2 = i4.lo;\n    { const ", T2, " h = a4.hi; const int2 hi = i4.hi; const int2 t_ = ",
             pick("h", "hi", "a2", "i2"), "; a2 = select(a2, h, t_); i2 = select(i2, hi, t_); }\n",
             "    acc = a2.x;\n    ai = i2.x;\n    ", combine(rp.op, t, "acc", "ai", "a2.y", "i2.y"), "\n");
  }
  s += cat("  } else {\n    acc = ", arg ? id : d.literal(0, t), ";\n");
  if (arg) s += "    ai = -1;\n";
  s += "    for (int r = r0; r < extent; ++r) {\n";
  s += arg ? cat("      ", combine_in_order(rp.op, t, "acc", "ai", "p[r]", "r"), "\n    }\n    if (ai < 0) ai = r0;\n")
           : "      acc += p[r];\n    }\n";
  s += "  }\n  pv[w] = acc;\n";
  if (arg) s += "  pi[w] = (long)ai;\n";
  s += "}\n";
  return {s, "porta_reduce_vec", {}};
}

// max/min (rows or the whole array), and argmin/argmax of a whole array (one row) at the cost of
// max: the vector pass keeps only each full chunk's extreme (NaN when the chunk holds one), and
// for arg ops names the chunk by its first position; the interleaved passes then pick the first
// chunk holding the overall answer (ties go to the smaller position, so to the earlier chunk,
// which holds the first occurrence); and one work-item scans that chunk's 1024 elements for the
// first position of it (refine). The tail chunk folds its elements (and positions) exactly, as
// in generate_vector_pass. Plain max on PoCL went from 6 to 40+ GB/s (2^24 float32, 2 cores).
KernelSource generate_vector_extreme_pass(const ReductionPlan& rp, DType t, const DialectText& d) {
  const bool arg = is_arg(rp.op), mx = rp.op == ReduceOp::max || rp.op == ReduceOp::argmax, fl = is_floating(t);
  const bool f64 = t == DType::float64;
  const std::string T = d.compute_type(t), T8 = T + "8", T4 = T + "4", T2 = T + "2";
  // NaN is tracked apart (a chunk holding one gives NaN, v != v: isnan cost more on PoCL), so the
  // extreme is a compare and a select (fmax would test NaN again; OpenCL's float max/min leave
  // infinities undefined). Integers: max/min.
  auto ext = [&](const std::string& a, const std::string& b) {
    return fl ? cat("select(", a, ", ", b, ", ", b, mx ? " > " : " < ", a, ")") : cat(mx ? "max(" : "min(", a, ", ", b, ")");
  };
  const std::string id = identity(d, rp.op, t);
  std::string s = d.prelude(f64, false);
  s += cat(d.kernel_prefix(), "porta_reduce_vecext(", d.global_ptr(t), " in0, const int off0, ", d.global_out_ptr(t), " pv, ",
           arg ? cat(d.global_out_ptr(DType::int64), " pi, ") : std::string(),
           "const int extent, const int P, const int full, const int total) {\n  const int w = (int)", d.global_id(),
           ";\n  if (w >= total) return;\n  const int o = w / P;\n  const int c = w - o * P;\n  ", d.global_ptr(t),
           " p = in0 + off0 + o * extent;\n  const int r0 = c * ", kVecChunk, ";\n  ", T, " acc;\n", arg ? "  int ai;\n" : "",
           "  if (c < full) {\n    ", T8, " m0 = (", T8, ")(", id, "), m1 = m0;\n");
  if (fl) s += f64 ? "    long8 n = (long8)(0);\n" : "    int8 n = (int8)(0);\n";
  s += cat("    for (int j = 0; j < ", kVecChunk / 16, "; ++j) {\n      const ", T8, " v0 = vload8(2 * j, p + r0), v1 = vload8(2 * j + 1, p + r0);\n",
           "      m0 = ", ext("m0", "v0"), ";\n      m1 = ", ext("m1", "v1"), ";\n", fl ? "      n |= (v0 != v0) | (v1 != v1);\n" : "",
           "    }\n    const ", T8, " m = ", ext("m0", "m1"), ";\n    const ", T4, " m4 = ", ext("m.lo", "m.hi"), ";\n    const ", T2,
           " m2 = ", ext("m4.lo", "m4.hi"), ";\n    acc = ", fl ? cat("(m2.y", mx ? " > " : " < ", "m2.x) ? m2.y : m2.x") : ext("m2.x", "m2.y"),
           ";\n");
  if (fl) s += f64 ? "    if (any(n)) acc = as_double(0x7ff8000000000000UL);\n" : "    if (any(n)) acc = as_float(0x7fc00000u);\n";
  if (arg) {
    s += cat("    ai = r0;\n  } else {\n    acc = ", id, ";\n    ai = -1;\n    for (int r = r0; r < extent; ++r) {\n      ",
             combine_in_order(rp.op, t, "acc", "ai", "p[r]", "r"), "\n    }\n    if (ai < 0) ai = r0;\n  }\n  pv[w] = acc;\n  pi[w] = (long)ai;\n}\n");
  } else {
    s += cat("  } else {\n    acc = ", id, ";\n    for (int r = r0; r < extent; ++r) {\n      ", combine(rp.op, t, "acc", "", "p[r]", ""),
             "\n    }\n  }\n  pv[w] = acc;\n}\n");
  }
  return {s, "porta_reduce_vecext", {}};
}

// The last step of generate_vector_extreme_pass: the first position of the answer inside the
// full chunk the other passes chose (a position in the tail is exact already).
KernelSource generate_refine(const ReductionPlan& rp, DType t, const DialectText& d) {
  std::string s = d.prelude(false, false);
  s += cat(d.kernel_prefix(), "porta_reduce_refine(", d.global_ptr(t), " in0, const int off0, ", d.global_out_ptr(DType::int64),
           " out, const int off_out, const int full) {\n  if (", d.global_id(), " != 0) return;\n  ", d.global_ptr(t),
           " p = in0 + off0;\n  const long at = out[off_out];\n  if (at % ", kVecChunk, " != 0 || at / ", kVecChunk,
           " >= full) return;\n  const int r0 = (int)at;\n  ", d.compute_type(t), " acc = ", identity(d, rp.op, t), ";\n  int ai = -1;\n",
           "  for (int r = r0; r < r0 + ", kVecChunk, "; ++r) {\n    ", combine_in_order(rp.op, t, "acc", "ai", "p[r]", "r"),
           "\n  }\n  out[off_out] = ai < 0 ? (long)r0 : (long)ai;\n}\n");
  return {s, "porta_reduce_refine", {}};
}

// The same for columns (inner > 1, a multiple of 16; sum only): work-item w sums W consecutive
// columns (W / 8 vectors of 8, W = 64, 32 or 16, the widest dividing inner) over a chunk of R
// rows (256, or kVecRows for fewer than 512 rows), in row order, and stores the W partials where
// the interleaved passes read them ([outer, P, inner]). A row's W columns are W * 4 bytes in a
// row of memory: 16 columns over 64 rows (one 64-byte line a row, a new page every row for wide
// matrices) summed 4096 x 4096 float32 at 29 GB/s on the 2-core build machine, 64 columns over
// 256 rows at 40-44 (copy 26-36 there, read + write).

int column_vector_width(std::int64_t inner) { return inner % 64 == 0 ? 64 : inner % 32 == 0 ? 32 : 16; }
std::int64_t column_vector_rows(std::int64_t extent) { return extent >= 2 * 256 ? 256 : kVecRows; }

bool column_vector_pass_fits(const ReductionPlan& rp, const Source& src, const DialectText& d) {
  if (d.dialect != Dialect::opencl || rp.op != ReduceOp::sum || rp.inner < 16 || rp.inner % 16 != 0 || rp.extent < 2 * kVecRows) return false;
  if (!reads_one_contiguous_array(src)) return false;
  const ElementwisePlan& p = *src.plan;
  if (rp.outer * rp.extent * rp.inner > 0x7ffffff0LL) return false;
  const DType t = p.inputs[0].dtype;
  return t == DType::float32 || t == DType::float64 || t == DType::int64;
}

KernelSource generate_column_vector_pass(DType t, int width, const DialectText& d) {
  const std::string T = d.compute_type(t), T8 = T + "8";
  const int vectors = width / 8;
  std::string s = d.prelude(t == DType::float64, false);
  s += cat(d.kernel_prefix(), "porta_reduce_colvec(", d.global_ptr(t), " in0, const int off0, ", d.global_out_ptr(t),
           " pv, const int extent, const int inner, const int R, const int P, const int total) {\n  const int w = (int)", d.global_id(),
           ";\n  if (w >= total) return;\n  const int blocks = inner / ", width, ";\n  const int b = w % blocks;\n  const int rest = w / blocks;\n"
           "  const int c = rest % P;\n  const int o = rest / P;\n  int r1 = (c + 1) * R;\n  if (r1 > extent) r1 = extent;\n  ",
           d.global_ptr(t), " p = in0 + off0 + o * extent * inner + b * ", width, ";\n");
  for (int k = 0; k < vectors; ++k) s += cat("  ", T8, " a", k, " = (", T8, ")(", d.literal(0, t), ");\n");
  s += "  for (int r = c * R; r < r1; ++r) {\n";
  for (int k = 0; k < vectors; ++k) s += cat("    a", k, " += vload8(", k, ", p + r * inner);\n");
  s += cat("  }\n  ", d.global_out_ptr(t), " q = pv + (o * P + c) * inner + b * ", width, ";\n");
  for (int k = 0; k < vectors; ++k) s += cat("  vstore8(a", k, ", ", k, ", q);\n");
  s += "}\n";
  return {s, "porta_reduce_colvec", {}};
}
}  // namespace porta::detail::reduce_text
