// porta-bench: runs the benchmark suite on every device (or those named) and prints one
// cross-device table with the ratios the issues set targets for; --json writes Google
// Benchmark's JSON with that table added, --peers adds CuPy/PyTorch columns from peers.py.
#include <benchmark/benchmark.h>
#include <chrono>
#include <ctime>
#include <exception>
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
    "  --peers=FILE      add CuPy/PyTorch columns from shared/gpu/peers.py's peers.json\n"
    "  --filter=REGEX    run only benchmarks whose name matches (names: add/opencl:0/16777216)\n"
    "  --quick           smoke run: small sizes, one repetition\n"
    "  --devices=LIST, --size=N, --matmul=LIST, --iterations=N, --repetitions=N, --small_ops=N, --threads=LIST\n"
    "                    as the --porta_* flags below\n";

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
  std::string json_path, markdown_path, peers_path, filter;
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
      if (take("json", args, i, json_path) || take("markdown", args, i, markdown_path) || take("peers", args, i, peers_path) ||
          take("filter", args, i, filter))
        continue;
      if (a == "--quick") {
        options.quick = true;
        continue;
      }
      bool ours = false;
      for (const char* name : {"devices", "size", "matmul", "iterations", "repetitions", "small_ops", "threads"})
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

  porta_bench::Peers peers;
  std::vector<porta_bench::DeviceSummary> devices;
  try {
    if (!peers_path.empty()) peers = porta_bench::read_peers(peers_path);
    devices = porta_bench::selected_devices(options);
    for (auto& d : devices) benchmark::AddCustomContext("device " + d.spec, d.text());
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
  auto report = [&] { return porta_bench::make_report(display.results(), devices, peers); };
  porta_bench::SummaryJSONReporter file([&] { return porta_bench::render_json(report()); });
  auto t0 = std::chrono::steady_clock::now();
  if (json_path.empty()) benchmark::RunSpecifiedBenchmarks(&display);
  else benchmark::RunSpecifiedBenchmarks(&display, &file);
  benchmark::Shutdown();
  porta_bench::release_inputs();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::string table = porta_bench::render_markdown(report(), heading);
  std::cout << "\n" << table << "\n(" << static_cast<int>(seconds) << " s)\n";
  if (!markdown_path.empty()) {
    std::ofstream out(markdown_path);
    out << table;
    if (!out) {
      std::cerr << "porta-bench: cannot write " << markdown_path << "\n";
      return 1;
    }
  }
  if (!json_path.empty()) std::cerr << "porta-bench: JSON written to " << json_path << "\n";
  return 0;
}
