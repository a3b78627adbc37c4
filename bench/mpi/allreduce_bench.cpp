// porta-mpi-bench: allreduce(sum) of a float32 array through porta::mpi against MPI_Allreduce on
// plain host buffers of the same size, in the same run, interleaved iteration by iteration so
// that both see the same machine. Times are the slowest rank's (an allreduce is done when the
// last rank has its result); the figure is NCCL's bus bandwidth, bytes * 2 (n - 1) / n / time.
//   mpirun -np 4 porta-mpi-bench [--mib=64] [--iterations=10] [--warmup=2]
#include <porta/mpi.hpp>
#include <porta/porta.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds the slowest rank took for fn, all ranks starting together.
template <class F>
double timed(MPI_Comm comm, F&& fn) {
  MPI_Barrier(comm);
  const double t0 = MPI_Wtime();
  fn();
  double t = MPI_Wtime() - t0;
  MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm);
  return t;
}

long option(int argc, char** argv, const char* name, long fallback) {
  const std::string prefix = std::string("--") + name + "=";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) return std::strtol(argv[i] + prefix.size(), nullptr, 10);
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  porta::mpi::Environment env(&argc, &argv);
  try {
    porta::mpi::Communicator world;
    const long mib = option(argc, argv, "mib", 64), iterations = option(argc, argv, "iterations", 10),
               warmup = option(argc, argv, "warmup", 2);
    const porta::Device dev = world.device();
    const std::int64_t n = mib * (1 << 20) / 4;
    const double bytes = static_cast<double>(n) * 4;
    const int ranks = world.size();
    const double bus = 2.0 * (ranks - 1) / ranks;

    const porta::Array x = porta::random::Generator(1 + static_cast<std::uint64_t>(world.rank())).uniform({n}, 0, 1, porta::DType::float32, dev);
    x.eval();
    porta::synchronize(dev);
    std::vector<float> send(static_cast<std::size_t>(n), 1.0f + static_cast<float>(world.rank())), recv(send.size());

    std::vector<double> t_porta, t_mpi;
    porta::Array y;
    for (long i = 0; i < warmup + iterations; ++i) {
      const double tp = timed(world.comm(), [&] {
        y = world.allreduce(x);
        porta::synchronize(dev);
      });
      const double tm = timed(world.comm(), [&] {
        MPI_Allreduce(send.data(), recv.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, world.comm());
      });
      if (i >= warmup) {
        t_porta.push_back(tp);
        t_mpi.push_back(tm);
      }
    }
    // The result is checked, so the figure is of an allreduce that worked.
    const float expect = static_cast<float>(ranks) * (static_cast<float>(ranks) + 1) / 2;
    int bad = recv.front() != expect || y.shape() != porta::Shape{n};
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, world.comm());

    if (world.rank() == 0) {
      const double mp = median(t_porta), mm = median(t_mpi);
      std::printf("allreduce(sum) of %ld MiB float32 on %d ranks, device %s (%s); %s; median of %ld\n", mib, ranks,
                  dev.spec().c_str(), dev.name().c_str(), porta::mpi::library_info().mpi_library.c_str(), iterations);
      std::printf("  %-44s %10s %12s\n", "", "time (ms)", "busbw (GB/s)");
      std::printf("  %-44s %10.2f %12.3f\n", "porta::mpi allreduce (device array)", mp * 1e3, bytes * bus / mp / 1e9);
      std::printf("  %-44s %10.2f %12.3f\n", "MPI_Allreduce (plain host buffers)", mm * 1e3, bytes * bus / mm / 1e9);
      std::printf("  porta / MPI bus bandwidth: %.2fx\n", mm / mp);
      const auto moved = world.transport_counts();
      std::printf("  porta's collectives moved through NCCL: %llu, through the host: %llu\n",
                  static_cast<unsigned long long>(moved.nccl), static_cast<unsigned long long>(moved.host));
      if (bad) std::printf("FAIL: a result was wrong\n");
    }
    return bad;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}
