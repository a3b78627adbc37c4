// mpirun -np 4 examples/mpi_sum: one array of n elements split over the ranks, each rank holding
// its slice on its own device; the slices' sums are reduced with allreduce, and the slices are
// gathered back and checked, as an mpi4py user would with comm.allreduce and comm.allgather.
#include <cstdint>
#include <cstdio>
#include <exception>

#include <porta/mpi.hpp>
#include <porta/porta.hpp>

int main(int argc, char** argv) {
  porta::mpi::Environment env(&argc, &argv);
  try {
    porta::mpi::Communicator world;
    const int rank = world.rank(), size = world.size();
    const porta::Device dev = world.device();
    porta::DeviceScope scope(dev);

    // Elements 0 .. n-1, rank r holding [n r / size, n (r + 1) / size); n a multiple of size so
    // that the slices can be gathered into one array.
    const std::int64_t n = std::int64_t{1 << 20} * size;
    const std::int64_t begin = n / size * rank, end = n / size * (rank + 1);
    const porta::Array part = porta::arange(static_cast<double>(begin), static_cast<double>(end), 1.0, porta::DType::float64);

    const double total = world.allreduce(porta::sum(part)).item<double>();
    const double expected = static_cast<double>(n) * static_cast<double>(n - 1) / 2;

    // Every slice back on every rank: element i of the gathered array is i.
    const porta::Array whole = world.allgather(part).reshape({n});
    const std::int64_t mismatches =
        porta::sum(porta::arange(0.0, static_cast<double>(n), 1.0, porta::DType::float64) != whole).item<std::int64_t>();
    int bad = total != expected || mismatches != 0;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, world.comm());

    std::printf("rank %d of %d on %s: sum of its %lld elements %.0f\n", rank, size, dev.spec().c_str(),
                static_cast<long long>(end - begin), porta::sum(part).item<double>());
    if (rank == 0) {
      std::printf("allreduce(sum): %.0f, expected n (n - 1) / 2 = %.0f; allgather: %lld elements out of place\n", total,
                  expected, static_cast<long long>(mismatches));
      std::printf(bad ? "FAIL: a rank got a wrong result\n" : "OK\n");
    }
    return bad;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    // The other ranks may be waiting in a collective this rank will never join.
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}
