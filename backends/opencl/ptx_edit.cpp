// The PTX edits of ptx_edit.hpp.
#include "opencl/ptx_edit.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace porta::opencl {

int hoist_wgmma_waits(std::string& ptx) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at <= ptx.size();) {
    const std::size_t end = std::min(ptx.find('\n', at), ptx.size());
    lines.push_back(ptx.substr(at, end - at));
    at = end + 1;
  }
  auto trimmed = [](const std::string& l) {
    const std::size_t b = l.find_first_not_of(" \t"), e = l.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : l.substr(b, e - b + 1);
  };
  auto passable = [&](const std::string& line) {
    const std::string t = trimmed(line);
    if (t.empty() || t.starts_with("//")) return true;
    if (t.ends_with(":") || t.starts_with("{") || t.starts_with("}") || t.starts_with(".")) return false;
    for (const char* word : {"wgmma", "bra", "ret", "exit", "bar", "call"})
      if (t.find(word) != std::string::npos) return false;
    return true;
  };
  int moved = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (trimmed(lines[i]) != "wgmma.wait_group.sync.aligned 0;") continue;
    std::size_t to = i;
    while (to > 0 && passable(lines[to - 1])) --to;
    while (to < i && trimmed(lines[to]).empty()) ++to;  // keep the wait beside what follows it
    if (to == i) continue;
    std::rotate(lines.begin() + static_cast<std::ptrdiff_t>(to), lines.begin() + static_cast<std::ptrdiff_t>(i),
                lines.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    ++moved;
  }
  if (moved == 0) return 0;
  std::string out;
  out.reserve(ptx.size());
  for (std::size_t i = 0; i < lines.size(); ++i) out += i ? "\n" + lines[i] : lines[i];
  ptx = std::move(out);
  return moved;
}

}  // namespace porta::opencl
