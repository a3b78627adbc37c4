// What porta-bench's report reads: the suite's results as Google Benchmark reports them
// (CollectingReporter), the peers' figures (bench/peers/peers.py's JSON) and, for --from-json, the
// chart of a JSON that porta-bench wrote. JSON through nlohmann::json.
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "report.hpp"

namespace porta_bench {
namespace {

nlohmann::json read_json(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the " + std::string(what) + " " + path);
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string(what) + " " + path + ": " + e.what());
  }
}

// The numbers of a JSON value, keys joined with "." (array elements by index).
void flatten(const nlohmann::json& v, const std::string& key, Peers& out) {
  if (v.is_object()) {
    for (auto& [k, x] : v.items()) flatten(x, key.empty() ? k : key + "." + k, out);
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) flatten(v[i], key + "." + std::to_string(i), out);
  } else if (v.is_number()) {
    out[key] = v.get<double>();
  }
}

}  // namespace

Peers read_peers(const std::string& path) {
  Peers out;
  flatten(read_json(path, "peers file"), "", out);
  return out;
}

Report read_chart(const std::string& path) {
  nlohmann::json j = read_json(path, "porta-bench JSON");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Report rep;
  const nlohmann::json* s = j.contains("porta_summary") ? &j["porta_summary"] : nullptr;
  if (s && s->contains("series") && (*s)["series"].is_array() && s->contains("chart") && (*s)["chart"].is_array()) {
    for (auto& x : (*s)["series"]) rep.series.push_back(x.is_string() ? x.get<std::string>() : "");
    auto number = [&](const nlohmann::json& a, std::size_t i) {  // null: no figure for that series
      return a.is_array() && i < a.size() && a[i].is_number() ? a[i].get<double>() : nan;
    };
    for (auto& row : (*s)["chart"]) {
      ChartRow c{row.value("id", ""), row.value("label", ""), row.value("unit", ""), row.value("higher_is_better", true), {}, {}};
      const nlohmann::json none;
      const nlohmann::json& v = row.contains("values") ? row["values"] : none;
      const nlohmann::json& f = row.contains("fractions") ? row["fractions"] : none;
      for (std::size_t i = 0; i < rep.series.size(); ++i) {
        c.values.push_back(number(v, i));
        c.fractions.push_back(number(f, i));
      }
      rep.chart.push_back(std::move(c));
    }
  }
  if (rep.series.empty() || rep.chart.empty())
    throw std::runtime_error(path + " has no porta_summary.series and .chart (written by a porta-bench older than --from-json, "
                             "or not porta-bench's JSON)");
  return rep;
}

CollectingReporter::CollectingReporter() : ConsoleReporter(OO_None) {
  SetOutputStream(&std::cerr);
  SetErrorStream(&std::cerr);
}

namespace {

// Whether a run was skipped with an error, and its message. Google Benchmark 1.8 renamed
// Run::error_occurred / error_message to skipped / skip_message (1.7 is Debian 12's, 1.8 Ubuntu
// 24.04's, Fedora's and conda's): both are read, whichever the installed headers have.
template <class R>
bool run_failed(const R& run) {
  if constexpr (requires { run.skipped; })
    return static_cast<int>(run.skipped) != 0;
  else
    return run.error_occurred;
}

template <class R>
const std::string& run_message(const R& run) {
  if constexpr (requires { run.skip_message; })
    return run.skip_message;
  else
    return run.error_message;
}

}  // namespace

void CollectingReporter::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) {
    const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
    if (run.run_type == Run::RT_Aggregate && !median) continue;
    const std::string& name = run.run_name.function_name;
    const bool failed = run_failed(run);
    if (!median && !failed && from_median_[name]) continue;
    if (!median && results_.count(name) && results_[name].error.empty() && !failed) continue;  // first run wins
    Result r;
    std::vector<std::string> parts;
    std::stringstream ss(name);
    for (std::string p; std::getline(ss, p, '/');) parts.push_back(p);
    if (parts.size() > 0) r.family = parts[0];
    if (parts.size() > 1) r.device = parts[1];
    if (parts.size() > 2) r.param = parts[2];
    if (parts.size() > 3) r.detail = parts[3];
    for (auto& [k, c] : run.counters) r.counters[k] = c.value;
    r.label = run.report_label;
    if (failed) r.error = run_message(run).empty() ? "skipped" : run_message(run);
    results_[name] = std::move(r);
    from_median_[name] = median;
  }
}

}  // namespace porta_bench
