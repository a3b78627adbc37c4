// The GIL policy of gil.hpp: which calls keep it, and the per-thread record that decides eval().
#include "gil.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_map>

#include <porta/interop.hpp>
#include <porta/settings.hpp>

namespace porta::python::gil {
namespace {

struct ThreadRecord {
  // The node the last holding operation made on this thread, and its fingerprint. A weak
  // pointer: the record keeps nothing alive, and a node freed and another made at its address
  // is not mistaken for it.
  std::weak_ptr<detail::ArrayNode> last;
  std::uint64_t last_print = 0;
  // Fingerprint -> how long its last evaluation on this thread took, in ns.
  std::unordered_map<std::uint64_t, long long> cost;
  // eval() calls of pending arrays on this thread that kept / released the GIL (porta._core._gil_counts()).
  std::uint64_t held = 0, released = 0;
  std::uint64_t ops_held = 0;  // elementwise operations that kept the GIL (porta._core._gil_ops_held())
};

ThreadRecord& record() {
  thread_local ThreadRecord r;
  return r;
}

constexpr std::uint64_t kPrime = 0x100000001b3ULL;
void mix(std::uint64_t& h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= kPrime;
}

// An evaluated array's part of a fingerprint: its dtype, shape, strides, the alignment of its
// first element and its device, which never change once it is evaluated.
std::uint64_t array_print(const Array& a) {
  std::uint64_t h = 0x84222325cbf29ce4ULL;
  mix(h, static_cast<std::uint64_t>(a.dtype()));
  mix(h, reinterpret_cast<std::uintptr_t>(&a.device().impl()));
  NativeMemory m = native_memory(a);  // evaluated already: no device work
  mix(h, (reinterpret_cast<std::uintptr_t>(m.handle) + m.offset_bytes) & 255);
  mix(h, a.shape().size());
  for (std::int64_t d : a.shape()) mix(h, static_cast<std::uint64_t>(d));
  for (std::int64_t s : m.strides) mix(h, static_cast<std::uint64_t>(s));
  return h;
}

// The last arrays fingerprinted on this thread (a loop reuses its operands): a slot is valid
// while its node lives, since a live node's address cannot name another node.
struct PrintSlot {
  const void* node = nullptr;
  std::weak_ptr<detail::ArrayNode> alive;
  std::uint64_t print = 0;
};

std::uint64_t cached_array_print(const Array& a) {
  thread_local PrintSlot slots[16];
  const void* key = a.node().get();
  PrintSlot& s = slots[(reinterpret_cast<std::uintptr_t>(key) >> 4) & 15];
  if (s.node == key && !s.alive.expired()) return s.print;
  s.node = key;
  s.alive = a.node();
  s.print = array_print(a);
  return s.print;
}

// Everything the generated kernel's key can depend on: the operation, each operand's kind, and
// for an array its array_print. Python numbers are kernel arguments, so their values are not in
// it (their kinds are).
std::uint64_t fingerprint(const void* op, std::initializer_list<const Operand*> ops) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  mix(h, reinterpret_cast<std::uintptr_t>(op));
  for (const Operand* o : ops) {
    mix(h, static_cast<std::uint64_t>(o->kind()));
    if (o->kind() == Operand::Kind::array) mix(h, cached_array_print(o->array()));
  }
  return h;
}

long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

long long hold_limit_ns() {
  // PORTA_GIL_HOLD_US, microseconds (porta's settings table: a bad value warns and gives 8).
  static const long long limit = static_cast<long long>(porta::setting_number("PORTA_GIL_HOLD_US") * 1000.0);
  return limit;
}

bool can_hold(std::initializer_list<const Operand*> ops) {
  // Without an array operand porta asks for this thread's current device, which may load the
  // backends (the process's first call): that releases the GIL.
  bool any_array = false;
  for (const Operand* o : ops) {
    if (o->kind() != Operand::Kind::array) continue;
    if (!o->array().is_evaluated()) return false;
    any_array = true;
  }
  return any_array;
}

void made(const void* op, std::initializer_list<const Operand*> ops, const Array& result) {
  ThreadRecord& r = record();
  ++r.ops_held;
  r.last = result.node();
  r.last_print = fingerprint(op, ops);
}

void eval(const Array& a) {
  if (a.is_evaluated()) return;
  ThreadRecord& r = record();
  const bool known = !r.last.expired() && r.last.lock() == a.node();
  const std::uint64_t print = r.last_print;
  r.last.reset();
  auto it = known ? r.cost.find(print) : r.cost.end();
  const bool hold = it != r.cost.end() && it->second < hold_limit_ns();
  const long long t0 = known ? now_ns() : 0;
  if (hold) {
    ++r.held;
    a.eval();
  } else {
    ++r.released;
    nb::gil_scoped_release unlocked;
    a.eval();
  }
  if (!known) return;
  if (r.cost.size() > 4096) r.cost.clear();  // a bound; the next evaluations are measured again
  r.cost[print] = now_ns() - t0;
}

std::pair<std::uint64_t, std::uint64_t> counts() { return {record().held, record().released}; }
std::uint64_t ops_held() { return record().ops_held; }

}  // namespace porta::python::gil
