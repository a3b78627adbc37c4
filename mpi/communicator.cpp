// Communicator: porta's own duplicate of an MPI_Comm, the rank's place on its host, and the device
// it uses.
#include "mpi_impl.hpp"

#include <cstdlib>

#include <porta/settings.hpp>

namespace porta::mpi {

Communicator::Impl::Impl(MPI_Comm c, bool user_visible) {
  int initialized = 0;
  detail::check(MPI_Initialized(&initialized), "MPI_Initialized");
  if (!initialized)
    throw Error("porta::mpi: MPI is not initialised; create a porta::mpi::Environment (or call "
                "MPI_Init_thread) before the first Communicator");
  user = user_visible ? c : MPI_COMM_NULL;
  detail::check(MPI_Comm_dup(c, &comm), "MPI_Comm_dup");
  // Errors come back as codes that porta turns into exceptions, instead of aborting every rank.
  detail::check(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  detail::check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  detail::check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  MPI_Comm local = MPI_COMM_NULL;
  detail::check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local), "MPI_Comm_split_type");
  detail::check(MPI_Comm_rank(local, &local_rank), "MPI_Comm_rank");
  detail::check(MPI_Comm_size(local, &local_size), "MPI_Comm_size");
  detail::check(MPI_Comm_free(&local), "MPI_Comm_free");
  if (!user_visible) user = comm;
}

Communicator::Impl::~Impl() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  // After MPI_Finalize the communicator is gone with MPI itself.
  if (!finalized) detail::nccl_destroy(nccl_comm);
  if (!finalized && comm != MPI_COMM_NULL) detail::check_noexcept(MPI_Comm_free(&comm), "MPI_Comm_free");
}

Communicator::Communicator() : Communicator(MPI_COMM_WORLD) {}
Communicator::Communicator(MPI_Comm comm) : impl_(std::make_shared<Impl>(comm, true)) {}

Communicator Communicator::dup() const {
  Communicator c(*this);
  c.impl_ = std::make_shared<Impl>(impl_->comm, false);
  return c;
}

MPI_Comm Communicator::comm() const { return impl_->user; }
int Communicator::rank() const { return impl_->rank; }
int Communicator::size() const { return impl_->size; }
int Communicator::local_rank() const { return impl_->local_rank; }
int Communicator::local_size() const { return impl_->local_size; }

Device Communicator::device() const {
  std::call_once(impl_->device_once, [&] {
    if (porta::setting_text("PORTA_DEVICE")) {
      impl_->device = default_device();
      return;
    }
    // GPUs of one backend only: one GPU can be listed twice (cuda:0 and NVIDIA's OpenCL device).
    std::vector<Device> gpus;
    for (const auto& d : devices()) {
      if (d.kind() != DeviceKind::gpu) continue;
      if (!gpus.empty() && d.backend() != gpus.front().backend()) continue;
      gpus.push_back(d);
    }
    impl_->device = gpus.empty() ? default_device() : gpus[static_cast<std::size_t>(impl_->local_rank) % gpus.size()];
  });
  return impl_->device;
}

Communicator::TransportCounts Communicator::transport_counts() const {
  return {impl_->nccl_collectives.load(), impl_->host_collectives.load()};
}

bool detail::route_to_nccl(Communicator::Impl& c, const std::vector<Descriptor>& all, const Device& d) {
  const bool nccl = nccl_usable(c, all, d);
  ++(nccl ? c.nccl_collectives : c.host_collectives);
  return nccl;
}

void Communicator::barrier() const { detail::check(MPI_Barrier(impl_->comm), "MPI_Barrier"); }

}  // namespace porta::mpi
