// Graphs on CUDA: a queue's stream is captured (cuStreamBeginCapture, relaxed mode) into a CUDA
// graph, instantiated once; a replay is one cuGraphLaunch. Rebinding memory: when the graph is
// made, every kernel parameter word, memset destination and memcpy address that points into
// rebindable memory is noted (kernel parameters are sized by cuFuncGetParamInfo, so cuBLAS's
// kernels are patched as porta's own are); a replay with other memory rewrites just those nodes of
// the instance (cuGraphExecKernelNodeSetParams, ...), and nothing when the memory is unchanged.
#include <cstring>

#include "cuda/cuda.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {

void Queue::begin_capture() {
  if (capturing()) throw InvalidArgument(detail::cat("this thread's stream on ", ctx_->label(), " is recording a graph already"));
  CUstream s = native();  // the launch thread's launches are made first: they are not part of the graph
  ctx_->make_current();
  PORTA_CU_AT(ctx_->label(), cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
  capturing_.store(true, std::memory_order_release);
}

std::unique_ptr<detail::GraphImpl> Queue::end_capture(std::span<const detail::MemoryRange> rebindable) {
  if (!capturing()) throw InvalidArgument("end_capture() without begin_capture()");
  CUstream s = native();
  ctx_->make_current();
  CUgraph graph = nullptr;
  CUresult r = cuStreamEndCapture(s, &graph);
  capturing_.store(false, std::memory_order_release);
  free_deferred();
  if (r != CUDA_SUCCESS) {
    if (graph) log_failure(cuGraphDestroy(graph), "cuGraphDestroy", ctx_->label());
    throw_error(r, "cuStreamEndCapture (a call in the recorded function could not be captured)", ctx_->label());
  }
  return std::make_unique<Graph>(ctx_, graph, rebindable);  // destroys `graph` if it throws
}

void Queue::abort_capture() noexcept {
  if (!capturing()) return;
  CUstream s = native_noexcept();
  if (ctx_->make_current_noexcept()) {
    CUgraph graph = nullptr;
    CUresult r = cuStreamEndCapture(s, &graph);
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) log_failure(r, "cuStreamEndCapture", ctx_->label());
    if (graph) log_failure(cuGraphDestroy(graph), "cuGraphDestroy", ctx_->label());
  }
  capturing_.store(false, std::memory_order_release);
  free_deferred();
}

void Queue::defer_free(CUdeviceptr p) {
  std::lock_guard lock(deferred_m_);
  deferred_frees_.push_back(p);
}

void Queue::free_deferred() noexcept {
  std::vector<CUdeviceptr> frees;
  {
    std::lock_guard lock(deferred_m_);
    frees.swap(deferred_frees_);
  }
  for (CUdeviceptr p : frees) log_failure(cuMemFreeAsync(p, stream_), "cuMemFreeAsync", ctx_->label());
}

namespace {

// The parameters of a kernel node: sizes from the driver, so that each word can be inspected.
bool param_sizes(const CUDA_KERNEL_NODE_PARAMS& p, std::vector<std::size_t>& sizes) {
  for (std::size_t i = 0;; ++i) {
    std::size_t offset = 0, size = 0;
    CUresult r = p.func ? cuFuncGetParamInfo(p.func, i, &offset, &size)
                        : (p.kern ? cuKernelGetParamInfo(p.kern, i, &offset, &size) : CUDA_ERROR_INVALID_VALUE);
    if (r == CUDA_ERROR_INVALID_VALUE) return true;  // past the last parameter
    if (r != CUDA_SUCCESS) return false;               // the driver cannot say (before CUDA 12.4)
    sizes.push_back(size);
  }
}

}  // namespace

Graph::Graph(std::shared_ptr<Context> ctx, CUgraph graph, std::span<const detail::MemoryRange> rebindable)
    : ctx_(std::move(ctx)), graph_(graph), rebindable_(rebindable.begin(), rebindable.end()) {
  for (const auto& r : rebindable_) current_.push_back(r.handle);
  try {
    ctx_->make_current();
    scan(rebindable_);
    PORTA_CU_AT(ctx_->label(), cuGraphInstantiate(&exec_, graph_, 0));
  } catch (...) {
    log_failure(cuGraphDestroy(graph_), "cuGraphDestroy", ctx_->label());
    throw;
  }
}

Graph::~Graph() {
  if (!ctx_->make_current_noexcept()) return;
  if (exec_) log_failure(cuGraphExecDestroy(exec_), "cuGraphExecDestroy", ctx_->label());
  log_failure(cuGraphDestroy(graph_), "cuGraphDestroy", ctx_->label());
}

void Graph::scan(std::span<const detail::MemoryRange> rebindable) {
  std::size_t count = 0;
  PORTA_CU_AT(ctx_->label(), cuGraphGetNodes(graph_, nullptr, &count));
  std::vector<CUgraphNode> nodes(count);
  if (count) PORTA_CU_AT(ctx_->label(), cuGraphGetNodes(graph_, nodes.data(), &count));
  node_count_ = count;
  // The slot whose memory holds `address`, and how far in.
  auto find = [&](std::uint64_t address, std::size_t& slot, std::uint64_t& delta) {
    for (std::size_t i = 0; i < rebindable.size(); ++i) {
      auto base = static_cast<std::uint64_t>(device_ptr(rebindable[i].handle));
      if (address >= base && address < base + std::max<std::size_t>(rebindable[i].bytes, 1)) {
        slot = i;
        delta = address - base;
        return true;
      }
    }
    return false;
  };
  for (CUgraphNode node : nodes) {
    CUgraphNodeType type{};
    PORTA_CU_AT(ctx_->label(), cuGraphNodeGetType(node, &type));
    if (type == CU_GRAPH_NODE_TYPE_KERNEL) {
      KernelNode k;
      k.node = node;
      PORTA_CU_AT(ctx_->label(), cuGraphKernelNodeGetParams(node, &k.params));
      std::vector<std::size_t> sizes;
      if (!k.params.kernelParams || !param_sizes(k.params, sizes)) {
        if (k.params.kernelParams || k.params.extra) {
          opaque_ = true;
          opaque_why_ = "a kernel whose parameters the driver cannot list (cuFuncGetParamInfo)";
        }
        continue;
      }
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const auto* src = static_cast<const std::uint8_t*>(k.params.kernelParams[i]);
        k.values.emplace_back(src, src + sizes[i]);
        for (std::size_t off = 0; off + 8 <= sizes[i]; off += 8) {
          std::uint64_t word = 0;
          std::memcpy(&word, src + off, 8);
          Patch p;
          if (find(word, p.slot, p.delta)) {
            p.param = i;
            p.offset = off;
            k.patches.push_back(p);
          }
        }
      }
      k.params.extra = nullptr;
      if (!k.patches.empty()) kernels_.push_back(std::move(k));
    } else if (type == CU_GRAPH_NODE_TYPE_MEMSET) {
      MemsetNode m;
      m.node = node;
      PORTA_CU_AT(ctx_->label(), cuGraphMemsetNodeGetParams(node, &m.params));
      if (find(static_cast<std::uint64_t>(m.params.dst), m.patch.slot, m.patch.delta)) memsets_.push_back(m);
    } else if (type == CU_GRAPH_NODE_TYPE_MEMCPY) {
      MemcpyNode c;
      c.node = node;
      PORTA_CU_AT(ctx_->label(), cuGraphMemcpyNodeGetParams(node, &c.params));
      // A copy from the host (a library's parameters staged in device memory) may carry addresses
      // a kernel then reads: those cannot be patched, so such a graph replays only on its arrays.
      if (c.params.srcMemoryType == CU_MEMORYTYPE_HOST && c.params.srcHost) {
        const std::size_t bytes = c.params.WidthInBytes * std::max<std::size_t>(c.params.Height, 1) *
                                  std::max<std::size_t>(c.params.Depth, 1);
        const auto* src = static_cast<const std::uint8_t*>(c.params.srcHost);
        for (std::size_t off = 0; off + 8 <= bytes && off < (std::size_t{1} << 16); off += 8) {
          std::uint64_t word = 0, delta = 0;
          std::size_t slot = 0;
          std::memcpy(&word, src + off, 8);
          if (find(word, slot, delta)) {
            opaque_ = true;
            opaque_why_ = "a copy from the host of parameters that point at the recorded arrays";
            break;
          }
        }
      }
      Patch p;
      if (find(static_cast<std::uint64_t>(c.params.srcDevice), p.slot, p.delta)) {
        p.param = 0;
        c.patches.push_back(p);
      }
      if (find(static_cast<std::uint64_t>(c.params.dstDevice), p.slot, p.delta)) {
        p.param = 1;
        c.patches.push_back(p);
      }
      if (!c.patches.empty()) memcpys_.push_back(c);
    }
  }
}

bool Graph::changed(const std::vector<Patch>& patches, std::span<const Handle> bound) const {
  for (const auto& p : patches)
    if (bound[p.slot] != current_[p.slot]) return true;
  return false;
}

void Graph::launch(detail::QueueImpl& q, std::span<const Handle> bound) {
  auto* queue = dynamic_cast<Queue*>(&q);
  if (!queue || &queue->context() != ctx_.get())
    throw InvalidArgument(detail::cat("a CUDA graph recorded on ", ctx_->label(), " was replayed on a queue of another device"));
  if (bound.size() != rebindable_.size())
    throw InvalidArgument(detail::cat("a graph recorded with ", rebindable_.size(), " rebindable buffers was launched with ",
                                      bound.size()));
  CUstream stream = queue->native();
  ctx_->make_current();
  bool any = false;
  for (std::size_t i = 0; i < bound.size(); ++i) any = any || bound[i] != current_[i];
  if (any) {
    if (opaque_)
      throw InvalidArgument(detail::cat("this CUDA graph on ", ctx_->label(), " holds ", opaque_why_,
                                        ", so it cannot be replayed on other arrays; replay() it on the recorded ones"));
    auto address = [&](const Patch& p) { return static_cast<std::uint64_t>(device_ptr(bound[p.slot])) + p.delta; };
    for (auto& k : kernels_) {
      if (!changed(k.patches, bound)) continue;
      std::vector<std::vector<std::uint8_t>> values = k.values;
      for (const auto& p : k.patches) {
        std::uint64_t a = address(p);
        std::memcpy(values[p.param].data() + p.offset, &a, 8);
      }
      std::vector<void*> params(values.size());
      for (std::size_t i = 0; i < values.size(); ++i) params[i] = values[i].data();
      CUDA_KERNEL_NODE_PARAMS np = k.params;
      np.kernelParams = params.data();
      PORTA_CU_AT(ctx_->label(), cuGraphExecKernelNodeSetParams(exec_, k.node, &np));
    }
    for (auto& m : memsets_) {
      if (!changed({m.patch}, bound)) continue;
      CUDA_MEMSET_NODE_PARAMS np = m.params;
      np.dst = static_cast<CUdeviceptr>(address(m.patch));
      PORTA_CU_AT(ctx_->label(), cuGraphExecMemsetNodeSetParams(exec_, m.node, &np, ctx_->native()));
    }
    for (auto& c : memcpys_) {
      if (!changed(c.patches, bound)) continue;
      CUDA_MEMCPY3D np = c.params;
      for (const auto& p : c.patches) (p.param == 0 ? np.srcDevice : np.dstDevice) = static_cast<CUdeviceptr>(address(p));
      PORTA_CU_AT(ctx_->label(), cuGraphExecMemcpyNodeSetParams(exec_, c.node, &np, ctx_->native()));
    }
    current_.assign(bound.begin(), bound.end());
  }
  PORTA_CU_AT(ctx_->label(), cuGraphLaunch(exec_, stream));
}

}  // namespace porta::cuda
