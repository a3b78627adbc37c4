// Dense solvers on the Kokkos device: LAPACKE on the device memory, which is host memory
// (built only with a host BLAS; without one the device declares no solvers).
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
  detail::host_solver(g);  // handles are host addresses
#else
  DeviceImpl::solver(q, g);  // none: a DTypeError
#endif
}

}  // namespace porta::kokkos
