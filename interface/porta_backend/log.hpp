// PORTA_LOG=error|warn|info|debug: what porta writes to stderr (plugins, device choice, compiles).
#pragma once

#include <string_view>

#include "porta_backend/strings.hpp"

namespace porta::detail {

enum class LogLevel { error = 0, warn = 1, info = 2, debug = 3 };

bool log_enabled(LogLevel level);
void log(LogLevel level, std::string_view message);

}  // namespace porta::detail

// Formats the message only when the level is enabled.
#define PORTA_LOG(level, ...)                                                   \
  do {                                                                          \
    if (::porta::detail::log_enabled(::porta::detail::LogLevel::level))         \
      ::porta::detail::log(::porta::detail::LogLevel::level, ::porta::detail::cat(__VA_ARGS__)); \
  } while (0)
