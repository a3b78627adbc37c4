// What porta-bench's report files share (report_table.cpp computes the table, report_ratios.cpp
// the ratios and their targets, report_render.cpp renders them): what a row shows, and the lookup
// of a result. Internal to bench/.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "report.hpp"

namespace porta_bench {

enum class Metric { gbps, tflops, us_per_op, kops, tasks, gkeys };

struct MetricInfo {
  const char* counter;
  const char* unit;
  bool higher_is_better;
};

MetricInfo info(Metric m);
// The Metric of a counter name ("GB/s", "TFLOP/s", "us_per_op", "kops/s", "tasks/s", "Gkeys/s"); throws
// std::invalid_argument for another.
Metric metric_of_counter(const std::string& counter);

struct RowSpec {
  std::string label, family, param;  // param empty: any size (the device's own n)
  Metric metric;
  std::string cupy, torch;           // peers.json keys (CuPy, PyTorch columns)
  std::string id = "";               // the name in the JSON's "values"; empty: the family
  std::string numpy = "";            // peers.json key of the NumPy column
};

struct Cell {
  double value = 0;
  std::string detail;
  bool found = false;
};

// The result of `family` on `device` (of `param` when given); among several launch shapes the best.
Cell lookup(const std::map<std::string, Result>& results, const std::string& family, const std::string& device,
            const std::string& param, Metric metric);
std::string format(double v, Metric m);
std::string format_ratio(double v);

// The ratios porta has targets for, per device, where both sides were measured.
void add_ratios(Report& rep, const std::map<std::string, Result>& results, const Peers& peers);
// The pool's ratios (rep.pool set): over all against the sum of each physical device alone, and
// one GPU seen twice against its faster view.
void add_pool_ratios(Report& rep);

}  // namespace porta_bench
