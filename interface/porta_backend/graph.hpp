// Graphs, as the backends see them (docs/design/threading.md#graphs-record-and-replay): between
// QueueImpl::begin_capture() and end_capture() a queue records the work queued on it instead of
// running it; the GraphImpl that end_capture() returns queues all of it again with one call, the
// memory named rebindable at the end replaced by other memory of the same size.
//
// CUDA records into a CUDA graph (stream capture). Backends without graphs record each call as a
// step (LaunchReplay below): the kernel, its launch size and its arguments as they were built,
// so a replay makes the driver calls again without the core planning or generating anything.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <porta/error.hpp>

#include "porta_backend/backend.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {

// The message every backend gives for work that a graph cannot hold.
inline std::string refusal(std::string_view device, std::string_view what) {
  return cat("porta::record on ", device, ": ", what,
             " cannot be part of a graph (a graph holds device work only; the host cannot take part between its "
             "launches). Do it before record() or after replay(): make inputs with from_host() and read results "
             "with to_vector() outside the recorded function");
}

// Replaces a recorded handle with the one bound for this launch of a graph.
class HandleMap {
 public:
  HandleMap(std::span<const MemoryRange> recorded, std::span<const Handle> bound) : recorded_(recorded), bound_(bound) {}
  Handle operator()(Handle h) const {
    for (std::size_t i = 0; i < recorded_.size(); ++i)
      if (recorded_[i].handle == h) return bound_[i];
    return h;
  }
  void rebind(ElementwisePlan& plan) const {
    for (auto& in : plan.inputs) in.handle = (*this)(in.handle);
    plan.output.handle = (*this)(plan.output.handle);
  }
  void rebind(ReductionPlan& plan) const {
    rebind(plan.input);
    plan.out = (*this)(plan.out);
  }
  void rebind(MatmulArgs& g) const {
    g.a = (*this)(g.a);
    g.b = (*this)(g.b);
    g.c = (*this)(g.c);
  }
  void rebind(SolverArgs& g) const {
    for (Handle* h : {&g.a, &g.b, &g.ipiv, &g.tau, &g.w, &g.u, &g.vt, &g.info, &g.src})
      if (*h) *h = (*this)(*h);
  }

 private:
  std::span<const MemoryRange> recorded_;
  std::span<const Handle> bound_;
};

// The graph of a backend without graphs: the recorded calls, made again in order on the queue a
// replay is given.
class LaunchReplay final : public GraphImpl {
 public:
  using Step = std::function<void(QueueImpl&, const HandleMap&)>;

  void add(Step s) { steps_.push_back(std::move(s)); }
  void set_rebindable(std::span<const MemoryRange> r) { rebindable_.assign(r.begin(), r.end()); }

  void launch(QueueImpl& q, std::span<const Handle> bound) override {
    if (bound.size() != rebindable_.size())
      throw InvalidArgument(cat("a graph recorded with ", rebindable_.size(), " rebindable buffers was launched with ",
                                bound.size()));
    HandleMap map(rebindable_, bound);
    for (auto& s : steps_) s(q, map);
  }
  std::string kind() const override { return "replay of recorded launches"; }
  std::size_t operations() const override { return steps_.size(); }

 private:
  std::vector<Step> steps_;
  std::vector<MemoryRange> rebindable_;
};

// What a queue of such a backend holds: whether it records, and what it recorded so far.
class QueueRecorder {
 public:
  bool active() const { return replay_ != nullptr; }
  void begin(std::string_view device) {
    if (active())
      throw InvalidArgument(cat("this thread's queue on ", device, " is recording a graph already; graphs do not nest"));
    replay_ = std::make_unique<LaunchReplay>();
  }
  void add(LaunchReplay::Step s) { replay_->add(std::move(s)); }
  std::unique_ptr<GraphImpl> end(std::span<const MemoryRange> rebindable) {
    if (!replay_) throw InvalidArgument("end_capture() without begin_capture()");
    replay_->set_rebindable(rebindable);
    return std::move(replay_);
  }
  void abort() noexcept { replay_.reset(); }
  // Work that cannot be part of a graph (`what`: "reading device memory to the host") throws
  // while the queue records.
  void refuse(std::string_view device, std::string_view what) const {
    if (active()) throw InvalidArgument(refusal(device, what));
  }

 private:
  std::unique_ptr<LaunchReplay> replay_;
};

}  // namespace porta::detail
