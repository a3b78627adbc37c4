// The suite's shared pieces (suite_common.hpp): medians, the copy ceiling of each device, the
// shared random inputs, progress lines, benchmark registration, and the reference kernels.
#include "suite_common.hpp"

#include <iostream>
#include <map>
#include <mutex>
#include <regex>

#include "reference_kernels.hpp"

namespace porta_bench {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

namespace {
std::mutex copy_mutex;
std::map<std::string, double> copy_gbps;

}  // namespace

double measured_copy_gbps(const std::string& spec) {
  std::lock_guard lock(copy_mutex);
  auto it = copy_gbps.find(spec);
  return it == copy_gbps.end() ? 0.0 : it->second;
}

void set_copy_gbps(const std::string& spec, double gbps, bool overwrite) {
  std::lock_guard lock(copy_mutex);
  if (overwrite) copy_gbps[spec] = gbps;
  else copy_gbps.emplace(spec, gbps);
}

porta::random::Generator& generator() {
  static porta::random::Generator g(20261129);
  return g;
}

namespace {
std::mutex input_mutex;
std::map<std::string, Array> input_cache;
}  // namespace

Array input(const DeviceConfig& c, int slot, const porta::Shape& shape, DType t) {
  auto& cache = input_cache;
  std::string key = c.spec + "|" + std::to_string(slot) + "|" + porta::to_string(shape) + "|" + std::string(porta::name(t));
  std::lock_guard lock(input_mutex);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  Array a = generator().uniform(shape, -1.0, 1.0, DType::float32, c.device);
  if (t != DType::float32) a = a.astype(t);
  a.eval();
  cache.emplace(key, a);
  return a;
}

void set_rate_counters(benchmark::State& st, const DeviceConfig& c, double seconds, Work w) {
  if (w.bytes > 0) {
    double gbps = w.bytes / seconds / 1e9;
    st.counters["GB/s"] = gbps;
    if (double copy = measured_copy_gbps(c.spec); copy > 0) st.counters["frac_copy"] = gbps / copy;
    st.SetBytesProcessed(static_cast<std::int64_t>(w.bytes * static_cast<double>(st.iterations())));
  }
  if (w.flops > 0) st.counters["GFLOP/s"] = w.flops / seconds / 1e9;
}

// "[k/m] device benchmark (repetition r/R)" on stderr as each repetition starts. Google
// Benchmark calls a body several times in one repetition while it grows the iteration count to
// fill the minimum time, and repeats from the final count: a call starts a new repetition when
// the previous call was of another benchmark or asked for no more iterations than it.
namespace {

class Progress {
 public:
  void expect(int repetitions) {
    std::lock_guard lock(mutex_);
    total_ += std::max(repetitions, 1);
  }
  void start(const std::string& name, std::int64_t iterations, int repetitions) {
    std::lock_guard lock(mutex_);
    auto& seen = seen_[name];
    if (name == last_ && iterations > seen.iterations) {
      seen.iterations = iterations;
      return;
    }
    last_ = name;
    seen.iterations = iterations;
    ++seen.repetition;
    started_ = std::min(started_ + 1, total_);
    // "<family>/<device>/<size>[/<detail>]" shown as "<device>  <family>/<size>[/<detail>]"
    std::string shown = name;
    if (auto a = name.find('/'); a != std::string::npos)
      if (auto b = name.find('/', a + 1); b != std::string::npos)
        shown = name.substr(a + 1, b - a - 1) + "  " + name.substr(0, a) + name.substr(b);
    std::cerr << "porta-bench [" << started_ << "/" << total_ << "] " << shown;
    if (repetitions > 1) std::cerr << " (repetition " << std::min(seen.repetition, repetitions) << "/" << repetitions << ")";
    std::cerr << std::endl;
  }
  static Progress& instance() {
    static Progress p;
    return p;
  }

 private:
  struct Seen {
    std::int64_t iterations = 0;
    int repetition = 0;
  };
  std::mutex mutex_;
  int total_ = 0, started_ = 0;
  std::string last_;
  std::map<std::string, Seen> seen_;
};

// Whether `name` passes porta-bench's --filter (Google Benchmark's rule: a regex searched in
// the name; a leading '-' negates it).
bool selected(const std::string& filter, const std::string& name) {
  if (filter.empty() || filter == "." || filter == "all") return true;
  bool negate = filter[0] == '-';
  std::regex re(negate ? filter.substr(1) : filter);
  return std::regex_search(name, re) != negate;
}

}  // namespace

void add(const DeviceConfig& c, const std::string& name, Body body, int iterations) {
  if (!selected(c.filter, name)) return;
  const bool progress = c.progress;
  const int repetitions = c.repetitions;
  if (progress) Progress::instance().expect(repetitions);
  auto* b = benchmark::RegisterBenchmark(name.c_str(), [body, name, progress, repetitions](benchmark::State& st) {
    if (progress) Progress::instance().start(name, st.max_iterations, repetitions);
    try {
      body(st);
    } catch (const std::exception& e) {
      st.SkipWithError(e.what());
    }
  });
  b->UseManualTime()->Unit(benchmark::kMillisecond);
  if (int it = iterations ? iterations : c.iterations) b->Iterations(it);
  else b->MinTime(c.min_time);
  b->Repetitions(c.repetitions);
  if (c.repetitions > 1) b->ReportAggregatesOnly(true);
}

std::string nm(const std::string& what, const DeviceConfig& c, std::int64_t size, const std::string& extra) {
  std::string s = what + "/" + c.spec + "/" + std::to_string(size);
  if (!extra.empty()) s += "/" + extra;
  return s;
}

// The launch shapes tried for the reference kernels; porta-bench compares with the fastest.
// CPU OpenCL: one element per work-item, in work-groups of several sizes (RawKernel takes an
// explicit local size; PoCL picks its own when porta's generated kernels pass none).
// GPUs: float4 grid-stride loops of 256-thread blocks, 4 to 32 blocks per compute unit.
std::vector<LaunchShape> reference_shapes(const DeviceConfig& c, std::int64_t n) {
  std::vector<LaunchShape> shapes;
  if (vector_reference(c)) {
    const std::uint32_t cu = static_cast<std::uint32_t>(std::max(c.device.compute_units(), 1));
    const std::int64_t needed = (n / 4 + 255) / 256;
    for (std::uint32_t k : {4u, 8u, 16u, 32u}) {
      if (c.quick && k != 8u) continue;
      std::uint32_t g = static_cast<std::uint32_t>(std::min<std::int64_t>(cu * k, std::max<std::int64_t>(needed, 1)));
      shapes.push_back({{g, 1, 1}, {256, 1, 1}, "grid:" + std::to_string(g) + "x256"});
      if (g == needed) break;
    }
  } else {
    for (std::uint32_t b : {64u, 256u, 1024u, 4096u}) {
      if (b > n || n % b != 0) continue;  // exactly n work-items: the kernels have no bounds test
      if (c.quick && b != 1024u) continue;
      auto g = static_cast<std::uint32_t>(n / b);
      shapes.push_back({{g, 1, 1}, {b, 1, 1}, "local:" + std::to_string(b)});
    }
  }
  return shapes;
}

porta::RawKernel reference_kernel(const DeviceConfig& c, const std::string& what) {
  if (c.device.backend() == porta::Backend::cuda)
    return porta::RawKernel(porta::Backend::cuda, reference::kCudaVector, "ref_" + what + "4");
  if (vector_reference(c)) return porta::RawKernel(porta::Backend::opencl, reference::kOpenCLVector, "ref_" + what + "4");
  return porta::RawKernel(porta::Backend::opencl, reference::kOpenCLScalar, "ref_" + what);
}

std::vector<porta::RawArg> with_count(const DeviceConfig& c, std::vector<porta::RawArg> args, std::int64_t n) {
  if (vector_reference(c)) args.emplace_back(static_cast<std::uint64_t>(n / 4));
  return args;
}


namespace {
std::mutex rows_mutex;
std::vector<ReportRow> extra_rows;
}  // namespace

void add_report_row(const ReportRow& row) {
  std::lock_guard lock(rows_mutex);
  for (auto& r : extra_rows)
    if (r.family == row.family && r.param == row.param && r.counter == row.counter) return;
  extra_rows.push_back(row);
}

std::vector<ReportRow> report_rows() {
  std::lock_guard lock(rows_mutex);
  return extra_rows;
}

void release_inputs() {
  std::lock_guard lock(input_mutex);
  input_cache.clear();
}

}  // namespace porta_bench
