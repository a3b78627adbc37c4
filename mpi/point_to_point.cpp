// send/recv: one MPI message of a small header (dtype and shape) followed by the elements in
// row-major order, so the receiver learns the shape from the message itself (MPI_Mprobe, then
// MPI_Mrecv of exactly that message: safe when other threads receive on the same communicator).
#include "mpi_impl.hpp"

#include <cstdio>
#include <cstring>

namespace porta::mpi {
namespace {

using detail::check;
using detail::Descriptor;

std::vector<std::byte> pack(const Array& x) {
  if (!x.valid()) throw InvalidArgument("porta::mpi::Communicator::send: the array is invalid (default or moved from)");
  Descriptor h = detail::describe(detail::Collective::allreduce, x);
  if (h.status != 0)
    throw ShapeError("porta::mpi::Communicator::send: an array of " + std::to_string(x.ndim()) +
                     " dimensions; porta::mpi moves arrays of up to " + std::to_string(detail::kMaxDims));
  const std::size_t bytes = static_cast<std::size_t>(x.size()) * itemsize(x.dtype());
  detail::checked_count(sizeof h + bytes, "send (bytes)");
  std::vector<std::byte> m(sizeof h + bytes);
  std::memcpy(m.data(), &h, sizeof h);
  if (bytes > 0) x.to_host(x.dtype(), m.data() + sizeof h, bytes);
  return m;
}

Array unpack(const std::vector<std::byte>& m, int source, const Device& d) {
  Descriptor h;
  if (m.size() < sizeof h)
    throw Error("porta::mpi::Communicator::recv: a message of " + std::to_string(m.size()) + " bytes from rank " +
                std::to_string(source) + " is not a porta array (was it sent with Communicator::send?)");
  std::memcpy(&h, m.data(), sizeof h);
  const DType t = static_cast<DType>(h.dtype);
  const Shape shape = detail::shape_of(h);
  const std::size_t bytes = static_cast<std::size_t>(element_count(shape)) * itemsize(t);
  if (m.size() != sizeof h + bytes)
    throw Error("porta::mpi::Communicator::recv: the message from rank " + std::to_string(source) + " holds " +
                std::to_string(m.size() - sizeof h) + " bytes of data for a " + to_string(shape) + " " +
                std::string(porta::name(t)) + " array (" + std::to_string(bytes) + " bytes)");
  return from_host(m.data() + sizeof h, t, shape, d);
}

std::vector<std::byte> receive_matched(MPI_Message* msg, MPI_Status* status) {
  int bytes = 0;
  check(MPI_Get_count(status, MPI_BYTE, &bytes), "MPI_Get_count");
  std::vector<std::byte> m(static_cast<std::size_t>(bytes));
  check(MPI_Mrecv(m.data(), bytes, MPI_BYTE, msg, MPI_STATUS_IGNORE), "MPI_Mrecv");
  return m;
}

struct SendState final : Request::State {
  std::shared_ptr<Communicator::Impl> owner;
  std::vector<std::byte> message;
  MPI_Request request = MPI_REQUEST_NULL;
  bool done = false;
  bool test() override {
    if (done) return true;
    int flag = 0;
    check(MPI_Test(&request, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    return flag != 0;
  }
  Array wait() override {
    if (done) throw InvalidArgument("porta::mpi::Request::wait: this request was already waited for");
    check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
    done = true;
    return Array();
  }
  void abandon() noexcept override {
    if (!done) detail::check_noexcept(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
    done = true;
  }
};

// A receive is matched (MPI_Improbe) by test() or wait(), then received into a buffer of the size
// the message has.
struct RecvState final : Request::State {
  std::shared_ptr<Communicator::Impl> owner;  // keeps the communicator while the request lives
  MPI_Comm comm = MPI_COMM_NULL;
  int source = 0;
  int tag = 0;
  Device device;
  std::vector<std::byte> message;
  MPI_Request request = MPI_REQUEST_NULL;
  int from = 0;
  bool matched = false;
  bool done = false;

  bool match(bool block) {
    if (matched) return true;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status status;
    if (block) {
      check(MPI_Mprobe(source, tag, comm, &msg, &status), "MPI_Mprobe");
    } else {
      int flag = 0;
      check(MPI_Improbe(source, tag, comm, &flag, &msg, &status), "MPI_Improbe");
      if (!flag) return false;
    }
    int bytes = 0;
    check(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
    from = status.MPI_SOURCE;
    message.resize(static_cast<std::size_t>(bytes));
    check(MPI_Imrecv(message.data(), bytes, MPI_BYTE, &msg, &request), "MPI_Imrecv");
    matched = true;
    return true;
  }
  bool test() override {
    if (done) return true;
    if (!match(false)) return false;
    int flag = 0;
    check(MPI_Test(&request, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    return flag != 0;
  }
  Array wait() override {
    if (done) throw InvalidArgument("porta::mpi::Request::wait: this request was already waited for");
    match(true);
    check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
    done = true;
    return unpack(message, from, device);
  }
  void abandon() noexcept override {
    // A receive nobody waits for is completed, so the sender is not left hanging.
    try {
      if (!done) {
        match(true);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "porta::mpi: an abandoned receive failed: %s\n", e.what());
    }
    done = true;
  }
};

void check_peer(int peer, int size, bool any_allowed, const char* what) {
  if (any_allowed && peer == MPI_ANY_SOURCE) return;
  if (peer < 0 || peer >= size)
    throw InvalidArgument(std::string("porta::mpi::Communicator::") + what + ": rank " + std::to_string(peer) +
                          " is not a rank of this communicator (0 to " + std::to_string(size - 1) + ")");
}

}  // namespace

void Communicator::send(const Array& x, int dest, int tag) const {
  check_peer(dest, impl_->size, false, "send");
  const auto m = pack(x);
  check(MPI_Send(m.data(), static_cast<int>(m.size()), MPI_BYTE, dest, tag, impl_->comm), "MPI_Send");
}

Array Communicator::recv(int source, int tag, Device d) const {
  check_peer(source, impl_->size, true, "recv");
  MPI_Message msg = MPI_MESSAGE_NULL;
  MPI_Status status;
  check(MPI_Mprobe(source, tag, impl_->comm, &msg, &status), "MPI_Mprobe");
  const int from = status.MPI_SOURCE;
  const auto m = receive_matched(&msg, &status);
  return unpack(m, from, d.valid() ? d : device());
}

Array Communicator::recv_like(const Array& like, int source, int tag) const {
  if (!like.valid()) throw InvalidArgument("porta::mpi::Communicator::recv_like: `like` is an invalid Array");
  Array got = recv(source, tag, like.device());
  if (got.dtype() != like.dtype())
    throw DTypeError("porta::mpi::Communicator::recv_like: rank " + std::to_string(source) + " sent " +
                     std::string(porta::name(got.dtype())) + ", expected " + std::string(porta::name(like.dtype())));
  if (got.shape() != like.shape())
    throw ShapeError("porta::mpi::Communicator::recv_like: rank " + std::to_string(source) + " sent shape " +
                     to_string(got.shape()) + ", expected " + to_string(like.shape()));
  return got;
}

Request Communicator::isend(const Array& x, int dest, int tag) const {
  check_peer(dest, impl_->size, false, "isend");
  auto s = std::make_unique<SendState>();
  s->owner = impl_;
  s->message = pack(x);
  check(MPI_Isend(s->message.data(), static_cast<int>(s->message.size()), MPI_BYTE, dest, tag, impl_->comm, &s->request),
        "MPI_Isend");
  return Request(std::move(s));
}

Request Communicator::irecv(int source, int tag, Device d) const {
  check_peer(source, impl_->size, true, "irecv");
  auto s = std::make_unique<RecvState>();
  s->owner = impl_;
  s->comm = impl_->comm;
  s->source = source;
  s->tag = tag;
  s->device = d.valid() ? d : device();
  s->match(false);
  return Request(std::move(s));
}

}  // namespace porta::mpi
