// The PTX edits of gemm/ptx_edit.hpp.
#include "opencl/gemm/ptx_edit.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "porta_backend/strings.hpp"

namespace porta::opencl {

int hoist_wgmma_waits(std::string& ptx) {
  std::vector<std::string> lines = detail::split(ptx, '\n');
  auto passable = [](const std::string& line) {
    const std::string t = detail::trim(line);
    if (t.empty() || t.starts_with("//")) return true;
    if (t.ends_with(":") || t.starts_with("{") || t.starts_with("}") || t.starts_with(".")) return false;
    for (const char* word : {"wgmma", "bra", "ret", "exit", "bar", "call"})
      if (t.find(word) != std::string::npos) return false;
    return true;
  };
  int moved = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (detail::trim(lines[i]) != "wgmma.wait_group.sync.aligned 0;") continue;
    std::size_t to = i;
    while (to > 0 && passable(lines[to - 1])) --to;
    while (to < i && detail::trim(lines[to]).empty()) ++to;  // keep the wait beside what follows it
    if (to == i) continue;
    std::rotate(lines.begin() + static_cast<std::ptrdiff_t>(to), lines.begin() + static_cast<std::ptrdiff_t>(i),
                lines.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    ++moved;
  }
  if (moved > 0) ptx = detail::join(lines, "\n");
  return moved;
}

}  // namespace porta::opencl
