// Arrays over memory porta does not own (wrap_memory in include/porta/interop.hpp): the layout is
// checked against the memory, the device imports it (backend.hpp), and the buffer calls the
// owner's release once the last array using it is gone. Such buffers never reach the caching
// allocator.
#include <porta/error.hpp>
#include <porta/interop.hpp>

#include <limits>

#include "lazy/node.hpp"
#include "porta_backend/strings.hpp"

namespace porta {

using detail::cat;

namespace {

// Byte ranges of any int64 shape and strides, without overflow (__extension__: GCC and Clang have
// it in every mode, -Wpedantic notwithstanding).
__extension__ typedef __int128 Wide;

// Runs `release` unless dismissed: wrap_memory's error paths give the memory back too.
class ReleaseGuard {
 public:
  explicit ReleaseGuard(std::function<void()>& release) : release_(release) {}
  ~ReleaseGuard() {
    if (armed_ && release_) {
      try {
        release_();
      } catch (...) {
      }
    }
  }
  void dismiss() { armed_ = false; }

 private:
  std::function<void()>& release_;
  bool armed_ = true;
};

std::string layout_text(const Shape& shape, const std::vector<std::int64_t>& strides, std::size_t offset_bytes, DType t) {
  return cat("shape ", to_string(shape), ", strides ", to_string(strides), " (elements), byte offset ", offset_bytes, ", ",
             name(t));
}

}  // namespace

Array wrap_memory(const ExternalMemory& memory, DType dtype, Shape shape, std::vector<std::int64_t> strides,
                  std::size_t offset_bytes, const Device& device, std::function<void()> release) {
  ReleaseGuard guard(release);
  if (!device.valid()) throw InvalidArgument("wrap_memory: the porta::Device is empty (default-constructed)");
  if (!memory.pointer)
    throw InvalidArgument(cat("wrap_memory: the memory pointer is null (", device.spec(), ", shape ", to_string(shape), ")"));
  if (!device.supports(dtype))
    throw DTypeError(cat("wrap_memory: ", device.spec(), " (", device.name(), ") has no ", name(dtype),
                         "; use another device or convert the data first"));
  if (strides.empty()) strides = detail::contiguous_strides(shape);
  if (strides.size() != shape.size())
    throw InvalidArgument(cat("wrap_memory: ", shape.size(), " dimensions but ", strides.size(), " strides (",
                              layout_text(shape, strides, offset_bytes, dtype), ")"));
  const auto isz = static_cast<std::int64_t>(itemsize(dtype));
  // The elements' byte range relative to the first element, without overflow.
  bool empty = false;
  Wide lo = 0, hi = 0;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) throw ShapeError(cat("wrap_memory: negative dimension in shape ", to_string(shape)));
    if (shape[i] == 0) empty = true;
    Wide reach = static_cast<Wide>(shape[i] > 0 ? shape[i] - 1 : 0) * strides[i];
    (reach < 0 ? lo : hi) += reach;
  }
  std::size_t begin = 0, end = 0;
  if (!empty) {
    Wide first = static_cast<Wide>(offset_bytes) + lo * isz;
    Wide last = static_cast<Wide>(offset_bytes) + (hi + 1) * isz;
    if (first < 0)
      throw InvalidArgument(cat("wrap_memory: the strides reach ", static_cast<long long>(-first),
                                " bytes before the start of the memory (", layout_text(shape, strides, offset_bytes, dtype),
                                "); give an offset that leaves room for the negative strides"));
    if (last > static_cast<Wide>(std::numeric_limits<std::int64_t>::max()) ||
        (memory.bytes && last > static_cast<Wide>(memory.bytes)))
      throw InvalidArgument(cat("wrap_memory: the elements reach byte ", static_cast<long double>(last), " but the memory holds ",
                                memory.bytes, " bytes (", layout_text(shape, strides, offset_bytes, dtype), ")"));
    begin = static_cast<std::size_t>(first);
    end = static_cast<std::size_t>(last);
  }
  // A pointer (host memory, or device memory whose handles are addresses) must be element-aligned;
  // a memory object (cl_mem) is aligned by its driver.
  bool pointer_kind = memory.kind == MemoryKind::host || device.impl().info().caps.handles_are_addresses;
  if (offset_bytes % static_cast<std::size_t>(isz) != 0 ||
      (pointer_kind && (reinterpret_cast<std::uintptr_t>(memory.pointer) + offset_bytes) % static_cast<std::size_t>(isz) != 0))
    throw InvalidArgument(cat("wrap_memory: the first element (", memory.pointer, " + ", offset_bytes,
                              " bytes) is not aligned to its ", isz, "-byte ", name(dtype),
                              " elements; porta needs element-aligned memory"));
  detail::DeviceImpl& impl = device.impl();
  auto kind = memory.kind == MemoryKind::host ? detail::DeviceImpl::MemoryKind::host : detail::DeviceImpl::MemoryKind::device;
  detail::DeviceImpl::Imported imported = impl.import_memory(memory.pointer, kind, begin, end);
  std::shared_ptr<detail::Buffer> buffer;
  try {
    std::int64_t buffer_end = imported.base_offset + static_cast<std::int64_t>(end);
    buffer = std::make_shared<detail::Buffer>(device, imported.handle, static_cast<std::size_t>(std::max<std::int64_t>(buffer_end, 0)),
                                              std::move(release));
  } catch (...) {
    impl.release_import(imported.handle);
    throw;
  }
  guard.dismiss();  // the buffer owns the release now
  std::int64_t offset = (imported.base_offset + static_cast<std::int64_t>(offset_bytes)) / isz;
  return Array(std::make_shared<detail::ArrayNode>(std::move(shape), dtype, device,
                                                   detail::View{std::move(buffer), offset, std::move(strides)}));
}

}  // namespace porta
