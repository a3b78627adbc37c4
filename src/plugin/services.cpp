// The core's side of interface/porta_backend/services.hpp: what plugins may call, implemented
// over the core's kernel cache and exit guard, and the messages of check.hpp (the interpreter's
// entry points are in src/interpreter/, the disk cache in src/runtime/disk_cache.cpp).
#include "porta_backend/services.hpp"

#include "porta_backend/check.hpp"

#include "runtime/device_state.hpp"
#include "base/exit_guard.hpp"

namespace porta::detail {

std::shared_ptr<Kernel> cached_kernel(DeviceImpl& device, const std::string& key,
                                      const std::function<KernelSource()>& make_source) {
  return device.state().kernels().get(key, make_source);
}

void watch_exit() { ExitGuard::instance().watch(); }

namespace {
// The dtype families the code generator, the interpreter and the primitives compute (issue 37
// brings them in one at a time; a family is declared once all three do).
constexpr bool kNarrowIntegers = true;   // int8, int16, uint8, uint16, uint32, uint64

constexpr bool kComplex = true;  // complex64, complex128
}  // namespace

bool core_computes(DType t) {
  switch (kind(t)) {
    case DTypeKind::boolean:
    case DTypeKind::floating: return true;
    case DTypeKind::signed_integer:
    case DTypeKind::unsigned_integer: return t == DType::int32 || t == DType::int64 || kNarrowIntegers;
    case DTypeKind::complex: return kComplex;
  }
  return false;
}

std::shared_lock<std::shared_mutex> enter_build(const std::string& where, const std::string& entry) {
  return ExitGuard::instance().enter(where, entry);
}

std::string failure_message(std::string_view call, std::string_view status, std::string_view where) {
  std::string msg;
  if (!where.empty()) append_all(msg, where, ": ");
  append_all(msg, call_name(call), " failed: ", status);
  return msg;
}

bool log_failure_message(std::string_view call, std::string_view status, std::string_view where) noexcept {
  try {
    PORTA_LOG(error, failure_message(call, status, where));
  } catch (...) {
  }
  return false;
}

}  // namespace porta::detail
