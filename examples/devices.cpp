// Is there a GPU, and which device am I on? (Python: torch.cuda.is_available(),
// torch.cuda.get_device_name(), tf.config.list_physical_devices('GPU').) porta::backends() says
// which backends were built and loaded and why not; porta::devices() lists every device;
// porta::default_device() is the one work goes to (PORTA_DEVICE, PORTA_BACKEND choose).
// The command-line tool porta-info prints the same and more.
#include <cstdio>
#include <exception>
#include <string>

#include <porta/porta.hpp>

int main() try {
  std::printf("backends:\n");
  for (const porta::BackendStatus& b : porta::backends()) {
    const std::string name(porta::name(b.backend));
    if (b.loaded)
      std::printf("  %-7s loaded, %d device(s), %s\n", name.c_str(), b.device_count, b.version.c_str());
    else if (b.built)
      std::printf("  %-7s unavailable: %s\n", name.c_str(), b.reason.c_str());
    else
      std::printf("  %-7s %s\n", name.c_str(), b.reason.c_str());  // "not built: ..."
  }

  const auto devices = porta::devices();
  bool gpu = false;
  std::printf("devices:\n");
  for (const porta::Device& d : devices) {
    gpu = gpu || d.kind() == porta::DeviceKind::gpu;
    std::printf("  %-9s %-4s %s (%s), %.1f GiB, %d compute units%s\n", d.spec().c_str(),
                std::string(porta::name(d.kind())).c_str(), d.name().c_str(), d.vendor().c_str(),
                double(d.memory_bytes()) / (1u << 30), d.compute_units(),
                d.compiles_at_runtime() ? "" : ", no run-time kernels");
  }
  std::printf("GPU available: %s\n", gpu ? "yes" : "no");
  if (devices.empty()) {
    std::fprintf(stderr, "FAIL: no devices: every backend is unavailable (see the reasons above)\n");
    return 1;
  }

  const porta::Device def = porta::default_device();
  std::printf("default device: %s (%s)\n", def.spec().c_str(), def.name().c_str());
  bool listed = false;
  for (const auto& d : devices) listed = listed || d == def;
  if (!listed || porta::current_device() != def) {
    std::fprintf(stderr, "FAIL: the default device is not one of porta::devices() or not this thread's device\n");
    return 1;
  }
  std::printf("OK\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "FAIL: %s\n", e.what());
  return 1;
}
