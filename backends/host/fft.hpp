// porta's own FFT on the host: the transforms of CPU devices without a run-time compiler (Kokkos
// on the host). No packaged CPU FFT fits: FFTW is GPL, which a permissive library cannot make a
// default dependency, pocketfft (NumPy's, BSD) is not packaged in Debian bookworm, and KissFFT
// has no Bluestein (a prime length costs O(n^2)) (docs/design/fft.md). Mixed-radix Stockham
// (radices 8, 4, 2, 3, 5, 7, 11, 13), Bluestein's chirp-z through a power-of-two transform for
// lengths with a larger prime factor; real transforms of even length as complex ones of half the
// length.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "porta_backend/backend.hpp"

namespace porta::detail {

// One complex transform of length n, unnormalised, precomputed once and run many times from many
// threads (run() only reads the plan).
template <class T> class HostFft {
 public:
  using C = std::complex<T>;
  explicit HostFft(std::int64_t n);
  ~HostFft();
  std::int64_t size() const { return n_; }
  // Complex elements of scratch run() needs.
  std::size_t work_size() const { return work_; }
  // out = sum_j in[j] exp(-+2 pi i jk / n) (forward: minus). in and out may be the same; `work`
  // holds work_size() elements.
  void run(const C* in, C* out, bool forward, C* work) const;

 private:
  struct Stage {
    int radix = 2;
    std::int64_t ns = 1;  // the length of the transforms this stage combines
    std::vector<C> twiddles;  // [(q - 1) * ns + k] = exp(-2 pi i k q / (ns radix)), 0 < q < radix, k < ns
  };
  template <bool Forward> void stockham(const C* in, C* out, C* work) const;
  void bluestein(const C* in, C* out, bool forward, C* work) const;

  std::int64_t n_ = 0;
  std::size_t work_ = 0;
  std::vector<Stage> stages_;
  // Bluestein: the chirp exp(-i pi k^2 / n), the transform of its conjugate padded to m, and the
  // length-m transform.
  std::vector<C> chirp_, chirp_spectrum_;
  std::unique_ptr<HostFft> inner_;
};

extern template class HostFft<float>;
extern template class HostFft<double>;

// What porta-info names as the FFT library of devices that use this one.
inline constexpr const char* kHostFftName = "porta host FFT (mixed radix 2-13, Bluestein)";

// A plan for `desc` (rank 1, complex64 or complex128) over memory whose Handles are host
// addresses (Kokkos; OpenCL CPU devices' mapped buffers). Its execute() runs at once, on the
// calling thread and, for batches of more than 2^15 elements in all, `threads` - 1 more (each
// taking whole lines). Throws InvalidArgument for what it cannot plan.
std::shared_ptr<FftPlanImpl> make_host_fft_plan(const FftDesc& desc, const std::string& device_label, int threads = 1);

}  // namespace porta::detail
