// Small text helpers for messages: cat(...) joins anything streamable.
#pragma once

#include <charconv>
#include <concepts>
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

// Appends text and integers to a string without a stream, for the kernel-cache keys built on
// every evaluation: a std::ostringstream (what cat() uses) costs microseconds per call, more than
// a kernel launch.
inline void append(std::string& s, std::string_view v) { s.append(v); }
inline void append(std::string& s, const char* v) { s.append(v); }
inline void append(std::string& s, const std::string& v) { s.append(v); }
inline void append(std::string& s, char c) { s.push_back(c); }
template <std::integral T>
  requires(!std::same_as<T, char> && !std::same_as<T, bool>)
void append(std::string& s, T v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}
template <class... Args> void append_all(std::string& s, const Args&... args) { (append(s, args), ...); }
template <class... Args> std::string key_cat(const Args&... args) {
  std::string s;
  s.reserve(64);
  append_all(s, args...);
  return s;
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
