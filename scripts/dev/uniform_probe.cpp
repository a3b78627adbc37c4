// Issue 21 probe: variants of the Philox uniform kernel on a GPU against porta's fill, to
// choose the generated kernel's shape from one run on the H200. Not part of the build:
//   g++ -O2 -std=c++20 -Iinclude scripts/dev/uniform_probe.cpp -o /tmp/uniform_probe -L$B/lib -lporta -Wl,-rpath,$B/lib
//   /tmp/uniform_probe cuda:0 opencl:1        (--log2n=K first: 2^K float32, default 2^28)
// Every variant writes the bits of porta's random::uniform(0, 1) float32 (checked against it).
// Variants: V vectors of 4 float32 a grid-stride iteration (1, 2, 4), the Philox high word from
// mulhi or from one 64-bit product, and the grid: porta's (32 blocks a compute unit on CUDA, 16 on
// OpenCL) or the resident count (8 blocks of 256 a unit).
#include <porta/porta.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "event_timing.hpp"

namespace {

std::string source(bool cuda, int vectors, bool wide_product, bool bit_convert = false) {
  std::string s;
  if (cuda) {
    s += "typedef unsigned int u32; typedef unsigned long long u64;\n";
    s += wide_product ? "#define MULHILO(h, l, a, k) { u64 p_ = (u64)(a) * (k); h = (u32)(p_ >> 32); l = (u32)p_; }\n"
                      : "#define MULHILO(h, l, a, k) { h = __umulhi((a), (k)); l = (a) * (k); }\n";
    s += "struct __align__(16) f4 { float v[4]; };\n#define FN __device__ __forceinline__\n#define GLOBAL\n";
  } else {
    s += "typedef uint u32; typedef ulong u64;\n";
    s += wide_product ? "#define MULHILO(h, l, a, k) { u64 p_ = (u64)(a) * (k); h = (u32)(p_ >> 32); l = (u32)p_; }\n"
                      : "#define MULHILO(h, l, a, k) { h = mul_hi((u32)(a), (u32)(k)); l = (a) * (k); }\n";
    s += "#define FN inline\n#define GLOBAL __global\n";
  }
  s += R"(
FN void philox(u64 index, u64 stream, u64 seed, u32* x) {
  u32 c0 = (u32)index, c1 = (u32)(index >> 32), c2 = (u32)stream, c3 = (u32)(stream >> 32);
  u32 k0 = (u32)seed, k1 = (u32)(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    u32 h0, l0, h1, l1;
    MULHILO(h0, l0, c0, 0xD2511F53u);
    MULHILO(h1, l1, c2, 0xCD9E8D57u);
    c0 = h1 ^ c1 ^ k0; c1 = l1; c2 = h0 ^ c3 ^ k1; c3 = l0;
    k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
  }
  x[0] = c0; x[1] = c1; x[2] = c2; x[3] = c3;
}
FN void one(GLOBAL float* out, long long t, u64 stream, u64 seed) {
  u32 x[4];
  philox((u64)t, stream, seed, x);
)";
  if (cuda && bit_convert)
    // (x >> 8) * 2^-24 without an integer-to-float conversion (a quarter-rate instruction): the low
    // 23 bits as the mantissa of 2^23, scaled, minus 0.5 unless bit 31 is set; exact.
    s += "  f4 y; for (int w = 0; w < 4; ++w) y.v[w] = fmaf(__uint_as_float(0x4B000000u | ((x[w] >> 8) & 0x7FFFFFu)), 5.9604644775390625e-08f,"
         " __uint_as_float(~((u32)((int)x[w] >> 31)) & 0xBF000000u));\n  *(f4*)(out + 4 * t) = y;\n}\n";
  else if (cuda)
    s += "  f4 y; for (int w = 0; w < 4; ++w) y.v[w] = (float)(x[w] >> 8) * 5.9604644775390625e-08f;\n  *(f4*)(out + 4 * t) = y;\n}\n";
  else
    s += "  float4 y = (float4)((float)(x[0] >> 8), (float)(x[1] >> 8), (float)(x[2] >> 8), (float)(x[3] >> 8)) * 5.9604644775390625e-08f;\n"
         "  *((__global float4*)(out + 4 * t)) = y;\n}\n";
  s += cuda ? "extern \"C\" __global__ void probe(float* __restrict__ out, long long n, u64 seed, u64 stream) {\n"
              "  const long long gid = blockIdx.x * (long long)blockDim.x + threadIdx.x, gsz = (long long)gridDim.x * blockDim.x;\n"
            : "__kernel void probe(__global float* restrict out, long n, u64 seed, u64 stream) {\n"
              "  const long gid = get_global_id(0), gsz = get_global_size(0);\n";
  const std::string V = std::to_string(vectors);
  s += "  const long long nv = n / 4;\n  long long t = gid;\n  for (; t + " + V + " * gsz <= nv; t += " + V + " * gsz) {\n";
  for (int k = 0; k < vectors; ++k) s += "    one(out, t + " + std::to_string(k) + " * gsz, stream, seed);\n";
  s += "  }\n  for (; t < nv; t += gsz) one(out, t, stream, seed);\n}\n";
  if (!cuda) {
    // OpenCL C has no `long long`.
    for (std::size_t p; (p = s.find("long long")) != std::string::npos;) s.replace(p, 9, "long");
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int first = 1, log2n = 28;
  if (argc > 1 && std::string(argv[1]).rfind("--log2n=", 0) == 0) log2n = std::stoi(argv[first++] + 8);
  const std::int64_t n = std::int64_t{1} << log2n;
  const double bytes = 4.0 * static_cast<double>(n);
  for (int a = first; a < argc; ++a) {
    porta::Device d = porta::device(argv[a]);
    const bool cuda = d.backend() == porta::Backend::cuda;
    const std::uint64_t seed = 12345, stream = 0;
    porta::Array ref = porta::random::Generator(seed).uniform({n}, 0.0, 1.0, porta::DType::float32, d).eval();
    porta::Array out = porta::empty({n}, porta::DType::float32, d).eval();
    const double fill = time_ms(d, [&] { (void)porta::full({n}, 1.5, porta::DType::float32, d).eval(); });
    const double uni = time_ms(d, [&] { (void)porta::random::Generator(seed).uniform({n}, 0.0, 1.0, porta::DType::float32, d).eval(); });
    std::printf("%s: fill %.0f GB/s, porta uniform %.0f GB/s (%.3fx fill)\n", argv[a], bytes / fill / 1e6, bytes / uni / 1e6, fill / uni);
    const int cu = d.compute_units();
    for (int vectors : {1, 2, 4})
      for (bool wide : {false, true})
        for (int per_cu : {cuda ? 32 : 16, 8}) {
          porta::RawKernel k(cuda ? porta::Backend::cuda : porta::Backend::opencl, source(cuda, vectors, wide), "probe");
          const std::uint32_t groups = static_cast<std::uint32_t>(cu * per_cu);
          auto run = [&] { k.launch({groups, 1, 1}, {256, 1, 1}, {out, n, seed, stream}, 0, d); };
          const double ms = time_ms(d, run);
          const bool same = porta::all(porta::equal(out, ref)).item<bool>();
          std::printf("  %d vector(s)/iteration, %s, %d groups/unit: %.0f GB/s (%.3fx fill)%s\n", vectors,
                      wide ? "64-bit product" : "mulhi", per_cu, bytes / ms / 1e6, fill / ms, same ? "" : "  WRONG BITS");
        }
    if (cuda)
      for (bool wide : {false, true}) {
        porta::RawKernel k(porta::Backend::cuda, source(true, 2, wide, true), "probe");
        const std::uint32_t groups = static_cast<std::uint32_t>(cu * 32);
        const double ms = time_ms(d, [&] { k.launch({groups, 1, 1}, {256, 1, 1}, {out, n, seed, stream}, 0, d); });
        const bool same = porta::all(porta::equal(out, ref)).item<bool>();
        std::printf("  2 vector(s)/iteration, %s, 32 groups/unit, float from bits: %.0f GB/s (%.3fx fill)%s\n",
                    wide ? "64-bit product" : "mulhi", bytes / ms / 1e6, fill / ms, same ? "" : "  WRONG BITS");
      }
  }
}
