// Events for device-side timing.
#include <porta/event.hpp>
#include <porta/error.hpp>

#include "runtime/device_state.hpp"
#include "porta_backend/strings.hpp"

namespace porta {

Event Event::record(const Device& d) {
  Event e;
  e.impl_ = detail::thread_queue(d).record(true);
  e.device_ = d;
  return e;
}

void Event::synchronize() const {
  if (!impl_) throw InvalidArgument("Event: not recorded");
  impl_->synchronize();
}

bool Event::done() const {
  if (!impl_) throw InvalidArgument("Event: not recorded");
  return impl_->done();
}

double Event::elapsed_ms(const Event& start) const {
  if (!impl_ || !start.impl_) throw InvalidArgument("Event::elapsed_ms: both events must be recorded");
  if (device_ != start.device_)
    throw InvalidArgument(detail::cat("Event::elapsed_ms: this event was recorded on ", device_.spec(), " but the start event on ",
                                      start.device_.spec(), "; devices have separate clocks, so time two events of one device"));
  return impl_->elapsed_ms_since(*start.impl_);
}

}  // namespace porta
