// Reading porta's environment variables (docs/design/README.md#settings).
#pragma once

#include <optional>
#include <string>

namespace porta::detail {

// The variable's value, or nullopt when unset or empty.
std::optional<std::string> env(const char* name);

}  // namespace porta::detail
