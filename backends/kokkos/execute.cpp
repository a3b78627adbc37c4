// Plans on the Kokkos device: the core's block interpreter (services.hpp) run over ranges of
// blocks, or of reduction outputs, by Kokkos::parallel_for on the default host execution space.
//
// Several host threads may dispatch at once on Kokkos 3.4's Serial space: its
// ParallelFor<RangePolicy, Serial> is a plain loop over the functor (Kokkos_Serial.hpp), and the
// dispatch around it (Kokkos_Parallel.hpp) only reads what initialisation set (profiling hooks)
// or keeps thread_local state (shared allocation tracking). Tested from 8 threads under
// ThreadSanitizer. Serial's parallel_reduce would not be safe (it shares one scratch buffer,
// serial_resize_thread_team_data), which is one reason reductions are parallel_for over outputs
// here. Spaces with a thread pool (OpenMP, Threads) take one dispatch at a time in Kokkos 3.x, so
// for them dispatches are serialised by the device's mutex.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <exception>
#include <type_traits>

#include "porta_backend/services.hpp"
#include "kokkos/error.hpp"
#include "kokkos/kokkos.hpp"

namespace porta::kokkos {
namespace {

using Space = Kokkos::DefaultHostExecutionSpace;

#if defined(KOKKOS_ENABLE_SERIAL)
constexpr bool kConcurrentDispatch = std::is_same_v<Space, Kokkos::Serial>;
#else
constexpr bool kConcurrentDispatch = false;
#endif

// A call of the interpreter checks and lays out the plan first, so each work item gets many
// blocks; but at least a few items per worker, for balance.
constexpr std::int64_t kMaxBlocksPerItem = 64;
constexpr std::int64_t kItemsPerWorker = 4;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Runs body(item) for item in [0, items) with Kokkos::parallel_for; the first exception thrown
// by a body is rethrown here (an exception must not leave an OpenMP region).
template <class Body>
void run_items(std::mutex& dispatch_mutex, const char* label, std::int64_t items, Body body) {
  require_kokkos();
  std::unique_lock<std::mutex> lock(dispatch_mutex, std::defer_lock);
  if (!kConcurrentDispatch) lock.lock();
  std::mutex error_mutex;
  std::exception_ptr error;
  std::mutex* error_mutex_ptr = &error_mutex;
  std::exception_ptr* error_ptr = &error;
  // A failure of Kokkos itself (it throws std::runtime_error) becomes DeviceError naming the call.
  PORTA_KOKKOS(Kokkos::parallel_for(
      label, Kokkos::RangePolicy<Space, Kokkos::IndexType<std::int64_t>>(0, items), [=](std::int64_t item) {
        try {
          body(item);
        } catch (...) {
          std::lock_guard<std::mutex> g(*error_mutex_ptr);
          if (!*error_ptr) *error_ptr = std::current_exception();
        }
      }));
  PORTA_KOKKOS(Space().fence());
  if (error) std::rethrow_exception(error);
}

int workers() { return std::max(1, static_cast<int>(Space().concurrency())); }

}  // namespace

void Device::execute(detail::QueueImpl& q, const detail::ElementwisePlan& plan) {
  if (auto* r = recording(q)) {
    r->add([this, plan](detail::QueueImpl& rq, const detail::HandleMap& m) {
      detail::ElementwisePlan bound = plan;
      m.rebind(bound);
      execute(rq, bound);
    });
    return;
  }
  std::int64_t total = 1;
  for (std::int64_t s : plan.shape) total *= s;
  if (total <= 0) return;
  const std::int64_t blocks = ceil_div(total, detail::kInterpreterBlock);
  const std::int64_t per_item =
      std::clamp<std::int64_t>(ceil_div(blocks, workers() * kItemsPerWorker), 1, kMaxBlocksPerItem);
  const std::int64_t span = per_item * detail::kInterpreterBlock;
  const detail::ElementwisePlan* p = &plan;
  run_items(dispatch_mutex_, "porta::elementwise", ceil_div(blocks, per_item), [=](std::int64_t item) {
    detail::interpret_elementwise(*p, item * span, std::min(total, (item + 1) * span));
  });
}

void Device::execute(detail::QueueImpl& q, const detail::ReductionPlan& plan) {
  if (auto* r = recording(q)) {
    r->add([this, plan](detail::QueueImpl& rq, const detail::HandleMap& m) {
      detail::ReductionPlan bound = plan;
      m.rebind(bound);
      execute(rq, bound);
    });
    return;
  }
  const std::int64_t outputs = plan.outer * plan.inner;
  if (outputs <= 0) return;
  // Enough outputs per item to cover some blocks of values, whole rows of `inner` when they fit.
  std::int64_t per_item = std::max(ceil_div(outputs, workers() * kItemsPerWorker),
                                   ceil_div(detail::kInterpreterBlock, std::max<std::int64_t>(plan.extent, 1)));
  if (plan.inner > 1 && per_item > plan.inner) per_item = ceil_div(per_item, plan.inner) * plan.inner;
  per_item = std::min(per_item, outputs);
  const detail::ReductionPlan* p = &plan;
  run_items(dispatch_mutex_, "porta::reduction", ceil_div(outputs, per_item), [=](std::int64_t item) {
    detail::interpret_reduction(*p, item * per_item, std::min(outputs, (item + 1) * per_item));
  });
}

}  // namespace porta::kokkos
