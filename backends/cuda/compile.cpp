// Run-time compilation: NVRTC turns CUDA C++ into a cubin for the device's own architecture
// (sm_90 on an H200), the driver loads it into the device's primary context, and a Kernel is
// one function of the loaded module.
#include <algorithm>
#include <cctype>
#include <optional>
#include <nvrtc.h>

#include "porta_backend/services.hpp"
#include "cuda/cuda.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {
namespace {

struct Program {
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p) nvrtcDestroyProgram(&p);
  }
};

// The real architectures this NVRTC can emit cubins for, ascending (75, 80, ... 120).
const std::vector<int>& supported_archs() {
  static const std::vector<int> archs = [] {
    std::vector<int> out;
    int count = 0;
    if (nvrtcGetNumSupportedArchs(&count) == NVRTC_SUCCESS && count > 0) {
      out.resize(static_cast<std::size_t>(count));
      if (nvrtcGetSupportedArchs(out.data()) != NVRTC_SUCCESS) out.clear();
    }
    std::sort(out.begin(), out.end());
    return out;
  }();
  return archs;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "?";
  return detail::cat(major, ".", minor);
}

bool has_option(const std::vector<std::string>& options, std::initializer_list<const char*> prefixes) {
  for (const auto& o : options)
    for (const char* p : prefixes)
      if (o.rfind(p, 0) == 0) return true;
  return false;
}

std::string program_log(nvrtcProgram p) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(p, &size) != NVRTC_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(p, log.data()) != NVRTC_SUCCESS) return {};
  log.resize(size - 1);  // the terminating NUL
  return log;
}

// Programmatic dependent launch (sm_90+): a kernel launched with programmatic stream serialization
// may start while the kernel before it on the stream drains, and must wait for it
// (griddepcontrol.wait, which returns once that grid has completed and its memory is visible)
// before it touches memory; launch_dependents then lets the next such kernel start. porta's own
// kernels begin with both, the wait first. Without the attribute the wait returns at once.
// A replayed CUDA graph of 10 adds of 1024 float32 on the H200 (scripts/dev/graph_probe.cpp,
// 2026-12-04): 1.07-1.08 us an add launched plainly, 0.78-0.79 with the wait and the attribute
// (PyTorch's replay 1.05-1.07).
constexpr const char* kGridDependency =
    "\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n"
    "  asm volatile(\"griddepcontrol.wait;\\n\\tgriddepcontrol.launch_dependents;\" ::: \"memory\");\n#endif\n";

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `source` with kGridDependency first in the body of the function named `entry` (the name, its
// parameter list, then `{`); null where no such definition is found, or more than one: which of
// them the preprocessor keeps is not known here, and a kernel launched programmatically without
// the wait reads what the kernel before it has not finished writing (porta's dense solvers once
// held every kernel under `#if KIND`, and their blocked factorizations came out wrong on an H100).
std::optional<std::string> with_grid_dependency(const std::string& source, const std::string& entry) {
  if (entry.empty()) return std::nullopt;
  std::optional<std::string> found;
  for (std::size_t at = source.find(entry); at != std::string::npos; at = source.find(entry, at + 1)) {
    std::size_t p = at + entry.size();
    if ((at > 0 && identifier_char(source[at - 1])) || (p < source.size() && identifier_char(source[p]))) continue;
    while (p < source.size() && std::isspace(static_cast<unsigned char>(source[p]))) ++p;
    if (p == source.size() || source[p] != '(') continue;
    int depth = 0;
    for (; p < source.size(); ++p) {
      if (source[p] == '(') ++depth;
      else if (source[p] == ')' && --depth == 0) break;
    }
    if (p == source.size()) return std::nullopt;
    ++p;
    while (p < source.size() && std::isspace(static_cast<unsigned char>(source[p]))) ++p;
    if (p < source.size() && source[p] == '{') {
      if (found) return std::nullopt;
      found = std::string(source).insert(p + 1, kGridDependency);
    }
  }
  return found;
}

}  // namespace

std::string nvrtc_version_text() { return nvrtc_version(); }

std::optional<std::string> Device::ordered_source(const detail::KernelSource& src) const {
  if (src.user_code || cc_major_ < 9) return std::nullopt;
  auto ordered = with_grid_dependency(src.source, src.entry);
  if (!ordered) PORTA_LOG(debug, label(), ": no single definition of '", src.entry, "' found (none, or several under preprocessor switches); launched without programmatic serialization");
  return ordered;
}

Module::~Module() {
  if (ctx_->make_current_noexcept()) log_failure(cuModuleUnload(module_), "cuModuleUnload", ctx_->label());
}

namespace {

// cuFuncGetParamInfo came with CUDA 12.4: looked up at run time, so that the plugin still opens
// on older drivers (it is linked with RTLD_NOW).
using ParamInfoFn = CUresult (*)(CUfunction, std::size_t, std::size_t*, std::size_t*);
ParamInfoFn param_info_fn() {
  static const ParamInfoFn fn = [] {
    void* p = nullptr;
    CUdriverProcAddressQueryResult found{};
    if (cuGetProcAddress("cuFuncGetParamInfo", &p, 12040, CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS ||
        found != CU_GET_PROC_ADDRESS_SUCCESS)
      return ParamInfoFn{nullptr};
    return reinterpret_cast<ParamInfoFn>(p);
  }();
  return fn;
}

std::optional<std::vector<detail::KernelParam>> read_params(CUfunction function) {
  ParamInfoFn info = param_info_fn();
  if (!info) return std::nullopt;
  std::vector<detail::KernelParam> out;
  for (std::size_t i = 0;; ++i) {
    std::size_t offset = 0, size = 0;
    CUresult r = info(function, i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) return out;  // past the last parameter
    if (r != CUDA_SUCCESS) return std::nullopt;     // an older driver: cannot tell
    detail::KernelParam p;
    p.size = size;
    out.push_back(p);
  }
}

}  // namespace

Kernel::Kernel(std::shared_ptr<Module> module, const std::string& entry, const std::string& source)
    : module_(std::move(module)), entry_(entry) {
  CUresult r = cuModuleGetFunction(&function_, module_->native(), entry.c_str());
  if (r == CUDA_SUCCESS) {
    params_ = read_params(function_);
    return;
  }
  if (r != CUDA_ERROR_NOT_FOUND) throw_error(r, "cuModuleGetFunction", module_->context().label());
  // List what the module does have: a C++ kernel's name is mangled unless it is extern "C".
  std::vector<std::string> names;
  unsigned count = 0;
  if (cuModuleGetFunctionCount(&count, module_->native()) == CUDA_SUCCESS && count > 0) {
    std::vector<CUfunction> functions(count);
    if (cuModuleEnumerateFunctions(functions.data(), count, module_->native()) == CUDA_SUCCESS)
      for (CUfunction f : functions) {
        const char* name = nullptr;
        if (cuFuncGetName(&name, f) == CUDA_SUCCESS && name) names.emplace_back(name);
      }
  }
  std::string message = detail::cat(
      module_->context().label(), ": the compiled program has no kernel named '", entry,
      "'. Kernels are looked up by their symbol name: declare the kernel extern \"C\" __global__, or give its mangled "
      "name. The program's kernels are: ",
      names.empty() ? std::string("(none)") : detail::join(names, ", "), "\nSource:\n", detail::number_lines(source));
  throw CompileError(message, "", source);
}


void Kernel::reserve_shared_memory(std::size_t bytes) {
  if (bytes <= shared_limit_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(shared_m_);
  if (bytes <= shared_limit_.load(std::memory_order_relaxed)) return;
  PORTA_CU_AT(module_->context().label(),
              cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(bytes)));
  shared_limit_.store(bytes, std::memory_order_release);
}

std::shared_ptr<Module> Device::build(const std::string& source, const std::string& entry,
                                      const std::vector<std::string>& given) {
  auto building = detail::enter_build(label(), entry);
  std::vector<std::string> options = given;
  int arch = cc_major_ * 10 + cc_minor_;
  if (!has_option(options, {"-arch", "--gpu-architecture"})) {
    const auto& archs = supported_archs();
    if (std::find(archs.begin(), archs.end(), arch) != archs.end()) {
      options.push_back(detail::cat("--gpu-architecture=sm_", arch));
    } else if (!archs.empty() && arch > archs.back()) {
      // A GPU newer than this NVRTC: PTX for the newest architecture it knows, which the
      // driver compiles for the device when it loads the module.
      options.push_back(detail::cat("--gpu-architecture=compute_", archs.back()));
      PORTA_LOG(info, label(), ": NVRTC ", nvrtc_version(), " does not know sm_", arch, "; compiling PTX for compute_",
                archs.back());
    } else {
      throw DeviceError(detail::cat(label(), " (", info_.name, ", sm_", arch, "): NVRTC ", nvrtc_version(),
                                    " cannot compile for this GPU",
                                    archs.empty() ? std::string() : detail::cat(" (it supports sm_", archs.front(), " and newer)"),
                                    ". Use a CUDA toolkit that supports the GPU"));
    }
  }
  if (!has_option(options, {"-std", "--std"})) options.emplace_back("-std=c++17");

  Program program;
  std::string file = detail::cat(entry.empty() ? std::string("kernel") : entry, ".cu");
  PORTA_NVRTC(nvrtcCreateProgram(&program.p, source.c_str(), file.c_str(), 0, nullptr, nullptr));
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  nvrtcResult result = nvrtcCompileProgram(program.p, static_cast<int>(argv.size()), argv.data());
  std::string log = program_log(program.p);
  if (result != NVRTC_SUCCESS) {
    std::string message = detail::cat("NVRTC ", nvrtc_version(), " could not compile '", entry, "' for ", label(), " (",
                                      info_.name, ", sm_", arch, "): ", describe(result),
                                      "\nOptions: ", detail::join(options, " "), "\nLog:\n", log, "\nSource:\n",
                                      detail::number_lines(source));
    throw CompileError(message, log, source);
  }
  if (!log.empty()) PORTA_LOG(debug, "NVRTC messages for ", entry, " on ", label(), ":\n", log);
  static std::once_flag first_build;  // see base/exit_guard.hpp
  std::call_once(first_build, [] { detail::watch_exit(); });

  // A cubin when compiled for a real architecture (sm_XY), else PTX (compute_XY).
  std::string image;
  std::size_t size = 0;
  if (nvrtcGetCUBINSize(program.p, &size) == NVRTC_SUCCESS && size > 0) {
    image.resize(size);
    PORTA_NVRTC(nvrtcGetCUBIN(program.p, image.data()));
  } else {
    PORTA_NVRTC(nvrtcGetPTXSize(program.p, &size));
    image.resize(size);
    PORTA_NVRTC(nvrtcGetPTX(program.p, image.data()));
  }

  return load_image(std::move(image), entry);
}

std::shared_ptr<Module> Device::load_image(std::string image, const std::string& entry) {
  ctx_->make_current();
  char jit_log[8192] = {};
  CUjit_option jit_options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* jit_values[] = {jit_log, reinterpret_cast<void*>(static_cast<std::uintptr_t>(sizeof jit_log))};
  CUmodule module = nullptr;
  CUresult r = cuModuleLoadDataEx(&module, image.data(), 2, jit_options, jit_values);
  if (r != CUDA_SUCCESS) {
    std::string why = jit_log[0] ? detail::cat(": ", jit_log) : std::string();
    throw DeviceError(detail::cat(label(), ": cuModuleLoadDataEx failed for '", entry, "': ", describe(r), why,
                                  r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION || r == CUDA_ERROR_NO_BINARY_FOR_GPU
                                      ? ". The driver is older than NVRTC " + nvrtc_version() + ": update the NVIDIA driver"
                                      : std::string()));
  }
  return std::make_shared<Module>(ctx_, module, std::move(image));
}

std::shared_ptr<detail::Kernel> Device::compile(const detail::KernelSource& src) {
  const std::optional<std::string> ordered = ordered_source(src);
  auto module = build(ordered ? *ordered : src.source, src.entry, src.options);
  auto kernel = std::make_shared<Kernel>(std::move(module), src.entry, ordered ? *ordered : src.source);
  kernel->set_programmatic(ordered.has_value());
  return kernel;
}

std::vector<std::uint8_t> Kernel::binary() const {
  const std::string& image = module_->image();
  return {image.begin(), image.end()};
}

std::shared_ptr<detail::Kernel> Device::load_binary(const detail::KernelSource& src, std::span<const std::uint8_t> binary) {
  try {
    // The binary was built from ordered_source's text when there is one (the disk cache's key
    // holds the source, the compiler id and whether it is a user's).
    auto module = load_image(std::string(binary.begin(), binary.end()), src.entry);
    auto kernel = std::make_shared<Kernel>(std::move(module), src.entry, src.source);
    kernel->set_programmatic(ordered_source(src).has_value());
    return kernel;
  } catch (const Error& e) {
    PORTA_LOG(info, label(), ": cached binary of '", src.entry, "' not loaded (", e.what(), ")");
    return nullptr;
  }
}

std::string Device::compiler_id() const {
  // "grid dependency": porta's kernels begin with kGridDependency (binaries cached before it lack it).
  return detail::cat("NVRTC ", nvrtc_version(), ", driver ", info_.driver_version, ", ", info_.arch,
                     cc_major_ >= 9 ? ", grid dependency" : "");
}

}  // namespace porta::cuda
