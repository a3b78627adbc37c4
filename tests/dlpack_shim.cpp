// A C interface to porta's DLPack export and import for tests/dlpack_peers.py, which exchanges
// tensors with PyTorch and CuPy through ctypes (PyCapsules) on the GPU host, before and beside
// the Python package. Errors come back as text from porta_shim_error().
#include <porta/dlpack.hpp>
#include <porta/interop.hpp>
#include <porta/porta.hpp>

#include <cstdint>
#include <string>

namespace {

thread_local std::string t_error;

template <class F>
auto guarded(F&& f, decltype(f()) fallback) -> decltype(f()) {
  try {
    t_error.clear();
    return f();
  } catch (const std::exception& e) {
    t_error = e.what();
    return fallback;
  }
}

porta::DLPackExport export_options(long long stream) {
  porta::DLPackExport o;
  if (stream == -1) o.synchronize = false;  // __dlpack__(stream=-1): the consumer orders
  else o.consumer_queue = reinterpret_cast<void*>(static_cast<std::intptr_t>(stream));  // 0, 1, 2 or a stream
  return o;
}

}  // namespace

extern "C" {

const char* porta_shim_error() { return t_error.c_str(); }

// A porta array of n float32 values 0, 1, 2, ... on `spec`; an opaque handle that keeps it.
void* porta_shim_arange(const char* spec, long long n) {
  return guarded([&]() -> void* {
    auto* a = new porta::Array(porta::arange(0.0, static_cast<double>(n), 1.0, porta::DType::float32, porta::device(spec)));
    a->eval();
    return a;
  }, nullptr);
}

// The array as a DLPack tensor for a consumer on `stream` (Python's __dlpack__ rules); versioned:
// a DLManagedTensorVersioned*, else a DLManagedTensor*.
void* porta_shim_export(void* handle, long long stream, int versioned) {
  return guarded([&]() -> void* {
    const auto& a = *static_cast<porta::Array*>(handle);
    if (versioned) return porta::to_dlpack(a, export_options(stream));
    return porta::to_dlpack_legacy(a, export_options(stream));
  }, nullptr);
}

// A porta array over a producer's tensor, ordered after `producer_stream` (0: none).
void* porta_shim_import(void* managed, int versioned, long long producer_stream) {
  return guarded([&]() -> void* {
    porta::DLPackImport o;
    o.producer_queue = reinterpret_cast<void*>(static_cast<std::intptr_t>(producer_stream));
    porta::Array a = versioned ? porta::from_dlpack(static_cast<DLManagedTensorVersioned*>(managed), o)
                               : porta::from_dlpack(static_cast<DLManagedTensor*>(managed), o);
    return new porta::Array(std::move(a));
  }, nullptr);
}

// The address of element 0 (a CUdeviceptr on CUDA), for pointer-equality checks.
unsigned long long porta_shim_pointer(void* handle) {
  return guarded([&]() -> unsigned long long {
    porta::NativeMemory m = porta::native_memory(*static_cast<porta::Array*>(handle));
    return reinterpret_cast<std::uintptr_t>(m.handle) + m.offset_bytes;
  }, 0);
}

double porta_shim_sum(void* handle) {
  return guarded([&] { return porta::sum(static_cast<porta::Array*>(handle)->astype(porta::DType::float64)).item<double>(); },
                 -1.0);
}

// v = -v in place through a RawKernel (CUDA C++), then waits for it.
int porta_shim_negate(void* handle) {
  return guarded([&] {
    const auto& a = *static_cast<porta::Array*>(handle);
    porta::RawKernel neg(porta::Backend::cuda, R"(extern "C" __global__ void neg(float* v, long long n) {
      long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; if (i < n) v[i] = -v[i]; })", "neg");
    std::int64_t n = a.size();
    neg({static_cast<unsigned>((n + 255) / 256)}, {256}, {a, n});
    porta::synchronize(a.device());
    return 0;
  }, 1);
}

void porta_shim_release(void* handle) { delete static_cast<porta::Array*>(handle); }

}  // extern "C"
