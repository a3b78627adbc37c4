// Prints the OpenCL C that porta's OpenCL plugin builds for one tensor-core GEMM configuration
// (gemm_common.cl, then gemm_wg.cl after wg_prelude's WGMMA macro, gemm_tc.cl or gemm_mma.cl, as
// gemm_tensor.cpp's tensor_program) and, on stderr, its -D options, so that
// scripts/dev/gemm_sass.sh can turn it into SASS without a GPU; with --hoist it applies the
// plugin's ptx_edit.hpp to a PTX file. A register bound (:rR) comes as a second line, "maxnreg R". Built by gemm_sass.sh:
//   gemm_sass CONFIG DTYPE [TA TB EDGE]   e.g. gemm_sass wg128x128x32:g1:s3:m float16 0 0 0
//                                         (tc and mma configurations: EDGE 1 is the guarded variant)
//   gemm_sass --hoist IN.ptx OUT.ptx
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "opencl/gemm/mma.hpp"
#include "opencl/gemm/tc.hpp"
#include "opencl/gemm/wg.hpp"
#include "opencl/opencl.hpp"
#include "opencl/gemm/ptx_edit.hpp"

namespace {
std::string file(const char* path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}
}  // namespace

int main(int argc, char** argv) {
  namespace cl = porta::opencl;
  if (argc == 4 && std::string(argv[1]) == "--hoist") {
    std::string ptx = file(argv[2]);
    std::cerr << cl::hoist_wgmma_waits(ptx) << " waits moved\n";
    std::ofstream(argv[3]) << ptx;
    return 0;
  }
  if (argc < 3) {
    std::cerr << "usage: gemm_sass CONFIG float16|bfloat16|float32|float64 [TA TB EDGE]\n";
    return 2;
  }
  const std::string t = argv[2];
  const porta::DType dtype = t == "bfloat16"  ? porta::DType::bfloat16
                             : t == "float32" ? porta::DType::float32
                             : t == "float64" ? porta::DType::float64
                                              : porta::DType::float16;
  auto flag = [&](int i) { return argc > i && std::string(argv[i]) == "1"; };
  const std::string common = file("backends/opencl/gemm/kernels/gemm_common.cl");
  std::string source, why;
  std::vector<std::string> options;
  if (auto w = cl::parse_wg_params(argv[1])) {
    why = w->invalid_reason(dtype);
    source = common + cl::wg_prelude(*w, dtype) + file("backends/opencl/gemm/kernels/gemm_wg.cl");
    options = cl::wg_options(*w, dtype, flag(3), flag(4), flag(5), false);
  } else if (auto m = cl::parse_mma_params(argv[1])) {
    source = common + file("backends/opencl/gemm/kernels/gemm_mma.cl");
    options = cl::mma_options(*m, false);
  } else if (auto p = cl::parse_tc_params(argv[1])) {
    why = p->invalid_reason(dtype);
    source = common + file("backends/opencl/gemm/kernels/gemm_tc.cl");
    options = cl::tc_options(*p, dtype, !flag(5), false);
  } else {
    why = "not a configuration";
  }
  if (!why.empty()) {
    std::cerr << argv[1] << ": " << why << "\n";
    return 2;
  }
  std::cout << source;
  std::string maxnreg;
  for (const std::string& o : options) {
    if (o.starts_with(cl::kPtxMaxnregOption)) maxnreg = o.substr(std::string(cl::kPtxMaxnregOption).size());
    if (o.starts_with("-D") && o.find("PORTA_") == std::string::npos) std::cerr << o << " ";
  }
  std::cerr << "\n";
  if (!maxnreg.empty()) std::cerr << "maxnreg " << maxnreg << "\n";
}
