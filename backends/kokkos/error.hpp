// Kokkos' failures as porta exceptions, in the style every backend shares
// (interface/porta_backend/check.hpp). Kokkos reports a failure by throwing (std::runtime_error,
// std::bad_alloc), so its "status" is the exception: PORTA_KOKKOS(call) runs the call and turns
// what it throws into DeviceError "kokkos:0: Kokkos::initialize failed: <what>"; destructors use
// PORTA_KOKKOS_LOG(call), which logs the failure instead (log_failure).
#pragma once

#include <exception>
#include <string>
#include <string_view>

#include "porta_backend/check.hpp"

namespace porta::kokkos {

inline constexpr std::string_view kLabel = "kokkos:0";

// The exception's text on one line.
std::string describe(const std::exception& e);
[[noreturn]] void throw_error(const std::exception& e, std::string_view call, std::string_view where = kLabel);
// For destructors and frees: logs the failure at error level and returns false; never throws.
bool log_failure(const std::exception& e, std::string_view call, std::string_view where = kLabel) noexcept;

}  // namespace porta::kokkos

#define PORTA_KOKKOS(call)                                                                    \
  do {                                                                                        \
    try {                                                                                     \
      call;                                                                                   \
    } catch (const std::exception& porta_kokkos_error_) {                                     \
      ::porta::kokkos::throw_error(porta_kokkos_error_, #call);                               \
    }                                                                                         \
  } while (0)
#define PORTA_KOKKOS_LOG(call)                                                                \
  do {                                                                                        \
    try {                                                                                     \
      call;                                                                                   \
    } catch (const std::exception& porta_kokkos_error_) {                                     \
      ::porta::kokkos::log_failure(porta_kokkos_error_, #call);                               \
    }                                                                                         \
  } while (0)
