// porta-bench: measures each device's ceilings (copy bandwidth, FMA peak), runs the benchmark
// suite on every device (or those named), and prints one cross-device table with every result
// also as a fraction of its ceiling and the ratios the issues set targets for; --json writes
// Google Benchmark's JSON with that table added, --svg a chart, --peers adds CuPy/PyTorch
// columns from bench/peers/peers.py. Progress goes to stderr.
// The command line is CLI11's (Debian's libcli11-dev).
#include <benchmark/benchmark.h>
#include <CLI/CLI.hpp>
#include <chrono>
#include <ctime>
#include <exception>
#include <stdexcept>
#include <fstream>
#include <map>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <porta/porta.hpp>

#include "report.hpp"
#include "suite.hpp"

namespace {

std::string today() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return buf;
}

// porta-bench's own options (CLI11); the suite's options go through the --porta_* flags'
// parser, so that both programs read "2^24" and lists the same way.
struct CommandLine {
  porta_bench::Options options;
  std::string json_path, markdown_path, svg_path, peers_path, filter, from_json;
  bool ceilings_wanted = true;
  std::vector<std::string> bench_args;  // Google Benchmark's --benchmark_* flags, passed on
};

// Parses argv into `cl`; returns the exit code when the program should stop (help: 0, a bad
// argument: 2), else -1.
int parse_command_line(int argc, char** argv, CommandLine& cl) {
  CLI::App app{"Runs porta's benchmarks on every device and prints one table (Markdown) with the target ratios.",
               "porta-bench"};
  app.add_option("--json", cl.json_path, "write the results as JSON (Google Benchmark's format plus \"porta_summary\")");
  app.add_option("--markdown", cl.markdown_path, "also write the table to FILE");
  app.add_option("--svg", cl.svg_path, "write an SVG chart: grouped bars per benchmark, one colour per device (and peer)");
  app.add_option("--from-json", cl.from_json,
                 "run nothing: draw --svg (required) from a JSON that porta-bench wrote, e.g. on another machine");
  app.add_option("--peers", cl.peers_path, "add peer columns (CuPy, PyTorch, NumPy) from bench/peers/peers.py's JSON");
  app.add_option("--filter", cl.filter,
                 "run only benchmarks whose name matches (names: add/opencl:0/16777216); '-REGEX' negates");
  app.add_flag("--quick", cl.options.quick, "smoke run: small sizes, one repetition");
  bool no_ceilings = false;
  app.add_flag("--no-ceilings", no_ceilings,
               "skip the ceiling measurements (fractions then use the copy benchmark and largest GEMM)");
  const std::vector<std::string> suite_flags = {"devices", "size", "matmul", "linalg", "iterations", "repetitions", "small_ops", "threads",
                                                "pool_tasks"};
  std::map<std::string, std::string> suite_values;
  for (const std::string& name : suite_flags)
    app.add_option("--" + name, suite_values[name], "as --porta_" + name + " below");
  app.footer("The suite's flags (also taken as --porta_NAME=VALUE):\n" + porta_bench::flag_help() +
             "Google Benchmark's --benchmark_* flags are passed on.");
  app.allow_extras();
  try {
    app.parse(argc, argv);
    for (const std::string& name : suite_flags)
      if (app.count("--" + name)) porta_bench::parse_flag("--porta_" + name + "=" + suite_values[name], cl.options);
    for (const std::string& a : app.remaining()) {
      if (porta_bench::parse_flag(a, cl.options)) continue;
      if (a.rfind("--benchmark_", 0) == 0) {
        cl.bench_args.push_back(a);
        continue;
      }
      std::cerr << "porta-bench: unknown argument '" << a << "' (porta-bench --help lists the options)\n";
      return 2;
    }
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "porta-bench: " << e.what() << "\n";
    return 2;
  }
  cl.ceilings_wanted = !no_ceilings;
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  CommandLine cl;
  if (int rc = parse_command_line(argc, argv, cl); rc >= 0) return rc;
  porta_bench::Options& options = cl.options;
  const std::string &json_path = cl.json_path, &markdown_path = cl.markdown_path, &svg_path = cl.svg_path,
                    &peers_path = cl.peers_path, &filter = cl.filter, &from_json = cl.from_json;
  const bool ceilings_wanted = cl.ceilings_wanted;
  std::vector<std::string> bench_args = {argv[0]};
  bench_args.insert(bench_args.end(), cl.bench_args.begin(), cl.bench_args.end());
  std::string command = "porta-bench";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];

  if (!from_json.empty()) {
    if (svg_path.empty()) {
      std::cerr << "porta-bench: --from-json=" << from_json << " draws a chart: give --svg=FILE too\n";
      return 2;
    }
    try {
      std::ofstream out(svg_path);
      out << porta_bench::render_svg(porta_bench::read_chart(from_json), "porta-bench, from " + from_json);
      if (!out) throw std::runtime_error("cannot write " + svg_path);
    } catch (const std::exception& e) {
      std::cerr << "porta-bench: " << e.what() << "\n";
      return 1;
    }
    std::cerr << "porta-bench: SVG written to " << svg_path << "\n";
    return 0;
  }

  // Only the benchmarks the filter selects are registered, so that progress counts what runs.
  if (!filter.empty()) options.filter = filter;
  options.progress = true;
  porta_bench::Peers peers;
  std::vector<porta_bench::DeviceSummary> devices;
  std::vector<porta_bench::Ceilings> ceilings;
  auto t0 = std::chrono::steady_clock::now();
  try {
    if (!peers_path.empty()) peers = porta_bench::read_peers(peers_path);
    devices = porta_bench::selected_devices(options);
    for (auto& d : devices) benchmark::AddCustomContext("device " + d.spec, d.text());
    if (ceilings_wanted) ceilings = porta_bench::measure_ceilings(options);
    for (auto& c : ceilings) {
      std::string text = "copy " + std::to_string(c.copy_gbps) + " GB/s";
      if (c.f32_tflops > 0) text += ", float32 " + std::to_string(c.f32_tflops) + " TFLOP/s (" + c.flops_source + ")";
      if (c.f64_tflops > 0) text += ", float64 " + std::to_string(c.f64_tflops) + " TFLOP/s";
      benchmark::AddCustomContext("ceiling " + c.spec, text);
    }
    porta_bench::register_suite(options);
  } catch (const std::exception& e) {
    std::cerr << "porta-bench: " << e.what() << "\n";
    return 1;
  }
  benchmark::AddCustomContext("porta_command", command);

  if (!json_path.empty()) {
    bench_args.push_back("--benchmark_out=" + json_path);
    bench_args.push_back("--benchmark_out_format=json");
  }
  if (!filter.empty()) bench_args.push_back("--benchmark_filter=" + filter);
  // Repetitions of different benchmarks interleaved in random order, so that a drift in the
  // machine's load (shared build machines) does not bias one side of a ratio.
  bool interleave_given = false;
  for (auto& a : bench_args) interleave_given |= a.rfind("--benchmark_enable_random_interleaving", 0) == 0;
  if (!interleave_given) bench_args.push_back("--benchmark_enable_random_interleaving=true");
  std::vector<char*> cargs;
  for (auto& a : bench_args) cargs.push_back(a.data());
  int cargc = static_cast<int>(cargs.size());
  cargs.push_back(nullptr);
  benchmark::Initialize(&cargc, cargs.data());
  if (benchmark::ReportUnrecognizedArguments(cargc, cargs.data())) return 2;

  porta_bench::CollectingReporter display;
  std::string heading = "porta-bench, " + today() + ": `" + command + "`";
  if (options.quick) heading += "\n\n(--quick: a smoke run; sizes too small and runs too few for the figures or ratios to mean anything)";
  auto report = [&] { return porta_bench::make_report(display.results(), devices, ceilings, peers); };
  porta_bench::SummaryJSONReporter file([&] { return porta_bench::render_json(report()); });
  if (json_path.empty()) benchmark::RunSpecifiedBenchmarks(&display);
  else benchmark::RunSpecifiedBenchmarks(&display, &file);
  benchmark::Shutdown();
  porta_bench::release_inputs();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  porta_bench::Report final_report = report();
  std::string table = porta_bench::render_markdown(final_report, heading);
  std::cout << "\n" << table << "\n(" << static_cast<int>(seconds) << " s)\n";
  if (!markdown_path.empty()) {
    std::ofstream out(markdown_path);
    out << table;
    if (!out) {
      std::cerr << "porta-bench: cannot write " << markdown_path << "\n";
      return 1;
    }
  }
  if (!svg_path.empty()) {
    std::ofstream out(svg_path);
    out << porta_bench::render_svg(final_report, "porta-bench, " + today() + (options.quick ? " (--quick: smoke run)" : ""));
    if (!out) {
      std::cerr << "porta-bench: cannot write " << svg_path << "\n";
      return 1;
    }
    std::cerr << "porta-bench: SVG written to " << svg_path << "\n";
  }
  if (!json_path.empty()) std::cerr << "porta-bench: JSON written to " << json_path << "\n";
  return 0;
}
