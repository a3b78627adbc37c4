// porta-bench's table: the cross-device rows (each device, then a column for each peer library
// in the peers file), the ceilings raised to the best figure of the run, the chart's rows, and the
// pool summary.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "report_rows.hpp"

namespace porta_bench {

MetricInfo info(Metric m) {
  switch (m) {
    case Metric::gbps: return {"GB/s", "GB/s", true};
    case Metric::tflops: return {"TFLOP/s", "TFLOP/s", true};
    case Metric::us_per_op: return {"us_per_op", "us/op, host", false};
    case Metric::kops: return {"kops/s", "kops/s, host", true};
    case Metric::tasks: return {"tasks/s", "tasks/s, host", true};
    case Metric::gkeys: return {"Gkeys/s", "G keys/s", true};
  }
  return {"", "", true};
}


Metric metric_of_counter(const std::string& counter) {
  for (Metric m : {Metric::gbps, Metric::tflops, Metric::us_per_op, Metric::kops, Metric::tasks, Metric::gkeys})
    if (counter == info(m).counter) return m;
  throw std::invalid_argument("porta-bench: no table metric for the counter '" + counter + "'");
}

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
    case Metric::gkeys: std::snprintf(buf, sizeof buf, v >= 10 ? "%.1f" : "%.2f", v); break;
  }
  return buf;
}

std::string format_ratio(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", v);
  return buf;
}


namespace {

// A peer library's column: which RowSpec key it reads, how its keys in peers.json start, and the
// copy bandwidth its bandwidths are a fraction of. CuPy and PyTorch ran on the CUDA device's GPU
// (their ceiling: CuPy's copy; matmul: that device's FMA peak); NumPy on the host's cores.
struct PeerColumn {
  const char* name;
  std::string RowSpec::*key;
  const char* prefix;
  const char* copy_key;
  const char* copy_source;
  bool copy_is_own;  // whether the ceiling row shows copy_key in this column
  const char* n_key;
  bool on_gpu;
};
const PeerColumn kPeerColumns[] = {
    {"CuPy", &RowSpec::cupy, "cupy_", "copy_GBps", "CuPy copyto", true, "meta.n", true},
    {"PyTorch", &RowSpec::torch, "torch_", "copy_GBps", "CuPy copyto", false, "meta.n", true},
    {"NumPy", &RowSpec::numpy, "numpy_", "numpy_copy_GBps", "NumPy copyto", true, "meta.numpy_n", false},
};

std::vector<RowSpec> bandwidth_rows() {
  return {
      {"copy (x.copy())", "copy", "", Metric::gbps, "copy_GBps", "", "", "numpy_copy_GBps"},
      {"add x + y", "add", "", Metric::gbps, "cupy_add_GBps", "", "", "numpy_add_GBps"},
      {"saxpy a*x + y", "saxpy", "", Metric::gbps, "cupy_saxpy_kernel_effGBps", "torch_saxpy_effGBps"},
      {"fused a*x*x + b*x + c*exp(-y)", "fused", "", Metric::gbps, "cupy_expr_fuse_effGBps", "torch_expr_compiled_effGBps", "", "numpy_expr_effGBps"},
      {"broadcast add (matrix + row)", "add_broadcast", "", Metric::gbps, "cupy_add_broadcast_GBps", "torch_add_broadcast_GBps"},
      {"strided add (transpose + matrix)", "add_strided", "", Metric::gbps, "", ""},
      {"hand-written copy (best launch)", "ref_copy", "", Metric::gbps, "", ""},
      {"hand-written add (best launch)", "ref_add", "", Metric::gbps, "", ""},
      {"hand-written saxpy (best launch)", "ref_saxpy", "", Metric::gbps, "", ""},
      {"sum (whole array)", "sum", "", Metric::gbps, "cupy_sum_GBps", "torch_sum_GBps", "", "numpy_sum_GBps"},
      {"argmax (whole array)", "argmax", "", Metric::gbps, "cupy_argmax_GBps", "torch_argmax_GBps", "", "numpy_argmax_GBps"},
      {"sum over rows (axis 1)", "sum_rows", "", Metric::gbps, "cupy_sum_rows_GBps", "torch_sum_rows_GBps", "", "numpy_sum_rows_GBps"},
      {"sum over columns (axis 0)", "sum_cols", "", Metric::gbps, "cupy_sum_cols_GBps", "torch_sum_cols_GBps", "", "numpy_sum_cols_GBps"},
      {"fill full(...) float32 (write only)", "fill", "", Metric::gbps, "cupy_fill_GBps", "torch_fill_GBps", "", "numpy_fill_GBps"},
      {"random::uniform float32", "uniform", "", Metric::gbps, "cupy_random_GBps", "torch_rand_GBps", "", "numpy_random_GBps"},
      {"random::normal float32", "normal", "", Metric::gbps, "", "torch_randn_GBps", "", "numpy_normal_GBps"},
  };
}


}  // namespace

Report make_report(const std::map<std::string, Result>& results, const std::vector<DeviceSummary>& devices,
                   const std::vector<Ceilings>& ceilings, const Peers& peers) {
  Report rep;
  rep.devices = devices;
  for (auto& d : devices) rep.columns.push_back(d.spec);
  // The peers' columns present in the peers file: a column for each library it has figures of.
  std::vector<const PeerColumn*> peer_columns;
  for (const PeerColumn& p : kPeerColumns)
    if (std::any_of(peers.begin(), peers.end(), [&](auto& kv) { return kv.first.rfind(p.prefix, 0) == 0; })) {
      peer_columns.push_back(&p);
      rep.columns.push_back(p.name);
    }
  const bool with_peers = !peer_columns.empty();
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
  // the dtype (float64 for matmul_f64 and matmul_c128, else float32) for TFLOP/s; 0 when there is none.
  auto ceiling_for = [&](const Ceilings* c, const RowSpec& spec) -> double {
    if (!c) return 0;
    if (spec.metric == Metric::gbps) return c->copy_gbps;
    if (spec.metric == Metric::tflops)
      return spec.family == "matmul_f64" || spec.family == "matmul_c128" ? c->f64_tflops : c->f32_tflops;
    return 0;
  };
  auto peer_value = [&](const std::string& key, Metric m) -> double {
    if (key.empty()) return nan;
    auto it = peers.find(key);
    if (it == peers.end()) return nan;
    return m == Metric::kops ? it->second / 1e3 : it->second;
  };
  // The peers ran on the CUDA device's GPU: their ceilings are CuPy's copy and that device's FMA peak.
  auto peer_ceiling = [&](const PeerColumn& p, const RowSpec& spec) -> double {
    if (spec.metric == Metric::gbps) {
      auto it = peers.find(p.copy_key);
      return it == peers.end() ? 0 : it->second;
    }
    return cuda && p.on_gpu ? ceiling_for(ceiling_of(cuda->spec), spec) : 0;
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
      for (std::size_t p = 0; p < peer_columns.size(); ++p) {
        double v = peer_value(spec.*(peer_columns[p]->key), spec.metric);
        std::string text;
        if (std::isfinite(v)) {
          text = format(v, spec.metric);
          chart.values[devices.size() + p] = v;
          if (double ceil = peer_ceiling(*peer_columns[p], spec); ceil > 0) {
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
    for (const PeerColumn* p : peer_columns) {
      auto it = peers.find(p->n_key);  // peers.py's size; older peers files ran 2^28
      sizes.push_back(it == peers.end() ? "268435456" : std::to_string(static_cast<long long>(it->second)));
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
    for (const PeerColumn* p : peer_columns) {
      auto it = peers.find(p->copy_key);
      copy.push_back(it == peers.end() || !p->copy_is_own ? "" : format(it->second, Metric::gbps) + " [" + p->copy_source + "]");
    }
    for (auto* v : {&copy, &f32, &f64}) v->resize(ncols);
    rep.rows.emplace_back("ceiling: copy bandwidth, GB/s", copy);
    rep.rows.emplace_back("ceiling: float32 peak, TFLOP/s", f32);
    rep.rows.emplace_back("ceiling: float64 peak, TFLOP/s", f64);
  }
  for (const RowSpec& spec : bandwidth_rows()) add_row(spec);
  // Rows the suite files declared (add_report_row in suite.hpp).
  for (const ReportRow& x : report_rows())
    add_row({x.label, x.family, x.param, metric_of_counter(x.counter), x.cupy, x.torch, x.id, x.numpy});

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
                       MatmulKind{"matmul_c64", "matmul complex64", "cupy_cgemm", "torch_cgemm"},
                       MatmulKind{"matmul_c128", "matmul complex128", "cupy_zgemm", "torch_zgemm"},
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
  add_pool_ratios(rep);
  for (auto& [name, r] : results)
    if (!r.error.empty()) rep.errors.push_back(name + ": " + r.error);
  return rep;
}

}  // namespace porta_bench
