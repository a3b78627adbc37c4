// Reading porta's environment variables (DESIGN.md section 5).
#pragma once

#include <optional>
#include <string>

namespace porta::detail {

// The variable's value, or nullopt when unset or empty.
std::optional<std::string> env(const char* name);

}  // namespace porta::detail
