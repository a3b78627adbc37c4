// NCCL for CUDA device memory: one NCCL communicator per porta communicator, set up through MPI
// (rank 0's ncclUniqueId broadcast to the others, as NCCL's MPI examples do), and the collectives
// on the arrays' CUdeviceptrs on this thread's porta stream: the stream waits for porta's pending
// writes of the input (an event, not a host wait), and porta's later work on the output waits for
// the stream. Built when NCCL was found at configure time and porta has its CUDA native handles.
#include "mpi_impl.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(PORTA_MPI_NCCL) && __has_include(<porta/native/cuda.hpp>)
#define PORTA_MPI_NCCL_PATH 1
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <porta/native/cuda.hpp>
#include <porta/settings.hpp>
#elif defined(PORTA_MPI_NCCL)
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

#if defined(PORTA_MPI_NCCL_PATH)

bool nccl_path_built() { return true; }

namespace {

void check_nccl(ncclResult_t rc, const char* call) {
  if (rc != ncclSuccess) throw DeviceError(std::string("porta::mpi: ") + call + " failed: " + ncclGetErrorString(rc));
}

// How NCCL carries a porta dtype: its type and how many of it make one element. int16 and uint16
// (NCCL has no 16-bit integer type) move as two uint8 each; complex numbers as two floats of their
// parts' width, which sums add part by part as a complex sum does.
struct Carrier {
  ncclDataType_t type;
  std::size_t per;
};

Carrier nccl_carrier(DType t) {
  switch (t) {
    case DType::boolean: return {ncclUint8, 1};
    case DType::int32: return {ncclInt32, 1};
    case DType::int64: return {ncclInt64, 1};
    case DType::float16: return {ncclFloat16, 1};
    case DType::bfloat16: return {ncclBfloat16, 1};
    case DType::float32: return {ncclFloat32, 1};
    case DType::float64: return {ncclFloat64, 1};
    case DType::int8: return {ncclInt8, 1};
    case DType::uint8: return {ncclUint8, 1};
    case DType::uint32: return {ncclUint32, 1};
    case DType::uint64: return {ncclUint64, 1};
    case DType::int16:
    case DType::uint16: return {ncclUint8, 2};
    case DType::complex64: return {ncclFloat32, 2};
    case DType::complex128: return {ncclFloat64, 2};
  }
  throw DTypeError("porta::mpi: dtype value " + std::to_string(static_cast<int>(t)) + " is not a porta dtype");
}

// A reduction NCCL cannot do with the carrier: 16-bit integers (carried as bytes) and complex
// numbers other than sums (a product or an order is not part by part). Before anything moves.
void check_nccl_reduction(DType t, Op op) {
  if (t == DType::int16 || t == DType::uint16)
    throw DTypeError(std::string("porta::mpi: NCCL has no 16-bit integer type to reduce ") + std::string(name(t)) +
                     " arrays; cast to int32 (astype) first, or keep the array on the host (MPI reduces it)");
  if (is_complex(t) && op != Op::sum)
    throw DTypeError(std::string("porta::mpi: NCCL reduces ") + std::string(name(t)) +
                     " arrays by sum only (as two floats a number); cast, or keep the array on the host for prod");
}

// bool arrays hold 0 and 1: "or" is max and "and" is min (NCCL has no logical ops).
ncclRedOp_t nccl_op(Op op, DType t) {
  if (t == DType::boolean) return (op == Op::sum || op == Op::max) ? ncclMax : ncclMin;
  switch (op) {
    case Op::sum: return ncclSum;
    case Op::prod: return ncclProd;
    case Op::min: return ncclMin;
    case Op::max: return ncclMax;
  }
  return ncclSum;
}

// NCCL refuses a communicator in which two ranks share a GPU ("Duplicate GPU detected"): each
// rank's host and PCI bus id, gathered, tell whether that is the case before NCCL is asked.
bool gpus_distinct(MPI_Comm comm, int size, const Device& d) {
  constexpr int kLen = 320;
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  check(MPI_Get_processor_name(host, &len), "MPI_Get_processor_name");
  std::string mine = std::string(host) + "/" + (d.pci_bus_id().empty() ? d.spec() : d.pci_bus_id());
  mine.resize(kLen - 1, '\0');
  std::vector<char> all(static_cast<std::size_t>(kLen) * static_cast<std::size_t>(size));
  check(MPI_Allgather(mine.data(), kLen, MPI_CHAR, all.data(), kLen, MPI_CHAR, comm), "MPI_Allgather");
  for (int i = 0; i < size; ++i)
    for (int j = i + 1; j < size; ++j)
      if (std::memcmp(&all[static_cast<std::size_t>(i) * kLen], &all[static_cast<std::size_t>(j) * kLen], kLen) == 0)
        return false;
  return true;
}

}  // namespace

void nccl_destroy(void* comm) noexcept {
  if (comm) ncclCommDestroy(static_cast<ncclComm_t>(comm));
}

bool nccl_usable(Communicator::Impl& c, const std::vector<Descriptor>& all, const Device& d) {
  for (const auto& x : all)
    if (!x.nccl_candidate) return false;
  std::lock_guard lock(c.nccl_mutex);
  if (c.nccl_tried) return c.nccl_comm != nullptr;
  c.nccl_tried = true;
  // PORTA_MPI_NCCL_SHARED_GPU=1 asks NCCL anyway (a failed init still falls back on every rank).
  const bool ask_anyway = porta::setting_flag("PORTA_MPI_NCCL_SHARED_GPU");
  if (!gpus_distinct(c.comm, c.size, d)) {
    if (!ask_anyway) {
      if (c.rank == 0)
        std::fprintf(stderr, "porta::mpi: two ranks share a GPU, which NCCL refuses; CUDA arrays go through the host"
                             " (PORTA_MPI_NCCL_SHARED_GPU=1 runs them through NCCL's socket transport instead)\n");
      return false;
    }
    // NCCL refuses two ranks of one host on one GPU, but ranks it takes for different hosts it links
    // through its network transport. Each rank names a host of its own (NCCL_HOSTID, read when NCCL
    // first initialises, which is below) and NCCL's sockets take the loopback interface: the NCCL
    // path end to end on one GPU, at socket speed. For testing; the user's NCCL_SOCKET_IFNAME and
    // NCCL_IB_DISABLE stand.
    const std::string host_id = "porta-shared-gpu-rank-" + std::to_string(c.rank);
    setenv("NCCL_HOSTID", host_id.c_str(), 1);
    setenv("NCCL_SOCKET_IFNAME", "lo", 0);
    setenv("NCCL_IB_DISABLE", "1", 0);
    if (c.rank == 0)
      std::fprintf(stderr, "porta::mpi: two ranks share a GPU; PORTA_MPI_NCCL_SHARED_GPU=1: each rank is its own NCCL"
                           " host, linked by NCCL's sockets on the loopback interface\n");
  }
  ncclUniqueId id;
  std::memset(&id, 0, sizeof id);
  int ok = 1;
  if (c.rank == 0) ok = ncclGetUniqueId(&id) == ncclSuccess;
  check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, c.comm), "MPI_Bcast");
  // NCCL takes the calling thread's current CUDA device: the array's, in its primary context.
  if (ok && cudaSetDevice(native::cuda_device(d)) != cudaSuccess) ok = 0;
  ncclComm_t comm = nullptr;
  if (ok) ok = ncclCommInitRank(&comm, c.size, id, c.rank) == ncclSuccess;
  check(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, c.comm), "MPI_Allreduce");
  if (!ok) {
    nccl_destroy(comm);
    if (c.rank == 0) std::fprintf(stderr, "porta::mpi: NCCL could not be set up; CUDA arrays go through the host\n");
    return false;
  }
  c.nccl_comm = comm;
  return true;
}

Array nccl_collective(Communicator::Impl& c, Collective kind, const Array& x, Op op, int root, DType t,
                      const Shape& out_shape, const Device& d) {
  if (kind == Collective::allreduce || kind == Collective::reduce || kind == Collective::reduce_scatter) check_nccl_reduction(t, op);
  auto* comm = static_cast<ncclComm_t>(c.nccl_comm);
  const CUstream stream = native::cuda_stream(d);
  auto* s = reinterpret_cast<cudaStream_t>(stream);
  const bool sends = x.valid();
  const Array in = sends ? x.contiguous() : Array();
  const std::size_t n = sends ? static_cast<std::size_t>(in.size()) : 0;
  const bool receives = kind != Collective::reduce || c.rank == root;
  const bool in_place_root = kind == Collective::broadcast && c.rank == root;
  Array out = receives && !in_place_root ? empty(out_shape, t, d) : Array();
  if (element_count(out_shape) == 0) return kind == Collective::broadcast && c.rank == root ? x : out;

  const void* src = nullptr;
  void* dst = nullptr;
  if (sends) {
    native::stream_wait_for(stream, in);
    src = reinterpret_cast<const void*>(native::cuda_pointer(in));
  }
  if (out.valid()) {
    native::stream_wait_for(stream, out);
    dst = reinterpret_cast<void*>(native::cuda_pointer(out));
  }
  // Counts in the carrier's elements (Carrier: per of them a porta element).
  const Carrier carrier = nccl_carrier(t);
  const ncclDataType_t type = carrier.type;
  const std::size_t per = carrier.per;
  switch (kind) {
    case Collective::allreduce:
      check_nccl(ncclAllReduce(src, dst, n * per, type, nccl_op(op, t), comm, s), "ncclAllReduce");
      break;
    case Collective::reduce:
      check_nccl(ncclReduce(src, dst, n * per, type, nccl_op(op, t), root, comm, s), "ncclReduce");
      break;
    case Collective::broadcast: {
      // Root sends its own array in place; the others receive into a new one.
      void* buf = in_place_root ? const_cast<void*>(src) : dst;
      const std::size_t count = static_cast<std::size_t>(element_count(out_shape));
      check_nccl(ncclBroadcast(in_place_root ? src : buf, buf, count * per, type, root, comm, s), "ncclBroadcast");
      break;
    }
    case Collective::allgather: check_nccl(ncclAllGather(src, dst, n * per, type, comm, s), "ncclAllGather"); break;
    case Collective::reduce_scatter:
      check_nccl(ncclReduceScatter(src, dst, n / static_cast<std::size_t>(c.size) * per, type, nccl_op(op, t), comm, s),
                 "ncclReduceScatter");
      break;
    case Collective::alltoall: {
      const std::size_t block = n / static_cast<std::size_t>(c.size);
      const std::size_t bytes = block * itemsize(t);
      check_nccl(ncclGroupStart(), "ncclGroupStart");
      for (int peer = 0; peer < c.size; ++peer) {
        check_nccl(ncclSend(static_cast<const std::byte*>(src) + bytes * static_cast<std::size_t>(peer), block * per, type, peer,
                            comm, s),
                   "ncclSend");
        check_nccl(ncclRecv(static_cast<std::byte*>(dst) + bytes * static_cast<std::size_t>(peer), block * per, type, peer, comm, s),
                   "ncclRecv");
      }
      check_nccl(ncclGroupEnd(), "ncclGroupEnd");
      break;
    }
    case Collective::iallreduce: throw InvalidArgument("porta::mpi: iallreduce does not go through NCCL");
  }
  // porta's later work on the result (and on the input's memory, which NCCL read) waits for the
  // stream: an event, not a host wait.
  if (out.valid()) native::wait_for_stream(out, stream);
  if (sends) native::wait_for_stream(in, stream);
  if (in_place_root) return x;
  return out;
}

#else

bool nccl_path_built() { return false; }
void nccl_destroy(void*) noexcept {}
bool nccl_usable(Communicator::Impl&, const std::vector<Descriptor>&, const Device&) { return false; }
Array nccl_collective(Communicator::Impl&, Collective, const Array&, Op, int, DType, const Shape&, const Device&) {
  throw Error("porta::mpi: this build has no NCCL path");
}

#endif

}  // namespace porta::mpi::detail
