// Prints the OpenCL C that porta's OpenCL plugin builds for one warpgroup-MMA GEMM configuration
// (gemm_common.cl, wg_prelude's WGMMA macro, gemm_wg.cl) and, on stderr, its build options, so that
// scripts/dev/wg_sass.sh can turn it into SASS without a GPU; with --hoist it applies the plugin's
// ptx_edit.hpp to a PTX file. Built by wg_sass.sh:
//   wg_sass CONFIG DTYPE [TA TB EDGE]     e.g. wg_sass wg128x128x32:g1:s3:m float16 0 0 0
//   wg_sass --hoist IN.ptx OUT.ptx
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "opencl/gemm_wg.hpp"
#include "opencl/ptx_edit.hpp"

int main(int argc, char** argv) {
  using porta::opencl::parse_wg_params;
  auto file = [](const char* path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  };
  if (argc == 4 && std::string(argv[1]) == "--hoist") {
    std::string ptx = file(argv[2]);
    std::cerr << porta::opencl::hoist_wgmma_waits(ptx) << " waits moved\n";
    std::ofstream(argv[3]) << ptx;
    return 0;
  }
  if (argc < 3) {
    std::cerr << "usage: wg_sass CONFIG float16|bfloat16|float32 [TA TB EDGE]\n";
    return 2;
  }
  const auto p = parse_wg_params(argv[1]);
  const std::string t = argv[2];
  const porta::DType dtype = t == "bfloat16" ? porta::DType::bfloat16 : t == "float32" ? porta::DType::float32 : porta::DType::float16;
  if (!p || !p->invalid_reason(dtype).empty()) {
    std::cerr << argv[1] << ": " << (p ? p->invalid_reason(dtype) : "not a configuration") << "\n";
    return 2;
  }
  auto flag = [&](int i) { return argc > i && std::string(argv[i]) == "1"; };
  std::cout << file("backends/opencl/kernels/gemm_common.cl") << porta::opencl::wg_prelude(*p, dtype)
            << file("backends/opencl/kernels/gemm_wg.cl");
  for (const std::string& o : porta::opencl::wg_options(*p, dtype, flag(3), flag(4), flag(5), false))
    if (o.starts_with("-D") && o.find("PORTA_") == std::string::npos) std::cerr << o << " ";
  std::cerr << "\n";
}
