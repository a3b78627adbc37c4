// Interop on the Kokkos device: its memory is host memory, so an array's native handle is a host
// pointer; its work is finished when each call returns, so there is nothing to order with
// foreign queues (the defaults of backend.hpp).
#include "kokkos.hpp"

namespace porta::kokkos {

void* KokkosDevice::host_address(Handle h) { return h; }

}  // namespace porta::kokkos
