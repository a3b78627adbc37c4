// The Kokkos device: what it is (DeviceInfo) and the host's memory it allocates from.
#include <unistd.h>

#include <Kokkos_Core.hpp>

#include <fstream>
#include <sstream>

#include "kokkos/kokkos.hpp"
#include "porta_backend/services.hpp"
#include "porta_backend/strings.hpp"
#ifdef PORTA_HAVE_HOST_BLAS
#include "host/blas.hpp"
#include "host/fft.hpp"
#include "host/solver.hpp"
#endif

namespace porta::kokkos {

std::uint64_t physical_memory_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

std::uint64_t available_memory_bytes() {
  // MemAvailable counts the page cache the kernel would give back; _SC_AVPHYS_PAGES does not.
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream in(line.substr(13));
    std::uint64_t kib = 0;
    if (in >> kib) return kib * 1024;
  }
  long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

Device::Device() : DeviceImpl(porta::Backend::kokkos, 0) {
  using Space = Kokkos::DefaultHostExecutionSpace;
  const std::string space = Space::name();
  physical_bytes_ = physical_memory_bytes();
  info_.name = detail::cat("Kokkos ", space, " (host)");
  info_.vendor = "Kokkos";
  info_.platform = detail::cat("Kokkos ", space);
  info_.driver_version = kokkos_version();
  info_.arch = space;
  info_.kind = DeviceKind::cpu;
  info_.memory_bytes = physical_bytes_;
  info_.max_alloc_bytes = physical_bytes_;
  info_.compute_units = Space().concurrency();
  for (DType t : all_dtypes()) info_.dtypes[static_cast<int>(t)] = detail::core_computes(t);
  info_.dialect = detail::Dialect::none;
  info_.host_memory = true;
  // No run-time compiler: no source language (RawKernel refuses its source). Memory is host memory
  // in Kokkos::HostSpace, exported to DLPack as kDLCPU.
  info_.caps.handles_are_addresses = true;
  info_.caps.dlpack_device_type = 1;  // kDLCPU
  info_.caching_allocator = true;
  info_.caps.complex_gemm = true;  // blas.cpp: the host BLAS's cgemm/zgemm, or loop_gemm
  info_.caps.integer_gemm = true;  // loop_gemm
  info_.caps.fft = detail::kHostFftName;  // fft.cpp
  info_.caps.fft_max_rank = 1;
#ifdef PORTA_HAVE_HOST_BLAS
  info_.matmul = detail::cat("host BLAS (", detail::host_blas_name(), ") on the device's memory (host memory, no copy) for float32, ",
                             "float64, complex64 and complex128; a blocked loop for float16 and bfloat16; an exact loop for "
                             "integers");
  info_.caps.solvers = detail::kHostSolvers;
  info_.caps.row_major_solvers = detail::kHostRowMajorSolvers;
  info_.caps.copy_in_solvers = detail::kHostCopyInSolvers;
  info_.solver = detail::cat(detail::host_solver_name(), " on the device's memory (host memory, no copy)");
#else
  info_.matmul = "a blocked loop (porta was built without a host BLAS); an exact loop for integers and complex";
#endif
}

// The core releases its cached memory (DeviceImpl::release_state) before the backend goes.
Device::~Device() = default;

std::uint64_t Device::free_memory() const { return available_memory_bytes(); }

}  // namespace porta::kokkos
