// Run by the fault tests in a subprocess, with a GPU device's spec: launches a kernel that writes
// far outside its buffer (which leaves a GPU context unusable), then makes three unrelated calls
// on the device, printing each one's error. Exit 0 when every later call named the failed
// context, 1 when one did not, 3 when a call unexpectedly succeeded, 2 on set-up errors.
#include <porta/porta.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace {

const char* kCuda = R"(extern "C" __global__ void wild(float* x) { x[1ull << 40] = 1.0f; })";
const char* kOpenCL = R"(__kernel void wild(__global float* x) { x[(ulong)1 << 40] = 1.0f; })";

bool names_the_failure(const std::string& m) {
  return m.find("context failed earlier") != std::string::npos || m.find("context is now unusable") != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fault_helper DEVICE\n");
    return 2;
  }
  porta::Device d;
  porta::Array before;
  try {
    d = porta::device(argv[1]);
    before = porta::arange(1000, porta::DType::float32, d).eval();
    porta::Array x = porta::ones({16}, porta::DType::float32, d).copy();
    porta::RawKernel wild(d.backend(), d.backend() == porta::Backend::cuda ? kCuda : kOpenCL, "wild");
    wild({1}, {1}, {x});
    porta::synchronize();
  } catch (const std::exception& e) {
    std::printf("fault: %s\n", e.what());  // the fault itself may surface here
  }
  int result = 0;
  const std::vector<std::pair<const char*, void (*)(porta::Device&, porta::Array&)>> calls = {
      {"read an earlier array", [](porta::Device&, porta::Array& a) { (void)a.to_vector<float>(); }},
      {"compile a new kernel",
       [](porta::Device& dev, porta::Array&) {
         porta::ElementwiseKernel k("float32 x", "float32 y", "y = x * 7.25f + 0.5f", "after_fault");
         (void)k({porta::ones({8}, porta::DType::float32, dev)}).to_vector<float>();
       }},
      {"make and read a new array", [](porta::Device& dev, porta::Array&) { (void)porta::full({64}, 3.0, porta::DType::float32, dev).copy().to_vector<float>(); }},
  };
  for (const auto& [what, call] : calls) {
    try {
      call(d, before);
      std::printf("%s: succeeded\n", what);
      result = result ? result : 3;
    } catch (const std::exception& e) {
      std::printf("%s: %s\n", what, e.what());
      if (!names_the_failure(e.what())) result = 1;
    }
  }
  return result;
}
