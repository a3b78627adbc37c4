// The dialect text of generated kernels: types, loads and stores, math names, helper functions.
#include <cmath>
#include <cstdio>

#include "codegen/codegen.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {

std::string DialectText::kernel_prefix() const { return cuda() ? "extern \"C\" __global__ void " : "__kernel void "; }

std::string DialectText::storage_type(DType t) const {
  switch (t) {
    case DType::boolean: return cuda() ? "unsigned char" : "uchar";
    case DType::int32: return "int";
    case DType::int64: return cuda() ? "long long" : "long";
    case DType::float16: return cuda() ? "unsigned short" : "half";
    case DType::bfloat16: return cuda() ? "unsigned short" : "ushort";
    case DType::float32: return "float";
    case DType::float64: return "double";
  }
  return "?";
}

std::string DialectText::compute_type(DType t) const {
  switch (t) {
    case DType::boolean: return "bool";
    case DType::int32: return "int";
    case DType::int64: return cuda() ? "long long" : "long";
    case DType::float16:
    case DType::bfloat16:
    case DType::float32: return "float";
    case DType::float64: return "double";
  }
  return "?";
}

std::string DialectText::scalar_param_type(DType t) const {
  // OpenCL forbids bool parameters; pass bools as int.
  return t == DType::boolean ? "int" : compute_type(t);
}

std::string DialectText::global_ptr(DType t) const {
  return cuda() ? cat("const ", storage_type(t), "* __restrict__") : cat("__global const ", storage_type(t), "* restrict");
}

std::string DialectText::global_out_ptr(DType t) const {
  return cuda() ? cat(storage_type(t), "* __restrict__") : cat("__global ", storage_type(t), "* restrict");
}

std::string DialectText::index_type(bool wide) const { return wide ? (cuda() ? "long long" : "long") : "int"; }

std::string DialectText::global_id() const {
  return cuda() ? "(blockIdx.x * (long long)blockDim.x + threadIdx.x)" : "get_global_id(0)";
}
std::string DialectText::global_size() const {
  return cuda() ? "((long long)gridDim.x * blockDim.x)" : "get_global_size(0)";
}
std::string DialectText::local_id() const { return cuda() ? "threadIdx.x" : "get_local_id(0)"; }
std::string DialectText::group_id() const { return cuda() ? "blockIdx.x" : "get_group_id(0)"; }
std::string DialectText::local_size() const { return cuda() ? "blockDim.x" : "get_local_size(0)"; }
std::string DialectText::barrier() const { return cuda() ? "__syncthreads();" : "barrier(CLK_LOCAL_MEM_FENCE);"; }
std::string DialectText::local_array(const std::string& type, const std::string& name, const std::string& count) const {
  return cuda() ? cat("__shared__ ", type, " ", name, "[", count, "];") : cat("__local ", type, " ", name, "[", count, "];");
}

std::string DialectText::load(DType t, const std::string& ptr, const std::string& index) const {
  switch (t) {
    case DType::boolean: return cat("(", ptr, "[", index, "] != 0)");
    case DType::float16: return cuda() ? cat("porta_h2f(", ptr, "[", index, "])") : cat("vload_half(", index, ", ", ptr, ")");
    case DType::bfloat16: return cat("porta_bf2f(", ptr, "[", index, "])");
    default: return cat(ptr, "[", index, "]");
  }
}

std::string DialectText::store(DType t, const std::string& ptr, const std::string& index, const std::string& value) const {
  switch (t) {
    case DType::boolean: return cat(ptr, "[", index, "] = (", storage_type(t), ")(", value, ");");
    case DType::float16:
      return cuda() ? cat(ptr, "[", index, "] = porta_f2h(", value, ");") : cat("vstore_half_rte(", value, ", ", index, ", ", ptr, ");");
    case DType::bfloat16: return cat(ptr, "[", index, "] = porta_f2bf(", value, ");");
    default: return cat(ptr, "[", index, "] = ", value, ";");
  }
}

std::string DialectText::math(const std::string& fn, DType compute) const {
  if (!cuda()) return fn;
  bool single = compute != DType::float64;
  return single ? fn + "f" : fn;
}

std::string DialectText::literal(double v, DType t) const {
  char buf[64];
  switch (t) {
    case DType::boolean: return v != 0 ? "true" : "false";
    case DType::int32: std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v)); return buf;
    case DType::int64: std::snprintf(buf, sizeof buf, cuda() ? "%lldLL" : "%lldL", static_cast<long long>(v)); return buf;
    case DType::float64: std::snprintf(buf, sizeof buf, "%.17g", v); break;
    default: std::snprintf(buf, sizeof buf, "%.9g", v); break;
  }
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return t == DType::float64 ? s : s + "f";
}

std::string DialectText::prelude(bool fp64, bool random) const {
  std::string p;
  if (cuda()) {
    p += R"(typedef unsigned int porta_u32;
typedef unsigned long long porta_u64;
__device__ __forceinline__ float porta_h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
__device__ __forceinline__ unsigned short porta_f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
__device__ __forceinline__ float porta_bf2f(unsigned short b) { return __uint_as_float(((porta_u32)b) << 16); }
__device__ __forceinline__ unsigned short porta_f2bf(float f) {
  porta_u32 u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (unsigned short)(u >> 16);
}
__device__ __forceinline__ float porta_round_h(float f) { return porta_h2f(porta_f2h(f)); }
__device__ __forceinline__ float porta_round_bf(float f) { return porta_bf2f(porta_f2bf(f)); }
__device__ __forceinline__ porta_u32 porta_mulhi(porta_u32 a, porta_u32 b) { return __umulhi(a, b); }
#define PORTA_FN __device__ __forceinline__
#define PORTA_I64 long long
)";
  } else {
    if (fp64) p += "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
    p += R"(typedef uint porta_u32;
typedef ulong porta_u64;
inline float porta_bf2f(ushort b) { return as_float(((uint)b) << 16); }
inline ushort porta_f2bf(float f) {
  uint u = as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (ushort)(u >> 16);
}
inline float porta_round_h(float f) { ushort h; vstore_half_rte(f, 0, (__private half*)&h); return vload_half(0, (__private const half*)&h); }
inline float porta_round_bf(float f) { return porta_bf2f(porta_f2bf(f)); }
#if defined(cl_nv_pragma_unroll) || defined(cl_nv_device_attribute_query) || defined(__NV_CL_C_VERSION)
inline uint porta_mulhi(uint a, uint b) { return mul_hi(a, b); }
#else
inline uint porta_mulhi(uint a, uint b) { return (uint)(((ulong)a * b) >> 32); }
#endif
#define PORTA_FN inline
#define PORTA_I64 long
)";
  }
  // NumPy's remainder (sign of the divisor), floor division, integer power, shifts (a count outside [0, bits):
  // 0, or 0 / -1 by the sign for >>, where C leaves it undefined), NaN-propagating max/min.
  p += R"(PORTA_FN int porta_mod_i32(int a, int b) { if (b == 0) return 0; if (b == -1) return 0; int r = a % b; if (r != 0 && ((r < 0) != (b < 0))) r += b; return r; }
PORTA_FN PORTA_I64 porta_mod_i64(PORTA_I64 a, PORTA_I64 b) { if (b == 0) return 0; if (b == -1) return 0; PORTA_I64 r = a % b; if (r != 0 && ((r < 0) != (b < 0))) r += b; return r; }
PORTA_FN int porta_pow_i32(int a, int b) { if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0; porta_u32 r = 1u, x = (porta_u32)a; while (b) { if (b & 1) r *= x; x *= x; b >>= 1; } return (int)r; }
PORTA_FN PORTA_I64 porta_pow_i64(PORTA_I64 a, PORTA_I64 b) { if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0; porta_u64 r = 1u, x = (porta_u64)a; while (b) { if (b & 1) r *= x; x *= x; b >>= 1; } return (PORTA_I64)r; }
PORTA_FN int porta_fdiv_i32(int a, int b) { if (b == 0) return 0; if (b == -1) return (int)(0u - (porta_u32)a); int q = a / b; if (a % b != 0 && ((a < 0) != (b < 0))) --q; return q; }
PORTA_FN PORTA_I64 porta_fdiv_i64(PORTA_I64 a, PORTA_I64 b) { if (b == 0) return 0; if (b == -1) return (PORTA_I64)((porta_u64)0 - (porta_u64)a); PORTA_I64 q = a / b; if (a % b != 0 && ((a < 0) != (b < 0))) --q; return q; }
PORTA_FN int porta_shl_i32(int a, int b) { return (porta_u32)b < 32u ? (int)((porta_u32)a << b) : 0; }
PORTA_FN PORTA_I64 porta_shl_i64(PORTA_I64 a, PORTA_I64 b) { return (porta_u64)b < 64u ? (PORTA_I64)((porta_u64)a << b) : 0; }
PORTA_FN int porta_shr_i32(int a, int b) { return (porta_u32)b < 32u ? a >> b : (a < 0 ? -1 : 0); }
PORTA_FN PORTA_I64 porta_shr_i64(PORTA_I64 a, PORTA_I64 b) { return (porta_u64)b < 64u ? a >> b : (a < 0 ? -1 : 0); }
PORTA_FN float porta_mod_f32(float a, float b) { float m = FMODF(a, b); if (b == 0.0f) return m; if (m != 0.0f) { if ((b < 0.0f) != (m < 0.0f)) m += b; } else { m = COPYSIGNF(0.0f, b); } return m; }
PORTA_FN float porta_fdiv_f32(float a, float b) { if (b == 0.0f) return a / b; float m = FMODF(a, b); float d = (a - m) / b; if (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) d -= 1.0f; if (d == 0.0f) return COPYSIGNF(0.0f, a / b); float f = FLOORF(d); return d - f > 0.5f ? f + 1.0f : f; }
PORTA_FN float porta_max_f32(float a, float b) { return (a > b || a != a) ? a : b; }
PORTA_FN float porta_min_f32(float a, float b) { return (a < b || a != a) ? a : b; }
)";
  if (fp64 || cuda()) {
    // float64 -> float32 rounded to odd (truncate, then set the last bit when inexact): a later
    // rounding to float16/bfloat16 is then the correctly rounded one.
    p += cuda() ? R"(PORTA_FN float porta_odd_f32(double d) { float f = __double2float_rz(d); if ((double)f != d && f == f) f = __uint_as_float(__float_as_uint(f) | 1u); return f; }
)"
                : R"(PORTA_FN float porta_odd_f32(double d) { float f = convert_float_rtz(d); if ((double)f != d && f == f) f = as_float(as_uint(f) | 1u); return f; }
)";
    p += R"(PORTA_FN double porta_mod_f64(double a, double b) { double m = fmod(a, b); if (b == 0.0) return m; if (m != 0.0) { if ((b < 0.0) != (m < 0.0)) m += b; } else { m = copysign(0.0, b); } return m; }
PORTA_FN double porta_fdiv_f64(double a, double b) { if (b == 0.0) return a / b; double m = fmod(a, b); double d = (a - m) / b; if (m != 0.0 && ((b < 0.0) != (m < 0.0))) d -= 1.0; if (d == 0.0) return copysign(0.0, a / b); double f = floor(d); return d - f > 0.5 ? f + 1.0 : f; }
PORTA_FN double porta_max_f64(double a, double b) { return (a > b || a != a) ? a : b; }
PORTA_FN double porta_min_f64(double a, double b) { return (a < b || a != a) ? a : b; }
)";
  }
  if (cuda()) {
    // FMODF/COPYSIGNF/FLOORF name the float versions.
    p = "#define FMODF fmodf\n#define COPYSIGNF copysignf\n#define FLOORF floorf\n" + p;
  } else {
    p = "#define FMODF fmod\n#define COPYSIGNF copysign\n#define FLOORF floor\n" + p;
  }
  if (random) {
    // Philox4x32-10 and the element -> (counter, word) map of src/base/philox.hpp. porta_uniform_* and
    // porta_normal_* draw one element (the scalar paths); the vector paths call porta_philox once
    // per block of lanes and pick words themselves (emit_random_blocks).
    // Rounds written out and the state in scalars: PoCL vectorises this, not a loop over a
    // private array (15x faster there); its mul_hi is slower than a 64-bit product. NVIDIA's
    // OpenCL (its extension macros) takes mul_hi, as CUDA takes __umulhi: the shorter code there
    // (ptxas made 3840 bytes of sm_90 code for a Philox uniform kernel with __umulhi and a 32-bit
    // low product, 4480 with one 64-bit product giving both); opencl:1's uniform wrote 0.88x of
    // fill with the 64-bit form.
    p += R"(typedef struct { porta_u32 x0, x1, x2, x3; } porta_u32x4;
#define PORTA_PHILOX_ROUND { porta_u32 h0 = porta_mulhi(0xD2511F53u, c0), l0 = 0xD2511F53u * c0; porta_u32 h1 = porta_mulhi(0xCD9E8D57u, c2), l1 = 0xCD9E8D57u * c2; c0 = h1 ^ c1 ^ k0; c1 = l1; c2 = h0 ^ c3 ^ k1; c3 = l0; k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
PORTA_FN porta_u32x4 porta_philox(porta_u64 index, porta_u64 stream, porta_u64 seed) {
  porta_u32 c0 = (porta_u32)index, c1 = (porta_u32)(index >> 32), c2 = (porta_u32)stream, c3 = (porta_u32)(stream >> 32);
  porta_u32 k0 = (porta_u32)seed, k1 = (porta_u32)(seed >> 32);
  PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND
  PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND PORTA_PHILOX_ROUND
  porta_u32x4 x; x.x0 = c0; x.x1 = c1; x.x2 = c2; x.x3 = c3;
  return x;
}
PORTA_FN float porta_u01_f32(porta_u32 x) { return (float)(x >> 8) * 5.9604644775390625e-08f; }
PORTA_FN porta_u32 porta_word(porta_u32x4 x, porta_u32 w) { return w == 0u ? x.x0 : w == 1u ? x.x1 : w == 2u ? x.x2 : x.x3; }
PORTA_FN float porta_bm_f32(porta_u32 a, porta_u32 b, int odd) {
  float u1 = porta_u01_f32(a), u2 = porta_u01_f32(b);
  float r = SQRTF(-2.0f * LOGF(1.0f - u1)), theta = 6.2831853071795864769f * u2;
  return r * (odd ? SINF(theta) : COSF(theta));
}
PORTA_FN void porta_bm_pair_f32(porta_u32 a, porta_u32 b, float* c, float* s) {
  float r = SQRTF(-2.0f * LOGF(1.0f - porta_u01_f32(a))), sn, cs;
  SINCOSF(6.2831853071795864769f * porta_u01_f32(b), sn, cs);
  *c = r * cs; *s = r * sn;
}
PORTA_FN float porta_uniform_f32(porta_u64 i, porta_u64 s, porta_u64 k) { return porta_u01_f32(porta_word(porta_philox(i >> 2, s, k), (porta_u32)i & 3u)); }
PORTA_FN float porta_normal_f32(porta_u64 i, porta_u64 s, porta_u64 k) {
  porta_u32x4 x = porta_philox(i >> 2, s, k);
  porta_u32 w = (porta_u32)i & 2u;
  return porta_bm_f32(porta_word(x, w), porta_word(x, w + 1u), (int)(i & 1u));
}
)";
    if (fp64 || cuda()) {
      p += R"(PORTA_FN double porta_u01_f64(porta_u32 a, porta_u32 b) { return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6)) * 1.1102230246251565e-16; }
PORTA_FN double porta_bm_f64(porta_u32x4 x, int odd) {
  double u1 = porta_u01_f64(x.x0, x.x1), u2 = porta_u01_f64(x.x2, x.x3);
  double r = sqrt(-2.0 * log(1.0 - u1)), theta = 6.283185307179586476925286766559 * u2;
  return r * (odd ? sin(theta) : cos(theta));
}
PORTA_FN double porta_uniform_f64(porta_u64 i, porta_u64 s, porta_u64 k) {
  porta_u32x4 x = porta_philox(i >> 1, s, k);
  return (i & 1u) ? porta_u01_f64(x.x2, x.x3) : porta_u01_f64(x.x0, x.x1);
}
PORTA_FN double porta_normal_f64(porta_u64 i, porta_u64 s, porta_u64 k) { return porta_bm_f64(porta_philox(i >> 1, s, k), (int)(i & 1u)); }
)";
    }
    if (!cuda()) {
      // B consecutive Philox blocks from counter `first` (a multiple of B, so the low words do not
      // carry) on OpenCL vectors: word w of block b is x<w>.s<b>. PoCL runs these as SIMD code,
      // 2x the blocks a second of the scalar rounds in one work-item (2^24 float32, 2-core build
      // machine); the CPU vector path uses them (emit_random_blocks). 16 blocks (uint16, one
      // AVX-512 register) took 20 ms of CPU time for 2^24 float32 against 44 ms for uint4 and 25
      // for uint8 on the build machine's PoCL (a probe kernel, medians of 7). The low word as
      // the 64-bit product's low half, or mul_hi for the high word, cost more (25 and 39 ms).
      for (int b : {2, 4, 8, 16}) {
        const std::string u = cat("uint", b), ul = cat("ulong", b);
        std::string iota;
        for (int i = 0; i < b; ++i) iota += cat(i ? ", " : "", i);
        std::string round = cat("{ ", u, " h0 = convert_", u, "((convert_", ul, "(c0) * 0xD2511F53ul) >> 32), l0 = c0 * 0xD2511F53u; ", u,
                                " h1 = convert_", u, "((convert_", ul, "(c2) * 0xCD9E8D57ul) >> 32), l1 = c2 * 0xCD9E8D57u; c0 = h1 ^ c1 ^ k0; ",
                                "c1 = l1; c2 = h0 ^ c3 ^ k1; c3 = l0; k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }\n");
        p += cat("typedef struct { ", u, " x0, x1, x2, x3; } porta_u32x4_", b, ";\n", "PORTA_FN porta_u32x4_", b, " porta_philox_", b,
                 "(porta_u64 first, porta_u64 stream, porta_u64 seed) {\n  ", u, " c0 = (", u, ")((porta_u32)first) + (", u, ")(", iota,
                 "), c1 = (", u, ")((porta_u32)(first >> 32)), c2 = (", u, ")((porta_u32)stream), c3 = (", u,
                 ")((porta_u32)(stream >> 32));\n  porta_u32 k0 = (porta_u32)seed, k1 = (porta_u32)(seed >> 32);\n");
        for (int r = 0; r < 10; ++r) p += cat("  ", round);
        p += cat("  porta_u32x4_", b, " x; x.x0 = c0; x.x1 = c1; x.x2 = c2; x.x3 = c3;\n  return x;\n}\n");
      }
    }
    p = (cuda() ? "#define SQRTF sqrtf\n#define LOGF logf\n#define COSF cosf\n#define SINF sinf\n#define SINCOSF(x, s, c) sincosf((x), &(s), &(c))\n"
                 : "#define SQRTF sqrt\n#define LOGF log\n#define COSF cos\n#define SINF sin\n#define SINCOSF(x, s, c) ((s) = sincos((x), &(c)))\n") + p;
  }
  return p;
}

}  // namespace porta::detail
