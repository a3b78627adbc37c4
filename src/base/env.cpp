// Environment variables.
#include "porta_backend/env.hpp"

#include <cstdlib>

namespace porta::detail {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

}  // namespace porta::detail
