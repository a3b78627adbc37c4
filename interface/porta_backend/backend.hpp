// The one internal interface every backend plugin implements (CUDA, OpenCL, Kokkos).
//
// Three levels, as in ggml's registry: a plugin exports one entry point that creates a
// BackendImpl; the backend lists DeviceImpls; a device makes queues, allocates memory,
// compiles and launches the kernels the core generates (or, without a run-time compiler,
// executes the core's plans through the block interpreter), and runs matmul.
//
// The core (src/) owns everything above this line: arrays, the expression graph, code
// generation, caches, hazard tracking between queues. A backend only does device work.
//
// This folder (interface/porta_backend/) is the whole plugin interface: the core and every
// plugin include it, it includes neither, and a plugin includes nothing else of the core (what
// it may call there is declared in services.hpp). CTest's include_graph test checks that.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <porta/device.hpp>
#include <porta/dtype.hpp>
#include <porta/error.hpp>

#include "porta_backend/plan.hpp"

namespace porta::detail {

// Bumped whenever anything in this folder changes layout or meaning (7: the interface folder, the
// core's services declared in services.hpp; 8: graphs, QueueImpl::begin_capture and graph.hpp;
// 9: plan.hpp's new ops, which renumber Op; 10: DeviceInfo::caps, BackendImpl::notes, the plugin
// entry's name and install hint in place of a Backend value, create() given the backend's value,
// native_objects() giving the device's ordinal by default; 11: the dtypes int8 ... uint64, complex64,
// complex128, which widen DeviceInfo::dtypes, the ops real/imag/conj and ScalarValue::imag; 12:
// Capabilities::complex_gemm and integer_gemm, MatmulArgs::allow_3m; 13: FFT plans, Capabilities::fft,
// FftDesc, FftPlanImpl, DeviceImpl::make_fft_plan; 14: dense solvers, Capabilities::solvers,
// SolverOp, SolverArgs, DeviceImpl::solver; 15: Capabilities::row_major_solvers, SolverArgs::row_major;
// 16: SolverOp::stedc and bdsdc; 17: Capabilities::copy_in_solvers, SolverArgs::src; 18:
// MatmulArgs::subtract; 19: geqrf and orgqr among copy_in_solvers).
inline constexpr int kBackendApiVersion = 19;

// The source language generated kernels are written in for a device.
enum class Dialect : std::uint8_t { cuda, opencl, none };

// How generated elementwise kernels should be shaped on a device (GPU.md: generate for the device).
struct LaunchStyle {
  bool grid_stride = true;        // false: one element (or vector) per work-item, no loop
  int vector_bytes = 16;          // width of vector loads on the contiguous path; 0: scalar only
  std::size_t group_size = 256;   // work-group / block size; 0: let the runtime choose
  std::size_t max_groups = 1024;  // grid cap for grid-stride kernels
};

// What a device offers beyond the calls every device answers. The core asks these instead of
// naming backends (docs/design/plugins.md#capabilities), so that a backend of a new kind changes
// nothing in src/. The defaults are a device without a run-time compiler whose memory handles are
// objects and which has no DLPack device type.
struct Capabilities {
  // User kernels (RawKernel; dialect != none). The language of the source a RawKernel of this
  // backend holds, for messages ("CUDA C++", "OpenCL C"); empty: the backend compiles no source.
  std::string source_language;
  // Added to a RawKernel's compile options when not given (OpenCL: "-cl-kernel-arg-info", so that
  // Kernel::params() can list the parameters' types).
  std::vector<std::string> user_kernel_options;
  std::string group_word = "work-group";  // the launch's group of threads, in messages: "block", "work-group"
  std::string local_memory_word = "local";  // the group's memory, in messages: "shared", "local"
  bool runtime_group_size = false;  // a launch may leave the group size to the runtime (LaunchDims::local all 0)
  // Local memory is given per launch (CUDA's dynamic shared memory: LaunchDims::dynamic_local_bytes,
  // and a KernelArg::local joins it and is no kernel parameter) rather than as kernel parameters
  // (OpenCL's __local pointers, one KernelArg::local each).
  bool local_memory_per_launch = false;
  bool memory_arg_offsets = false;  // a memory KernelArg may carry a byte offset (CUDA adds it to the pointer)

  // Memory. A Handle is an address, so byte n of it is Handle + n (CUdeviceptr, a host pointer),
  // rather than an object that takes offsets beside it (cl_mem). Native memory of this kind
  // (wrap_memory, DLPack) is a pointer and must be element-aligned.
  bool handles_are_addresses = false;

  // DLPack: the DLDeviceType (dlpack.h) of its arrays' tensors, with device_id the ordinal
  // native_objects() gives: kDLCUDA (2), kDLOpenCL (4); kDLCPU (1) for a backend whose memory is
  // host memory it exports as such (Kokkos). 0: none (to_dlpack then needs to_host).
  int dlpack_device_type = 0;
  // Further device types whose tensors it imports as its own memory (CUDA: kDLCUDAManaged, 13).
  std::vector<int> dlpack_import_types;

  // Matrix products beyond the real floats every DeviceImpl::matmul takes (float32, and float64,
  // float16, bfloat16 where the device has them). complex_gemm: complex64 and complex128 (where the
  // device has them), without conjugation; the core refuses complex matmul with a DTypeError
  // elsewhere. integer_gemm: int8 ... uint64, exact, wrapping modulo 2^bits as NumPy's; elsewhere
  // the core sums products through elementwise kernels and a reduction (m x k x n memory).
  bool complex_gemm = false;
  bool integer_gemm = false;

  // Fourier transforms (DeviceImpl::make_fft_plan): the library that runs them, for porta-info and
  // messages ("VkFFT 1.2.26 (OpenCL)", "cuFFT 11.2", "porta host FFT"); empty: the device has none
  // and porta::fft refuses it with a DTypeError naming the device. fft_max_rank: the most trailing
  // axes one plan transforms at once (1-3); the core splits more axes into several plans.
  std::string fft;
  int fft_max_rank = 1;
  // Dense solvers (DeviceImpl::solver): a bit (1u << SolverOp) for each op the device runs, for
  // float32, float64, complex64 and complex128. The core refuses porta::linalg's decompositions
  // with a DTypeError where the op's bit is clear.
  std::uint32_t solvers = 0;
  // The ops of `solvers` that also take C-order (row-major) matrices (SolverArgs::row_major): the
  // core then hands a small matrix over as it is, without its transposing copies.
  std::uint32_t row_major_solvers = 0;
  // The ops of `solvers` that take their input from SolverArgs::src (getrf, getrs, potrf, geqrf, orgqr): the core then hands
  // over the caller's matrices with an uninitialised workspace and info, where it would otherwise
  // fill the workspace with a copy first.
  std::uint32_t copy_in_solvers = 0;
};

struct DeviceInfo {
  std::string name;
  std::string vendor;
  std::string platform;         // OpenCL platform; "CUDA" / "Kokkos" elsewhere
  std::string driver_version;
  std::string pci_bus_id;       // "0000:3b:00.0", empty when unknown
  std::string arch;             // "sm_90"; OpenCL C version; Kokkos execution space
  DeviceKind kind = DeviceKind::other;
  std::uint64_t memory_bytes = 0;
  std::uint64_t max_alloc_bytes = 0;
  std::uint64_t max_local_bytes = 0;  // local / shared memory one work-group or block may take (CUDA: the opt-in maximum)
  int compute_units = 0;
  std::array<bool, kDTypeCount> dtypes{};  // storage and elementwise compute, by DType index
  Dialect dialect = Dialect::none;
  LaunchStyle launch;
  bool host_memory = false;     // device memory is host-addressable (CPU devices): see map()
  bool caching_allocator = true;  // false: the backend pools memory itself (none does today)
  std::string matmul;           // how matmul runs here, for porta-info ("cuBLAS", "host BLAS (OpenBLAS) ...")
  std::string solver;           // how the dense solvers run here, for porta-info ("cuSOLVER", "LAPACKE ..."); empty: none
  Capabilities caps;
};

class QueueImpl;
class GraphImpl;

// A device allocation, as the backend knows it: a CUdeviceptr (cast), a cl_mem, a host pointer.
using Handle = void*;

// Memory a graph may be launched with in place of what it was recorded with (graph.hpp).
struct MemoryRange {
  Handle handle = nullptr;
  std::size_t bytes = 0;
};

// A point in a queue. Waited on by other queues (cross-thread hazards) and by the host.
class EventImpl {
 public:
  virtual ~EventImpl() = default;
  virtual bool done() = 0;         // completed (non-blocking)
  virtual void synchronize() = 0;  // block the host until completed
  // Milliseconds between `start` and this event; both recorded with timing = true.
  virtual double elapsed_ms_since(EventImpl& start) = 0;
};

// An in-order stream of work: one per (host thread, device), made by the core on first use.
// Destroying a queue waits for its work first.
class QueueImpl {
 public:
  virtual ~QueueImpl() = default;
  // A marker at the current end of the queue. May be called from any thread.
  virtual std::shared_ptr<EventImpl> record(bool timing = false) = 0;
  // Work queued here after this call starts only once `e` (from any queue of the device) is done.
  virtual void wait(EventImpl& e) = 0;
  virtual void synchronize() = 0;
  virtual void* native_handle() = 0;  // CUstream, cl_command_queue, nullptr (each backend's Queue::native() is typed)

  // Graphs (graph.hpp, docs/design/threading.md#graphs-record-and-replay). From begin_capture()
  // until end_capture() the work queued here by this thread is recorded, not run; work a graph
  // cannot hold (a read to the host, a map, a synchronize) throws InvalidArgument instead.
  // `rebindable`: memory each launch of the graph names anew (GraphImpl::launch). abort_capture()
  // drops what was recorded. The defaults: the backend cannot record (InvalidArgument).
  virtual void begin_capture();
  virtual std::unique_ptr<GraphImpl> end_capture(std::span<const MemoryRange> rebindable);
  virtual void abort_capture() noexcept {}
  virtual bool capturing() const { return false; }
};

// A recorded sequence of a queue's work (QueueImpl::begin_capture).
class GraphImpl {
 public:
  virtual ~GraphImpl() = default;
  // Queues the recorded work on `q`, a queue of the device it was recorded on, with the memory
  // end_capture() was given as rebindable[i] replaced by bound[i] (as large, as aligned).
  virtual void launch(QueueImpl& q, std::span<const Handle> bound) = 0;
  virtual std::string kind() const = 0;          // "CUDA graph", "replay of recorded launches"
  virtual std::size_t operations() const = 0;    // nodes, or recorded calls
};

// One argument of a kernel launch. Memory arguments carry a byte offset (CUDA adds it to the
// pointer; OpenCL accepts only 0, so generated kernels pass element offsets as scalars).
struct KernelArg {
  enum class Kind : std::uint8_t { memory, scalar, local_memory };
  Kind kind = Kind::scalar;
  Handle handle = nullptr;
  std::size_t offset_bytes = 0;
  std::size_t size = 0;                      // scalar size in bytes (<= 8), or local_memory bytes
  alignas(8) std::array<std::uint8_t, 8> value{};

  static KernelArg memory(Handle h, std::size_t offset_bytes = 0);
  static KernelArg local(std::size_t bytes);
  template <class T> static KernelArg scalar(T v) {
    static_assert(sizeof(T) <= 8);
    KernelArg a;
    a.kind = Kind::scalar;
    a.size = sizeof(T);
    std::memcpy(a.value.data(), &v, sizeof(T));
    return a;
  }
};

// OpenCL's NDRange words: `global` work-items in total per dimension (a multiple of `local`
// where local is given); `local` all zero lets the runtime choose (OpenCL only).
struct LaunchDims {
  std::array<std::size_t, 3> global{1, 1, 1};
  std::array<std::size_t, 3> local{0, 0, 0};
  std::size_t dynamic_local_bytes = 0;  // CUDA dynamic shared memory
};

struct KernelSource {
  std::string source;
  std::string entry;                 // kernel function name
  std::vector<std::string> options;  // passed to NVRTC / clBuildProgram as given
  // On NVIDIA's OpenCL, "-DPORTA_PTX_MAXNREG=N" also bounds the kernel to N registers (a .maxnreg
  // directive in the program's PTX, since that driver refuses -cl-nv-maxrregcount); ignored elsewhere.
  // A user's text (RawKernel, ElementwiseKernel): compiled as given. porta's own kernels a backend
  // may start with code of its own (CUDA on sm_90+: the wait of programmatic dependent launch).
  bool user_code = false;
};

// One parameter of a compiled kernel, as far as the backend can tell (RawKernel checks the
// arguments a user passes against these before the driver sees them).
struct KernelParam {
  enum class Kind : std::uint8_t { memory, scalar, local_memory, unknown };
  Kind kind = Kind::unknown;
  std::size_t size = 0;  // bytes of the value passed (a pointer's or a scalar's); 0: unknown
  std::string type;      // the declared type ("__global float*", "int"), empty when unknown
};

// A compiled kernel. Backends make launches of one Kernel from many threads safe.
class Kernel {
 public:
  virtual ~Kernel() = default;
  // The kernel's parameters in order, read once when it was compiled; null when the backend cannot
  // list them. RawKernel checks every launch against them, so this must cost nothing.
  virtual const std::vector<KernelParam>* params() const { return nullptr; }
  // The compiled program (a cubin, an OpenCL program binary) for the disk cache; empty when
  // the backend cannot give one.
  virtual std::vector<std::uint8_t> binary() const { return {}; }
};

// C = op(A) * op(B) per batch, row-major: A is m x k (k x m when trans_a), B is k x n
// (n x k when trans_b), C is m x n with row stride ldc. Batch strides may be 0 (broadcast).
struct MatmulArgs {
  DType dtype = DType::float32;  // of A, B and C
  std::int64_t batch = 1, m = 0, n = 0, k = 0;
  Handle a = nullptr, b = nullptr, c = nullptr;
  std::int64_t a_offset = 0, b_offset = 0, c_offset = 0;  // elements
  std::int64_t lda = 0, ldb = 0, ldc = 0;                 // row strides in elements
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // batch strides in elements
  bool trans_a = false, trans_b = false;
  bool allow_tf32 = false;  // float32 and complex64 may use TF32 tensor cores
  bool allow_3m = false;    // complex products may use the 3M (Gauss) form: 3 real products, not 4
  // C -= op(A) * op(B) (BLAS's alpha -1, beta 1: C is read) instead of C = op(A) * op(B); float32,
  // float64, complex64 and complex128 only (the blocked solvers' trailing updates).
  bool subtract = false;
};

// A batched FFT the core asks a device for (docs/design/fft.md): `batch` transforms over the last
// lengths.size() (1 to Capabilities::fft_max_rank) axes of a C-contiguous array starting at the
// first byte of its buffer, out of place into another such array. `dtype` is complex64 or
// complex128; r2c reads its real dtype (batch x lengths) and writes lengths' last / 2 + 1
// complex elements on the last axis; c2r reads those and writes real lengths; c2c reads and
// writes complex lengths. Transforms are unnormalised in both directions (the core scales).
enum class FftKind : std::uint8_t { c2c, r2c, c2r };
struct FftDesc {
  DType dtype = DType::complex64;
  FftKind kind = FftKind::c2c;
  std::vector<std::int64_t> lengths;  // outermost first; every length >= 1
  std::int64_t batch = 1;             // >= 1
  bool operator==(const FftDesc&) const = default;
};

// A plan made once for a description and executed many times, from many threads (each with its
// own queue of the plan's device): a backend serialises what its library cannot run concurrently.
class FftPlanImpl {
 public:
  virtual ~FftPlanImpl() = default;
  // Queues the transform on `q`: forward is exp(-2 pi i jk/n), else exp(+2 pi i jk/n) (c2c only;
  // r2c is always forward and c2r always backward). `in` may be overwritten where
  // overwrites_input() says so (the core then passes memory of its own).
  virtual void execute(QueueImpl& q, Handle in, Handle out, bool forward) = 0;
  virtual bool overwrites_input() const { return false; }
  // Device memory the plan holds (work areas, twiddles), counted by the core's plan cache.
  virtual std::size_t bytes() const { return 0; }
};

// Dense solvers with LAPACK's meaning (docs/design/linalg.md), each on a contiguous batch of
// column-major matrices: matrix i of an operand starts at its offset + i * its batch stride
// (below), with leading dimension its row count. Integers (ipiv, info) are int32; ipiv is 1-based
// as LAPACK's. info[i] is LAPACK's info of matrix i (> 0: singular at that pivot, not positive
// definite at that order, not converged); a bad argument throws instead. Operands are distinct
// buffers. float32, float64, complex64, complex128; w and s are of the real dtype.
enum class SolverOp : std::uint8_t {
  getrf,  // a (m x n) = P L U in place; ipiv (min(m,n)); info
  getrs,  // b (n x nrhs) = A^-1 b from getrf's a (n x n) and ipiv
  potrf,  // a (n x n) = L L^H (lower) or U^H U in place, the other triangle untouched; info
  potrs,  // b (n x nrhs) = A^-1 b from potrf's a
  geqrf,  // a (m x n) = Q R in place (R above the diagonal, reflectors below); tau (min(m,n))
  orgqr,  // a (m x n, n <= m) = the first n columns of Q from k reflectors in a and tau (k) (ungqr)
  syevd,  // eigenvalues w (n, ascending) of Hermitian a (n x n, triangle `lower`); vectors into a
          // when `vectors` (heevd); info
  gesvd,  // a (m x n) = U diag(s) V^H, m >= n: s (n); when `vectors`, u (m x m when
          // full_matrices, else m x n) and vt (n x n); a is overwritten; info
  stedc,  // eigenvalues w (n, ascending; T's diagonal on entry) of the real symmetric tridiagonal
          // T whose subdiagonal is b (n a matrix, nrhs 1: the first n - 1 read, all destroyed);
          // when `vectors`, T's eigenvectors into u (n x n); float32 and float64 only; info
  bdsdc,  // singular values w (n, descending; B's diagonal on entry) of the real upper bidiagonal
          // B whose superdiagonal is b (n a matrix, nrhs 1: the first n - 1 read, all destroyed);
          // when `vectors`, B = U diag(w) VT with U into u and VT into vt (n x n each); float32 and
          // float64 only; info
  count
};
inline constexpr std::uint32_t solver_bit(SolverOp op) { return 1u << static_cast<unsigned>(op); }
inline const char* to_string(SolverOp op) {
  constexpr const char* kNames[] = {"getrf", "getrs", "potrf", "potrs", "geqrf", "orgqr", "syevd", "gesvd", "stedc", "bdsdc"};
  return op < SolverOp::count ? kNames[static_cast<int>(op)] : "?";
}

struct SolverArgs {
  SolverOp op = SolverOp::getrf;
  DType dtype = DType::float32;
  std::int64_t batch = 1, m = 0, n = 0;
  std::int64_t nrhs = 0;  // getrs, potrs
  std::int64_t k = 0;     // orgqr: reflectors
  // Batch strides (elements): a m*n; b n*nrhs; ipiv min(m,n); tau min(m,n) (orgqr: k); w n;
  // s min(m,n); u m*m or m*n; vt n*n; info 1.
  Handle a = nullptr, b = nullptr, ipiv = nullptr, tau = nullptr, w = nullptr, u = nullptr, vt = nullptr,
         info = nullptr;  // w: syevd's eigenvalues, gesvd's singular values
  std::int64_t a_offset = 0, b_offset = 0, ipiv_offset = 0, tau_offset = 0, w_offset = 0, u_offset = 0,
               vt_offset = 0, info_offset = 0;  // elements
  bool lower = true;          // potrf, potrs, syevd: which triangle
  bool vectors = true;        // syevd: eigenvectors; gesvd: u and vt
  bool full_matrices = false; // gesvd: u is m x m
  // Square a (and getrs' b) in C order, for the ops in Capabilities::row_major_solvers: getrf
  // factors what Fortran order sees there, A^T (its pivots and factors, A's determinant); getrs
  // solves A X = B from those, B and X in C order; potrf writes A's factor (`lower`: L) in C order.
  bool row_major = false;
  // The ops in Capabilities::copy_in_solvers with src: the input stack, never written, in the
  // layout and batch stride of the operand it is copied into just before the op works on matrix i:
  // potrf copies matrix i's `lower` triangle (as a's layout sees it) into a and zeros into the
  // other, getrf the whole matrix into a, getrs the right-hand sides into b, orgqr the whole
  // matrix into a. geqrf's src is the C-order stack (batch, m, n) itself, which it copies
  // transposed into its column-major a. potrf and getrf write info for every matrix.
  Handle src = nullptr;
  std::int64_t src_offset = 0;  // elements
};

// The vendor objects behind a device, for interop (include/porta/interop.hpp): a CUcontext (the
// primary context) and the CUdevice's ordinal; a cl_context, cl_device_id and cl_platform_id.
// `ordinal` is the device's number in its vendor's own API, which interop and DLPack report
// (CUDA's ordinal; elsewhere the device's index, the default).
struct NativeObjects {
  void* context = nullptr;
  void* device = nullptr;
  void* platform = nullptr;
  int ordinal = 0;
};

class DeviceState;  // the core's per-device state (kernel cache, allocator); defined in src/

class DeviceImpl {
 public:
  DeviceImpl(Backend backend, int index);
  virtual ~DeviceImpl();
  DeviceImpl(const DeviceImpl&) = delete;
  DeviceImpl& operator=(const DeviceImpl&) = delete;

  Backend backend() const { return backend_; }
  int index() const { return index_; }
  virtual const DeviceInfo& info() const = 0;

  virtual std::shared_ptr<QueueImpl> create_queue() = 0;

  // Memory. `allocate` throws OutOfMemory with the sizes (the core then frees its caches and
  // retries once). The queue is the one the memory will first be used on.
  virtual Handle allocate(std::size_t bytes, QueueImpl& q) = 0;
  // Frees memory once the work queued on `q` so far is done (stream-ordered; CUDA's
  // cuMemFreeAsync) or at once; q is null when no work on it is pending.
  virtual void deallocate(Handle h, std::size_t bytes, QueueImpl* q) noexcept = 0;
  virtual void release_cached_memory() {}  // pools the backend keeps (CUDA's memory pool)
  virtual std::uint64_t free_memory() const { return info().memory_bytes; }

  // Host <-> device and device -> device copies, ordered on `q`. `write` returns once `src`
  // may be reused; `read` returns once `dst` holds the data.
  virtual void write(QueueImpl& q, Handle dst, std::size_t dst_offset, const void* src, std::size_t bytes) = 0;
  virtual void read(QueueImpl& q, Handle src, std::size_t src_offset, void* dst, std::size_t bytes) = 0;
  virtual void copy(QueueImpl& q, Handle src, std::size_t src_offset, Handle dst, std::size_t dst_offset,
                    std::size_t bytes) = 0;
  // Device -> another device of the same backend, queued on `q` (this device's queue, ordered
  // after the source's writes; `dst` is allocated and idle). Direct (NVLink, PCIe peer-to-peer)
  // where the devices allow it. False where the backend has no such path: the core then copies
  // through the host.
  virtual bool copy_to_peer(QueueImpl& q, Handle src, std::size_t src_offset, DeviceImpl& dst_device, Handle dst,
                            std::size_t dst_offset, std::size_t bytes) {
    (void)q, (void)src, (void)src_offset, (void)dst_device, (void)dst, (void)dst_offset, (void)bytes;
    return false;
  }
  // Fills `bytes` at `dst + offset` with a repeated `pattern_size`-byte pattern (1, 2, 4 or 8).
  virtual void fill(QueueImpl& q, Handle dst, std::size_t offset, const void* pattern, std::size_t pattern_size,
                    std::size_t bytes) = 0;

  // Host address of device memory, for devices with info().host_memory (PoCL, Kokkos on the host).
  // Valid until unmap(); the queue's earlier work is finished first.
  virtual void* map(QueueImpl& q, Handle h, std::size_t bytes) { (void)q; (void)h; (void)bytes; return nullptr; }
  virtual void unmap(QueueImpl& q, Handle h, void* p) { (void)q; (void)h; (void)p; }

  // Interop with streams, queues and memory porta does not own (include/porta/interop.hpp).
  virtual NativeObjects native_objects() {
    NativeObjects o;
    o.ordinal = index();
    return o;
  }
  // The host address of `h`'s first byte when the memory is host memory that needs no map
  // (Kokkos; an OpenCL buffer made over host memory), else null.
  virtual void* host_address(Handle h) { (void)h; return nullptr; }
  // An event at the current end of `foreign`, a CUstream / cl_command_queue of this device that
  // porta does not own; null when there is nothing to wait for (Kokkos). Throws InvalidArgument
  // for a queue of another device.
  virtual std::shared_ptr<EventImpl> record_foreign(void* foreign) { (void)foreign; return nullptr; }
  // Work queued on `foreign` after this call starts only once `e` (of this device) is done: on the
  // device where the driver allows it, else the host waits for `e` first.
  virtual void foreign_wait(void* foreign, EventImpl& e) { (void)foreign; e.synchronize(); }
  // Memory porta does not own, as a Handle every call above takes. `native` is a CUdeviceptr /
  // cl_mem / host pointer (kind device) or a host pointer (kind host); porta will touch the bytes
  // [native + begin, native + end) (begin <= end). Checks that the memory is of this device and
  // covers them (InvalidArgument naming the values otherwise); `base_offset` says where byte
  // `native` is within `handle` (pointers are given an aligned handle: generated kernels assume
  // one). release_import gives back what import took (a cl_mem reference, a buffer made over host
  // memory), never the memory itself.
  struct Imported {
    Handle handle = nullptr;
    std::int64_t base_offset = 0;
  };
  enum class MemoryKind : std::uint8_t { device, host };
  virtual Imported import_memory(void* native, MemoryKind kind, std::size_t begin, std::size_t end);
  virtual void release_import(Handle h) noexcept { (void)h; }

  // Run-time compiled kernels (info().dialect != none). Throws CompileError with the log.
  virtual std::shared_ptr<Kernel> compile(const KernelSource& src);
  // A kernel from what binary() gave in an earlier process, for the same source; nullptr when
  // the backend does not take it (the core then compiles the source).
  virtual std::shared_ptr<Kernel> load_binary(const KernelSource& src, std::span<const std::uint8_t> binary);
  // Names the compiler and driver that made binaries, for disk-cache keys ("NVRTC 13.0, driver 580.95").
  virtual std::string compiler_id() const { return info().driver_version; }
  virtual void launch(QueueImpl& q, Kernel& k, const LaunchDims& dims, std::span<const KernelArg> args);

  // Plans executed directly (info().dialect == none): the block interpreter (services.hpp).
  virtual void execute(QueueImpl& q, const ElementwisePlan& plan);
  virtual void execute(QueueImpl& q, const ReductionPlan& plan);

  // Matrix product; the backend picks its library or kernel. Throws DTypeError for a dtype it lacks.
  virtual void matmul(QueueImpl& q, const MatmulArgs& args) = 0;
  // Dense solvers (SolverArgs), for the ops info().caps.solvers names; the default throws
  // DTypeError. Ordered on `q` like matmul; info is written on the device, not read here.
  virtual void solver(QueueImpl& q, const SolverArgs& args);

  // A plan for `desc` (info().caps.fft non-empty). Throws OutOfMemory when the device lacks the
  // memory (the core frees its caches and retries once), InvalidArgument for a size the library
  // cannot plan, DTypeError for a dtype the device lacks; a failed plan frees what it took. The
  // default: the device has no FFT (DTypeError).
  virtual std::shared_ptr<FftPlanImpl> make_fft_plan(const FftDesc& desc);

  // The core's state for this device, created on first use. The core releases it (cached
  // memory, compiled kernels) before the backend is destroyed.
  DeviceState& state();
  void release_state();

 private:
  Backend backend_;
  int index_;
  std::once_flag state_once_;
  std::unique_ptr<DeviceState> state_;
};

// A pointer `native` as an imported handle aligned as porta's own allocations are (256 bytes),
// with `native`'s offset in it: for backends whose handles are addresses (CUDA, Kokkos).
DeviceImpl::Imported aligned_import(void* native);

class BackendImpl {
 public:
  virtual ~BackendImpl() = default;
  virtual Backend kind() const = 0;  // the value create() was given
  virtual std::string version() const = 0;  // driver / runtime version text
  // What porta-info prints about the backend below its devices, where it has any (OpenCL: its
  // matmul paths and where each applies); empty for none.
  virtual std::string notes() const { return {}; }
  // The devices, enumerated when the backend was created; indices match DeviceImpl::index().
  virtual const std::vector<std::shared_ptr<DeviceImpl>>& devices() const = 0;
};

// What a plugin exports, as `extern "C" const PluginEntry* porta_plugin_entry()`. The registry
// takes the backend's name from here (ggml's registration), so it keeps no list of backends: a
// plugin of a kind porta does not name is found as libporta_<name>.so in PORTA_PLUGIN_PATH or
// beside libporta, and given a porta::Backend value of its own (include/porta/device.hpp).
struct PluginEntry {
  int api_version;
  const char* name;          // "cuda": PORTA_BACKEND's word, device specs' prefix; the file is libporta_<name>.so
                             // (lowercase letters and digits: other files beside libporta are not plugins)
  const char* install_hint;  // what a machine needs for create() to succeed ("the NVIDIA driver")
  // Creates the backend, whose kind() and devices carry `self`, the value the registry gives it
  // (Backend::cuda for "cuda"). Throws BackendUnavailable with the reason when the driver is
  // missing or there is no device.
  std::unique_ptr<BackendImpl> (*create)(Backend self);
};

}  // namespace porta::detail

#define PORTA_PLUGIN_ENTRY_NAME "porta_plugin_entry"
