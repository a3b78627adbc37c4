// porta-bench: measures each device's ceilings (copy bandwidth, FMA peak), runs the benchmark
// suite on every device (or those named), and prints one cross-device table with every result
// also as a fraction of its ceiling and the ratios the issues set targets for; --json writes
// Google Benchmark's JSON with that table added, --svg a chart, --peers adds CuPy/PyTorch
// columns from bench/peers/peers.py. Progress goes to stderr.
#include <benchmark/benchmark.h>
#include <chrono>
#include <ctime>
#include <exception>
#include <stdexcept>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <porta/porta.hpp>

#include "report.hpp"
#include "suite.hpp"

namespace {

constexpr const char* kUsage =
    "usage: porta-bench [options] [Google Benchmark --benchmark_* flags]\n"
    "Runs porta's benchmarks on every device and prints one table (Markdown) with the target ratios.\n"
    "  --json=FILE       write the results as JSON (Google Benchmark's format plus \"porta_summary\")\n"
    "  --markdown=FILE   also write the table to FILE\n"
    "  --svg=FILE        write an SVG chart: grouped bars per benchmark, one colour per device (and peer)\n"
    "  --from-json=FILE  run nothing: draw --svg (required) from a JSON that porta-bench wrote, e.g. on another machine\n"
    "  --peers=FILE      add CuPy/PyTorch columns from bench/peers/peers.py's peers.json\n"
    "  --filter=REGEX    run only benchmarks whose name matches (names: add/opencl:0/16777216); '-REGEX' negates\n"
    "  --quick           smoke run: small sizes, one repetition\n"
    "  --no-ceilings     skip the ceiling measurements (fractions then use the copy benchmark and largest GEMM)\n"
    "  --devices=LIST, --size=N, --matmul=LIST, --iterations=N, --repetitions=N, --small_ops=N, --threads=LIST,\n"
    "  --pool_tasks=N    as the --porta_* flags below\n";

std::string today() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  return buf;
}

// "--name=value" or "--name value": the value of --name, consuming the next argument if needed.
bool take(std::string_view name, std::vector<std::string>& args, std::size_t& i, std::string& value) {
  const std::string& a = args[i];
  std::string flag = "--" + std::string(name);
  if (a == flag && i + 1 < args.size()) {
    value = args[++i];
    return true;
  }
  if (a.rfind(flag + "=", 0) == 0) {
    value = a.substr(flag.size() + 1);
    return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  porta_bench::Options options;
  std::string json_path, markdown_path, svg_path, peers_path, filter, from_json;
  bool ceilings_wanted = true;
  std::vector<std::string> args(argv, argv + argc), bench_args = {args[0]};
  std::string command = "porta-bench";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  try {
    for (std::size_t i = 1; i < args.size(); ++i) {
      std::string v;
      const std::string& a = args[i];
      if (a == "--help" || a == "-h") {
        std::cout << kUsage << porta_bench::flag_help();
        return 0;
      }
      if (take("json", args, i, json_path) || take("markdown", args, i, markdown_path) || take("svg", args, i, svg_path) ||
          take("peers", args, i, peers_path) || take("filter", args, i, filter) || take("from-json", args, i, from_json))
        continue;
      if (a == "--quick") {
        options.quick = true;
        continue;
      }
      if (a == "--no-ceilings") {
        ceilings_wanted = false;
        continue;
      }
      bool ours = false;
      for (const char* name : {"devices", "size", "matmul", "iterations", "repetitions", "small_ops", "threads", "pool_tasks"})
        if (take(name, args, i, v)) {
          porta_bench::parse_flag("--porta_" + std::string(name) + "=" + v, options);
          ours = true;
          break;
        }
      if (ours || porta_bench::parse_flag(a, options)) continue;
      if (a.rfind("--benchmark_", 0) == 0) {
        bench_args.push_back(a);
        continue;
      }
      std::cerr << "porta-bench: unknown argument '" << a << "'\n" << kUsage;
      return 2;
    }
  } catch (const std::exception& e) {
    std::cerr << "porta-bench: " << e.what() << "\n";
    return 2;
  }

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
