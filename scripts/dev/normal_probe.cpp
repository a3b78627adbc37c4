// Issue 21 probe: variants of the float32 Box-Muller kernel (random::normal) on a GPU against
// porta's fill, uniform and normal, to choose the generated kernel's math from one run on the
// H200. Not part of the build:
//   g++ -O2 -std=c++20 -Iinclude -Isrc scripts/dev/normal_probe.cpp -o /tmp/normal_probe -L$B/lib -lporta -Wl,-rpath,$B/lib
//   /tmp/normal_probe cuda:0 opencl:1        (--log2n=K first: 2^K float32, default 2^28)
// Each variant draws the values of porta's random::normal (the same Philox words, the same pairs:
// element 4t + 2p + s takes r(x[2p]) times cos (s = 0) or sin (s = 1) of 2 pi u(x[2p + 1])) and
// reports its worst error against the host reference (src/base/philox.hpp) in units of the random
// test's tolerance (2e-6 absolute + 2e-6 relative): above 1 would fail that test.
// Variants: `lanes` (each lane its own radius and sin or cos, as porta's kernel is written), `sincos`
// (one radius a pair, one sincos), `sincospi` (the angle as 2 u, reduced exactly), `log2` (the
// radius from log2), `approx` (the hardware's approximate log, sin and cos: the bound, not a
// candidate). Each with porta's launch bound of 8 blocks of 256 a unit on CUDA, and without.
#include <porta/porta.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "event_timing.hpp"
#include "base/philox.hpp"

namespace {

const char* kVariants[] = {"lanes", "sincos", "sincospi", "log2", "approx"};

std::string pair_code(bool cuda, const std::string& v) {
  // PAIR(a, b, c, s): the two values of one pair of words.
  const std::string r_log = cuda ? "sqrtf(-2.0f * logf(1.0f - u01(a)))" : "sqrt(-2.0f * log(1.0f - u01(a)))";
  const std::string th = "6.2831853071795864769f * u01(b)";
  if (v == "lanes")
    return cuda ? "FN float bm(u32 a, u32 b, int odd) { float r = " + r_log + ", t = " + th +
                      "; return r * (odd ? sinf(t) : cosf(t)); }\n#define PAIR(a, b, c, s) { c = bm(a, b, 0); s = bm(a, b, 1); }\n"
                : "FN float bm(u32 a, u32 b, int odd) { float r = " + r_log + ", t = " + th +
                      "; return r * (odd ? sin(t) : cos(t)); }\n#define PAIR(a, b, c, s) { c = bm(a, b, 0); s = bm(a, b, 1); }\n";
  std::string radius = r_log, angle;
  if (v == "log2") radius = cuda ? "sqrtf(-1.3862943611198906f * log2f(1.0f - u01(a)))" : "sqrt(-1.3862943611198906f * log2(1.0f - u01(a)))";
  if (v == "approx") radius = cuda ? "sqrtf(-2.0f * __logf(1.0f - u01(a)))" : "native_sqrt(-2.0f * native_log(1.0f - u01(a)))";
  if (v == "sincos")
    angle = cuda ? "float sn, cs; sincosf(" + th + ", &sn, &cs);" : "float cs; float sn = sincos(" + th + ", &cs);";
  else if (v == "approx")
    angle = cuda ? "float t = " + th + "; float sn = __sinf(t), cs = __cosf(t);" : "float t = " + th + "; float sn = native_sin(t), cs = native_cos(t);";
  else
    angle = cuda ? "float sn, cs; sincospif(2.0f * u01(b), &sn, &cs);" : "float h = 2.0f * u01(b); float sn = sinpi(h), cs = cospi(h);";
  return "FN void pair(u32 a, u32 b, float* c, float* s) { float r = " + radius + "; " + angle +
         " *c = r * cs; *s = r * sn; }\n#define PAIR(a, b, c, s) pair(a, b, &c, &s)\n";
}

std::string source(bool cuda, const std::string& variant, bool bounded) {
  std::string s;
  if (cuda)
    s += "typedef unsigned int u32; typedef unsigned long long u64; typedef long long i64;\n"
         "#define FN __device__ __forceinline__\n#define GLOBAL\n#define MULHI(a, k) __umulhi((a), (k))\n";
  else
    s += "typedef uint u32; typedef ulong u64; typedef long i64;\n#define FN inline\n#define GLOBAL __global\n"
         "#define MULHI(a, k) mul_hi((u32)(a), (u32)(k))\n";
  s += R"(
FN void philox(u64 index, u64 stream, u64 seed, u32* x) {
  u32 c0 = (u32)index, c1 = (u32)(index >> 32), c2 = (u32)stream, c3 = (u32)(stream >> 32);
  u32 k0 = (u32)seed, k1 = (u32)(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    u32 h0 = MULHI(c0, 0xD2511F53u), l0 = c0 * 0xD2511F53u, h1 = MULHI(c2, 0xCD9E8D57u), l1 = c2 * 0xCD9E8D57u;
    c0 = h1 ^ c1 ^ k0; c1 = l1; c2 = h0 ^ c3 ^ k1; c3 = l0;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
  x[0] = c0; x[1] = c1; x[2] = c2; x[3] = c3;
}
FN float u01(u32 x) { return (float)(x >> 8) * 5.9604644775390625e-08f; }
)";
  s += pair_code(cuda, variant);
  s += cuda ? "struct __align__(16) f4 { float v[4]; };\n"
              "FN void one(float* out, i64 t, u64 stream, u64 seed) {\n  u32 x[4]; philox((u64)t, stream, seed, x);\n"
              "  f4 y; PAIR(x[0], x[1], y.v[0], y.v[1]); PAIR(x[2], x[3], y.v[2], y.v[3]);\n  *(f4*)(out + 4 * t) = y;\n}\n"
            : "FN void one(__global float* out, i64 t, u64 stream, u64 seed) {\n  u32 x[4]; philox((u64)t, stream, seed, x);\n"
              "  float y0, y1, y2, y3; PAIR(x[0], x[1], y0, y1); PAIR(x[2], x[3], y2, y3);\n"
              "  *((__global float4*)(out + 4 * t)) = (float4)(y0, y1, y2, y3);\n}\n";
  s += cuda ? std::string("extern \"C\" __global__ ") + (bounded ? "__launch_bounds__(256, 8) " : "") +
                  "void probe(float* __restrict__ out, i64 n, u64 seed, u64 stream) {\n"
                  "  const i64 gid = blockIdx.x * (i64)blockDim.x + threadIdx.x, gsz = (i64)gridDim.x * blockDim.x;\n"
            : "__kernel void probe(__global float* restrict out, i64 n, u64 seed, u64 stream) {\n"
              "  const i64 gid = get_global_id(0), gsz = get_global_size(0);\n";
  // Two vectors an iteration, as porta's random loops (codegen/random.cpp).
  s += "  const i64 nv = n / 4;\n  i64 t = gid;\n  for (; t + gsz < nv; t += 2 * gsz) { one(out, t, stream, seed); one(out, t + gsz, stream, seed); }\n"
       "  if (t < nv) one(out, t, stream, seed);\n}\n";
  return s;
}

// The worst |value - reference| over the first `count` elements, in units of 2e-6 + 2e-6 |reference|.
double worst_error(const porta::Array& out, std::int64_t count, std::uint64_t seed, std::uint64_t stream) {
  std::vector<float> v = out.slice({porta::Slice{0, count, 1}}).to_vector<float>();
  double worst = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const double ref = porta::detail::philox_normal_f32(static_cast<std::uint64_t>(i), stream, seed);
    worst = std::max(worst, std::abs(v[static_cast<std::size_t>(i)] - ref) / (2e-6 + 2e-6 * std::abs(ref)));
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  int first = 1, log2n = 28;
  if (argc > 1 && std::string(argv[1]).rfind("--log2n=", 0) == 0) log2n = std::stoi(argv[first++] + 8);
  const std::int64_t n = std::int64_t{1} << log2n, checked = std::min<std::int64_t>(n, std::int64_t{1} << 22);
  const double bytes = 4.0 * static_cast<double>(n);
  for (int a = first; a < argc; ++a) {
    porta::Device d = porta::device(argv[a]);
    const bool cuda = d.backend() == porta::Backend::cuda;
    const std::uint64_t seed = 12345, stream = 0;
    porta::Array out = porta::empty({n}, porta::DType::float32, d).eval();
    const double fill = time_ms(d, [&] { (void)porta::full({n}, 1.5, porta::DType::float32, d).eval(); });
    const double uni = time_ms(d, [&] { (void)porta::random::Generator(seed).uniform({n}, 0.0, 1.0, porta::DType::float32, d).eval(); });
    const double nor = time_ms(d, [&] { (void)porta::random::Generator(seed).normal({n}, 0.0, 1.0, porta::DType::float32, d).eval(); });
    porta::Array ref = porta::random::Generator(seed).normal({n}, 0.0, 1.0, porta::DType::float32, d).eval();
    std::printf("%s: fill %.0f GB/s, porta uniform %.0f (%.3fx fill), porta normal %.0f (%.3fx fill, error %.2f)\n", argv[a],
                bytes / fill / 1e6, bytes / uni / 1e6, fill / uni, bytes / nor / 1e6, fill / nor, worst_error(ref, checked, seed, stream));
    const auto groups = static_cast<std::uint32_t>(d.compute_units() * (cuda ? 32 : 16));
    for (const char* v : kVariants)
      for (bool bounded : {true, false}) {
        if (!cuda && !bounded) continue;
        porta::RawKernel k(cuda ? porta::Backend::cuda : porta::Backend::opencl, source(cuda, v, bounded), "probe");
        const double ms = time_ms(d, [&] { k.launch({groups, 1, 1}, {256, 1, 1}, {out, n, seed, stream}, 0, d); });
        const double diff = porta::max(porta::abs(out - ref)).item<float>();
        std::printf("  %-9s%s: %.0f GB/s (%.3fx fill), error %.2f, max |probe - porta| %.2g\n", v, bounded ? " bounded" : "        ",
                    bytes / ms / 1e6, fill / ms, worst_error(out, checked, seed, stream), diff);
      }
  }
}
