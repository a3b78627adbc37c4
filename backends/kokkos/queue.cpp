// Queues and events of the Kokkos device. Every call runs its work on the calling thread and
// returns when it is done (execute.cpp fences), so a queue has nothing pending: events are
// complete when recorded and waiting on one is free.
#include <Kokkos_Core.hpp>

#include "kokkos/kokkos.hpp"

namespace porta::kokkos {

Event::Event(bool timing) : timing_(timing) {
  if (timing_) time_ = std::chrono::steady_clock::now();
}

double Event::elapsed_ms_since(detail::EventImpl& start) {
  auto* s = dynamic_cast<Event*>(&start);
  if (!s) throw InvalidArgument("elapsed time between events of different devices: both must come from kokkos:0");
  if (!timing_ || !s->timing_)
    throw InvalidArgument("elapsed time needs two events recorded with timing = true on kokkos:0");
  return std::chrono::duration<double, std::milli>(time_ - s->time_).count();
}

std::shared_ptr<detail::EventImpl> Queue::record(bool timing) { return std::make_shared<Event>(timing); }

void Queue::wait(detail::EventImpl&) {}

void Queue::synchronize() {
  recorder_.refuse("kokkos:0", "waiting for the queue (synchronize)");
  if (Kokkos::is_initialized()) Kokkos::fence();
}

detail::QueueRecorder* recording(detail::QueueImpl& q) {
  auto* queue = dynamic_cast<Queue*>(&q);
  return queue && queue->recorder().active() ? &queue->recorder() : nullptr;
}

std::shared_ptr<detail::QueueImpl> Device::create_queue() { return std::make_shared<Queue>(); }

}  // namespace porta::kokkos
