// porta::mpi: porta arrays across MPI ranks (library porta_mpi, CMake target porta::mpi).
// Opt-in, like an interop header: it includes <mpi.h>, which nothing else in porta does.
//
// A Communicator wraps an MPI_Comm. Its collectives take porta arrays and give new arrays on the
// input's device; before any data moves, the ranks exchange a small descriptor of what each
// passed (the collective, shape, dtype, op, root), so a mismatch is the same porta error on every
// rank instead of a hang or a corrupt result. Data goes through host memory with MPI (CPU
// devices, and CUDA arrays where NCCL is not available); see docs/guide/mpi.md.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <porta/array.hpp>
#include <porta/device.hpp>

namespace porta::mpi {

enum class Op : std::uint8_t { sum, prod, min, max };
std::string_view name(Op op);

// What this build and the running MPI library can do (porta-mpi-info prints it).
struct LibraryInfo {
  std::string mpi_library;     // MPI_Get_library_version, first line
  int mpi_version = 0;         // MPI standard, e.g. 3.1
  int mpi_subversion = 0;
  bool cuda_aware_known = false;  // the library answers MPIX_Query_cuda_support
  bool cuda_aware = false;        // ... and says yes, at run time
  bool nccl_built = false;        // NCCL was found when porta_mpi was configured
  std::string nccl_version;       // "2.28.3" when built with NCCL
  bool nccl_used = false;         // CUDA arrays go through NCCL (needs the CUDA native handles)
  int thread_level = -1;          // MPI_Query_thread; -1 before MPI_Init
};
LibraryInfo library_info();
// The thread level porta asks MPI_Init_thread for: MPI_THREAD_MULTIPLE, so that two threads of
// one rank may run collectives at once, each on its own Communicator (see Communicator::dup).
inline constexpr int kThreadLevel = MPI_THREAD_MULTIPLE;

// Initialises MPI (MPI_Init_thread at kThreadLevel) unless the program already did, and finalises
// it at the end of the scope if it was the one that initialised it. Throws porta::Error when MPI
// gives a lower thread level than MPI_THREAD_SERIALIZED.
class Environment {
 public:
  Environment(int* argc, char*** argv);
  Environment() : Environment(nullptr, nullptr) {}
  ~Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
  int thread_level() const { return provided_; }

 private:
  bool owns_ = false;
  int provided_ = 0;
};

class Communicator;

// A non-blocking operation. wait() gives its result (an invalid Array for sends); the destructor
// of a request never waited for waits for it, so buffers never go away under MPI.
class Request {
 public:
  Request() = default;
  Request(Request&&) noexcept;
  Request& operator=(Request&&) noexcept;
  ~Request();
  bool valid() const { return state_ != nullptr; }
  // True once the operation has finished (it then no longer needs the network).
  bool test();
  Array wait();

  struct State;
  explicit Request(std::unique_ptr<State> s);

 private:
  std::unique_ptr<State> state_;
};

// Making a Communicator is collective (every rank of the MPI_Comm makes it, in the same order), as
// is every collective below; rank(), size() and device() are not. Messages of up to 2^30 elements
// (2^30 bytes for send/recv) go in one MPI call; allreduce, reduce and broadcast cut larger arrays
// in pieces, the others refuse them (InvalidArgument).
class Communicator {
 public:
  Communicator();  // MPI_COMM_WORLD
  // Wraps `comm`, which the caller keeps and frees after the last copy of this Communicator.
  explicit Communicator(MPI_Comm comm);

  // A new communicator of the same ranks (MPI_Comm_dup), owned by the result. MPI orders the
  // collectives of one communicator by the order of the calls: two threads of a rank that run
  // collectives at the same time need a communicator each, made here in the same order on every
  // rank.
  Communicator dup() const;

  MPI_Comm comm() const;
  int rank() const;
  int size() const;
  int local_rank() const;  // this rank's index among the ranks of its host
  int local_size() const;
  // The device this rank should use: PORTA_DEVICE when set; else GPU number local_rank() (modulo
  // their count) of the first backend that has GPUs; else the default (CPU) device. The same on
  // every call.
  Device device() const;

  // Element-wise reduction over the ranks; every rank gets the result, on its input's device.
  Array allreduce(const Array& x, Op op = Op::sum) const;
  // The result on `root`; an invalid Array on the other ranks.
  Array reduce(const Array& x, Op op, int root) const;
  // Root's array on every rank. The other ranks pass an array of the same shape and dtype, or an
  // invalid Array() to take root's shape and dtype (the result is then on device()).
  Array broadcast(const Array& x, int root) const;
  // Every rank's x stacked along a new first axis: shape (size(), *x.shape()).
  Array allgather(const Array& x) const;
  // x's first axis (a multiple of size()) cut into size() blocks; block r of the reduction goes
  // to rank r: shape (x.dim(0) / size(), ...).
  Array reduce_scatter(const Array& x, Op op = Op::sum) const;
  // Block r (of size() blocks along the first axis) goes to rank r; block s of the result came
  // from rank s.
  Array alltoall(const Array& x) const;

  // Point to point. The message carries x's shape and dtype: recv gives an array of the sender's
  // shape on `d` (default device()); recv_like checks them against `like` (ShapeError/DTypeError,
  // after the message has been received, so nothing is left in flight).
  void send(const Array& x, int dest, int tag = 0) const;
  Array recv(int source, int tag = 0, Device d = {}) const;
  Array recv_like(const Array& like, int source, int tag = 0) const;
  Request isend(const Array& x, int dest, int tag = 0) const;
  Request irecv(int source, int tag = 0, Device d = {}) const;
  // The descriptors are agreed before the call returns (a small blocking exchange); the data
  // moves while the caller works, and wait() gives the result.
  Request iallreduce(const Array& x, Op op = Op::sum) const;

  void barrier() const;

  // Which engine moved the data of this communicator's collectives so far (its copies share the
  // counts; dup() starts new ones): NCCL for CUDA arrays when every rank has one on its device and
  // NCCL accepted the ranks, else the host path (MPI on host memory, or device pointers to a
  // CUDA-aware MPI). A collective with nothing to move (zero-size arrays) counts as the path it took.
  struct TransportCounts {
    std::uint64_t nccl = 0;
    std::uint64_t host = 0;
  };
  TransportCounts transport_counts() const;

  struct Impl;

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace porta::mpi
