// Kokkos' exceptions as porta's DeviceError, and the failures destructors log instead.
#include "kokkos/error.hpp"

#include <porta/error.hpp>

namespace porta::kokkos {

std::string describe(const std::exception& e) {
  std::string text = e.what();
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

void throw_error(const std::exception& e, std::string_view call, std::string_view where) {
  throw DeviceError(detail::failure_message(call, describe(e), where));
}

bool log_failure(const std::exception& e, std::string_view call, std::string_view where) noexcept {
  try {
    return detail::log_failure_message(call, describe(e), where);
  } catch (...) {
    return false;
  }
}

}  // namespace porta::kokkos
