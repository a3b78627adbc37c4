// porta's settings: the PORTA_* environment variables, in one table (src/base/settings.cpp) that
// gives each its type, the values it takes, its default, when porta reads it, who it is for and
// what a bad value does. porta-info prints them with their values; docs/guide/settings.md is
// generated from the same table (porta-info --settings-markdown).
//
// A bad value is, per setting, either a warning (through PORTA_LOG: the variable, the value and
// what is used instead) and the default, or an InvalidArgument naming the variable and the value
// where going on with another value would give a wrong result; the table says which and why.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace porta {

struct SettingInfo {
  std::string name;           // "PORTA_MATMUL"
  std::string type;           // "choice", "flag", "integer", "number", "text", "path" or "list"
  std::string values;         // the values it takes, in words: "exact, tf32", "1 to 8"
  std::string default_value;  // what holds when it is unset (words where the device decides)
  std::string read;           // when porta reads it: "first use", "each matmul", ...
  std::string audience;       // "user", or "tuning": for porta's own tests, benchmarks and probes
  std::string bad_value;      // "warn" (a warning and the default) or "error" (an exception)
  std::string why_error;      // why a bad value is an error rather than a warning; empty for "warn"
  std::string meaning;        // one line
  std::string value;          // the environment's value, or the default
  std::string source;         // "environment" or "default"
  std::string problem;        // why the environment's value is bad (and what holds instead); empty when it is not
};

// Every setting, in the table's order, with its value now.
std::vector<SettingInfo> settings();

// Typed reads, each checked against the table; a name the table lacks is an InvalidArgument (a
// programming error). A value that is unset or empty is the default.
//
// The variable's text (any type), trimmed of white space but for a path; nullopt when unset or empty.
std::optional<std::string> setting_text(std::string_view name);
// A choice setting: the value in lower case, one of the table's values, or the default.
std::string setting_choice(std::string_view name);
// A flag setting: on, 1, true, yes or off, 0, false, no (any case).
bool setting_flag(std::string_view name);
// An integer setting; nullopt when unset and the table gives no number (the device decides).
std::optional<int> setting_int(std::string_view name);
// A number setting (a decimal, such as 8 or 2.5).
double setting_number(std::string_view name);

}  // namespace porta
