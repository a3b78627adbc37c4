// The one error-checking style of every backend (CUDA, OpenCL, Kokkos), and its shared pieces.
// Each backend's error.hpp has, for each status type of its vendor:
//   describe(status)                   the status as text ("CL_INVALID_VALUE (-30)")
//   throw_error(status, call, where)   [[noreturn]]: DeviceError, or OutOfMemory where it is one
//   check(status, call, where = {})    throw_error unless status is success
//   log_failure(status, call, where)   noexcept, for destructors and frees: logs at error level
//                                      and returns false instead of throwing
// and two call macros that pass the call's text, so that a message names the function:
//   PORTA_<X>(call)                    check((call), #call)
//   PORTA_<X>_AT(where, call)          the same with `where` (a device label, or what the call
//                                      was doing) in the message; `where` is evaluated only when
//                                      the call failed, so it may be built with detail::cat
// Messages read "<where>: <function> failed: <status>".
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace porta::detail {

// "cuStreamSynchronize(stream_)" -> "cuStreamSynchronize"; a description that is not a call
// ("cuLaunchKernel of 'add' with grid (1, 1, 1)") is kept whole.
constexpr std::string_view call_name(std::string_view call) {
  std::size_t end = call.find('(');
  if (end == std::string_view::npos) return call;
  std::string_view name = call.substr(0, end);
  bool identifier = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ':';
  });
  return identifier ? name : call;
}

// "<where>: <function> failed: <status>" (no "<where>: " when where is empty).
std::string failure_message(std::string_view call, std::string_view status, std::string_view where);
// Logs failure_message at error level; never throws. Returns false, for log_failure's callers.
bool log_failure_message(std::string_view call, std::string_view status, std::string_view where) noexcept;

}  // namespace porta::detail
