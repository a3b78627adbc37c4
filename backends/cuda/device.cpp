// A CUDA device: its primary context, what it reports about itself (DeviceInfo), and its queues.
#include <cstdio>

#include "porta_backend/services.hpp"
#include "cuda/cuda.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {
namespace {

int attribute(CUdevice dev, CUdevice_attribute attr, const std::string& where) {
  int value = 0;
  PORTA_CU_AT(where, cuDeviceGetAttribute(&value, attr, dev));
  return value;
}

// "0000:3b:00.0", the form OpenCL's side reports, from the driver's "0000:3B:00.0" (some
// drivers print an 8-digit domain).
std::string pci_bus_id(CUdevice dev) {
  char text[64] = {};
  if (cuDeviceGetPCIBusId(text, sizeof text, dev) != CUDA_SUCCESS) return {};
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  if (std::sscanf(text, "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4) return detail::lower(text);
  char out[32];
  std::snprintf(out, sizeof out, "%04x:%02x:%02x.%x", domain, bus, device, function);
  return out;
}

}  // namespace

std::string format_cuda_version(int version) { return detail::cat(version / 1000, ".", (version % 1000) / 10); }

Context::Context(CUdevice device, int index) : device_(device), index_(index), label_(detail::cat("cuda:", index)) {}

Context::~Context() {
  if (ctx_.load(std::memory_order_acquire)) log_failure(cuDevicePrimaryCtxRelease(device_), "cuDevicePrimaryCtxRelease", label_);
}

CUcontext Context::retain() {
  std::lock_guard lock(retain_m_);
  CUcontext ctx = ctx_.load(std::memory_order_acquire);
  if (ctx) return ctx;
  PORTA_CU_AT(label_, cuDevicePrimaryCtxRetain(&ctx, device_));
  ctx_.store(ctx, std::memory_order_release);
  return ctx;
}

// The current context is asked of the driver (a thread-local read there) rather than cached in
// a thread_local here: a program that also uses the CUDA runtime, CuPy or PyTorch on the same
// thread may switch contexts behind porta's back, and a stale cache would send work to the
// wrong device.
void Context::make_current() {
  CUcontext ctx = ctx_.load(std::memory_order_acquire);
  if (!ctx) ctx = retain();
  CUcontext current = nullptr;
  if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == ctx) return;
  PORTA_CU_AT(label_, cuCtxSetCurrent(ctx));
}

CUcontext Context::native() {
  CUcontext ctx = ctx_.load(std::memory_order_acquire);
  return ctx ? ctx : retain();
}

bool Context::make_current_noexcept() noexcept {
  CUcontext ctx = ctx_.load(std::memory_order_acquire);
  if (!ctx) return false;  // never used: nothing of it to destroy
  CUcontext current = nullptr;
  if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == ctx) return true;
  return log_failure(cuCtxSetCurrent(ctx), "cuCtxSetCurrent", label_);
}

Device::Device(CUdevice device, int index, int driver_version)
    : DeviceImpl(porta::Backend::cuda, index),
      ctx_(std::make_shared<Context>(device, index)),
      events_(std::make_shared<EventPool>(ctx_)) {
  const std::string& where = ctx_->label();
  char name[256] = {};
  PORTA_CU_AT(where, cuDeviceGetName(name, sizeof name, device));
  std::size_t memory = 0;
  PORTA_CU_AT(where, cuDeviceTotalMem(&memory, device));
  cc_major_ = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, where);
  cc_minor_ = attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, where);
  int sms = attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, where);
  memory_pools_ = attribute(device, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, where) != 0;
  if (setting_choice("PORTA_ALLOC") == "direct") keep_freed_memory_ = false;

  info_.name = name;
  info_.vendor = "NVIDIA";
  info_.platform = "CUDA";
  info_.driver_version = format_cuda_version(driver_version);
  info_.pci_bus_id = pci_bus_id(device);
  info_.arch = detail::cat("sm_", cc_major_, cc_minor_);
  info_.kind = DeviceKind::gpu;
  info_.memory_bytes = memory;
  info_.max_alloc_bytes = memory;
  info_.max_local_bytes = static_cast<std::uint64_t>(attribute(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, where));
  static std::once_flag setup;  // after cuInit: see base/exit_guard.hpp
  std::call_once(setup, [] { detail::watch_exit(); });
  info_.compute_units = sms;
  // bfloat16 is stored and converted with bit operations: any GPU.
  for (DType t : all_dtypes()) info_.dtypes[static_cast<int>(t)] = detail::core_computes(t);
  info_.dtypes[static_cast<int>(DType::float16)] = cc_major_ * 10 + cc_minor_ >= 53;
  info_.dialect = detail::Dialect::cuda;
  info_.launch.grid_stride = true;
  info_.launch.vector_bytes = 16;
  info_.launch.group_size = 256;
  // 32 blocks of 256 threads per SM: four times what an SM holds at once (2048 threads), enough
  // to keep every SM busy through a bandwidth-bound grid-stride loop while the loop, not the
  // launch, covers large arrays.
  info_.launch.max_groups = static_cast<std::size_t>(sms) * 32;
  info_.host_memory = false;
  // solver.cpp: every op but stedc and bdsdc (cuSOLVER has no tridiagonal or bidiagonal solver; eigh and
  // the SVD are its own syevd and gesvd).
  info_.caps.solvers = ((1u << static_cast<unsigned>(detail::SolverOp::count)) - 1) &
                       ~(detail::solver_bit(detail::SolverOp::stedc) | detail::solver_bit(detail::SolverOp::bdsdc));
  info_.solver = "cuSOLVER (getrf/getrs, potrf/potrs, geqrf, orgqr/ungqr, syevd/heevd, gesvd per matrix; "
                 "syevjBatched for batches up to 32 x 32); porta's own one-launch solve (a sub-warp a matrix) and "
                 "cholesky for float32 and float64 up to 16 x 16 (PORTA_SOLVER=porta: porta's at every size)";
  info_.caps.source_language = "CUDA C++";
  info_.caps.group_word = "block";
  info_.caps.local_memory_word = "shared";
  info_.caps.runtime_group_size = false;
  info_.caps.local_memory_per_launch = true;  // dynamic shared memory; RawArg::local joins it (launch.cpp)
  info_.caps.memory_arg_offsets = true;       // added to the CUdeviceptr
  info_.caps.handles_are_addresses = true;    // CUdeviceptr
  info_.caps.dlpack_device_type = 2;          // kDLCUDA, device_id the CUdevice ordinal (native_objects)
  info_.caps.dlpack_import_types = {13};      // kDLCUDAManaged: managed memory is device memory here
  // The core's caching allocator in front of the stream-ordered pool (memory.cpp): a
  // cuMemAllocFromPoolAsync + cuMemFreeAsync pair cost 2.1 us on the H200 from one thread, and
  // the pool serialises threads (4.2 us a pair from 8), which doubled the cost of a small op.
  info_.caching_allocator = true;
  info_.caps.complex_gemm = true;  // cuBLAS's cgemm/zgemm (blas.cpp)
  info_.caps.integer_gemm = true;  // porta's exact kernel (kernels/gemm_exact.cu)
#ifdef PORTA_HAVE_VKFFT
  info_.caps.fft = setting_choice("PORTA_CUDA_FFT") == "vkfft" ? vkfft_cuda_name() : cufft_library_name();  // fft.cpp
#else
  info_.caps.fft = cufft_library_name();  // fft.cpp
#endif
  info_.caps.fft_max_rank = 3;
  info_.matmul = "cuBLAS (float16, bfloat16, float32, float64, complex64, complex128; TF32 and 3M only when asked for); "
                 "porta's exact kernel for integers";
  PORTA_LOG(debug, where, ": ", info_.name, ", ", info_.arch, ", ", detail::format_bytes(memory), ", ", sms,
            " SMs, PCI ", info_.pci_bus_id, memory_pools_ ? "" : ", no memory pools (cuMemAlloc is used)");
}

Device::~Device() {
  {
    std::lock_guard lock(fill_m_);
    fill_words_.reset();
    fill_bytes_.reset();
  }
  if (side_stream_ && ctx_->make_current_noexcept()) log_failure(cuStreamDestroy(side_stream_), "cuStreamDestroy", label());
  // Allocations still pending release do not block this: the driver frees the pool after them.
  if (pool_ && ctx_->make_current_noexcept()) log_failure(cuMemPoolDestroy(pool_), "cuMemPoolDestroy", label());
}

std::shared_ptr<detail::QueueImpl> Device::create_queue() { return std::make_shared<Queue>(ctx_, events_); }

Queue& Device::own(detail::QueueImpl& q) {
  auto* queue = dynamic_cast<Queue*>(&q);
  if (!queue || &queue->context() != ctx_.get())
    throw InvalidArgument(detail::cat(label(), ": a queue of another device was passed (",
                                      queue ? queue->context().label() : std::string("not a CUDA queue"), ")"));
  return *queue;
}

Kernel& Device::own(detail::Kernel& k) {
  auto* kernel = dynamic_cast<Kernel*>(&k);
  if (!kernel) throw InvalidArgument(detail::cat(label(), ": the kernel was not compiled by the CUDA backend"));
  if (&kernel->context() != ctx_.get())
    throw InvalidArgument(detail::cat(label(), ": kernel '", kernel->entry(), "' was compiled for ",
                                      kernel->context().label(), "; compile it for this device"));
  return *kernel;
}

}  // namespace porta::cuda
