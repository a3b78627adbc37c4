// Interop on the Kokkos device: its memory is host memory, so an array's native handle is a host
// pointer; its work is finished when each call returns, so there is nothing to order with
// foreign queues (the defaults of backend.hpp).
#include "kokkos/kokkos.hpp"

namespace porta::kokkos {

void* Device::host_address(Handle h) { return h; }

// Host memory of either kind is this device's memory.
detail::DeviceImpl::Imported Device::import_memory(void* native, MemoryKind, std::size_t, std::size_t) {
  return detail::aligned_import(native);
}

}  // namespace porta::kokkos
