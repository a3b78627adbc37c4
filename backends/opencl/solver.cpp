// Dense solvers on OpenCL devices: LAPACKE on mapped buffers. On CPU devices (PoCL) the map is
// the memory itself (no copy), for every op; GPUs declare only eigh's and the SVD's ops here (the
// driver copies each operand to the host and back at the unmap), the core running the others
// through porta's own blocked solvers (src/primitives/dense.hpp).
#include <algorithm>
#include <array>
#include <thread>

#include "opencl/opencl.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"
#ifdef PORTA_HAVE_HOST_BLAS
#include "host/solver.hpp"
#endif

namespace porta::opencl {

void Device::solver(QueueImpl& q, const detail::SolverArgs& args) {
#ifndef PORTA_HAVE_HOST_BLAS
  DeviceImpl::solver(q, args);  // none: a DTypeError
#else
  if (auto* r = queue_of(q).recording()) {
    queue_of(q).record_opaque();  // maps memory: no command buffer holds it
    r->add([this, args](QueueImpl& rq, const detail::HandleMap& m) {
      detail::SolverArgs bound = args;
      m.rebind(bound);
      solver(rq, bound);
    });
    return;
  }
  const detail::SolverArgs& g = args;
  if (g.batch < 0 || g.m < 0 || g.n < 0 || g.nrhs < 0 || g.k < 0)
    throw InvalidArgument(detail::cat(label_, ": ", to_string(g.op), " with a negative size (batch ", g.batch, ", m ",
                                      g.m, ", n ", g.n, ")"));
  const std::size_t elem = itemsize(g.dtype), real = itemsize(real_dtype(g.dtype));
  const std::int64_t mn = std::min(g.m, g.n);
  // Each operand the op uses: its handle and offset in `h`, the bytes of one matrix, whether written.
  struct Operand {
    detail::Handle* handle;
    std::int64_t* offset;
    std::size_t item;
    std::int64_t count;  // elements a batch entry spans
    bool written;
    void* ptr = nullptr;
  };
  detail::SolverArgs h = g;
  const std::int64_t ucols = g.full_matrices ? g.m : mn, vrows = g.full_matrices ? g.n : mn;
  std::array<Operand, 9> ops{{
      {&h.a, &h.a_offset, elem, g.m * g.n, true},
      {&h.b, &h.b_offset, elem, g.n * g.nrhs, true},
      {&h.ipiv, &h.ipiv_offset, 4, g.op == detail::SolverOp::getrs ? g.n : mn, g.op == detail::SolverOp::getrf},
      {&h.tau, &h.tau_offset, elem, g.op == detail::SolverOp::orgqr ? g.k : mn, g.op == detail::SolverOp::geqrf},
      {&h.w, &h.w_offset, real, g.op == detail::SolverOp::syevd ? g.n : mn, true},
      {&h.u, &h.u_offset, elem, g.m * ucols, true},
      {&h.vt, &h.vt_offset, elem, vrows * g.n, true},
      {&h.info, &h.info_offset, 4, 1, true},
      {&h.src, &h.src_offset, elem, g.op == detail::SolverOp::getrs ? g.n * g.nrhs : g.m * g.n, false},
  }};
  cl_command_queue queue = queue_of(q).native();
  // Unmaps whatever was mapped, also when LAPACK throws. No wait for them: the queue is in order, so
  // whatever comes next on it (info's read, the next kernel, the event another queue waits on)
  // comes after the unmaps. On PoCL each wait is a round trip through its worker threads.
  struct Unmapper {
    cl_command_queue queue;
    std::array<Operand, 9>& ops;
    std::mutex& m;
    ~Unmapper() {
      std::lock_guard lock(m);
      for (Operand& o : ops) {
        if (!o.ptr) continue;
        const cl_int s = clEnqueueUnmapMemObject(queue, static_cast<cl_mem>(*o.handle), o.ptr, 0, nullptr, nullptr);
        if (s != CL_SUCCESS) PORTA_LOG(error, "unmapping memory after a host solver failed: ", describe(s));
      }
      // Submitted, so that an event another queue waits on behind them cannot wait forever.
      const cl_int f = clFlush(queue);
      if (f != CL_SUCCESS) PORTA_LOG(error, "flushing the unmaps after a host solver failed: ", describe(f));
    }
  } unmapper{queue, ops, map_m_};
  {
    // The maps enqueued behind the work before them (the queue is in order), only the last one
    // blocking: once it returns, every map before it is done too.
    std::lock_guard lock(map_m_);
    Operand* last = nullptr;
    for (Operand& o : ops) {
      if (!*o.handle || g.batch == 0 || o.count == 0)
        *o.handle = nullptr;
      else
        last = &o;
    }
    for (Operand& o : ops) {
      if (!*o.handle) continue;
      const std::size_t first = static_cast<std::size_t>(*o.offset) * o.item;
      const std::size_t bytes = static_cast<std::size_t>(g.batch * o.count) * o.item;
      cl_int status = CL_SUCCESS;
      o.ptr = clEnqueueMapBuffer(queue, static_cast<cl_mem>(*o.handle), &o == last ? CL_TRUE : CL_FALSE,
                                 o.written ? (CL_MAP_READ | CL_MAP_WRITE) : CL_MAP_READ, first, bytes, 0, nullptr,
                                 nullptr, &status);
      if (status != CL_SUCCESS) {
        PORTA_CL_AT(detail::cat("waiting for the maps before a host solver on ", label_), clFinish(queue));
        throw_error(status, "clEnqueueMapBuffer",
                    detail::cat("mapping ", detail::format_bytes(bytes), " for ", to_string(g.op), " on ", label_));
      }
    }
  }
  // The unmapper needs the cl_mem handles; the host solver the mapped pointers (offsets 0).
  detail::SolverArgs host = h;
  detail::Handle* fields[] = {&host.a, &host.b, &host.ipiv, &host.tau, &host.w, &host.u, &host.vt, &host.info, &host.src};
  std::int64_t* offsets[] = {&host.a_offset, &host.b_offset,  &host.ipiv_offset, &host.tau_offset, &host.w_offset,
                             &host.u_offset, &host.vt_offset, &host.info_offset, &host.src_offset};
  for (std::size_t i = 0; i < ops.size(); ++i) {
    *fields[i] = ops[i].ptr;
    *offsets[i] = 0;
  }
  // CPU devices: a thread a compute unit over a batch of small matrices; GPUs (eigh and the SVD on
  // mapped copies): the host's threads.
  const int threads = info_.kind == DeviceKind::cpu ? static_cast<int>(info_.compute_units)
                                                    : static_cast<int>(std::thread::hardware_concurrency());
  detail::host_solver(host, threads);
#endif
}

}  // namespace porta::opencl
