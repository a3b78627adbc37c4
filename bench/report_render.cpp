// Renders porta-bench's report: the Markdown table and ratios, and the same as JSON (added to
// Google Benchmark's JSON as "porta_summary", written with nlohmann::json); the SVG chart is
// report_svg.cpp.
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report_rows.hpp"

namespace porta_bench {

std::string render_markdown(const Report& r, const std::string& heading) {
  std::ostringstream o;
  o << heading << "\n\n";
  for (auto& d : r.devices) o << "- `" << d.spec << "`: " << d.name << " (" << d.backend << ", " << d.kind << ")\n";
  o << "\n| benchmark |";
  for (auto& c : r.columns) o << " " << c << " |";
  o << "\n|---|";
  for (std::size_t i = 0; i < r.columns.size(); ++i) o << "---:|";
  o << "\n";
  for (auto& [label, cells] : r.rows) {
    o << "| " << label << " |";
    for (auto& c : cells) o << " " << c << " |";
    o << "\n";
  }
  o << "\nBandwidths count bytes read plus bytes written once (fused and saxpy: 12 bytes an element), over the median "
       "device-event time; (n%) is the share of the same device's ceiling (rows 'ceiling:', measured first, raised "
       "to the best copy or GEMM of the run where that was higher; the source in brackets): copy bandwidth for "
       "bandwidths, the FLOP peak of the dtype for matmul (float64 for matmul_f64 and matmul_c128, float32 for the "
       "others, which "
       "tensor cores may exceed). Peers: CuPy's copy and the CUDA device's peak. Small-op and pool rows are host "
       "wall time.\n";
  if (r.pool) {
    o << "\nDevicePool, " << r.pool->tasks << " tasks: " << format(r.pool->all, Metric::tasks) << " tasks/s over all the devices";
    if (!r.pool->label.empty()) o << " (" << r.pool->label << ")";
    o << "; alone:";
    for (auto& [spec, v] : r.pool->alone) o << " " << spec << " " << format(v, Metric::tasks);
    o << ", sum " << format(r.pool->sum_alone, Metric::tasks) << "; pool / sum = " << format_ratio(r.pool->ratio) << "\n";
  }
  if (!r.ratios.empty()) {
    o << "\n| ratio | device | value | target | |\n|---|---|---:|---|---|\n";
    for (auto& x : r.ratios)
      o << "| " << x.what << " | " << x.device << " | " << format_ratio(x.value) << " | " << x.target << " | "
        << (x.met ? (*x.met ? "met" : "**MISSED**") : "") << " |\n";
  }
  if (!r.errors.empty()) {
    o << "\nSkipped:\n";
    for (auto& e : r.errors) o << "- " << e << "\n";
  }
  return o.str();
}


std::string render_json(const Report& r) {
  using Json = nlohmann::ordered_json;  // keys in the order written, for people reading the file
  // NaN and infinities become null (nlohmann writes every non-finite number as null); finite
  // numbers are written with every digit they need to read back as themselves, so that
  // --from-json draws the run's chart to the last pixel.
  Json o;
  Json devices = Json::array();
  for (auto& d : r.devices)
    devices.push_back({{"spec", d.spec}, {"name", d.name}, {"backend", d.backend}, {"kind", d.kind}, {"size", d.size},
                       {"matmul", d.matmul_families}});
  o["devices"] = devices;
  o["columns"] = r.columns;
  Json table = Json::array();
  for (auto& [label, cells] : r.rows) table.push_back({{"row", label}, {"cells", cells}});
  o["table"] = table;
  Json ratios = Json::array();
  for (auto& x : r.ratios) {
    Json met = x.met ? Json(*x.met) : Json(nullptr);
    ratios.push_back({{"ratio", x.what}, {"device", x.device}, {"value", x.value}, {"target", x.target}, {"met", met}});
  }
  o["ratios"] = ratios;
  Json ceilings = Json::object();
  for (auto& c : r.ceilings)
    ceilings[c.spec] = {{"copy_GBps", c.copy_gbps},        {"f32_TFLOPs", c.f32_tflops},     {"f64_TFLOPs", c.f64_tflops},
                        {"copy_source", c.copy_source}, {"flops_source", c.flops_source}, {"f64_source", c.f64_source}};
  o["ceilings"] = ceilings;
  // Every row as numbers, per column: {"opencl:0": {"saxpy": {"value": 41.2, "unit": "GB/s", "fraction": 0.93}}}.
  Json values = Json::object();
  for (std::size_t col = 0; col < r.columns.size(); ++col) {
    Json v = Json::object();
    for (auto& row : r.chart)
      if (col < row.values.size() && std::isfinite(row.values[col]))
        v[row.id] = {{"value", row.values[col]}, {"unit", row.unit}, {"fraction", row.fractions[col]}};
    values[r.columns[col]] = v;
  }
  o["values"] = values;
  // The chart's rows as render_svg draws them (porta-bench --from-json reads them back).
  o["series"] = r.series;
  Json chart = Json::array();
  for (auto& row : r.chart)
    chart.push_back({{"id", row.id}, {"label", row.label}, {"unit", row.unit}, {"higher_is_better", row.higher_is_better},
                     {"values", row.values}, {"fractions", row.fractions}});
  o["chart"] = chart;
  if (!r.pool) {
    o["pool"] = nullptr;
  } else {
    Json alone = Json::object();
    for (auto& [spec, v] : r.pool->alone) alone[spec] = v;
    o["pool"] = {{"tasks", r.pool->tasks},
                 {"all_tasks_per_s", r.pool->all},
                 {"sum_alone_tasks_per_s", r.pool->sum_alone},
                 {"ratio", r.pool->ratio},
                 {"alone", alone},
                 {"label", r.pool->label}};
  }
  o["skipped"] = r.errors;
  // Invalid UTF-8 in a label or an error message is replaced rather than thrown on.
  return o.dump(4, ' ', false, Json::error_handler_t::replace);
}

void SummaryJSONReporter::Finalize() {
  // Google Benchmark's JSONReporter closes with "\n  ]\n}\n"; add porta's summary before the brace.
  GetOutputStream() << "\n  ],\n  \"porta_summary\": " << summary_() << "\n}\n";
}

}  // namespace porta_bench
