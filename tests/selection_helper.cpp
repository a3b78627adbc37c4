// A small porta program the selection tests run with different PORTA_BACKEND / PORTA_DEVICE
// values: it squares an array on the default device and prints the device and the result.
#include <porta/porta.hpp>

#include <cstdio>
#include <vector>

int main() {
  try {
    porta::Device d = porta::default_device();
    porta::Array x = porta::from_host(std::vector<float>{1, 2, 3, 4, 5});
    std::vector<float> y = (x * x).to_vector<float>();
    std::printf("device %s (%s)\nresult", d.spec().c_str(), d.name().c_str());
    for (float v : y) std::printf(" %g", static_cast<double>(v));
    std::printf("\n");
    return y == std::vector<float>{1, 4, 9, 16, 25} ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "selection_helper: %s\n", e.what());
    return 2;
  }
}
