// Memory of the Kokkos device: Kokkos::HostSpace allocations (the handle is the host pointer),
// and copies and fills with the host's memcpy.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include "kokkos/error.hpp"
#include "kokkos/kokkos.hpp"
#include "porta_backend/log.hpp"

namespace porta::kokkos {
namespace {

char* bytes_at(Handle h, std::size_t offset) { return static_cast<char*>(h) + offset; }

// Kokkos' message on one line, without its "Traceback functionality not available".
std::string one_line(std::string_view message) {
  std::string out;
  for (char c : message) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  constexpr std::string_view kTraceback = "Traceback functionality not available";
  if (auto at = out.find(kTraceback); at != std::string::npos) out.erase(at, kTraceback.size());
  while (!out.empty() && (out.back() == ' ' || out.back() == '.')) out.pop_back();
  return out;
}

[[noreturn]] void out_of_memory(std::size_t bytes, std::uint64_t physical, const char* why) {
  std::uint64_t available = available_memory_bytes();
  throw OutOfMemory(detail::cat("kokkos:0 cannot allocate ", detail::format_bytes(bytes), " (", bytes,
                                " bytes): ", why, "; the host has ", detail::format_bytes(physical), " of memory, ",
                                detail::format_bytes(available),
                                " available. Free arrays you no longer need, work in smaller pieces, or use a device "
                                "with more memory"),
                    bytes, available);
}

}  // namespace

Handle Device::allocate(std::size_t bytes, detail::QueueImpl&) {
  require_kokkos();
  // Linux overcommits: a request beyond physical memory would "succeed" and fail later, at first
  // touch, by the OOM killer. Refuse it here instead.
  if (physical_bytes_ && bytes > physical_bytes_) out_of_memory(bytes, physical_bytes_, "more than the host's physical memory");
  try {
    return Kokkos::kokkos_malloc<Kokkos::HostSpace>("porta", bytes == 0 ? 1 : bytes);
  } catch (const std::bad_alloc&) {  // Kokkos::Experimental::RawMemoryAllocationFailure
    out_of_memory(bytes, physical_bytes_, "Kokkos::kokkos_malloc failed");
  } catch (const std::runtime_error& e) {  // Kokkos 3.x turns the failure into a runtime_error
    out_of_memory(bytes, physical_bytes_, one_line(e.what()).c_str());
  }
}

void Device::deallocate(Handle h, std::size_t bytes, detail::QueueImpl*) noexcept {
  if (!h) return;
  if (!Kokkos::is_initialized()) {
    // The program finalised Kokkos while porta still held memory (it is exiting, or it broke
    // the rule that Kokkos outlives porta's arrays); Kokkos 4 aborts on a free after finalize.
    PORTA_LOG(debug, "kokkos:0: Kokkos is finalised; ", detail::format_bytes(bytes), " left to the process's exit");
    return;
  }
  PORTA_KOKKOS_LOG(Kokkos::kokkos_free<Kokkos::HostSpace>(h));
}

void Device::write(detail::QueueImpl& q, Handle dst, std::size_t dst_offset, const void* src, std::size_t bytes) {
  if (auto* r = recording(q)) r->refuse("kokkos:0", "copying host memory to the device (from_host, a write of host data)");
  if (bytes) std::memcpy(bytes_at(dst, dst_offset), src, bytes);
}

void Device::read(detail::QueueImpl& q, Handle src, std::size_t src_offset, void* dst, std::size_t bytes) {
  if (auto* r = recording(q)) r->refuse("kokkos:0", "reading device memory to the host (to_vector, item, to_host)");
  if (bytes) std::memcpy(dst, bytes_at(src, src_offset), bytes);
}

void Device::copy(detail::QueueImpl& q, Handle src, std::size_t src_offset, Handle dst, std::size_t dst_offset,
                        std::size_t bytes) {
  if (auto* r = recording(q)) {
    r->add([=, this](detail::QueueImpl& rq, const detail::HandleMap& m) { copy(rq, m(src), src_offset, m(dst), dst_offset, bytes); });
    return;
  }
  // memmove: the two ranges may be views of one buffer.
  if (bytes) std::memmove(bytes_at(dst, dst_offset), bytes_at(src, src_offset), bytes);
}

void Device::fill(detail::QueueImpl& q, Handle dst, std::size_t offset, const void* pattern,
                        std::size_t pattern_size, std::size_t bytes) {
  if (auto* r = recording(q)) {
    std::array<std::uint8_t, 8> word{};
    std::memcpy(word.data(), pattern, std::min<std::size_t>(pattern_size, 8));
    r->add([=, this](detail::QueueImpl& rq, const detail::HandleMap& m) {
      fill(rq, m(dst), offset, word.data(), pattern_size, bytes);
    });
    return;
  }
  if (pattern_size != 1 && pattern_size != 2 && pattern_size != 4 && pattern_size != 8)
    throw InvalidArgument(detail::cat("fill pattern of ", pattern_size, " bytes on kokkos:0: use 1, 2, 4 or 8"));
  if (bytes % pattern_size != 0)
    throw InvalidArgument(detail::cat("fill of ", bytes, " bytes on kokkos:0 is not a whole number of ", pattern_size,
                                      "-byte patterns"));
  char* p = bytes_at(dst, offset);
  if (pattern_size == 1) {
    std::memset(p, *static_cast<const unsigned char*>(pattern), bytes);
    return;
  }
  auto repeat = [&](auto word) {
    std::memcpy(&word, pattern, sizeof word);
    for (std::size_t i = 0; i < bytes; i += sizeof word) std::memcpy(p + i, &word, sizeof word);
  };
  switch (pattern_size) {
    case 2: repeat(std::uint16_t{}); break;
    case 4: repeat(std::uint32_t{}); break;
    default: repeat(std::uint64_t{}); break;
  }
}

void* Device::map(detail::QueueImpl& q, Handle h, std::size_t) {
  if (auto* r = recording(q)) r->refuse("kokkos:0", "mapping device memory for the host");
  return h;
}

void Device::unmap(detail::QueueImpl&, Handle, void*) {}

}  // namespace porta::kokkos
