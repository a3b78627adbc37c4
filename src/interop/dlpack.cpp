// DLPack export and import (include/porta/interop.hpp): porta's arrays as DLPack 1.x and 0.x
// tensors, and tensors of other libraries as porta arrays over their memory (wrap_memory).
#include <porta/dlpack.hpp>
#include <porta/error.hpp>
#include <porta/interop.hpp>

#include "runtime/device_state.hpp"
#include "lazy/node.hpp"
#include "porta_backend/strings.hpp"

#include <algorithm>
#include <cstddef>

// DLPack 1.x's layout, which consumers compiled against a 1.x dlpack.h read: the structs
// <porta/dlpack.hpp> adds to an older dlpack.h must match it.
static_assert(offsetof(DLManagedTensorVersioned, flags) == 24 && offsetof(DLManagedTensorVersioned, dl_tensor) == 32 &&
                  sizeof(DLTensor) == 48,
              "DLManagedTensorVersioned differs from DLPack 1.x's layout");

namespace porta {

using detail::cat;

namespace {

// DLPack's type code for each kind, with the dtype's width in bits (bfloat16 has its own code).
DLDataType dl_dtype(DType t) {
  const auto bits = static_cast<std::uint8_t>(itemsize(t) * 8);
  if (t == DType::bfloat16) return {kDLBfloat, 16, 1};
  switch (kind(t)) {
    case DTypeKind::boolean: return {kDLPackBoolCode, 8, 1};
    case DTypeKind::signed_integer: return {kDLInt, bits, 1};
    case DTypeKind::unsigned_integer: return {kDLUInt, bits, 1};
    case DTypeKind::floating: return {kDLFloat, bits, 1};
    case DTypeKind::complex: return {kDLComplex, bits, 1};  // both parts: complex64 is 64 bits
  }
  return {kDLFloat, bits, 1};
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
    for (DType d : all_dtypes()) {
      const DLDataType mine = dl_dtype(d);
      if (mine.code == t.code && mine.bits == t.bits) return d;
    }
  }
  throw DTypeError(cat("from_dlpack: DLPack dtype code ", unsigned{t.code}, " (", dl_code_name(t.code), "), bits ",
                       unsigned{t.bits}, ", lanes ", t.lanes,
                       " has no porta dtype; porta has bool (kDLBool 8), int8 to int64 (kDLInt), uint8 to uint64 "
                       "(kDLUInt), float16, float32, float64 (kDLFloat), bfloat16 (kDLBfloat 16) and complex64, "
                       "complex128 (kDLComplex 64, 128), one lane each: convert it first"));
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

// DLPack's names of its device types (dlpack.h), for messages.
std::string dl_device_name(int type) {
  switch (type) {
    case kDLCPU: return "kDLCPU";
    case kDLCUDA: return "kDLCUDA";
    case kDLCUDAHost: return "kDLCUDAHost";
    case kDLOpenCL: return "kDLOpenCL";
    case kDLVulkan: return "kDLVulkan";
    case kDLMetal: return "kDLMetal";
    case kDLVPI: return "kDLVPI";
    case kDLROCM: return "kDLROCM";
    case kDLROCMHost: return "kDLROCMHost";
    case kDLExtDev: return "kDLExtDev";
    case kDLCUDAManaged: return "kDLCUDAManaged";
    default: return cat("DLDeviceType ", type);
  }
}

const detail::Capabilities& caps_of(const Device& d) { return d.impl().info().caps; }

// Whether `d` takes tensors of DLPack device type `type` as its own memory (its capabilities).
bool takes_dlpack_type(const Device& d, int type) {
  const auto& c = caps_of(d);
  return c.dlpack_device_type == type ||
         std::find(c.dlpack_import_types.begin(), c.dlpack_import_types.end(), type) != c.dlpack_import_types.end();
}

// Arrays of `d` are in host memory used in place (Kokkos, PoCL's CPU device): a host tensor can be one.
bool uses_host_memory(const Device& d) { return d.impl().info().host_memory; }

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
  const detail::Capabilities& caps = caps_of(dev);
  if (!options.to_host && caps.dlpack_device_type == 0)
    throw DeviceError(cat("to_dlpack: ", dev.spec(), " declares no DLPack device type for its memory; ask for a host tensor ",
                          "(DLPackExport::to_host)"));
  if (options.to_host || caps.dlpack_device_type == kDLCPU) {
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
  // The device type the backend declares, with its native ordinal (CUDA's) as device_id.
  t.device = {static_cast<DLDeviceType>(caps.dlpack_device_type), native_device(dev).ordinal};
  if (caps.handles_are_addresses) {
    t.data = static_cast<char*>(v.buffer->handle()) + offset;
  } else {
    t.data = v.buffer->handle();  // an object such as a cl_mem: the offset beside it
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
  throw DeviceError(cat("from_dlpack: a ", dl_device_name(type),
                        " tensor needs a device that uses host memory in place (a CPU device whose memory is host memory), "
                        "and there is none; devices here: ",
                        [] {
                          std::vector<std::string> s;
                          for (const Device& d : devices()) s.push_back(d.spec());
                          return detail::join(s, ", ");
                        }()));
}

// The device whose backend declares DLPack device type `type` and whose native ordinal is `id`.
Device dlpack_device(int type, int id) {
  std::vector<std::string> have;
  Backend backend{};
  for (const Device& d : devices())
    if (takes_dlpack_type(d, type)) {
      if (native_device(d).ordinal == id) return d;
      if (have.empty()) backend = d.backend();
      have.push_back(cat(d.spec(), " (device_id ", native_device(d).ordinal, ")"));
    }
  if (!have.empty())
    throw DeviceError(cat("from_dlpack: a ", dl_device_name(type), " tensor (device type ", type, ") of device_id ", id,
                          ", but porta has no ", name(backend), ":", id, " (", dl_device_name(type), " devices here: ",
                          detail::join(have, ", "), ")"));
  std::vector<std::string> types{"kDLCPU (1)", "kDLCUDAHost (3)"};
  for (const Device& d : devices()) {
    const auto& c = caps_of(d);
    std::vector<int> all{c.dlpack_device_type};
    all.insert(all.end(), c.dlpack_import_types.begin(), c.dlpack_import_types.end());
    for (int t : all) {
      std::string text = cat(dl_device_name(t), " (", t, ")");
      if (t != 0 && std::find(types.begin(), types.end(), text) == types.end()) types.push_back(text);
    }
  }
  throw DeviceError(cat("from_dlpack: a ", dl_device_name(type), " tensor (device type ", type, ") of device_id ", id,
                        ", but no device here takes that device type; porta's devices here take ", detail::join(types, ", ")));
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
  // Host memory (kDLCPU, pinned kDLCUDAHost) goes to a device that uses host memory in place;
  // any other type to the device whose backend declares it (Capabilities::dlpack_device_type).
  const int type = static_cast<int>(t->device.device_type);
  if (type == kDLCPU || type == kDLCUDAHost) {
    dev = host_device(options, t->device.device_type);
    mem.kind = MemoryKind::host;
  } else {
    dev = dlpack_device(type, t->device.device_id);
  }
  std::size_t offset = static_cast<std::size_t>(t->byte_offset);
  if (mem.pointer && !empty && (mem.kind == MemoryKind::host || caps_of(dev).handles_are_addresses)) {
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
