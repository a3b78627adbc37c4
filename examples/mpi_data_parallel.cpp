// mpirun -np 4 examples/mpi_data_parallel: one data-parallel training step repeated, as
// torch.nn.parallel.DistributedDataParallel does it. Each rank holds its own batch of a linear
// regression problem; every step each rank computes the gradient of its batch, the gradients are
// averaged with allreduce, and every rank applies the same update, so the model stays identical on
// every rank (checked bit for bit) while it learns from all batches.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

#include <porta/mpi.hpp>
#include <porta/porta.hpp>

int main(int argc, char** argv) {
  porta::mpi::Environment env(&argc, &argv);
  try {
    porta::mpi::Communicator world;
    const int rank = world.rank(), size = world.size();
    porta::DeviceScope scope(world.device());
    const std::int64_t batch = 256, features = 8;
    const float lr = 0.1f;

    // The true weights are the same everywhere (one seed); each rank's batch has a seed of its own.
    const porta::Array w_true = porta::random::Generator(42).normal({features, 1});
    const porta::Array x = porta::random::Generator(1000 + static_cast<std::uint64_t>(rank)).normal({batch, features});
    const porta::Array y = porta::matmul(x, w_true);

    // Rank 0's initial model, broadcast: every rank starts from the same weights.
    porta::Array w = world.broadcast(rank == 0 ? porta::random::Generator(7).normal({features, 1}) : porta::Array(), 0);
    auto global_loss = [&] {
      const porta::Array e = porta::matmul(x, w) - y;
      return world.allreduce(porta::mean(e * e)).item<float>() / static_cast<float>(size);
    };
    const float loss0 = global_loss();
    for (int step = 0; step < 100; ++step) {
      const porta::Array err = porta::matmul(x, w) - y;
      const porta::Array grad = porta::matmul(x.transpose(), err) * (2.0f / static_cast<float>(batch));
      // The averaged gradient: every rank gets the same one, so every rank's update is the same.
      w = w - lr * (world.allreduce(grad) / static_cast<float>(size));
    }
    const float loss = global_loss();

    // The model on every rank, gathered: bit for bit the same.
    const auto all = world.allgather(w).to_vector<float>();
    int same = 1;
    for (int r = 1; r < size; ++r)
      same &= std::memcmp(all.data(), all.data() + r * features, features * sizeof(float)) == 0;
    const auto wt = w_true.to_vector<float>();
    double err = 0;
    for (std::int64_t i = 0; i < features; ++i) err = std::fmax(err, std::fabs(all[static_cast<std::size_t>(i)] - wt[static_cast<std::size_t>(i)]));
    int bad = !same || !(loss < loss0 * 1e-3f) || err > 1e-2;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, world.comm());
    if (rank == 0) {
      std::printf("%d ranks x batch %lld on %s: loss %.3g -> %.3g after 100 averaged steps; max |w - w_true| %.2g; "
                  "model identical on every rank: %s\n",
                  size, static_cast<long long>(batch), world.device().spec().c_str(), loss0, loss, err, same ? "yes" : "no");
      std::printf(bad ? "FAIL: the ranks' models differ or did not converge\n" : "OK\n");
    }
    return bad;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}
