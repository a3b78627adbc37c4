// The dialect text of generated kernels: types, loads and stores, math names, helper functions.
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string_view>

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

std::string_view kernel_section(std::string_view file, std::string_view name) {
  // Lines "//@ name" (then, after a space, what the section is) open a section.
  std::size_t pos = 0;
  while (pos < file.size()) {
    const std::size_t end = file.find('\n', pos);
    const std::size_t next = end == std::string_view::npos ? file.size() : end + 1;
    const std::string_view line = file.substr(pos, next - pos);
    if (line.starts_with("//@ ") && line.substr(4).starts_with(name) &&
        (line.size() == 4 + name.size() || line[4 + name.size()] == ' ' || line[4 + name.size()] == '\n')) {
      std::size_t stop = next;
      while (stop < file.size() && !file.substr(stop).starts_with("//@ ")) {
        const std::size_t e = file.find('\n', stop);
        stop = e == std::string_view::npos ? file.size() : e + 1;
      }
      return file.substr(next, stop - next);
    }
    pos = next;
  }
  throw std::logic_error(cat("porta internal error: no section ", name, " in an embedded kernel file"));
}

// The prelude's text: codegen/kernels/prelude_cuda.cuh, prelude_opencl.cl (a dialect's own),
// prelude.h (both dialects'), random.h (random numbers), embedded at build time.
extern const char* const kPreludeCudaSource;
extern const char* const kPreludeOpenclSource;
extern const char* const kPreludeSource;
extern const char* const kRandomSource;

std::string DialectText::prelude(bool fp64, bool random) const {
  const std::string_view dialect = cuda() ? kPreludeCudaSource : kPreludeOpenclSource;
  const bool f64 = fp64 || cuda();  // the float64 helpers: CUDA has double everywhere
  std::string p;
  if (random) p += kernel_section(dialect, "math_names");
  p += kernel_section(dialect, "names");
  if (fp64 && !cuda()) p += kernel_section(dialect, "fp64");
  p += kernel_section(dialect, "types");
  p += kernel_section(kPreludeSource, "helpers");
  if (f64) {
    p += kernel_section(dialect, "odd_f32");
    p += kernel_section(kPreludeSource, "f64");
  }
  if (random) {
    p += kernel_section(kRandomSource, "f32");
    if (f64) p += kernel_section(kRandomSource, "f64");
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
  }
  return p;
}

}  // namespace porta::detail
