// Agreement before data moves: every rank's descriptor (collective, op, root, dtype, shape) is
// gathered on every rank and checked there by the same code on the same table, so a mismatch is
// the same exception with the same message on every rank, and no rank is left waiting in a
// transfer the others never start.
#include "mpi_impl.hpp"

#include <sstream>

namespace porta::mpi::detail {

std::string_view name(Collective c) {
  switch (c) {
    case Collective::allreduce: return "allreduce";
    case Collective::reduce: return "reduce";
    case Collective::broadcast: return "broadcast";
    case Collective::allgather: return "allgather";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::alltoall: return "alltoall";
    case Collective::iallreduce: return "iallreduce";
  }
  return "unknown collective";
}

Descriptor describe(Collective c, const Array& x, Op op, int root) {
  Descriptor d;
  d.collective = static_cast<std::int64_t>(c);
  d.op = static_cast<std::int64_t>(op);
  d.root = root;
  if (!x.valid()) {
    d.status = static_cast<std::int64_t>(Status::no_array);
    return d;
  }
  d.dtype = static_cast<std::int64_t>(x.dtype());
  d.ndim = x.ndim();
  if (d.ndim > kMaxDims) {
    d.status = static_cast<std::int64_t>(Status::too_many_dims);
    return d;
  }
  for (int i = 0; i < x.ndim(); ++i) d.shape[i] = x.dim(i);
  return d;
}

Shape shape_of(const Descriptor& d) { return Shape(d.shape, d.shape + d.ndim); }

static std::string what_rank_passed(int r, const Descriptor& d) {
  std::ostringstream s;
  s << "rank " << r << ": ";
  if (d.status == static_cast<std::int64_t>(Status::no_array)) {
    s << "no array";
  } else {
    s << to_string(shape_of(d)) << " " << porta::name(static_cast<DType>(d.dtype));
  }
  return s.str();
}

static std::string call_text(const Descriptor& d) {
  std::ostringstream s;
  const auto c = static_cast<Collective>(d.collective);
  s << name(c);
  if (c == Collective::allreduce || c == Collective::reduce || c == Collective::reduce_scatter ||
      c == Collective::iallreduce)
    s << "(" << name(static_cast<Op>(d.op)) << ")";
  if (c == Collective::reduce || c == Collective::broadcast) s << " to root " << d.root;
  return s.str();
}

// Lists the ranks whose value differs from rank 0's (at most 8 of them).
template <class Differs>
static std::string table(const std::vector<Descriptor>& all, Differs differs) {
  std::ostringstream s;
  s << what_rank_passed(0, all[0]);
  int shown = 0;
  for (std::size_t r = 1; r < all.size(); ++r) {
    if (!differs(all[r])) continue;
    if (++shown > 8) {
      s << "; ...";
      break;
    }
    s << "; " << what_rank_passed(static_cast<int>(r), all[r]);
  }
  return s.str();
}

std::vector<Descriptor> agree(MPI_Comm comm, const Descriptor& mine) {
  int size = 1;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  std::vector<Descriptor> all(static_cast<std::size_t>(size));
  constexpr int kWords = sizeof(Descriptor) / sizeof(std::int64_t);
  check(MPI_Allgather(&mine, kWords, MPI_INT64_T, all.data(), kWords, MPI_INT64_T, comm), "MPI_Allgather");

  const Descriptor& first = all[0];
  const auto c = static_cast<Collective>(first.collective);
  const std::string head = "porta::mpi::Communicator::" + std::string(name(c)) + ": ";
  for (std::size_t r = 0; r < all.size(); ++r) {
    const auto& d = all[r];
    if (d.collective != first.collective || d.op != first.op || d.root != first.root)
      throw InvalidArgument(head + "the ranks called different collectives: rank 0 " + call_text(first) + ", rank " +
                            std::to_string(r) + " " + call_text(d) +
                            "; every rank must make the same collective calls in the same order");
  }
  const bool rooted = c == Collective::reduce || c == Collective::broadcast;
  if (rooted && (first.root < 0 || first.root >= size))
    throw InvalidArgument(head + "root " + std::to_string(first.root) + " is not a rank of this communicator (0 to " +
                          std::to_string(size - 1) + ")");
  for (std::size_t r = 0; r < all.size(); ++r) {
    const auto& d = all[r];
    if (d.status == static_cast<std::int64_t>(Status::too_many_dims))
      throw ShapeError(head + "rank " + std::to_string(r) + " passed an array of " + std::to_string(d.ndim) +
                       " dimensions; porta::mpi moves arrays of up to " + std::to_string(kMaxDims) +
                       " (reshape it first)");
    // Only broadcast lets the receiving ranks pass no array (they take root's shape).
    const bool may_be_empty = c == Collective::broadcast && static_cast<std::int64_t>(r) != first.root;
    if (d.status == static_cast<std::int64_t>(Status::no_array) && !may_be_empty)
      throw InvalidArgument(head + "rank " + std::to_string(r) + " passed an invalid (empty) Array" +
                            (c == Collective::broadcast ? " as the root" : "") + "; pass an array on every rank");
  }
  // Compare with the reference: root's array for broadcast, else rank 0's.
  const Descriptor& ref = rooted ? all[static_cast<std::size_t>(first.root)] : first;
  const auto skip = [&](const Descriptor& d) { return d.status == static_cast<std::int64_t>(Status::no_array); };
  const auto dtype_differs = [&](const Descriptor& d) { return !skip(d) && d.dtype != ref.dtype; };
  const auto shape_differs = [&](const Descriptor& d) { return !skip(d) && shape_of(d) != shape_of(ref); };
  for (const auto& d : all) {
    if (dtype_differs(d))
      throw DTypeError(head + "the ranks passed arrays of different dtypes (" + table(all, dtype_differs) +
                       "); every rank must pass the same dtype (astype() first)");
  }
  for (const auto& d : all) {
    if (shape_differs(d))
      throw ShapeError(head + "the ranks passed arrays of different shapes (" + table(all, shape_differs) +
                       "); every rank must pass the same shape");
  }
  if (c == Collective::reduce_scatter || c == Collective::alltoall) {
    if (ref.ndim == 0 || ref.shape[0] % size != 0)
      throw ShapeError(head + "the first axis of " + to_string(shape_of(ref)) + " must be a multiple of the " +
                       std::to_string(size) + " ranks (each rank gets one block of it)");
  }
  return all;
}

}  // namespace porta::mpi::detail
