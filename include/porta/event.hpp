// Device-side timing: an Event marks a point in this thread's queue on a device; the time
// between two events is measured by the device (CUDA events, OpenCL profiling), not the host.
#pragma once

#include <memory>

#include <porta/device.hpp>

namespace porta {

namespace detail {
class EventImpl;
}

class Event {
 public:
  // Records a timing event at the current end of this thread's queue on `d`.
  static Event record(const Device& d = current_device());
  void synchronize() const;
  bool done() const;
  // Milliseconds from `start` to this event (both recorded on the same device, with the default
  // timing); waits for both events to complete first.
  double elapsed_ms(const Event& start) const;

 private:
  Device device_;  // keeps the backend (and its plugin) loaded while the event lives
  std::shared_ptr<detail::EventImpl> impl_;
};

}  // namespace porta
