// The array-API benchmark cases (suite_array_api.hpp). Inputs are random (Philox), never zeros.
#include "suite_array_api.hpp"

#include "suite_common.hpp"

namespace porta_bench {

namespace {

porta::Array uniform(const porta::Device& d, std::int64_t n, std::uint64_t seed) {
  return porta::random::Generator(seed).uniform({n}, -1.0, 1.0, porta::DType::float32, d).eval();
}

}  // namespace

void register_array_api(const std::function<void(const ArrayApiCase&)>& add) {
  add({"cumsum_f32", 8, 1, [](const porta::Device& d, std::int64_t n) {
         porta::Array x = uniform(d, n, 19);
         return std::function<porta::Array()>([x] { return porta::cumsum(x).eval(); });
       }});
  // Value read + int64 index read + write, as CuPy's take with random indices.
  add({"take_f32", 16, 1, [](const porta::Device& d, std::int64_t n) {
         porta::Array x = uniform(d, n, 20);
         porta::Array u = porta::random::Generator(21).uniform({n}, 0.0, 1.0, porta::DType::float64, d);
         porta::Array idx = porta::floor(u * static_cast<double>(n)).astype(porta::DType::int64).eval();
         return std::function<porta::Array()>([x, idx] { return porta::take(x, idx).eval(); });
       }});
  // Value and mask read, about half the values written.
  add({"compress_f32", 7, 1, [](const porta::Device& d, std::int64_t n) {
         porta::Array x = uniform(d, n, 22);
         porta::Array mask = (uniform(d, n, 23) > 0.0f).eval();
         return std::function<porta::Array()>([x, mask] { return porta::compress(mask, x).eval(); });
       }});
  add({"sort_f32", 8, 1, [](const porta::Device& d, std::int64_t n) {
         porta::Array x = uniform(d, n, 24);
         return std::function<porta::Array()>([x] { return porta::sort(x).eval(); });
       }});
  add({"sort_i32", 8, 1, [](const porta::Device& d, std::int64_t n) {
         porta::Array x = (uniform(d, n, 25) * 1e9f).astype(porta::DType::int32).eval();
         return std::function<porta::Array()>([x] { return porta::sort(x).eval(); });
       }});
  add({"argsort_f32", 12, 1, [](const porta::Device& d, std::int64_t n) {
         porta::Array x = uniform(d, n, 26);
         return std::function<porta::Array()>([x] { return porta::argsort(x).eval(); });
       }});
  // y written into every second element of a buffer twice its size: a[::2] = y.
  add({"assign_strided_f32", 8, 0, [](const porta::Device& d, std::int64_t n) {
         porta::Array y = uniform(d, n, 27);
         porta::Array a = porta::zeros({2 * n}, porta::DType::float32, d).eval();
         porta::Array view = a.slice({porta::every(2)});
         return std::function<porta::Array()>([view, y] { return view.assign(y); });
       }});
}

// Each case as a porta-bench benchmark of every device, timed with device events.
void register_array_api_rows(const DeviceConfig& c) {
  register_array_api([&c](const ArrayApiCase& k) {
    add(c, nm(k.family, c, c.n), [c, k](benchmark::State& st) {
      auto op = k.setup(c.device, c.n);
      const double dn = static_cast<double>(c.n);
      time_on_device(st, c, {k.bytes_per_element * dn, k.items_per_element * dn}, op);
    });
  });
}
PORTA_BENCH_SUITE(register_array_api_rows, 85);

}  // namespace porta_bench
