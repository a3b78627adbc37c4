// matmul and dot: shapes and dtypes checked here, operands passed to the backend as row-major
// or transposed views (no copy when a view already has unit stride in one of its two axes).
// Complex and integer products go to the backend where its Capabilities say it multiplies them;
// integers and bool elsewhere are summed products (docs/design/plugins.md#capabilities).
#include <porta/linalg.hpp>
#include <porta/error.hpp>
#include <porta/ops.hpp>
#include <porta/reduce.hpp>

#include <algorithm>

#include "runtime/device_state.hpp"
#include "porta_backend/settings.hpp"
#include "lazy/expr.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta {

using detail::cat;

namespace {

bool tf32_from_env() {
  static const bool tf32 = setting_choice("PORTA_MATMUL") == "tf32";
  return tf32;
}

// One operand as (batch, rows, cols) with how the backend reads it.
struct Operand3 {
  detail::View view;
  std::int64_t batch, rows, cols;
  std::int64_t ld = 0, batch_stride = 0;
  bool trans = false;
};

Operand3 prepare(Array x, std::int64_t batch, std::int64_t rows, std::int64_t cols) {
  // x has shape (rows, cols) or (b, rows, cols) with b in {1, batch}.
  auto layout = [&](const detail::View& v, Operand3& o) {
    std::size_t r = v.strides.size() == 3 ? 1 : 0;
    if (r == 1 && x.shape()[0] != 1 && v.strides[0] < 0) return false;  // a batch read backwards: copied
    std::int64_t sr = v.strides[r], sc = v.strides[r + 1];
    if ((sc == 1 || cols == 1) && sr >= std::max<std::int64_t>(cols, 1)) {
      o.trans = false;
      o.ld = std::max<std::int64_t>(sr, std::max<std::int64_t>(cols, 1));
      if (rows == 1) o.ld = std::max<std::int64_t>(cols, 1);
      return true;
    }
    if ((sr == 1 || rows == 1) && sc >= std::max<std::int64_t>(rows, 1)) {
      o.trans = true;
      o.ld = std::max<std::int64_t>(sc, std::max<std::int64_t>(rows, 1));
      if (cols == 1) o.ld = std::max<std::int64_t>(rows, 1);
      return true;
    }
    return false;
  };
  Operand3 o{detail::evaluate(x.node()), batch, rows, cols};
  if (!layout(o.view, o)) {
    x = x.copy();
    o.view = detail::evaluate(x.node());
    layout(o.view, o);
  }
  o.batch_stride = (o.view.strides.size() == 3 && x.shape()[0] != 1) ? o.view.strides[0] : 0;
  return o;
}

// C = A B of integer or bool operands (2-D or 3-D, shapes checked) on a device whose matmul does
// not take them: products broadcast to (batch, m, k, n) and summed over k, in `t` (wrapping).
Array summed_products(const Array& a, const Array& b, DType t) {
  Shape sa = a.shape(), sb = b.shape();
  sa.push_back(1);             // (..., m, k, 1)
  sb.insert(sb.end() - 2, 1);  // (..., 1, k, n)
  const Array x = a.reshape(sa), y = b.reshape(sb);
  if (t == DType::boolean) return any(logical_and(x, y), -2);
  return sum(multiply(x, y), -2).astype(t);
}

}  // namespace

namespace {

// NumPy's matmul of operands of 4 or more dimensions: the dimensions before the last two
// broadcast, and each pair of matrices is multiplied; here as one batch of the broadcast leading
// shape's size (an operand without leading dimensions stays 2-D: the batched GEMM reuses it).
Array matmul_stacked(const Array& a_in, const Array& b_in, MatmulPrecision precision) {
  const Shape as = a_in.shape(), bs = b_in.shape();
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  const Array a = a_vec ? a_in.reshape({1, as[0]}) : a_in, b = b_vec ? b_in.reshape({bs[0], 1}) : b_in;
  const std::int64_t m = a.dim(-2), k = a.dim(-1), k2 = b.dim(-2), n = b.dim(-1);
  if (k != k2)
    throw ShapeError(cat("matmul of shapes ", to_string(as), " and ", to_string(bs), ": the inner dimensions ", k, " and ", k2, " differ"));
  const Shape la(a.shape().begin(), a.shape().end() - 2), lb(b.shape().begin(), b.shape().end() - 2);
  Shape lead;
  try {
    lead = detail::broadcast_shapes(la, lb);
  } catch (const ShapeError&) {
    throw ShapeError(cat("matmul of shapes ", to_string(as), " and ", to_string(bs), ": the leading (batch) dimensions ",
                         to_string(la), " and ", to_string(lb), " do not broadcast"));
  }
  std::int64_t batch = 1;
  for (std::int64_t d : lead) batch *= d;
  auto stack = [&](const Array& x, const Shape& l, std::int64_t r, std::int64_t c) {
    if (l.empty()) return x;
    Shape full = lead;
    full.push_back(r);
    full.push_back(c);
    return (l == lead ? x : x.broadcast_to(full)).reshape({batch, r, c});
  };
  Shape out = lead;
  if (!a_vec) out.push_back(m);
  if (!b_vec) out.push_back(n);
  return matmul(stack(a, la, m, k), stack(b, lb, k, n), precision).reshape(out);
}

}  // namespace

Array matmul(const Array& a_in, const Array& b_in, MatmulPrecision precision) {
  auto an = detail::node_of(a_in, "matmul");
  auto bn = detail::node_of(b_in, "matmul");
  detail::check_same_device(an, bn, "matmul");
  const Device& device = an->device();
  Shape as = an->shape(), bs = bn->shape();
  if (as.empty() || bs.empty()) throw ShapeError("matmul: operands must have at least one dimension (use multiply for scalars)");
  if (as.size() > 3 || bs.size() > 3) return matmul_stacked(a_in, b_in, precision);
  DType t = promote_types(an->dtype(), bn->dtype());
  detail::check_dtype(device, t);
  const detail::Capabilities& caps = device.impl().info().caps;
  if (is_complex(t) && !caps.complex_gemm)
    throw DTypeError(cat("matmul of ", name(t), " on ", device.spec(), ": this device's matmul (", device.impl().info().matmul,
                         ") has no complex product; move the arrays to another device, or multiply the real and "
                         "imaginary parts as float matrices"));
  // Integers and bool without the device's integer GEMM: summed products (exact, m x k x n memory).
  const bool summed = (is_integral(t) || t == DType::boolean) && !caps.integer_gemm;
  bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  Array a = a_in.astype(t), b = b_in.astype(t);
  if (a_vec) a = a.reshape({1, as[0]});
  if (b_vec) b = b.reshape({bs[0], 1});
  Shape sa = a.shape(), sb = b.shape();
  std::int64_t m = sa[sa.size() - 2], k = sa[sa.size() - 1], k2 = sb[sb.size() - 2], n = sb[sb.size() - 1];
  if (k != k2)
    throw ShapeError(cat("matmul of shapes ", to_string(as), " and ", to_string(bs), ": the inner dimensions ", k, " and ", k2, " differ"));
  std::int64_t ba = sa.size() == 3 ? sa[0] : 1, bb = sb.size() == 3 ? sb[0] : 1;
  if (ba != bb && ba != 1 && bb != 1)
    throw ShapeError(cat("matmul of shapes ", to_string(as), " and ", to_string(bs), ": batch sizes ", ba, " and ", bb,
                         " differ (one of them may be 1)"));
  std::int64_t batch = std::max(ba, bb);
  bool batched = sa.size() == 3 || sb.size() == 3;

  Shape out_shape;
  if (batched) out_shape.push_back(batch);
  if (!a_vec) out_shape.push_back(m);
  if (!b_vec) out_shape.push_back(n);
  if (batch * m * n == 0) return empty(out_shape, t, device);
  if (k == 0) return zeros(out_shape, t, device).copy();
  if (summed) return summed_products(a, b, t).reshape(out_shape);
  if (t == DType::boolean) {
    // Whether any pair is true in both: the count of such pairs, exact in int32 below 2^31 terms.
    const DType count = k < (std::int64_t{1} << 31) ? DType::int32 : DType::int64;
    return not_equal(matmul(a.astype(count), b.astype(count), precision), 0).reshape(out_shape);
  }

  Operand3 pa = prepare(a, batch, m, k), pb = prepare(b, batch, k, n);
  auto c = detail::make_buffer_node({batch, m, n}, t, device);
  detail::MatmulArgs g;
  g.dtype = t;
  g.batch = batch;
  g.m = m;
  g.n = n;
  g.k = k;
  g.a = pa.view.buffer->handle();
  g.b = pb.view.buffer->handle();
  g.c = c->view().buffer->handle();
  g.a_offset = pa.view.offset;
  g.b_offset = pb.view.offset;
  g.lda = pa.ld;
  g.ldb = pb.ld;
  g.ldc = n;
  g.trans_a = pa.trans;
  g.trans_b = pb.trans;
  g.stride_a = pa.batch_stride;
  g.stride_b = pb.batch_stride;
  g.stride_c = m * n;
  g.allow_tf32 = precision == MatmulPrecision::tf32 || (precision == MatmulPrecision::from_env && tf32_from_env());
  g.allow_3m = precision == MatmulPrecision::complex_3m;
  const auto& q = detail::thread_queue_shared(device);
  pa.view.buffer->before_read(q);
  pb.view.buffer->before_read(q);
  device.impl().matmul(*q, g);
  c->view().buffer->after_write(q);
  return Array(c).reshape(out_shape);
}

Array dot(const Array& a, const Array& b) {
  if (a.ndim() != 1 || b.ndim() != 1)
    throw ShapeError(cat("dot takes two 1-D arrays; got shapes ", to_string(a.shape()), " and ", to_string(b.shape()),
                         " (use matmul for matrices)"));
  return matmul(a, b);
}

}  // namespace porta
