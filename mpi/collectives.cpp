// The collectives on host memory: each rank's array is read to a host buffer in row-major order
// (which waits for its pending writes on this thread's queue and gathers a strided view), MPI
// moves and reduces it, and the result becomes a new array on the input's device, so later porta
// work on it is ordered after the transfer by construction.
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

std::size_t bytes_of(const Array& x) { return static_cast<std::size_t>(x.size()) * itemsize(x.dtype()); }

void stage_in(const Array& x, void* dst) {
  if (x.size() > 0) x.to_host(x.dtype(), dst, bytes_of(x));
}

Array stage_out(const void* src, DType t, Shape s, const Device& d) { return from_host(src, t, std::move(s), d); }

// The buffer reductions run on: `buf` itself, or its float32 widening for float16/bfloat16.
void* reduction_input(DType t, void* buf, std::size_t n) {
  if (!detail::reduces_widened(t)) return buf;
  auto* wide = reinterpret_cast<float*>(detail::thread_staging(2, n * sizeof(float)));
  detail::widen(t, buf, wide, n);
  return wide;
}

void reduction_output(DType t, const void* data, void* buf, std::size_t n) {
  if (detail::reduces_widened(t)) detail::narrow(t, static_cast<const float*>(data), buf, n);
}

std::size_t reduce_itemsize(DType t) { return detail::reduces_widened(t) ? sizeof(float) : itemsize(t); }

// In place over n elements, in pieces MPI's int counts can hold; root < 0 means every rank.
void reduce_in_place(MPI_Comm comm, int rank, void* data, DType t, std::size_t n, Op op, int root) {
  const MPI_Datatype type = detail::reduce_type(t);
  const MPI_Op mop = detail::mpi_op(op, t);
  auto* p = static_cast<std::byte*>(data);
  for (std::size_t off = 0; off < n; off += detail::kMaxCount) {
    const int count = static_cast<int>(std::min(n - off, detail::kMaxCount));
    void* at = p + off * reduce_itemsize(t);
    if (root < 0) {
      check(MPI_Allreduce(MPI_IN_PLACE, at, count, type, mop, comm), "MPI_Allreduce");
    } else if (rank == root) {
      check(MPI_Reduce(MPI_IN_PLACE, at, count, type, mop, root, comm), "MPI_Reduce");
    } else {
      check(MPI_Reduce(at, nullptr, count, type, mop, root, comm), "MPI_Reduce");
    }
  }
}

}  // namespace

Array Communicator::allreduce(const Array& x, Op op) const {
  detail::mpi_op(op, DType::float32);  // an op value out of range is an error before any exchange
  detail::agree(impl_->comm, detail::describe(detail::Collective::allreduce, x, op));
  const std::size_t n = static_cast<std::size_t>(x.size());
  const DType t = x.dtype();
  auto* buf = detail::thread_staging(0, bytes_of(x));
  stage_in(x, buf);
  if (n > 0) {
    void* data = reduction_input(t, buf, n);
    reduce_in_place(impl_->comm, impl_->rank, data, t, n, op, -1);
    reduction_output(t, data, buf, n);
  }
  return stage_out(buf, t, x.shape(), x.device());
}

Array Communicator::reduce(const Array& x, Op op, int root) const {
  detail::mpi_op(op, DType::float32);
  detail::agree(impl_->comm, detail::describe(detail::Collective::reduce, x, op, root));
  const std::size_t n = static_cast<std::size_t>(x.size());
  const DType t = x.dtype();
  auto* buf = detail::thread_staging(0, bytes_of(x));
  stage_in(x, buf);
  if (n > 0) {
    void* data = reduction_input(t, buf, n);
    reduce_in_place(impl_->comm, impl_->rank, data, t, n, op, root);
    if (impl_->rank == root) reduction_output(t, data, buf, n);
  }
  if (impl_->rank != root) return Array();
  return stage_out(buf, t, x.shape(), x.device());
}

Array Communicator::broadcast(const Array& x, int root) const {
  const auto all = detail::agree(impl_->comm, detail::describe(detail::Collective::broadcast, x, Op::sum, root));
  const auto& ref = all[static_cast<std::size_t>(root)];
  const DType t = static_cast<DType>(ref.dtype);
  const Shape shape = detail::shape_of(ref);
  const std::size_t n = static_cast<std::size_t>(element_count(shape));
  auto* buf = detail::thread_staging(0, n * itemsize(t));
  if (impl_->rank == root) stage_in(x, buf);
  for (std::size_t off = 0; off < n; off += detail::kMaxCount) {
    const int count = static_cast<int>(std::min(n - off, detail::kMaxCount));
    check(MPI_Bcast(buf + off * itemsize(t), count, detail::transfer_type(t), root, impl_->comm), "MPI_Bcast");
  }
  if (impl_->rank == root) return x;
  return stage_out(buf, t, shape, x.valid() ? x.device() : device());
}

Array Communicator::allgather(const Array& x) const {
  detail::agree(impl_->comm, detail::describe(detail::Collective::allgather, x));
  const DType t = x.dtype();
  const std::size_t n = static_cast<std::size_t>(x.size());
  const int count = detail::checked_count(n, "allgather");
  auto* mine = detail::thread_staging(0, bytes_of(x));
  auto* all = detail::thread_staging(1, bytes_of(x) * static_cast<std::size_t>(impl_->size));
  stage_in(x, mine);
  if (n > 0) {
    const MPI_Datatype type = detail::transfer_type(t);
    check(MPI_Allgather(mine, count, type, all, count, type, impl_->comm), "MPI_Allgather");
  }
  Shape shape = x.shape();
  shape.insert(shape.begin(), impl_->size);
  return stage_out(all, t, std::move(shape), x.device());
}

Array Communicator::reduce_scatter(const Array& x, Op op) const {
  detail::mpi_op(op, DType::float32);
  detail::agree(impl_->comm, detail::describe(detail::Collective::reduce_scatter, x, op));
  const DType t = x.dtype();
  const std::size_t n = static_cast<std::size_t>(x.size());
  const std::size_t block = n / static_cast<std::size_t>(impl_->size);
  const int count = detail::checked_count(block, "reduce_scatter");
  auto* buf = detail::thread_staging(0, bytes_of(x));
  auto* out = detail::thread_staging(1, block * std::max(itemsize(t), reduce_itemsize(t)));
  stage_in(x, buf);
  void* result = out;
  if (block > 0) {
    void* data = reduction_input(t, buf, n);
    check(MPI_Reduce_scatter_block(data, out, count, detail::reduce_type(t), detail::mpi_op(op, t), impl_->comm),
          "MPI_Reduce_scatter_block");
    // float16/bfloat16: the float32 block narrows into the (no longer needed) input buffer.
    if (detail::reduces_widened(t)) {
      detail::narrow(t, reinterpret_cast<const float*>(out), buf, block);
      result = buf;
    }
  }
  Shape shape = x.shape();
  shape[0] /= impl_->size;
  return stage_out(result, t, std::move(shape), x.device());
}

Array Communicator::alltoall(const Array& x) const {
  detail::agree(impl_->comm, detail::describe(detail::Collective::alltoall, x));
  const DType t = x.dtype();
  const std::size_t block = static_cast<std::size_t>(x.size()) / static_cast<std::size_t>(impl_->size);
  const int count = detail::checked_count(block, "alltoall");
  auto* in = detail::thread_staging(0, bytes_of(x));
  auto* out = detail::thread_staging(1, bytes_of(x));
  stage_in(x, in);
  if (block > 0) {
    const MPI_Datatype type = detail::transfer_type(t);
    check(MPI_Alltoall(in, count, type, out, count, type, impl_->comm), "MPI_Alltoall");
  }
  return stage_out(out, t, x.shape(), x.device());
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
