// porta's settings (PORTA_* environment variables) for the core and the plugins: the typed
// getters of the public <porta/settings.hpp>, checked against the one table in
// src/base/settings.cpp, and bad_setting() for readers that parse a setting's text themselves.
// Never read a PORTA_* variable with getenv or detail::env: the table is what porta-info and
// docs/guide/settings.md list.
#pragma once

#include <string>
#include <string_view>

#include <porta/settings.hpp>

namespace porta::detail {

// A reader that parses a setting's text itself (PORTA_OPENCL_GEMM's paths, PORTA_BACKEND's list)
// found `value` bad for `problem` ("not a matmul path; use one of ..."): applies the table's
// policy for `name`. error: throws InvalidArgument("NAME=value: problem"); warn: warns once for
// the value, through PORTA_LOG ("NAME=value: problem; using <default>"), and returns, and the
// reader goes on with the default.
void bad_setting(std::string_view name, const std::string& value, const std::string& problem);

}  // namespace porta::detail
