// A backend of a kind porta does not name: "fake", one CPU device whose memory is host memory,
// no run-time compiler (plans run through the core's block interpreter, as on Kokkos), matmul by
// a plain loop. Built only for fake_backend_test, as libporta_fake.so in a folder of its own: the
// registry finds it through PORTA_PLUGIN_PATH, takes its name from its entry point and gives it a
// porta::Backend value of its own, with nothing in src/ changed. It declares only what it has
// (DeviceInfo::caps): no source language, addresses for handles, DLPack kDLCPU.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "porta_backend/services.hpp"

namespace fake {

using namespace porta;
using porta::detail::Handle;

// Work runs on the calling thread and is done when the call returns.
class Event final : public detail::EventImpl {
 public:
  bool done() override { return true; }
  void synchronize() override {}
  double elapsed_ms_since(detail::EventImpl&) override { return 0; }
};

class Queue final : public detail::QueueImpl {
 public:
  std::shared_ptr<detail::EventImpl> record(bool) override { return std::make_shared<Event>(); }
  void wait(detail::EventImpl&) override {}
  void synchronize() override {}
  void* native_handle() override { return nullptr; }
};

template <class T>
void matmul_loop(const detail::MatmulArgs& a) {
  for (std::int64_t b = 0; b < a.batch; ++b) {
    const T* A = static_cast<const T*>(a.a) + a.a_offset + b * a.stride_a;
    const T* B = static_cast<const T*>(a.b) + a.b_offset + b * a.stride_b;
    T* C = static_cast<T*>(a.c) + a.c_offset + b * a.stride_c;
    for (std::int64_t i = 0; i < a.m; ++i)
      for (std::int64_t j = 0; j < a.n; ++j) {
        T s = 0;
        for (std::int64_t p = 0; p < a.k; ++p)
          s += (a.trans_a ? A[p * a.lda + i] : A[i * a.lda + p]) * (a.trans_b ? B[j * a.ldb + p] : B[p * a.ldb + j]);
        C[i * a.ldc + j] = s;
      }
  }
}

class Device final : public detail::DeviceImpl {
 public:
  explicit Device(Backend self) : DeviceImpl(self, 0) {
    info_.name = "fake host device";
    info_.vendor = "porta tests";
    info_.platform = "fake";
    info_.driver_version = "1.0";
    info_.arch = "host";
    info_.kind = DeviceKind::cpu;
    info_.memory_bytes = info_.max_alloc_bytes = std::uint64_t{1} << 30;
    info_.compute_units = 1;
    for (DType t : all_dtypes()) info_.dtypes[static_cast<int>(t)] = detail::core_computes(t);
    info_.dialect = detail::Dialect::none;
    info_.host_memory = true;
    info_.matmul = "a plain loop (float32, float64)";
    info_.caps.handles_are_addresses = true;
    info_.caps.dlpack_device_type = 1;  // kDLCPU
  }

  const detail::DeviceInfo& info() const override { return info_; }
  std::shared_ptr<detail::QueueImpl> create_queue() override { return std::make_shared<Queue>(); }

  Handle allocate(std::size_t bytes, detail::QueueImpl&) override {
    void* p = std::aligned_alloc(256, std::max<std::size_t>((bytes + 255) / 256 * 256, 256));
    if (!p) throw OutOfMemory(detail::cat("fake:0: ", bytes, " bytes"), bytes, info_.memory_bytes);
    return p;
  }
  void deallocate(Handle h, std::size_t, detail::QueueImpl*) noexcept override { std::free(h); }

  void write(detail::QueueImpl&, Handle dst, std::size_t off, const void* src, std::size_t bytes) override {
    std::memcpy(static_cast<char*>(dst) + off, src, bytes);
  }
  void read(detail::QueueImpl&, Handle src, std::size_t off, void* dst, std::size_t bytes) override {
    std::memcpy(dst, static_cast<const char*>(src) + off, bytes);
  }
  void copy(detail::QueueImpl&, Handle src, std::size_t so, Handle dst, std::size_t d_o, std::size_t bytes) override {
    std::memmove(static_cast<char*>(dst) + d_o, static_cast<const char*>(src) + so, bytes);
  }
  void fill(detail::QueueImpl&, Handle dst, std::size_t off, const void* pattern, std::size_t size, std::size_t bytes) override {
    char* p = static_cast<char*>(dst) + off;
    for (std::size_t i = 0; i < bytes; i += size) std::memcpy(p + i, pattern, std::min(size, bytes - i));
  }
  void* map(detail::QueueImpl&, Handle h, std::size_t) override { return h; }
  void unmap(detail::QueueImpl&, Handle, void*) override {}
  void* host_address(Handle h) override { return h; }
  Imported import_memory(void* native, MemoryKind, std::size_t, std::size_t) override { return detail::aligned_import(native); }

  void execute(detail::QueueImpl&, const detail::ElementwisePlan& plan) override {
    std::int64_t total = 1;
    for (std::int64_t s : plan.shape) total *= s;
    if (total > 0) detail::interpret_elementwise(plan, 0, total);
  }
  void execute(detail::QueueImpl&, const detail::ReductionPlan& plan) override {
    if (plan.outer * plan.inner > 0) detail::interpret_reduction(plan, 0, plan.outer * plan.inner);
  }
  void matmul(detail::QueueImpl&, const detail::MatmulArgs& a) override {
    if (a.dtype == DType::float32) return matmul_loop<float>(a);
    if (a.dtype == DType::float64) return matmul_loop<double>(a);
    throw DTypeError(detail::cat("fake:0: matmul of ", name(a.dtype), " (float32 and float64 only)"));
  }

 private:
  detail::DeviceInfo info_;
};

class Backend final : public detail::BackendImpl {
 public:
  explicit Backend(porta::Backend self) : self_(self) { devices_.push_back(std::make_shared<Device>(self)); }
  porta::Backend kind() const override { return self_; }
  std::string version() const override { return "fake backend 1.0"; }
  std::string notes() const override { return "fake backend: a test's plugin of a fourth kind (tests/fake_backend.cpp)\n"; }
  const std::vector<std::shared_ptr<detail::DeviceImpl>>& devices() const override { return devices_; }

 private:
  porta::Backend self_;
  std::vector<std::shared_ptr<detail::DeviceImpl>> devices_;
};

std::unique_ptr<detail::BackendImpl> create(porta::Backend self) { return std::make_unique<Backend>(self); }

}  // namespace fake

extern "C" __attribute__((visibility("default"))) const porta::detail::PluginEntry* porta_plugin_entry() {
  static const porta::detail::PluginEntry entry{porta::detail::kBackendApiVersion, "fake", "nothing: it runs on the host",
                                                &fake::create};
  return &entry;
}
