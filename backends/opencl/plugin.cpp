// The OpenCL backend: every device of every platform the ICD loader knows, one cl_context per
// device, and the plugin's exported entry point.
#include <algorithm>
#include <CL/cl_ext.h>

#include "porta_backend/log.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {
namespace {

// ocl-icd's loader query, reached through clGetExtensionFunctionAddress where the loader has it.
using LoaderInfoFn = cl_int (*)(cl_uint, std::size_t, void*, std::size_t*);
constexpr cl_uint kIcdlVersion = 2, kIcdlName = 3, kIcdlVendor = 4;

std::string loader_version() {
  // Only the deprecated, platform-less lookup reaches the loader's own functions.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  auto fn = reinterpret_cast<LoaderInfoFn>(clGetExtensionFunctionAddress("clGetICDLoaderInfoOCLICD"));
#pragma GCC diagnostic pop
  if (!fn) return {};
  auto query = [&](cl_uint what) {
    char buf[256] = {};
    return fn(what, sizeof buf - 1, buf, nullptr) == CL_SUCCESS ? std::string(buf) : std::string();
  };
  std::string name = query(kIcdlName), version = query(kIcdlVersion), vendor = query(kIcdlVendor);
  if (name.empty()) return {};
  return detail::cat(name, " ", version, vendor.empty() ? std::string() : " (" + vendor + ")");
}

std::vector<cl_platform_id> platforms() {
  cl_uint count = 0;
  cl_int status = clGetPlatformIDs(0, nullptr, &count);
  if (status == CL_PLATFORM_NOT_FOUND_KHR || (status == CL_SUCCESS && count == 0))
    throw BackendUnavailable(detail::cat("no OpenCL platform: clGetPlatformIDs returned ", describe(status),
                                         "; install pocl-opencl-icd or a GPU driver's ICD (/etc/OpenCL/vendors)"));
  if (status != CL_SUCCESS)
    throw BackendUnavailable(detail::cat("the OpenCL ICD loader failed: clGetPlatformIDs returned ", describe(status)));
  std::vector<cl_platform_id> ids(count);
  PORTA_CL(clGetPlatformIDs(count, ids.data(), nullptr));
  return ids;
}

std::vector<cl_device_id> devices_of(cl_platform_id p) {
  cl_uint count = 0;
  cl_int status = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
  if (status == CL_DEVICE_NOT_FOUND || count == 0) return {};
  if (status != CL_SUCCESS) throw_error(status, "clGetDeviceIDs");
  std::vector<cl_device_id> ids(count);
  PORTA_CL(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr));
  return ids;
}

class Backend final : public detail::BackendImpl {
 public:
  Backend() {
    std::vector<std::string> skipped;
    std::vector<std::string> platform_text;
    for (cl_platform_id p : platforms()) {
      try {
        add_platform(p, skipped, platform_text);
      } catch (const std::exception& e) {
        skipped.push_back(detail::cat("a platform: ", e.what()));
      }
    }
    for (auto& s : skipped) PORTA_LOG(warn, "OpenCL device skipped: ", s);
    std::string loader = loader_version();
    version_ = detail::cat(loader.empty() ? std::string() : "ICD loader: " + loader + "; ",
                           "platforms: ", detail::join(platform_text, ", "));
    if (devices_.empty())
      throw BackendUnavailable(detail::cat("no usable OpenCL device (", version_,
                                           skipped.empty() ? std::string() : "; " + detail::join(skipped, "; "),
                                           "); install pocl-opencl-icd or a GPU driver's ICD"));
  }

  // CLBlast's program caches are not cleared here: at process exit they may already have been
  // destroyed (clblast::ClearCache() then frees twice). A cached program only keeps its context
  // alive until CLBlast itself is unloaded.
  ~Backend() override = default;

  porta::Backend kind() const override { return porta::Backend::opencl; }
  std::string version() const override { return version_; }
  const std::vector<std::shared_ptr<detail::DeviceImpl>>& devices() const override { return devices_; }
  std::string notes() const override {
    return "OpenCL matmul paths (PORTA_OPENCL_GEMM), where each applies:\n"
           "  tensor cores  float16, bfloat16, float64, and float32 with PORTA_MATMUL=tf32: NVIDIA's OpenCL,\n"
           "                compute capability 8.0+ (float64 9.0+); auto takes them there (mma forces them,\n"
           "                emulated elsewhere: a test, not a fast path)\n"
           "  tiled         every dtype on every OpenCL device: GPUs without tensor cores, float32 without TF32\n"
           "  host          float32 and float64 on CPU devices with host memory (auto there)\n"
           "  clblast       float32 and float64 where porta was built with CLBlast (only when asked for)\n";
  }

 private:
  // Adds the usable devices of platform `p`; says in `skipped` why any other is left out.
  void add_platform(cl_platform_id p, std::vector<std::string>& skipped, std::vector<std::string>& platform_text) {
    std::string pname = platform_string(p, CL_PLATFORM_NAME);
    platform_text.push_back(detail::cat(pname, " (", platform_string(p, CL_PLATFORM_VERSION), ")"));
    for (cl_device_id d : devices_of(p)) {
      std::string dname = device_string(d, CL_DEVICE_NAME);
      if (!device_value<cl_bool>(d, CL_DEVICE_AVAILABLE)) {
        skipped.push_back(detail::cat(dname, " (", pname, "): not available"));
        continue;
      }
      if (!device_value<cl_bool>(d, CL_DEVICE_COMPILER_AVAILABLE)) {
        skipped.push_back(detail::cat(dname, " (", pname, "): has no OpenCL C compiler"));
        continue;
      }
      cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(p), 0};
      cl_int status = CL_SUCCESS;
      cl_context ctx = clCreateContext(props, 1, &d, nullptr, nullptr, &status);
      if (status != CL_SUCCESS) {
        skipped.push_back(detail::cat(dname, " (", pname, "): clCreateContext returned ", describe(status)));
        continue;
      }
      try {
        devices_.push_back(std::make_shared<Device>(static_cast<int>(devices_.size()), p, d, ctx));
      } catch (const std::exception& e) {
        // The device owns the context only once its constructor has finished.
        clReleaseContext(ctx);
        skipped.push_back(detail::cat(dname, " (", pname, "): ", e.what()));
      }
    }
  }

  std::vector<std::shared_ptr<detail::DeviceImpl>> devices_;
  std::string version_;
};

// `self` is porta::Backend::opencl, the value the public enum names it by (the registry checks kind()).
std::unique_ptr<detail::BackendImpl> create_backend(porta::Backend /*self*/) { return std::make_unique<Backend>(); }

}  // namespace
}  // namespace porta::opencl

extern "C" __attribute__((visibility("default"))) const porta::detail::PluginEntry* porta_plugin_entry() {
  // Name and install hint from its porta_add_backend call (cmake/PortaBackends.cmake).
  static const porta::detail::PluginEntry entry{porta::detail::kBackendApiVersion, PORTA_PLUGIN_NAME, PORTA_PLUGIN_INSTALL_HINT,
                                                &porta::opencl::create_backend};
  return &entry;
}
