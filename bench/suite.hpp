// porta's benchmark suite: options, and the registration of every benchmark for every device.
// Shared by porta_benchmarks (plain Google Benchmark) and porta-bench (the cross-device table).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace porta_bench {

// Zero or empty means "choose by device": GPUs get large inputs and many runs, CPU devices small
// inputs and few runs, so the suite stays a few minutes on a 2-core PoCL machine.
struct Options {
  std::vector<std::string> devices;     // specs ("opencl:0"); empty: every device
  std::int64_t size = 0;                // elements of the 1-D benchmarks; GPU 2^28, else 2^24
  std::vector<std::int64_t> matmul;     // matrix sizes; GPU 4096 and 8192, else 1024
  int iterations = 0;                   // timed runs per repetition; default: as many as fill 0.2 s
  int repetitions = 0;                  // default 3
  int small_ops = 0;                    // evaluated 1024-element adds per timed batch; GPU 20000, else 2000
  std::vector<int> threads;             // host threads for small-op throughput; GPU 1,2,4,8, else 1,2
  bool quick = false;                   // smoke test: tiny sizes, one repetition, two iterations
};

// Reads one --porta_<name>=<value> flag into `o`; false when `arg` is not one of ours.
// Throws std::invalid_argument on a bad value.
bool parse_flag(std::string_view arg, Options& o);
// The --porta_* flags, one a line, for --help.
std::string flag_help();

// Registers the suite (benchmark::RegisterBenchmark) for every selected device, device after
// device; returns the number of devices. Names are "<benchmark>/<device>/<size>[/<detail>]"
// (small_add_threads: "<benchmark>/<device>/<threads>").
int register_suite(const Options& o);

// Frees the random inputs the benchmarks share; call after the run, before porta shuts down.
void release_inputs();

// A selected device as reports show it.
struct DeviceSummary {
  std::string spec, name, backend, kind, platform, driver;  // kind: "gpu", "cpu", ...
  int compute_units = 0;
  std::int64_t size = 0;  // elements of its 1-D benchmarks
  std::string text() const;  // one line: "pthread-haswell-AMD EPYC (cpu, Portable Computing Language, ...)"
};
std::vector<DeviceSummary> selected_devices(const Options& o);

}  // namespace porta_bench
