// CuPy's first program, in porta:
//   x = cp.array([1, 2, 3, 4, 5]); y = x ** 2; cp.asnumpy(y)
// An array on the default device (PORTA_DEVICE chooses another), an elementwise op, a copy back.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <vector>

#include <porta/porta.hpp>

int main() try {
  porta::Array x = porta::from_host(std::vector<std::int64_t>{1, 2, 3, 4, 5});
  porta::Array y = porta::power(x, 2);  // lazy: nothing runs until the data is needed
  std::vector<std::int64_t> host = y.to_vector<std::int64_t>();

  std::printf("device %s (%s)\ny = x ** 2 = [", x.device().spec().c_str(), x.device().name().c_str());
  for (std::size_t i = 0; i < host.size(); ++i) std::printf("%s%lld", i ? ", " : "", static_cast<long long>(host[i]));
  std::printf("]\n");

  const std::vector<std::int64_t> expected{1, 4, 9, 16, 25};
  if (host != expected) {
    std::fprintf(stderr, "FAIL: expected [1, 4, 9, 16, 25]\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "FAIL: %s\n", e.what());
  return 1;
}
