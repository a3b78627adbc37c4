// Random numbers in generated elementwise kernels: the Philox blocks, uniform and normal values
// of a run of lanes (emit_random_blocks), and the layouts and loops of the plans that draw them
// (codegen/random.hpp).
#include "codegen/random.hpp"

#include <algorithm>

#include "porta_backend/strings.hpp"

namespace porta::detail {

namespace {
bool plan_has(const ElementwisePlan& plan, Op op) {
  return std::any_of(plan.code.begin(), plan.code.end(), [op](const auto& in) { return in.op == op; });
}
}  // namespace

bool random_launch_bounded(const ElementwisePlan& plan, const DeviceInfo& info) {
  return info.dialect == Dialect::cuda && info.launch.grid_stride && info.launch.group_size == 256 && plan_uses_random(plan) &&
         !plan_has(plan, Op::normal) && plan.output.dtype == DType::float32 && !plan_uses_fp64(plan);
}

std::string random_vector_loop(const std::string& idx, int V, const std::string& body) {
  // Two vectors an iteration (t and t + gsz, each store still coalesced), so two independent
  // Philox blocks are in flight per thread and the loop's own work (index, bounds, addresses, on
  // the integer pipes Philox's multiplies also use) is paid once for both. random::uniform wrote
  // 0.897x of fill with one vector an iteration on the H200 (cuda:0).
  auto at = [&](const std::string& t) { return cat("    {\n    const ", idx, " e = (", t, ") * ", V, ";\n", body, "    }\n"); };
  return cat("  ", idx, " t = gid;\n  for (; t + gsz < nv; t += 2 * gsz) {\n", at("t"), at("t + gsz"), "  }\n  if (t < nv) {\n", at("t"),
             "  }\n");
}

std::string random_work_item(const ElementwisePlan& plan, const DialectText& d, const std::string& idx, int V, int sub,
                             const VectorBody& body) {
  // A whole work-item runs the Philox blocks of all its vectors at once, then each vector's code
  // on its share of the words; the last, partial work-item runs each vector on its own (blocks
  // of one vector, or the tail code).
  const int W = V * sub;
  RandomWords words;
  const std::string blocks = emit_random_blocks(plan, "e0", W, words, true);
  std::string s = cat("  const ", idx, " e0 = (", idx, ")", d.global_id(), " * ", W, ";\n  if (e0 + ", W, " <= n) {\n", blocks);
  for (int q = 0; q < sub; ++q) {
    const RandomWords mine(words.begin() + q * V, words.begin() + (q + 1) * V);
    s += cat("  {\n    const ", idx, " e = e0 + ", q * V, ";\n", body(false, &mine), "  }\n");
  }
  s += cat("  } else {\n  for (int q = 0; q < ", sub, "; ++q) {\n    const ", idx, " e = e0 + q * ", V, ";\n    if (e + ", V,
           " <= n) {\n", body(false, nullptr), "    } else if (e < n) {\n", body(true, nullptr), "    }\n  }\n  }\n}\n");
  return s;
}

std::string emit_random_blocks(const ElementwisePlan& plan, const std::string& first, int lanes,
                               std::vector<std::vector<std::string>>& words, bool vector_blocks) {
  std::string out;
  words.assign(static_cast<std::size_t>(lanes), std::vector<std::string>(plan.code.size()));
  for (std::size_t j = 0; j < plan.code.size(); ++j) {
    const Instr& in = plan.code[j];
    if (in.op != Op::uniform && in.op != Op::normal) continue;
    const bool f64 = in.dtype == DType::float64;
    const int per = f64 ? 2 : 4;  // elements one Philox call serves (base/philox.hpp)
    const std::string seed = cat("(porta_u64)s", in.arg), stream = cat("(porta_u64)s", in.arg + 1);
    for (int ln = 0; ln < lanes; ++ln) {
      std::string w;
      if (lanes % per != 0) {  // lanes straddle counters: each lane draws on its own
        w = cat(in.op == Op::uniform ? "porta_uniform_" : "porta_normal_", (f64 ? "f64" : "f32"), "((porta_u64)(", first, ") + ", ln, "u, ",
                stream, ", ", seed, ")");
      } else if (const int blocks = lanes / per; vector_blocks && (blocks == 2 || blocks == 4 || blocks == 8 || blocks == 16)) {
        const std::string r = cat("r", j);
        if (ln == 0)
          out += cat("    const porta_u32x4_", blocks, " ", r, " = porta_philox_", blocks, "((porta_u64)(", first, ") / ", per, "u, ", stream,
                     ", ", seed, ");\n");
        const int k = ln % per;
        const char lane = "0123456789abcdef"[ln / per];  // OpenCL vector component (blocks <= 16)
        auto x = [&](int word) { return cat(r, ".x", word, ".s", lane); };
        if (in.op == Op::uniform) {
          w = f64 ? cat("porta_u01_f64(", x(2 * k), ", ", x(2 * k + 1), ")") : cat("porta_u01_f32(", x(k), ")");
        } else {
          // Box-Muller on vectors of the blocks' pairs: OpenCL's vector log, sqrt and sincos
          // (scalar calls per lane ran PoCL's normal at 0.23 GB/s). The uniforms are the exact
          // values of porta_u01_*; lane (block b, word k) takes pair k / 2, cos or sin by k % 2.
          const std::string ft = cat(f64 ? "double" : "float", blocks);
          auto u01 = [&](const std::string& a) { return cat("(convert_", ft, "(", a, " >> 8) * 5.9604644775390625e-08f)"); };
          auto u01d = [&](const std::string& a, const std::string& b) {
            return cat("((convert_", ft, "(", a, " >> 5) * 67108864.0 + convert_", ft, "(", b, " >> 6)) * 1.1102230246251565e-16)");
          };
          if (ln == 0) {
            for (int pair = 0; pair < (f64 ? 1 : 2); ++pair) {
              const std::string u1 = f64 ? u01d(r + ".x0", r + ".x1") : u01(cat(r, ".x", 2 * pair));
              const std::string u2 = f64 ? u01d(r + ".x2", r + ".x3") : u01(cat(r, ".x", 2 * pair + 1));
              const std::string one = f64 ? "1.0" : "1.0f", two = f64 ? "-2.0" : "-2.0f";
              const std::string tau = f64 ? "6.283185307179586476925286766559" : "6.2831853071795864769f";
              const std::string rr = cat(r, "_r", pair), tt = cat(r, "_t", pair);
              out += cat("    const ", ft, " ", rr, " = sqrt(", two, " * log(", one, " - ", u1, ")), ", tt, " = ", tau, " * ", u2, ";\n");
              // sincos: the same bits as cos and sin apart on PoCL, at 1.4x their speed.
              out += cat("    ", ft, " ", r, "_k", pair, ";\n    const ", ft, " ", r, "_q", pair, " = sincos(", tt, ", &", r, "_k", pair, ");\n");
              out += cat("    const ", ft, " ", r, "_c", pair, " = ", rr, " * ", r, "_k", pair, ", ", r, "_s", pair, " = ", rr, " * ", r, "_q", pair,
                         ";\n");
            }
          }
          w = cat(r, (k & 1) ? "_s" : "_c", f64 ? 0 : k >> 1, ".s", lane);
        }
      } else {
        const std::string r = cat("r", j, "_", ln / per);
        if (ln % per == 0) {
          out += cat("    const porta_u32x4 ", r, " = porta_philox((porta_u64)(", first, ") / ", per, "u + ", ln / per, "u, ", stream,
                     ", ", seed, ");\n");
          // float32 normal: each pair's radius once and its sine and cosine from one sincos, where
          // each lane computed its own radius and sin or cos (the same bits: 2^28 values on
          // cuda:0 and opencl:1; 2064 against 1817 GB/s on cuda:0, 2166 against 1905 on
          // opencl:1, scripts/dev/normal_probe.cpp, H200, 2026-12-04).
          if (in.op == Op::normal && !f64)
            for (int pair = 0; pair < 2; ++pair)
              out += cat("    float ", r, "_c", pair, ", ", r, "_s", pair, ";\n    porta_bm_pair_f32(", r, ".x", 2 * pair, ", ", r, ".x",
                         2 * pair + 1, ", &", r, "_c", pair, ", &", r, "_s", pair, ");\n");
        }
        const int k = ln % per;
        if (in.op == Op::uniform)
          w = f64 ? cat("porta_u01_f64(", r, ".x", 2 * k, ", ", r, ".x", 2 * k + 1, ")") : cat("porta_u01_f32(", r, ".x", k, ")");
        else
          w = f64 ? cat("porta_bm_f64(", r, ", ", k, ")") : cat(r, (k & 1) ? "_s" : "_c", k >> 1);
      }
      if (in.dtype == DType::float16) w = cat("porta_round_h(", w, ")");
      if (in.dtype == DType::bfloat16) w = cat("porta_round_bf(", w, ")");
      words[static_cast<std::size_t>(ln)][j] = w;
    }
  }
  return out;
}

bool plan_uses_random(const ElementwisePlan& plan) { return plan_has(plan, Op::uniform) || plan_has(plan, Op::normal); }

}  // namespace porta::detail
