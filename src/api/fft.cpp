// porta::fft (include/porta/fft.hpp; docs/design/fft.md). The core turns every call into
// batched, unnormalised transforms over the trailing axes of C-contiguous arrays, which the
// device's plans (DeviceImpl::make_fft_plan, cached per device) run: other axes are moved last
// by a transposed copy and moved back as a view; n / s crop (a view) or zero-pad (a
// concatenation); the norm's scale is a lazy multiply that the next elementwise work fuses.
#include <porta/fft.hpp>

#include <porta/error.hpp>
#include <porta/manip.hpp>
#include <porta/ops.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "api/axes.hpp"
#include "lazy/expr.hpp"
#include "porta_backend/strings.hpp"
#include "runtime/device_state.hpp"

namespace porta::fft {

using detail::cat;
using detail::FftKind;

namespace {

// NumPy 2's result dtypes: float32 (and the 16-bit floats) stay single precision, the rest double.
DType complex_for(DType t) {
  if (is_complex(t)) return t;
  if (t == DType::float16 || t == DType::bfloat16 || t == DType::float32) return DType::complex64;
  return DType::complex128;
}

DType real_for(DType t, const char* what) {
  if (is_complex(t))
    throw DTypeError(cat(what, " of a ", name(t), " array: the input must be real (take real() or use fft)"));
  if (t == DType::float16 || t == DType::bfloat16 || t == DType::float32) return DType::float32;
  return DType::float64;
}

// The input cropped or zero-padded to n along axis ax.
Array resized(const Array& a, int ax, std::int64_t n) {
  const std::int64_t len = a.dim(ax);
  if (n == len) return a;
  if (n < len) {
    std::vector<Slice> slices(static_cast<std::size_t>(ax), span);
    slices.push_back(upto(n));
    return a.slice(slices);
  }
  Shape pad = a.shape();
  pad[static_cast<std::size_t>(ax)] = n - len;
  return concatenate({a, zeros(pad, a.dtype(), a.device())}, ax);
}

void check_length(std::int64_t n, const char* what) {
  if (n < 1) throw InvalidArgument(cat(what, ": invalid number of data points (", n, "); the length must be at least 1"));
}

// `batch` x lengths transforms of kind `kind` over the trailing axes `axes` (distinct, in order,
// at most the device's fft_max_rank) of `x`, whose dtype is the transform's input dtype. For c2r,
// `c2r_n` is the real length of the last axis.
Array run_plan(const Array& x, const std::vector<int>& axes, FftKind kind, bool forward, std::int64_t c2r_n, const char* what) {
  const int nd = x.ndim();
  std::vector<int> perm;
  for (int i = 0; i < nd; ++i)
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) perm.push_back(i);
  const std::size_t batch_axes = perm.size();
  perm.insert(perm.end(), axes.begin(), axes.end());
  Array moved = x.transpose(perm);

  const DType in_t = x.dtype();
  const DType cplx = kind == FftKind::r2c ? complex_dtype(in_t) : in_t;
  const DType out_t = kind == FftKind::c2r ? real_dtype(in_t) : cplx;
  Shape out_shape = moved.shape();
  if (kind == FftKind::r2c) out_shape.back() = out_shape.back() / 2 + 1;
  if (kind == FftKind::c2r) out_shape.back() = c2r_n;
  std::vector<std::int64_t> lengths(moved.shape().begin() + static_cast<std::ptrdiff_t>(batch_axes), moved.shape().end());
  if (kind == FftKind::c2r) lengths.back() = c2r_n;
  std::int64_t batch = 1;
  for (std::size_t i = 0; i < batch_axes; ++i) batch *= moved.dim(static_cast<int>(i));

  std::vector<int> back(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) back[static_cast<std::size_t>(perm[i])] = static_cast<int>(i);
  const Device& device = x.device();
  if (batch == 0) return empty(out_shape, out_t, device).transpose(back);

  detail::DeviceImpl& impl = device.impl();
  detail::FftDesc desc;
  desc.dtype = cplx;
  desc.kind = kind;
  desc.lengths = lengths;
  desc.batch = batch;
  auto plan = impl.state().fft_plans().get(desc);

  // The input as a C-contiguous array from its buffer's first byte; a copy of porta's own where
  // the plan writes into its input.
  Array in = moved;
  bool own = false;
  {
    const detail::View& v = detail::evaluate(in.node());
    if (!in.is_contiguous() || v.offset != 0) {
      in = moved.copy();
      own = true;
    }
  }
  if (plan->overwrites_input() && !own) in = in.copy();
  const detail::View& iv = detail::evaluate(in.node());
  auto out = detail::make_buffer_node(out_shape, out_t, device);
  const auto& q = detail::thread_queue_shared(device);
  if (q->capturing())
    throw InvalidArgument(cat(what, " on ", device.spec(), ": FFTs cannot be recorded into a graph yet; run it outside capture"));
  if (plan->overwrites_input()) iv.buffer->before_write(q);
  else iv.buffer->before_read(q);
  plan->execute(*q, iv.buffer->handle(), out->view().buffer->handle(), forward);
  if (plan->overwrites_input()) iv.buffer->after_write(q);
  out->view().buffer->after_write(q);
  return Array(out).transpose(back);
}

// The axes of a transform, normalised; NumPy's s/axes defaults (s alone: the last s.size() axes).
struct Plan {
  std::vector<int> axes;
  std::vector<std::int64_t> lengths;  // the transform lengths (the output's for c2r)
};

Plan plan_axes(const Array& a, const Lengths& s, const Axes& axes, const char* what) {
  const int nd = a.ndim();
  Plan p;
  if (axes) {
    for (int ax : *axes) p.axes.push_back(detail::normalize_axis_for(ax, nd, what));
  } else {
    const int k = s ? static_cast<int>(s->size()) : nd;
    if (k > nd) throw InvalidArgument(cat(what, ": s has ", k, " lengths but the array only ", nd, " axes"));
    for (int i = nd - k; i < nd; ++i) p.axes.push_back(i);
  }
  if (nd == 0) throw InvalidArgument(cat(what, ": a 0-d array has no axis to transform"));
  if (s) {
    if (s->size() != p.axes.size())
      throw InvalidArgument(cat(what, ": s has ", s->size(), " lengths for ", p.axes.size(), " axes; give one per axis"));
    p.lengths = *s;
  } else {
    for (int ax : p.axes) p.lengths.push_back(a.dim(ax));
  }
  return p;
}

double scale_of(Norm norm, bool forward, double n) {
  switch (norm) {
    case Norm::backward: return forward ? 1.0 : 1.0 / n;
    case Norm::ortho: return 1.0 / std::sqrt(n);
    case Norm::forward: return forward ? 1.0 / n : 1.0;
  }
  return 1.0;
}

Array scaled(const Array& r, Norm norm, bool forward, double n) {
  const double f = scale_of(norm, forward, n);
  return f == 1.0 ? r : multiply(r, f);
}

// c2c transforms along `axes` in groups the device plans at once: consecutive distinct axes.
// A transform of length 1 is the identity: no plan (VkFFT refuses length 1).
Array c2c_axes(Array x, std::vector<int> axes, bool forward, const char* what) {
  axes.erase(std::remove_if(axes.begin(), axes.end(), [&](int ax) { return x.dim(ax) == 1; }), axes.end());
  const int rank = std::max(1, x.device().impl().info().caps.fft_max_rank);
  std::size_t i = axes.size();
  while (i > 0) {
    std::vector<int> group;
    // Transform from the last axis back (NumPy's order; equal in exact arithmetic either way).
    while (i > 0 && static_cast<int>(group.size()) < rank &&
           std::find(group.begin(), group.end(), axes[i - 1]) == group.end()) {
      group.insert(group.begin(), axes[i - 1]);
      --i;
    }
    // A group's axes go last in the order given, so that a plan's innermost axis is the last.
    x = run_plan(x, group, FftKind::c2c, forward, 0, what);
  }
  return x;
}

bool repeats(const std::vector<int>& axes) {
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (std::find(axes.begin() + static_cast<std::ptrdiff_t>(i) + 1, axes.end(), axes[i]) != axes.end()) return true;
  return false;
}

Array c2c_nd(const Array& a, const Plan& p, bool forward, Norm norm, const char* what) {
  detail::node_of(a, what);
  Array x = a.astype(complex_for(a.dtype()));
  detail::check_dtype(x.device(), x.dtype());
  if (repeats(p.axes)) {
    // An axis named twice: NumPy's order, each axis cropped or padded to its length and
    // transformed in turn from the last, each with its own scale.
    for (std::size_t i = p.axes.size(); i-- > 0;) {
      check_length(p.lengths[i], what);
      x = resized(x, p.axes[i], p.lengths[i]);
      if (x.size() != 0) x = c2c_axes(x, {p.axes[i]}, forward, what);
      x = scaled(x, norm, forward, static_cast<double>(p.lengths[i]));
    }
    return x.size() == 0 ? x.copy() : x;
  }
  double n = 1;
  for (std::size_t i = 0; i < p.axes.size(); ++i) {
    check_length(p.lengths[i], what);
    x = resized(x, p.axes[i], p.lengths[i]);
    n *= static_cast<double>(p.lengths[i]);
  }
  if (x.size() == 0) return scaled(x.copy(), norm, forward, n);
  return scaled(c2c_axes(x, p.axes, forward, what), norm, forward, n);
}

Array r2c_nd(const Array& a, const Plan& p, Norm norm, const char* what) {
  detail::node_of(a, what);
  if (p.axes.empty()) throw InvalidArgument(cat(what, ": no axis to transform"));
  if (repeats(p.axes))
    throw InvalidArgument(cat(what, ": an axis is named twice in ", to_string(Shape(p.axes.begin(), p.axes.end())),
                              "; name each axis once (fftn transforms an axis twice where NumPy's does)"));
  Array x = a.astype(real_for(a.dtype(), what));
  detail::check_dtype(x.device(), complex_dtype(x.dtype()));
  double n = 1;
  for (std::size_t i = 0; i < p.axes.size(); ++i) {
    check_length(p.lengths[i], what);
    x = resized(x, p.axes[i], p.lengths[i]);
    n *= static_cast<double>(p.lengths[i]);
  }
  const int last = p.axes.back();
  Array y;
  if (x.size() == 0) {
    Shape sh = x.shape();
    sh[static_cast<std::size_t>(last)] = sh[static_cast<std::size_t>(last)] / 2 + 1;
    y = zeros(sh, complex_dtype(x.dtype()), x.device());
  } else {
    y = x.dim(last) == 1 ? x.astype(complex_dtype(x.dtype())) : run_plan(x, {last}, FftKind::r2c, true, 0, what);
    y = c2c_axes(y, std::vector<int>(p.axes.begin(), p.axes.end() - 1), true, what);
  }
  return scaled(y, norm, true, n);
}

Array c2r_nd(const Array& a, const Lengths& s, const Axes& axes, Norm norm, const char* what) {
  detail::node_of(a, what);
  Plan p = plan_axes(a, s, axes, what);
  if (p.axes.empty()) throw InvalidArgument(cat(what, ": no axis to transform"));
  if (repeats(p.axes))
    throw InvalidArgument(cat(what, ": an axis is named twice in ", to_string(Shape(p.axes.begin(), p.axes.end())),
                              "; name each axis once (ifftn transforms an axis twice where NumPy's does)"));
  const int last = p.axes.back();
  if (!s) p.lengths.back() = 2 * (a.dim(last) - 1);
  Array x = a.astype(complex_for(a.dtype()));
  detail::check_dtype(x.device(), x.dtype());
  double n = 1;
  for (std::size_t i = 0; i < p.axes.size(); ++i) {
    check_length(p.lengths[i], what);
    n *= static_cast<double>(p.lengths[i]);
  }
  const std::int64_t nlast = p.lengths.back();
  for (std::size_t i = 0; i + 1 < p.axes.size(); ++i) x = resized(x, p.axes[i], p.lengths[i]);
  x = resized(x, last, nlast / 2 + 1);
  const std::vector<int> rest(p.axes.begin(), p.axes.end() - 1);
  Array y;
  if (x.size() == 0) {
    Shape sh = x.shape();
    sh[static_cast<std::size_t>(last)] = nlast;
    y = zeros(sh, real_dtype(x.dtype()), x.device());
  } else {
    x = c2c_axes(x, rest, false, what);
    y = nlast == 1 ? real(x) : run_plan(x, {last}, FftKind::c2r, false, nlast, what);
  }
  return scaled(y, norm, false, n);
}

Plan one_axis(const Array& a, std::optional<std::int64_t> n, int axis, const char* what) {
  detail::node_of(a, what);
  if (a.ndim() == 0) throw InvalidArgument(cat(what, ": a 0-d array has no axis to transform"));
  Plan p;
  p.axes = {detail::normalize_axis_for(axis, a.ndim(), what)};
  p.lengths = {n ? *n : a.dim(p.axes[0])};
  return p;
}

Norm swapped(Norm norm) {
  return norm == Norm::backward ? Norm::forward : norm == Norm::forward ? Norm::backward : Norm::ortho;
}

Array shifted(const Array& a, const Axes& axes, bool inverse, const char* what) {
  detail::node_of(a, what);
  std::vector<int> ax;
  if (axes) {
    for (int i : *axes) ax.push_back(detail::normalize_axis_for(i, a.ndim(), what));
  } else {
    for (int i = 0; i < a.ndim(); ++i) ax.push_back(i);
  }
  Array r = a;
  for (int i : ax) {
    const std::int64_t len = a.dim(i);
    r = roll(r, inverse ? -(len / 2) : len / 2, i);
  }
  return ax.empty() ? a.copy() : r;
}

Array frequencies(std::int64_t n, double d, DType t, const Device& device, bool real, const char* what) {
  if (n < 1) throw InvalidArgument(cat(what, ": n is ", n, "; it must be at least 1"));
  if (!is_floating(t))
    throw DTypeError(cat(what, ": the frequencies are floating-point; ", name(t), " is not"));
  // NumPy's: the integers k times 1 / (n d), computed in double as NumPy does and rounded once.
  const std::int64_t count = real ? n / 2 + 1 : n;
  const double val = 1.0 / (static_cast<double>(n) * d);
  std::vector<double> v(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t k = (real || i <= (n - 1) / 2) ? i : i - n;
    v[static_cast<std::size_t>(i)] = static_cast<double>(k) * val;
  }
  return from_host(v, Shape{count}, device).astype(t);
}

}  // namespace

Norm norm_from_string(std::string_view s) {
  if (s == "backward") return Norm::backward;
  if (s == "ortho") return Norm::ortho;
  if (s == "forward") return Norm::forward;
  throw InvalidArgument(cat("fft: norm \"", s, "\" is not one of \"backward\", \"ortho\", \"forward\""));
}

Array fft(const Array& a, std::optional<std::int64_t> n, int axis, Norm norm) {
  return c2c_nd(a, one_axis(a, n, axis, "fft"), true, norm, "fft");
}
Array ifft(const Array& a, std::optional<std::int64_t> n, int axis, Norm norm) {
  return c2c_nd(a, one_axis(a, n, axis, "ifft"), false, norm, "ifft");
}
Array rfft(const Array& a, std::optional<std::int64_t> n, int axis, Norm norm) {
  return r2c_nd(a, one_axis(a, n, axis, "rfft"), norm, "rfft");
}
Array irfft(const Array& a, std::optional<std::int64_t> n, int axis, Norm norm) {
  detail::node_of(a, "irfft");
  if (a.ndim() == 0) throw InvalidArgument("irfft: a 0-d array has no axis to transform");
  return c2r_nd(a, n ? Lengths{{*n}} : Lengths{}, Axes{{axis}}, norm, "irfft");
}
Array hfft(const Array& a, std::optional<std::int64_t> n, int axis, Norm norm) {
  detail::node_of(a, "hfft");
  if (a.ndim() == 0) throw InvalidArgument("hfft: a 0-d array has no axis to transform");
  const Array x = a.astype(complex_for(a.dtype()));
  return c2r_nd(conj(x), n ? Lengths{{*n}} : Lengths{}, Axes{{axis}}, swapped(norm), "hfft");
}
Array ihfft(const Array& a, std::optional<std::int64_t> n, int axis, Norm norm) {
  return conj(r2c_nd(a, one_axis(a, n, axis, "ihfft"), swapped(norm), "ihfft"));
}

Array fftn(const Array& a, Lengths s, Axes axes, Norm norm) {
  detail::node_of(a, "fftn");
  return c2c_nd(a, plan_axes(a, s, axes, "fftn"), true, norm, "fftn");
}
Array ifftn(const Array& a, Lengths s, Axes axes, Norm norm) {
  detail::node_of(a, "ifftn");
  return c2c_nd(a, plan_axes(a, s, axes, "ifftn"), false, norm, "ifftn");
}
Array rfftn(const Array& a, Lengths s, Axes axes, Norm norm) {
  detail::node_of(a, "rfftn");
  return r2c_nd(a, plan_axes(a, s, axes, "rfftn"), norm, "rfftn");
}
Array irfftn(const Array& a, Lengths s, Axes axes, Norm norm) { return c2r_nd(a, s, axes, norm, "irfftn"); }
Array fft2(const Array& a, Lengths s, std::vector<int> axes, Norm norm) { return fftn(a, std::move(s), std::move(axes), norm); }
Array ifft2(const Array& a, Lengths s, std::vector<int> axes, Norm norm) { return ifftn(a, std::move(s), std::move(axes), norm); }
Array rfft2(const Array& a, Lengths s, std::vector<int> axes, Norm norm) { return rfftn(a, std::move(s), std::move(axes), norm); }
Array irfft2(const Array& a, Lengths s, std::vector<int> axes, Norm norm) { return irfftn(a, std::move(s), std::move(axes), norm); }

Array fftfreq(std::int64_t n, double d, DType t, Device device) { return frequencies(n, d, t, device, false, "fftfreq"); }
Array rfftfreq(std::int64_t n, double d, DType t, Device device) { return frequencies(n, d, t, device, true, "rfftfreq"); }
Array fftshift(const Array& a, Axes axes) { return shifted(a, axes, false, "fftshift"); }
Array ifftshift(const Array& a, Axes axes) { return shifted(a, axes, true, "ifftshift"); }

}  // namespace porta::fft
