// What the core hands a device to compute: an elementwise tree flattened to a list of
// instructions over one shape, optionally reduced along one axis. Code generation (src/codegen/)
// turns a plan into CUDA C++ or OpenCL C; the block interpreter (src/interpreter/) runs it on
// the host for backends without a run-time compiler. Both follow the semantics written here.
#pragma once

#include <cstdint>
#include <vector>

#include <porta/dtype.hpp>

namespace porta::detail {

using Handle = void*;

// Operand rules: the expression builder (src/lazy/expr.cpp, resolve() and cast()) inserts casts so that the operands of an
// arithmetic instruction have the instruction's dtype, except where noted. float16 and
// bfloat16 values are computed in float32 and rounded to their dtype after every instruction
// whose float32 result they may not hold (rounds_half_result), as NumPy rounds after every
// operation: a fused expression gives the unfused one's bits, and no value outside the dtype
// comes out of it.
enum class Op : std::uint8_t {
  // Leaves
  load,    // inputs[arg] at this element; dtype = the input's dtype
  scalar,  // scalars[arg]; dtype = the scalar's dtype
  index,   // this element's linear index in the plan's shape (int64)
  // Unary, operand a. Math functions take and give floating dtypes.
  cast,         // a converted to dtype: C rules; to bool: a != 0 (NaN gives true); float -> int
                // (porta's one rule, every integer dtype): toward zero, saturated at the dtype's
                // limits (unsigned: a negative value gives 0), NaN gives 0 (cvt.rzi.sat,
                // convert_*_sat; src/base/float_to_int.hpp on the host); int -> int wraps
                // (modulo 2^bits: uint8(-1) is 255, int8(200) is -56)
  neg, abs,
  sign,         // -1, 0, +1 (NaN stays NaN)
  square,
  exp, log, log1p, expm1, sqrt, rsqrt, sin, cos, tan, tanh,
  acos, asin, atan, acosh, asinh, atanh, sinh, cosh, log2, log10,
  sigmoid,      // 1 / (1 + exp(-a))
  erf, floor, ceil,
  round,        // half to even (rint), as NumPy
  trunc,        // toward zero
  isnan, isinf, isfinite,  // bool from a floating or integral a
  signbit,      // bool: the sign bit of a float (-0.0 and -NaN too); a < 0 for integers
  logical_not,  // bool from bool
  bit_not,      // ~a for integers; logical not for bool
  real, imag,   // the parts of a complex a (dtype: its real dtype); of a real a: a, and 0
  conj,         // complex conjugate (dtype: a's)
  // Binary, operands a and b
  add, sub, mul,  // integers wrap at their own width (int8 127 + 1 is -128), as NumPy
  div,          // true division (floating dtypes)
  mod,          // NumPy remainder: sign of the divisor; integer x % 0 is 0
  floor_div,    // NumPy floor_divide: integers floor (x // 0 is 0, MIN // -1 wraps); floats as
                // npy_floor_divide: (a - fmod(a, b)) / b, less 1 where fmod's sign is not b's,
                // rounded to the nearest whole number (1.0 // 0.1 is 9); x // 0.0 is x / 0.0
  pow,          // integers: exact by squaring, wrapping; a negative exponent (only from an
                // exponent array: ops.cpp refuses one known when building) gives the result
                // truncated toward zero: 1 for base 1, +-1 for base -1, else 0 (also for base 0)
  maximum, minimum,  // NaN propagates, as NumPy
  atan2, hypot, copysign,  // C's (floating dtypes)
  nextafter,    // C's (float32 and float64: the 16-bit types would need their own ulp)
  eq, ne, lt, le, gt, ge,          // bool; operands share a dtype (not the instruction's)
  logical_and, logical_or, logical_xor,  // bool from bool
  bit_and, bit_or, bit_xor,        // integers or bool
  shl, shr,     // integers, NumPy's: a count outside [0, bits) gives 0 (shl), or 0 / -1 by a's sign (shr); unsigned >> gives 0 there
  // Ternary
  where,        // a (bool) ? b : c
  fma,          // a * b + c rounded once (floating dtypes)
  // Counter-based random numbers, Philox4x32-10 (src/base/philox.h; host reference: src/base/philox.hpp). a = index
  // instruction (element i); scalars[arg] is the 64-bit key (seed), scalars[arg + 1] the 64-bit
  // stream. One call's four words x0..x3 serve consecutive elements: counter c = i / 4 for
  // float32, i / 2 for float64; counter words = (c lo, c hi, stream lo, stream hi), key = (seed
  // lo, seed hi). An element's value depends only on (seed, stream, i); executors that produce
  // consecutive elements compute each block once, others may recompute it. dtype float32 or float64.
  //  uniform: [0, 1): float32 from (x[i % 4] >> 8) * 2^-24; float64 from words (a, b) =
  //           (x[2 (i % 2)], x[2 (i % 2) + 1]) as ((a >> 5) * 2^26 + (b >> 6)) * 2^-53
  //  normal:  Box-Muller on u1, u2 uniform: r = sqrt(-2 log(1 - u1)), theta = 2 pi u2; r cos(theta)
  //           for even i, r sin(theta) for odd i. float32: u1, u2 from words (x0, x1) when
  //           i % 4 < 2, else (x2, x3); float64: from (x0, x1) and (x2, x3) as above
  uniform, normal,
};

inline constexpr int kOpCount = static_cast<int>(Op::normal) + 1;

// Whether a float16/bfloat16 instruction's float32 result must be rounded to its dtype: not for
// leaves, casts and random numbers (rounded where they are made), nor for ops whose result is one
// of their operands' values or exact in the operands' format (neg, abs, floor, max, where, ...).
inline bool rounds_half_result(Op op) {
  switch (op) {
    case Op::load: case Op::scalar: case Op::index: case Op::cast: case Op::neg: case Op::abs: case Op::sign:
    case Op::floor: case Op::ceil: case Op::round: case Op::trunc: case Op::real: case Op::imag: case Op::conj:
    case Op::maximum: case Op::minimum: case Op::copysign: case Op::where: case Op::uniform: case Op::normal:
      return false;
    default: return true;
  }
}

struct Instr {
  Op op = Op::load;
  DType dtype = DType::float32;  // the dtype of the value this instruction produces
  std::int32_t a = -1, b = -1, c = -1;  // earlier instructions
  std::int32_t arg = -1;                // input or scalar index for leaves
};

// A buffer view read by the plan. strides are in elements, one per dimension of the plan's
// shape (0 where the input is broadcast); offset is in elements.
struct PlanInput {
  DType dtype = DType::float32;
  Handle handle = nullptr;
  std::int64_t offset = 0;
  std::vector<std::int64_t> strides;
};

struct ScalarValue {
  DType dtype = DType::float64;
  double f = 0;        // floating dtypes (float16/bfloat16/float32 values are exact in double);
                       // the real part of a complex one
  double imag = 0;     // the imaginary part of a complex scalar
  std::int64_t i = 0;  // bool and the integers; uint64 as its bits (static_cast<std::uint64_t>(i))
};

struct PlanOutput {
  DType dtype = DType::float32;
  Handle handle = nullptr;
  std::int64_t offset = 0;
  std::vector<std::int64_t> strides;  // per dimension in elements; empty: contiguous
};

// out[e] = code[result](e) for every element e of `shape`, in row-major order.
struct ElementwisePlan {
  std::vector<std::int64_t> shape;  // the core merges dimensions where every operand allows
  std::vector<Instr> code;
  std::int32_t result = -1;
  std::vector<PlanInput> inputs;
  std::vector<ScalarValue> scalars;
  PlanOutput output;  // unused inside a ReductionPlan
};

enum class ReduceOp : std::uint8_t { sum, prod, min, max, argmin, argmax, all, any };

// The input plan's shape, in row-major linear order, is viewed as [outer, extent, inner];
// out[o * inner + i] = reduce over r of value(o * extent * inner + r * inner + i).
// value dtype = input.code[input.result].dtype. Accumulation is in float32 for float16 and
// bfloat16, in the value dtype otherwise; argmin/argmax give the first index of the extreme
// (the first NaN when there is one), min/max propagate NaN. The order of accumulation is
// fixed per device (no atomics), so the same input gives the same bits on every run.
// extent == 0 gives the identity (sum 0, prod 1, all true, any false); the core rejects
// min/max/argmin/argmax of nothing before it gets here.
struct ReductionPlan {
  ElementwisePlan input;
  ReduceOp op = ReduceOp::sum;
  std::int64_t outer = 1, extent = 1, inner = 1;
  DType out_dtype = DType::float32;  // contiguous [outer, inner]
  Handle out = nullptr;
  std::int64_t out_offset = 0;       // elements
};

}  // namespace porta::detail
