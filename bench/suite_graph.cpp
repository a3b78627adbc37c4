// Graphs (porta::record / Graph::replay): the host cost per add of a replayed graph of 10 small
// adds, beside small_add (one evaluated add a call) and small_native_add (a bare launch loop).
// peers.py's graphs section times the same 10 adds through PyTorch's and CuPy's CUDA graphs.
#include <porta/graph.hpp>

#include "suite_common.hpp"

namespace porta_bench {
namespace {

constexpr std::int64_t kSmall = 1024;
constexpr int kAddsPerGraph = 10;

// Host wall time per add: `replay` (one graph of kAddsPerGraph adds) `ops / 10` times, then one
// wait, the way small_add times its adds; a 0.1 s warm-up first.
void time_replays(benchmark::State& st, const DeviceConfig& c, const std::function<void()>& replay) {
  const int replays = std::max(c.small_ops / kAddsPerGraph, 1);
  for (auto w0 = Clock::now(); Clock::now() - w0 < std::chrono::milliseconds(100);) {
    for (int i = 0; i < 10; ++i) replay();
    porta::synchronize(c.device);
  }
  std::vector<double> us, device_us, submit_us;
  for (auto _ : st) {
    auto t0 = Clock::now();
    auto e0 = porta::Event::record(c.device);
    for (int i = 0; i < replays; ++i) replay();
    auto e1 = porta::Event::record(c.device);
    submit_us.push_back(std::chrono::duration<double>(Clock::now() - t0).count() * 1e6 / (replays * kAddsPerGraph));
    porta::synchronize(c.device);
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    st.SetIterationTime(s);
    us.push_back(s * 1e6 / (replays * kAddsPerGraph));
    device_us.push_back(e1.elapsed_ms(e0) * 1e3 / (replays * kAddsPerGraph));
  }
  st.counters["us_per_op"] = median(us);
  st.counters["kops/s"] = 1e3 / median(us);
  // The device's time per add over the same span: near us_per_op when the device is the limit
  // (back-to-back tiny kernels), below it when the host is.
  st.counters["device_us_per_op"] = median(device_us);
  // The host's time per add to submit the replays (before the wait): below us_per_op when the
  // device is the limit and the launch queue fills, near it when the host is.
  st.counters["submit_us_per_op"] = median(submit_us);
}

// The graph PyTorch's and CuPy's peers record: out = x + y, ten times, into one output.
porta::Graph ten_adds(const Array& x, const Array& y, const Array& out) {
  return porta::record({x, y}, {out}, [&] {
    for (int i = 0; i < kAddsPerGraph; ++i) out.assign(x + y);
  });
}

void register_graphs(const DeviceConfig& c) {
  add_report_row({"replayed graph of 10 small adds (1024 floats), per add", "small_graph", "", "us_per_op",
                  "cupy_graph10_replay_us_per_add", "torch_graph10_replay_us_per_add", "", ""});
  add_report_row({"the same graph replayed on alternating arrays, per add", "small_graph_rebind", "", "us_per_op", "", "",
                  "", ""});
  add(c, nm("small_graph", c, kSmall), [c](benchmark::State& st) {
    Array x = input(c, 0, {kSmall}), y = input(c, 1, {kSmall});
    Array out = porta::empty({kSmall}, DType::float32, c.device).eval();
    porta::Graph g = ten_adds(x, y, out);
    st.SetLabel(g.kind() + ", " + std::to_string(g.operations()) + " operations");
    time_replays(st, c, [&] { g.replay(); });
  }, 3);
  // Every replay names other arrays than the one before: what rebinding costs (CUDA patches the
  // graph's nodes; the launch replays pass the other buffers).
  add(c, nm("small_graph_rebind", c, kSmall), [c](benchmark::State& st) {
    Array x = input(c, 0, {kSmall}), y = input(c, 1, {kSmall}), x2 = input(c, 2, {kSmall}), y2 = input(c, 3, {kSmall});
    Array out = porta::empty({kSmall}, DType::float32, c.device).eval();
    Array out2 = porta::empty({kSmall}, DType::float32, c.device).eval();
    porta::Graph g = ten_adds(x, y, out);
    const std::vector<Array> a_in{x, y}, a_out{out}, b_in{x2, y2}, b_out{out2};
    bool flip = false;
    time_replays(st, c, [&] {
      flip = !flip;
      if (flip) g.replay(b_in, b_out);
      else g.replay(a_in, a_out);
    });
  }, 3);
}

}  // namespace

PORTA_BENCH_SUITE(register_graphs, 75);

}  // namespace porta_bench
