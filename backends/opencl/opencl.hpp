// The OpenCL backend's objects: the device, queue, event and kernel classes that implement
// interface/porta_backend/backend.hpp, named as in every backend (opencl::Device, cuda::Device,
// kokkos::Device; native() is each one's vendor handle), shared by the files of backends/opencl/.
// Nothing outside this directory includes it.
#pragma once

#include <CL/cl.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <optional>
#include <string>
#include <vector>

#include "porta_backend/backend.hpp"
#include "porta_backend/graph.hpp"
#include "porta_backend/launch_thread.hpp"
#include "opencl/error.hpp"

namespace porta::opencl {

// A build option marking a program whose PTX carries instructions of sm_90a only (Hopper's wgmma),
// written as comments that start with kSm90aMark (kernels/gemm_wg.cl): Device::compile builds the
// source, removes the marks from the program's PTX, retargets it from sm_90 (what NVIDIA's OpenCL
// C compiler emits) to sm_90a and builds that as the program's binary. Its value is the edit's
// version, part of the disk cache's key (2: the MMAs' final waits hoisted, gemm/ptx_edit.hpp).
inline constexpr const char* kSm90aPtxOption = "-DPORTA_SM90A_PTX=2";
inline constexpr const char* kSm90aMark = "// @sm90a ";
// "-DPORTA_PTX_MAXNREG=N" bounds each kernel of the program's PTX, retargeted or not, to N
// registers (a .maxnreg directive; NVIDIA's OpenCL refuses -cl-nv-maxrregcount); where the edited
// PTX does not build, the program keeps its first build (PORTA_LOG=info says so).
inline constexpr const char* kPtxMaxnregOption = "-DPORTA_PTX_MAXNREG=";
// A tensor-core configuration's register bound, ":rR" at the end of its text (gemm/tc.hpp,
// gemm/wg.hpp): R where `rest` is ":r" and one to three digits, else 0.
inline int parse_register_bound(const std::string& rest) {
  if (!rest.starts_with(":r") || rest.size() <= 2 || rest.size() > 5 || rest.find_first_not_of("0123456789", 2) != std::string::npos)
    return 0;
  return std::stoi(rest.substr(2));
}
// Why a configuration's register bound cannot be taken (empty for 0, none, and for 64 to 255).
inline std::string register_bound_reason(int regs) {
  return regs != 0 && (regs < 64 || regs > 255) ? "a register bound of 64 to 255" : "";
}

using detail::DeviceInfo;
using detail::EventImpl;
using detail::Handle;
using detail::KernelArg;
using detail::KernelParam;
using detail::KernelSource;
using detail::LaunchDims;
using detail::MatmulArgs;
using detail::QueueImpl;

class Device;
struct GemmParams;  // gemm/kernel.hpp
struct MmaParams;   // gemm/mma.hpp

// A marker in an in-order queue (queue.cpp).
class Event final : public EventImpl {
 public:
  Event(cl_event event, cl_context context) : event_(event), context_(context) {}
  ~Event() override;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  bool done() override;
  void synchronize() override;
  double elapsed_ms_since(EventImpl& start) override;

  cl_event native() const { return event_; }
  cl_context context() const { return context_; }

 private:
  cl_event event_;
  cl_context context_;
};

// An in-order command queue with profiling, one per (host thread, device) (queue.cpp).
class Kernel;

// One kernel launch waiting in a queue's launch thread (launch_thread.hpp): the kernel, the
// NDRange and each argument's bytes, set on a cl_kernel of the pool when the launch is made.
struct LaunchItem {
  static constexpr std::size_t kMaxArgs = 32;
  std::shared_ptr<Kernel> kernel;
  cl_uint work_dim = 1;
  bool any_local = false;
  std::array<std::size_t, 3> global{}, local{};
  cl_uint count = 0;
  std::array<std::uint32_t, kMaxArgs> sizes{};  // bytes; a local-memory argument has no value
  std::array<bool, kMaxArgs> local_memory{};
  std::array<bool, kMaxArgs> memory{};
  std::array<std::uint64_t, kMaxArgs> values{};  // a cl_mem or a scalar of up to 8 bytes
};

// One recorded command of a graph, for a command buffer (graph.cpp): a kernel launch with its
// arguments as built, a copy or a fill.
struct RecordedCommand {
  enum class Kind : std::uint8_t { launch, copy, fill };
  Kind kind = Kind::launch;
  std::shared_ptr<Kernel> kernel;
  cl_uint work_dim = 1;
  bool any_local = false;
  std::array<std::size_t, 3> global{}, local{};
  std::vector<KernelArg> args;
  Handle src = nullptr, dst = nullptr;
  std::size_t src_offset = 0, dst_offset = 0, bytes = 0, pattern_size = 0;
  std::array<std::uint8_t, 8> pattern{};
};

class Queue final : public QueueImpl {
 public:
  explicit Queue(Device& device);
  ~Queue() override;
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  std::shared_ptr<EventImpl> record(bool timing = false) override;
  void wait(EventImpl& e) override;
  void synchronize() override;
  void* native_handle() override { return native(); }

  // The queue, for commands enqueued on it directly: first the launch thread makes every launch
  // recorded before (launch_thread.hpp), so the queue sees program order; throws the error a
  // launch met there, if any.
  cl_command_queue native() {
    launcher_.before_direct_work();
    return queue_;
  }
  // The same for frees and destructors: waits, never throws.
  cl_command_queue native_noexcept() noexcept {
    launcher_.before_direct_work_noexcept();
    return queue_;
  }
  // Records a launch for the launch thread (started on first use).
  template <class Fill>
  void push_launch(Fill&& fill) {
    launcher_.push(std::forward<Fill>(fill));
  }
  const Device& device() const { return device_; }

  // Graphs: the calls made while recording become steps of a LaunchReplay (graph.hpp).
  // Where the device has cl_khr_command_buffer and every recorded call is a launch, copy or fill,
  // the graph is a command buffer (graph.cpp); otherwise the replay.
  void begin_capture() override;
  std::unique_ptr<detail::GraphImpl> end_capture(std::span<const detail::MemoryRange> rebindable) override;
  void abort_capture() noexcept override;
  // Called with each recorded call: the command, or (null) a call a command buffer cannot hold.
  void record_command(RecordedCommand c) { commands_.push_back(std::move(c)); }
  void record_opaque() { opaque_ = true; }
  bool capturing() const override { return recorder_.active(); }
  // The recorder when this queue is recording, else null.
  detail::QueueRecorder* recording() { return recorder_.active() ? &recorder_ : nullptr; }

  // A device buffer of at least `bytes` for commands of this queue to use until they are done
  // (TF32's transposed B, gemm/tensor.cpp): the queue runs its commands in order, so the next
  // user's commands come after the last one's. Kept, grown when asked for more, released with
  // the queue.
  Handle scratch(std::size_t bytes);

 private:
  void make_launch(LaunchItem& item);  // on the launch thread, or a thread that drains it

  Device& device_;
  cl_command_queue queue_ = nullptr;
  detail::QueueLauncher<LaunchItem> launcher_{[] {}, [this](LaunchItem& item) { make_launch(item); }};
  detail::QueueRecorder recorder_;
  std::vector<RecordedCommand> commands_;
  bool opaque_ = false;
  std::mutex scratch_m_;
  Handle scratch_ = nullptr;
  std::size_t scratch_bytes_ = 0;
};

// The graph of a queue's recorded commands as command buffers, or null where the device has no
// usable cl_khr_command_buffer (graph.cpp). `fallback` replays where a command buffer cannot go.
std::unique_ptr<detail::GraphImpl> command_buffer_graph(Queue& q, std::vector<RecordedCommand> commands,
                                                        std::span<const detail::MemoryRange> rebindable,
                                                        std::unique_ptr<detail::GraphImpl> fallback);

// A built program and a pool of cl_kernel objects made from it (compile.cpp). clSetKernelArg
// and clEnqueueNDRangeKernel on one cl_kernel must not race, so each launch takes a cl_kernel
// of its own from the pool and gives it back once enqueued (arguments are captured at enqueue).
class Kernel final : public detail::Kernel, public std::enable_shared_from_this<Kernel> {
 public:
  Kernel(const Device& device, cl_program program, cl_kernel first, std::string entry);
  ~Kernel() override;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // A cl_kernel of the pool with the arguments last set on it: a launch sets only those that
  // changed (clSetKernelArg costs a driver call each; a loop of small ops repeats most of them).
  struct Slot {
    struct Arg {
      bool set = false, local = false;
      std::uint32_t size = 0;
      std::uint64_t value = 0;
      std::uint64_t generation = 0;  // memory_generation() when a cl_mem was set
    };
    cl_kernel kernel = nullptr;
    std::vector<Arg> args;
  };

  // A cl_kernel for one launch; returned to the pool when the lease ends.
  class Lease {
   public:
    Lease(Kernel& owner, Slot* slot) : owner_(owner), slot_(slot) {}
    ~Lease() { owner_.give_back(slot_); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    cl_kernel native() const { return slot_->kernel; }
    // clSetKernelArg unless argument i already holds these bytes. `memory`: the value is a
    // cl_mem, trusted only while no buffer was released since (a new buffer may reuse a handle);
    // `value` null: `size` bytes of local memory.
    cl_int set(cl_uint i, std::size_t size, const void* value, bool memory);

   private:
    Kernel& owner_;
    Slot* slot_;
  };
  Lease take();

  // The program binary for the disk cache (clGetProgramInfo CL_PROGRAM_BINARIES); empty when
  // the driver gives none.
  std::vector<std::uint8_t> binary() const override;

  const Device& device() const { return device_; }
  const std::string& entry() const { return entry_; }
  cl_uint arg_count() const { return arg_count_; }
  std::size_t max_group_size() const { return max_group_size_; }  // CL_KERNEL_WORK_GROUP_SIZE
  // From clGetKernelArgInfo where the program kept argument info (-cl-kernel-arg-info, which
  // RawKernel asks for); otherwise the count alone, each parameter of unknown kind.
  const std::vector<KernelParam>* params() const override { return &params_; }

 private:
  void give_back(Slot* slot) noexcept;

  const Device& device_;
  cl_program program_;
  std::string entry_;
  cl_uint arg_count_ = 0;
  std::vector<KernelParam> params_;
  std::size_t max_group_size_ = 0;
  std::mutex m_;
  std::vector<std::unique_ptr<Slot>> slots_;  // every cl_kernel made
  std::vector<Slot*> free_;
};

// Counts clReleaseMemObject calls of this process (memory.cpp): a cl_mem handle remembered as a
// kernel argument is known to be the same buffer only while the count has not moved.
std::uint64_t memory_generation() noexcept;
void note_memory_released() noexcept;

// One OpenCL device with its own cl_context. Methods live in the file of their concern:
// device.cpp (info, queues), memory.cpp, compile.cpp, launch.cpp, blas.cpp, gemm/tiled.cpp.
class Device final : public detail::DeviceImpl {
 public:
  // Takes ownership of `context`.
  Device(int index, cl_platform_id platform, cl_device_id device, cl_context context);
  ~Device() override;

  const DeviceInfo& info() const override { return info_; }
  std::shared_ptr<QueueImpl> create_queue() override;

  Handle allocate(std::size_t bytes, QueueImpl& q) override;
  void deallocate(Handle h, std::size_t bytes, QueueImpl* q) noexcept override;
  void write(QueueImpl& q, Handle dst, std::size_t dst_offset, const void* src, std::size_t bytes) override;
  void read(QueueImpl& q, Handle src, std::size_t src_offset, void* dst, std::size_t bytes) override;
  void copy(QueueImpl& q, Handle src, std::size_t src_offset, Handle dst, std::size_t dst_offset,
            std::size_t bytes) override;
  void fill(QueueImpl& q, Handle dst, std::size_t offset, const void* pattern, std::size_t pattern_size,
            std::size_t bytes) override;
  void* map(QueueImpl& q, Handle h, std::size_t bytes) override;
  void unmap(QueueImpl& q, Handle h, void* p) override;

  std::shared_ptr<detail::Kernel> compile(const KernelSource& src) override;
  // A program binary from binary() of an earlier process: clCreateProgramWithBinary +
  // clBuildProgram; nullptr (the core recompiles) when the driver does not accept it.
  std::shared_ptr<detail::Kernel> load_binary(const KernelSource& src, std::span<const std::uint8_t> binary) override;
  // Platform (name, version), device (name, vendor, OpenCL version) and driver version: a
  // cached binary is only loaded by the driver and device that made it.
  std::string compiler_id() const override { return compiler_id_; }
  void launch(QueueImpl& q, detail::Kernel& k, const LaunchDims& dims, std::span<const KernelArg> args) override;

  void matmul(QueueImpl& q, const MatmulArgs& args) override;
  // fft_host.cpp: porta's host FFT on mapped memory where host_fft_, else VkFFT (fft.cpp).
  std::shared_ptr<detail::FftPlanImpl> make_fft_plan(const detail::FftDesc& desc) override;
#ifdef PORTA_HAVE_VKFFT
  std::shared_ptr<detail::FftPlanImpl> make_vkfft_plan(const detail::FftDesc& desc);  // fft.cpp
#endif
  // Whether a device described by `in` runs porta's host FFT (CPU devices on host memory, unless
  // PORTA_OPENCL_FFT=vkfft).
  static bool host_fft(const DeviceInfo& in);
  void solver(QueueImpl& q, const detail::SolverArgs& args) override;  // solver.cpp

  // interop.cpp
  detail::NativeObjects native_objects() override;
  void* host_address(Handle h) override;
  std::shared_ptr<EventImpl> record_foreign(void* foreign) override;
  void foreign_wait(void* foreign, EventImpl& e) override;
  Imported import_memory(void* native, MemoryKind kind, std::size_t begin, std::size_t end) override;
  void release_import(Handle h) noexcept override;

  cl_platform_id native_platform() const { return platform_; }
  cl_device_id native() const { return device_; }
  cl_context native_context() const { return context_; }
  // "opencl:0 (pthread-haswell-AMD EPYC)", for messages.
  const std::string& label() const { return label_; }
  bool has_extension(const char* name) const;
  // NVIDIA's compute capability, major * 10 + minor (cl_nv_device_attribute_query); 0 elsewhere.
  int nv_compute_capability() const { return nv_compute_capability_; }

  // A cl_command_queue porta does not own, checked to be of this device (any cl_context), and
  // its context (interop.cpp).
  cl_command_queue foreign_queue(void* foreign, const char* what, cl_context* context) const;
  // The queue behind `q`, checked to be an OpenCL queue of this device.
  // The OpenCL queue behind a core queue; first throws, when this device's context failed
  // earlier (check_usable).
  Queue& queue_of(QueueImpl& q) const;

  // A kernel that faults leaves the context unusable: NVIDIA's driver then fails every later
  // read with CL_OUT_OF_RESOURCES and every build. The first such failure at a point where work
  // completes (a finish, a blocking read) is remembered, and every later call on the device
  // (queue_of, compile) throws a DeviceError that says so, instead of an error in unrelated places.
  void note_failure(cl_int status, const std::string& what) const;
  void check_usable() const;
  // BackendUnavailable for a compile asked for after exit() began (base/exit_guard.hpp says why);
  // else a lock the build holds so that exit waits for it.
  std::shared_lock<std::shared_mutex> check_compile_allowed(const std::string& entry) const;
  void watch_exit() const;  // registers that exit handler; the constructor calls it

 private:
  // gemm/tiled.cpp: porta's GEMM kernel and the parameters chosen for this device (per dtype,
  // searched on first use on GPUs and kept in the disk cache).
  struct GemmTuning;
  GemmTuning& gemm_tuning();
  GemmParams gemm_choose(QueueImpl& q, DType dtype, bool small, std::uint64_t local_mem, std::size_t max_group);
  void matmul_tiled(QueueImpl& q, const MatmulArgs& args);
  // gemm/tensor.cpp: the tensor-core kernels (gemm/mma.hpp, gemm/tc.hpp). Runs the product and
  // returns true when a configuration takes it, false (nothing done) otherwise. Where the device
  // has the instructions, the configurations are ranked by a search on first use; `forced`
  // (PORTA_OPENCL_GEMM=mma) takes the path on any device, emulated where the instructions are
  // missing, and `only` restricts it to one configuration (a product it does not fit throws).
  bool matmul_tensor(QueueImpl& q, const MatmulArgs& args, bool forced, const std::string& only);
  std::vector<std::string> tensor_ranking(QueueImpl& q, DType dtype, bool small);
  void matmul_host(QueueImpl& q, const MatmulArgs& args);
  void matmul_clblast(QueueImpl& q, const MatmulArgs& args);

  cl_platform_id platform_;
  cl_device_id device_;
  cl_context context_;
  DeviceInfo info_;
  std::string label_;
  mutable std::atomic<bool> failed_{false};
  mutable std::mutex failure_m_;
  mutable std::string failure_;
  std::string extensions_;
  std::string compiler_id_;
  int nv_compute_capability_ = 0;
  bool host_fft_ = false;  // fft_host.cpp

  // PoCL 3.1 crashes or returns bad pointers when one buffer is mapped and unmapped from several
  // threads at once; maps and unmaps (until the unmap has completed) take this lock.
  std::mutex map_m_;

  std::once_flag gemm_once_;
  std::shared_ptr<GemmTuning> gemm_;  // shared_ptr: GemmTuning is complete only in gemm/search.hpp
};

// device.cpp: one clGetDeviceInfo / clGetPlatformInfo answer as text or as a value.
std::string device_string(cl_device_id d, cl_device_info what);
std::string platform_string(cl_platform_id p, cl_platform_info what);
template <class T> T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  PORTA_CL(clGetDeviceInfo(d, what, sizeof v, &v, nullptr));
  return v;
}

// compile.cpp: the binary of `program` for `device` (CL_PROGRAM_BINARIES), empty with the reason
// in `why` when the driver gives none.
std::vector<std::uint8_t> program_binary(cl_program program, cl_device_id device, std::string& why);

#ifdef PORTA_HAVE_VKFFT
// "VkFFT 1.2.26 (OpenCL)": the library fft.cpp plans with.
std::string vkfft_name();
#endif

}  // namespace porta::opencl
