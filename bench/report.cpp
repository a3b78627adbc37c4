// porta-bench's table, ratios and JSON; see report.hpp.
#include "report.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <tuple>
#include <stdexcept>

namespace porta_bench {
namespace {

// peers.json: a small JSON reader that keeps the numbers, flattened with ".".

class PeersParser {
 public:
  // `strings`, when given, also receives every string and boolean ("true"/"false") value.
  explicit PeersParser(std::string text, std::map<std::string, std::string>* strings = nullptr)
      : s_(std::move(text)), strings_(strings) {}

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
      std::string v = string();
      if (strings_) (*strings_)[key] = std::move(v);
    } else if (s_.compare(i_, 4, "true") == 0 || s_.compare(i_, 4, "null") == 0) {
      if (strings_ && s_[i_] == 't') (*strings_)[key] = "true";
      i_ += 4;
    } else if (s_.compare(i_, 5, "false") == 0) {
      if (strings_) (*strings_)[key] = "false";
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
  std::map<std::string, std::string>* strings_;
};

// What each row of the table shows.

enum class Metric { gbps, tflops, us_per_op, kops, tasks };

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
    case Metric::tasks: return {"tasks/s", "tasks/s, host", true};
  }
  return {"", "", true};
}

struct RowSpec {
  std::string label, family, param;  // param empty: any size (the device's own n)
  Metric metric;
  std::string cupy, torch;           // peers.json keys
  std::string id = "";               // the name in the JSON's "values"; empty: the family
};

std::vector<RowSpec> bandwidth_rows() {
  return {
      {"copy (x.copy())", "copy", "", Metric::gbps, "copy_GBps", ""},
      {"add x + y", "add", "", Metric::gbps, "cupy_add_GBps", ""},
      {"saxpy a*x + y", "saxpy", "", Metric::gbps, "cupy_saxpy_kernel_effGBps", "torch_saxpy_effGBps"},
      {"fused a*x*x + b*x + c*exp(-y)", "fused", "", Metric::gbps, "cupy_expr_fuse_effGBps", "torch_expr_compiled_effGBps"},
      {"broadcast add (matrix + row)", "add_broadcast", "", Metric::gbps, "cupy_add_broadcast_GBps", "torch_add_broadcast_GBps"},
      {"strided add (transpose + matrix)", "add_strided", "", Metric::gbps, "", ""},
      {"hand-written copy (best launch)", "ref_copy", "", Metric::gbps, "", ""},
      {"hand-written add (best launch)", "ref_add", "", Metric::gbps, "", ""},
      {"hand-written saxpy (best launch)", "ref_saxpy", "", Metric::gbps, "", ""},
      {"sum (whole array)", "sum", "", Metric::gbps, "cupy_sum_GBps", "torch_sum_GBps"},
      {"argmax (whole array)", "argmax", "", Metric::gbps, "cupy_argmax_GBps", "torch_argmax_GBps"},
      {"sum over rows (axis 1)", "sum_rows", "", Metric::gbps, "", ""},
      {"sum over columns (axis 0)", "sum_cols", "", Metric::gbps, "", ""},
      {"fill full(...) float32 (write only)", "fill", "", Metric::gbps, "cupy_fill_GBps", "torch_fill_GBps"},
      {"random::uniform float32", "uniform", "", Metric::gbps, "cupy_random_GBps", "torch_rand_GBps"},
      {"random::normal float32", "normal", "", Metric::gbps, "", "torch_randn_GBps"},
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
    case Metric::tasks: std::snprintf(buf, sizeof buf, "%.0f", v); break;
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

// Every digit a double needs to read back as itself: --from-json must draw the run's chart to
// the last pixel (six digits moved a bar by 0.1 px in bench.quick_json).
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string gemm_target(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, ">= %.2g", v);
  return buf;
}

std::string join_plus(const std::vector<std::string>& parts) {
  std::string s;
  for (auto& p : parts) s += (s.empty() ? "" : " + ") + p;
  return s;
}

// The ratios porta has targets for, per device, where both sides were measured.
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
      push("fused time / add time", d.spec, v, ocl_cpu ? "<= 1.3" : "", ocl_cpu ? std::optional(v <= 1.3) : std::nullopt);
    }
    // The same two, timed pairwise in each iteration (robust to a machine whose load drifts).
    for (auto& [name, r] : results) {
      if (r.device != d.spec || !r.error.empty()) continue;
      auto it = r.counters.find("ratio");
      if (it == r.counters.end()) continue;
      if (r.family == "pair_fused_over_add")
        push("fused time / add time, paired", d.spec, it->second, ocl_cpu ? "<= 1.3" : "",
             ocl_cpu ? std::optional(it->second <= 1.3) : std::nullopt);
      if (r.family == "pair_ref_over_add") {
        std::string t = ocl_cpu ? ">= 0.8" : is_cuda ? ">= 0.95" : "";
        push("add / hand-written add, bandwidth, paired [" + r.label + "]", d.spec, it->second, t,
             t.empty() ? std::nullopt : std::optional(it->second >= (ocl_cpu ? 0.8 : 0.95)));
      }
    }
    // Issues 2 and 3: generated add against the hand-written kernel.
    if (Cell a = get("add", d.spec, Metric::gbps), r = get("ref_add", d.spec, Metric::gbps); a.found && r.found) {
      double v = a.value / r.value;
      std::string t = ocl_cpu ? ">= 0.8" : is_cuda ? ">= 0.95" : "";
      push("add / hand-written add [" + r.detail + "], bandwidth", d.spec, v, t,
           t.empty() ? std::nullopt : std::optional(v >= (ocl_cpu ? 0.8 : 0.95)));
    }
    if (Cell a = get("saxpy", d.spec, Metric::gbps), r = get("ref_saxpy", d.spec, Metric::gbps); a.found && r.found) {
      double v = a.value / r.value;
      push("saxpy / hand-written saxpy [" + r.detail + "], bandwidth", d.spec, v, is_cuda ? ">= 0.95" : "",
           is_cuda ? std::optional(v >= 0.95) : std::nullopt);
    }
    Cell copy = get("copy", d.spec, Metric::gbps);
    if (Cell s = get("sum", d.spec, Metric::gbps); s.found && copy.found) {
      double v = s.value / copy.value;
      push("sum / copy, bandwidth", d.spec, v, is_cuda ? ">= 0.95" : "", is_cuda ? std::optional(v >= 0.95) : std::nullopt);
    }
    if (Cell f = get("fused", d.spec, Metric::gbps); f.found && copy.found) {
      double v = f.value / copy.value;
      push("fused / copy, bandwidth", d.spec, v, is_cuda ? ">= 0.9" : "", is_cuda ? std::optional(v >= 0.9) : std::nullopt);
      if (cuda && gpu && d.backend == "opencl") {
        if (Cell cf = get("fused", cuda->spec, Metric::gbps); cf.found)
          push("fused bandwidth / " + cuda->spec + "'s", d.spec, f.value / cf.value, ">= 0.9", f.value / cf.value >= 0.9);
      }
    }
    // Issue 21: a generator at the device's write bandwidth (the fill row).
    if (Cell fill = get("fill", d.spec, Metric::gbps); fill.found && fill.value > 0) {
      if (Cell u = get("uniform", d.spec, Metric::gbps); u.found) {
        double v = u.value / fill.value;
        push("uniform / fill, bandwidth", d.spec, v, gpu ? ">= 0.9" : "", gpu ? std::optional(v >= 0.9) : std::nullopt);
      }
      if (Cell z = get("normal", d.spec, Metric::gbps); z.found) push("normal / fill, bandwidth", d.spec, z.value / fill.value, "", std::nullopt);
    }
    if (Cell r = get("ref_copy", d.spec, Metric::gbps); r.found && copy.found)
      push("copy / hand-written copy [" + r.detail + "], bandwidth", d.spec, copy.value / r.value, "", std::nullopt);
    Cell add = get("add", d.spec, Metric::gbps);
    for (const char* fam : {"add_broadcast", "add_strided"}) {
      if (Cell b = get(fam, d.spec, Metric::gbps); b.found && add.found) {
        double v = b.value / add.value;
        push(std::string(fam) + " / add, bandwidth", d.spec, v, gpu ? ">= 0.8" : "", gpu ? std::optional(v >= 0.8) : std::nullopt);
      }
    }
    // Issue 4: per-op host cost against a bare launch of an equivalent kernel: plain
    // clEnqueueNDRangeKernel where measured, else porta's RawKernel launch (which costs more).
    if (Cell s = get("small_add", d.spec, Metric::us_per_op); s.found) {
      if (Cell r = get("small_native_add", d.spec, Metric::us_per_op); r.found) {
        double v = s.value / r.value;
        push(std::string("small add / bare ") + (is_cuda ? "cuLaunchKernel" : "clEnqueueNDRangeKernel") + ", host time per op", d.spec,
             v, gpu ? "<= 1.3" : "", gpu ? std::optional(v <= 1.3) : std::nullopt);
      }
      if (Cell r = get("small_rawkernel_add", d.spec, Metric::us_per_op); r.found) {
        double v = s.value / r.value;
        // Only where no bare launch loop was measured does RawKernel stand in for it.
        bool target = is_cuda && !get("small_native_add", d.spec, Metric::us_per_op).found;
        push("small add / RawKernel launch, host time per op", d.spec, v, target ? "<= 1.3 (vs bare cuLaunchKernel)" : "",
             target ? std::optional(v <= 1.3) : std::nullopt);
      }
    }
    // Issue 5: small-op throughput from 4 threads against 1.
    if (Cell one = get("small_add_threads", d.spec, Metric::kops, "1"), four = get("small_add_threads", d.spec, Metric::kops, "4");
        one.found && four.found) {
      double v = four.value / one.value;
      push("small adds, 4 threads / 1 thread, ops/s", d.spec, v, is_cuda ? ">= 2.5" : "",
           is_cuda ? std::optional(v >= 2.5) : std::nullopt);
    }
    // Issue 9: porta's OpenCL GEMM, and CLBlast called directly, against cuBLAS on the same GPU
    // seen through CUDA (a CUDA device of the same name in this run), and against each other.
    if (d.backend == "opencl") {
      const DeviceSummary* twin = nullptr;
      for (auto& x : rep.devices)
        if (x.backend == "cuda" && x.name == d.name && !twin) twin = &x;
      struct G {
        const char* family;
        const char* blas;
        std::vector<std::string> target_sizes;
        double target;
      };
      for (const G& g : {G{"matmul_f32", "SGEMM", {"4096", "8192"}, 0.75}, G{"matmul_f64", "DGEMM", {"4096"}, 0.7}}) {
        for (auto& [name, r] : results) {
          if (r.family != g.family || r.device != d.spec || !r.error.empty()) continue;
          Cell own = get(g.family, d.spec, Metric::tflops, r.param);
          Cell clb = get(std::string(g.family) + "_clblast", d.spec, Metric::tflops, r.param);
          if (!own.found) continue;
          if (twin) {
            if (Cell cub = get(g.family, twin->spec, Metric::tflops, r.param); cub.found && cub.value > 0) {
              bool target = gpu && std::find(g.target_sizes.begin(), g.target_sizes.end(), r.param) != g.target_sizes.end();
              double v = own.value / cub.value;
              push(std::string("porta OpenCL ") + g.blas + " " + r.param + " / cuBLAS " + g.blas + " (" + twin->spec + ")", d.spec, v,
                   target ? gemm_target(g.target) : "", target ? std::optional(v >= g.target) : std::nullopt);
              if (clb.found)
                push(std::string("CLBlast ") + g.blas + " " + r.param + " / cuBLAS " + g.blas + " (" + twin->spec + ")", d.spec,
                     clb.value / cub.value, "", std::nullopt);
            }
          }
          if (clb.found && clb.value > 0)
            push(std::string("porta OpenCL ") + g.blas + " " + r.param + " / CLBlast " + g.blas, d.spec, own.value / clb.value,
                 gpu ? "> 1" : "", gpu ? std::optional(own.value > clb.value) : std::nullopt);
        }
      }
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
               target ? (g.target > 0.975 ? ">= 0.98" : ">= 0.97") : "",
               target ? std::optional(v >= g.target) : std::nullopt);
        }
      }
      for (auto [fam, peer] : {std::pair{"add", "cupy_add_GBps"}, std::pair{"fused", "torch_expr_compiled_effGBps"},
                               std::pair{"sum", "torch_sum_GBps"}, std::pair{"uniform", "torch_rand_GBps"},
                               std::pair{"uniform", "cupy_random_GBps"}, std::pair{"normal", "torch_randn_GBps"},
                               std::pair{"fill", "torch_fill_GBps"}}) {
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

Report read_chart(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::map<std::string, std::string> strings;
  Peers numbers = PeersParser(ss.str(), &strings).parse();
  const std::string at = "porta_summary.";
  Report rep;
  for (std::size_t s = 0; strings.count(at + "series." + std::to_string(s)); ++s)
    rep.series.push_back(strings.at(at + "series." + std::to_string(s)));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 0;; ++i) {
    const std::string row = at + "chart." + std::to_string(i) + ".";
    if (!strings.count(row + "id")) break;
    ChartRow c{strings[row + "id"], strings[row + "label"], strings[row + "unit"], strings[row + "higher_is_better"] != "false",
               {}, {}};
    for (std::size_t s = 0; s < rep.series.size(); ++s) {
      auto v = numbers.find(row + "values." + std::to_string(s)), f = numbers.find(row + "fractions." + std::to_string(s));
      c.values.push_back(v == numbers.end() ? nan : v->second);  // null: no figure for that series
      c.fractions.push_back(f == numbers.end() ? nan : f->second);
    }
    rep.chart.push_back(std::move(c));
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

Report make_report(const std::map<std::string, Result>& results, const std::vector<DeviceSummary>& devices,
                   const std::vector<Ceilings>& ceilings, const Peers& peers) {
  Report rep;
  rep.devices = devices;
  for (auto& d : devices) rep.columns.push_back(d.spec);
  const bool with_peers = !peers.empty();
  if (with_peers) {
    rep.columns.push_back("CuPy");
    rep.columns.push_back("PyTorch");
  }
  rep.series = rep.columns;
  const std::size_t ncols = rep.columns.size();
  const double nan = std::numeric_limits<double>::quiet_NaN();

  // Ceilings: measured first by porta-bench, raised to the best figure of the same kind the suite
  // reached (copy or hand-written copy; any GEMM of the dtype), so that no result exceeds the
  // ceiling it is shown as a fraction of merely because the first measurement was unlucky; and
  // where no FMA kernel could run, the GEMM figure is the ceiling. The source says which.
  for (auto& d : devices) {
    Ceilings c;
    c.spec = d.spec;
    for (auto& x : ceilings)
      if (x.spec == d.spec) c = x;
    for (const char* fam : {"copy", "ref_copy"})
      if (Cell b = lookup(results, fam, d.spec, "", Metric::gbps); b.found && b.value > c.copy_gbps) {
        c.copy_gbps = b.value;
        c.copy_source = std::string(fam) + (b.detail.empty() ? "" : " [" + b.detail + "]") + " benchmark";
      }
    for (auto [fam, flops, source] : {std::tuple{"matmul_f32", &c.f32_tflops, &c.flops_source},
                                      std::tuple{"matmul_f64", &c.f64_tflops, &c.f64_source}}) {
      for (auto& [name, r] : results) {
        if (r.family != fam || r.device != d.spec || !r.error.empty() || !r.counters.count("TFLOP/s")) continue;
        if (double v = r.counters.at("TFLOP/s"); v > *flops) {
          *flops = v;
          *source = std::string(fam) + " " + r.param;
        }
      }
    }
    rep.ceilings.push_back(c);
  }
  auto ceiling_of = [&](const std::string& spec) -> const Ceilings* {
    for (auto& c : rep.ceilings)
      if (c.spec == spec) return &c;
    return nullptr;
  };
  const DeviceSummary* cuda = nullptr;
  for (auto& d : devices)
    if (d.backend == "cuda" && !cuda) cuda = &d;
  // The ceiling a row's figure is a fraction of: copy bandwidth for bandwidths, the FMA peak of
  // the dtype (float64 for matmul_f64, else float32) for TFLOP/s; 0 when there is none.
  auto ceiling_for = [&](const Ceilings* c, const RowSpec& spec) -> double {
    if (!c) return 0;
    if (spec.metric == Metric::gbps) return c->copy_gbps;
    if (spec.metric == Metric::tflops) return spec.family == "matmul_f64" ? c->f64_tflops : c->f32_tflops;
    return 0;
  };
  auto peer_value = [&](const std::string& key, Metric m) -> double {
    if (key.empty()) return nan;
    auto it = peers.find(key);
    if (it == peers.end()) return nan;
    return m == Metric::kops ? it->second / 1e3 : it->second;
  };
  // The peers ran on the CUDA device's GPU: their ceilings are CuPy's copy and that device's FMA peak.
  auto peer_ceiling = [&](const RowSpec& spec) -> double {
    if (spec.metric == Metric::gbps) {
      auto it = peers.find("copy_GBps");
      return it == peers.end() ? 0 : it->second;
    }
    return cuda ? ceiling_for(ceiling_of(cuda->spec), spec) : 0;
  };
  auto percent = [](double v, double ceiling) {
    return " (" + std::to_string(static_cast<int>(std::lround(100 * v / ceiling))) + "%)";
  };
  auto add_row = [&](const RowSpec& spec) {
    std::vector<std::string> cells;
    ChartRow chart{spec.id.empty() ? spec.family : spec.id, spec.label, info(spec.metric).unit, info(spec.metric).higher_is_better,
                   std::vector<double>(ncols, nan), std::vector<double>(ncols, nan)};
    bool any = false;
    for (std::size_t i = 0; i < devices.size(); ++i) {
      auto& d = devices[i];
      Cell c = lookup(results, spec.family, d.spec, spec.param, spec.metric);
      std::string text;
      if (c.found) {
        any = true;
        text = format(c.value, spec.metric);
        chart.values[i] = c.value;
        if (double ceil = ceiling_for(ceiling_of(d.spec), spec); ceil > 0) {
          text += percent(c.value, ceil);
          chart.fractions[i] = c.value / ceil;
        }
      }
      cells.push_back(text);
    }
    if (with_peers) {
      for (std::size_t p = 0; p < 2; ++p) {
        double v = peer_value(p == 0 ? spec.cupy : spec.torch, spec.metric);
        std::string text;
        if (std::isfinite(v)) {
          text = format(v, spec.metric);
          chart.values[devices.size() + p] = v;
          if (double ceil = peer_ceiling(spec); ceil > 0) {
            text += percent(v, ceil);
            chart.fractions[devices.size() + p] = v / ceil;
          }
        }
        cells.push_back(text);
      }
    }
    if (any) {
      rep.rows.emplace_back(spec.label + ", " + info(spec.metric).unit, std::move(cells));
      rep.chart.push_back(std::move(chart));
    }
  };

  {
    std::vector<std::string> sizes;
    for (auto& d : devices) sizes.push_back(std::to_string(d.size));
    if (with_peers) {
      auto it = peers.find("meta.n");  // peers.py's size; older peers files ran 2^28
      std::string n = it == peers.end() ? "268435456" : std::to_string(static_cast<long long>(it->second));
      sizes.insert(sizes.end(), {n, n});
    }
    rep.rows.emplace_back("elements (float32) of the rows below", sizes);
  }
  {
    std::vector<std::string> copy, f32, f64;
    for (auto& c : rep.ceilings) {
      copy.push_back(c.copy_gbps > 0 ? format(c.copy_gbps, Metric::gbps) + " [" + c.copy_source + "]" : "");
      f32.push_back(c.f32_tflops > 0 ? format(c.f32_tflops, Metric::tflops) + " [" + c.flops_source + "]" : "");
      f64.push_back(c.f64_tflops > 0 ? format(c.f64_tflops, Metric::tflops) + " [" + c.f64_source + "]" : "");
    }
    if (with_peers) {
      auto it = peers.find("copy_GBps");
      copy.push_back(it == peers.end() ? "" : format(it->second, Metric::gbps) + " [CuPy copyto]");
      for (auto* v : {&copy, &f32, &f64}) v->resize(ncols);
    }
    rep.rows.emplace_back("ceiling: copy bandwidth, GB/s", copy);
    rep.rows.emplace_back("ceiling: float32 peak, TFLOP/s", f32);
    rep.rows.emplace_back("ceiling: float64 peak, TFLOP/s", f64);
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
                       MatmulKind{"matmul_bf16", "matmul bfloat16", "", "torch_bf16gemm"},
                       MatmulKind{"matmul_f32_clblast", "matmul float32, CLBlast called directly", "", ""},
                       MatmulKind{"matmul_f64_clblast", "matmul float64, CLBlast called directly", "", ""}}) {
    std::vector<long long> sizes;
    for (auto& [name, r] : results)
      if (r.family == k.family) sizes.push_back(std::stoll(r.param));
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    for (long long n : sizes) {
      std::string p = std::to_string(n);
      add_row({std::string(k.label) + " " + p, k.family, p, Metric::tflops, *k.cupy ? k.cupy + p + "_TFLOPs" : "",
               *k.torch ? k.torch + p + "_TFLOPs" : "", std::string(k.family) + "/" + p});
    }
  }

  add_row({"small add (1024 floats, eval each)", "small_add", "", Metric::us_per_op, "cupy_small_add_us_per_op",
           "torch_small_add_us_per_op"});
  add_row({"small RawKernel add (1024 floats)", "small_rawkernel_add", "", Metric::us_per_op, "", ""});
  add_row({"bare launch loop, clEnqueueNDRangeKernel / cuLaunchKernel (1024 floats)", "small_native_add", "", Metric::us_per_op, "", ""});
  add_row({"DLPack export + import (evaluated 1024 floats)", "interop_dlpack_roundtrip", "", Metric::us_per_op,
           "torch_from_dlpack_cupy_us", "cupy_from_dlpack_torch_us"});
  {
    std::vector<int> threads;
    for (auto& [name, r] : results)
      if (r.family == "small_add_threads") threads.push_back(std::stoi(r.param));
    std::sort(threads.begin(), threads.end());
    threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
    for (int t : threads) {
      std::string p = std::to_string(t);
      add_row({"small adds from " + p + " thread" + (t > 1 ? "s" : ""), "small_add_threads", p, Metric::kops,
               "cupy_threads_ops_per_s." + p, "torch_threads_ops_per_s." + p, "small_add_threads/" + p});
    }
  }
  // DevicePool: each device alone as a row; the pool over all of them as its own chart series.
  add_row({"DevicePool, this device alone (fused + sum tasks)", "pool", "", Metric::tasks, "cupy_pool_tasks_per_s",
           "torch_pool_tasks_per_s", "pool"});
  for (auto& [name, r] : results) {
    if (r.family != "pool_all" || !r.error.empty() || !r.counters.count("tasks/s")) continue;
    PoolSummary p;
    p.tasks = std::stoll(r.param);
    p.all = r.counters.at("tasks/s");
    p.label = r.label;
    for (auto& d : devices)
      if (Cell c = lookup(results, "pool", d.spec, r.param, Metric::tasks); c.found) {
        p.alone.emplace_back(d.spec, c.value);
        p.sum_alone += c.value;
      }
    p.ratio = p.sum_alone > 0 ? p.all / p.sum_alone : 0;
    rep.pool = p;
    std::string all = "pool over all (" + std::to_string(devices.size()) + " devices)";
    rep.series.push_back(all);
    ChartRow row{"pool_all", "DevicePool over all the devices", info(Metric::tasks).unit, true,
                 std::vector<double>(rep.series.size(), nan), std::vector<double>(rep.series.size(), nan)};
    row.values.back() = p.all;
    rep.chart.push_back(row);
    std::vector<std::string> cells(ncols);
    if (!cells.empty()) cells[0] = format(p.all, Metric::tasks) + " (all devices)";
    rep.rows.emplace_back("DevicePool over all the devices, tasks/s", cells);
  }
  for (auto& row : rep.chart) {
    row.values.resize(rep.series.size(), nan);
    row.fractions.resize(rep.series.size(), nan);
  }
  add_ratios(rep, results, peers);
  if (rep.pool && rep.pool->sum_alone > 0) {
    // Devices that are one GPU (the same PCI bus id: cuda:0 and NVIDIA's OpenCL device) count once,
    // at the faster of their figures: the pool runs them through one device (pool.hpp), and the
    // target for them is the faster one alone.
    std::map<std::string, std::pair<std::string, double>> fastest;  // bus id -> (device, tasks/s)
    std::map<std::string, std::vector<std::string>> views;
    double physical = 0;
    for (auto& [spec, v] : rep.pool->alone) {
      auto d = std::find_if(devices.begin(), devices.end(), [&](auto& x) { return x.spec == spec; });
      if (d == devices.end() || d->pci_bus_id.empty()) {
        physical += v;
        continue;
      }
      views[d->pci_bus_id].push_back(spec);
      auto& f = fastest[d->pci_bus_id];
      if (v > f.second) f = {spec, v};
    }
    for (auto& [id, f] : fastest) physical += f.second;
    const bool shared = std::any_of(views.begin(), views.end(), [](auto& v) { return v.second.size() > 1; });
    // The pool target is for devices that do not share their hardware: GPUs.
    bool gpus = std::all_of(devices.begin(), devices.end(), [](auto& d) { return d.kind == "gpu"; });
    const double r = physical > 0 ? rep.pool->all / physical : 0;
    rep.ratios.push_back({shared ? "DevicePool over all / sum of each physical device alone (one GPU seen twice: the faster view), tasks/s"
                                 : "DevicePool over all / sum of each device alone, tasks/s",
                          "all", r, gpus ? ">= 0.9" : "", gpus ? std::optional(r >= 0.9) : std::nullopt});
    for (auto& [id, specs] : views) {
      if (specs.size() < 2) continue;
      const auto& f = fastest[id];
      const double v = rep.pool->all / f.second;
      rep.ratios.push_back({"DevicePool over " + join_plus(specs) + " (one GPU, PCI " + id + ") / " + f.first + " alone, tasks/s", "all", v,
                            devices.size() == specs.size() ? ">= 1.0" : "",
                            devices.size() == specs.size() ? std::optional(v >= 1.0) : std::nullopt});
    }
  }
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
       "device-event time; (n%) is the share of the same device's ceiling (rows 'ceiling:', measured first, raised "
       "to the best copy or GEMM of the run where that was higher; the source in brackets): copy bandwidth for "
       "bandwidths, the FLOP peak of the dtype for matmul (float64 for matmul_f64, float32 for the others, which "
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
  std::ostringstream o;
  o << "{\n    \"devices\": [";
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    auto& d = r.devices[i];
    o << (i ? ", " : "") << "{\"spec\": " << json_string(d.spec) << ", \"name\": " << json_string(d.name)
      << ", \"backend\": " << json_string(d.backend) << ", \"kind\": " << json_string(d.kind) << ", \"size\": " << d.size
      << ", \"matmul\": [";
    for (std::size_t j = 0; j < d.matmul_families.size(); ++j) o << (j ? ", " : "") << json_string(d.matmul_families[j]);
    o << "]}";
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
  o << "\n    ],\n    \"ceilings\": {";
  for (std::size_t i = 0; i < r.ceilings.size(); ++i) {
    auto& c = r.ceilings[i];
    o << (i ? "," : "") << "\n      " << json_string(c.spec) << ": {\"copy_GBps\": " << json_number(c.copy_gbps)
      << ", \"f32_TFLOPs\": " << json_number(c.f32_tflops) << ", \"f64_TFLOPs\": " << json_number(c.f64_tflops)
      << ", \"copy_source\": " << json_string(c.copy_source) << ", \"flops_source\": " << json_string(c.flops_source)
      << ", \"f64_source\": " << json_string(c.f64_source) << "}";
  }
  // Every row as numbers, per column: {"opencl:0": {"saxpy": {"value": 41.2, "unit": "GB/s", "fraction": 0.93}}}.
  o << "\n    },\n    \"values\": {";
  for (std::size_t col = 0; col < r.columns.size(); ++col) {
    o << (col ? "," : "") << "\n      " << json_string(r.columns[col]) << ": {";
    bool first = true;
    for (auto& row : r.chart) {
      if (col >= row.values.size() || !std::isfinite(row.values[col])) continue;
      o << (first ? "" : ",") << "\n        " << json_string(row.id) << ": {\"value\": " << json_number(row.values[col])
        << ", \"unit\": " << json_string(row.unit) << ", \"fraction\": " << json_number(row.fractions[col]) << "}";
      first = false;
    }
    o << "}";
  }
  // The chart's rows as render_svg draws them (porta-bench --from-json reads them back).
  o << "\n    },\n    \"series\": [";
  for (std::size_t i = 0; i < r.series.size(); ++i) o << (i ? ", " : "") << json_string(r.series[i]);
  o << "],\n    \"chart\": [";
  for (std::size_t i = 0; i < r.chart.size(); ++i) {
    auto& row = r.chart[i];
    o << (i ? "," : "") << "\n      {\"id\": " << json_string(row.id) << ", \"label\": " << json_string(row.label)
      << ", \"unit\": " << json_string(row.unit) << ", \"higher_is_better\": " << (row.higher_is_better ? "true" : "false")
      << ", \"values\": [";
    for (std::size_t j = 0; j < row.values.size(); ++j) o << (j ? ", " : "") << json_number(row.values[j]);
    o << "], \"fractions\": [";
    for (std::size_t j = 0; j < row.fractions.size(); ++j) o << (j ? ", " : "") << json_number(row.fractions[j]);
    o << "]}";
  }
  o << "\n    ],\n    \"pool\": ";
  if (!r.pool) o << "null";
  else {
    o << "{\"tasks\": " << r.pool->tasks << ", \"all_tasks_per_s\": " << json_number(r.pool->all)
      << ", \"sum_alone_tasks_per_s\": " << json_number(r.pool->sum_alone) << ", \"ratio\": " << json_number(r.pool->ratio)
      << ", \"alone\": {";
    for (std::size_t i = 0; i < r.pool->alone.size(); ++i)
      o << (i ? ", " : "") << json_string(r.pool->alone[i].first) << ": " << json_number(r.pool->alone[i].second);
    o << "}, \"label\": " << json_string(r.pool->label) << "}";
  }
  o << ",\n    \"skipped\": [";
  for (std::size_t i = 0; i < r.errors.size(); ++i) o << (i ? ", " : "") << json_string(r.errors[i]);
  o << "]\n  }";
  return o.str();
}

void SummaryJSONReporter::Finalize() {
  // Google Benchmark's JSONReporter closes with "\n  ]\n}\n"; add porta's summary before the brace.
  GetOutputStream() << "\n  ],\n  \"porta_summary\": " << summary_() << "\n}\n";
}

}  // namespace porta_bench
