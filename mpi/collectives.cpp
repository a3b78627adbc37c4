// The collectives on host memory. Each rank's array is read on the host in row-major order after
// porta's pending writes of it (HostInput: in place on Kokkos and PoCL, else a copy; a strided
// view is made contiguous first), MPI moves and reduces it straight into the result's memory
// (HostOutput: a new array on the input's device), and porta's later work on the result waits for
// that write. iallreduce keeps copies in its request, since its buffers outlive the call.
#include "host_view.hpp"
#include "mpi_impl.hpp"

#include <algorithm>
#include <cstring>

namespace porta::mpi {
namespace detail {

std::byte* thread_staging(int slot, std::size_t n) {
  struct Buffer {
    std::unique_ptr<std::byte[]> data;
    std::size_t capacity = 0;
  };
  thread_local Buffer buffers[3];
  auto& b = buffers[slot];
  n = std::max<std::size_t>(n, 64);
  if (b.capacity < n) {
    b.data.reset();
    b.data = std::make_unique_for_overwrite<std::byte[]>(n);
    b.capacity = n;
  }
  return b.data.get();
}

}  // namespace detail

namespace {

using detail::check;
using detail::HostInput;
using detail::HostOutput;

std::size_t bytes_of(const Array& x) { return static_cast<std::size_t>(x.size()) * itemsize(x.dtype()); }

void stage_in(const Array& x, void* dst) {
  if (x.size() > 0) x.to_host(x.dtype(), dst, bytes_of(x));
}

Array stage_out(const void* src, DType t, Shape s, const Device& d) { return from_host(src, t, std::move(s), d); }

std::size_t reduce_itemsize(DType t) { return detail::reduces_widened(t) ? sizeof(float) : itemsize(t); }

// n elements of `in` reduced over the ranks into `out` (every rank's, or root's only: root >= 0;
// out is unused elsewhere), in pieces MPI's int counts can hold. float16/bfloat16 are widened to
// float32 in a staging buffer, reduced there in place, and narrowed into `out`.
void reduce_into(MPI_Comm comm, int rank, const void* in, void* out, DType t, std::size_t n, Op op, int root) {
  const MPI_Datatype type = detail::reduce_type(t);
  const MPI_Op mop = detail::mpi_op(op, t);
  const bool widened = detail::reduces_widened(t);
  float* wide = nullptr;
  if (widened) {
    wide = reinterpret_cast<float*>(detail::thread_staging(2, n * sizeof(float)));
    detail::widen(t, in, wide, n);
  }
  const bool receives = root < 0 || rank == root;
  for (std::size_t off = 0; off < n; off += detail::kMaxCount) {
    const int count = static_cast<int>(std::min(n - off, detail::kMaxCount));
    const std::size_t at = off * reduce_itemsize(t);
    const void* send = widened ? static_cast<const void*>(reinterpret_cast<std::byte*>(wide) + at)
                               : static_cast<const void*>(static_cast<const std::byte*>(in) + at);
    void* recv = receives ? static_cast<void*>(static_cast<std::byte*>(out) + at) : nullptr;
    if (widened) {
      send = rank == root || root < 0 ? MPI_IN_PLACE : send;
      recv = receives ? reinterpret_cast<std::byte*>(wide) + at : nullptr;
    }
    if (root < 0) {
      check(MPI_Allreduce(send, recv, count, type, mop, comm), "MPI_Allreduce");
    } else {
      check(MPI_Reduce(send, recv, count, type, mop, root, comm), "MPI_Reduce");
    }
  }
  if (widened && receives) detail::narrow(t, wide, out, n);
}

// This rank's descriptor, marked as an NCCL candidate when its array is a CUDA array on the
// communicator's device (or, for a broadcast receiver without one, when that device is CUDA).
detail::Descriptor described(const Communicator& c, detail::Collective kind, const Array& x, Op op = Op::sum,
                             int root = 0) {
  detail::Descriptor d = detail::describe(kind, x, op, root);
  const Device dev = x.valid() ? x.device() : c.device();
  d.nccl_candidate = detail::nccl_path_built() && dev.backend() == Backend::cuda && dev == c.device();
  return d;
}

}  // namespace

Array Communicator::allreduce(const Array& x, Op op) const {
  detail::mpi_op(op, DType::float32);  // an op value out of range is an error before any exchange
  const auto all = detail::agree(impl_->comm, described(*this, detail::Collective::allreduce, x, op));
  if (detail::route_to_nccl(*impl_, all, x.device()))
    return detail::nccl_collective(*impl_, detail::Collective::allreduce, x, op, -1, x.dtype(), x.shape(), x.device());
  const std::size_t n = static_cast<std::size_t>(x.size());
  HostOutput out(x.dtype(), x.shape(), x.device());
  if (n > 0) {
    HostInput in(x);
    reduce_into(impl_->comm, impl_->rank, in.data(), out.data(), x.dtype(), n, op, -1);
  }
  return out.finish();
}

Array Communicator::reduce(const Array& x, Op op, int root) const {
  detail::mpi_op(op, DType::float32);
  const auto all = detail::agree(impl_->comm, described(*this, detail::Collective::reduce, x, op, root));
  if (detail::route_to_nccl(*impl_, all, x.device()))
    return detail::nccl_collective(*impl_, detail::Collective::reduce, x, op, root, x.dtype(), x.shape(), x.device());
  const std::size_t n = static_cast<std::size_t>(x.size());
  if (impl_->rank != root) {
    if (n > 0) {
      HostInput in(x);
      reduce_into(impl_->comm, impl_->rank, in.data(), nullptr, x.dtype(), n, op, root);
    }
    return Array();
  }
  HostOutput out(x.dtype(), x.shape(), x.device());
  if (n > 0) {
    HostInput in(x);
    reduce_into(impl_->comm, impl_->rank, in.data(), out.data(), x.dtype(), n, op, root);
  }
  return out.finish();
}

Array Communicator::broadcast(const Array& x, int root) const {
  const auto all = detail::agree(impl_->comm, described(*this, detail::Collective::broadcast, x, Op::sum, root));
  const auto& ref = all[static_cast<std::size_t>(root)];
  const DType t = static_cast<DType>(ref.dtype);
  const Shape shape = detail::shape_of(ref);
  const Device target = x.valid() ? x.device() : device();
  if (detail::route_to_nccl(*impl_, all, target))
    return detail::nccl_collective(*impl_, detail::Collective::broadcast, x, Op::sum, root, t, shape, target);
  const std::size_t n = static_cast<std::size_t>(element_count(shape));
  const MPI_Datatype type = detail::transfer_type(t);
  auto send_pieces = [&](void* data) {
    for (std::size_t off = 0; off < n; off += detail::kMaxCount) {
      const int count = static_cast<int>(std::min(n - off, detail::kMaxCount));
      check(MPI_Bcast(static_cast<std::byte*>(data) + off * itemsize(t), count, type, root, impl_->comm), "MPI_Bcast");
    }
  };
  if (impl_->rank == root) {
    if (n > 0) {
      HostInput in(x);
      // MPI_Bcast takes a non-const buffer; the root's is only read.
      send_pieces(const_cast<std::byte*>(in.data()));
    }
    return x;
  }
  HostOutput out(t, shape, target);
  if (n > 0) send_pieces(out.data());
  return out.finish();
}

Array Communicator::allgather(const Array& x) const {
  const auto all = detail::agree(impl_->comm, described(*this, detail::Collective::allgather, x));
  const std::size_t n = static_cast<std::size_t>(x.size());
  Shape shape = x.shape();
  shape.insert(shape.begin(), impl_->size);
  if (detail::route_to_nccl(*impl_, all, x.device()))
    return detail::nccl_collective(*impl_, detail::Collective::allgather, x, Op::sum, -1, x.dtype(), shape, x.device());
  const int count = detail::checked_count(n, "allgather");
  HostOutput out(x.dtype(), std::move(shape), x.device());
  if (n > 0) {
    HostInput in(x);
    const MPI_Datatype type = detail::transfer_type(x.dtype());
    check(MPI_Allgather(in.data(), count, type, out.data(), count, type, impl_->comm), "MPI_Allgather");
  }
  return out.finish();
}

Array Communicator::reduce_scatter(const Array& x, Op op) const {
  detail::mpi_op(op, DType::float32);
  const auto all = detail::agree(impl_->comm, described(*this, detail::Collective::reduce_scatter, x, op));
  const DType t = x.dtype();
  const std::size_t n = static_cast<std::size_t>(x.size());
  const std::size_t block = n / static_cast<std::size_t>(impl_->size);
  Shape shape = x.shape();
  shape[0] /= impl_->size;
  if (detail::route_to_nccl(*impl_, all, x.device()))
    return detail::nccl_collective(*impl_, detail::Collective::reduce_scatter, x, op, -1, t, shape, x.device());
  const int count = detail::checked_count(block, "reduce_scatter");
  HostOutput out(t, std::move(shape), x.device());
  if (block > 0) {
    HostInput in(x);
    const void* send = in.data();
    void* recv = out.data();
    float* wide = nullptr;
    if (detail::reduces_widened(t)) {
      // The whole input widened in slot 2; this rank's float32 block lands at its start.
      wide = reinterpret_cast<float*>(detail::thread_staging(2, n * sizeof(float)));
      detail::widen(t, in.data(), wide, n);
      send = wide;
    }
    if (wide) {
      std::vector<float> block_sum(block);
      check(MPI_Reduce_scatter_block(send, block_sum.data(), count, MPI_FLOAT, detail::mpi_op(op, t), impl_->comm),
            "MPI_Reduce_scatter_block");
      detail::narrow(t, block_sum.data(), out.data(), block);
    } else {
      check(MPI_Reduce_scatter_block(send, recv, count, detail::reduce_type(t), detail::mpi_op(op, t), impl_->comm),
            "MPI_Reduce_scatter_block");
    }
  }
  return out.finish();
}

Array Communicator::alltoall(const Array& x) const {
  const auto all = detail::agree(impl_->comm, described(*this, detail::Collective::alltoall, x));
  if (detail::route_to_nccl(*impl_, all, x.device()))
    return detail::nccl_collective(*impl_, detail::Collective::alltoall, x, Op::sum, -1, x.dtype(), x.shape(), x.device());
  const std::size_t block = static_cast<std::size_t>(x.size()) / static_cast<std::size_t>(impl_->size);
  const int count = detail::checked_count(block, "alltoall");
  HostOutput out(x.dtype(), x.shape(), x.device());
  if (block > 0) {
    HostInput in(x);
    const MPI_Datatype type = detail::transfer_type(x.dtype());
    check(MPI_Alltoall(in.data(), count, type, out.data(), count, type, impl_->comm), "MPI_Alltoall");
  }
  return out.finish();
}

namespace {

// iallreduce: the data lives in the request's own buffer until wait().
struct AllreduceState final : Request::State {
  std::shared_ptr<Communicator::Impl> owner;  // keeps the communicator while the request lives
  std::unique_ptr<std::byte[]> buffer;
  std::unique_ptr<float[]> wide;
  std::vector<MPI_Request> requests;
  DType dtype = DType::float32;
  Shape shape;
  Device device;
  bool done = false;

  bool test() override {
    if (done || requests.empty()) return true;
    int flag = 0;
    check(MPI_Testall(static_cast<int>(requests.size()), requests.data(), &flag, MPI_STATUSES_IGNORE), "MPI_Testall");
    return flag != 0;
  }
  Array wait() override {
    if (done) throw InvalidArgument("porta::mpi::Request::wait: this request was already waited for");
    if (!requests.empty())
      check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    done = true;
    const std::size_t n = static_cast<std::size_t>(element_count(shape));
    if (wide) detail::narrow(dtype, wide.get(), buffer.get(), n);
    return stage_out(buffer.get(), dtype, shape, device);
  }
  void abandon() noexcept override {
    if (!done && !requests.empty())
      detail::check_noexcept(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
                             "MPI_Waitall");
    done = true;
  }
};

}  // namespace

Request Communicator::iallreduce(const Array& x, Op op) const {
  detail::mpi_op(op, DType::float32);
  detail::agree(impl_->comm, detail::describe(detail::Collective::iallreduce, x, op));
  ++impl_->host_collectives;  // NCCL has no request to hand back: iallreduce always takes the host path
  auto s = std::make_unique<AllreduceState>();
  s->owner = impl_;
  s->dtype = x.dtype();
  s->shape = x.shape();
  s->device = x.device();
  const std::size_t n = static_cast<std::size_t>(x.size());
  s->buffer = std::make_unique_for_overwrite<std::byte[]>(std::max<std::size_t>(bytes_of(x), 1));
  stage_in(x, s->buffer.get());
  void* data = s->buffer.get();
  if (detail::reduces_widened(s->dtype)) {
    s->wide = std::make_unique_for_overwrite<float[]>(std::max<std::size_t>(n, 1));
    detail::widen(s->dtype, s->buffer.get(), s->wide.get(), n);
    data = s->wide.get();
  }
  const MPI_Datatype type = detail::reduce_type(s->dtype);
  const MPI_Op mop = detail::mpi_op(op, s->dtype);
  for (std::size_t off = 0; off < n; off += detail::kMaxCount) {
    const int count = static_cast<int>(std::min(n - off, detail::kMaxCount));
    MPI_Request r = MPI_REQUEST_NULL;
    check(MPI_Iallreduce(MPI_IN_PLACE, static_cast<std::byte*>(data) + off * reduce_itemsize(s->dtype), count, type, mop,
                         impl_->comm, &r),
          "MPI_Iallreduce");
    s->requests.push_back(r);
  }
  return Request(std::move(s));
}

Request::Request(std::unique_ptr<State> s) : state_(std::move(s)) {}
Request::Request(Request&&) noexcept = default;
Request& Request::operator=(Request&& o) noexcept {
  if (this != &o) {
    if (state_) state_->abandon();
    state_ = std::move(o.state_);
  }
  return *this;
}
Request::~Request() {
  if (state_) state_->abandon();
}
bool Request::test() {
  if (!state_) throw InvalidArgument("porta::mpi::Request::test: the request is empty (default or moved from)");
  return state_->test();
}
Array Request::wait() {
  if (!state_) throw InvalidArgument("porta::mpi::Request::wait: the request is empty (default or moved from)");
  return state_->wait();
}

}  // namespace porta::mpi
