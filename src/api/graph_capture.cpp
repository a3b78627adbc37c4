// porta::record and porta::Graph (graph.hpp): the arrays a graph is bound to, what it keeps alive,
// and the checks a replay makes before the backend's graph (QueueImpl::begin_capture) runs.
#include <porta/graph.hpp>

#include <porta/error.hpp>

#include <mutex>

#include "runtime/buffer.hpp"
#include "runtime/device_state.hpp"
#include "runtime/graph_recording.hpp"
#include "lazy/node.hpp"
#include "porta_backend/graph.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"
#include "api/write.hpp"

namespace porta {

namespace detail {

thread_local GraphRecording* t_graph_recording = nullptr;

bool thread_device_set();  // device.cpp

void GraphRecording::touch(Buffer& b, const QueueImpl* q, bool before) {
  if (q != queue) {
    if (before)
      throw InvalidArgument(cat("porta::record on ", name(device->backend()), ":", device->index(),
                                ": the recorded function used an array of ", b.device().spec(),
                                "; a graph holds the work of one device's queue. Move the array with to() before "
                                "record(), or record a graph per device"));
    return;
  }
  if (seen.insert(&b).second)
    if (auto s = b.weak_from_this().lock()) used.push_back(std::move(s));
}

void refuse_while_recording(std::string_view what) {
  if (GraphRecording* r = t_graph_recording)
    throw InvalidArgument(refusal(cat(name(r->device->backend()), ":", r->device->index()), what));
}

}  // namespace detail

namespace {

using detail::Buffer;
using detail::cat;
using detail::GraphImpl;
using detail::Handle;
using detail::MemoryRange;
using detail::QueueImpl;

// A named array as it was recorded: what a replay's array must match.
struct Binding {
  std::weak_ptr<Buffer> buffer;
  std::int64_t offset = 0;
  Shape shape;
  std::vector<std::int64_t> strides;
  DType dtype = DType::float32;
  std::size_t slot = 0;  // index into the graph's rebindable memory
};

std::string describe(const char* role, std::size_t i, DType t, const Shape& s) {
  return cat(role, " ", i, " (", name(t), " ", to_string(s), ")");
}

const detail::View& view_of(const Array& a) { return detail::evaluate(a.node()); }

}  // namespace

struct Graph::State {
  Device device;
  std::unique_ptr<GraphImpl> impl;
  std::vector<Binding> bindings;  // the inputs, then the outputs
  std::size_t input_count = 0;
  std::vector<MemoryRange> rebindable;          // one per distinct buffer of the bindings
  std::vector<std::shared_ptr<Buffer>> held;    // every other buffer the recorded work touched
  std::vector<MemoryRange> freed;               // memory released while recording
  std::mutex m;                                  // one replay at a time (a CUDA graph's bindings)
  std::weak_ptr<QueueImpl> last_queue;          // the queue of the latest replay

  ~State() {
    impl.reset();
    held.clear();
    std::shared_ptr<QueueImpl> q = last_queue.lock();
    for (const auto& f : freed) detail::release_memory(device.impl(), f.handle, f.bytes, q);
  }
};

Graph record(const std::vector<Array>& inputs, const std::vector<Array>& outputs, const std::function<void()>& body,
             RecordOptions options) {
  if (!body) throw InvalidArgument("porta::record needs a function to record; this one is empty");
  // The device: the arrays', else this thread's current one.
  Device device;
  auto check_array = [&](const Array& a, const char* role, std::size_t i) {
    if (!a.valid()) throw InvalidArgument(cat("porta::record: ", role, " ", i, " is an empty Array"));
    if (!device.valid()) device = a.device();
    else if (a.device() != device)
      throw InvalidArgument(cat("porta::record: ", describe(role, i, a.dtype(), a.shape()), " is on ", a.device().spec(),
                                " but the graph's arrays so far are on ", device.spec(),
                                "; a graph records one device's queue: move it with to() first"));
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) check_array(inputs[i], "input", i);
  for (std::size_t i = 0; i < outputs.size(); ++i) check_array(outputs[i], "output", i);
  if (!device.valid()) device = current_device();
  DeviceScope scope(device);

  if (options.warmup) {
    body();
    for (const auto& o : outputs) o.eval();
  }

  auto state = std::make_shared<Graph::State>();
  state->device = device;
  state->input_count = inputs.size();
  const auto& q = detail::thread_queue_shared(device);
  auto bind = [&](const Array& a, bool output, std::size_t i) {
    const detail::View& v = output ? detail::writable_view(a.node(), "porta::record: an output") : view_of(a);
    if (output) v.buffer->before_write(q);
    else v.buffer->before_read(q);
    Binding b{v.buffer, v.offset, a.shape(), v.strides, a.dtype(), 0};
    std::size_t slot = 0;
    while (slot < state->rebindable.size() && state->rebindable[slot].handle != v.buffer->handle()) ++slot;
    if (slot == state->rebindable.size()) state->rebindable.push_back({v.buffer->handle(), v.buffer->bytes()});
    b.slot = slot;
    (void)i;
    state->bindings.push_back(std::move(b));
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) bind(inputs[i], false, i);
  for (std::size_t i = 0; i < outputs.size(); ++i) bind(outputs[i], true, i);

  detail::GraphRecording recording;
  recording.device = &device.impl();
  recording.queue = q.get();
  if (detail::t_graph_recording)
    throw InvalidArgument(cat("porta::record on ", device.spec(), ": this thread is recording a graph already; "
                              "graphs do not nest (record the inner sequence as part of the outer one)"));
  q->begin_capture();
  detail::t_graph_recording = &recording;
  try {
    body();
    for (const auto& o : outputs) o.eval();
    detail::t_graph_recording = nullptr;
    state->impl = q->end_capture(state->rebindable);
  } catch (...) {
    detail::t_graph_recording = nullptr;
    q->abort_capture();
    for (const auto& f : recording.freed) detail::release_memory(device.impl(), f.handle, f.bytes, q);
    throw;
  }
  for (auto& b : recording.used) {
    bool named = false;
    for (const auto& r : state->rebindable) named = named || r.handle == b->handle();
    if (!named) state->held.push_back(std::move(b));
  }
  state->freed = std::move(recording.freed);
  state->last_queue = q;
  PORTA_LOG(debug, "porta::record on ", device.spec(), ": ", state->impl->kind(), " of ", state->impl->operations(),
            " operations, ", inputs.size(), " inputs, ", outputs.size(), " outputs, ", state->held.size(),
            " other buffers kept");
  Graph g;
  g.state_ = std::move(state);
  return g;
}

namespace {

void require_valid(const std::shared_ptr<Graph::State>& s) {
  if (!s) throw InvalidArgument("replay of an empty porta::Graph; make one with porta::record()");
}

}  // namespace

void Graph::replay() const {
  require_valid(state_);
  std::vector<Array> none;
  replay(none, none);
}

void Graph::replay(const std::vector<Array>& inputs, const std::vector<Array>& outputs) const {
  require_valid(state_);
  State& s = *state_;
  const std::size_t output_count = s.bindings.size() - s.input_count;
  const bool recorded = inputs.empty() && outputs.empty();
  if (!recorded && (inputs.size() != s.input_count || outputs.size() != output_count))
    throw InvalidArgument(cat("Graph::replay was given ", inputs.size(), " inputs and ", outputs.size(),
                              " outputs; the graph was recorded with ", s.input_count, " and ", output_count,
                              " (give all of them, or none to replay on the recorded arrays)"));

  // The buffer for each binding: the recorded one (still alive), or the given array's.
  std::vector<std::shared_ptr<Buffer>> buffers(s.bindings.size());
  for (std::size_t i = 0; i < s.bindings.size(); ++i) {
    const Binding& b = s.bindings[i];
    const bool output = i >= s.input_count;
    const char* role = output ? "output" : "input";
    const std::size_t index = output ? i - s.input_count : i;
    if (recorded) {
      buffers[i] = b.buffer.lock();
      if (!buffers[i])
        throw InvalidArgument(cat("Graph::replay: the graph's ", describe(role, index, b.dtype, b.shape),
                                  " was freed (no Array holds it any more); replay with arrays of the same shape "
                                  "and dtype: replay({inputs...}, {outputs...})"));
      continue;
    }
    const Array& a = output ? outputs[index] : inputs[index];
    if (!a.valid()) throw InvalidArgument(cat("Graph::replay: ", role, " ", index, " is an empty Array"));
    if (a.device() != s.device)
      throw InvalidArgument(cat("Graph::replay: ", describe(role, index, a.dtype(), a.shape()), " is on ",
                                a.device().spec(), " but the graph was recorded on ", s.device.spec(),
                                "; a graph replays on its own device (record one per device)"));
    if (a.dtype() != b.dtype)
      throw DTypeError(cat("Graph::replay: ", role, " ", index, " is ", name(a.dtype()), " but the graph was recorded with ",
                           name(b.dtype), " there; pass astype(", name(b.dtype), ") or record another graph"));
    if (a.shape() != b.shape)
      throw ShapeError(cat("Graph::replay: ", role, " ", index, " has shape ", to_string(a.shape()),
                           " but the graph was recorded with shape ", to_string(b.shape),
                           " there; a graph's launch sizes are fixed: record one per shape"));
    const detail::View& v = output ? detail::writable_view(a.node(), "Graph::replay: an output") : view_of(a);
    if (v.offset != b.offset || v.strides != b.strides)
      throw InvalidArgument(cat("Graph::replay: ", describe(role, index, a.dtype(), a.shape()), " has strides ",
                                to_string(v.strides), " at offset ", v.offset, " in its buffer, but the graph was "
                                "recorded with strides ", to_string(b.strides), " at offset ", b.offset,
                                "; the recorded kernels address that layout: pass a.copy()"));
    buffers[i] = v.buffer;
  }
  // One buffer per rebindable slot; a slot shared by two bindings (an array both read and
  // written) needs one array for both.
  std::vector<Handle> bound(s.rebindable.size(), nullptr);
  for (std::size_t i = 0; i < s.bindings.size(); ++i) {
    Handle h = buffers[i]->handle();
    Handle& slot = bound[s.bindings[i].slot];
    if (slot && slot != h)
      throw InvalidArgument(cat("Graph::replay: the graph was recorded with one array in two places (binding ", i,
                                " shares its buffer with an earlier one); give the same array in both places"));
    if (buffers[i]->bytes() < s.rebindable[s.bindings[i].slot].bytes && !recorded)
      throw InvalidArgument(cat("Graph::replay: binding ", i, "'s buffer holds ", buffers[i]->bytes(),
                                " bytes, less than the recorded ", s.rebindable[s.bindings[i].slot].bytes,
                                "; pass a.copy()"));
    slot = h;
  }

  if (detail::thread_device_set()) {
    Device current = current_device();
    if (current != s.device)
      throw InvalidArgument(cat("Graph::replay: this thread's current device is ", current.spec(),
                                " (a DeviceScope), but the graph was recorded on ", s.device.spec(),
                                "; replay it where its device is current, or record a graph per device"));
  }
  const auto& q = detail::thread_queue_shared(s.device);
  // Lazy expressions that read what the replay writes compute with the values from before it.
  for (std::size_t i = s.input_count; i < buffers.size(); ++i) detail::settle_pending_readers(*buffers[i]);
  for (auto& h : s.held) detail::settle_pending_readers(*h);

  std::lock_guard lock(s.m);
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    if (i < s.input_count) buffers[i]->before_read(q);
    else buffers[i]->before_write(q);
  }
  for (auto& h : s.held) h->before_write(q);
  s.impl->launch(*q, bound);
  for (std::size_t i = s.input_count; i < buffers.size(); ++i) buffers[i]->after_write(q);
  for (auto& h : s.held) h->after_write(q);
  s.last_queue = q;
}

Device Graph::device() const {
  require_valid(state_);
  return state_->device;
}
std::size_t Graph::inputs() const { return state_ ? state_->input_count : 0; }
std::size_t Graph::outputs() const { return state_ ? state_->bindings.size() - state_->input_count : 0; }
std::size_t Graph::operations() const { return state_ ? state_->impl->operations() : 0; }
std::string Graph::kind() const { return state_ ? state_->impl->kind() : std::string("empty"); }

}  // namespace porta
