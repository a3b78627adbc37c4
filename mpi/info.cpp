// library_info(): the MPI library, whether it is CUDA-aware (Open MPI's MPIX_Query_cuda_support),
// the thread level it gave, and NCCL.
#include "mpi_impl.hpp"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace porta::mpi {

LibraryInfo library_info() {
  LibraryInfo info;
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  detail::check(MPI_Get_library_version(text, &len), "MPI_Get_library_version");
  info.mpi_library.assign(text, static_cast<std::size_t>(len));
  if (auto cut = info.mpi_library.find_first_of("\n,"); cut != std::string::npos) info.mpi_library.resize(cut);
  detail::check(MPI_Get_version(&info.mpi_version, &info.mpi_subversion), "MPI_Get_version");
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  info.cuda_aware_known = true;
  // Built with CUDA support (the macro) and running with it (the query).
  info.cuda_aware = MPIX_CUDA_AWARE_SUPPORT && MPIX_Query_cuda_support() != 0;
#endif
  int initialized = 0;
  detail::check(MPI_Initialized(&initialized), "MPI_Initialized");
  if (initialized) detail::check(MPI_Query_thread(&info.thread_level), "MPI_Query_thread");
  info.nccl_version = detail::nccl_version();
  info.nccl_built = !info.nccl_version.empty();
  // The NCCL path needs an array's CUdeviceptr and this thread's CUstream (porta's native handles).
  info.nccl_used = detail::nccl_path_built();
  return info;
}

namespace detail {
bool mpi_cuda_aware() {
  static const bool aware = library_info().cuda_aware;
  return aware;
}
}  // namespace detail

}  // namespace porta::mpi
