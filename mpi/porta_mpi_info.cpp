// porta-mpi-info: the MPI half of porta-info. Run under mpirun, it prints the MPI library, whether
// it is CUDA-aware, the thread level, whether NCCL was found and is used, and each rank's host,
// local rank and device. porta-info itself belongs to the core, which does not link MPI.
#include <porta/mpi.hpp>
#include <porta/porta.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {
void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw porta::Error(std::string(call) + " failed with MPI error " + std::to_string(rc));
}
}  // namespace

int main(int argc, char** argv) {
  try {
    porta::mpi::Environment env(&argc, &argv);
    porta::mpi::Communicator world;
    const auto info = porta::mpi::library_info();

    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int host_len = 0;
    check(MPI_Get_processor_name(host, &host_len), "MPI_Get_processor_name");
    const auto dev = world.device();
    std::string line = "  rank " + std::to_string(world.rank()) + " on " + host + " (local rank " +
                       std::to_string(world.local_rank()) + " of " + std::to_string(world.local_size()) +
                       "): " + dev.spec() + " (" + dev.name() + ")";
    constexpr int kLine = 256;
    line.resize(kLine - 1, ' ');
    std::vector<char> lines(static_cast<std::size_t>(kLine * world.size()));
    check(MPI_Gather(line.c_str(), kLine, MPI_CHAR, lines.data(), kLine, MPI_CHAR, 0, world.comm()), "MPI_Gather");
    if (world.rank() != 0) return 0;

    const char* level = info.thread_level == MPI_THREAD_MULTIPLE     ? "MPI_THREAD_MULTIPLE"
                        : info.thread_level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                        : info.thread_level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
                                                                     : "MPI_THREAD_SINGLE";
    std::printf("MPI library:   %s (MPI %d.%d)\n", info.mpi_library.c_str(), info.mpi_version, info.mpi_subversion);
    std::printf("CUDA-aware:    %s\n", !info.cuda_aware_known ? "unknown (the library does not say)"
                                       : info.cuda_aware      ? "yes"
                                                              : "no (CUDA arrays go through NCCL where it serves, else host memory)");
    std::printf("Thread level:  %s (porta asks for MPI_THREAD_MULTIPLE)\n", level);
    if (info.nccl_built) {
      std::printf("NCCL:          %s found at configure time; used for CUDA arrays: %s\n", info.nccl_version.c_str(),
                  info.nccl_used ? "yes, when every rank has its own GPU" : "no (this build lacks porta's CUDA native handles)");
    } else {
      std::printf("NCCL:          not found at configure time (CUDA arrays go through the host)\n");
    }
    std::printf("Ranks:         %d\n", world.size());
    for (int r = 0; r < world.size(); ++r) {
      std::string l(lines.data() + static_cast<std::size_t>(r) * kLine);
      l.erase(l.find_last_not_of(' ') + 1);
      std::printf("%s\n", l.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "porta-mpi-info: %s\n", e.what());
    return 1;
  }
}
