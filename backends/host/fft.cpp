// porta's host FFT (fft.hpp). Stockham's autosort form needs no bit reversal: each stage reads
// n/radix groups of `radix` elements spaced n/radix apart, twiddles them, transforms them and
// writes them spaced ns apart into the other buffer (Govindaraju et al., "High performance
// discrete Fourier transforms on graphics processors", 2008). Twiddles are computed in long
// double from exact integer angles (k r mod ns radix), so float64 keeps its precision at any
// length.
#include "host/fft.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <thread>

#include "porta_backend/strings.hpp"

namespace porta::detail {

namespace {

// exp(-2 pi i num / den) with num reduced mod den first, computed in long double.
template <class T> std::complex<T> root(std::int64_t num, std::int64_t den) {
  num %= den;
  if (num < 0) num += den;
  const long double a = -2.0L * std::numbers::pi_v<long double> * static_cast<long double>(num) / static_cast<long double>(den);
  return {static_cast<T>(std::cos(a)), static_cast<T>(std::sin(a))};
}

// The radices of n: 8s first, then a 4 or a 2 for the rest of a power of two (fewest passes
// over the data), then 3, 5, 7, 11, 13; empty when n has a prime factor above 13 (Bluestein then).
std::vector<int> factor(std::int64_t n) {
  std::vector<int> f;
  for (int p : {8, 4, 2, 3, 5, 7, 11, 13})
    while (n % p == 0) f.push_back(p), n /= p;
  if (n != 1) return {};
  return f;
}

// Written out rather than std::complex's operator*, whose C99 NaN recovery (__mulsc3) costs a
// branch per product and keeps the loops from being vectorised; NaNs still propagate.
template <class T> inline std::complex<T> mul(std::complex<T> a, std::complex<T> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
// d times -i (forward) or +i (backward).
template <bool Forward, class T> inline std::complex<T> rot(std::complex<T> d) {
  return Forward ? std::complex<T>(d.imag(), -d.real()) : std::complex<T>(-d.imag(), d.real());
}

// The radix-2/4/8 passes work on GCC/Clang vector types of one or two complex numbers (re, im,
// re, im): SSE2 on x86-64, NEON on arm64. Two complex64 a vector where ns is even, halving the
// instructions of a pass; written for vectors, the butterflies also keep their values in
// registers (as std::complex<float> scalars, a radix-8 butterfly spilled to the stack).
typedef float F32x2 __attribute__((vector_size(8)));
typedef float F32x4 __attribute__((vector_size(16)));
typedef double F64x2 __attribute__((vector_size(16)));
template <class V> struct Elem;
template <> struct Elem<F32x2> { using type = float; };
template <> struct Elem<F32x4> { using type = float; };
template <> struct Elem<F64x2> { using type = double; };
template <class V> constexpr int lanes = sizeof(V) / sizeof(typename Elem<V>::type);

template <class V> inline V load(const void* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class V> inline void store(void* p, V v) { std::memcpy(p, &v, sizeof v); }

// (re, im) -> (im, re); the real parts twice; the imaginary parts twice.
template <class V> inline V swap_ri(V a) {
  if constexpr (lanes<V> == 2) return __builtin_shufflevector(a, a, 1, 0);
  else return __builtin_shufflevector(a, a, 1, 0, 3, 2);
}
template <class V> inline V dup_re(V a) {
  if constexpr (lanes<V> == 2) return __builtin_shufflevector(a, a, 0, 0);
  else return __builtin_shufflevector(a, a, 0, 0, 2, 2);
}
template <class V> inline V dup_im(V a) {
  if constexpr (lanes<V> == 2) return __builtin_shufflevector(a, a, 1, 1);
  else return __builtin_shufflevector(a, a, 1, 1, 3, 3);
}
// (re, im) of each complex number in the vector.
template <class V, class T> inline V pair(T re, T im) {
  if constexpr (lanes<V> == 2) return V{re, im};
  else return V{re, im, re, im};
}

// a b (Forward) or a conj(b), each complex number of the vector.
template <bool Forward, class V> inline V cmul(V a, V b) {
  using T = typename Elem<V>::type;
  return a * dup_re(b) + swap_ri(a) * dup_im(b) * pair<V>(T(Forward ? -1 : 1), T(Forward ? 1 : -1));
}
// d times -i (forward) or +i (backward).
template <bool Forward, class V> inline V rot(V d) {
  using T = typename Elem<V>::type;
  return swap_ri(d) * pair<V>(T(Forward ? 1 : -1), T(Forward ? -1 : 1));
}

template <bool Forward, class V> inline void dft4(V& v0, V& v1, V& v2, V& v3) {
  const V a0 = v0 + v2, a1 = v0 - v2, a2 = v1 + v3, a3 = rot<Forward>(v1 - v3);
  v0 = a0 + a2;
  v1 = a1 + a3;
  v2 = a0 - a2;
  v3 = a1 - a3;
}

// The length-R DFT of v in place (R = 2, 4, 8).
template <int R, bool Forward, class V> inline void butterfly(V* v) {
  using T = typename Elem<V>::type;
  if constexpr (R == 2) {
    const V a = v[0];
    v[0] = a + v[1];
    v[1] = a - v[1];
  } else if constexpr (R == 4) {
    dft4<Forward>(v[0], v[1], v[2], v[3]);
  } else {
    // Even and odd halves, then the twiddles exp(-+2 pi i k / 8), k = 1, 2, 3 (as products
    // with exp(+-...) conjugated for the backward transform).
    dft4<Forward>(v[0], v[2], v[4], v[6]);
    dft4<Forward>(v[1], v[3], v[5], v[7]);
    const T h = static_cast<T>(0.707106781186547524400844362104849039L);
    const V o1 = cmul<Forward>(v[3], pair<V>(h, -h)), o2 = rot<Forward>(v[5]), o3 = cmul<Forward>(v[7], pair<V>(-h, -h));
    const V e0 = v[0], e1 = v[2], e2 = v[4], e3 = v[6], o0 = v[1];
    v[0] = e0 + o0;
    v[4] = e0 - o0;
    v[1] = e1 + o1;
    v[5] = e1 - o1;
    v[2] = e2 + o2;
    v[6] = e2 - o2;
    v[3] = e3 + o3;
    v[7] = e3 - o3;
  }
}

// One Stockham pass of radix R (2, 4, 8): for each block b of ns outputs and each k < ns, reads
// src[b ns + k + q n/R], twiddles, transforms, writes dst[b ns R + q ns + k]. The inner loop runs
// over k (K complex numbers a vector V), contiguous in src, dst and the twiddles.
template <int R, bool Forward, class V, class C>
void pass_v(const C* src, C* dst, std::int64_t n, std::int64_t ns, const C* tw) {
  constexpr int K = lanes<V> / 2;
  const std::int64_t g = n / R, blocks = g / ns;
  if (ns == 1) {
    for (std::int64_t b = 0; b < blocks; ++b) {
      V v[R];
      for (int q = 0; q < R; ++q) v[q] = load<V>(src + b + q * g);
      butterfly<R, Forward>(v);
      for (int q = 0; q < R; ++q) store(dst + b * R + q, v[q]);
    }
    return;
  }
  for (std::int64_t b = 0; b < blocks; ++b) {
    const C* s = src + b * ns;
    C* d = dst + b * ns * R;
    for (std::int64_t k = 0; k < ns; k += K) {
      V v[R];
      v[0] = load<V>(s + k);
      for (int q = 1; q < R; ++q) v[q] = cmul<Forward>(load<V>(s + k + q * g), load<V>(tw + (q - 1) * ns + k));
      butterfly<R, Forward>(v);
      for (int q = 0; q < R; ++q) store(d + k + q * ns, v[q]);
    }
  }
}

// Two complex64 a vector where ns is even, else one.
template <int R, bool Forward, class T>
void pass(const std::complex<T>* src, std::complex<T>* dst, std::int64_t n, std::int64_t ns, const std::complex<T>* tw) {
  if constexpr (sizeof(T) == 4) {
    if (ns % 2 == 0) return pass_v<R, Forward, F32x4>(src, dst, n, ns, tw);
    return pass_v<R, Forward, F32x2>(src, dst, n, ns, tw);
  } else {
    return pass_v<R, Forward, F64x2>(src, dst, n, ns, tw);
  }
}

// The same for the odd radices 3-13: a direct O(R^2) DFT of each group.
template <bool Forward, class T>
void pass_odd(const std::complex<T>* src, std::complex<T>* dst, std::int64_t n, std::int64_t ns, int r,
              const std::complex<T>* tw) {
  using C = std::complex<T>;
  C roots[13];
  for (int q = 0; q < r; ++q) roots[q] = Forward ? root<T>(q, r) : std::conj(root<T>(q, r));
  const std::int64_t g = n / r, blocks = g / ns;
  for (std::int64_t b = 0; b < blocks; ++b) {
    const C* s = src + b * ns;
    C* d = dst + b * ns * r;
    for (std::int64_t k = 0; k < ns; ++k) {
      C v[13];
      v[0] = s[k];
      for (int q = 1; q < r; ++q) {
        const C t = ns > 1 ? tw[(q - 1) * ns + k] : C(1);
        v[q] = mul(s[k + q * g], Forward ? t : std::conj(t));
      }
      for (int q = 0; q < r; ++q) {
        C acc = v[0];
        for (int p = 1; p < r; ++p) acc += mul(v[p], roots[(p * q) % r]);
        d[k + q * ns] = acc;
      }
    }
  }
}

}  // namespace

template <class T> HostFft<T>::~HostFft() = default;

template <class T> HostFft<T>::HostFft(std::int64_t n) : n_(n) {
  if (n < 1) throw InvalidArgument(cat("FFT of length ", n, ": the length must be at least 1"));
  if (n == 1) return;
  std::vector<int> radices = factor(n);
  if (!radices.empty()) {
    std::int64_t ns = 1;
    for (int r : radices) {
      Stage s;
      s.radix = r;
      s.ns = ns;
      if (ns > 1) {
        s.twiddles.resize(static_cast<std::size_t>(ns * (r - 1)));
        for (int q = 1; q < r; ++q)
          for (std::int64_t k = 0; k < ns; ++k) s.twiddles[static_cast<std::size_t>((q - 1) * ns + k)] = root<T>(k * q, ns * r);
      }
      stages_.push_back(std::move(s));
      ns *= r;
    }
    work_ = 2 * static_cast<std::size_t>(n);
    return;
  }
  // Bluestein: X[k] = c[k] sum_j (x[j] c[j]) conj(c[k - j]) with c[k] = exp(-i pi k^2 / n), a
  // cyclic convolution of length m >= 2n - 1 done by transforms of length m (a power of two).
  std::int64_t m = 1;
  while (m < 2 * n - 1) m *= 2;
  inner_ = std::make_unique<HostFft>(m);
  chirp_.resize(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) chirp_[static_cast<std::size_t>(k)] = root<T>((k * k) % (2 * n), 2 * n);
  chirp_spectrum_.assign(static_cast<std::size_t>(m), C(0));
  chirp_spectrum_[0] = std::conj(chirp_[0]);
  for (std::int64_t k = 1; k < n; ++k)
    chirp_spectrum_[static_cast<std::size_t>(k)] = chirp_spectrum_[static_cast<std::size_t>(m - k)] =
        std::conj(chirp_[static_cast<std::size_t>(k)]);
  std::vector<C> scratch(inner_->work_size());
  inner_->run(chirp_spectrum_.data(), chirp_spectrum_.data(), true, scratch.data());
  work_ = static_cast<std::size_t>(m) + inner_->work_size();
}

// The passes alternate between `out` and `work` so that the last writes `out`; the first reads
// `in` (a copy of it in work's second half when in is out and the first pass would write there).
template <class T> template <bool Forward> void HostFft<T>::stockham(const C* in, C* out, C* work) const {
  const std::int64_t n = n_;
  const std::size_t count = stages_.size();
  const C* src = in;
  if (in == out && count % 2 == 1) {
    std::memcpy(static_cast<void*>(work + n), in, static_cast<std::size_t>(n) * sizeof(C));
    src = work + n;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const Stage& s = stages_[i];
    C* dst = (count - 1 - i) % 2 == 0 ? out : work;
    const C* tw = s.twiddles.data();
    switch (s.radix) {
      case 2: pass<2, Forward>(src, dst, n, s.ns, tw); break;
      case 4: pass<4, Forward>(src, dst, n, s.ns, tw); break;
      case 8: pass<8, Forward>(src, dst, n, s.ns, tw); break;
      default: pass_odd<Forward>(src, dst, n, s.ns, s.radix, tw);
    }
    src = dst;
  }
}

template <class T> void HostFft<T>::bluestein(const C* in, C* out, bool forward, C* work) const {
  const std::int64_t n = n_, m = inner_->size();
  C* a = work;
  C* inner_work = work + m;
  // The backward transform is the conjugate of the forward one of the conjugate.
  for (std::int64_t k = 0; k < n; ++k) {
    const C x = forward ? in[k] : std::conj(in[k]);
    a[k] = mul(x, chirp_[static_cast<std::size_t>(k)]);
  }
  std::fill(a + n, a + m, C(0));
  inner_->run(a, a, true, inner_work);
  for (std::int64_t k = 0; k < m; ++k) a[k] = mul(a[k], chirp_spectrum_[static_cast<std::size_t>(k)]);
  inner_->run(a, a, false, inner_work);
  const T scale = T(1) / static_cast<T>(m);
  for (std::int64_t k = 0; k < n; ++k) {
    const C y = mul(a[k], chirp_[static_cast<std::size_t>(k)]) * scale;
    out[k] = forward ? y : std::conj(y);
  }
}

template <class T> void HostFft<T>::run(const C* in, C* out, bool forward, C* work) const {
  if (n_ == 1) {
    out[0] = in[0];
    return;
  }
  if (inner_) {
    bluestein(in, out, forward, work);
    return;
  }
  if (forward)
    stockham<true>(in, out, work);
  else
    stockham<false>(in, out, work);
}

template class HostFft<float>;
template class HostFft<double>;

namespace {

// Uninitialised complex numbers (std::complex is trivially copyable and destructible: an
// implicit-lifetime type, so raw storage holds them once written).
template <class C> struct FreeBytes {
  void operator()(C* p) const { ::operator delete(static_cast<void*>(p)); }
};
template <class C> std::unique_ptr<C[], FreeBytes<C>> uninitialised(std::size_t n) {
  return std::unique_ptr<C[], FreeBytes<C>>(static_cast<C*>(::operator new(std::max<std::size_t>(n, 1) * sizeof(C))));
}

// A batch of rank-1 transforms on host memory. Real transforms of even length n run as complex
// ones of length n/2 over the real line read as n/2 complex numbers z[j] = x[2j] + i x[2j+1]
// (the split of "Numerical Recipes" 12.3): half the work of widening x to complex.
template <class T> class HostFftPlan final : public FftPlanImpl {
 public:
  using C = std::complex<T>;
  HostFftPlan(const FftDesc& d, int threads)
      : desc_(d), n_(d.lengths.back()), packed_(d.kind != FftKind::c2c && n_ % 2 == 0), fft_(packed_ ? n_ / 2 : n_),
        threads_(std::max(threads, 1)) {
    if (packed_) {
      w_.resize(static_cast<std::size_t>(n_ / 2 + 1));
      for (std::int64_t k = 0; k <= n_ / 2; ++k) w_[static_cast<std::size_t>(k)] = root<T>(k, n_);
    }
  }

  using Scratch = std::unique_ptr<C[], FreeBytes<C>>;

  void execute(QueueImpl&, Handle in, Handle out, bool forward) override {
    const std::int64_t batch = desc_.batch;
    const int threads = static_cast<int>(std::min<std::int64_t>(batch * n_ >= (1 << 15) ? threads_ : 1, batch));
    // Scratch left uninitialised (a vector would zero it: another pass over the memory); two
    // lines more for real transforms (lines()).
    const std::size_t per_thread = fft_.work_size() + (desc_.kind != FftKind::c2c ? 2 * static_cast<std::size_t>(n_) : 0);
    Scratch work = uninitialised<C>(per_thread * static_cast<std::size_t>(threads));  // before any thread starts: may throw
    if (threads == 1) {
      lines(in, out, forward, 0, batch, work.get());
      return;
    }
    // Whole lines to each thread; the calling thread takes the first share.
    std::vector<std::thread> helpers;
    helpers.reserve(static_cast<std::size_t>(threads - 1));
    auto first = [&](int t) { return batch * t / threads; };
    try {
      for (int t = 1; t < threads; ++t)
        helpers.emplace_back([this, in, out, forward, b0 = first(t), b1 = first(t + 1), w = work.get() + per_thread * static_cast<std::size_t>(t)] {
          lines(in, out, forward, b0, b1, w);
        });
    } catch (...) {
      for (auto& h : helpers) h.join();
      throw;
    }
    lines(in, out, forward, 0, first(1), work.get());
    for (auto& h : helpers) h.join();
  }

 private:
  // Lines [b0, b1) of the batch; `work` holds fft_.work_size() + 2 n elements. Throws nothing.
  void lines(Handle in, Handle out, bool forward, std::int64_t b0, std::int64_t b1, C* work) const noexcept {
    const std::int64_t n = n_, half = n / 2 + 1;
    C* line = work + fft_.work_size();
    C* line2 = line + n;
    for (std::int64_t b = b0; b < b1; ++b) {
      switch (desc_.kind) {
        case FftKind::c2c:
          fft_.run(static_cast<const C*>(in) + b * n, static_cast<C*>(out) + b * n, forward, work);
          break;
        case FftKind::r2c: {
          const T* x = static_cast<const T*>(in) + b * n;
          C* y = static_cast<C*>(out) + b * half;
          if (packed_) {
            fft_.run(reinterpret_cast<const C*>(x), y, true, work);
            unpack(y);
            break;
          }
          for (std::int64_t j = 0; j < n; ++j) line[j] = C(x[j], 0);
          fft_.run(line, line2, true, work);
          std::memcpy(static_cast<void*>(y), line2, static_cast<std::size_t>(half) * sizeof(C));
          break;
        }
        case FftKind::c2r: {
          // The imaginary parts of X[0] and X[n/2] (n even) only add imaginary parts to the
          // result, which are dropped (NumPy's irfft does the same): they are ignored.
          const C* h = static_cast<const C*>(in) + b * half;
          T* y = static_cast<T*>(out) + b * n;
          if (packed_) {
            pack(h, line);
            fft_.run(line, reinterpret_cast<C*>(y), false, work);
            break;
          }
          line[0] = C(h[0].real(), 0);
          for (std::int64_t k = 1; k < half; ++k) line[k] = h[k];
          for (std::int64_t k = half; k < n; ++k) line[k] = std::conj(h[n - k]);
          fft_.run(line, line2, false, work);
          for (std::int64_t j = 0; j < n; ++j) y[j] = line2[j].real();
          break;
        }
      }
    }
  }

  // y[0, n/2) holds Z, the transform of z; writes X[0, n/2] in place: with E and O the
  // transforms of x's even and odd samples, Z[k] = E[k] + i O[k], conj(Z[h - k]) = E[k] - i O[k]
  // (x is real), and X[k] = E[k] + w^k O[k], w = exp(-2 pi i / n); X[h - k] uses conj(E[k]) and
  // conj(O[k]).
  void unpack(C* y) const {
    const std::int64_t h = n_ / 2;
    const C z0 = y[0];
    y[0] = C(z0.real() + z0.imag(), 0);
    y[h] = C(z0.real() - z0.imag(), 0);
    for (std::int64_t k = 1; 2 * k <= h; ++k) {
      const C zk = y[k], zm = std::conj(y[h - k]);
      const C e = (zk + zm) * T(0.5), o = rot_neg(zk - zm) * T(0.5);
      y[k] = e + mul(w_[static_cast<std::size_t>(k)], o);
      if (2 * k != h) y[h - k] = std::conj(e) + mul(w_[static_cast<std::size_t>(h - k)], std::conj(o));
    }
  }
  // The inverse: Z[k] = (X[k] + conj(X[h - k])) + i conj(w^k) (X[k] - conj(X[h - k])) for k < h,
  // twice E + i O, whose unnormalised inverse transform of length h is n (x[2j] + i x[2j+1]).
  void pack(const C* x, C* z) const {
    const std::int64_t h = n_ / 2;
    for (std::int64_t k = 0; k < h; ++k) {
      const C xk = k == 0 ? C(x[0].real(), 0) : x[k];
      const C xm = std::conj(k == 0 ? C(x[h].real(), 0) : x[h - k]);
      const C d = xk - xm;
      z[k] = (xk + xm) + rot_pos(mul(std::conj(w_[static_cast<std::size_t>(k)]), d));
    }
  }
  static C rot_neg(C d) { return C(d.imag(), -d.real()); }  // -i d
  static C rot_pos(C d) { return C(-d.imag(), d.real()); }  // +i d

  FftDesc desc_;
  std::int64_t n_;
  bool packed_;
  HostFft<T> fft_;
  int threads_;
  std::vector<C> w_;  // exp(-2 pi i k / n), k <= n/2 (packed real transforms)
};

}  // namespace

std::shared_ptr<FftPlanImpl> make_host_fft_plan(const FftDesc& d, const std::string& device_label, int threads) {
  if (d.lengths.size() != 1)
    throw InvalidArgument(cat("fft on ", device_label, ": plans of rank ", d.lengths.size(), " (this device transforms one axis at a time)"));
  if (d.lengths[0] < 1 || d.batch < 1)
    throw InvalidArgument(cat("fft on ", device_label, ": length ", d.lengths[0], " and batch ", d.batch, " must be at least 1"));
  if (d.dtype == DType::complex64) return std::make_shared<HostFftPlan<float>>(d, threads);
  if (d.dtype == DType::complex128) return std::make_shared<HostFftPlan<double>>(d, threads);
  throw DTypeError(cat("fft on ", device_label, " of ", name(d.dtype), ": the transforms are complex64 or complex128"));
}

}  // namespace porta::detail
