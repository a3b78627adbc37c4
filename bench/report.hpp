// porta-bench's report: collects the suite's results as they are reported, reads the peers'
// figures (bench/peers/peers.py's JSON), and renders one cross-device table, the ratios the
// issues set targets for, the same as JSON, and an SVG chart of the cross-device comparison.
// Reading: report_input.cpp; the table: report_table.cpp; ratios and targets: report_ratios.cpp;
// rendering: report_render.cpp (Markdown, JSON) and report_svg.cpp.
#pragma once

#include <functional>
#include <cstdint>
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

// One bar group of the chart (and one entry of the JSON's "values"): a row of the table as
// numbers. values and fractions have one entry per series (NaN where absent); a fraction is
// the value over that column's ceiling (copy bandwidth, FLOP/s), where there is one.
struct ChartRow {
  std::string id;     // "saxpy", "matmul_f32/1024", "small_add_threads/2", "pool"
  std::string label;  // "saxpy a*x + y"
  std::string unit;   // "GB/s"
  bool higher_is_better = true;
  std::vector<double> values, fractions;
};

// DevicePool throughput: each device alone, and one pool over all of them.
struct PoolSummary {
  std::int64_t tasks = 0;
  std::vector<std::pair<std::string, double>> alone;  // device, tasks/s
  double all = 0, sum_alone = 0, ratio = 0;           // tasks/s; ratio = all / sum_alone
  std::string label;                                  // tasks per device in the pool run
};

struct Report {
  std::vector<DeviceSummary> devices;
  std::vector<Ceilings> ceilings;                                 // per device; the FLOP fallback filled in
  std::vector<std::string> columns;                               // devices, then peers
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;  // label, one cell a column
  std::vector<Ratio> ratios;
  std::vector<std::string> errors;                                // "name: message"
  std::vector<std::string> series;                                // chart series: columns, then "pool over all"
  std::vector<ChartRow> chart;
  std::optional<PoolSummary> pool;
};

Report make_report(const std::map<std::string, Result>& results, const std::vector<DeviceSummary>& devices,
                   const std::vector<Ceilings>& ceilings, const Peers& peers);
std::string render_markdown(const Report& r, const std::string& heading);
std::string render_json(const Report& r);  // one JSON object
// A self-contained SVG: grouped horizontal bars per benchmark, one colour per device (and per
// peer), one panel per kind of figure on a scale of its own (bandwidth: share of the copy
// ceiling; matmul: TFLOP/s; host times and rates: their unit), log where a panel's figures
// span more than 30x (bench/report_svg.cpp).
std::string render_svg(const Report& r, const std::string& title);
// The chart's series and rows from a JSON porta-bench wrote (its porta_summary), for
// --from-json; throws std::runtime_error naming what is missing.
Report read_chart(const std::string& path);

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
