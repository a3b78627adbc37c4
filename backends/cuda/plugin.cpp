// The plugin's entry point and the backend: initialises the driver, lists the devices, and says
// which driver, NVRTC and cuBLAS it runs on. A missing GPU or driver becomes BackendUnavailable.
#include <algorithm>
#include <cuda.h>

#include "cuda/cuda.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {
namespace {

const char* init_hint(CUresult r) {
  switch (r) {
    case CUDA_ERROR_NO_DEVICE:
      return ": no NVIDIA GPU is visible to this process (see nvidia-smi, and CUDA_VISIBLE_DEVICES if it is set)";
    case CUDA_ERROR_STUB_LIBRARY:
      return ": the CUDA toolkit's stub libcuda.so was loaded instead of the NVIDIA driver's libcuda.so.1; remove the "
             "toolkit's lib64/stubs directory from LD_LIBRARY_PATH";
    case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
      return ": the NVIDIA kernel driver and libcuda.so.1 do not match or are too old; install a matching, newer driver";
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
      return ": the GPU is in use by another process in exclusive mode, or unavailable";
    default:
      return "";
  }
}

std::string library_versions(int driver) {
  int major = 0, minor = 0, patch = 0;
  std::string blas = "?";
  if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
    blas = detail::cat(major, ".", minor, ".", patch);
  return detail::cat("CUDA driver ", format_cuda_version(driver), ", NVRTC ", nvrtc_version_text(), ", cuBLAS ", blas);
}

// `self` is porta::Backend::cuda, the value the public enum names it by (the registry checks kind()).
std::unique_ptr<detail::BackendImpl> create(porta::Backend /*self*/) { return std::make_unique<Backend>(); }

}  // namespace

Backend::Backend() {
  CUresult r = cuInit(0);
  if (r != CUDA_SUCCESS) throw BackendUnavailable(detail::cat("cuInit failed: ", describe(r), init_hint(r)));
  int driver = 0;
  PORTA_CU(cuDriverGetVersion(&driver));
  // Code compiled by this toolkit's NVRTC, and its cuBLAS, need a driver of the same major version.
  if (driver / 1000 < CUDA_VERSION / 1000)
    throw BackendUnavailable(detail::cat("the NVIDIA driver supports CUDA ", format_cuda_version(driver),
                                         " but porta's CUDA backend was built with CUDA ", format_cuda_version(CUDA_VERSION),
                                         "; update the driver (or build porta with an older toolkit)"));
  int count = 0;
  PORTA_CU(cuDeviceGetCount(&count));
  if (count == 0) throw BackendUnavailable("the CUDA driver reports no device");
  for (int i = 0; i < count; ++i) {
    CUdevice dev = 0;
    PORTA_CU(cuDeviceGet(&dev, i));
    devices_.push_back(std::make_shared<Device>(dev, i, driver));
  }
  version_ = library_versions(driver);
  PORTA_LOG(debug, "cuda: ", version_, ", ", count, " device(s)");
}

}  // namespace porta::cuda

extern "C" __attribute__((visibility("default"))) const porta::detail::PluginEntry* porta_plugin_entry() {
  // Name and install hint from its porta_add_backend call (cmake/PortaBackends.cmake).
  static const porta::detail::PluginEntry entry{porta::detail::kBackendApiVersion, PORTA_PLUGIN_NAME, PORTA_PLUGIN_INSTALL_HINT,
                                                &porta::cuda::create};
  return &entry;
}
