// Binds interop.hpp for Python: __dlpack__ / __dlpack_device__ (the Python array API's rules for
// stream, max_version, dl_device and copy), DLPack capsules in (porta.from_dlpack), and
// __cuda_array_interface__ (version 3) both ways on CUDA devices.
#include "bindings.hpp"

#include <nanobind/stl/pair.h>

#include <porta/dlpack.hpp>
#include <porta/interop.hpp>

namespace porta::python {
namespace {

constexpr const char* kVersioned = "dltensor_versioned";
constexpr const char* kLegacy = "dltensor";

// A capsule nobody consumed still owns its tensor.
void delete_versioned(PyObject* cap) {
  if (PyCapsule_IsValid(cap, kVersioned)) {
    auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, kVersioned));
    if (t && t->deleter) t->deleter(t);
  }
}
void delete_legacy(PyObject* cap) {
  if (PyCapsule_IsValid(cap, kLegacy)) {
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, kLegacy));
    if (t && t->deleter) t->deleter(t);
  }
}

// CPU devices (Kokkos, PoCL) present their arrays as host memory, so NumPy can take them:
// zero-copy where the memory is host memory in place, else a copy flagged IS_COPIED.
std::pair<int, int> dlpack_device(const Device& d) {
  if (d.kind() == DeviceKind::cpu) return {kDLCPU, 0};
  switch (d.backend()) {
    case Backend::cuda: return {kDLCUDA, d.index()};
    case Backend::opencl: return {kDLOpenCL, d.index()};
    case Backend::kokkos: return {kDLCPU, 0};
  }
  return {kDLCPU, 0};
}

nb::object raise_buffer_error(const std::string& what) {
  PyErr_SetString(PyExc_BufferError, what.c_str());
  throw nb::python_error();
}

// __dlpack__(stream=None, max_version=None, dl_device=None, copy=None).
nb::object dlpack(const Array& self, nb::handle stream, nb::handle max_version, nb::handle dl_device, nb::handle copy) {
  const Device d = self.device();
  DLPackExport opts;
  opts.to_host = d.kind() == DeviceKind::cpu && d.backend() != Backend::kokkos;
  if (!dl_device.is_none()) {
    auto [type, id] = nb::cast<std::pair<int, int>>(dl_device);
    if (type == kDLCPU) {
      opts.to_host = d.backend() != Backend::kokkos;
    } else if (std::pair(type, id) != dlpack_device(d)) {
      raise_buffer_error("__dlpack__: porta cannot export an array of " + d.spec() + " to DLPack device (" +
                         std::to_string(type) + ", " + std::to_string(id) + "); use .to(device) first");
    }
  }
  if (stream.is_none()) {
    // The array API's default: CUDA's legacy default stream; elsewhere the host waits.
    opts.consumer_queue = d.backend() == Backend::cuda && !opts.to_host ? reinterpret_cast<void*>(1) : nullptr;
  } else {
    std::intptr_t s = nb::cast<std::intptr_t>(stream);
    if (s == -1) opts.synchronize = false;
    else opts.consumer_queue = reinterpret_cast<void*>(s);
  }
  const bool versioned = !max_version.is_none() && nb::cast<std::pair<int, int>>(max_version).first >= 1;
  const bool must_copy = !copy.is_none() && nb::cast<bool>(copy);
  const bool no_copy = !copy.is_none() && !nb::cast<bool>(copy);
  Array source = self;
  if (versioned) {
    DLManagedTensorVersioned* t;
    {
      nb::gil_scoped_release unlocked;
      if (must_copy) source = self.copy();
      t = to_dlpack(source, opts);
    }
    if (no_copy && (t->flags & DLPACK_FLAG_BITMASK_IS_COPIED)) {
      t->deleter(t);
      raise_buffer_error("__dlpack__(copy=False): " + d.spec() + "'s memory is not host memory, so the export "
                         "to the host would be a copy");
    }
    PyObject* cap = PyCapsule_New(t, kVersioned, delete_versioned);
    if (!cap) {
      t->deleter(t);
      throw nb::python_error();
    }
    return nb::steal(cap);
  }
  if (no_copy && opts.to_host)
    raise_buffer_error("__dlpack__(copy=False) to the host needs max_version >= (1, 0) to say whether it copied");
  DLManagedTensor* t;
  {
    nb::gil_scoped_release unlocked;
    if (must_copy) source = self.copy();
    t = to_dlpack_legacy(source, opts);
  }
  PyObject* cap = PyCapsule_New(t, kLegacy, delete_legacy);
  if (!cap) {
    t->deleter(t);
    throw nb::python_error();
  }
  return nb::steal(cap);
}

// Takes the tensor out of a capsule (renamed used_*, as the protocol says); porta owns it then.
Array from_capsule(nb::handle capsule, nb::handle host_device) {
  DLPackImport opts;
  if (!host_device.is_none()) opts.host_device = to_device(host_device);
  PyObject* cap = capsule.ptr();
  if (PyCapsule_IsValid(cap, kVersioned)) {
    auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, kVersioned));
    PyCapsule_SetName(cap, "used_dltensor_versioned");
    nb::gil_scoped_release unlocked;
    return from_dlpack(t, opts);
  }
  if (PyCapsule_IsValid(cap, kLegacy)) {
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, kLegacy));
    PyCapsule_SetName(cap, "used_dltensor");
    nb::gil_scoped_release unlocked;
    return from_dlpack(t, opts);
  }
  throw InvalidArgument("from_dlpack: the object's __dlpack__ gave no unused DLPack capsule "
                        "(dltensor or dltensor_versioned); was it consumed already?");
}

// NumPy's array-interface typestr: byte order ('|' where one byte has none), kind, itemsize.
// bfloat16 has no NumPy kind: 2 opaque bytes, which no consumer reads as a number.
std::string typestr(DType t) {
  const std::string size = std::to_string(itemsize(t));
  if (t == DType::bfloat16) return "<V2";
  switch (kind(t)) {
    case DTypeKind::boolean: return "|b1";
    case DTypeKind::signed_integer: return (itemsize(t) == 1 ? "|i" : "<i") + size;
    case DTypeKind::unsigned_integer: return (itemsize(t) == 1 ? "|u" : "<u") + size;
    case DTypeKind::floating: return "<f" + size;
    case DTypeKind::complex: return "<c" + size;
  }
  return "";
}

DType from_typestr(const std::string& s) {
  // '<' and '|' (and '=' on this little-endian host) are porta's byte order; '>' is not.
  const bool native = !s.empty() && (s[0] == '<' || s[0] == '|' || s[0] == '=');
  if (native && s != "<V2") {
    for (DType t : all_dtypes())
      if (typestr(t).substr(1) == s.substr(1)) return t;
  }
  throw DTypeError("__cuda_array_interface__ typestr '" + s +
                   "' has no porta dtype: use a little-endian bool, int8-int64, uint8-uint64, float16, float32, "
                   "float64, complex64 or complex128 ('|b1', '<i4', '<u8', '<f4', '<c8', ...)");
}

// Version 3, on CUDA devices only (elsewhere the attribute does not exist, so hasattr is False).
// porta's pending work on the array is finished first, so "stream" is None.
nb::dict cuda_array_interface(const Array& self) {
  if (self.device().backend() != Backend::cuda)
    throw nb::attribute_error(("__cuda_array_interface__ is for CUDA arrays; this one is on " +
                               self.device().spec() + " (use __dlpack__)").c_str());
  NativeMemory mem;
  {
    nb::gil_scoped_release unlocked;
    self.eval();
    if (!self.is_contiguous())
      throw InvalidArgument("__cuda_array_interface__ of a strided view: call .copy() first for a contiguous array");
    mem = native_memory(self);
    queue_wait_for(nullptr, self);
  }
  nb::dict d;
  nb::list shape;
  for (std::int64_t n : self.shape()) shape.append(n);
  d["shape"] = nb::tuple(shape);
  d["typestr"] = typestr(self.dtype());
  d["data"] = nb::make_tuple(reinterpret_cast<std::uintptr_t>(mem.handle) + mem.offset_bytes, false);
  d["strides"] = nb::none();
  d["version"] = 3;
  d["stream"] = nb::none();
  return d;
}

Array from_cuda_array_interface(nb::handle obj, nb::handle device) {
  nb::dict cai = nb::cast<nb::dict>(obj.attr("__cuda_array_interface__"));
  Shape shape = to_shape(cai["shape"]);
  DType t = from_typestr(nb::cast<std::string>(cai["typestr"]));
  std::uintptr_t ptr = nb::cast<std::uintptr_t>(nb::cast<nb::tuple>(cai["data"])[0]);
  std::vector<std::int64_t> strides;
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    for (nb::handle s : cai["strides"]) {
      std::int64_t b = nb::cast<std::int64_t>(s);
      if (b % static_cast<std::int64_t>(itemsize(t)) != 0)
        throw InvalidArgument("__cuda_array_interface__ stride of " + std::to_string(b) +
                              " bytes is not a multiple of the itemsize");
      strides.push_back(b / static_cast<std::int64_t>(itemsize(t)));
    }
  }
  std::intptr_t stream = 0;
  if (cai.contains("stream") && !cai["stream"].is_none()) stream = nb::cast<std::intptr_t>(cai["stream"]);
  Device d = device.is_none() ? current_device() : to_device(device);
  if (d.backend() != Backend::cuda) {
    nb::gil_scoped_release unlocked;
    d = porta::device("cuda");
  }
  auto owner = std::make_shared<PyRef>(obj);
  nb::gil_scoped_release unlocked;
  Array a = wrap_memory(ExternalMemory{reinterpret_cast<void*>(ptr), MemoryKind::device, 0}, t, std::move(shape),
                        std::move(strides), 0, d, [owner]() mutable { owner.reset(); });
  if (stream != 0) wait_for_queue(a, reinterpret_cast<void*>(stream));
  return a;
}

}  // namespace

void bind_interop(nb::module_& m) {
  nb::handle cls = nb::type<Array>();
  nb::cpp_function_def(&dlpack, nb::scope(cls), nb::name("__dlpack__"), nb::is_method(), nb::kw_only(),
                       nb::arg("stream") = nb::none(), nb::arg("max_version") = nb::none(),
                       nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none());
  nb::cpp_function_def([](const Array& a) { return dlpack_device(a.device()); }, nb::scope(cls),
                       nb::name("__dlpack_device__"), nb::is_method());
  nb::setattr(cls, "__cuda_array_interface__",
              nb::module_::import_("builtins").attr("property")(nb::cpp_function(&cuda_array_interface)));
  m.def("_from_dlpack_capsule", &from_capsule, nb::arg("capsule"), nb::arg("host_device").none());
  m.def("_from_cuda_array_interface", &from_cuda_array_interface, nb::arg("obj"), nb::arg("device").none());
  m.def("_native_queue", [](nb::handle device) {
    Device d = to_device(device);
    nb::gil_scoped_release unlocked;
    return reinterpret_cast<std::uintptr_t>(native_queue(d));
  }, nb::arg("device").none(), "This thread's CUstream / cl_command_queue on the device, as an int.");
}

}  // namespace porta::python
