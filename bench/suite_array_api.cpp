// The array-API benchmark cases (suite_array_api.hpp). Inputs are random (Philox), never zeros.
// Their rows in porta-bench's table (with the CuPy and PyTorch figures bench/peers/peers.py
// measures for the same work, bytes counted the same way) and, on GPUs, hand-written CUDA /
// OpenCL kernels of the same gather and strided store: the ceiling porta's kernels are held to.
#include "suite_array_api.hpp"

#include <stdexcept>

#include "suite_common.hpp"

namespace porta_bench {

namespace {

porta::Array uniform(const porta::Device& d, std::int64_t n, std::uint64_t seed) {
  return porta::random::Generator(seed).uniform({n}, -1.0, 1.0, porta::DType::float32, d).eval();
}

porta::Array random_indices(const porta::Device& d, std::int64_t n, std::uint64_t seed) {
  porta::Array u = porta::random::Generator(seed).uniform({n}, 0.0, 1.0, porta::DType::float64, d);
  return porta::floor(u * static_cast<double>(n)).astype(porta::DType::int64).eval();
}

// porta-bench's 2-D shape for n elements (as peers.py's): the largest power-of-two square or 1:2
// rectangle.
std::pair<std::int64_t, std::int64_t> rows_cols(std::int64_t n) {
  std::int64_t cols = 1;
  while (cols * cols * 4 <= n) cols *= 2;
  return {std::max<std::int64_t>(n / cols, 1), cols};
}

}  // namespace

void register_array_api(const std::function<void(const ArrayApiCase&)>& add) {
  add({"cumsum_f32", 8, 0, [](const porta::Device& d, std::int64_t n) {
         porta::Array x = uniform(d, n, 19);
         return std::function<porta::Array()>([x] { return porta::cumsum(x).eval(); });
       }});
  // Value read + int64 index read + write, as CuPy's take with random indices.
  add({"take_f32", 16, 0, [](const porta::Device& d, std::int64_t n) {
         porta::Array x = uniform(d, n, 20);
         porta::Array idx = random_indices(d, n, 21);
         return std::function<porta::Array()>([x, idx] { return porta::take(x, idx).eval(); });
       }});
  // Value and mask read, about half the values written.
  add({"compress_f32", 7, 0, [](const porta::Device& d, std::int64_t n) {
         porta::Array x = uniform(d, n, 22);
         porta::Array mask = (uniform(d, n, 23) > 0.0f).eval();
         return std::function<porta::Array()>([x, mask] { return porta::compress(mask, x).eval(); });
       }});
  // Sorts: keys/s (Gkeys/s) beside GB/s of one read and one write.
  add({"sort_f32", 8, 1, [](const porta::Device& d, std::int64_t n) {
         porta::Array x = uniform(d, n, 24);
         return std::function<porta::Array()>([x] { return porta::sort(x).eval(); });
       }});
  add({"sort_i32", 8, 1, [](const porta::Device& d, std::int64_t n) {
         porta::Array x = (uniform(d, n, 25) * 1e9f).astype(porta::DType::int32).eval();
         return std::function<porta::Array()>([x] { return porta::sort(x).eval(); });
       }});
  // Every bit of the key random (the int32 row's keys come from float products, whose low byte
  // takes a few values): four passes that each move every key.
  add({"sort_u32", 8, 1, [](const porta::Device& d, std::int64_t n) {
         porta::Array x = porta::random::Generator(28).integers({n}, 0, std::uint64_t{1} << 32, porta::DType::uint32, d).eval();
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
  // y (rows x cols) written into the transpose of a (cols x rows): a.T = y.
  add({"assign_transposed_f32", 8, 0, [](const porta::Device& d, std::int64_t n) {
         auto [rows, cols] = rows_cols(n);
         porta::Array y = uniform(d, rows * cols, 28).reshape({rows, cols});
         porta::Array a = porta::zeros({cols, rows}, porta::DType::float32, d).eval();
         porta::Array view = a.transpose();
         return std::function<porta::Array()>([view, y] { return view.assign(y); });
       }});
}

namespace {

// Hand-written references of take_f32 and assign_strided_f32 (grid-stride loops, no bounds test
// of the indices) and random reads alone: what the hardware gives for the same accesses, so that
// a row short of its target can be told from a row at the ceiling.
constexpr const char* kCudaRefs = R"CU(
typedef unsigned long long u64;
extern "C" __global__ void ref_take(const float* __restrict__ x, const long long* __restrict__ idx, float* __restrict__ out,
                                    u64 n) {
  for (u64 b = (blockIdx.x * (u64)blockDim.x + threadIdx.x) * 4; b < n; b += (u64)gridDim.x * blockDim.x * 4) {
    if (b + 4 <= n) {
      const longlong2 i0 = *(const longlong2*)(idx + b), i1 = *(const longlong2*)(idx + b + 2);
      *(float4*)(out + b) = make_float4(x[i0.x], x[i0.y], x[i1.x], x[i1.y]);
    } else {
      for (u64 e = b; e < n; ++e) out[e] = x[idx[e]];
    }
  }
}
extern "C" __global__ void ref_store2(const float* __restrict__ y, float* __restrict__ a, u64 n) {
  // Element e a thread, a grid apart: each load of y and store of a coalesced across the warp.
  const u64 step = (u64)gridDim.x * blockDim.x;
  for (u64 e = blockIdx.x * (u64)blockDim.x + threadIdx.x; e < n; e += step) a[2 * e] = y[e];
}
// Random 4-byte reads without an index array (the gather's sector traffic alone): four a thread
// in flight, positions from a multiplicative hash, a sum a thread written so that nothing is dead.
extern "C" __global__ void ref_random_read(const float* __restrict__ x, float* __restrict__ out, u64 n) {
  const u64 step = (u64)gridDim.x * blockDim.x, gid = blockIdx.x * (u64)blockDim.x + threadIdx.x;
  float s = 0;
  for (u64 b = gid; b < n; b += 4 * step) {
    float v[4];
    for (int u = 0; u < 4; ++u) {
      const u64 e = b + u * step;
      v[u] = e < n ? x[__umul64hi((e + 1) * 0x9E3779B97F4A7C15ull, n)] : 0.0f;
    }
    s += v[0] + v[1] + v[2] + v[3];
  }
  out[gid] = s;
}
)CU";

constexpr const char* kOpenCLRefs = R"CL(
__kernel void ref_take(__global const float* x, __global const long* idx, __global float* out, const ulong n) {
  for (ulong b = get_global_id(0) * 4; b < n; b += get_global_size(0) * 4) {
    if (b + 4 <= n) {
      const long4 i = vload4(0, idx + b);
      vstore4((float4)(x[i.x], x[i.y], x[i.z], x[i.w]), 0, out + b);
    } else {
      for (ulong e = b; e < n; ++e) out[e] = x[idx[e]];
    }
  }
}
__kernel void ref_store2(__global const float* y, __global float* a, const ulong n) {
  for (ulong e = get_global_id(0); e < n; e += get_global_size(0)) a[2 * e] = y[e];
}
__kernel void ref_random_read(__global const float* x, __global float* out, const ulong n) {
  const ulong step = get_global_size(0), gid = get_global_id(0);
  float s = 0;
  for (ulong b = gid; b < n; b += 4 * step) {
    float v[4];
    for (int u = 0; u < 4; ++u) {
      const ulong e = b + u * step;
      v[u] = e < n ? x[mul_hi((e + 1) * 0x9E3779B97F4A7C15ul, n)] : 0.0f;
    }
    s += v[0] + v[1] + v[2] + v[3];
  }
  out[gid] = s;
}
)CL";

porta::RawKernel array_api_reference(const DeviceConfig& c, const std::string& what) {
  if (c.device.backend() == porta::Backend::cuda) return porta::RawKernel(porta::Backend::cuda, kCudaRefs, what);
  return porta::RawKernel(porta::Backend::opencl, kOpenCLRefs, what);
}

void register_array_api_references(const DeviceConfig& c) {
  // GPUs (CUDA, OpenCL GPUs): the grid-stride references; the CPU devices have no such row.
  if (!c.device.compiles_at_runtime() || !vector_reference(c)) return;
  const std::int64_t n = c.n;
  const double dn = static_cast<double>(n);
  const auto cu = static_cast<std::uint32_t>(std::max(c.device.compute_units(), 1));
  const std::uint32_t needed = static_cast<std::uint32_t>(std::max<std::int64_t>((n / 4 + 255) / 256, 1));
  const porta::Dim3 grid{std::min(cu * 16, needed), 1, 1}, block{256, 1, 1};
  const std::string shape = "grid:" + std::to_string(grid.x) + "x256";
  add(c, nm("ref_take_f32", c, n, shape), [c, n, dn, grid, block](benchmark::State& st) {
    Array x = uniform(c.device, n, 20), idx = random_indices(c.device, n, 21);
    Array out = porta::empty({n}, DType::float32, c.device).eval();
    auto k = array_api_reference(c, "ref_take");
    time_on_device(st, c, {16 * dn, 0}, [&] {
      k.launch(grid, block, {x, idx, out, static_cast<std::uint64_t>(n)});
      return 0;
    });
    if (!(porta::max(porta::abs(out - porta::take(x, idx))).item<float>() == 0.0f))
      throw std::runtime_error("the hand-written gather disagrees with porta::take");
  });
  add(c, nm("ref_random_read_f32", c, n, shape), [c, n, dn, grid, block](benchmark::State& st) {
    Array x = uniform(c.device, n, 20), out = porta::empty({n}, DType::float32, c.device).eval();
    auto k = array_api_reference(c, "ref_random_read");
    time_on_device(st, c, {4 * dn, 0}, [&] {
      k.launch(grid, block, {x, out, static_cast<std::uint64_t>(n)});
      return 0;
    });
  });
  add(c, nm("ref_assign_strided_f32", c, n, shape), [c, n, dn, grid, block](benchmark::State& st) {
    Array y = uniform(c.device, n, 27), a = porta::zeros({2 * n}, DType::float32, c.device).eval();
    auto k = array_api_reference(c, "ref_store2");
    time_on_device(st, c, {8 * dn, 0}, [&] {
      k.launch(grid, block, {y, a, static_cast<std::uint64_t>(n)});
      return 0;
    });
    if (!(porta::max(porta::abs(a.slice({porta::every(2)}) - y)).item<float>() == 0.0f))
      throw std::runtime_error("the hand-written strided store wrote something else");
  });
}

struct RowOf {
  const char* family;
  const char* label;
  const char* counter;
  const char* cupy;
  const char* torch;
  const char* numpy;
};

// The table's rows (and the chart's), the peers' keys of the same work (bench/peers/peers.py).
constexpr RowOf kRows[] = {
    {"cumsum_f32", "cumsum float32 (read + write)", "GB/s", "cupy_cumsum_GBps", "torch_cumsum_GBps", "numpy_cumsum_GBps"},
    {"take_f32", "take float32, random int64 indices (value + index read + write)", "GB/s", "cupy_take_GBps", "torch_take_GBps",
     "numpy_take_GBps"},
    {"ref_take_f32", "hand-written gather, random int64 indices", "GB/s", "", "", ""},
    {"ref_random_read_f32", "hand-written random 4-byte reads, no index array (4 B an element)", "GB/s", "", "", ""},
    {"compress_f32", "x[mask] float32, half true (value + mask read + write)", "GB/s", "cupy_compress_GBps",
     "torch_compress_GBps", "numpy_compress_GBps"},
    {"assign_strided_f32", "x[::2] = y float32 (read + write)", "GB/s", "cupy_assign_strided_GBps", "torch_assign_strided_GBps",
     "numpy_assign_strided_GBps"},
    {"ref_assign_strided_f32", "hand-written stride-2 store", "GB/s", "", "", ""},
    {"assign_transposed_f32", "x.T = y float32 (read + write)", "GB/s", "cupy_assign_transposed_GBps",
     "torch_assign_transposed_GBps", "numpy_assign_transposed_GBps"},
    {"sort_f32", "sort float32", "Gkeys/s", "cupy_sort_f32_Gkeys", "torch_sort_f32_Gkeys", "numpy_sort_f32_Gkeys"},
    {"sort_i32", "sort int32", "Gkeys/s", "cupy_sort_i32_Gkeys", "torch_sort_i32_Gkeys", "numpy_sort_i32_Gkeys"},
    {"sort_u32", "sort uint32 (every bit random)", "Gkeys/s", "cupy_sort_u32_Gkeys", "torch_sort_u32_Gkeys", "numpy_sort_u32_Gkeys"},
    {"argsort_f32", "argsort float32", "Gkeys/s", "cupy_argsort_f32_Gkeys", "torch_argsort_f32_Gkeys", "numpy_argsort_f32_Gkeys"},
};

}  // namespace

// Each case as a porta-bench benchmark of every device, timed with device events, and the
// table's rows.
void register_array_api_rows(const DeviceConfig& c) {
  for (const RowOf& r : kRows) add_report_row({r.label, r.family, "", r.counter, r.cupy, r.torch, r.numpy, ""});
  register_array_api([&c](const ArrayApiCase& k) {
    add(c, nm(k.family, c, c.n), [c, k](benchmark::State& st) {
      auto op = k.setup(c.device, c.n);
      const double dn = static_cast<double>(c.n);
      time_on_device(st, c, {k.bytes_per_element * dn, k.items_per_element * dn}, op);
      if (k.items_per_element > 0) st.counters["Gkeys/s"] = st.counters["GFLOP/s"];
    });
  });
  register_array_api_references(c);
}
PORTA_BENCH_SUITE(register_array_api_rows, 85);

}  // namespace porta_bench
