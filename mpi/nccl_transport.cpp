// NCCL for CUDA device memory: a communicator per porta communicator, set up through MPI (rank 0's
// ncclUniqueId broadcast to the others), as NCCL's own MPI examples do. Built when NCCL was found
// at configure time. The collectives reach it once porta's public API gives an array's
// CUdeviceptr and this thread's CUstream (the interop issue); until then CUDA arrays go through
// the host, and this file reports NCCL's version.
#include "mpi_impl.hpp"

#if defined(PORTA_MPI_NCCL)
#include <nccl.h>
#endif

namespace porta::mpi::detail {

#if defined(PORTA_MPI_NCCL)
std::string nccl_version() {
  int v = 0;
  if (ncclGetVersion(&v) != ncclSuccess) return "unknown";
  // NCCL_VERSION(X, Y, Z) is X * 10000 + Y * 100 + Z from 2.9 on.
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}
#else
std::string nccl_version() { return {}; }
#endif

}  // namespace porta::mpi::detail
