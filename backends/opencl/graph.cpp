// Graphs on OpenCL devices with cl_khr_command_buffer (PoCL lists it; NVIDIA's OpenCL does not):
// the recorded launches, copies and fills go into a command buffer, finalized once and enqueued
// with one call. Without cl_khr_command_buffer_mutable_dispatch a command buffer's arguments are
// fixed, so a replay on other memory records a command buffer of its own from the same commands
// (kept for the next replay on that memory; a few are kept). Replays on another thread's queue,
// and recordings a command buffer cannot hold (a matmul through the host BLAS), use the replay of
// the recorded launches (LaunchReplay).
#include <cstring>
#include <map>

#include <CL/cl_ext.h>

#include "opencl/opencl.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/log.hpp"

namespace porta::opencl {
namespace {

// The extension's entry points, for one platform.
struct CommandBufferApi {
  clCreateCommandBufferKHR_fn create = nullptr;
  clFinalizeCommandBufferKHR_fn finalize = nullptr;
  clReleaseCommandBufferKHR_fn release = nullptr;
  clEnqueueCommandBufferKHR_fn enqueue = nullptr;
  clCommandNDRangeKernelKHR_fn ndrange = nullptr;
  clCommandCopyBufferKHR_fn copy = nullptr;
  clCommandFillBufferKHR_fn fill = nullptr;
  bool simultaneous = false;  // a command buffer may be enqueued again while it is pending
};

constexpr cl_device_info kExtensionsWithVersion = 0x1060;  // CL_DEVICE_EXTENSIONS_WITH_VERSION (OpenCL 3.0)
struct NameVersion {
  cl_uint version;
  char name[64];
};
constexpr cl_uint version_of(cl_uint major, cl_uint minor, cl_uint patch) { return (major << 22) | (minor << 12) | patch; }

// The API where the device lists cl_khr_command_buffer at a version whose entry points have the
// signatures of the headers porta is built with (0.9.0 to 0.9.4; 0.9.5 changed them); else null.
// PORTA_OPENCL_COMMAND_BUFFER=off turns command buffers off.
const CommandBufferApi* command_buffer_api(const Device& d) {
  static std::mutex m;
  static std::map<cl_device_id, std::optional<CommandBufferApi>> known;
  std::lock_guard lock(m);
  if (auto it = known.find(d.native()); it != known.end()) return it->second ? &*it->second : nullptr;
  std::optional<CommandBufferApi> api;
  if (setting_flag("PORTA_OPENCL_COMMAND_BUFFER") && d.has_extension("cl_khr_command_buffer")) {
    std::size_t bytes = 0;
    cl_uint version = 0;
    if (clGetDeviceInfo(d.native(), kExtensionsWithVersion, 0, nullptr, &bytes) == CL_SUCCESS && bytes) {
      std::vector<NameVersion> list(bytes / sizeof(NameVersion));
      if (clGetDeviceInfo(d.native(), kExtensionsWithVersion, list.size() * sizeof(NameVersion), list.data(), nullptr) ==
          CL_SUCCESS)
        for (const auto& e : list)
          if (std::strncmp(e.name, "cl_khr_command_buffer", sizeof e.name) == 0) version = e.version;
    }
    if (version >= version_of(0, 9, 0) && version <= version_of(0, 9, 4)) {
      cl_platform_id p = d.native_platform();
      auto get = [&](const char* name) { return clGetExtensionFunctionAddressForPlatform(p, name); };
      CommandBufferApi a;
      a.create = reinterpret_cast<clCreateCommandBufferKHR_fn>(get("clCreateCommandBufferKHR"));
      a.finalize = reinterpret_cast<clFinalizeCommandBufferKHR_fn>(get("clFinalizeCommandBufferKHR"));
      a.release = reinterpret_cast<clReleaseCommandBufferKHR_fn>(get("clReleaseCommandBufferKHR"));
      a.enqueue = reinterpret_cast<clEnqueueCommandBufferKHR_fn>(get("clEnqueueCommandBufferKHR"));
      a.ndrange = reinterpret_cast<clCommandNDRangeKernelKHR_fn>(get("clCommandNDRangeKernelKHR"));
      a.copy = reinterpret_cast<clCommandCopyBufferKHR_fn>(get("clCommandCopyBufferKHR"));
      a.fill = reinterpret_cast<clCommandFillBufferKHR_fn>(get("clCommandFillBufferKHR"));
      cl_bitfield caps = 0;
      if (clGetDeviceInfo(d.native(), CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR, sizeof caps, &caps, nullptr) == CL_SUCCESS)
        a.simultaneous = (caps & CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR) != 0;
      if (a.create && a.finalize && a.release && a.enqueue && a.ndrange && a.copy && a.fill) api = a;
    } else {
      PORTA_LOG(info, d.label(), ": cl_khr_command_buffer version ", version >> 22, ".", (version >> 12) & 0x3ff, ".",
                version & 0xfff, " is not one porta was built for (0.9.0-0.9.4); graphs replay their launches");
    }
  }
  auto& slot = known[d.native()];
  slot = api;
  return slot ? &*slot : nullptr;
}

class CommandBufferGraph final : public detail::GraphImpl {
 public:
  CommandBufferGraph(const Device& device, const CommandBufferApi& api, cl_command_queue queue,
                     std::vector<RecordedCommand> commands, std::span<const detail::MemoryRange> rebindable,
                     std::unique_ptr<detail::GraphImpl> fallback)
      : device_(device), api_(api), queue_(queue), commands_(std::move(commands)),
        rebindable_(rebindable.begin(), rebindable.end()), fallback_(std::move(fallback)) {
    retained_ = clRetainCommandQueue(queue_) == CL_SUCCESS;
  }

  // The command buffer of the recorded memory; throws where the driver refuses (the caller then
  // replays the launches instead).
  void build_recorded() {
    if (!retained_) throw DeviceError(detail::cat(device_.label(), ": clRetainCommandQueue failed"));
    std::vector<Handle> recorded;
    for (const auto& r : rebindable_) recorded.push_back(r.handle);
    buffers_.push_back(build(recorded));
  }
  std::unique_ptr<detail::GraphImpl> take_fallback() { return std::move(fallback_); }

  ~CommandBufferGraph() override {
    // A command buffer in flight must not be released under it.
    if (!buffers_.empty()) log_failure(clFinish(queue_), "clFinish before releasing command buffers", device_.label());
    for (auto& b : buffers_) {
      if (b.pending) clReleaseEvent(b.pending);
      log_failure(api_.release(b.cb), "clReleaseCommandBufferKHR", device_.label());
    }
    if (retained_) log_failure(clReleaseCommandQueue(queue_), "clReleaseCommandQueue", device_.label());
  }

  void launch(QueueImpl& q, std::span<const Handle> bound) override {
    auto* queue = dynamic_cast<Queue*>(&q);
    if (!queue || &queue->device() != &device_)
      throw InvalidArgument(detail::cat("a graph recorded on ", device_.label(), " was replayed on a queue of another device"));
    cl_command_queue native = queue->native();  // launches recorded before are made first
    if (native != queue_) {
      fallback_->launch(q, bound);  // a command buffer runs on the queue it was made for
      return;
    }
    std::vector<Handle> key(bound.begin(), bound.end());
    Entry* entry = nullptr;
    for (auto& b : buffers_)
      if (b.bound == key) entry = &b;
    if (!entry) {
      constexpr std::size_t kKeep = 8;  // the recorded binding and the latest others
      if (buffers_.size() >= kKeep) {
        PORTA_CL_AT(device_.label(), clFinish(queue_));
        if (buffers_[1].pending) clReleaseEvent(buffers_[1].pending);
        log_failure(api_.release(buffers_[1].cb), "clReleaseCommandBufferKHR", device_.label());
        buffers_.erase(buffers_.begin() + 1);
      }
      buffers_.push_back(build(key));
      entry = &buffers_.back();
      PORTA_LOG(debug, device_.label(), ": a command buffer for binding ", buffers_.size() - 1, " of a graph");
    }
    // Without simultaneous use a command buffer still pending cannot be enqueued again: the
    // launches are replayed instead (ordered after it on the same in-order queue).
    if (entry->pending) {
      cl_int state = CL_COMPLETE;
      if (clGetEventInfo(entry->pending, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, nullptr) != CL_SUCCESS)
        state = CL_COMPLETE;
      if (state != CL_COMPLETE && state >= 0) {
        fallback_->launch(q, bound);
        return;
      }
      clReleaseEvent(entry->pending);
      entry->pending = nullptr;
    }
    cl_event* done = api_.simultaneous ? nullptr : &entry->pending;
    PORTA_CL_AT(detail::cat("enqueueing a command buffer of ", commands_.size(), " commands on ", device_.label()),
                api_.enqueue(0, nullptr, entry->cb, 0, nullptr, done));
  }

  std::string kind() const override { return "OpenCL command buffer (cl_khr_command_buffer)"; }
  std::size_t operations() const override { return commands_.size(); }

 private:
  // A command buffer, the memory it is bound to, and the cl_kernel objects its launches were
  // recorded from: PoCL 3.1 reads a kernel's arguments when the command buffer runs, not when the
  // command is recorded, so each command keeps a cl_kernel of its own (a lease never given back
  // while the command buffer lives) whose arguments nothing else sets.
  struct Entry {
    std::vector<Handle> bound;
    cl_command_buffer_khr cb = nullptr;
    std::vector<std::unique_ptr<Kernel::Lease>> leases;
    cl_event pending = nullptr;  // its latest enqueue, where the device lacks simultaneous use
  };

  // A finalized command buffer of the commands with the rebindable memory bound to `bound`; each
  // command waits for the one before (the queue's order).
  Entry build(const std::vector<Handle>& bound) {
    Entry entry;
    entry.bound = bound;
    detail::HandleMap map(rebindable_, bound);
    cl_int status = CL_SUCCESS;
    const cl_command_buffer_properties_khr simultaneous[] = {CL_COMMAND_BUFFER_FLAGS_KHR,
                                                             CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, 0};
    cl_command_buffer_khr cb = api_.create(1, &queue_, api_.simultaneous ? simultaneous : nullptr, &status);
    if (status != CL_SUCCESS || !cb) throw_error(status, "clCreateCommandBufferKHR", device_.label());
    try {
      cl_sync_point_khr previous = 0;
      bool first = true;
      for (const auto& c : commands_) {
        cl_sync_point_khr point = 0;
        const cl_uint waits = first ? 0 : 1;
        const cl_sync_point_khr* wait = first ? nullptr : &previous;
        switch (c.kind) {
          case RecordedCommand::Kind::launch: {
            entry.leases.emplace_back(new Kernel::Lease(c.kernel->take()));  // elided: a Lease does not move
            Kernel::Lease& lease = *entry.leases.back();
            for (cl_uint i = 0; i < c.args.size(); ++i) {
              const KernelArg& a = c.args[i];
              if (a.kind == KernelArg::Kind::memory) {
                cl_mem m = static_cast<cl_mem>(map(a.handle));
                PORTA_CL_AT(device_.label(), lease.set(i, sizeof m, &m, true));
              } else if (a.kind == KernelArg::Kind::scalar) {
                PORTA_CL_AT(device_.label(), lease.set(i, a.size, a.value.data(), false));
              } else {
                PORTA_CL_AT(device_.label(), lease.set(i, a.size, nullptr, false));
              }
            }
            PORTA_CL_AT(detail::cat("recording '", c.kernel->entry(), "' into a command buffer on ", device_.label()),
                        api_.ndrange(cb, nullptr, nullptr, lease.native(), c.work_dim, nullptr, c.global.data(),
                                     c.any_local ? c.local.data() : nullptr, waits, wait, &point, nullptr));
            break;
          }
          case RecordedCommand::Kind::copy:
            PORTA_CL_AT(detail::cat("recording a copy into a command buffer on ", device_.label()),
                        api_.copy(cb, nullptr, static_cast<cl_mem>(map(c.src)), static_cast<cl_mem>(map(c.dst)),
                                  c.src_offset, c.dst_offset, c.bytes, waits, wait, &point, nullptr));
            break;
          case RecordedCommand::Kind::fill:
            PORTA_CL_AT(detail::cat("recording a fill into a command buffer on ", device_.label()),
                        api_.fill(cb, nullptr, static_cast<cl_mem>(map(c.dst)), c.pattern.data(), c.pattern_size,
                                  c.dst_offset, c.bytes, waits, wait, &point, nullptr));
            break;
        }
        previous = point;
        first = false;
      }
      PORTA_CL_AT(device_.label(), api_.finalize(cb));
    } catch (...) {
      log_failure(api_.release(cb), "clReleaseCommandBufferKHR", device_.label());
      throw;
    }
    entry.cb = cb;
    return entry;
  }

  const Device& device_;
  const CommandBufferApi& api_;
  cl_command_queue queue_;
  bool retained_ = false;
  std::vector<RecordedCommand> commands_;
  std::vector<detail::MemoryRange> rebindable_;
  std::unique_ptr<detail::GraphImpl> fallback_;
  std::vector<Entry> buffers_;  // [0]: the recorded binding
};

}  // namespace

std::unique_ptr<detail::GraphImpl> command_buffer_graph(Queue& q, std::vector<RecordedCommand> commands,
                                                        std::span<const detail::MemoryRange> rebindable,
                                                        std::unique_ptr<detail::GraphImpl> fallback) {
  const CommandBufferApi* api = command_buffer_api(q.device());
  if (!api) return fallback;
  auto graph = std::make_unique<CommandBufferGraph>(q.device(), *api, q.native(), std::move(commands), rebindable,
                                                    std::move(fallback));
  try {
    graph->build_recorded();
    return graph;
  } catch (const Error& e) {
    PORTA_LOG(warn, q.device().label(), ": recording a command buffer failed (", e.what(),
              "); this graph replays its launches instead (PORTA_OPENCL_COMMAND_BUFFER=off skips the attempt)");
    return graph->take_fallback();
  }
}

}  // namespace porta::opencl
