// The CUDA backend's objects: a device's primary context, its streams and events, compiled
// modules and kernels, the device itself and the backend that lists the devices. Each .cpp of
// this directory implements one concern of these classes (see the header comment of each).
//
// Ownership: queues, events and kernels hold the context (a shared_ptr), so the context is
// released only after the last of them is gone, whatever order the core destroys them in (its
// kernel cache, for one, outlives the derived part of the device).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda.h>
#include <cusolverDn.h>

#include "porta_backend/backend.hpp"
#include "porta_backend/graph.hpp"
#include "cuda/error.hpp"
#include "porta_backend/launch_thread.hpp"

namespace porta::cuda {

using detail::Handle;

inline CUdeviceptr device_ptr(Handle h, std::size_t offset_bytes = 0) {
  return static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(h)) + offset_bytes;
}
inline Handle to_handle(CUdeviceptr p) { return reinterpret_cast<Handle>(static_cast<std::uintptr_t>(p)); }

// A device's primary context (the one the CUDA runtime, cuBLAS and other libraries share),
// retained on first use and released when its last owner goes away.
class Context {
 public:
  Context(CUdevice device, int index);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  CUdevice device() const { return device_; }
  int index() const { return index_; }
  const std::string& label() const { return label_; }  // "cuda:0", for messages

  // Makes the context current on the calling thread (any thread may call into porta), retaining
  // it first if needed. Cheap when it is current already. Throws DeviceError.
  void make_current();
  // For destructors: false when it failed (logged, except while the driver shuts down).
  bool make_current_noexcept() noexcept;
  // The primary context, retained on first use. Throws DeviceError.
  CUcontext native();

 private:
  CUcontext retain();

  CUdevice device_;
  int index_;
  std::string label_;
  std::mutex retain_m_;
  std::atomic<CUcontext> ctx_{nullptr};
};

// Reused CUevents of one device: recording an event per cross-queue hazard would otherwise
// create and destroy one each time.
class EventPool {
 public:
  explicit EventPool(std::shared_ptr<Context> ctx) : ctx_(std::move(ctx)) {}
  ~EventPool();
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;

  CUevent acquire(bool timing);
  void release(CUevent e, bool timing) noexcept;
  Context& context() { return *ctx_; }

 private:
  static constexpr std::size_t kKeep = 256;  // per kind; more are destroyed
  std::shared_ptr<Context> ctx_;
  std::mutex m_;
  std::vector<CUevent> free_[2];  // [timing]
};

class Event final : public detail::EventImpl {
 public:
  Event(std::shared_ptr<EventPool> pool, CUevent e, bool timing) : pool_(std::move(pool)), event_(e), timing_(timing) {}
  ~Event() override;
  bool done() override;
  void synchronize() override;
  double elapsed_ms_since(detail::EventImpl& start) override;
  CUevent native() const { return event_; }

 private:
  std::shared_ptr<EventPool> pool_;
  CUevent event_;
  bool timing_;
};

// A non-blocking stream, one per (host thread, device), and its cuBLAS handle.
class Kernel;

// One kernel launch waiting in a queue's launch thread: the function (whose module the kernel
// keeps loaded until the launch is made), the grid, and each parameter's bytes.
struct LaunchItem {
  static constexpr std::size_t kMaxParams = 32;
  std::shared_ptr<Kernel> kernel;
  unsigned grid[3]{}, block[3]{};
  unsigned shared = 0;
  unsigned count = 0;
  std::array<std::uint64_t, kMaxParams> params{};  // a CUdeviceptr, or a scalar of up to 8 bytes
};

class Queue final : public detail::QueueImpl {
 public:
  Queue(std::shared_ptr<Context> ctx, std::shared_ptr<EventPool> events);
  ~Queue() override;
  std::shared_ptr<detail::EventImpl> record(bool timing) override;
  void wait(detail::EventImpl& e) override;
  void synchronize() override;
  void* native_handle() override { return native(); }

  // The stream (the queue's vendor handle), for work queued on it directly: first the launch thread makes every launch
  // recorded before (launch_thread.hpp), so the stream sees program order; throws the error a
  // launch met there, if any.
  CUstream native() {
    launcher_.before_direct_work();
    return stream_;
  }
  // The same for destructors and frees: waits, never throws.
  CUstream native_noexcept() noexcept {
    launcher_.before_direct_work_noexcept();
    return stream_;
  }
  // Records a launch for the launch thread (started on first use).
  template <class Fill>
  void push_launch(Fill&& fill) {
    launcher_.push(std::forward<Fill>(fill));
  }
  Context& context() { return *ctx_; }
  // The queue's cuBLAS handle, bound to its stream, created on first use. Callers hold
  // blas_mutex() while they use it: a handle must not be used by two threads at once.
  cublasHandle_t blas();
  std::mutex& blas_mutex() { return blas_m_; }
  // The queue's cuSOLVER handle, bound to its stream, created on first use; callers hold
  // blas_mutex() too (solver.cpp).
  cusolverDnHandle_t solver();

  // Graphs (graph.cpp): stream capture in relaxed mode, so that memory can be allocated (off the
  // stream) while the stream records.
  void begin_capture() override;
  std::unique_ptr<detail::GraphImpl> end_capture(std::span<const detail::MemoryRange> rebindable) override;
  void abort_capture() noexcept override;
  bool capturing() const override { return capturing_.load(std::memory_order_acquire); }
  // A free that arrives while the stream records (from another thread) waits for the end of the
  // capture, so that it does not become a node of the graph.
  void defer_free(CUdeviceptr p);

 private:
  void make_launch(LaunchItem& item);  // on the launch thread, or a thread that drains it
  void free_deferred() noexcept;

  std::shared_ptr<Context> ctx_;
  std::shared_ptr<EventPool> events_;
  CUstream stream_ = nullptr;
  std::mutex blas_m_;
  cublasHandle_t blas_ = nullptr;
  CUdeviceptr blas_workspace_ = 0;  // given to the handle: cuBLAS then never allocates per call
  cusolverDnHandle_t solver_ = nullptr;
  detail::QueueLauncher<LaunchItem> launcher_{[this] { ctx_->make_current(); },
                                              [this](LaunchItem& item) { make_launch(item); }};
  std::atomic<bool> capturing_{false};
  std::mutex deferred_m_;
  std::vector<CUdeviceptr> deferred_frees_;
};

// A captured CUDA graph and its executable instance; rebinding patches the instance's kernel,
// memset and memcpy nodes (graph.cpp).
class Graph final : public detail::GraphImpl {
 public:
  Graph(std::shared_ptr<Context> ctx, CUgraph graph, std::span<const detail::MemoryRange> rebindable);
  ~Graph() override;
  void launch(detail::QueueImpl& q, std::span<const Handle> bound) override;
  std::string kind() const override { return "CUDA graph"; }
  std::size_t operations() const override { return node_count_; }

 private:
  // A word of a node's parameters that points into rebindable memory `slot`, `delta` bytes in.
  struct Patch {
    std::size_t slot = 0;
    std::size_t param = 0;   // kernel parameter index (kernel nodes); 0 src / 1 dst (memcpy); 0 (memset)
    std::size_t offset = 0;  // byte offset within the parameter
    std::uint64_t delta = 0;
  };
  struct KernelNode {
    CUgraphNode node = nullptr;
    CUDA_KERNEL_NODE_PARAMS params{};
    std::vector<std::vector<std::uint8_t>> values;  // each parameter's bytes as captured
    std::vector<Patch> patches;
  };
  struct MemsetNode {
    CUgraphNode node = nullptr;
    CUDA_MEMSET_NODE_PARAMS params{};
    Patch patch;
  };
  struct MemcpyNode {
    CUgraphNode node = nullptr;
    CUDA_MEMCPY3D params{};
    std::vector<Patch> patches;
  };
  void scan(std::span<const detail::MemoryRange> rebindable);
  bool changed(const std::vector<Patch>& patches, std::span<const Handle> bound) const;

  std::shared_ptr<Context> ctx_;
  CUgraph graph_ = nullptr;
  CUgraphExec exec_ = nullptr;
  std::size_t node_count_ = 0;
  std::vector<detail::MemoryRange> rebindable_;
  std::vector<Handle> current_;  // what the instance is bound to now
  std::vector<KernelNode> kernels_;
  std::vector<MemsetNode> memsets_;
  std::vector<MemcpyNode> memcpys_;
  bool opaque_ = false;  // a node that may hold rebindable memory porta cannot patch
  std::string opaque_why_;
};

// A loaded CUmodule, unloaded when the last kernel taken from it goes away. Keeps the image it
// was loaded from (a cubin, or PTX) for the disk cache.
class Module {
 public:
  Module(std::shared_ptr<Context> ctx, CUmodule module, std::string image)
      : ctx_(std::move(ctx)), module_(module), image_(std::move(image)) {}
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  CUmodule native() const { return module_; }
  Context& context() { return *ctx_; }
  const std::string& image() const { return image_; }

 private:
  std::shared_ptr<Context> ctx_;
  CUmodule module_;
  std::string image_;
};

// One __global__ function of a module. cuLaunchKernel is thread-safe, so one Kernel may be
// launched from many threads at once.
class Kernel final : public detail::Kernel, public std::enable_shared_from_this<Kernel> {
 public:
  // Throws CompileError when the module has no function named `entry`; `source` is for that message.
  Kernel(std::shared_ptr<Module> module, const std::string& entry, const std::string& source);

  CUfunction native() const { return function_; }
  const std::string& entry() const { return entry_; }
  std::vector<std::uint8_t> binary() const override;
  // Each parameter's size from cuFuncGetParamInfo, read when the kernel is made; the kind is
  // unknown (a pointer and an 8-byte number look alike). Null where the driver cannot say
  // (before CUDA 12.4).
  const std::vector<detail::KernelParam>* params() const override { return params_ ? &*params_ : nullptr; }
  Context& context() { return module_->context(); }
  // Raises the function's dynamic shared memory limit when a launch needs more than the default 48 KiB.
  void reserve_shared_memory(std::size_t bytes);
  // Whether the kernel starts with griddepcontrol.wait (porta's own kernels on sm_90+,
  // compile.cpp's with_grid_dependency), and so is launched with programmatic stream
  // serialization; set once, before the kernel is shared.
  bool programmatic() const { return programmatic_; }
  void set_programmatic(bool on) { programmatic_ = on; }

 private:
  std::shared_ptr<Module> module_;
  CUfunction function_ = nullptr;
  std::string entry_;
  bool programmatic_ = false;
  std::optional<std::vector<detail::KernelParam>> params_;
  std::mutex shared_m_;
  std::atomic<std::size_t> shared_limit_{48 * 1024};
};

class Device final : public detail::DeviceImpl {
 public:
  Device(CUdevice device, int index, int driver_version);
  ~Device() override;

  const detail::DeviceInfo& info() const override { return info_; }
  std::shared_ptr<detail::QueueImpl> create_queue() override;

  // memory.cpp
  Handle allocate(std::size_t bytes, detail::QueueImpl& q) override;
  void deallocate(Handle h, std::size_t bytes, detail::QueueImpl* q) noexcept override;
  void release_cached_memory() override;
  std::uint64_t free_memory() const override;
  void write(detail::QueueImpl& q, Handle dst, std::size_t dst_offset, const void* src, std::size_t bytes) override;
  void read(detail::QueueImpl& q, Handle src, std::size_t src_offset, void* dst, std::size_t bytes) override;
  void copy(detail::QueueImpl& q, Handle src, std::size_t src_offset, Handle dst, std::size_t dst_offset,
            std::size_t bytes) override;
  void fill(detail::QueueImpl& q, Handle dst, std::size_t offset, const void* pattern, std::size_t pattern_size,
            std::size_t bytes) override;
  bool copy_to_peer(detail::QueueImpl& q, Handle src, std::size_t src_offset, detail::DeviceImpl& dst_device, Handle dst,
                    std::size_t dst_offset, std::size_t bytes) override;

  // compile.cpp
  std::shared_ptr<detail::Kernel> compile(const detail::KernelSource& src) override;
  std::shared_ptr<detail::Kernel> load_binary(const detail::KernelSource& src,
                                              std::span<const std::uint8_t> binary) override;
  std::string compiler_id() const override;
  // launch.cpp
  void launch(detail::QueueImpl& q, detail::Kernel& k, const detail::LaunchDims& dims,
              std::span<const detail::KernelArg> args) override;
  // blas.cpp
  void matmul(detail::QueueImpl& q, const detail::MatmulArgs& args) override;
  // fft.cpp
  std::shared_ptr<detail::FftPlanImpl> make_fft_plan(const detail::FftDesc& desc) override;
  // solver.cpp
  void solver(detail::QueueImpl& q, const detail::SolverArgs& args) override;
  // interop.cpp
  detail::NativeObjects native_objects() override;
  std::shared_ptr<detail::EventImpl> record_foreign(void* foreign) override;
  void foreign_wait(void* foreign, detail::EventImpl& e) override;
  Imported import_memory(void* native, MemoryKind kind, std::size_t begin, std::size_t end) override;

  const std::string& label() const { return ctx_->label(); }

 private:
  // A stream porta does not own, checked to belong to this device's primary context (interop.cpp).
  CUstream foreign_stream(void* foreign, const char* what);
  // This device's queue, or InvalidArgument for a queue of another device.
  Queue& own(detail::QueueImpl& q);
  Kernel& own(detail::Kernel& k);
  // The memory pool (memory.cpp), created on first use; null where the device has no pools.
  CUmemoryPool pool();
  // What can still be allocated: the driver's free memory plus what the pool keeps unused.
  std::uint64_t available_bytes(std::uint64_t* total) const;
  // NVRTC, then cuModuleLoadData (compile.cpp).
  std::shared_ptr<Module> build(const std::string& source, const std::string& entry,
                                const std::vector<std::string>& options);
  // cuModuleLoadDataEx of a cubin or PTX image; throws DeviceError with the JIT log.
  std::shared_ptr<Module> load_image(std::string image, const std::string& entry);
  // The source this device compiles for `src`: porta's own kernels on sm_90+ with the grid
  // dependency's wait first (compile.cpp); null where the source is compiled as given.
  std::optional<std::string> ordered_source(const detail::KernelSource& src) const;
  // Kernels for fill patterns that cuMemsetD* cannot do (memory.cpp), compiled once.
  Kernel& fill_kernel(bool bytewise);
  void launch_1d(Queue& q, Kernel& k, std::uint64_t items, void** params);
  // A stream that never records, for allocations made while this thread's stream records.
  CUstream side_stream();

  std::shared_ptr<Context> ctx_;
  std::shared_ptr<EventPool> events_;
  detail::DeviceInfo info_;
  int cc_major_ = 0, cc_minor_ = 0;
  bool memory_pools_ = false;
  std::mutex side_m_;
  CUstream side_stream_ = nullptr;
  bool keep_freed_memory_ = true;  // PORTA_ALLOC=cached (the default)
  std::mutex pool_m_;
  std::atomic<bool> pool_ready_{false};
  CUmemoryPool pool_ = nullptr;
  std::mutex fill_m_;
  std::shared_ptr<Kernel> fill_words_, fill_bytes_;
  // Devices whose memory this one may read and write directly (peer access granted both ways).
  void open_peer(Device& other);
  std::mutex peer_m_;
  std::vector<CUdevice> peers_checked_;
};

class Backend final : public detail::BackendImpl {
 public:
  Backend();
  porta::Backend kind() const override { return porta::Backend::cuda; }
  std::string version() const override { return version_; }
  const std::vector<std::shared_ptr<detail::DeviceImpl>>& devices() const override { return devices_; }

 private:
  std::string version_;
  std::vector<std::shared_ptr<detail::DeviceImpl>> devices_;
};

// "13.0" from cuDriverGetVersion's 13000.
std::string format_cuda_version(int version);
// NVRTC's version, "13.0".
std::string nvrtc_version_text();

// cuLaunchKernel, or cuLaunchKernelEx with programmatic stream serialization for a kernel that
// waits for its predecessor itself (Kernel::programmatic); launch.cpp.
CUresult launch_kernel(const Kernel& k, const unsigned grid[3], const unsigned block[3], unsigned shared, CUstream stream,
                       void** params);

// "cuFFT 11.2.6": the library fft.cpp plans with.
std::string cufft_library_name();
#ifdef PORTA_HAVE_VKFFT
// VkFFT's CUDA backend, PORTA_CUDA_FFT=vkfft (fft_vkfft.cpp): its name, and a plan.
std::string vkfft_cuda_name();
std::shared_ptr<detail::FftPlanImpl> make_vkfft_plan(const std::string& label, std::shared_ptr<Context> ctx,
                                                     const detail::FftDesc& desc, std::uint64_t free,
                                                     const std::string& device_id);
#endif

}  // namespace porta::cuda
