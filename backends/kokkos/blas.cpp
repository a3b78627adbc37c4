// matmul on the Kokkos device: float32, float64, complex64 and complex128 through the host's BLAS
// (OpenBLAS) on the device memory, which is host memory; without a BLAS, a blocked loop (complex:
// loop_gemm). float16 and bfloat16 are widened to float32, multiplied, and rounded once into C
// (float32 accumulation, as cuBLAS does). Integers: loop_gemm, exact and wrapping as NumPy's.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kokkos/kokkos.hpp"
#include "host/loop_gemm.hpp"
#include "porta_backend/strings.hpp"
#ifdef PORTA_HAVE_HOST_BLAS
#include "host/blas.hpp"
#endif

namespace porta::kokkos {
namespace {

using detail::MatmulArgs;

#ifndef PORTA_HAVE_HOST_BLAS
// C = op(A) op(B) (C -= it where g.subtract), one batch at a time, blocked so that a panel of B stays in cache while rows of
// A stream past; four rows of C share each row of B, and the inner loop runs along rows of B and
// C and vectorises.
template <class T> void loop_matmul(const MatmulArgs& g, const T* a, const T* b, T* c) {
  constexpr std::int64_t kPanelK = 128, kPanelN = 512, kRows = 4;
  std::vector<T> bt;  // B transposed back when trans_b, so rows of B are contiguous
  for (std::int64_t batch = 0; batch < g.batch; ++batch) {
    const T* pa = a + g.a_offset + batch * g.stride_a;
    const T* pb = b + g.b_offset + batch * g.stride_b;
    T* pc = c + g.c_offset + batch * g.stride_c;
    std::int64_t ldb = g.ldb;
    if (g.trans_b) {  // B is stored n x k
      bt.resize(static_cast<std::size_t>(g.k * g.n));
      for (std::int64_t j = 0; j < g.n; ++j)
        for (std::int64_t kk = 0; kk < g.k; ++kk) bt[kk * g.n + j] = pb[j * g.ldb + kk];
      pb = bt.data();
      ldb = g.n;
    }
    const T sign = g.subtract ? T(-1) : T(1);
    auto a_at = [&](std::int64_t i, std::int64_t kk) { return sign * (g.trans_a ? pa[kk * g.lda + i] : pa[i * g.lda + kk]); };
    if (!g.subtract)
      for (std::int64_t i = 0; i < g.m; ++i) std::fill(pc + i * g.ldc, pc + i * g.ldc + g.n, T(0));
    for (std::int64_t j0 = 0; j0 < g.n; j0 += kPanelN) {
      const std::int64_t j1 = std::min(g.n, j0 + kPanelN);
      for (std::int64_t k0 = 0; k0 < g.k; k0 += kPanelK) {
        const std::int64_t k1 = std::min(g.k, k0 + kPanelK);
        std::int64_t i = 0;
        for (; i + kRows <= g.m; i += kRows) {
          T* __restrict c0 = pc + i * g.ldc;
          T* __restrict c1 = c0 + g.ldc;
          T* __restrict c2 = c1 + g.ldc;
          T* __restrict c3 = c2 + g.ldc;
          for (std::int64_t kk = k0; kk < k1; ++kk) {
            const T a0 = a_at(i, kk), a1 = a_at(i + 1, kk), a2 = a_at(i + 2, kk), a3 = a_at(i + 3, kk);
            const T* __restrict brow = pb + kk * ldb;
            for (std::int64_t j = j0; j < j1; ++j) {
              const T bv = brow[j];
              c0[j] += a0 * bv;
              c1[j] += a1 * bv;
              c2[j] += a2 * bv;
              c3[j] += a3 * bv;
            }
          }
        }
        for (; i < g.m; ++i) {
          T* __restrict crow = pc + i * g.ldc;
          for (std::int64_t kk = k0; kk < k1; ++kk) {
            const T av = a_at(i, kk);
            const T* __restrict brow = pb + kk * ldb;
            for (std::int64_t j = j0; j < j1; ++j) crow[j] += av * brow[j];
          }
        }
      }
    }
  }
}
#endif

// float32, float64, complex and integer products of host memory.
void float_matmul(const MatmulArgs& g, const void* a, const void* b, void* c) {
#ifdef PORTA_HAVE_HOST_BLAS
  detail::host_matmul(g, a, b, c);
#else
  if (detail::loop_gemm_of(g, a, b, c)) return;
  if (g.dtype == DType::float32)
    loop_matmul(g, static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(c));
  else
    loop_matmul(g, static_cast<const double*>(a), static_cast<const double*>(b), static_cast<double*>(c));
#endif
}

template <class H> float widen(std::uint16_t bits) { return static_cast<float>(H::from_bits(bits)); }

// A rows x cols matrix of 16-bit floats (row stride ld) as a dense float32 matrix.
template <class H>
void widen_matrix(const std::uint16_t* src, std::int64_t rows, std::int64_t cols, std::int64_t ld, float* dst) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) dst[r * cols + j] = widen<H>(src[r * ld + j]);
}

template <class H> void half_matmul(const MatmulArgs& g, const void* a, const void* b, void* c) {
  const std::int64_t a_rows = g.trans_a ? g.k : g.m, a_cols = g.trans_a ? g.m : g.k;
  const std::int64_t b_rows = g.trans_b ? g.n : g.k, b_cols = g.trans_b ? g.k : g.n;
  std::vector<float> fa(static_cast<std::size_t>(a_rows * a_cols)), fb(static_cast<std::size_t>(b_rows * b_cols)),
      fc(static_cast<std::size_t>(g.m * g.n));
  MatmulArgs f = g;
  f.dtype = DType::float32;
  f.subtract = false;  // the float32 product, subtracted below where g.subtract
  f.batch = 1;
  f.a_offset = f.b_offset = f.c_offset = 0;
  f.stride_a = f.stride_b = f.stride_c = 0;
  f.lda = std::max<std::int64_t>(a_cols, 1);
  f.ldb = std::max<std::int64_t>(b_cols, 1);
  f.ldc = std::max<std::int64_t>(g.n, 1);
  const auto* ha = static_cast<const std::uint16_t*>(a) + g.a_offset;
  const auto* hb = static_cast<const std::uint16_t*>(b) + g.b_offset;
  auto* hc = static_cast<std::uint16_t*>(c) + g.c_offset;
  for (std::int64_t batch = 0; batch < g.batch; ++batch) {
    if (batch == 0 || g.stride_a != 0) widen_matrix<H>(ha + batch * g.stride_a, a_rows, a_cols, g.lda, fa.data());
    if (batch == 0 || g.stride_b != 0) widen_matrix<H>(hb + batch * g.stride_b, b_rows, b_cols, g.ldb, fb.data());
    float_matmul(f, fa.data(), fb.data(), fc.data());
    std::uint16_t* out = hc + batch * g.stride_c;
    for (std::int64_t i = 0; i < g.m; ++i)
      for (std::int64_t j = 0; j < g.n; ++j) {
        std::uint16_t& o = out[i * g.ldc + j];
        o = H(g.subtract ? widen<H>(o) - fc[i * g.n + j] : fc[i * g.n + j]).bits;
      }
  }
}

void check(const MatmulArgs& g) {
  auto bad = [&](const char* what) {
    throw InvalidArgument(detail::cat("matmul on kokkos:0 of ", g.batch, " x [", g.m, " x ", g.k, "] by [", g.k, " x ",
                                      g.n, "] (lda ", g.lda, ", ldb ", g.ldb, ", ldc ", g.ldc, "): ", what));
  };
  if (g.batch < 0 || g.m < 0 || g.n < 0 || g.k < 0) bad("negative size");
  if (g.lda < (g.trans_a ? g.m : g.k)) bad("lda is shorter than a row of A");
  if (g.ldb < (g.trans_b ? g.k : g.n)) bad("ldb is shorter than a row of B");
  if (g.ldc < g.n) bad("ldc is shorter than a row of C");
}

}  // namespace

void Device::matmul(detail::QueueImpl& q, const MatmulArgs& g) {
  if (g.dtype == DType::boolean)
    throw DTypeError("matmul of bool is not supported on kokkos:0 (the core multiplies bool as int32); "
                     "use astype(int32) first");
  check(g);
  if (auto* r = recording(q)) {
    r->add([this, g](detail::QueueImpl& rq, const detail::HandleMap& m) {
      MatmulArgs bound = g;
      m.rebind(bound);
      matmul(rq, bound);
    });
    return;
  }
  if (g.batch == 0 || g.m == 0 || g.n == 0) return;
  if (g.k == 0) {  // a sum of nothing: C = 0, or C as it is (BLAS would reject lda = 0)
    if (g.subtract) return;
    const std::size_t item = itemsize(g.dtype);
    for (std::int64_t batch = 0; batch < g.batch; ++batch)
      for (std::int64_t i = 0; i < g.m; ++i)
        std::memset(static_cast<char*>(g.c) + (g.c_offset + batch * g.stride_c + i * g.ldc) * item, 0, g.n * item);
    return;
  }
  switch (g.dtype) {
    case DType::float16: half_matmul<half>(g, g.a, g.b, g.c); return;
    case DType::bfloat16: half_matmul<bfloat16>(g, g.a, g.b, g.c); return;
    default: float_matmul(g, g.a, g.b, g.c); return;
  }
}

}  // namespace porta::kokkos
