// Matrix products on host memory that a BLAS does not do: integers, exact and wrapping modulo
// 2^bits as NumPy's (int8 @ int8 is int8), and complex products where porta was built without a
// BLAS. A plain loop over rows of C, the inner loop along a row of B (it vectorises); for CPU
// devices (Kokkos, PoCL's host path) and as the reference of what the GPU kernels compute.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "porta_backend/backend.hpp"

namespace porta::detail {

// What a product of T accumulates in: integers of up to 32 bits in uint32 and 64-bit ones in
// uint64 (unsigned, so that wrapping is defined; the low bits of a two's-complement product and sum
// are the same signed or not); complex in itself.
template <class T>
using LoopAccumulator =
    std::conditional_t<std::is_integral_v<T>, std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>, T>;

template <class A> inline void multiply_add(A& c, A a, A b) { c += a * b; }
// The textbook form, as BLAS's cgemm and cuBLAS compute it (std::complex's operator* would recover
// infinities from NaNs, as C's Annex G asks, where the libraries do not).
template <class R> inline void multiply_add(std::complex<R>& c, std::complex<R> a, std::complex<R> b) {
  c = {c.real() + (a.real() * b.real() - a.imag() * b.imag()), c.imag() + (a.real() * b.imag() + a.imag() * b.real())};
}

// C = op(A) op(B) (C -= it where g.subtract) per batch for pointers to the start of each buffer,
// offsets and strides as in g.
template <class T> void loop_gemm(const MatmulArgs& g, const void* a, const void* b, void* c) {
  using Acc = LoopAccumulator<T>;
  const std::int64_t m = g.m, n = g.n, k = g.k;
  std::vector<Acc> bw(static_cast<std::size_t>(k * n)), row(static_cast<std::size_t>(n));
  for (std::int64_t batch = 0; batch < g.batch; ++batch) {
    const T* pa = static_cast<const T*>(a) + g.a_offset + batch * g.stride_a;
    const T* pb = static_cast<const T*>(b) + g.b_offset + batch * g.stride_b;
    T* pc = static_cast<T*>(c) + g.c_offset + batch * g.stride_c;
    if (batch == 0 || g.stride_b != 0)  // B as k x n rows of the accumulator's type
      for (std::int64_t p = 0; p < k; ++p)
        for (std::int64_t j = 0; j < n; ++j)
          bw[p * n + j] = static_cast<Acc>(g.trans_b ? pb[j * g.ldb + p] : pb[p * g.ldb + j]);
    for (std::int64_t i = 0; i < m; ++i) {
      std::fill(row.begin(), row.end(), Acc{});
      for (std::int64_t p = 0; p < k; ++p) {
        const Acc av = static_cast<Acc>(g.trans_a ? pa[p * g.lda + i] : pa[i * g.lda + p]);
        const Acc* brow = bw.data() + p * n;
        for (std::int64_t j = 0; j < n; ++j) multiply_add(row[j], av, brow[j]);
      }
      T* crow = pc + i * g.ldc;
      if (g.subtract)
        for (std::int64_t j = 0; j < n; ++j) crow[j] = static_cast<T>(static_cast<Acc>(crow[j]) - row[j]);
      else
        for (std::int64_t j = 0; j < n; ++j) crow[j] = static_cast<T>(row[j]);
    }
  }
}

// loop_gemm for an integer dtype (int8 ... uint64) or a complex one; false for any other.
inline bool loop_gemm_of(const MatmulArgs& g, const void* a, const void* b, void* c) {
  switch (g.dtype) {
    case DType::int8: loop_gemm<std::int8_t>(g, a, b, c); return true;
    case DType::int16: loop_gemm<std::int16_t>(g, a, b, c); return true;
    case DType::int32: loop_gemm<std::int32_t>(g, a, b, c); return true;
    case DType::int64: loop_gemm<std::int64_t>(g, a, b, c); return true;
    case DType::uint8: loop_gemm<std::uint8_t>(g, a, b, c); return true;
    case DType::uint16: loop_gemm<std::uint16_t>(g, a, b, c); return true;
    case DType::uint32: loop_gemm<std::uint32_t>(g, a, b, c); return true;
    case DType::uint64: loop_gemm<std::uint64_t>(g, a, b, c); return true;
    case DType::complex64: loop_gemm<std::complex<float>>(g, a, b, c); return true;
    case DType::complex128: loop_gemm<std::complex<double>>(g, a, b, c); return true;
    default: return false;
  }
}

}  // namespace porta::detail
