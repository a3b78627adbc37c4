// porta_benchmarks: the suite as a plain Google Benchmark program. The --porta_* flags choose
// devices and sizes; every --benchmark_* flag works as usual (--benchmark_format=json,
// --benchmark_filter=add/, --benchmark_out=FILE).
#include <benchmark/benchmark.h>
#include <cstring>
#include <exception>
#include <iostream>
#include <string_view>
#include <vector>

#include "suite.hpp"

int main(int argc, char** argv) {
  porta_bench::Options options;
  std::vector<char*> rest;
  try {
    for (int i = 0; i < argc; ++i) {
      std::string_view a = argv[i];
      if (a == "--help" || a == "-h") {
        std::cout << "usage: " << argv[0] << " [--porta_* flags] [--benchmark_* flags]\n"
                  << porta_bench::flag_help() << "Google Benchmark's flags:\n";
        rest.push_back(argv[i]);
        continue;
      }
      if (i == 0 || !porta_bench::parse_flag(a, options)) rest.push_back(argv[i]);
    }
  } catch (const std::exception& e) {
    std::cerr << argv[0] << ": " << e.what() << "\n";
    return 2;
  }
  int rest_argc = static_cast<int>(rest.size());
  rest.push_back(nullptr);
  benchmark::Initialize(&rest_argc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_argc, rest.data())) return 2;
  try {
    for (auto& d : porta_bench::selected_devices(options)) benchmark::AddCustomContext("device " + d.spec, d.text());
    porta_bench::register_suite(options);
  } catch (const std::exception& e) {
    std::cerr << argv[0] << ": " << e.what() << "\n";
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  porta_bench::release_inputs();
  return 0;
}
