// PORTA_LOG: read once; messages go to stderr, one line each, prefixed "porta: ".
#include "porta_backend/log.hpp"

#include <cstdio>
#include <mutex>

#include "porta_backend/settings.hpp"

namespace porta::detail {
namespace {

LogLevel level_from_env() {
  std::string s = setting_choice("PORTA_LOG");  // a bad value warns (bad_setting) and gives warn
  if (s == "error") return LogLevel::error;
  if (s == "info") return LogLevel::info;
  if (s == "debug") return LogLevel::debug;
  return LogLevel::warn;
}

LogLevel configured_level() {
  static const LogLevel level = level_from_env();
  return level;
}

}  // namespace

bool log_enabled(LogLevel level) { return static_cast<int>(level) <= static_cast<int>(configured_level()); }

void log(LogLevel level, std::string_view message) {
  static const char* names[] = {"error", "warn", "info", "debug"};
  static std::mutex m;
  std::lock_guard lock(m);
  std::fprintf(stderr, "porta [%s]: %.*s\n", names[static_cast<int>(level)], static_cast<int>(message.size()),
               message.data());
}

}  // namespace porta::detail
