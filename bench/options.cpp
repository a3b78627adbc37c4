// The suite's --porta_* flags (porta_benchmarks takes them beside Google Benchmark's; porta-bench
// maps its own options onto them): parsing and help text.
#include <charconv>
#include <stdexcept>

#include "suite.hpp"

namespace porta_bench {
namespace {

std::vector<std::int64_t> parse_list(std::string_view v) {
  std::vector<std::int64_t> out;
  while (!v.empty()) {
    auto comma = v.find(',');
    std::string_view item = v.substr(0, comma);
    std::int64_t x = 0;
    // 2^N is accepted as well as a plain number.
    if (item.starts_with("2^")) {
      int e = 0;
      auto [p, ec] = std::from_chars(item.data() + 2, item.data() + item.size(), e);
      if (ec != std::errc() || p != item.data() + item.size() || e < 0 || e > 40)
        throw std::invalid_argument("bad number '" + std::string(item) + "'");
      x = std::int64_t{1} << e;
    } else {
      auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), x);
      if (ec != std::errc() || p != item.data() + item.size() || x <= 0)
        throw std::invalid_argument("bad number '" + std::string(item) + "'");
    }
    out.push_back(x);
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return out;
}

std::vector<std::string> parse_strings(std::string_view v) {
  std::vector<std::string> out;
  while (!v.empty()) {
    auto comma = v.find(',');
    out.emplace_back(v.substr(0, comma));
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

bool parse_flag(std::string_view arg, Options& o) {
  if (!arg.starts_with("--porta_")) return false;
  arg.remove_prefix(8);
  auto eq = arg.find('=');
  std::string_view key = arg.substr(0, eq), value = eq == std::string_view::npos ? "" : arg.substr(eq + 1);
  auto one = [&](std::string_view what) {
    auto v = parse_list(value);
    if (v.size() != 1) throw std::invalid_argument("--porta_" + std::string(what) + " takes one number");
    return v[0];
  };
  if (key == "quick") o.quick = value.empty() || value == "true" || value == "1";
  else if (key == "filter") o.filter = std::string(value);
  else if (key == "size") o.size = one(key);
  else if (key == "matmul") o.matmul = parse_list(value);
  else if (key == "linalg") o.linalg = one(key);
  else if (key == "devices") o.devices = parse_strings(value);
  else if (key == "iterations") o.iterations = static_cast<int>(one(key));
  else if (key == "repetitions") o.repetitions = static_cast<int>(one(key));
  else if (key == "small_ops") o.small_ops = static_cast<int>(one(key));
  else if (key == "pool_tasks") o.pool_tasks = one(key);
  else if (key == "threads") {
    o.threads.clear();
    for (auto t : parse_list(value)) o.threads.push_back(static_cast<int>(t));
  } else
    throw std::invalid_argument("unknown flag --porta_" + std::string(key) + "\n" + flag_help());
  return true;
}

std::string flag_help() {
  return "  --porta_devices=SPEC,...   devices to run (default: every device porta finds)\n"
         "  --porta_size=N             elements of the 1-D benchmarks, N or 2^K (default: 2^28 on GPUs, 2^24 elsewhere)\n"
         "  --porta_matmul=N,...       matmul sizes (default: 1024,4096,8192 on GPUs, 256,1024 elsewhere)\n"
         "  --porta_linalg=N           order of the one-matrix linalg rows (default: 4096 on GPUs, 512 elsewhere)\n"
         "  --porta_iterations=N       timed runs per repetition (default: as many as fill 0.2 s, at least one)\n"
         "  --porta_repetitions=N      repetitions; medians are reported (default: 3)\n"
         "  --porta_small_ops=N        small adds per timed batch (default: 20000 on GPUs, 2000 elsewhere)\n"
         "  --porta_threads=T,...      host threads of the small-op throughput runs (default: 1,2,4,8 on GPUs, 1,2)\n"
         "  --porta_pool_tasks=N       tasks of the DevicePool throughput runs (default: 1000 of 2^18 elements)\n"
         "  --porta_filter=REGEX       register only benchmarks whose name matches ('-REGEX': those that do not)\n"
         "  --porta_quick              smoke test: 2^20 elements, matmul 256, one repetition of two runs,\n"
         "                             100 pool tasks of 2^16 elements\n";
}


}  // namespace porta_bench
