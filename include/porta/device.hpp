// Backends, devices, and how a thread chooses the device its work runs on.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <porta/dtype.hpp>

namespace porta {

// A kind of backend. The enumerators are the backends porta ships, in its default order of
// preference; they keep their values. A plugin of any other kind (libporta_<name>.so in
// PORTA_PLUGIN_PATH or beside libporta) is given a value of its own, after these, when porta
// loads it: name(b) gives the name the plugin declares, device specs use it ("fake:0"), and
// PORTA_BACKEND takes it. Values are not names: compare with the value of a device or a
// BackendStatus, never with a number. (Chosen over a name string in place of the enum so that
// existing code, switch statements and the Python binding's names keep working, and over a
// registry of fixed numbers so that nobody must hand out values: the plugin declares its name.)
enum class Backend : std::uint8_t { cuda, opencl, kokkos };
enum class DeviceKind : std::uint8_t { gpu, cpu, accelerator, other };

// The backend's name as its plugin declares it ("cuda"; "?" for a value no backend has).
std::string_view name(Backend b);
std::string_view name(DeviceKind k);

namespace detail {
class DeviceImpl;
}

struct BackendStatus {
  Backend backend;
  bool built = false;        // the plugin was built with this copy of porta
  bool loaded = false;       // the plugin opened and its driver answered
  int device_count = 0;
  std::string plugin_path;   // the file porta tried to open
  std::string reason;        // why it is not loaded (dlerror text, missing driver), else empty
  std::string version;       // driver / runtime version reported by the backend
  std::string notes;         // what the backend tells about itself for porta-info (OpenCL: its matmul paths); may be empty
};

// One device of one backend. Cheap to copy; compares equal when it is the same device.
class Device {
 public:
  Device() = default;  // no device; valid() is false

  bool valid() const { return impl_ != nullptr; }
  Backend backend() const;
  int index() const;               // within its backend
  std::string spec() const;        // "opencl:1", "cuda:0", "kokkos:0"
  std::string name() const;
  std::string vendor() const;
  std::string platform() const;    // OpenCL platform name; the backend's name elsewhere
  std::string driver_version() const;
  DeviceKind kind() const;
  std::uint64_t memory_bytes() const;
  // Local (OpenCL) or shared (CUDA, the opt-in maximum) memory one work-group or block may use;
  // 0 where kernels take none (Kokkos). RawKernel launches are checked against it.
  std::uint64_t max_local_bytes() const;
  int compute_units() const;
  // PCI bus id "0000:3b:00.0" when the driver tells it; the same GPU seen through CUDA and OpenCL
  // reports the same id. Empty for CPU devices and drivers that do not say.
  std::string pci_bus_id() const;
  std::string matmul_path() const;  // how matmul runs here: "cuBLAS", "host BLAS (OpenBLAS) on zero-copy mapped memory", ...
  std::string solver_path() const;  // how porta::linalg's decompositions run here ("cuSOLVER", ...); empty: none
  bool supports(DType t) const;    // can arrays of this dtype live and compute here
  bool compiles_at_runtime() const;  // ElementwiseKernel and RawKernel need this

  friend bool operator==(const Device& a, const Device& b) { return a.impl_ == b.impl_; }
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }

  // Internal: the backend object behind the device.
  detail::DeviceImpl& impl() const;
  explicit Device(std::shared_ptr<detail::DeviceImpl> impl) : impl_(std::move(impl)) {}

 private:
  std::shared_ptr<detail::DeviceImpl> impl_;
};

// Every backend porta knows, built or not, with why it is not loaded.
std::vector<BackendStatus> backends();
// Every device of every loaded backend allowed by PORTA_BACKEND, in preference order.
std::vector<Device> devices();
// "cuda:0", "opencl:1", "kokkos", "opencl" (that backend's first GPU, else its first device, as
// for the default device), "gpu" (the first GPU), "cpu".
// Throws DeviceError listing the devices that exist when nothing matches.
Device device(std::string_view spec);
// PORTA_DEVICE if set, else the first of: a CUDA GPU, an OpenCL GPU, an OpenCL CPU device, Kokkos.
Device default_device();
// This thread's device: the innermost DeviceScope, else default_device().
Device current_device();

// Makes `d` this thread's current device until the scope ends (cp.cuda.Device(i).use()).
class DeviceScope {
 public:
  explicit DeviceScope(Device d);
  explicit DeviceScope(std::string_view spec) : DeviceScope(device(spec)) {}
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  Device previous_;
  bool had_previous_;
};

// Waits until all work this thread queued on `d` has finished.
void synchronize(const Device& d);
// Waits for this thread's work on every device it used.
void synchronize();

}  // namespace porta
