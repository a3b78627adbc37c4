// The core's per-device state, and memory for the core through it.
#include "runtime/device_state.hpp"

#include <porta/error.hpp>

#include "runtime/graph_recording.hpp"

namespace porta::detail {

DeviceState::DeviceState(DeviceImpl& device) : device_(device), kernels_(device), allocator_(device), fft_plans_(device) {}

void DeviceState::release() {
  fft_plans_.clear();
  allocator_.free_cached();
  kernels_.clear();
}

Handle allocate_memory(DeviceImpl& device, std::size_t bytes, QueueImpl& q) {
  if (device.info().caching_allocator) return device.state().allocator().allocate(bytes, q);
  try {
    return device.allocate(bytes, q);
  } catch (const OutOfMemory&) {
    device.release_cached_memory();
    return device.allocate(bytes, q);
  }
}

void release_memory(DeviceImpl& device, Handle h, std::size_t bytes, const std::shared_ptr<QueueImpl>& last) {
  // While this thread records a graph, memory freed on the device may be used by the graph (a
  // reduction's partial sums): it stays the graph's until the graph goes (api/graph_capture.cpp).
  if (GraphRecording* r = t_graph_recording; r && r->device == &device) {
    r->freed.push_back({h, bytes});
    return;
  }
  if (device.info().caching_allocator) {
    device.state().allocator().release(h, bytes, last);
    return;
  }
  device.deallocate(h, bytes, last.get());
}

}  // namespace porta::detail
