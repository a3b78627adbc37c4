// porta-bench's report: collects the suite's results as they are reported, reads the peers'
// figures (shared/gpu/peers.py's JSON), and renders one cross-device table, the ratios the
// issues set targets for, and the same as JSON.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "suite.hpp"

namespace porta_bench {

// One benchmark's result: the median over repetitions when there were several.
struct Result {
  std::string family, device, param, detail;  // "<family>/<device>/<param>[/<detail>]"
  std::map<std::string, double> counters;
  std::string label;                          // what the benchmark said about itself
  std::string error;                          // why it was skipped
};

// Flattened numbers of a peers.json ("cupy_add_GBps", "torch_threads_ops_per_s.4").
using Peers = std::map<std::string, double>;
Peers read_peers(const std::string& path);  // throws std::runtime_error

// Forwards every run to a console reporter (progress, on the error stream) and keeps the
// results, keyed by benchmark name.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  CollectingReporter();
  void ReportRuns(const std::vector<Run>& runs) override;
  const std::map<std::string, Result>& results() const { return results_; }

 private:
  std::map<std::string, Result> results_;
  std::map<std::string, bool> from_median_;
};

struct Ratio {
  std::string what, device;
  double value = 0;
  std::string target;     // "<= 1.3 (issue 2, OpenCL CPU)", empty when none applies here
  std::optional<bool> met;
};

struct Report {
  std::vector<DeviceSummary> devices;
  std::vector<std::string> columns;                               // devices, then peers
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;  // label, one cell a column
  std::vector<Ratio> ratios;
  std::vector<std::string> errors;                                // "name: message"
};

Report make_report(const std::map<std::string, Result>& results, const std::vector<DeviceSummary>& devices, const Peers& peers);
std::string render_markdown(const Report& r, const std::string& heading);
std::string render_json(const Report& r);  // one JSON object

// The JSON file reporter of porta-bench: Google Benchmark's JSON, with porta's table and
// ratios added as "porta_summary" once the runs are done.
class SummaryJSONReporter : public benchmark::JSONReporter {
 public:
  explicit SummaryJSONReporter(std::function<std::string()> summary) : summary_(std::move(summary)) {}
  void Finalize() override;

 private:
  std::function<std::string()> summary_;
};

}  // namespace porta_bench
