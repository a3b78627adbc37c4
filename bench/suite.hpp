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
  std::int64_t linalg = 0;              // order of the one-matrix linalg rows; GPU 4096, else 512
  int iterations = 0;                   // timed runs per repetition; default: as many as fill 0.2 s
  int repetitions = 0;                  // default 3
  int small_ops = 0;                    // evaluated 1024-element adds per timed batch; GPU 20000, else 2000
  std::vector<int> threads;             // host threads for small-op throughput; GPU 1,2,4,8, else 1,2
  bool quick = false;                   // smoke test: tiny sizes, one repetition, two iterations
  std::int64_t pool_tasks = 0;          // tasks of the pool-throughput runs; default 1000 (quick: 100)
  std::string filter;                   // register only benchmarks whose name matches (porta-bench's --filter)
  bool progress = false;                // print "[k/m] device benchmark" on stderr as repetitions start
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

// A device's ceilings, measured before the suite runs (porta-bench does it first): copy
// bandwidth (x.copy() of the device's 1-D size, median of event-timed runs) and peak FLOP/s
// from an FMA-chain RawKernel on devices that compile at run time. Zero where not measured.
// The report raises each to the best figure of the same kind the suite then reached (copy and
// hand-written copy; GEMM of the dtype), so that a ceiling is never below a measured result,
// and says which gave it.
struct Ceilings {
  std::string spec;
  double copy_gbps = 0;
  double f32_tflops = 0, f64_tflops = 0;  // f64: where the device supports float64
  std::string copy_source, flops_source, f64_source;  // what gave each figure, e.g. "FMA-chain RawKernel"
};
// Measures every selected device's ceilings; the suite's frac_copy counters use them.
std::vector<Ceilings> measure_ceilings(const Options& o);

// A row of porta-bench's table for a suite file's own benchmark family, declared by that file
// (add_report_row, from its register function; a row added twice is kept once). counter is the
// figure shown: "GB/s", "TFLOP/s", "us_per_op", "kops/s" or "tasks/s"; param, when set, the one
// size (the third part of the name) the row shows; cupy, torch, numpy the peers.json keys of the
// same work (bench/peers/peers.py), where a peer measures it.
struct ReportRow {
  std::string label, family, param, counter;
  std::string cupy, torch, numpy;
  std::string id;  // the row's name in the JSON's "values"; empty: the family
};
void add_report_row(const ReportRow& row);
std::vector<ReportRow> report_rows();

// Frees the random inputs the benchmarks share; call after the run, before porta shuts down.
void release_inputs();

// A selected device as reports show it.
struct DeviceSummary {
  std::string spec, name, backend, kind, platform, driver;  // kind: "gpu", "cpu", ...
  int compute_units = 0;
  std::int64_t size = 0;  // elements of its 1-D benchmarks
  std::vector<std::string> matmul_families;  // the matmul benchmarks it runs: "matmul_f32", "matmul_f64", ...
  std::string pci_bus_id;                    // empty where the device reports none
  std::string text() const;  // one line: "pthread-haswell-AMD EPYC (cpu, Portable Computing Language, ...)"
};
std::vector<DeviceSummary> selected_devices(const Options& o);

}  // namespace porta_bench
