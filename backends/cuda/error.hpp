// Turning CUDA driver, NVRTC, cuBLAS and cuSOLVER status codes into porta exceptions, in the style every
// backend shares (interface/porta_backend/check.hpp): one check function per library, called at
// every vendor call through the PORTA_CU / PORTA_NVRTC / PORTA_CU_AT / PORTA_CUBLAS_AT / PORTA_CUSOLVER_AT macros,
// which pass the call's text so that the message names the function that failed.
#pragma once

#include <cublas_v2.h>
#include <cuda.h>
#include <cusolverDn.h>
#include <nvrtc.h>

#include <string>
#include <string_view>

#include "porta_backend/check.hpp"

namespace porta::cuda {

// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)"
std::string describe(CUresult r);
std::string describe(nvrtcResult r);
std::string describe(cublasStatus_t r);
std::string describe(cusolverStatus_t r);

// Throws DeviceError ("cuStreamSynchronize failed: CUDA_ERROR_... (...)"), OutOfMemory for
// CUDA_ERROR_OUT_OF_MEMORY and CUBLAS_STATUS_ALLOC_FAILED. `call` is the call's source text;
// only the function name is kept. `where` ("cuda:0") prefixes the message when not empty.
// Destructors use log_failure below instead.
[[noreturn]] void throw_error(CUresult r, std::string_view call, std::string_view where = {});
[[noreturn]] void throw_error(nvrtcResult r, std::string_view call, std::string_view where = {});
[[noreturn]] void throw_error(cublasStatus_t r, std::string_view call, std::string_view where = {});
[[noreturn]] void throw_error(cusolverStatus_t r, std::string_view call, std::string_view where = {});

inline void check(CUresult r, std::string_view call, std::string_view where = {}) {
  if (r != CUDA_SUCCESS) throw_error(r, call, where);
}
inline void check(nvrtcResult r, std::string_view call, std::string_view where = {}) {
  if (r != NVRTC_SUCCESS) throw_error(r, call, where);
}
inline void check(cublasStatus_t r, std::string_view call, std::string_view where = {}) {
  if (r != CUBLAS_STATUS_SUCCESS) throw_error(r, call, where);
}

// For destructors and other paths that must not throw: logs a failure at error level and
// returns false. CUDA_ERROR_DEINITIALIZED (the driver shutting down at process exit) is
// returned as a failure without a message.
bool log_failure(CUresult r, std::string_view call, std::string_view where = {}) noexcept;
bool log_failure(cublasStatus_t r, std::string_view call, std::string_view where = {}) noexcept;
bool log_failure(cusolverStatus_t r, std::string_view call, std::string_view where = {}) noexcept;

}  // namespace porta::cuda

#define PORTA_CU(call) ::porta::cuda::check((call), #call)
#define PORTA_NVRTC(call) ::porta::cuda::check((call), #call)
// The same with `where` (the device's label, "cuda:0") in the message, evaluated only on failure.
#define PORTA_CU_AT(where, call)                                                              \
  do {                                                                                        \
    if (const CUresult porta_cu_status_ = (call); porta_cu_status_ != CUDA_SUCCESS)           \
      ::porta::cuda::throw_error(porta_cu_status_, #call, (where));                           \
  } while (0)
#define PORTA_CUBLAS_AT(where, call)                                                          \
  do {                                                                                        \
    if (const cublasStatus_t porta_cublas_status_ = (call); porta_cublas_status_ != CUBLAS_STATUS_SUCCESS) \
      ::porta::cuda::throw_error(porta_cublas_status_, #call, (where));                       \
  } while (0)
#define PORTA_CUSOLVER_AT(where, call)                                                        \
  do {                                                                                        \
    if (const cusolverStatus_t porta_cusolver_status_ = (call); porta_cusolver_status_ != CUSOLVER_STATUS_SUCCESS) \
      ::porta::cuda::throw_error(porta_cusolver_status_, #call, (where));                     \
  } while (0)
