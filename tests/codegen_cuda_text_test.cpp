// The CUDA C++ that code generation writes for every elementwise op, compiled by NVRTC on a
// machine without a GPU (CI's): each (op, dtype) pair the plan rules accept (the block
// interpreter's check, src/interpreter/program.cpp) becomes one instruction of a kernel per
// dtype, and NVRTC must accept that kernel. What the code computes is tested on the devices
// (elementwise_ops_test.cpp, on cuda:0 where there is one); this catches a CUDA spelling that
// PoCL's and Kokkos's runs cannot see (a math function CUDA names differently, a helper the
// CUDA prelude lacks) before a GPU run does. The same for the prelude alone, with and without
// float64 and random numbers (base/philox.h), for the primitives' kernels, the CUDA spelling of
// src/primitives/kernels/*.cl, and for the CUDA plugin's own kernels (backends/cuda/kernels/*.cu).
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/codegen.hpp"
#include "interpreter/program.hpp"
#include "primitives/dense.hpp"
#include "primitives/work.hpp"
#include "porta_backend/strings.hpp"

namespace {

using porta::DType;
using porta::detail::cat;
using porta::detail::Dialect;
using porta::detail::DialectText;
using porta::detail::ElementwisePlan;
using porta::detail::Instr;
using porta::detail::kOpCount;
using porta::detail::Op;

constexpr DType kDTypes[] = {DType::boolean,  DType::int8,    DType::int16,   DType::int32,    DType::int64,
                             DType::uint8,    DType::uint16,  DType::uint32,  DType::uint64,   DType::float16,
                             DType::bfloat16, DType::float32, DType::float64, DType::complex64, DType::complex128};

// A plan of two loads of dtype t and `extra`, checked by the interpreter's rules.
ElementwisePlan plan_with(DType t, const std::vector<Instr>& extra) {
  ElementwisePlan p;
  p.shape = {4};
  p.inputs.resize(2);
  for (auto& in : p.inputs) {
    in.dtype = t;
    in.strides = {1};
  }
  Instr load;
  load.op = Op::load;
  load.dtype = t;
  load.arg = 0;
  p.code.push_back(load);
  load.arg = 1;
  p.code.push_back(load);
  p.code.insert(p.code.end(), extra.begin(), extra.end());
  p.result = static_cast<std::int32_t>(p.code.size()) - 1;
  return p;
}

bool accepted(const ElementwisePlan& p) {
  try {
    porta::detail::interp::compile(p, false);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

// Every op of operands 0 and 1 (dtype t) the rules accept, with its result dtype (t, or bool for
// comparisons and predicates, or each dtype for casts).
std::vector<Instr> accepted_ops(DType t) {
  std::vector<Instr> out;
  for (int k = 0; k < kOpCount; ++k) {
    const Op op = static_cast<Op>(k);
    if (op == Op::load || op == Op::scalar || op == Op::index || op == Op::uniform || op == Op::normal || op == Op::where ||
        op == Op::fma)
      continue;  // leaves and the ops whose operands are not two values of one dtype
    const int n = porta::detail::interp::arity(op);
    for (DType r : kDTypes) {
      Instr in;
      in.op = op;
      in.dtype = r;
      in.a = 0;
      in.b = n >= 2 ? 1 : -1;
      if (accepted(plan_with(t, {in}))) out.push_back(in);
    }
  }
  return out;
}

std::string nvrtc_log(nvrtcProgram p) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(p, &size) != NVRTC_SUCCESS) return "(no log)";
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(p, log.data()) != NVRTC_SUCCESS) return "(no log)";
  return log;
}

// NVRTC's verdict on `src`: empty where it compiles, else the error and the log.
std::string nvrtc_errors(const std::string& src, const char* name) {
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, src.c_str(), name, 0, nullptr, nullptr) != NVRTC_SUCCESS) return "nvrtcCreateProgram failed";
  const char* options[] = {"--gpu-architecture=compute_90", "-std=c++17"};
  const nvrtcResult r = nvrtcCompileProgram(prog, 2, options);
  const std::string log = nvrtc_log(prog);
  nvrtcDestroyProgram(&prog);
  return r == NVRTC_SUCCESS ? std::string() : cat(nvrtcGetErrorString(r), ":\n", log);
}

// The prelude alone (codegen/kernels/, base/philox.h), with and without float64 and random
// numbers, its random functions called so that NVRTC generates their code.
TEST(CudaPrelude, CompilesWithNvrtc) {
  const DialectText d{Dialect::cuda};
  for (bool fp64 : {false, true})
    for (bool random : {false, true}) {
      std::string src = d.prelude(fp64, random, random);  // with complex (base/complex.h) where random
      src += "extern \"C\" __global__ void porta_prelude_check(float* f, double* g, unsigned long long s) {\n"
             "  const long long i = threadIdx.x;\n  f[i] = porta_mod_f32(f[i], 3.0f); g[i] = porta_fdiv_f64(g[i], 2.0);\n";
      if (random)
        src += "  f[i] += porta_uniform_f32(i, 0, s) + porta_normal_f32(i, 1, s);\n"
               "  g[i] += porta_uniform_f64(i, 0, s) + porta_normal_f64(i, 1, s);\n"
               "  float c, sn;\n  porta_bm_pair_f32(porta_philox(i, 2, s).x0, porta_philox(i, 2, s).x1, &c, &sn);\n"
               "  f[i] += porta_round_h(c) + porta_round_bf(sn);\n";
      if (random) {
        src += "  porta_c64 z = porta_c_c64(f[i], 1.0f);\n  z = porta_div_c64(porta_asin_c64(z), porta_pow_c64(z, z));\n  f[i] = z.re;\n";
        if (fp64) src += "  porta_c128 w = porta_c_c128(g[i], 1.0);\n  w = porta_atanh_c128(porta_sqrt_c128(w));\n  g[i] = w.im;\n";
      }
      src += "}\n";
      const std::string errors = nvrtc_errors(src, "porta_prelude_check.cu");
      EXPECT_TRUE(errors.empty()) << "fp64 " << fp64 << ", random " << random << ": " << errors << "\nSource:\n" << src;
    }
}

// PORTA_TEST_DUMP_DIR=dir: every primitive's CUDA text into dir/<what>.cu, for reading the code
// NVRTC or nvcc makes of it (registers, PTX) off the GPU host.
void dump(const std::string& what, const std::string& src) {
  const char* dir = std::getenv("PORTA_TEST_DUMP_DIR");
  if (!dir || !*dir) return;
  std::string file = what;
  for (char& c : file)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  std::ofstream(std::string(dir) + "/" + file + ".cu") << src;
}

// The primitives' kernels as CUDA takes them (primitives/kernels/*.cl through kernel_text, and
// what their plans generate): the scans (complex ones too), the radix sort's passes for every
// ranking CUDA can take, keys of 8 to 64 bits and complex with and without indices, the gathers,
// the scatter and compaction of 1- to 16-byte elements, searchsorted by keys, random integers, the
// dense solvers (primitives/dense.cpp): every variant in complex128, the small ones in float32, the
// fused ones at 64 in float64; each with one definition of porta_k.
TEST(CudaPrimitives, EveryKernelCompilesWithNvrtc) {
  const DialectText d{Dialect::cuda};
  namespace iw = porta::detail::primitives;
  std::size_t compiled = 0;
  for (const iw::NamedSources& list : {iw::scan_kernel_sources(d), iw::radix_sort_kernel_sources(d), iw::indexing_kernel_sources(d),
                                              iw::random_integers_kernel_sources(d), iw::dense_kernel_sources(d)}) {
    for (const auto& [what, src] : list) {
      // One definition of the entry a program: CUDA's backend puts its programmatic-launch wait
      // into the one it finds (backends/cuda/compile.cpp), and a second one under a preprocessor
      // switch left the kernel that ran without it (porta's dense solvers, wrong on an H100).
      std::size_t defs = 0;
      for (std::size_t at = src.find("porta_k("); at != std::string::npos; at = src.find("porta_k(", at + 1))
        defs += at == 0 || !(std::isalnum(static_cast<unsigned char>(src[at - 1])) || src[at - 1] == '_');
      EXPECT_EQ(defs, 1u) << what << ": porta_k defined " << defs << " times";
      const std::string errors = nvrtc_errors(src, "porta_primitive.cu");
      EXPECT_TRUE(errors.empty()) << what << ": " << errors << "\nSource:\n" << src;
      dump(what, src);
      ++compiled;
    }
  }
  EXPECT_GE(compiled, 100u);
}

// The reduction kernels of the complex dtypes (base/complex.h's arithmetic and order in the
// generated passes), which no device of the build machine runs as CUDA.
TEST(CudaReductions, ComplexKernelsCompileWithNvrtc) {
  const DialectText d{Dialect::cuda};
  for (DType t : {DType::complex64, DType::complex128})
    for (const auto& [what, src] : porta::detail::reduction_kernel_sources(d, t)) {
      const std::string errors = nvrtc_errors(src, "porta_reduce.cu");
      EXPECT_TRUE(errors.empty()) << what << ": " << errors << "\nSource:\n" << src;
    }
}

// The CUDA plugin's exact integer GEMM (backends/cuda/kernels/gemm_exact.cu), as blas.cpp compiles
// it: once per integer dtype, -DELEM_CODE=<the DType's number>.
TEST(CudaPluginKernels, ExactGemmCompilesForEveryIntegerDType) {
  std::ifstream in(PORTA_CUDA_KERNELS_DIR "/gemm_exact.cu");
  ASSERT_TRUE(in) << "cannot read " PORTA_CUDA_KERNELS_DIR "/gemm_exact.cu";
  std::stringstream text;
  text << in.rdbuf();
  const std::string src = text.str();
  for (DType t : {DType::int8, DType::int16, DType::int32, DType::int64, DType::uint8, DType::uint16, DType::uint32,
                  DType::uint64}) {
    nvrtcProgram prog = nullptr;
    ASSERT_EQ(nvrtcCreateProgram(&prog, src.c_str(), "gemm_exact.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
    const std::string code = cat("-DELEM_CODE=", static_cast<int>(t));
    const char* options[] = {"--gpu-architecture=compute_90", "-std=c++17", code.c_str()};
    const nvrtcResult r = nvrtcCompileProgram(prog, 3, options);
    const std::string log = nvrtc_log(prog);
    nvrtcDestroyProgram(&prog);
    EXPECT_EQ(r, NVRTC_SUCCESS) << porta::name(t) << ": " << nvrtcGetErrorString(r) << "\n" << log;
  }
}

class CudaText : public ::testing::TestWithParam<DType> {};

TEST_P(CudaText, EveryAcceptedOpCompilesWithNvrtc) {
  const DType t = GetParam();
  const DialectText d{Dialect::cuda};
  const std::vector<Instr> ops = accepted_ops(t);
  ASSERT_GE(ops.size(), 10u) << "the rules accepted only " << ops.size() << " ops of " << porta::name(t);
  // Each op reads the two loads (instructions 0 and 1); offsets move past the loads.
  ElementwisePlan plan = plan_with(t, ops);
  std::vector<std::string> reads = {d.load(t, "a", "i"), d.load(t, "b", "i")};
  std::string src = d.prelude(true, false, porta::detail::plan_uses_complex(plan));
  src += cat("extern \"C\" __global__ void porta_text_check(const ", d.storage_type(t), "* a, const ", d.storage_type(t),
             "* b) {\n  const long long i = threadIdx.x;\n");
  src += porta::detail::emit_instructions(d, plan, reads, "i", "");
  src += "}\n";

  nvrtcProgram prog = nullptr;
  ASSERT_EQ(nvrtcCreateProgram(&prog, src.c_str(), "porta_text_check.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
  const char* options[] = {"--gpu-architecture=compute_90", "-std=c++17"};
  const nvrtcResult r = nvrtcCompileProgram(prog, 2, options);
  const std::string log = nvrtc_log(prog);
  nvrtcDestroyProgram(&prog);
  std::vector<std::string> names;
  for (const Instr& in : ops) names.push_back(cat(porta::detail::interp::op_name(in.op), "->", porta::name(in.dtype)));
  EXPECT_EQ(r, NVRTC_SUCCESS) << nvrtcGetErrorString(r) << " for " << porta::name(t) << ":\n"
                              << log << "\nOps: " << porta::detail::join(names, " ") << "\nSource:\n" << src;
}

INSTANTIATE_TEST_SUITE_P(DTypes, CudaText, ::testing::ValuesIn(kDTypes),
                         [](const ::testing::TestParamInfo<DType>& p) { return std::string(porta::name(p.param)); });

}  // namespace
