// porta_mpi's internals: the communicator's state, MPI error checks, the element types MPI moves
// and reduces, the agreement of descriptors across ranks, and the two transports.
#pragma once

#include <porta/error.hpp>
#include <porta/mpi.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace porta::mpi::detail {

// Throws porta::Error naming the MPI call and MPI's text for `rc` unless it is MPI_SUCCESS.
void check(int rc, const char* call);
// The same for destructors: logs to stderr instead of throwing.
void check_noexcept(int rc, const char* call) noexcept;

// The datatype that moves elements of t unchanged (float16/bfloat16 as 16-bit words).
MPI_Datatype transfer_type(DType t);
// The datatype reductions of t run in: float16/bfloat16 are widened to float32 first (MPI has no
// half type; one rounding at the end is also more accurate than one per rank).
MPI_Datatype reduce_type(DType t);
bool reduces_widened(DType t);
// MPI's op for `op` on t: bool arrays reduce as NumPy's bool arithmetic (sum and max are "or",
// prod and min are "and").
MPI_Op mpi_op(Op op, DType t);
// Widens n float16/bfloat16 elements to float32 and back (round to nearest even).
void widen(DType t, const void* src, float* dst, std::size_t n);
void narrow(DType t, const float* src, void* dst, std::size_t n);

// What one rank passed to a collective, exchanged before any data moves.
inline constexpr int kMaxDims = 16;
enum class Collective : std::int64_t { allreduce, reduce, broadcast, allgather, reduce_scatter, alltoall, iallreduce };
std::string_view name(Collective c);
enum class Status : std::int64_t { ok, no_array, too_many_dims };
struct Descriptor {
  std::int64_t status = 0;
  std::int64_t collective = 0;
  std::int64_t op = 0;
  std::int64_t root = 0;
  std::int64_t dtype = -1;
  std::int64_t ndim = 0;
  std::int64_t shape[kMaxDims] = {};
  // 1 when the array is a CUDA array on this rank's Communicator::device(): when every rank's is,
  // the collective goes through NCCL (where built), else every rank takes the host path.
  std::int64_t nccl_candidate = 0;
};
Descriptor describe(Collective c, const Array& x, Op op = Op::sum, int root = 0);
Shape shape_of(const Descriptor& d);
// Gathers every rank's descriptor and checks that they agree for the collective; throws the same
// typed porta error, with the same message, on every rank when they do not. Returns them.
std::vector<Descriptor> agree(MPI_Comm comm, const Descriptor& mine);

// A host buffer of at least n bytes, reused by the calling thread (staging 64 MiB anew each call
// would cost page faults larger than the copy). Valid until the thread's next call.
std::byte* thread_staging(int slot, std::size_t n);

// MPI counts are int: the largest count one call moves.
inline constexpr std::size_t kMaxCount = 1u << 30;
std::int32_t checked_count(std::size_t n, const char* what);

}  // namespace porta::mpi::detail

namespace porta::mpi {

struct Communicator::Impl {
  MPI_Comm user = MPI_COMM_NULL;  // what comm() gives back
  MPI_Comm comm = MPI_COMM_NULL;  // porta's own duplicate: its messages never meet the user's
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
  mutable std::once_flag device_once;
  mutable Device device;
  // NCCL's communicator over these ranks, made on the first collective that can use it
  // (nccl_transport.cpp); null when NCCL is not built or cannot serve these ranks.
  std::mutex nccl_mutex;
  bool nccl_tried = false;
  void* nccl_comm = nullptr;
  std::atomic<std::uint64_t> nccl_collectives{0};
  std::atomic<std::uint64_t> host_collectives{0};
  explicit Impl(MPI_Comm c, bool user_visible);
  ~Impl();
};

struct Request::State {
  virtual ~State() = default;
  virtual bool test() = 0;
  virtual Array wait() = 0;
  // Called by ~Request on a request never waited for; must not throw.
  virtual void abandon() noexcept = 0;
};

}  // namespace porta::mpi

namespace porta::mpi::detail {
// NCCL, when porta_mpi was built with it (nccl_transport.cpp): its version, or empty.
std::string nccl_version();
// The MPI library takes CUDA device pointers (MPIX_Query_cuda_support), asked once.
bool mpi_cuda_aware();
// Whether this build can move CUDA arrays through NCCL (NCCL and porta's CUDA native handles).
bool nccl_path_built();
void nccl_destroy(void* comm) noexcept;
// The collectives on NCCL, for a table of descriptors in which every rank is a candidate; each
// returns false, on every rank alike, when NCCL cannot serve these ranks (two ranks on one GPU,
// which NCCL refuses; a failed init), and the caller then takes the host path.
bool nccl_usable(Communicator::Impl& c, const std::vector<Descriptor>& all, const Device& d);
// nccl_usable, counted: true (one more NCCL collective) or false (one more on the host path).
bool route_to_nccl(Communicator::Impl& c, const std::vector<Descriptor>& all, const Device& d);
Array nccl_collective(Communicator::Impl& c, Collective kind, const Array& x, Op op, int root, DType t,
                      const Shape& out_shape, const Device& d);
}  // namespace porta::mpi::detail
