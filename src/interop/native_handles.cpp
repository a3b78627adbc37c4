// Native handles of devices, queues and arrays, and the ordering of porta's queues with streams
// and queues it does not own (include/porta/interop.hpp).
#include <porta/error.hpp>
#include <porta/interop.hpp>

#include "runtime/device_state.hpp"
#include "lazy/node.hpp"
#include "porta_backend/strings.hpp"

namespace porta {

using detail::cat;

namespace {

const detail::ArrayNode& checked(const Array& a, const char* what) {
  if (!a.valid()) throw InvalidArgument(cat(what, ": the porta::Array is empty (default-constructed)"));
  return *a.node();
}

}  // namespace

NativeDevice native_device(const Device& d) {
  detail::NativeObjects o = d.impl().native_objects();
  NativeDevice n;
  n.backend = d.backend();
  n.context = o.context;
  n.device = o.device;
  n.platform = o.platform;
  n.ordinal = o.ordinal;  // the vendor's number for the device, as the backend says (its index by default)
  return n;
}

void* native_queue(const Device& d) { return detail::thread_queue(d).native_handle(); }

NativeMemory native_memory(const Array& a) {
  const auto& node = checked(a, "native_memory");
  const detail::View& v = detail::evaluate(a.node());
  NativeMemory m;
  m.handle = v.buffer->handle();
  m.offset_bytes = static_cast<std::size_t>(v.offset) * itemsize(node.dtype());
  m.buffer_bytes = v.buffer->bytes();
  m.strides = v.strides;
  if (void* host = node.device().impl().host_address(v.buffer->handle())) m.host = static_cast<char*>(host) + m.offset_bytes;
  return m;
}

void queue_wait_for(void* foreign, const Array& a) {
  const auto& node = checked(a, "queue_wait_for");
  const detail::View& v = detail::evaluate(a.node());
  detail::DeviceImpl& dev = node.device().impl();
  for (const auto& q : v.buffer->users()) {
    if (foreign && q->native_handle() == foreign) continue;  // porta's own in-order queue: ordered already
    if (foreign) dev.foreign_wait(foreign, *q->record());
    else q->record()->synchronize();  // the host
  }
}

void wait_for_queue(const Array& a, void* foreign) {
  const auto& node = checked(a, "wait_for_queue");
  const detail::View& v = detail::evaluate(a.node());
  const auto& q = detail::thread_queue_shared(node.device());
  // Ordered like a porta write on this queue: later readers and writers on other queues wait for it.
  v.buffer->before_write(q);
  if (!foreign) {
    // The host wrote it: it is ordered before every queue's later work already.
  } else if (auto e = node.device().impl().record_foreign(foreign)) {
    q->wait(*e);
  }
  v.buffer->after_write(q);
}

void wait_for_queue(const Device& d, void* foreign) {
  if (!foreign) return;
  if (auto e = d.impl().record_foreign(foreign)) detail::thread_queue(d).wait(*e);
}

}  // namespace porta
