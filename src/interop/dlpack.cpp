// DLPack export and import (include/porta/interop.hpp): porta's arrays as DLPack 1.x and 0.x
// tensors, and tensors of other libraries as porta arrays over their memory (wrap_memory).
#include <porta/dlpack.hpp>
#include <porta/error.hpp>
#include <porta/interop.hpp>

#include "runtime/device_state.hpp"
#include "lazy/node.hpp"
#include "porta_backend/strings.hpp"

#include <cstddef>

// DLPack 1.x's layout, which consumers compiled against a 1.x dlpack.h read: the structs
// <porta/dlpack.hpp> adds to an older dlpack.h must match it.
static_assert(offsetof(DLManagedTensorVersioned, flags) == 24 && offsetof(DLManagedTensorVersioned, dl_tensor) == 32 &&
                  sizeof(DLTensor) == 48,
              "DLManagedTensorVersioned differs from DLPack 1.x's layout");

namespace porta {

using detail::cat;

namespace {

DLDataType dl_dtype(DType t) {
  switch (t) {
    case DType::boolean: return {kDLPackBoolCode, 8, 1};
    case DType::int32: return {kDLInt, 32, 1};
    case DType::int64: return {kDLInt, 64, 1};
    case DType::float16: return {kDLFloat, 16, 1};
    case DType::bfloat16: return {kDLBfloat, 16, 1};
    case DType::float32: return {kDLFloat, 32, 1};
    case DType::float64: return {kDLFloat, 64, 1};
  }
  return {kDLFloat, 32, 1};
}

const char* dl_code_name(unsigned code) {
  switch (code) {
    case kDLInt: return "kDLInt";
    case kDLUInt: return "kDLUInt";
    case kDLFloat: return "kDLFloat";
    case kDLOpaqueHandle: return "kDLOpaqueHandle";
    case kDLBfloat: return "kDLBfloat";
    case kDLComplex: return "kDLComplex";
    case kDLPackBoolCode: return "kDLBool";
    default: return "unknown";
  }
}

DType porta_dtype(DLDataType t) {
  if (t.lanes == 1) {
    if (t.code == kDLPackBoolCode && t.bits == 8) return DType::boolean;
    if (t.code == kDLInt && t.bits == 32) return DType::int32;
    if (t.code == kDLInt && t.bits == 64) return DType::int64;
    if (t.code == kDLFloat && t.bits == 16) return DType::float16;
    if (t.code == kDLFloat && t.bits == 32) return DType::float32;
    if (t.code == kDLFloat && t.bits == 64) return DType::float64;
    if (t.code == kDLBfloat && t.bits == 16) return DType::bfloat16;
  }
  throw DTypeError(cat("from_dlpack: DLPack dtype code ", unsigned{t.code}, " (", dl_code_name(t.code), "), bits ",
                       unsigned{t.bits}, ", lanes ", t.lanes,
                       " has no porta dtype; porta has bool (kDLBool 8), int32, int64 (kDLInt), float16, float32, "
                       "float64 (kDLFloat) and bfloat16 (kDLBfloat 16), one lane each: convert it first"));
}

// What a DLPack tensor of porta's owns: the array (which keeps its buffer alive) and the arrays
// DLTensor points into; a copy's host bytes where one was needed.
struct ExportContext {
  Array array;
  std::vector<std::int64_t> shape, strides;
  std::vector<std::uint8_t> host_copy;
  DLManagedTensorVersioned versioned{};
  DLManagedTensor legacy{};
};

bool uses_host_memory(const Device& d) {
  return d.backend() == Backend::kokkos || (d.backend() == Backend::opencl && d.impl().info().host_memory);
}

// Fills `t` for `a`; returns the DLPack flags.
std::uint64_t describe(ExportContext& ctx, const Array& a, const DLPackExport& options, DLTensor& t) {
  if (!a.valid()) throw InvalidArgument("to_dlpack: the porta::Array is empty (default-constructed)");
  const detail::View& v = detail::evaluate(a.node());
  const Device dev = a.device();
  if (options.synchronize) queue_wait_for(options.consumer_queue, a);
  ctx.array = a;
  ctx.shape = a.shape();
  ctx.strides = v.strides;
  std::uint64_t flags = options.read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  for (std::size_t i = 0; i < ctx.shape.size(); ++i)
    if (ctx.strides[i] == 0 && ctx.shape[i] > 1) flags |= DLPACK_FLAG_BITMASK_READ_ONLY;  // elements alias
  const std::size_t offset = static_cast<std::size_t>(v.offset) * itemsize(a.dtype());
  t.ndim = static_cast<std::int32_t>(ctx.shape.size());
  t.dtype = dl_dtype(a.dtype());
  t.shape = ctx.shape.empty() ? nullptr : ctx.shape.data();
  t.strides = ctx.strides.empty() ? nullptr : ctx.strides.data();
  t.byte_offset = 0;
  void* host = dev.impl().host_address(v.buffer->handle());
  if (options.to_host || dev.backend() == Backend::kokkos) {
    t.device = {kDLCPU, 0};
    if (host) {
      t.data = static_cast<char*>(host) + offset;
      return flags;
    }
    // No host address: the elements are copied, in row-major order.
    ctx.host_copy.resize(a.nbytes());
    a.to_host(a.dtype(), ctx.host_copy.data(), ctx.host_copy.size());
    ctx.strides = detail::contiguous_strides(ctx.shape);
    t.strides = ctx.strides.empty() ? nullptr : ctx.strides.data();
    t.data = ctx.host_copy.data();
    return (flags & ~std::uint64_t{DLPACK_FLAG_BITMASK_READ_ONLY}) | DLPACK_FLAG_BITMASK_IS_COPIED |
           (options.read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0);
  }
  if (dev.backend() == Backend::cuda) {
    t.device = {kDLCUDA, native_device(dev).ordinal};
    t.data = static_cast<char*>(v.buffer->handle()) + offset;
  } else {
    t.device = {kDLOpenCL, dev.index()};
    t.data = v.buffer->handle();  // the cl_mem
    t.byte_offset = offset;
  }
  return flags;
}

void delete_versioned(DLManagedTensorVersioned* self) {
  if (self) delete static_cast<ExportContext*>(self->manager_ctx);
}
void delete_legacy(DLManagedTensor* self) {
  if (self) delete static_cast<ExportContext*>(self->manager_ctx);
}

// The device a host (kDLCPU, kDLCUDAHost) tensor's array lives on.
Device host_device(const DLPackImport& options, DLDeviceType type) {
  if (options.host_device.valid()) return options.host_device;
  Device cur = current_device();
  if (uses_host_memory(cur)) return cur;
  for (const Device& d : devices())
    if (uses_host_memory(d)) return d;
  throw DeviceError(cat("from_dlpack: a ", type == kDLCPU ? "kDLCPU" : "kDLCUDAHost",
                        " tensor needs a device that uses host memory in place (kokkos, an OpenCL CPU device such as "
                        "PoCL), and there is none; devices here: ",
                        [] {
                          std::vector<std::string> s;
                          for (const Device& d : devices()) s.push_back(d.spec());
                          return detail::join(s, ", ");
                        }()));
}

Device backend_device(Backend b, int id, const char* type) {
  for (const Device& d : devices())
    if (d.backend() == b && (b == Backend::cuda ? native_device(d).ordinal : d.index()) == id) return d;
  std::vector<std::string> have;
  for (const Device& d : devices())
    if (d.backend() == b) have.push_back(d.spec());
  throw DeviceError(cat("from_dlpack: a ", type, " tensor of device_id ", id, ", but porta has no ", name(b), ":", id,
                        " (", have.empty() ? std::string("no ") + std::string(name(b)) + " device" : detail::join(have, ", "),
                        ")"));
}

// Shared by both forms: `release` calls the producer's deleter, once, whatever happens.
Array import(const DLTensor* t, const DLPackImport& options, std::function<void()> release) {
  // Until wrap_memory takes it over, refusals release here.
  struct Guard {
    std::function<void()>* f;
    ~Guard() {
      if (f && *f) (*f)();
    }
  } guard{&release};
  if (t->ndim < 0) throw InvalidArgument(cat("from_dlpack: ndim is ", t->ndim));
  if (t->ndim > 0 && !t->shape) throw InvalidArgument(cat("from_dlpack: shape is null for ", t->ndim, " dimensions"));
  DType dtype = porta_dtype(t->dtype);
  Shape shape(t->shape, t->shape + t->ndim);
  std::vector<std::int64_t> strides;
  if (t->strides) strides.assign(t->strides, t->strides + t->ndim);
  bool empty = false;
  for (auto n : shape) empty |= n == 0;
  if (!t->data && !empty) throw InvalidArgument("from_dlpack: the tensor's data pointer is null");
  Device dev;
  ExternalMemory mem{t->data, MemoryKind::device, 0};
  switch (static_cast<int>(t->device.device_type)) {
    case kDLCUDA:
    case kDLCUDAManaged: dev = backend_device(Backend::cuda, t->device.device_id, "kDLCUDA"); break;
    case kDLCPU:
    case kDLCUDAHost: {
      dev = host_device(options, t->device.device_type);
      mem.kind = MemoryKind::host;
      break;
    }
    case kDLOpenCL: dev = backend_device(Backend::opencl, t->device.device_id, "kDLOpenCL"); break;
    default:
      throw DeviceError(cat("from_dlpack: device type ", static_cast<int>(t->device.device_type), " (device_id ",
                            t->device.device_id,
                            ") is not one porta has; porta takes kDLCUDA (2), kDLCUDAManaged (13), kDLCPU (1), "
                            "kDLCUDAHost (3) and kDLOpenCL (4)"));
  }
  std::size_t offset = static_cast<std::size_t>(t->byte_offset);
  if (mem.pointer && !empty && (mem.kind == MemoryKind::host || dev.backend() != Backend::opencl)) {
    // A pointer names element (0, 0, ...), not the allocation's start: with negative strides
    // (NumPy's views) elements lie below it. The memory handed to wrap_memory starts at the
    // lowest element; the CUDA driver still checks the whole range against the allocation.
    std::int64_t lo = 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      std::int64_t stride = strides.empty() ? 0 : strides[i];
      if (stride < 0) {
        if (__builtin_mul_overflow(shape[i] - 1, stride, &stride) || __builtin_add_overflow(lo, stride, &lo))
          throw InvalidArgument(cat("from_dlpack: strides ", to_string(strides), " of shape ", to_string(shape),
                                    " reach outside any memory"));
      }
    }
    std::uint64_t below = static_cast<std::uint64_t>(-lo) * itemsize(dtype);
    mem.pointer = static_cast<char*>(mem.pointer) + offset - below;
    offset = below;
  }
  if (empty && !mem.pointer) {
    guard.f = nullptr;
    release();
    return porta::empty(shape, dtype, dev);
  }
  guard.f = nullptr;  // wrap_memory releases on its own refusals
  Array a = wrap_memory(mem, dtype, std::move(shape), std::move(strides), offset, dev, std::move(release));
  if (options.producer_queue) wait_for_queue(a, options.producer_queue);
  return a;
}

}  // namespace

DLManagedTensorVersioned* to_dlpack(const Array& a, const DLPackExport& options) {
  auto ctx = std::make_unique<ExportContext>();
  DLManagedTensorVersioned& m = ctx->versioned;
  m.flags = describe(*ctx, a, options, m.dl_tensor);
  m.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  m.manager_ctx = ctx.get();
  m.deleter = &delete_versioned;
  ctx.release();
  return &m;
}

DLManagedTensor* to_dlpack_legacy(const Array& a, const DLPackExport& options) {
  auto ctx = std::make_unique<ExportContext>();
  DLManagedTensor& m = ctx->legacy;
  (void)describe(*ctx, a, options, m.dl_tensor);
  m.manager_ctx = ctx.get();
  m.deleter = &delete_legacy;
  ctx.release();
  return &m;
}

Array from_dlpack(DLManagedTensorVersioned* tensor, const DLPackImport& options) {
  if (!tensor) throw InvalidArgument("from_dlpack: the DLManagedTensorVersioned pointer is null");
  auto release = [tensor] {
    if (tensor->deleter) tensor->deleter(tensor);
  };
  if (tensor->version.major > 1) {
    std::uint32_t major = tensor->version.major, minor = tensor->version.minor;
    release();  // the one field a consumer may still use
    throw InvalidArgument(cat("from_dlpack: DLPack version ", major, ".", minor,
                              " is newer than porta reads (1.x); ask the producer for a 1.x tensor"));
  }
  return import(&tensor->dl_tensor, options, release);
}

Array from_dlpack(DLManagedTensor* tensor, const DLPackImport& options) {
  if (!tensor) throw InvalidArgument("from_dlpack: the DLManagedTensor pointer is null");
  return import(&tensor->dl_tensor, options, [tensor] {
    if (tensor->deleter) tensor->deleter(tensor);
  });
}

}  // namespace porta
