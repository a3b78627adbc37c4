// Reductions (sum, axis sums, argmax) and the write-only rows: fill, the ceiling of a
// generator, and random::uniform / normal.
#include "suite_common.hpp"

namespace porta_bench {
namespace {

void register_reductions(const DeviceConfig& c) {
  const std::int64_t n = c.n, rows = c.rows, cols = c.cols;
  const double dn = static_cast<double>(n), dm = static_cast<double>(rows * cols), f = 4.0;
  add(c, nm("sum", c, n), [c, n, dn, f](benchmark::State& st) {
    Array x = input(c, 0, {n});
    time_on_device(st, c, {f * dn, dn}, [&] { return porta::sum(x).eval(); });
  });
  add(c, nm("sum_rows", c, rows * cols, std::to_string(rows) + "x" + std::to_string(cols)),
      [c, rows, cols, dm, f](benchmark::State& st) {
        Array m = input(c, 0, {rows, cols});
        time_on_device(st, c, {f * dm + f * static_cast<double>(rows), dm}, [&] { return porta::sum(m, 1).eval(); });
      });
  add(c, nm("sum_cols", c, rows * cols, std::to_string(rows) + "x" + std::to_string(cols)),
      [c, rows, cols, dm, f](benchmark::State& st) {
        Array m = input(c, 0, {rows, cols});
        time_on_device(st, c, {f * dm + f * static_cast<double>(cols), dm}, [&] { return porta::sum(m, 0).eval(); });
      });
  // argmax reads every element once and writes one int64.
  add(c, nm("argmax", c, n), [c, n, dn, f](benchmark::State& st) {
    Array x = input(c, 0, {n});
    time_on_device(st, c, {f * dn, dn}, [&] { return porta::argmax(x).eval(); });
  });
  // Write-only: full(...) evaluated into a new buffer, as the random rows are. The ceiling of a
  // generator (a kernel that only writes), which copy (reads as much as it writes) is not.
  add(c, nm("fill", c, n), [c, n, dn, f](benchmark::State& st) {
    time_on_device(st, c, {f * dn, 0}, [&] { return porta::full({n}, 1.5, DType::float32, c.device).eval(); });
  });
  add(c, nm("uniform", c, n), [c, n, dn, f](benchmark::State& st) {
    time_on_device(st, c, {f * dn, 0}, [&] {
      Array u = generator().uniform({n}, 0.0, 1.0, DType::float32, c.device);
      u.eval();
      return u;
    });
  });
  add(c, nm("normal", c, n), [c, n, dn, f](benchmark::State& st) {
    time_on_device(st, c, {f * dn, 0}, [&] {
      Array z = generator().normal({n}, 0.0, 1.0, DType::float32, c.device);
      z.eval();
      return z;
    });
  });
}


}  // namespace

PORTA_BENCH_SUITE(register_reductions, 50);

}  // namespace porta_bench
