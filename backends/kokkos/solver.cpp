// Dense solvers on the Kokkos device: LAPACKE on the device memory, which is host memory
// (built only with a host BLAS; without one the device declares no solvers).
#include <thread>

#include "kokkos/kokkos.hpp"
#ifdef PORTA_HAVE_HOST_BLAS
#include "host/solver.hpp"
#endif

namespace porta::kokkos {

void Device::solver(detail::QueueImpl& q, const detail::SolverArgs& g) {
  if (auto* r = recording(q)) {
    r->add([this, g](detail::QueueImpl& rq, const detail::HandleMap& m) {
      detail::SolverArgs bound = g;
      m.rebind(bound);
      solver(rq, bound);
    });
    return;
  }
#ifdef PORTA_HAVE_HOST_BLAS
  // Handles are host addresses; a batch of small matrices over the host's threads (as OpenBLAS's
  // own threads take Kokkos' products).
  detail::host_solver(g, static_cast<int>(std::thread::hardware_concurrency()));
#else
  DeviceImpl::solver(q, g);  // none: a DTypeError
#endif
}

}  // namespace porta::kokkos
