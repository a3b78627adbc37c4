// What an OpenCL device is: its DeviceInfo (name, memory, dtypes, PCI identity, how generated
// kernels should be shaped for it) read once from clGetDeviceInfo, and the device's lifetime.
#include <CL/cl_ext.h>

#include <algorithm>
#include <cstdio>

#include "porta_backend/services.hpp"
#include "porta_backend/log.hpp"
#ifdef PORTA_HAVE_HOST_BLAS
#include "host/blas.hpp"
#include "host/solver.hpp"
#endif
#include "opencl/gemm/mma.hpp"
#include "opencl/gemm/tc.hpp"
#include "opencl/gemm/wg.hpp"
#include "host/fft.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {
namespace {

// NVIDIA's cl_nv_device_attribute_query, not in every cl_ext.h.
constexpr cl_device_info kPciBusIdNv = 0x4008;
constexpr cl_device_info kPciSlotIdNv = 0x4009;
constexpr cl_device_info kPciDomainIdNv = 0x400A;
constexpr cl_device_info kComputeCapabilityMajorNv = 0x4000;
constexpr cl_device_info kComputeCapabilityMinorNv = 0x4001;
constexpr cl_device_info kPciBusInfoKhr = 0x410F;  // cl_khr_pci_bus_info

struct PciBusInfo {
  cl_uint domain, bus, device, function;
};

std::string format_pci(cl_uint domain, cl_uint bus, cl_uint dev, cl_uint function) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain, bus, dev, function);
  return buf;
}

// "dddd:bb:dd.f" from cl_khr_pci_bus_info, NVIDIA's or AMD's attributes (AMD's has no domain:
// 0000); empty when none answers.
std::string pci_bus_id(cl_device_id d, const Device& dev) {
  if (dev.has_extension("cl_khr_pci_bus_info")) {
    PciBusInfo p{};
    if (clGetDeviceInfo(d, kPciBusInfoKhr, sizeof p, &p, nullptr) == CL_SUCCESS)
      return format_pci(p.domain, p.bus, p.device, p.function);
  }
  if (dev.has_extension("cl_nv_device_attribute_query")) {
    cl_uint bus = 0, slot = 0, domain = 0;
    if (clGetDeviceInfo(d, kPciBusIdNv, sizeof bus, &bus, nullptr) == CL_SUCCESS &&
        clGetDeviceInfo(d, kPciSlotIdNv, sizeof slot, &slot, nullptr) == CL_SUCCESS) {
      if (clGetDeviceInfo(d, kPciDomainIdNv, sizeof domain, &domain, nullptr) != CL_SUCCESS) domain = 0;
      return format_pci(domain, bus, slot >> 3, slot & 7);
    }
  }
  if (dev.has_extension("cl_amd_device_attribute_query")) {
    cl_device_topology_amd t{};
    if (clGetDeviceInfo(d, CL_DEVICE_TOPOLOGY_AMD, sizeof t, &t, nullptr) == CL_SUCCESS &&
        t.raw.type == CL_DEVICE_TOPOLOGY_TYPE_PCIE_AMD)
      return format_pci(0, static_cast<unsigned char>(t.pcie.bus), static_cast<unsigned char>(t.pcie.device),
                        static_cast<unsigned char>(t.pcie.function));
  }
  return {};
}

// Major * 10 + minor from NVIDIA's attributes; 0 when the device does not answer.
int query_compute_capability(cl_device_id d, const Device& dev) {
  if (!dev.has_extension("cl_nv_device_attribute_query")) return 0;
  cl_uint major = 0, minor = 0;
  if (clGetDeviceInfo(d, kComputeCapabilityMajorNv, sizeof major, &major, nullptr) != CL_SUCCESS ||
      clGetDeviceInfo(d, kComputeCapabilityMinorNv, sizeof minor, &minor, nullptr) != CL_SUCCESS)
    return 0;
  return static_cast<int>(major * 10 + minor);
}

DeviceKind kind_of(cl_device_type t) {
  if (t & CL_DEVICE_TYPE_GPU) return DeviceKind::gpu;
  if (t & CL_DEVICE_TYPE_CPU) return DeviceKind::cpu;
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return DeviceKind::accelerator;
  return DeviceKind::other;
}

}  // namespace

std::string device_string(cl_device_id d, cl_device_info what) {
  std::size_t size = 0;
  PORTA_CL(clGetDeviceInfo(d, what, 0, nullptr, &size));
  std::string s(size, '\0');
  if (size) PORTA_CL(clGetDeviceInfo(d, what, size, s.data(), nullptr));
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return detail::trim(s);
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  std::size_t size = 0;
  PORTA_CL(clGetPlatformInfo(p, what, 0, nullptr, &size));
  std::string s(size, '\0');
  if (size) PORTA_CL(clGetPlatformInfo(p, what, size, s.data(), nullptr));
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return detail::trim(s);
}

Device::Device(int index, cl_platform_id platform, cl_device_id device, cl_context context)
    : DeviceImpl(porta::Backend::opencl, index), platform_(platform), device_(device), context_(context) {
  auto& in = info_;
  in.name = device_string(device, CL_DEVICE_NAME);
  in.vendor = device_string(device, CL_DEVICE_VENDOR);
  in.platform = platform_string(platform, CL_PLATFORM_NAME);
  in.driver_version = device_string(device, CL_DRIVER_VERSION);
  in.arch = device_string(device, CL_DEVICE_OPENCL_C_VERSION);
  in.kind = kind_of(device_value<cl_device_type>(device, CL_DEVICE_TYPE));
  in.memory_bytes = device_value<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_SIZE);
  in.max_alloc_bytes = device_value<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  in.max_local_bytes = device_value<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE);
  in.compute_units = static_cast<int>(device_value<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS));
  extensions_ = " " + device_string(device, CL_DEVICE_EXTENSIONS) + " ";
  label_ = detail::cat("opencl:", index, " (", in.name, ")");
  in.pci_bus_id = pci_bus_id(device, *this);
  nv_compute_capability_ = query_compute_capability(device, *this);
  watch_exit();
  compiler_id_ = detail::cat("OpenCL; platform ", in.platform, " / ", platform_string(platform, CL_PLATFORM_VERSION),
                             " / ", platform_string(platform, CL_PLATFORM_VENDOR), "; device ", in.name, " / ", in.vendor,
                             " / ", device_string(device, CL_DEVICE_VERSION), " / ", in.arch, " / vendor id ",
                             device_value<cl_uint>(device, CL_DEVICE_VENDOR_ID), "; driver ", in.driver_version);

  // float16 and bfloat16 are storage only (vload_half / ushort bits), computed in float32.
  const bool fp64 = has_extension("cl_khr_fp64");
  for (DType t : all_dtypes())
    in.dtypes[static_cast<int>(t)] = detail::core_computes(t) && (fp64 || (t != DType::float64 && t != DType::complex128));
  in.dialect = detail::Dialect::opencl;

  // Deprecated since OpenCL 2.0: a driver that no longer answers has no unified memory.
  cl_bool unified = CL_FALSE;
  if (clGetDeviceInfo(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, nullptr) != CL_SUCCESS)
    unified = CL_FALSE;
  in.host_memory = in.kind == DeviceKind::cpu || unified == CL_TRUE;
  if (in.kind == DeviceKind::cpu) {
    // PoCL's CPU device: one element per work-item, scalar code, the runtime's group size
    // (GPU.md: 50 GB/s against 3 GB/s for a grid-stride loop).
    in.launch = {.grid_stride = false, .vector_bytes = 0, .group_size = 0, .max_groups = 0};
  } else {
    auto max_group = device_value<std::size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    in.launch = {.grid_stride = true,
                 .vector_bytes = 16,
                 .group_size = std::min<std::size_t>(256, max_group),
                 .max_groups = static_cast<std::size_t>(std::max(in.compute_units, 1)) * 16};
  }
  in.caching_allocator = true;
  in.caps.source_language = "OpenCL C";
  // Programs keep their parameters' kinds and types only when asked: RawKernel checks its
  // arguments against them (Kernel::params()).
  in.caps.user_kernel_options = {"-cl-kernel-arg-info"};
  in.caps.group_word = "work-group";
  in.caps.local_memory_word = "local";
  in.caps.runtime_group_size = true;        // a NULL local size
  in.caps.local_memory_per_launch = false;  // __local pointer parameters
  in.caps.memory_arg_offsets = false;       // a cl_mem is passed whole
  in.caps.handles_are_addresses = false;    // cl_mem
  in.caps.dlpack_device_type = 4;           // kDLOpenCL, device_id the device's index, data the cl_mem
  in.caps.complex_gemm = true;  // blas.cpp: the tiled kernel's float2 / double2 form, the host's cgemm/zgemm
  in.caps.integer_gemm = true;  // the tiled kernel's integer form, the host's loop_gemm
  host_fft_ = host_fft(in);  // fft_host.cpp
  if (host_fft_) {
    in.caps.fft = detail::cat(detail::kHostFftName, " on zero-copy mapped memory");
    in.caps.fft_max_rank = 1;
  } else {
#ifdef PORTA_HAVE_VKFFT
    in.caps.fft = vkfft_name();  // fft.cpp
    in.caps.fft_max_rank = 3;
#endif
  }
  // What blas.cpp's automatic choice does (PORTA_OPENCL_GEMM changes it per call).
#ifdef PORTA_HAVE_HOST_BLAS
  if (in.kind == DeviceKind::cpu && in.host_memory)
    in.matmul = detail::cat("host BLAS (", detail::host_blas_name(), ") on zero-copy mapped memory for float32, float64, ",
                            "complex64 and complex128, an exact loop for integers; porta's OpenCL GEMM for float16 and "
                            "bfloat16");
  else
#endif
    in.matmul = "porta's OpenCL GEMM, parameters chosen by a timed search on first use and kept in the disk cache "
                "(complex and integer products: fixed parameters)";
#ifdef PORTA_HAVE_HOST_BLAS
  // CPU devices: LAPACKE on their memory. GPUs: the core's own blocked solvers (LU, Cholesky, QR:
  // src/primitives/dense.hpp) take every op this device does not declare, eigh and the SVD too (their
  // reductions to tridiagonal and bidiagonal form and back on the device); those small problems'
  // stedc and bdsdc run through LAPACKE on a mapped copy (solver.cpp).
  if (in.kind == DeviceKind::cpu && in.host_memory) {
    in.caps.solvers = detail::kHostSolvers;
    in.caps.row_major_solvers = detail::kHostRowMajorSolvers;
    in.caps.copy_in_solvers = detail::kHostCopyInSolvers;
    in.solver = detail::cat(detail::host_solver_name(), " on zero-copy mapped memory");
  } else {
    in.caps.solvers = detail::solver_bit(detail::SolverOp::stedc) | detail::solver_bit(detail::SolverOp::bdsdc);
    in.solver = detail::cat("porta's own blocked solvers (LU, Cholesky, QR) on the device; eigh and svd reduced to "
                            "tridiagonal and bidiagonal form and transformed back on the device, those small problems "
                            "solved by ", detail::host_solver_name(), " on the host, through a mapped copy of each operand");
  }
#else
  in.solver = "porta's own blocked solvers (LU, Cholesky, QR) on the device; no eigh or svd (built without LAPACKE)";
#endif
  if (tc_native(DType::float16, in.platform, nv_compute_capability_))
    in.matmul += "; float16, bfloat16 and (with PORTA_MATMUL=tf32) float32 as TF32 on the tensor cores "
                 "(inline PTX mma.sync), every shape and transpose";
  if (wg_native(DType::float16, in.platform, nv_compute_capability_))
    in.matmul += "; float16, bfloat16 and TF32 products whose rows are 16-byte aligned also on Hopper's warpgroup "
                 "MMA (wgmma, the program's PTX retargeted to sm_90a), ranked with the mma.sync kernels";
  if (in.dtypes[static_cast<int>(DType::float64)] && tc_native(DType::float64, in.platform, nv_compute_capability_))
    in.matmul += "; float64 on the FP64 tensor cores, every shape and transpose";

  PORTA_LOG(info, "opencl:", index, ": ", in.name, " (", in.vendor, "; platform ", in.platform, "; driver ",
            in.driver_version, "; ", in.arch, "), ", name(in.kind), ", ", in.compute_units, " compute units, ",
            detail::format_bytes(in.memory_bytes), " (largest allocation ",
            detail::format_bytes(in.max_alloc_bytes), ")", in.dtypes[static_cast<int>(DType::float64)] ? ", fp64" : "",
            in.pci_bus_id.empty() ? std::string() : detail::cat(", PCI ", in.pci_bus_id),
            nv_compute_capability_ ? detail::cat(", compute capability ", nv_compute_capability_ / 10, ".",
                                                 nv_compute_capability_ % 10)
                                   : std::string());
}

Device::~Device() {
  gemm_.reset();
  log_failure(clReleaseContext(context_), "clReleaseContext", label_);
}

bool Device::has_extension(const char* name) const {
  return extensions_.find(detail::cat(" ", name, " ")) != std::string::npos;
}

std::shared_ptr<QueueImpl> Device::create_queue() { return std::make_shared<Queue>(*this); }

void Device::note_failure(cl_int status, const std::string& what) const {
  // CL_OUT_OF_RESOURCES where work completes, and NVIDIA's own codes for faulting kernels
  // (-9999 and below); other codes are about the call, not the context.
  if (status != CL_OUT_OF_RESOURCES && status > -9999) return;
  std::lock_guard lock(failure_m_);
  if (failed_.load(std::memory_order_relaxed)) return;
  failure_ = detail::cat(what, ": ", describe(status));
  failed_.store(true, std::memory_order_release);
  PORTA_LOG(error, label_, ": the context failed (", failure_, "); every later call on this device fails");
}

void Device::check_usable() const {
  if (!failed_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(failure_m_);
  throw DeviceError(detail::cat(label_, ": this device's context failed earlier (", failure_, "), most likely because a kernel ",
                                "accessed memory out of bounds. The driver now fails every call on it, so every array on this ",
                                "device is lost; other devices are unaffected. Restart the process to use it again"));
}

Queue& Device::queue_of(QueueImpl& q) const {
  check_usable();
  auto* cq = dynamic_cast<Queue*>(&q);
  if (!cq) throw InvalidArgument(detail::cat(label_, " was given a queue of another backend"));
  if (&cq->device() != this)
    throw InvalidArgument(detail::cat(label_, " was given a queue of ", cq->device().label(),
                                      "; work for a device goes on that device's queue"));
  return *cq;
}

}  // namespace porta::opencl
