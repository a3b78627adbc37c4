// Environment variables that are not porta's own (HOME, XDG_CACHE_HOME). porta's PORTA_* settings
// are read through settings.hpp, against the one table of src/base/settings.cpp.
#pragma once

#include <optional>
#include <string>

namespace porta::detail {

// The variable's value, or nullopt when unset or empty.
std::optional<std::string> env(const char* name);

}  // namespace porta::detail
