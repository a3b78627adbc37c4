// The smallest porta program: square an array on the default device and check it.
#include <cstdio>
#include <vector>

#include <porta/porta.hpp>

int main() {
  porta::Array x = porta::from_host(std::vector<float>{1, 2, 3, 4, 5});
  std::vector<float> y = (x * x).to_vector<float>();
  std::printf("%s: [%g, %g, %g, %g, %g]\n", x.device().spec().c_str(), y[0], y[1], y[2], y[3], y[4]);
  return y == std::vector<float>{1, 4, 9, 16, 25} ? 0 : 1;
}
