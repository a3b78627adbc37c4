// Status codes of the driver, NVRTC and cuBLAS as text, and the exceptions they become.
#include "cuda/error.hpp"

#include <algorithm>
#include <cctype>

#include <porta/error.hpp>

#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {
namespace {

using detail::call_name;

std::string prefix(std::string_view where) { return where.empty() ? std::string() : detail::cat(where, ": "); }

// Errors after which the context is unusable: every later call on it fails the same way.
bool is_sticky(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
      return true;
    default:
      return false;
  }
}

// What the device reports free, for out-of-memory messages; 0 when it cannot say.
std::uint64_t free_bytes_now(std::uint64_t* total) {
  std::size_t free = 0, all = 0;
  if (cuMemGetInfo(&free, &all) != CUDA_SUCCESS) return *total = 0;
  *total = all;
  return free;
}

[[noreturn]] void throw_out_of_memory(std::string_view what, std::string_view where) {
  std::uint64_t total = 0;
  std::uint64_t free = free_bytes_now(&total);
  std::string sizes = total ? detail::cat("; ", detail::format_bytes(free), " free of ", detail::format_bytes(total))
                            : std::string();
  throw OutOfMemory(detail::cat(prefix(where), what, sizes, ". Free arrays that are no longer needed, or use smaller ones"),
                    0, free);
}

}  // namespace

// Names of the codes cuInit may return, for when the driver cannot name them itself (the
// toolkit's stub library answers CUDA_ERROR_STUB_LIBRARY and names nothing).
static const char* fallback_name(CUresult r) {
  switch (r) {
    case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
    case CUDA_ERROR_DEINITIALIZED: return "CUDA_ERROR_DEINITIALIZED";
    case CUDA_ERROR_STUB_LIBRARY: return "CUDA_ERROR_STUB_LIBRARY";
    case CUDA_ERROR_DEVICE_UNAVAILABLE: return "CUDA_ERROR_DEVICE_UNAVAILABLE";
    case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
    case CUDA_ERROR_OPERATING_SYSTEM: return "CUDA_ERROR_OPERATING_SYSTEM";
    case CUDA_ERROR_SYSTEM_NOT_READY: return "CUDA_ERROR_SYSTEM_NOT_READY";
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
    default: return nullptr;
  }
}

std::string describe(CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name) {
    const char* known = fallback_name(r);
    return known ? std::string(known) : detail::cat("CUresult ", static_cast<int>(r));
  }
  if (cuGetErrorString(r, &text) != CUDA_SUCCESS || !text) return name;
  return detail::cat(name, " (", text, ")");
}

std::string describe(nvrtcResult r) {
  const char* text = nvrtcGetErrorString(r);
  return text ? std::string(text) : detail::cat("nvrtcResult ", static_cast<int>(r));
}

std::string describe(cublasStatus_t r) {
  const char* name = cublasGetStatusName(r);
  const char* text = cublasGetStatusString(r);
  if (!name) return detail::cat("cublasStatus_t ", static_cast<int>(r));
  return text ? detail::cat(name, " (", text, ")") : std::string(name);
}

std::string describe(cusolverStatus_t r) {
  // cuSOLVER has no status-name function; these are the codes its routines return.
  switch (r) {
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE (an argument is out of range)";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED (a kernel failed to launch)";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return detail::cat("cusolverStatus_t ", static_cast<int>(r));
  }
}

void throw_error(CUresult r, std::string_view call, std::string_view where) {
  std::string what = detail::cat(call_name(call), " failed: ", describe(r));
  if (r == CUDA_ERROR_OUT_OF_MEMORY) throw_out_of_memory(what, where);
  if (is_sticky(r))
    what += ". A kernel faulted earlier on this device; the CUDA context is now unusable and the process must restart "
            "(compute-sanitizer finds the faulting access)";
  throw DeviceError(prefix(where) + what);
}

void throw_error(nvrtcResult r, std::string_view call, std::string_view where) {
  throw DeviceError(detail::cat(prefix(where), call_name(call), " failed: ", describe(r)));
}

void throw_error(cublasStatus_t r, std::string_view call, std::string_view where) {
  std::string what = detail::cat(call_name(call), " failed: ", describe(r));
  if (r == CUBLAS_STATUS_ALLOC_FAILED) throw_out_of_memory(what, where);
  throw DeviceError(prefix(where) + what);
}

void throw_error(cusolverStatus_t r, std::string_view call, std::string_view where) {
  std::string what = detail::cat(call_name(call), " failed: ", describe(r));
  if (r == CUSOLVER_STATUS_ALLOC_FAILED) throw_out_of_memory(what, where);
  throw DeviceError(prefix(where) + what);
}

bool log_failure(cusolverStatus_t r, std::string_view call, std::string_view where) noexcept {
  if (r == CUSOLVER_STATUS_SUCCESS) return true;
  try {
    PORTA_LOG(error, prefix(where), call_name(call), " failed: ", describe(r));
  } catch (...) {
  }
  return false;
}

bool log_failure(CUresult r, std::string_view call, std::string_view where) noexcept {
  if (r == CUDA_SUCCESS) return true;
  if (r == CUDA_ERROR_DEINITIALIZED) return false;  // process exit: the driver is already gone
  try {
    PORTA_LOG(error, prefix(where), call_name(call), " failed: ", describe(r));
  } catch (...) {
  }
  return false;
}

bool log_failure(cublasStatus_t r, std::string_view call, std::string_view where) noexcept {
  if (r == CUBLAS_STATUS_SUCCESS) return true;
  try {
    PORTA_LOG(error, prefix(where), call_name(call), " failed: ", describe(r));
  } catch (...) {
  }
  return false;
}

}  // namespace porta::cuda
