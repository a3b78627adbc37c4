// Graphs (docs/design/threading.md#graphs-record-and-replay): a sequence of porta calls on this
// thread's queue, recorded once and replayed with one launch, as torch.cuda.CUDAGraph and CuPy's
// stream capture do.
//
//   Array x = ..., y = ..., out = porta::empty({n});
//   porta::Graph g = porta::record({x, y}, {out}, [&] { out.assign(porta::exp(x) * y + 1); });
//   g.replay();                   // the same work again, on x, y and out
//   g.replay({x2, y2}, {out2});   // on other arrays of the same shape, dtype and layout
//
// The arrays a graph reads (inputs) and writes (outputs) are named when it is recorded; a replay
// may name others in their place. Every other array the recorded work touched (a weight the
// function read, a temporary it made) is kept by the graph and used again by each replay: an
// array made inside the function and kept after it (the result of `return x + y` captured in a
// variable) is such a static array, rewritten by every replay, as PyTorch's graph outputs are.
//
// record() runs `body` once as usual (the warm-up: kernels are compiled, every result is
// computed), then once more while the device records it without running it. What is evaluated
// inside `body` is recorded; an expression left lazy there is not (evaluate it, or assign it to
// an output). What a graph cannot hold throws InvalidArgument from record(): reading to the host
// (to_vector, item), from_host inside the function, synchronize(), a DevicePool.
//
// CUDA records a CUDA graph (stream capture) and a replay is one cuGraphLaunch; OpenCL replays one
// cl_khr_command_buffer where the driver has it (PoCL), and otherwise, as Kokkos does, the recorded
// launches (the kernels, launch sizes and arguments kept; only buffer arguments rebound), with no
// planning, code generation or cache lookup.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <porta/array.hpp>
#include <porta/device.hpp>

namespace porta {

struct RecordOptions {
  // Run `body` once before recording it (compiles its kernels, so that no compile happens while
  // the device records, and computes its results). Turn it off only for a body that has run
  // already with arrays of the same shapes.
  bool warmup = true;
};

class Graph {
 public:
  Graph() = default;  // holds nothing; valid() is false
  bool valid() const { return state_ != nullptr; }

  // Queues the recorded work again on this thread's queue of device(), on the arrays it was
  // recorded with. Returns without waiting, like any porta call. Any thread may replay; one whose
  // current device (a DeviceScope) is another device gets InvalidArgument.
  void replay() const;
  // The same on other arrays: inputs[i] in place of the i-th recorded input, outputs[j] of the
  // j-th output. Each must have the recorded one's device, dtype, shape and layout (strides and
  // offset in its buffer: a contiguous array matches a contiguous one).
  void replay(const std::vector<Array>& inputs, const std::vector<Array>& outputs) const;

  Device device() const;
  std::size_t inputs() const;
  std::size_t outputs() const;
  std::size_t operations() const;  // kernel launches, copies and fills recorded (CUDA: graph nodes)
  std::string kind() const;        // "CUDA graph", "replay of recorded launches"

  struct State;

 private:
  std::shared_ptr<State> state_;
  friend Graph record(const std::vector<Array>&, const std::vector<Array>&, const std::function<void()>&,
                      RecordOptions);
};

// Records the porta calls `body` makes on this thread's queue of the current device. `inputs`
// and `outputs` must be on that device; outputs must be writable (not broadcast views).
Graph record(const std::vector<Array>& inputs, const std::vector<Array>& outputs, const std::function<void()>& body,
             RecordOptions options = {});

}  // namespace porta
