// The core's side of recording a graph (api/graph_capture.cpp,
// docs/design/threading.md#graphs-record-and-replay): while a thread records, every buffer the
// recorded work touches is noted (Buffer's hooks), so the graph keeps it, and memory freed on the
// device in the meantime (release_memory: a buffer, a reduction's partials) is kept too: a replay
// must never find it handed to someone else.
#pragma once

#include <memory>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "porta_backend/backend.hpp"

namespace porta::detail {

class Buffer;

struct GraphRecording {
  DeviceImpl* device = nullptr;
  QueueImpl* queue = nullptr;
  std::vector<std::shared_ptr<Buffer>> used;
  std::unordered_set<const Buffer*> seen;
  std::vector<MemoryRange> freed;  // memory released while recording, freed with the graph

  // Work on `q` touches `b`: keeps `b` for the graph. Before the work is queued (`before`), throws
  // InvalidArgument when `q` is not the queue being recorded: work on another device would run
  // at once and not be part of the graph.
  void touch(Buffer& b, const QueueImpl* q, bool before);
};

// This thread's recording, null when it records nothing: one load on every buffer hook.
extern thread_local GraphRecording* t_graph_recording;

// Throws InvalidArgument when this thread is recording a graph: `what` (a DevicePool submit) would
// run outside the graph, at once.
void refuse_while_recording(std::string_view what);

}  // namespace porta::detail
