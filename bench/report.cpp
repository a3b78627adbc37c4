// porta-bench's table, ratios and JSON; see report.hpp.
#include "report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

namespace porta_bench {
namespace {

// peers.json: a small JSON reader that keeps the numbers, flattened with ".".

class PeersParser {
 public:
  explicit PeersParser(std::string text) : s_(std::move(text)) {}

  Peers parse() {
    Peers out;
    value("", out);
    skip();
    if (i_ != s_.size()) fail("text after the JSON value");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("peers JSON: " + what + " at offset " + std::to_string(i_));
  }
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  std::string string() {
    if (!eat('"')) fail("expected a string");
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;
      out += s_[i_++];
    }
    if (i_ >= s_.size()) fail("unterminated string");
    ++i_;
    return out;
  }
  void value(const std::string& key, Peers& out) {
    skip();
    if (i_ >= s_.size()) fail("unexpected end");
    char c = s_[i_];
    if (c == '{') {
      ++i_;
      if (eat('}')) return;
      do {
        std::string k = string();
        if (!eat(':')) fail("expected ':'");
        value(key.empty() ? k : key + "." + k, out);
      } while (eat(','));
      if (!eat('}')) fail("expected '}'");
    } else if (c == '[') {
      ++i_;
      int n = 0;
      if (eat(']')) return;
      do value(key + "." + std::to_string(n++), out);
      while (eat(','));
      if (!eat(']')) fail("expected ']'");
    } else if (c == '"') {
      string();
    } else if (s_.compare(i_, 4, "true") == 0 || s_.compare(i_, 4, "null") == 0) {
      i_ += 4;
    } else if (s_.compare(i_, 5, "false") == 0) {
      i_ += 5;
    } else {
      std::size_t used = 0;
      double v = 0;
      try {
        v = std::stod(s_.substr(i_, 40), &used);
      } catch (const std::exception&) {
        fail("expected a value");
      }
      i_ += used;
      out[key] = v;
    }
  }

  std::string s_;
  std::size_t i_ = 0;
};

// What each row of the table shows.

enum class Metric { gbps, tflops, us_per_op, kops };

struct MetricInfo {
  const char* counter;
  const char* unit;
  bool higher_is_better;
};

MetricInfo info(Metric m) {
  switch (m) {
    case Metric::gbps: return {"GB/s", "GB/s", true};
    case Metric::tflops: return {"TFLOP/s", "TFLOP/s", true};
    case Metric::us_per_op: return {"us_per_op", "us/op, host", false};
    case Metric::kops: return {"kops/s", "kops/s, host", true};
  }
  return {"", "", true};
}

struct RowSpec {
  std::string label, family, param;  // param empty: any size (the device's own n)
  Metric metric;
  std::string cupy, torch;           // peers.json keys
};

std::vector<RowSpec> bandwidth_rows() {
  return {
      {"copy (x.copy())", "copy", "", Metric::gbps, "copy_GBps", ""},
      {"add x + y", "add", "", Metric::gbps, "cupy_add_GBps", ""},
      {"saxpy a*x + y", "saxpy", "", Metric::gbps, "cupy_saxpy_kernel_effGBps", "torch_saxpy_effGBps"},
      {"fused a*x*x + b*x + c*exp(-y)", "fused", "", Metric::gbps, "cupy_expr_fuse_effGBps", "torch_expr_compiled_effGBps"},
      {"broadcast add (matrix + row)", "add_broadcast", "", Metric::gbps, "", ""},
      {"strided add (transpose + matrix)", "add_strided", "", Metric::gbps, "", ""},
      {"hand-written copy (best launch)", "ref_copy", "", Metric::gbps, "", ""},
      {"hand-written add (best launch)", "ref_add", "", Metric::gbps, "", ""},
      {"hand-written saxpy (best launch)", "ref_saxpy", "", Metric::gbps, "", ""},
      {"sum (whole array)", "sum", "", Metric::gbps, "cupy_sum_GBps", "torch_sum_GBps"},
      {"sum over rows (axis 1)", "sum_rows", "", Metric::gbps, "", ""},
      {"sum over columns (axis 0)", "sum_cols", "", Metric::gbps, "", ""},
      {"random::uniform float32", "uniform", "", Metric::gbps, "", ""},
  };
}

struct Cell {
  double value = 0;
  std::string detail;
  bool found = false;
};

// The result of `family` on `device` (of `param` when given); among several launch shapes the best.
Cell lookup(const std::map<std::string, Result>& results, const std::string& family, const std::string& device,
            const std::string& param, Metric metric) {
  MetricInfo mi = info(metric);
  Cell best;
  for (auto& [name, r] : results) {
    if (r.family != family || r.device != device || (!param.empty() && r.param != param) || !r.error.empty()) continue;
    auto it = r.counters.find(mi.counter);
    if (it == r.counters.end()) continue;
    bool better = !best.found || (mi.higher_is_better ? it->second > best.value : it->second < best.value);
    if (better) best = {it->second, r.detail, true};
  }
  return best;
}

std::string format(double v, Metric m) {
  char buf[64];
  switch (m) {
    case Metric::gbps: std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v); break;
    case Metric::tflops: std::snprintf(buf, sizeof buf, v >= 10 ? "%.1f" : v >= 0.1 ? "%.3f" : "%.4f", v); break;
    case Metric::us_per_op: std::snprintf(buf, sizeof buf, "%.2f", v); break;
    case Metric::kops: std::snprintf(buf, sizeof buf, "%.1f", v); break;
  }
  return buf;
}

std::string format_ratio(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", v);
  return buf;
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// The ratios the issues set targets for, per device, where both sides were measured.
void add_ratios(Report& rep, const std::map<std::string, Result>& results, const Peers& peers) {
  auto get = [&](const std::string& family, const std::string& dev, Metric m, const std::string& param = "") {
    return lookup(results, family, dev, param, m);
  };
  auto counter = [&](const std::string& family, const std::string& dev, const char* name) -> std::optional<double> {
    for (auto& [n, r] : results)
      if (r.family == family && r.device == dev && r.error.empty())
        if (auto it = r.counters.find(name); it != r.counters.end()) return it->second;
    return std::nullopt;
  };
  auto push = [&](std::string what, const std::string& dev, double v, std::string target, std::optional<bool> met) {
    rep.ratios.push_back({std::move(what), dev, v, std::move(target), met});
  };
  const DeviceSummary* cuda = nullptr;
  for (auto& d : rep.devices)
    if (d.backend == "cuda" && !cuda) cuda = &d;

  for (auto& d : rep.devices) {
    const bool ocl_cpu = d.backend == "opencl" && d.kind == "cpu";
    const bool is_cuda = d.backend == "cuda";
    const bool gpu = d.kind == "gpu";
    // Issue 2 (PoCL): fusion works.
    if (auto f = counter("fused", d.spec, "ms"), a = counter("add", d.spec, "ms"); f && a && *a > 0) {
      double v = *f / *a;
      push("fused time / add time", d.spec, v, ocl_cpu ? "<= 1.3 (issue 2)" : "", ocl_cpu ? std::optional(v <= 1.3) : std::nullopt);
    }
    // The same two, timed pairwise in each iteration (robust to a machine whose load drifts).
    for (auto& [name, r] : results) {
      if (r.device != d.spec || !r.error.empty()) continue;
      auto it = r.counters.find("ratio");
      if (it == r.counters.end()) continue;
      if (r.family == "pair_fused_over_add")
        push("fused time / add time, paired", d.spec, it->second, ocl_cpu ? "<= 1.3 (issue 2)" : "",
             ocl_cpu ? std::optional(it->second <= 1.3) : std::nullopt);
      if (r.family == "pair_ref_over_add") {
        std::string t = ocl_cpu ? ">= 0.8 (issue 2)" : is_cuda ? ">= 0.95 (issue 3)" : "";
        push("add / hand-written add, bandwidth, paired [" + r.label + "]", d.spec, it->second, t,
             t.empty() ? std::nullopt : std::optional(it->second >= (ocl_cpu ? 0.8 : 0.95)));
      }
    }
    // Issues 2 and 3: generated add against the hand-written kernel.
    if (Cell a = get("add", d.spec, Metric::gbps), r = get("ref_add", d.spec, Metric::gbps); a.found && r.found) {
      double v = a.value / r.value;
      std::string t = ocl_cpu ? ">= 0.8 (issue 2)" : is_cuda ? ">= 0.95 (issue 3)" : "";
      push("add / hand-written add [" + r.detail + "], bandwidth", d.spec, v, t,
           t.empty() ? std::nullopt : std::optional(v >= (ocl_cpu ? 0.8 : 0.95)));
    }
    if (Cell a = get("saxpy", d.spec, Metric::gbps), r = get("ref_saxpy", d.spec, Metric::gbps); a.found && r.found) {
      double v = a.value / r.value;
      push("saxpy / hand-written saxpy [" + r.detail + "], bandwidth", d.spec, v, is_cuda ? ">= 0.95 (issue 3)" : "",
           is_cuda ? std::optional(v >= 0.95) : std::nullopt);
    }
    Cell copy = get("copy", d.spec, Metric::gbps);
    if (Cell s = get("sum", d.spec, Metric::gbps); s.found && copy.found) {
      double v = s.value / copy.value;
      push("sum / copy, bandwidth", d.spec, v, is_cuda ? ">= 0.95 (issue 3)" : "", is_cuda ? std::optional(v >= 0.95) : std::nullopt);
    }
    if (Cell f = get("fused", d.spec, Metric::gbps); f.found && copy.found) {
      double v = f.value / copy.value;
      push("fused / copy, bandwidth", d.spec, v, is_cuda ? ">= 0.9 (issue 4)" : "", is_cuda ? std::optional(v >= 0.9) : std::nullopt);
      if (cuda && gpu && d.backend == "opencl") {
        if (Cell cf = get("fused", cuda->spec, Metric::gbps); cf.found)
          push("fused bandwidth / " + cuda->spec + "'s", d.spec, f.value / cf.value, ">= 0.9 (issue 4)", f.value / cf.value >= 0.9);
      }
    }
    if (Cell r = get("ref_copy", d.spec, Metric::gbps); r.found && copy.found)
      push("copy / hand-written copy [" + r.detail + "], bandwidth", d.spec, copy.value / r.value, "", std::nullopt);
    Cell add = get("add", d.spec, Metric::gbps);
    for (const char* fam : {"add_broadcast", "add_strided"}) {
      if (Cell b = get(fam, d.spec, Metric::gbps); b.found && add.found) {
        double v = b.value / add.value;
        push(std::string(fam) + " / add, bandwidth", d.spec, v, gpu ? ">= 0.8 (issue 4)" : "", gpu ? std::optional(v >= 0.8) : std::nullopt);
      }
    }
    // Issue 4: per-op host cost against a bare launch of an equivalent kernel: plain
    // clEnqueueNDRangeKernel where measured, else porta's RawKernel launch (which costs more).
    if (Cell s = get("small_add", d.spec, Metric::us_per_op); s.found) {
      if (Cell r = get("small_native_add", d.spec, Metric::us_per_op); r.found) {
        double v = s.value / r.value;
        push(std::string("small add / bare ") + (is_cuda ? "cuLaunchKernel" : "clEnqueueNDRangeKernel") + ", host time per op", d.spec,
             v, gpu ? "<= 1.3 (issue 4)" : "", gpu ? std::optional(v <= 1.3) : std::nullopt);
      }
      if (Cell r = get("small_rawkernel_add", d.spec, Metric::us_per_op); r.found) {
        double v = s.value / r.value;
        // Only where no bare launch loop was measured does RawKernel stand in for it.
        bool target = is_cuda && !get("small_native_add", d.spec, Metric::us_per_op).found;
        push("small add / RawKernel launch, host time per op", d.spec, v, target ? "<= 1.3 (issue 4, vs bare cuLaunchKernel)" : "",
             target ? std::optional(v <= 1.3) : std::nullopt);
      }
    }
    // Issue 5: small-op throughput from 4 threads against 1.
    if (Cell one = get("small_add_threads", d.spec, Metric::kops, "1"), four = get("small_add_threads", d.spec, Metric::kops, "4");
        one.found && four.found) {
      double v = four.value / one.value;
      push("small adds, 4 threads / 1 thread, ops/s", d.spec, v, is_cuda ? ">= 2.5 (issue 5)" : "",
           is_cuda ? std::optional(v >= 2.5) : std::nullopt);
    }
    // Issue 3: GEMM against PyTorch's cuBLAS in the same run.
    if (is_cuda && !peers.empty()) {
      struct G {
        const char* family;
        const char* peer;
        double target;
      };
      for (G g : {G{"matmul_f32", "torch_sgemm", 0.98}, G{"matmul_f16", "torch_hgemm", 0.97}, G{"matmul_bf16", "torch_bf16gemm", 0.97},
                  G{"matmul_tf32", "torch_tf32gemm", 0.0}, G{"matmul_f64", "torch_dgemm", 0.0}}) {
        for (auto& [name, r] : results) {
          if (r.family != g.family || r.device != d.spec || !r.error.empty()) continue;
          auto p = peers.find(std::string(g.peer) + r.param + "_TFLOPs");
          auto t = r.counters.find("TFLOP/s");
          if (p == peers.end() || t == r.counters.end() || p->second <= 0) continue;
          double v = t->second / p->second;
          bool target = g.target > 0 && r.param == "8192";
          push(std::string(g.family) + " " + r.param + " / PyTorch", d.spec, v,
               target ? (g.target > 0.975 ? ">= 0.98 (issue 3)" : ">= 0.97 (issue 3)") : "",
               target ? std::optional(v >= g.target) : std::nullopt);
        }
      }
      for (auto [fam, peer] : {std::pair{"add", "cupy_add_GBps"}, std::pair{"fused", "torch_expr_compiled_effGBps"},
                               std::pair{"sum", "torch_sum_GBps"}}) {
        Cell c = get(fam, d.spec, Metric::gbps);
        auto p = peers.find(peer);
        if (c.found && p != peers.end() && p->second > 0)
          push(std::string(fam) + " / " + peer, d.spec, c.value / p->second, "", std::nullopt);
      }
      if (Cell s = get("small_add", d.spec, Metric::us_per_op); s.found)
        for (const char* peer : {"cupy_small_add_us_per_op", "torch_small_add_us_per_op"})
          if (auto p = peers.find(peer); p != peers.end() && p->second > 0)
            push(std::string("small add us/op / ") + peer, d.spec, s.value / p->second, "", std::nullopt);
    }
  }
}

}  // namespace

Peers read_peers(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the peers file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return PeersParser(ss.str()).parse();
}

CollectingReporter::CollectingReporter() : ConsoleReporter(OO_None) {
  SetOutputStream(&std::cerr);
  SetErrorStream(&std::cerr);
}

void CollectingReporter::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) {
    const bool median = run.run_type == Run::RT_Aggregate && run.aggregate_name == "median";
    if (run.run_type == Run::RT_Aggregate && !median) continue;
    const std::string& name = run.run_name.function_name;
    if (!median && !run.error_occurred && from_median_[name]) continue;
    if (!median && results_.count(name) && results_[name].error.empty() && !run.error_occurred) continue;  // first run wins
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
    if (run.error_occurred) r.error = run.error_message.empty() ? "skipped" : run.error_message;
    results_[name] = std::move(r);
    from_median_[name] = median;
  }
}

Report make_report(const std::map<std::string, Result>& results, const std::vector<DeviceSummary>& devices, const Peers& peers) {
  Report rep;
  rep.devices = devices;
  for (auto& d : devices) rep.columns.push_back(d.spec);
  const bool with_peers = !peers.empty();
  if (with_peers) {
    rep.columns.push_back("CuPy");
    rep.columns.push_back("PyTorch");
  }
  auto peer_cell = [&](const std::string& key, Metric m) -> std::string {
    if (key.empty()) return "";
    auto it = peers.find(key);
    return it == peers.end() ? "" : format(m == Metric::kops ? it->second / 1e3 : it->second, m);
  };
  auto add_row = [&](const RowSpec& spec) {
    std::vector<std::string> cells;
    bool any = false;
    for (auto& d : devices) {
      Cell c = lookup(results, spec.family, d.spec, spec.param, spec.metric);
      std::string text;
      if (c.found) {
        any = true;
        text = format(c.value, spec.metric);
        // Bandwidth as a share of the same device's copy, the ceiling measured in this run.
        if (spec.metric == Metric::gbps && spec.family != "copy") {
          Cell copy = lookup(results, "copy", d.spec, "", Metric::gbps);
          if (copy.found && copy.value > 0) text += " (" + std::to_string(static_cast<int>(std::lround(100 * c.value / copy.value))) + "%)";
        }
      }
      cells.push_back(text);
    }
    if (with_peers) {
      cells.push_back(peer_cell(spec.cupy, spec.metric));
      cells.push_back(peer_cell(spec.torch, spec.metric));
    }
    if (any) rep.rows.emplace_back(spec.label + ", " + info(spec.metric).unit, std::move(cells));
  };

  {
    std::vector<std::string> sizes;
    for (auto& d : devices) sizes.push_back(std::to_string(d.size));
    if (with_peers) sizes.insert(sizes.end(), {"268435456", "268435456"});
    rep.rows.emplace_back("elements (float32) of the rows below", sizes);
  }
  for (const RowSpec& spec : bandwidth_rows()) add_row(spec);

  // matmul: one row per dtype and size present.
  struct MatmulKind {
    const char* family;
    const char* label;
    const char* cupy;
    const char* torch;
  };
  for (MatmulKind k : {MatmulKind{"matmul_f32", "matmul float32", "cupy_sgemm", "torch_sgemm"},
                       MatmulKind{"matmul_tf32", "matmul float32 as TF32", "", "torch_tf32gemm"},
                       MatmulKind{"matmul_f64", "matmul float64", "", "torch_dgemm"},
                       MatmulKind{"matmul_f16", "matmul float16", "", "torch_hgemm"},
                       MatmulKind{"matmul_bf16", "matmul bfloat16", "", "torch_bf16gemm"}}) {
    std::vector<long long> sizes;
    for (auto& [name, r] : results)
      if (r.family == k.family) sizes.push_back(std::stoll(r.param));
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    for (long long n : sizes) {
      std::string p = std::to_string(n);
      add_row({std::string(k.label) + " " + p, k.family, p, Metric::tflops, *k.cupy ? k.cupy + p + "_TFLOPs" : "",
               *k.torch ? k.torch + p + "_TFLOPs" : ""});
    }
  }

  add_row({"small add (1024 floats, eval each)", "small_add", "", Metric::us_per_op, "cupy_small_add_us_per_op",
           "torch_small_add_us_per_op"});
  add_row({"small RawKernel add (1024 floats)", "small_rawkernel_add", "", Metric::us_per_op, "", ""});
  add_row({"bare launch loop, clEnqueueNDRangeKernel / cuLaunchKernel (1024 floats)", "small_native_add", "", Metric::us_per_op, "", ""});
  {
    std::vector<int> threads;
    for (auto& [name, r] : results)
      if (r.family == "small_add_threads") threads.push_back(std::stoi(r.param));
    std::sort(threads.begin(), threads.end());
    threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
    for (int t : threads) {
      std::string p = std::to_string(t);
      add_row({"small adds from " + p + " thread" + (t > 1 ? "s" : ""), "small_add_threads", p, Metric::kops,
               "cupy_threads_ops_per_s." + p, "torch_threads_ops_per_s." + p});
    }
  }
  add_ratios(rep, results, peers);
  for (auto& [name, r] : results)
    if (!r.error.empty()) rep.errors.push_back(name + ": " + r.error);
  return rep;
}

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
       "device-event time; (n%) is the share of the same device's copy bandwidth in this run. Small-op rows are host "
       "wall time.\n";
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
  std::ostringstream o;
  o << "{\n    \"devices\": [";
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    auto& d = r.devices[i];
    o << (i ? ", " : "") << "{\"spec\": " << json_string(d.spec) << ", \"name\": " << json_string(d.name)
      << ", \"backend\": " << json_string(d.backend) << ", \"kind\": " << json_string(d.kind) << ", \"size\": " << d.size
      << "}";
  }
  o << "],\n    \"columns\": [";
  for (std::size_t i = 0; i < r.columns.size(); ++i) o << (i ? ", " : "") << json_string(r.columns[i]);
  o << "],\n    \"table\": [";
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    o << (i ? "," : "") << "\n      {\"row\": " << json_string(r.rows[i].first) << ", \"cells\": [";
    for (std::size_t j = 0; j < r.rows[i].second.size(); ++j) o << (j ? ", " : "") << json_string(r.rows[i].second[j]);
    o << "]}";
  }
  o << "\n    ],\n    \"ratios\": [";
  for (std::size_t i = 0; i < r.ratios.size(); ++i) {
    auto& x = r.ratios[i];
    o << (i ? "," : "") << "\n      {\"ratio\": " << json_string(x.what) << ", \"device\": " << json_string(x.device)
      << ", \"value\": " << json_number(x.value) << ", \"target\": " << json_string(x.target)
      << ", \"met\": " << (x.met ? (*x.met ? "true" : "false") : "null") << "}";
  }
  o << "\n    ],\n    \"skipped\": [";
  for (std::size_t i = 0; i < r.errors.size(); ++i) o << (i ? ", " : "") << json_string(r.errors[i]);
  o << "]\n  }";
  return o.str();
}

void SummaryJSONReporter::Finalize() {
  // Google Benchmark's JSONReporter closes with "\n  ]\n}\n"; add porta's summary before the brace.
  GetOutputStream() << "\n  ],\n  \"porta_summary\": " << summary_() << "\n}\n";
}

}  // namespace porta_bench
