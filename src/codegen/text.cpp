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
    case DType::int8:
    case DType::int16:
    case DType::uint8:
    case DType::uint16:
    case DType::uint32:
    case DType::uint64: return compute_type(t);
    case DType::float16: return cuda() ? "unsigned short" : "half";
    case DType::bfloat16: return cuda() ? "unsigned short" : "ushort";
    case DType::float32: return "float";
    case DType::float64: return "double";
    case DType::complex64: return "porta_c64";    // base/complex.h's struct, the dialect's prelude defines it
    case DType::complex128: return "porta_c128";
  }
  return "?";
}

std::string DialectText::compute_type(DType t) const {
  switch (t) {
    case DType::boolean: return "bool";
    case DType::int32: return "int";
    case DType::int64: return cuda() ? "long long" : "long";
    // The narrow integers are computed in their own types (each instruction's value converted
    // back to it, so that arithmetic wraps as NumPy's: codegen/instr.cpp). OpenCL C's char is signed.
    case DType::int8: return cuda() ? "signed char" : "char";
    case DType::int16: return "short";
    case DType::uint8: return cuda() ? "unsigned char" : "uchar";
    case DType::uint16: return cuda() ? "unsigned short" : "ushort";
    case DType::uint32: return cuda() ? "unsigned int" : "uint";
    case DType::uint64: return cuda() ? "unsigned long long" : "ulong";
    case DType::float16:
    case DType::bfloat16:
    case DType::float32: return "float";
    case DType::float64: return "double";
    case DType::complex64: return "porta_c64";
    case DType::complex128: return "porta_c128";
  }
  return "?";
}

std::string DialectText::scalar_param_type(DType t) const {
  // OpenCL forbids bool parameters; pass bools as int. A complex scalar is two parameters of its
  // real type (runtime/kernel_args.hpp): KernelArg's values are at most 8 bytes.
  if (is_complex(t)) return compute_type(real_dtype(t));
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
  bool single = compute != DType::float64 && compute != DType::complex128;
  return single ? fn + "f" : fn;
}

std::string DialectText::literal(double v, DType t) const {
  char buf[64];
  switch (t) {
    case DType::boolean: return v != 0 ? "true" : "false";
    case DType::int32: std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v)); return buf;
    case DType::int64: std::snprintf(buf, sizeof buf, cuda() ? "%lldLL" : "%lldL", static_cast<long long>(v)); return buf;
    case DType::int8:
    case DType::int16:
    case DType::uint8:
    case DType::uint16:
      // The narrow types' literals are ints, converted where they are used.
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
      return buf;
    case DType::uint32: std::snprintf(buf, sizeof buf, "%lluu", static_cast<unsigned long long>(v)); return buf;
    case DType::uint64:
      std::snprintf(buf, sizeof buf, cuda() ? "%lluULL" : "%lluUL", static_cast<unsigned long long>(v));
      return buf;
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
// prelude.h (both dialects'), random.h (random numbers) and base/philox.h, embedded at build time.
extern const char* const kPreludeCudaSource;
extern const char* const kPreludeOpenclSource;
extern const char* const kPreludeSource;
extern const char* const kRandomSource;
extern const char* const kPhiloxSource;  // base/philox.h
extern const char* const kComplexSource;  // base/complex.h

std::string DialectText::prelude(bool fp64, bool random, bool complex) const {
  const std::string_view own = cuda() ? kPreludeCudaSource : kPreludeOpenclSource;  // the dialect's file
  const bool f64 = fp64 || cuda();  // the float64 helpers: CUDA has double everywhere
  std::string p;
  if (random) p += kernel_section(own, "math_names");
  p += kernel_section(own, "names");
  if (fp64 && !cuda()) p += kernel_section(own, "fp64");
  p += kernel_section(own, "types");
  p += kernel_section(kPreludeSource, "helpers");
  if (f64) {
    p += kernel_section(own, "odd_f32");
    p += kernel_section(kPreludeSource, "f64");
  }
  if (random) {
    // Philox (base/philox.h, the one definition the host reference includes too), then the
    // normal values on its words; OpenCL's vector blocks last.
    p += kernel_section(kRandomSource, "philox_fn");
    if (!f64) p += kernel_section(kRandomSource, "no_f64");
    p += kPhiloxSource;
    p += kernel_section(kRandomSource, "f32");
    if (f64) p += kernel_section(kRandomSource, "f64");
    if (!cuda()) p += kernel_section(own, "philox_vectors");
  }
  if (complex) {
    // base/complex.h once per real type, between the dialect's definitions of its names
    // (complex_f32 / complex_f64) and their undefinitions (complex_end).
    p += kernel_section(own, "complex_f32");
    p += kComplexSource;
    p += kernel_section(own, "complex_end");
    if (fp64) {
      p += kernel_section(own, "complex_f64");
      p += kComplexSource;
      p += kernel_section(own, "complex_end");
    }
  }
  return p;
}

}  // namespace porta::detail
