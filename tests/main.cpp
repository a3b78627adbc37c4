// The test runner: lists the devices every parameterised test runs on, then runs GoogleTest.
#include <gtest/gtest.h>

#include <porta/porta.hpp>

#include <iostream>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  try {
    std::cout << "porta devices under test:";
    for (const auto& d : porta::devices()) std::cout << "  " << d.spec() << " (" << d.name() << ")";
    std::cout << "\n";
    for (const auto& b : porta::backends())
      if (!b.loaded) std::cout << "  not tested: " << porta::name(b.backend) << " (" << b.reason << ")\n";
  } catch (const std::exception& e) {
    std::cout << "\nporta::devices() failed: " << e.what() << "\n";
  }
  return RUN_ALL_TESTS();
}
