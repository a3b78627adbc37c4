// Expression nodes: promotion, broadcasting, and the evaluation rules.
#include "lazy/expr.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <porta/error.hpp>

#include "base/float_to_int.hpp"
#include "porta_backend/log.hpp"

namespace porta::detail {

const char* to_string(EvalReason r) {
  switch (r) {
    case EvalReason::data_needed: return "data needed";
    case EvalReason::tree_height: return "tree height";
    case EvalReason::parameter_count: return "parameter count";
    case EvalReason::memory_pressure: return "memory pressure";
    case EvalReason::broadcast: return "broadcast of a lazy operand";
  }
  return "?";
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    std::int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw ShapeError(cat("shapes ", porta::to_string(a), " and ", porta::to_string(b),
                           " cannot be broadcast together: dimension ", i, " is ", da, " against ", db,
                           " (each pair of trailing dimensions must be equal or one of them 1)"));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

void check_valid_dtype(DType t, std::string_view what) {
  if (is_valid(t)) return;
  throw DTypeError(cat(what, ": DType(", static_cast<int>(t), ") is not a porta dtype; the dtypes are bool, int8, int16, ",
                       "int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64, complex64, complex128"));
}

void check_dtype(const Device& d, DType t) {
  check_valid_dtype(t, "dtype");
  if (d.supports(t)) return;
  throw DTypeError(cat(name(t), " is not supported on ", d.spec(), " (", d.name(), ")",
                       t == DType::float64 ? ": the device has no double precision (cl_khr_fp64); use float32" : "",
                       ". Use astype() to another dtype or another device"));
}

void check_same_device(const NodePtr& a, const NodePtr& b, const char* op) {
  if (a->device() == b->device()) return;
  throw InvalidArgument(cat(op, ": operands are on different devices, ", a->device().spec(), " and ", b->device().spec(),
                            "; move one with .to(other.device())"));
}

NodePtr node_of(const Array& a, const char* what) {
  if (!a.valid()) throw InvalidArgument(cat(what, ": the array is empty (default-constructed)"));
  return a.node();
}

NodePtr make_scalar(double f, std::int64_t i, DType t, Shape shape, const Device& d, double imag) {
  check_dtype(d, t);
  Expr e;
  e.op = Op::scalar;
  e.scalar.dtype = t;
  switch (kind(t)) {
    case DTypeKind::boolean: e.scalar.i = (i != 0 || f != 0 || imag != 0) ? 1 : 0; break;
    case DTypeKind::signed_integer:
    case DTypeKind::unsigned_integer: e.scalar.i = wrap_int(i, t); break;  // wraps, as a cast of the array would
    case DTypeKind::floating:
    case DTypeKind::complex: {
      const DType r = real_dtype(t);
      auto round = [r](double v) {
        switch (r) {
          case DType::float16: return static_cast<double>(static_cast<float>(half(v)));
          case DType::bfloat16: return static_cast<double>(static_cast<float>(bfloat16(v)));
          case DType::float32: return static_cast<double>(static_cast<float>(v));
          default: return v;
        }
      };
      e.scalar.f = round(f);
      if (is_complex(t)) e.scalar.imag = round(imag);
      break;
    }
  }
  if (!is_inexact(t)) e.scalar.f = int_value(e.scalar.i, t);
  return std::make_shared<ArrayNode>(std::move(shape), t, d, std::move(e));
}

NodePtr make_index(Shape shape, const Device& d) {
  Expr e;
  e.op = Op::index;
  return std::make_shared<ArrayNode>(std::move(shape), DType::int64, d, std::move(e));
}

NodePtr prepare_operand(const NodePtr& a) {
  if (a->evaluated()) return a;
  std::optional<EvalReason> why;
  if (a->height() >= kMaxTreeHeight) why = EvalReason::tree_height;
  else if (a->leaves() >= kMaxLeaves) why = EvalReason::parameter_count;
  else if (static_cast<double>(a->held_bytes()) > kMaxHeldFraction * static_cast<double>(a->device().memory_bytes()))
    why = EvalReason::memory_pressure;
  if (!why) return a;
  PORTA_LOG(debug, "evaluating a lazy tree of height ", a->height(), " with ", a->leaves(), " leaves: ", to_string(*why));
  evaluate(a);
  return a;
}

NodePtr make_node(Op op, DType t, NodePtr a, NodePtr b, NodePtr c) {
  check_dtype(a->device(), t);
  Expr e;
  e.op = op;
  e.args = {prepare_operand(a), b ? prepare_operand(b) : nullptr, c ? prepare_operand(c) : nullptr};
  Shape shape = a->shape();
  auto node = std::make_shared<ArrayNode>(std::move(shape), t, a->device(), std::move(e));
  // Writes into a buffer evaluate its lazy readers first
  // (docs/design/threading.md#writes-and-lazy-readers).
  for (const auto& arg : node->expr_locked().args)
    if (arg) arg->add_lazy_reader(node);
  return node;
}

NodePtr cast(const NodePtr& a, DType t) {
  if (a->dtype() == t) return a;
  if (!a->evaluated()) {
    auto snap = a->snapshot();
    if (!snap.evaluated && snap.expr.op == Op::scalar) {
      // A complex value to a real dtype keeps its real part (NumPy's, which warns in Python).
      const ScalarValue& s = snap.expr.scalar;
      const bool inexact = is_inexact(s.dtype);
      double f = inexact ? s.f : int_value(s.i, s.dtype);
      std::int64_t i = inexact ? float_to_int(s.f, t) : s.i;
      if (t == DType::boolean && is_complex(s.dtype)) i = s.f != 0 || s.imag != 0;
      return make_scalar(f, i, t, a->shape(), a->device(), s.imag);
    }
  }
  return make_node(Op::cast, t, a);
}

NodePtr broadcast_node(const NodePtr& a, const Shape& s) {
  if (a->shape() == s) return a;
  Shape check = broadcast_shapes(a->shape(), s);
  if (check != s)
    throw ShapeError(cat("cannot broadcast shape ", porta::to_string(a->shape()), " to ", porta::to_string(s)));
  auto snap = a->snapshot();
  if (!snap.evaluated) {
    if (snap.expr.op == Op::scalar) {
      Expr e = snap.expr;
      return std::make_shared<ArrayNode>(s, a->dtype(), a->device(), std::move(e));
    }
    PORTA_LOG(debug, "evaluating a lazy operand of shape ", porta::to_string(a->shape()), ": ", to_string(EvalReason::broadcast));
    evaluate(a);
    snap = a->snapshot();
  }
  const View& v = snap.view;
  std::vector<std::int64_t> strides(s.size(), 0);
  std::size_t lead = s.size() - a->shape().size();
  for (std::size_t i = 0; i < a->shape().size(); ++i)
    strides[lead + i] = (a->shape()[i] == 1 && s[lead + i] != 1) ? 0 : v.strides[i];
  return std::make_shared<ArrayNode>(s, a->dtype(), a->device(), View{v.buffer, v.offset, std::move(strides)});
}

DType result_dtype(std::initializer_list<const Operand*> ops) {
  std::optional<DType> arrays;
  int scalar_kind = -1;  // 0 bool, 1 int, 2 float, 3 complex
  bool big_unsigned = false;
  for (const Operand* o : ops) {
    switch (o->kind()) {
      case Operand::Kind::array: {
        DType t = o->array().dtype();
        arrays = arrays ? promote_types(*arrays, t) : t;
        break;
      }
      case Operand::Kind::boolean: scalar_kind = std::max(scalar_kind, 0); break;
      case Operand::Kind::integer:
        scalar_kind = std::max(scalar_kind, 1);
        big_unsigned = big_unsigned || o->big_unsigned();
        break;
      case Operand::Kind::floating: scalar_kind = std::max(scalar_kind, 2); break;
      case Operand::Kind::complex: scalar_kind = std::max(scalar_kind, 3); break;
    }
  }
  if (!arrays) {
    switch (scalar_kind) {
      case 3: return DType::complex128;
      case 2: return DType::float64;
      case 1: return big_unsigned ? DType::uint64 : DType::int64;
      default: return DType::boolean;
    }
  }
  // Weak host numbers (NumPy 2): they take the array's dtype where it is of their kind or a
  // higher one; else the default dtype of their kind (a float with integers: float64), a complex
  // with floats the complex of the float's width.
  DType a = *arrays;
  if (scalar_kind == 3 && !is_complex(a)) return is_floating(a) ? complex_dtype(a) : DType::complex128;
  if (scalar_kind == 2 && !is_inexact(a)) return DType::float64;
  // A bool array with an int: int64, as NumPy 2's (a number above INT64_MAX is an OverflowError there).
  if (scalar_kind == 1 && a == DType::boolean) return DType::int64;
  return a;
}

bool integer_fits(const Operand& o, DType t) {
  if (o.kind() != Operand::Kind::integer || !is_integral(t)) return true;
  const IntInfo info = iinfo(t);
  if (o.big_unsigned()) return t == DType::uint64;
  const std::int64_t i = o.integer();
  return i >= info.min && (i < 0 || static_cast<std::uint64_t>(i) <= info.max);
}

Resolved resolve(std::initializer_list<const Operand*> ops, std::optional<DType> force) {
  Resolved r;
  r.nodes.reserve(ops.size());
  bool have_device = false;
  bool have_shape = false;
  NodePtr first;
  for (const Operand* o : ops) {
    if (o->kind() != Operand::Kind::array) continue;
    NodePtr n = node_of(o->array(), "operand");
    if (!have_device) {
      r.device = n->device();
      first = n;
      have_device = true;
    } else {
      check_same_device(first, n, "elementwise operation");
    }
    if (!have_shape) r.shape = n->shape();
    else if (r.shape != n->shape()) r.shape = broadcast_shapes(r.shape, n->shape());
    have_shape = true;
  }
  if (!have_device) r.device = current_device();
  r.dtype = force ? *force : result_dtype(ops);
  for (const Operand* o : ops) {
    if (o->kind() == Operand::Kind::array) {
      r.nodes.push_back(cast(broadcast_node(o->array().node(), r.shape), r.dtype));
      continue;
    }
    const bool inexact = o->kind() == Operand::Kind::floating || o->kind() == Operand::Kind::complex;
    double f = inexact ? o->floating() : o->integer_value();
    std::int64_t i = inexact ? float_to_int(o->floating(), r.dtype) : o->integer();
    if (!integer_fits(*o, r.dtype))
      throw InvalidArgument(cat("the number ", o->big_unsigned() ? cat(static_cast<std::uint64_t>(o->integer())) : cat(o->integer()),
                                " does not fit in ", name(r.dtype), ", the dtype of the array it meets (NumPy 2 raises ",
                                "OverflowError); use astype() to a wider dtype first"));
    r.nodes.push_back(make_scalar(f, i, r.dtype, r.shape, r.device, o->imag()));
  }
  return r;
}

}  // namespace porta::detail
