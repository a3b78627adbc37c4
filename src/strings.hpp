// Small text helpers for messages: cat(...) joins anything streamable.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace porta::detail {

template <class... Args> std::string cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::vector<std::string> split(std::string_view s, char sep);
std::string trim(std::string_view s);
std::string lower(std::string_view s);
// "12.5 MiB"
std::string format_bytes(std::uint64_t bytes);
// The source with line numbers, for compile errors.
std::string number_lines(std::string_view source);

}  // namespace porta::detail
