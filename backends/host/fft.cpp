// porta's host FFT (fft.hpp). Stockham's autosort form needs no bit reversal: each stage reads
// n/radix groups of `radix` elements spaced n/radix apart, twiddles them, transforms them and
// writes them spaced ns apart into the other buffer (Govindaraju et al., "High performance
// discrete Fourier transforms on graphics processors", 2008). Twiddles are computed in double
// from exact integer angles (k r mod ns radix), so float64 keeps its precision at any length.
#include "host/fft.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

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

// The radices of n, largest-first among 4 and 2 so that most stages are radix 4; 0 when n has a
// prime factor above 13 (Bluestein then).
std::vector<int> factor(std::int64_t n) {
  std::vector<int> f;
  while (n % 4 == 0) f.push_back(4), n /= 4;
  for (int p : {2, 3, 5, 7, 11, 13})
    while (n % p == 0) f.push_back(p), n /= p;
  if (n != 1) return {};
  return f;
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
        s.twiddles.resize(static_cast<std::size_t>(ns * r));
        for (std::int64_t k = 0; k < ns; ++k)
          for (int j = 0; j < r; ++j) s.twiddles[static_cast<std::size_t>(k * r + j)] = root<T>(k * j, ns * r);
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

template <class T> void HostFft<T>::stockham(C* a, C* b, bool forward) const {
  const std::int64_t n = n_;
  C* src = a;
  C* dst = b;
  C v[13], w[13];
  for (const Stage& s : stages_) {
    const int r = s.radix;
    const std::int64_t groups = n / r, ns = s.ns;
    // The radix's roots exp(-+2 pi i q / r).
    C roots[13];
    for (int q = 0; q < r; ++q) roots[q] = forward ? root<T>(q, r) : std::conj(root<T>(q, r));
    for (std::int64_t j = 0; j < groups; ++j) {
      const std::int64_t k = j % ns;
      for (int q = 0; q < r; ++q) v[q] = src[j + q * groups];
      if (ns > 1) {
        const C* t = s.twiddles.data() + k * r;
        for (int q = 1; q < r; ++q) v[q] *= forward ? t[q] : std::conj(t[q]);
      }
      C* out = dst + (j / ns) * ns * r + k;
      if (r == 2) {
        out[0] = v[0] + v[1];
        out[ns] = v[0] - v[1];
      } else if (r == 4) {
        const C a0 = v[0] + v[2], a1 = v[0] - v[2], a2 = v[1] + v[3], d = v[1] - v[3];
        // -i d forward, +i d backward
        const C a3 = forward ? C(d.imag(), -d.real()) : C(-d.imag(), d.real());
        out[0] = a0 + a2;
        out[ns] = a1 + a3;
        out[2 * ns] = a0 - a2;
        out[3 * ns] = a1 - a3;
      } else {
        for (int q = 0; q < r; ++q) {
          C acc = v[0];
          for (int p = 1; p < r; ++p) acc += v[p] * roots[(p * q) % r];
          w[q] = acc;
        }
        for (int q = 0; q < r; ++q) out[q * ns] = w[q];
      }
    }
    std::swap(src, dst);
  }
  if (src != a) std::memcpy(static_cast<void*>(a), src, static_cast<std::size_t>(n) * sizeof(C));
}

template <class T> void HostFft<T>::bluestein(const C* in, C* out, bool forward, C* work) const {
  const std::int64_t n = n_, m = inner_->size();
  C* a = work;
  C* inner_work = work + m;
  // The backward transform is the conjugate of the forward one of the conjugate.
  for (std::int64_t k = 0; k < n; ++k) {
    const C x = forward ? in[k] : std::conj(in[k]);
    a[k] = x * chirp_[static_cast<std::size_t>(k)];
  }
  std::fill(a + n, a + m, C(0));
  inner_->run(a, a, true, inner_work);
  for (std::int64_t k = 0; k < m; ++k) a[k] *= chirp_spectrum_[static_cast<std::size_t>(k)];
  inner_->run(a, a, false, inner_work);
  const T scale = T(1) / static_cast<T>(m);
  for (std::int64_t k = 0; k < n; ++k) {
    const C y = a[k] * chirp_[static_cast<std::size_t>(k)] * scale;
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
  C* a = work;
  std::memcpy(static_cast<void*>(a), in, static_cast<std::size_t>(n_) * sizeof(C));
  stockham(a, work + n_, forward);
  std::memcpy(static_cast<void*>(out), a, static_cast<std::size_t>(n_) * sizeof(C));
}

template class HostFft<float>;
template class HostFft<double>;

namespace {

// A batch of rank-1 transforms on host memory.
template <class T> class HostFftPlan final : public FftPlanImpl {
 public:
  using C = std::complex<T>;
  explicit HostFftPlan(const FftDesc& d) : desc_(d), fft_(d.lengths.back()) {}

  void execute(QueueImpl&, Handle in, Handle out, bool forward) override {
    const std::int64_t n = desc_.lengths.back(), half = n / 2 + 1;
    std::vector<C> work(fft_.work_size() + 2 * static_cast<std::size_t>(n));
    C* line = work.data() + fft_.work_size();
    C* line2 = line + n;
    for (std::int64_t b = 0; b < desc_.batch; ++b) {
      switch (desc_.kind) {
        case FftKind::c2c:
          fft_.run(static_cast<const C*>(in) + b * n, static_cast<C*>(out) + b * n, forward, work.data());
          break;
        case FftKind::r2c: {
          const T* x = static_cast<const T*>(in) + b * n;
          for (std::int64_t j = 0; j < n; ++j) line[j] = C(x[j], 0);
          fft_.run(line, line2, true, work.data());
          std::memcpy(static_cast<void*>(static_cast<C*>(out) + b * half), line2, static_cast<std::size_t>(half) * sizeof(C));
          break;
        }
        case FftKind::c2r: {
          // The Hermitian spectrum in full; the imaginary parts of X[0] and X[n/2] (n even) only
          // add imaginary parts to the result, which are dropped (NumPy's irfft does the same).
          const C* h = static_cast<const C*>(in) + b * half;
          for (std::int64_t k = 0; k < half; ++k) line[k] = h[k];
          for (std::int64_t k = half; k < n; ++k) line[k] = std::conj(h[n - k]);
          fft_.run(line, line2, false, work.data());
          T* y = static_cast<T*>(out) + b * n;
          for (std::int64_t j = 0; j < n; ++j) y[j] = line2[j].real();
          break;
        }
      }
    }
  }

 private:
  FftDesc desc_;
  HostFft<T> fft_;
};

}  // namespace

std::shared_ptr<FftPlanImpl> make_host_fft_plan(const FftDesc& d, const std::string& device_label) {
  if (d.lengths.size() != 1)
    throw InvalidArgument(cat("fft on ", device_label, ": plans of rank ", d.lengths.size(), " (this device transforms one axis at a time)"));
  if (d.lengths[0] < 1 || d.batch < 1)
    throw InvalidArgument(cat("fft on ", device_label, ": length ", d.lengths[0], " and batch ", d.batch, " must be at least 1"));
  if (d.dtype == DType::complex64) return std::make_shared<HostFftPlan<float>>(d);
  if (d.dtype == DType::complex128) return std::make_shared<HostFftPlan<double>>(d);
  throw DTypeError(cat("fft on ", device_label, " of ", name(d.dtype), ": the transforms are complex64 or complex128"));
}

}  // namespace porta::detail
