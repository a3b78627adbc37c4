/* Complex arithmetic and functions: the one definition of the numerics of complex64 and
   complex128 (plan.hpp's ops on complex dtypes), in the common subset of C++, CUDA C++ and
   OpenCL C, so that every executor gives the same answer within the rounding of its math library.
   The host (base/complex.hpp: the interpreter and the tests' reference) includes this file once
   per real type; generated kernels carry its text the same way (codegen/text.cpp, after the
   dialect's `complex_f32` / `complex_f64` sections of codegen/kernels/prelude_*.{cuh,cl}).
   There is no include guard: the includer defines, before each inclusion,
     CX_DOUBLE     0 for complex64 (float parts), 1 for complex128 (double parts)
     CX_M(fn)      the real math function fn for that type (sqrtf or sqrt ...)
     CX_FN         the functions' qualifiers (inline; __device__ __forceinline__)
     CX_MUL(a, b)  a * b never contracted with an addition into an FMA (CUDA: __fmul_rn); the
                   OpenCL prelude turns FP_CONTRACT off around this text instead
     CX_OWN_HYPOT  (optional) hypot computed here rather than by the math library (OpenCL's complex128)
   and undefines them after. This file defines, from CX_DOUBLE, and undefines at its end:
     CX_T          the real type (float, double)
     CX_C          the complex type, a struct { CX_T re, im; } (real part first: std::complex's
                   layout) that the includer declares: porta_c64, porta_c128
     CX_F(name)    the name of function `name` for this type (porta_<name>_c64)
     CX_K(lit)     a literal of CX_T (0.5f or 0.5)
     CX_EXP_OVER   above it exp(x) overflows (88.7f, 709.7)
     CX_SQRT_BIG   scale down by 4 from here (2^125, 2^1021)
     CX_SQRT_SMALL, CX_SQRT_UP, CX_SQRT_DOWN  below SMALL scale up by UP = 2^(2k), result by DOWN = 2^-k
     CX_TANH_BIG   from here tanh(x) is +-1 in CX_T (9, 22)
     CX_ATANH_BIG  from here atanh(z) is 1/z + i pi/2 in CX_T (1/eps: 2^24, 2^53)

   Conventions (NumPy 2's, which takes most of them from the C library's C99 Annex G functions):
   - multiplication is the textbook formula, products rounded apart (NumPy's scalar; its SIMD loops
     fuse multiply-adds where the CPU has FMA: a difference listed in numpy-differences.md; no
     Annex G recovery of infinities, except inside pow);
     division is Smith's algorithm exactly as NumPy's loop (no overflow or underflow of
     intermediate products for large or small parts); x / (0 + 0i) divides each part by +0.
   - abs is hypot; sign is z / |z| (0 for 0; +-1 along an infinite axis, NaN for two infinite
     parts or a NaN part), as NumPy 2.
   - exp, log, sqrt follow Annex G's special values (signed zeros, infinities, NaN in each part);
     exp and the hyperbolic functions scale to avoid overflow of exp(x) where the result is finite.
   - log1p is log|1 + z| through log1p where |1 + z| is near 1 (more accurate than NumPy's
     log(hypot(1 + x, y)) for small z); expm1 is NumPy's formula; log2 and log10 scale log.
   - sinh, cosh, tanh: the hyperbolic formulas (tanh as FreeBSD's, Kahan's), special values for
     zero and infinite parts; sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz).
   - asin, acos, acosh: Kahan's formulas over sqrt ("Branch cuts for complex elementary
     functions", 1987), asinh z = -i asin(iz); atanh from log1p and atan2 (1/z + i pi/2 for large
     |z|), atan z = -i atanh(iz). Their branch cuts are C99's (NumPy's); infinite and NaN parts
     give Annex G's values (the C library's where Annex G leaves a sign open), except expm1,
     whose special values are those of NumPy's formula.
   - pow: NumPy's nc_pow: z^0 = 1, 0^w = 0 for Re w > 0 (else NaN), small integer exponents by
     repeated multiplication, otherwise exp(w log z) with Annex G's product (the C library's cpow).
   - the order of NumPy (its CLT/CLE/CGT/CGE): lexicographic, the real parts compared strictly
     first (with no NaN in either imaginary part), then the imaginary parts where the real parts
     are equal; maximum/minimum propagate NaN. */

#if CX_DOUBLE
#define CX_T double
#define CX_C porta_c128
#define CX_F(name) porta_##name##_c128
#define CX_K(lit) lit
#define CX_EXP_OVER 709.7
#define CX_SQRT_BIG 0x1p1021
#define CX_SQRT_SMALL 0x1p-1000
#define CX_SQRT_UP 0x1p1000
#define CX_SQRT_DOWN 0x1p-500
#define CX_TANH_BIG 22.0
#define CX_ATANH_BIG 0x1p53
#else
#define CX_T float
#define CX_C porta_c64
#define CX_F(name) porta_##name##_c64
#define CX_K(lit) lit##f
#define CX_EXP_OVER 88.7f
#define CX_SQRT_BIG 0x1p125f
#define CX_SQRT_SMALL 0x1p-100f
#define CX_SQRT_UP 0x1p100f
#define CX_SQRT_DOWN 0x1p-50f
#define CX_TANH_BIG 9.0f
#define CX_ATANH_BIG 0x1p24f
#endif

CX_FN CX_C CX_F(c)(CX_T re, CX_T im) { CX_C z; z.re = re; z.im = im; return z; }
CX_FN CX_C CX_F(add)(CX_C a, CX_C b) { return CX_F(c)(a.re + b.re, a.im + b.im); }
CX_FN CX_C CX_F(sub)(CX_C a, CX_C b) { return CX_F(c)(a.re - b.re, a.im - b.im); }
CX_FN CX_C CX_F(neg)(CX_C a) { return CX_F(c)(-a.re, -a.im); }
CX_FN CX_C CX_F(conj)(CX_C a) { return CX_F(c)(a.re, -a.im); }
/* Products rounded apart, as NumPy's scalar multiplication: an FMA here would give inf + i inf for
   (1e30 + 1e30i) (1e30 - 1e30i) in float32 where that gives inf + i NaN (NumPy's SIMD loop on an
   FMA CPU gives inf + i inf: NumPy has no one answer). */
CX_FN CX_C CX_F(mul)(CX_C a, CX_C b) {
  return CX_F(c)(CX_MUL(a.re, b.re) - CX_MUL(a.im, b.im), CX_MUL(a.re, b.im) + CX_MUL(a.im, b.re));
}
CX_FN CX_C CX_F(square)(CX_C a) { return CX_F(mul)(a, a); }
/* Annex G's multiplication (G.5.1's _Cmultd, the compilers' __muldc3): the textbook formula, and
   where both parts come out NaN, the infinities of infinite operands (or of overflowed products)
   recovered. pow's exp(w log z) multiplies so, as the C library's cpow that NumPy's pow calls:
   (1j)^(inf + i inf) is 0 there, NaN with the textbook product. */
CX_FN int CX_F(inf_part)(CX_T v) { return v - v != v - v && v == v; }
CX_FN CX_T CX_F(box)(CX_T v) { return CX_M(copysign)(CX_F(inf_part)(v) ? CX_K(1.0) : CX_K(0.0), v); }
CX_FN CX_T CX_F(nan_to_zero)(CX_T v) { return v != v ? CX_M(copysign)(CX_K(0.0), v) : v; }
CX_FN CX_C CX_F(mul_annex_g)(CX_C z, CX_C w) {
  CX_T a = z.re, b = z.im, c = w.re, d = w.im;
  const CX_T ac = CX_MUL(a, c), bd = CX_MUL(b, d), ad = CX_MUL(a, d), bc = CX_MUL(b, c);
  CX_T x = ac - bd, y = ad + bc;
  if (x == x || y == y) return CX_F(c)(x, y);
  int again = 0;
  if (CX_F(inf_part)(a) || CX_F(inf_part)(b)) {
    a = CX_F(box)(a); b = CX_F(box)(b); c = CX_F(nan_to_zero)(c); d = CX_F(nan_to_zero)(d);
    again = 1;
  }
  if (CX_F(inf_part)(c) || CX_F(inf_part)(d)) {
    c = CX_F(box)(c); d = CX_F(box)(d); a = CX_F(nan_to_zero)(a); b = CX_F(nan_to_zero)(b);
    again = 1;
  }
  if (!again && (CX_F(inf_part)(ac) || CX_F(inf_part)(bd) || CX_F(inf_part)(ad) || CX_F(inf_part)(bc))) {
    a = CX_F(nan_to_zero)(a); b = CX_F(nan_to_zero)(b); c = CX_F(nan_to_zero)(c); d = CX_F(nan_to_zero)(d);
    again = 1;
  }
  if (!again) return CX_F(c)(x, y);
  const CX_T inf = CX_SQRT_BIG * CX_SQRT_BIG;  /* (overflows to +inf in CX_T) */
  return CX_F(c)(inf * (CX_MUL(a, c) - CX_MUL(b, d)), inf * (CX_MUL(a, d) + CX_MUL(b, c)));
}
CX_FN CX_C CX_F(div)(CX_C a, CX_C b) {
  const CX_T abr = CX_M(fabs)(b.re), abi = CX_M(fabs)(b.im);
  if (abr >= abi) {
    if (abr == CX_K(0.0) && abi == CX_K(0.0)) return CX_F(c)(a.re / abr, a.im / abr);
    const CX_T rat = b.im / b.re, scl = CX_K(1.0) / (b.re + b.im * rat);
    return CX_F(c)((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
  }
  const CX_T rat = b.re / b.im, scl = CX_K(1.0) / (b.im + b.re * rat);
  return CX_F(c)((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}
/* Complex times a real: both parts scaled (the mean of a complex sum). */
CX_FN CX_C CX_F(scale)(CX_C a, CX_T s) { return CX_F(c)(a.re * s, a.im * s); }

CX_FN int CX_F(isnan)(CX_C a) { return a.re != a.re || a.im != a.im; }
CX_FN int CX_F(isfinite)(CX_C a) { return a.re - a.re == a.re - a.re && a.im - a.im == a.im - a.im; }
/* An infinite part, whatever the other (inf + i NaN too: NumPy's and the array API's isinf). */
CX_FN int CX_F(isinf)(CX_C a) {
  return (a.re - a.re != a.re - a.re && a.re == a.re) || (a.im - a.im != a.im - a.im && a.im == a.im);
}
CX_FN int CX_F(nonzero)(CX_C a) { return a.re != CX_K(0.0) || a.im != CX_K(0.0); }
CX_FN int CX_F(eq)(CX_C a, CX_C b) { return a.re == b.re && a.im == b.im; }
CX_FN int CX_F(ne)(CX_C a, CX_C b) { return !(a.re == b.re && a.im == b.im); }
CX_FN int CX_F(lt)(CX_C a, CX_C b) { return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im < b.im); }
CX_FN int CX_F(le)(CX_C a, CX_C b) { return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im <= b.im); }
CX_FN int CX_F(gt)(CX_C a, CX_C b) { return (a.re > b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im > b.im); }
CX_FN int CX_F(ge)(CX_C a, CX_C b) { return (a.re > b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im >= b.im); }
/* NumPy: a where a has a NaN part or a >= b (<= b), else b. */
CX_FN CX_C CX_F(max)(CX_C a, CX_C b) { return (a.re != a.re || a.im != a.im || CX_F(ge)(a, b)) ? a : b; }
CX_FN CX_C CX_F(min)(CX_C a, CX_C b) { return (a.re != a.re || a.im != a.im || CX_F(le)(a, b)) ? a : b; }

/* hypot: the math library's, or where the includer defines CX_OWN_HYPOT (OpenCL's complex128)
   this one: the parts scaled by a power of two, the square root of x^2 + y^2 through an FMA, then
   one correction step on the rounding of the squares (Borges, "An improved algorithm for
   hypot(a, b)", 2019: within about 0.5 ulp where sqrt and division round correctly, as OpenCL's
   double ones must). NVIDIA's OpenCL hypot of doubles was 35,000 ulps off for parts 2.5e5 apart
   (an H100, driver 580, 2026-12-06); big * sqrt(1 + r^2) was 1.65 ulps off here. */
#if defined(CX_OWN_HYPOT) && CX_DOUBLE
CX_FN CX_T CX_F(hypot)(CX_T x, CX_T y) {
  const CX_T ax = CX_M(fabs)(x), ay = CX_M(fabs)(y);
  if (ax - ax != ax - ax && ax == ax) return ax; /* an infinite part: +inf, whatever the other */
  if (ay - ay != ay - ay && ay == ay) return ay;
  if (x != x || y != y) return x + y;
  const CX_T top = CX_M(fmax)(ax, ay);
  if (top == 0.0) return top;
  const CX_T scale = top > 0x1p500 ? 0x1p-600 : top < 0x1p-500 ? 0x1p600 : 1.0;
  const CX_T b = top * scale, s = CX_M(fmin)(ax, ay) * scale;
  const CX_T h = CX_M(sqrt)(CX_M(fma)(b, b, CX_MUL(s, s)));
  const CX_T h2 = CX_MUL(h, h), b2 = CX_MUL(b, b);
  const CX_T e = (CX_M(fma)(-s, s, h2 - b2) + CX_M(fma)(h, h, -h2)) - CX_M(fma)(b, b, -b2);
  return (h - e / (h + h)) / scale;
}
#else
CX_FN CX_T CX_F(hypot)(CX_T x, CX_T y) { return CX_M(hypot)(x, y); }
#endif
CX_FN CX_T CX_F(abs)(CX_C a) { return CX_F(hypot)(a.re, a.im); }
/* NumPy's round / rint of complex: each part to the nearest integer, halves to even. */
CX_FN CX_C CX_F(rint)(CX_C a) { return CX_F(c)(CX_M(rint)(a.re), CX_M(rint)(a.im)); }
CX_FN CX_C CX_F(sign)(CX_C a) {
  const CX_T m = CX_F(hypot)(a.re, a.im);
  if (m != m) return CX_F(c)(m, m);
  if (m - m != m - m) {  /* an infinite part */
    const int ri = a.re - a.re != a.re - a.re && a.re == a.re, ii = a.im - a.im != a.im - a.im && a.im == a.im;
    if (ri && ii) return CX_F(c)(m - m, m - m);
    if (ri) return CX_F(c)(a.re > CX_K(0.0) ? CX_K(1.0) : CX_K(-1.0), CX_K(0.0));
    return CX_F(c)(CX_K(0.0), a.im > CX_K(0.0) ? CX_K(1.0) : CX_K(-1.0));
  }
  if (m == CX_K(0.0)) return CX_F(c)(CX_K(0.0), CX_K(0.0));
  return CX_F(c)(a.re / m, a.im / m);
}

CX_FN CX_C CX_F(exp)(CX_C z) {
  const CX_T x = z.re, y = z.im;
  if (y == CX_K(0.0)) return CX_F(c)(CX_M(exp)(x), y);
  if (x - x != x - x && x == x && y - y != y - y) {  /* x = +-inf, y inf or NaN */
    if (x > CX_K(0.0)) return CX_F(c)(x, y - y);
    return CX_F(c)(CX_K(0.0), CX_K(0.0));
  }
  if (x > CX_EXP_OVER) {  /* exp(x) overflows where exp(x) cos(y) may not */
    const CX_T h = CX_M(exp)(x * CX_K(0.5));
    return CX_F(c)((h * CX_M(cos)(y)) * h, (h * CX_M(sin)(y)) * h);
  }
  const CX_T e = CX_M(exp)(x);
  return CX_F(c)(e * CX_M(cos)(y), e * CX_M(sin)(y));
}

/* log|z| without losing the digits of |z| near 1. */
CX_FN CX_T CX_F(log_abs)(CX_T x, CX_T y) {
  const CX_T h = CX_F(hypot)(x, y);
  if (h > CX_K(0.70710678118654752) && h < CX_K(1.4142135623730950)) {
    const CX_T ax = CX_M(fabs)(x), ay = CX_M(fabs)(y);
    const CX_T hi = ax > ay ? ax : ay, lo = ax > ay ? ay : ax;
    return CX_K(0.5) * CX_M(log1p)((hi - CX_K(1.0)) * (hi + CX_K(1.0)) + lo * lo);
  }
  return CX_M(log)(h);
}
CX_FN CX_C CX_F(log)(CX_C z) { return CX_F(c)(CX_F(log_abs)(z.re, z.im), CX_M(atan2)(z.im, z.re)); }
CX_FN CX_C CX_F(log2)(CX_C z) { return CX_F(scale)(CX_F(log)(z), CX_K(1.4426950408889634074)); }
CX_FN CX_C CX_F(log10)(CX_C z) { return CX_F(scale)(CX_F(log)(z), CX_K(0.43429448190325182765)); }
CX_FN CX_C CX_F(log1p)(CX_C z) {
  const CX_T x = z.re, y = z.im, h = CX_F(hypot)(x + CX_K(1.0), y);
  CX_T re;
  if (h > CX_K(0.5) && h < CX_K(2.0)) re = CX_K(0.5) * CX_M(log1p)(x * (CX_K(2.0) + x) + y * y);
  else re = CX_M(log)(h);
  return CX_F(c)(re, CX_M(atan2)(y, x + CX_K(1.0)));
}
CX_FN CX_C CX_F(expm1)(CX_C z) {
  const CX_T x = z.re, y = z.im, s = CX_M(sin)(y * CX_K(0.5));
  return CX_F(c)(CX_M(expm1)(x) * CX_M(cos)(y) - CX_K(2.0) * s * s, CX_M(exp)(x) * CX_M(sin)(y));
}

CX_FN CX_C CX_F(sqrt)(CX_C z) {
  CX_T x = z.re, y = z.im;
  if (x == CX_K(0.0) && y == CX_K(0.0)) return CX_F(c)(CX_K(0.0), y);
  if (y - y != y - y && y == y) return CX_F(c)(CX_M(fabs)(y), y);  /* y = +-inf, x anything */
  if (x != x) return CX_F(c)(x, x);
  if (x - x != x - x) {  /* x = +-inf */
    if (x > CX_K(0.0)) return CX_F(c)(x, y != y ? y : CX_M(copysign)(CX_K(0.0), y));
    return CX_F(c)(y != y ? y : CX_K(0.0), CX_M(copysign)(-x, y));
  }
  if (y != y) return CX_F(c)(y, y);
  CX_T s = CX_K(1.0);
  const CX_T ax = CX_M(fabs)(x), ay = CX_M(fabs)(y);
  if (ax >= CX_SQRT_BIG || ay >= CX_SQRT_BIG) {
    x *= CX_K(0.25); y *= CX_K(0.25); s = CX_K(2.0);
  } else if (ax < CX_SQRT_SMALL && ay < CX_SQRT_SMALL) {
    x *= CX_SQRT_UP; y *= CX_SQRT_UP; s = CX_SQRT_DOWN;
  }
  const CX_T t = CX_M(sqrt)((CX_M(fabs)(x) + CX_F(hypot)(x, y)) * CX_K(0.5));
  if (x >= CX_K(0.0)) return CX_F(c)(t * s, (y / (t + t)) * s);
  return CX_F(c)((CX_M(fabs)(y) / (t + t)) * s, CX_M(copysign)(t, y) * s);
}

CX_FN CX_C CX_F(pow)(CX_C a, CX_C b) {
  if (b.re == CX_K(0.0) && b.im == CX_K(0.0)) return CX_F(c)(CX_K(1.0), CX_K(0.0));
  if (a.re == CX_K(0.0) && a.im == CX_K(0.0)) {
    if (b.re > CX_K(0.0)) return CX_F(c)(CX_K(0.0), CX_K(0.0));  /* (any imaginary part: NumPy 2.4) */
    const CX_T nan = (a.re - a.re) / (a.re - a.re);
    return CX_F(c)(nan, nan);
  }
  if (b.im == CX_K(0.0) && b.re > CX_K(-100.0) && b.re < CX_K(100.0) && (CX_T)(int)b.re == b.re) {
    int n = (int)b.re;
    if (n == 1) return a;
    if (n == 2) return CX_F(mul)(a, a);
    if (n == 3) return CX_F(mul)(CX_F(mul)(a, a), a);
    if (n < 0) n = -n;
    CX_C r = CX_F(c)(CX_K(1.0), CX_K(0.0)), p = a;
    int mask = 1;
    for (;;) {
      if (n & mask) r = CX_F(mul)(r, p);
      mask <<= 1;
      if (n < mask) break;
      p = CX_F(mul)(p, p);
    }
    if (b.re < CX_K(0.0)) r = CX_F(div)(CX_F(c)(CX_K(1.0), CX_K(0.0)), r);
    return r;
  }
  return CX_F(exp)(CX_F(mul_annex_g)(b, CX_F(log)(a)));
}

CX_FN CX_C CX_F(sinh)(CX_C z) {
  const CX_T x = z.re, y = z.im;
  if (y == CX_K(0.0)) return CX_F(c)(CX_M(sinh)(x), y);
  if (x == CX_K(0.0)) return CX_F(c)(y - y == y - y ? x * CX_M(cos)(y) : x, CX_M(sin)(y));  /* (-0 where cos y < 0) */
  if (x - x != x - x && x == x && y - y != y - y) return CX_F(c)(CX_M(fabs)(x), y - y);  /* +inf + i NaN (glibc's sign) */
  if (CX_M(fabs)(x) > CX_EXP_OVER) {
    const CX_T h = CX_M(exp)(CX_M(fabs)(x) * CX_K(0.5));
    return CX_F(c)(CX_M(copysign)(CX_K(1.0), x) * ((CX_K(0.5) * h * CX_M(cos)(y)) * h), (CX_K(0.5) * h * CX_M(sin)(y)) * h);
  }
  return CX_F(c)(CX_M(sinh)(x) * CX_M(cos)(y), CX_M(cosh)(x) * CX_M(sin)(y));
}
CX_FN CX_C CX_F(cosh)(CX_C z) {
  const CX_T x = z.re, y = z.im;
  /* (the signs of zeros beside a NaN are Annex G's open choice: glibc's, which NumPy's ccosh is) */
  if (y == CX_K(0.0)) return CX_F(c)(CX_M(cosh)(x), x != x ? y : CX_M(copysign)(CX_K(1.0), x) * y);
  if (x == CX_K(0.0)) return CX_F(c)(CX_M(cos)(y), y - y == y - y ? x * CX_M(sin)(y) : CX_K(0.0));
  if (x - x != x - x && x == x && y - y != y - y) return CX_F(c)(CX_M(fabs)(x), y - y);
  if (CX_M(fabs)(x) > CX_EXP_OVER) {
    const CX_T h = CX_M(exp)(CX_M(fabs)(x) * CX_K(0.5));
    return CX_F(c)((CX_K(0.5) * h * CX_M(cos)(y)) * h, CX_M(copysign)(CX_K(1.0), x) * ((CX_K(0.5) * h * CX_M(sin)(y)) * h));
  }
  return CX_F(c)(CX_M(cosh)(x) * CX_M(cos)(y), CX_M(sinh)(x) * CX_M(sin)(y));
}
CX_FN CX_C CX_F(tanh)(CX_C z) {
  const CX_T x = z.re, y = z.im;
  if (x != x) return CX_F(c)(x, y == CX_K(0.0) ? y : x);
  if (x - x != x - x) {  /* +-inf: +-1 + i0 with the sign of sin(2y) */
    return CX_F(c)(CX_M(copysign)(CX_K(1.0), x),
                   CX_M(copysign)(CX_K(0.0), y - y == y - y ? CX_M(sin)(y) * CX_M(cos)(y) : y));
  }
  if (y == CX_K(0.0)) return CX_F(c)(CX_M(tanh)(x), y);
  if (y - y != y - y) return CX_F(c)(x == CX_K(0.0) ? x : y - y, y - y);  /* C11: tanh(+-0 + i inf) = +-0 + i NaN */
  if (CX_M(fabs)(x) >= CX_TANH_BIG) {
    const CX_T e = CX_M(exp)(-CX_M(fabs)(x));
    return CX_F(c)(CX_M(copysign)(CX_K(1.0), x), CX_K(4.0) * CX_M(sin)(y) * CX_M(cos)(y) * e * e);
  }
  const CX_T t = CX_M(tan)(y), beta = CX_K(1.0) + t * t, s = CX_M(sinh)(x), rho = CX_M(sqrt)(CX_K(1.0) + s * s);
  const CX_T den = CX_K(1.0) + beta * s * s;
  return CX_F(c)((beta * rho * s) / den, t / den);
}
/* i z and -i z */
CX_FN CX_C CX_F(times_i)(CX_C z) { return CX_F(c)(-z.im, z.re); }
CX_FN CX_C CX_F(times_minus_i)(CX_C z) { return CX_F(c)(z.im, -z.re); }
CX_FN CX_C CX_F(sin)(CX_C z) {
  /* glibc's csin (NumPy's sin) gives NaN + i(+inf) here, where -i sinh(iz) would give the sign of -y */
  if (z.im - z.im != z.im - z.im && z.im == z.im && z.re - z.re != z.re - z.re) return CX_F(c)(z.re - z.re, CX_M(fabs)(z.im));
  return CX_F(times_minus_i)(CX_F(sinh)(CX_F(times_i)(z)));
}
CX_FN CX_C CX_F(cos)(CX_C z) { return CX_F(cosh)(CX_F(times_i)(z)); }
CX_FN CX_C CX_F(tan)(CX_C z) { return CX_F(times_minus_i)(CX_F(tanh)(CX_F(times_i)(z))); }

/* Special values (an infinite or NaN part) of asinh, acos and acosh: C99 Annex G (G.6.2.2, G.6.1.1,
   G.6.2.1) and the C library's choices where it leaves a sign open; asin and atan follow from
   asinh and atanh. */
CX_FN int CX_F(special)(CX_C z) { return z.re - z.re != z.re - z.re || z.im - z.im != z.im - z.im; }
CX_FN CX_C CX_F(asinh_special)(CX_T x, CX_T y) {
  const CX_T ax = CX_M(fabs)(x), ay = CX_M(fabs)(y), quarter_pi = CX_K(0.78539816339744830962);
  if (x != x) {
    if (y == CX_K(0.0)) return CX_F(c)(x, y);
    if (y == y && ay - ay != ay - ay) return CX_F(c)(ay, x);  /* NaN + i inf: inf + i NaN */
    return CX_F(c)(x, x);
  }
  if (y != y) return ax - ax != ax - ax ? CX_F(c)(x, y) : CX_F(c)(y, y);
  const CX_T im = ay - ay != ay - ay ? (ax - ax != ax - ax ? quarter_pi : CX_K(2.0) * quarter_pi) : CX_K(0.0);
  return CX_F(c)(CX_M(copysign)(ax - ax != ax - ax ? ax : ay, x), CX_M(copysign)(im, y));
}
CX_FN CX_C CX_F(acos_special)(CX_T x, CX_T y) {
  const CX_T ax = CX_M(fabs)(x), ay = CX_M(fabs)(y), quarter_pi = CX_K(0.78539816339744830962);
  if (y == y && ay - ay != ay - ay) {  /* y = +-inf: re pi/2 (pi/4, 3pi/4 for an infinite x, NaN for NaN), im -y */
    const CX_T re = x != x ? x : ax - ax != ax - ax ? (x > CX_K(0.0) ? quarter_pi : CX_K(3.0) * quarter_pi) : CX_K(2.0) * quarter_pi;
    return CX_F(c)(re, -y);
  }
  if (x == x && ax - ax != ax - ax) {  /* x = +-inf, y finite or NaN */
    if (y != y) return CX_F(c)(y, -CX_M(copysign)(ax, y));  /* (glibc's sign: pi/2 - asin) */
    return CX_F(c)(x > CX_K(0.0) ? CX_K(0.0) : CX_K(4.0) * quarter_pi, CX_M(copysign)(ax, -y));
  }
  if (x == CX_K(0.0) && y != y) return CX_F(c)(CX_K(2.0) * quarter_pi, y);
  const CX_T nan = x != x ? x : y;
  return CX_F(c)(nan, nan);
}
CX_FN CX_C CX_F(acosh_special)(CX_T x, CX_T y) {
  const CX_T ax = CX_M(fabs)(x), ay = CX_M(fabs)(y), quarter_pi = CX_K(0.78539816339744830962);
  if (y == y && ay - ay != ay - ay) {
    const CX_T im = x != x ? x : ax - ax != ax - ax ? (x > CX_K(0.0) ? quarter_pi : CX_K(3.0) * quarter_pi) : CX_K(2.0) * quarter_pi;
    return CX_F(c)(ay, x != x ? x : CX_M(copysign)(im, y));
  }
  if (x == x && ax - ax != ax - ax) return CX_F(c)(ax, y != y ? y : CX_M(copysign)(x > CX_K(0.0) ? CX_K(0.0) : CX_K(4.0) * quarter_pi, y));
  if (x == CX_K(0.0) && y != y) return CX_F(c)(y, CX_K(2.0) * quarter_pi);
  const CX_T nan = x != x ? x : y;
  return CX_F(c)(nan, nan);
}

CX_FN CX_C CX_F(asin)(CX_C z) {
  if (z.im != z.im && z.re == z.re && z.re - z.re != z.re - z.re)  /* +-inf + i NaN: glibc's sign */
    return CX_F(c)(z.im, CX_M(copysign)(CX_M(fabs)(z.re), z.im));
  if (CX_F(special)(z)) {  /* -i asinh(iz) */
    const CX_C w = CX_F(asinh_special)(-z.im, z.re);
    return CX_F(c)(w.im, -w.re);
  }
  const CX_C s1 = CX_F(sqrt)(CX_F(c)(CX_K(1.0) - z.re, -z.im)), s2 = CX_F(sqrt)(CX_F(c)(CX_K(1.0) + z.re, z.im));
  return CX_F(c)(CX_M(atan2)(z.re, s1.re * s2.re - s1.im * s2.im), CX_M(asinh)(s1.re * s2.im - s1.im * s2.re));
}
CX_FN CX_C CX_F(acos)(CX_C z) {
  if (CX_F(special)(z)) return CX_F(acos_special)(z.re, z.im);
  const CX_C s1 = CX_F(sqrt)(CX_F(c)(CX_K(1.0) - z.re, -z.im)), s2 = CX_F(sqrt)(CX_F(c)(CX_K(1.0) + z.re, z.im));
  return CX_F(c)(CX_K(2.0) * CX_M(atan2)(s1.re, s2.re), CX_M(asinh)(s2.re * s1.im - s2.im * s1.re));
}
CX_FN CX_C CX_F(acosh)(CX_C z) {
  if (CX_F(special)(z)) return CX_F(acosh_special)(z.re, z.im);
  const CX_C s1 = CX_F(sqrt)(CX_F(c)(z.re - CX_K(1.0), z.im)), s2 = CX_F(sqrt)(CX_F(c)(z.re + CX_K(1.0), z.im));
  return CX_F(c)(CX_M(asinh)(s1.re * s2.re + s1.im * s2.im), CX_K(2.0) * CX_M(atan2)(s1.im, s2.re));
}
CX_FN CX_C CX_F(asinh)(CX_C z) {
  if (CX_F(special)(z)) return CX_F(asinh_special)(z.re, z.im);
  return CX_F(times_minus_i)(CX_F(asin)(CX_F(times_i)(z)));
}
CX_FN CX_C CX_F(atanh)(CX_C z) {
  const CX_T x = z.re, y = z.im, ax = CX_M(fabs)(x), ay = CX_M(fabs)(y);
  const CX_T half_pi = CX_K(1.5707963267948966192);
  if (x == CX_K(0.0) && y != y) return CX_F(c)(x, y);  /* G.6.2.3: +-0 + i NaN */
  if (ax >= CX_ATANH_BIG || ay >= CX_ATANH_BIG) {  /* 1/z + i pi/2 (sign of y), infinities included */
    /* G.6.2.3: a NaN part beside a finite one gives NaN + i NaN (the big part tells nothing) */
    if ((x != x && ay - ay == ay - ay) || (y != y && ax - ax == ax - ax)) return CX_F(c)(x + y, x + y);
    const CX_C r = CX_F(div)(CX_F(c)(CX_K(1.0), CX_K(0.0)), z);
    return CX_F(c)(ax - ax != ax - ax || ay - ay != ay - ay ? CX_M(copysign)(CX_K(0.0), x) : r.re,
                   y != y ? y : CX_M(copysign)(half_pi, y));
  }
  const CX_T om = CX_K(1.0) - ax;
  const CX_T re = CX_K(0.25) * CX_M(log1p)(CX_K(4.0) * ax / (om * om + ay * ay));
  const CX_T im = CX_K(0.5) * CX_M(atan2)(CX_K(2.0) * y, om * (CX_K(1.0) + ax) - ay * ay);
  return CX_F(c)(CX_M(copysign)(re, x), im);
}
CX_FN CX_C CX_F(atan)(CX_C z) {
  /* +-inf + iy, y NaN included: glibc's catan (pi/2 with the sign of x, 0 with the sign of y)
     without negating the NaN in i z, whose sign GPUs leave unspecified (PTX neg.f32/f64) */
  if (z.re == z.re && z.re - z.re != z.re - z.re)
    return CX_F(c)(CX_M(copysign)(CX_K(1.5707963267948966192), z.re), CX_M(copysign)(CX_K(0.0), z.im));
  return CX_F(times_minus_i)(CX_F(atanh)(CX_F(times_i)(z)));
}

#undef CX_T
#undef CX_C
#undef CX_F
#undef CX_K
#undef CX_EXP_OVER
#undef CX_SQRT_BIG
#undef CX_SQRT_SMALL
#undef CX_SQRT_UP
#undef CX_SQRT_DOWN
#undef CX_TANH_BIG
#undef CX_ATANH_BIG
