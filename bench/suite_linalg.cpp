// porta::linalg's decompositions (issue 40): solve, cholesky, qr, eigh and svd of one n x n matrix
// (4096 on GPUs, 512 elsewhere; 64 with --porta_quick) in float32 and float64, and the same five
// of batches of small matrices (10,000 of 16 x 16 and 64 x 64 on GPUs, 1,000 of 16 x 16
// elsewhere). GFLOP/s use LAPACK's operation counts (LAWN 41 / Golub and Van Loan): solve
// 2/3 n^3 + 2 n^2, cholesky 1/3 n^3, qr (R and the reduced Q) 8/3 n^3, eigh (with vectors) 9 n^3,
// svd (with vectors) 22 n^3; the peers' rows (bench/peers/peers.py: cupy.linalg, torch.linalg,
// numpy.linalg) time the same calls on the same shapes.
#include <porta/linalg.hpp>

#include "suite_common.hpp"

namespace porta_bench {
namespace {

// The inputs, the same numbers as bench/peers/peers.py's `linalg_input` makes for NumPy, CuPy and
// PyTorch (eigh's and the SVD's time depends on the matrix by 10% from one random draw to the
// next): entry e of the flat C-order stack is a 32-bit integer hash of e and `slot` mapped onto
// [-1, 1) in float64, then rounded to t. Made on the host for each row that takes it.
Array hashed_input(const DeviceConfig& c, int slot, const porta::Shape& shape, DType t) {
  std::int64_t count = 1;
  for (std::int64_t d : shape) count *= d;
  std::vector<double> v(static_cast<std::size_t>(count));
  const std::uint32_t salt = static_cast<std::uint32_t>(slot) * 0x85EBCA77u;
  for (std::int64_t e = 0; e < count; ++e) {
    std::uint32_t h = static_cast<std::uint32_t>(e) * 0x9E3779B1u + salt;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    h *= 0x297A2D39u;
    h ^= h >> 15;
    v[static_cast<std::size_t>(e)] = static_cast<double>(h) * (2.0 / 4294967296.0) - 1.0;
  }
  return porta::from_host(v, shape, c.device).astype(t).eval();
}

// A well-conditioned input: the hashed a plus a^T plus 2 n I in t (symmetric positive definite).
Array spd_input(const DeviceConfig& c, const porta::Shape& shape, DType t) {
  Array a = hashed_input(c, 0, shape, t);
  const std::int64_t n = shape.back();
  return porta::add(porta::add(a, porta::linalg::matrix_transpose(a)),
                    porta::multiply(porta::eye(n, t, c.device), 2.0 * static_cast<double>(n)))
      .eval();
}

// GFLOP/s as TFLOP/s, the unit of the matmul rows the table and chart put these beside.
void to_tflops(benchmark::State& st) {
  st.counters["TFLOP/s"] = st.counters["GFLOP/s"] / 1e3;
  st.counters.erase("GFLOP/s");
}

// The table's row of a family at one size, with the peers' keys of the same call on the same shape
// (bench/peers/peers.py: <lib>_<family>_<param>_TFLOPs).
void report(const std::string& family, const std::string& label, std::int64_t param) {
  const std::string p = std::to_string(param), key = family + "_" + p + "_TFLOPs";
  add_report_row({label, family, p, "TFLOP/s", "cupy_" + key, "torch_" + key, "numpy_" + key, family + "/" + p});
}

void register_linalg(const DeviceConfig& c) {
  namespace la = porta::linalg;
  const std::int64_t n = c.linalg;
  const double dn = static_cast<double>(n), n3 = dn * dn * dn;
  for (auto [suffix, t] : {std::pair<const char*, DType>{"f32", DType::float32}, {"f64", DType::float64}}) {
    if (!c.device.supports(t) || c.device.solver_path().empty()) continue;
    const std::string s = suffix;
    const DType dt = t;
    const std::string type = dt == DType::float32 ? "float32" : "float64";
    for (const char* op : {"solve", "cholesky", "qr", "eigh", "svd"})
      report(std::string("linalg_") + op + "_" + s, std::string("linalg.") + op + " " + type + " " + std::to_string(n), n);
    add(c, nm("linalg_solve_" + s, c, n), [c, n, dt, w = Work{0, 2.0 / 3 * n3 + 2 * dn * dn}](benchmark::State& st) {
      Array a = spd_input(c, {n, n}, dt), b = hashed_input(c, 1, {n, 1}, dt);
      time_on_device(st, c, w, [&] { return la::solve(a, b); });
      to_tflops(st);
    });
    add(c, nm("linalg_cholesky_" + s, c, n), [c, n, dt, w = Work{0, n3 / 3}](benchmark::State& st) {
      Array a = spd_input(c, {n, n}, dt);
      time_on_device(st, c, w, [&] { return la::cholesky(a); });
      to_tflops(st);
    });
    add(c, nm("linalg_qr_" + s, c, n), [c, n, dt, w = Work{0, 8.0 / 3 * n3}](benchmark::State& st) {
      Array a = hashed_input(c, 0, {n, n}, dt);
      time_on_device(st, c, w, [&] { return la::qr(a).Q; });
      to_tflops(st);
    });
    add(c, nm("linalg_eigh_" + s, c, n), [c, n, dt, w = Work{0, 9 * n3}](benchmark::State& st) {
      Array a = spd_input(c, {n, n}, dt);
      time_on_device(st, c, w, [&] { return la::eigh(a).eigenvectors; });
      to_tflops(st);
    });
    add(c, nm("linalg_svd_" + s, c, n), [c, n, dt, w = Work{0, 22 * n3}](benchmark::State& st) {
      Array a = hashed_input(c, 0, {n, n}, dt);
      time_on_device(st, c, w, [&] { return la::svd(a, false).U; });
      to_tflops(st);
    });
    const std::int64_t batch = c.quick ? 100 : c.gpu ? 10000 : 1000;
    for (std::int64_t k : c.gpu ? std::vector<std::int64_t>{16, 64} : std::vector<std::int64_t>{16}) {
      const double dk = static_cast<double>(k), b = static_cast<double>(batch);
      const std::string shape = std::to_string(batch) + "x" + std::to_string(k) + "x" + std::to_string(k);
      // Each op's LAPACK count for one k x k matrix and its call on the stack: a (general), spd, rhs.
      const struct {
        const char* op;
        double flops;
        Array (*call)(const Array& a, const Array& spd, const Array& rhs);
      } ops[] = {
          {"solve", 2.0 / 3 * dk * dk * dk + 2 * dk * dk, [](const Array&, const Array& p, const Array& r) { return la::solve(p, r); }},
          {"cholesky", dk * dk * dk / 3, [](const Array&, const Array& p, const Array&) { return la::cholesky(p); }},
          {"qr", 8.0 / 3 * dk * dk * dk, [](const Array& a, const Array&, const Array&) { return la::qr(a).Q; }},
          {"eigh", 9 * dk * dk * dk, [](const Array&, const Array& p, const Array&) { return la::eigh(p).eigenvectors; }},
          {"svd", 22 * dk * dk * dk, [](const Array& a, const Array&, const Array&) { return la::svd(a, false).U; }},
      };
      for (const auto& o : ops) {
        const std::string family = std::string("linalg_") + o.op + "_batched_" + s;
        report(family, std::string("linalg.") + o.op + " " + type + " " + shape, batch * k * k);
        add(c, nm(family, c, batch * k * k, shape), [c, batch, k, dt, op = o.op, call = o.call, w = Work{0, b * o.flops}](benchmark::State& st) {
          const std::string name = op;
          const bool general = name == "qr" || name == "svd";
          Array a = general ? hashed_input(c, 0, {batch, k, k}, dt) : Array();
          Array spd = general ? Array() : spd_input(c, {batch, k, k}, dt);
          Array rhs = name == "solve" ? hashed_input(c, 1, {batch, k, 1}, dt) : Array();
          time_on_device(st, c, w, [&] { return call(a, spd, rhs); });
          to_tflops(st);
        });
      }
    }
  }
}

}  // namespace

PORTA_BENCH_SUITE(register_linalg, 65);

}  // namespace porta_bench
