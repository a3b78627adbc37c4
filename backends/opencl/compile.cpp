// Run-time compilation: clCreateProgramWithSource + clBuildProgram for the device, a CompileError
// with the build log and the numbered source on failure, and the per-kernel pool of cl_kernel
// objects that makes concurrent launches of one detail::Kernel safe. Program binaries for the disk
// cache: clGetProgramInfo(CL_PROGRAM_BINARIES) out, clCreateProgramWithBinary back in.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <shared_mutex>
#include <cstring>
#include <thread>

#include "porta_backend/services.hpp"
#include "porta_backend/log.hpp"
#include "opencl/opencl.hpp"
#include "opencl/pocl_lock.hpp"
#include "opencl/gemm/ptx_edit.hpp"

namespace porta::opencl {
namespace {

// PoCL (Debian's 3.1 here) can fail a build while another process writes the same program into
// its kernel cache, with no compiler diagnostics in the log, only "Device ... failed to build the
// program" (pocl/pocl#1480, with several MPI ranks; seen here once, 2026-12-05, in the 4-rank
// mpi_sum example on a cold cache). A failure like that is worth building again; one with a
// compiler's diagnostics is not.
bool transient_pocl_failure(const std::string& platform, const std::string& log) {
  return is_pocl(platform) && log.find("error") == std::string::npos &&
         log.find("failed to build the program") != std::string::npos;
}

std::string build_log(cl_program program, cl_device_id device) {
  std::size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) != CL_SUCCESS || size == 0)
    return {};
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) != CL_SUCCESS) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

std::string kernel_names(cl_program program) {
  std::size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string names(size, '\0');
  if (clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, size, names.data(), nullptr) != CL_SUCCESS) return {};
  while (!names.empty() && names.back() == '\0') names.pop_back();
  return names;
}

// Releases a program unless dismissed (the error paths of load_binary and rebuilt_from_ptx).
struct ProgramGuard {
  cl_program program;
  ~ProgramGuard() {
    if (program) clReleaseProgram(program);
  }
};

// The PTX of a program built for one device (NVIDIA's program binary), without trailing NULs; the
// program's context holds that one device, as each of porta's OpenCL contexts does (plugin.cpp).
std::string program_ptx(cl_program program, cl_int* status) {
  std::size_t size = 0;
  *status = clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
  if (*status != CL_SUCCESS || size == 0) return {};
  std::string ptx(size, '\0');
  unsigned char* data = reinterpret_cast<unsigned char*>(ptx.data());
  *status = clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr);
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

// Edits `ptx`: with `sm90a` the kSm90aMark comments become instructions, `.target sm_90`
// becomes sm_90a and the MMAs' final waits move up (gemm/ptx_edit.hpp's hoist_wgmma_waits); with
// maxnreg > 0 a `.maxnreg` directive follows each kernel's parameters.
// `why` says what was missing when it returns false.
bool edit_ptx(std::string& ptx, bool sm90a, int maxnreg, std::string& why) {
  if (ptx.find(".entry ") == std::string::npos) {
    why = "the program's binary is not PTX with kernels (the edit needs NVIDIA's OpenCL)";
    return false;
  }
  if (sm90a) {
    int marks = 0;
    const std::size_t mark = std::strlen(kSm90aMark);
    for (std::size_t at = ptx.find(kSm90aMark); at != std::string::npos; at = ptx.find(kSm90aMark, at), ++marks)
      ptx.erase(at, mark);
    const std::size_t target = ptx.find(".target sm_90");
    const char after = target == std::string::npos || target + 13 >= ptx.size() ? 'a' : ptx[target + 13];
    if (target == std::string::npos || !(after == ',' || after == '\n' || after == ' ')) {
      why = "its PTX has no '.target sm_90' line (the path needs NVIDIA's OpenCL on a device of compute capability 9.0)";
      return false;
    }
    if (marks == 0) {
      why = "its PTX has no marked instructions";
      return false;
    }
    ptx.insert(target + 13, 1, 'a');
    hoist_wgmma_waits(ptx);
  }
  if (maxnreg > 0) {
    const std::string directive = detail::cat("\n.maxnreg ", maxnreg);
    for (std::size_t at = ptx.find(".entry "); at != std::string::npos; at = ptx.find(".entry ", at)) {
      const std::size_t close = ptx.find(')', at);
      if (close == std::string::npos) {
        why = "a kernel's parameter list in its PTX does not end";
        return false;
      }
      ptx.insert(close + 1, directive);
      at = close;
    }
  }
  return true;
}

// A program built from `program`'s PTX edited by edit_ptx, or null with `why` set; `log` gets the
// new build's log (-cl-nv-verbose: ptxas's registers and spills).
cl_program rebuilt_from_ptx(cl_context context, cl_device_id device, cl_program program, bool sm90a, int maxnreg,
                            std::string& log, std::string& why) {
  cl_int status = CL_SUCCESS;
  std::string ptx = program_ptx(program, &status);
  if (status != CL_SUCCESS) {
    why = detail::cat("clGetProgramInfo(CL_PROGRAM_BINARIES) returned ", describe(status));
    return nullptr;
  }
  if (!edit_ptx(ptx, sm90a, maxnreg, why)) return nullptr;
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(ptx.c_str());
  std::size_t size = ptx.size() + 1;
  cl_int binary_status = CL_SUCCESS;
  ProgramGuard guard{clCreateProgramWithBinary(context, 1, &device, &size, &bytes, &binary_status, &status)};
  if (status != CL_SUCCESS || binary_status != CL_SUCCESS || guard.program == nullptr) {
    why = detail::cat("clCreateProgramWithBinary returned ", describe(status), ", binary status ", describe(binary_status));
    return nullptr;
  }
  status = clBuildProgram(guard.program, 1, &device, "-cl-nv-verbose", nullptr, nullptr);
  log = build_log(guard.program, device);
  if (status != CL_SUCCESS) {
    why = detail::cat("clBuildProgram of the edited PTX returned ", describe(status), "; log:\n", log);
    return nullptr;
  }
  cl_program built = guard.program;
  guard.program = nullptr;
  return built;
}


}  // namespace

namespace {

// The bytes a scalar of OpenCL C type `type` takes as an argument; 0 when it is not a plain
// scalar this table knows (vectors, structs, typedefs).
std::size_t scalar_size(std::string type) {
  if (type.rfind("unsigned ", 0) == 0) type.replace(0, 9, 1, 'u');  // "unsigned int" -> "uint"
  if (type == "char" || type == "uchar" || type == "bool") return 1;
  if (type == "short" || type == "ushort" || type == "half") return 2;
  if (type == "int" || type == "uint" || type == "float") return 4;
  if (type == "long" || type == "ulong" || type == "double" || type == "size_t" || type == "ptrdiff_t" ||
      type == "intptr_t" || type == "uintptr_t")
    return 8;
  return 0;
}

std::vector<KernelParam> read_params(cl_kernel k, cl_uint count) {
  std::vector<KernelParam> out(count);
  for (cl_uint i = 0; i < count; ++i) {
    cl_kernel_arg_address_qualifier aq = 0;
    if (clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, nullptr) != CL_SUCCESS) continue;
    std::size_t len = 0;
    std::string type;
    if (clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, 0, nullptr, &len) == CL_SUCCESS && len > 0) {
      type.resize(len);
      if (clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, len, type.data(), nullptr) != CL_SUCCESS) type.clear();
      while (!type.empty() && type.back() == '\0') type.pop_back();
    }
    KernelParam& p = out[i];
    switch (aq) {
      case CL_KERNEL_ARG_ADDRESS_GLOBAL:
      case CL_KERNEL_ARG_ADDRESS_CONSTANT:
        p.kind = KernelParam::Kind::memory;
        p.size = sizeof(cl_mem);
        p.type = (aq == CL_KERNEL_ARG_ADDRESS_GLOBAL ? "__global " : "__constant ") + type;
        break;
      case CL_KERNEL_ARG_ADDRESS_LOCAL:
        p.kind = KernelParam::Kind::local_memory;
        p.type = "__local " + type;
        break;
      default:
        // image2d_t, sampler_t and the like are private-qualified too, but not scalars.
        if (type.find('*') != std::string::npos || type.find("image") != std::string::npos || type == "sampler_t") break;
        p.kind = KernelParam::Kind::scalar;
        p.size = scalar_size(type);
        p.type = type;
        break;
    }
  }
  return out;
}

}  // namespace

Kernel::Kernel(const Device& device, cl_program program, cl_kernel first, std::string entry)
    : device_(device), program_(program), entry_(std::move(entry)) {
  auto slot = std::make_unique<Slot>();
  slot->kernel = first;
  free_.push_back(slot.get());
  slots_.push_back(std::move(slot));
  PORTA_CL(clGetKernelInfo(first, CL_KERNEL_NUM_ARGS, sizeof arg_count_, &arg_count_, nullptr));
  PORTA_CL(clGetKernelWorkGroupInfo(first, device.native(), CL_KERNEL_WORK_GROUP_SIZE, sizeof max_group_size_,
                                          &max_group_size_, nullptr));
  params_ = read_params(first, arg_count_);
}

Kernel::~Kernel() {
  for (auto& slot : slots_) log_failure(clReleaseKernel(slot->kernel), "clReleaseKernel", device_.label());
  log_failure(clReleaseProgram(program_), "clReleaseProgram", device_.label());
}

Kernel::Lease Kernel::take() {
  std::lock_guard lock(m_);
  if (!free_.empty()) {
    Slot* slot = free_.back();
    free_.pop_back();
    return Lease(*this, slot);
  }
  // Every cl_kernel in use by another thread: make one more (the pool grows to the number of
  // threads launching this kernel at once).
  cl_int status = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program_, entry_.c_str(), &status);
  if (status != CL_SUCCESS) throw_error(status, "clCreateKernel", detail::cat("making kernel '", entry_, "' on ", device_.label()));
  auto slot = std::make_unique<Slot>();
  slot->kernel = k;
  Slot* taken = slot.get();
  try {
    slots_.push_back(std::move(slot));
    free_.reserve(slots_.size());  // give_back never allocates
  } catch (...) {
    clReleaseKernel(k);
    throw;
  }
  return Lease(*this, taken);
}

void Kernel::give_back(Slot* slot) noexcept {
  std::lock_guard lock(m_);
  free_.push_back(slot);  // reserved in take()
}

cl_int Kernel::Lease::set(cl_uint i, std::size_t size, const void* value, bool memory) {
  if (slot_->args.size() <= i) slot_->args.resize(i + 1);
  Slot::Arg& a = slot_->args[i];
  std::uint64_t bytes = 0;
  if (value && size <= sizeof bytes) std::memcpy(&bytes, value, size);
  const bool local = value == nullptr;
  const std::uint64_t generation = memory ? memory_generation() : 0;
  if (a.set && a.local == local && a.size == size && a.value == bytes && a.generation == generation &&
      size <= sizeof bytes)
    return CL_SUCCESS;
  a.set = false;
  cl_int status = clSetKernelArg(slot_->kernel, i, size, value);
  if (status != CL_SUCCESS) return status;
  a = Slot::Arg{true, local, static_cast<std::uint32_t>(size), bytes, generation};
  return CL_SUCCESS;
}

std::vector<std::uint8_t> program_binary(cl_program program, cl_device_id device, std::string& why) {
  // The program was built for this one device, but a context may hold more: find its slot.
  auto fail = [&](const char* call, cl_int status) {
    why = detail::cat(call, " returned ", describe(status));
    return std::vector<std::uint8_t>{};
  };
  cl_uint count = 0;
  if (cl_int s = clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof count, &count, nullptr); s != CL_SUCCESS)
    return fail("clGetProgramInfo(CL_PROGRAM_NUM_DEVICES)", s);
  if (count == 0) return fail("clGetProgramInfo(CL_PROGRAM_NUM_DEVICES)", CL_INVALID_PROGRAM);
  std::vector<cl_device_id> devices(count);
  if (cl_int s = clGetProgramInfo(program, CL_PROGRAM_DEVICES, count * sizeof(cl_device_id), devices.data(), nullptr);
      s != CL_SUCCESS)
    return fail("clGetProgramInfo(CL_PROGRAM_DEVICES)", s);
  auto it = std::find(devices.begin(), devices.end(), device);
  if (it == devices.end()) return fail("clGetProgramInfo(CL_PROGRAM_DEVICES)", CL_INVALID_DEVICE);
  std::size_t slot = static_cast<std::size_t>(it - devices.begin());
  std::vector<std::size_t> sizes(count);
  if (cl_int s = clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, count * sizeof(std::size_t), sizes.data(), nullptr);
      s != CL_SUCCESS)
    return fail("clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)", s);
  if (sizes[slot] == 0) return fail("clGetProgramInfo(CL_PROGRAM_BINARY_SIZES)", CL_INVALID_PROGRAM_EXECUTABLE);
  // CL_PROGRAM_BINARIES fills one buffer per device; the others get buffers of their own size.
  std::vector<std::vector<unsigned char>> storage(count);
  std::vector<unsigned char*> pointers(count);
  for (cl_uint i = 0; i < count; ++i) {
    storage[i].resize(sizes[i]);
    pointers[i] = sizes[i] ? storage[i].data() : nullptr;
  }
  if (cl_int s = clGetProgramInfo(program, CL_PROGRAM_BINARIES, count * sizeof(unsigned char*), pointers.data(), nullptr);
      s != CL_SUCCESS)
    return fail("clGetProgramInfo(CL_PROGRAM_BINARIES)", s);
  return std::vector<std::uint8_t>(storage[slot].begin(), storage[slot].end());
}

std::vector<std::uint8_t> Kernel::binary() const {
  std::string why;
  std::vector<std::uint8_t> b = program_binary(program_, device_.native(), why);
  if (b.empty()) PORTA_LOG(info, device_.label(), ": no program binary of '", entry_, "' for the disk cache (", why, ")");
  return b;
}

std::shared_lock<std::shared_mutex> Device::check_compile_allowed(const std::string& entry) const {
  return detail::enter_build(label_, entry);
}

void Device::watch_exit() const {
  static std::once_flag setup;
  std::call_once(setup, [] { detail::watch_exit(); });
}

namespace {
void watch_exit_after_first_build() {
  static std::once_flag first_build;
  std::call_once(first_build, [] { detail::watch_exit(); });
}
}  // namespace

std::shared_ptr<detail::Kernel> Device::load_binary(const KernelSource& src, std::span<const std::uint8_t> binary) {
  auto building = check_compile_allowed(src.entry);
  auto t0 = std::chrono::steady_clock::now();
  auto refuse = [&](const std::string& why) -> std::shared_ptr<detail::Kernel> {
    PORTA_LOG(info, label_, ": cached binary of '", src.entry, "' not loaded (", why, "); recompiling");
    return nullptr;
  };
  if (binary.empty()) return refuse("empty binary");
  const unsigned char* bytes = binary.data();
  std::size_t length = binary.size();
  cl_int binary_status = CL_SUCCESS;
  cl_int status = CL_SUCCESS;
  ProgramGuard guard{clCreateProgramWithBinary(context_, 1, &device_, &length, &bytes, &binary_status, &status)};
  if (status != CL_SUCCESS || guard.program == nullptr)
    return refuse(detail::cat("clCreateProgramWithBinary returned ", describe(status)));
  if (binary_status != CL_SUCCESS)
    return refuse(detail::cat("clCreateProgramWithBinary: binary status ", describe(binary_status)));

  std::string options = detail::join(src.options, " ");
  {
    PoclBuildLock one_build(info_.platform, src.source);
    status = clBuildProgram(guard.program, 1, &device_, options.c_str(), nullptr, nullptr);
  }
  if (status != CL_SUCCESS) {
    std::string log = build_log(guard.program, device_);
    return refuse(detail::cat("clBuildProgram returned ", describe(status), log.empty() ? "" : "; log: ", log));
  }
  cl_build_status build = CL_BUILD_NONE;
  status = clGetProgramBuildInfo(guard.program, device_, CL_PROGRAM_BUILD_STATUS, sizeof build, &build, nullptr);
  if (status != CL_SUCCESS) return refuse(detail::cat("clGetProgramBuildInfo returned ", describe(status)));
  if (build != CL_BUILD_SUCCESS) return refuse(detail::cat("build status ", static_cast<int>(build)));

  cl_kernel first = clCreateKernel(guard.program, src.entry.c_str(), &status);
  if (status != CL_SUCCESS || first == nullptr) {
    std::string names = kernel_names(guard.program);
    return refuse(detail::cat("clCreateKernel returned ", describe(status), "; its kernels are: ",
                              names.empty() ? "(none)" : names));
  }
  std::shared_ptr<Kernel> kernel;
  try {
    kernel = std::make_shared<Kernel>(*this, guard.program, first, src.entry);
  } catch (const std::exception& e) {
    clReleaseKernel(first);
    return refuse(e.what());
  }
  guard.program = nullptr;  // the kernel owns it now
  watch_exit_after_first_build();
  PORTA_LOG(debug, label_, ": loaded the binary of '", src.entry, "' (", binary.size(), " bytes) in ",
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), " ms");
  return kernel;
}

std::shared_ptr<detail::Kernel> Device::compile(const KernelSource& src) {
  check_usable();
  auto building = check_compile_allowed(src.entry);
  auto t0 = std::chrono::steady_clock::now();
  const char* text = src.source.c_str();
  std::size_t length = src.source.size();
  const std::string options = detail::join(src.options, " ");
  cl_int status = CL_SUCCESS;
  cl_program program = nullptr;
  std::string log;
  {
    PoclBuildLock one_build(info_.platform, src.source);
    for (int attempt = 0;; ++attempt) {
      program = clCreateProgramWithSource(context_, 1, &text, &length, &status);
      if (status != CL_SUCCESS)
        throw_error(status, "clCreateProgramWithSource", detail::cat("compiling '", src.entry, "' for ", label_));
      status = clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr);
      log = build_log(program, device_);
      if (status != CL_BUILD_PROGRAM_FAILURE || attempt == 2 || !transient_pocl_failure(info_.platform, log)) break;
      clReleaseProgram(program);
      PORTA_LOG(info, label_, ": PoCL failed to build '", src.entry,
                "' without diagnostics (another process writing its kernel cache?); building it again");
      std::this_thread::sleep_for(std::chrono::milliseconds(50 * (attempt + 1)));
    }
  }
  if (status != CL_SUCCESS) {
    clReleaseProgram(program);
    std::string message = detail::cat(
        "OpenCL kernel '", src.entry, "' failed to compile for opencl:", index(), " (", info_.name, "; platform ",
        info_.platform, ", driver ", info_.driver_version, ", ", info_.arch, ")", options.empty() ? std::string() : " with options '" + options + "'",
        ": clBuildProgram returned ", describe(status), "\nbuild log:\n", log.empty() ? "(empty)" : log,
        "\nsource:\n", detail::number_lines(src.source));
    throw CompileError(message, log, src.source);
  }
  if (!log.empty()) PORTA_LOG(debug, "build log of '", src.entry, "' on ", label_, ":\n", log);
  // PTX edited after the build (opencl.hpp: kSm90aPtxOption, kPtxMaxnregOption).
  const bool sm90a = std::find(src.options.begin(), src.options.end(), kSm90aPtxOption) != src.options.end();
  int maxnreg = 0;
  for (const std::string& o : src.options)
    if (o.starts_with(kPtxMaxnregOption)) maxnreg = std::atoi(o.c_str() + std::strlen(kPtxMaxnregOption));
  if (sm90a || maxnreg > 0) {
    std::string why;
    if (cl_program edited = rebuilt_from_ptx(context_, device_, program, sm90a, maxnreg, log, why)) {
      clReleaseProgram(program);
      program = edited;
      PORTA_LOG(debug, "build log of '", src.entry, "' from its edited PTX on ", label_, ":\n", log);
    } else if (sm90a) {
      clReleaseProgram(program);
      throw CompileError(detail::cat("OpenCL kernel '", src.entry, "' on ", label_, " could not be retargeted to sm_90a: ", why),
                         log, src.source);
    } else {
      PORTA_LOG(info, label_, ": '", src.entry, "' built without its register bound of ", maxnreg, " (", why, ")");
    }
  }

  cl_kernel first = clCreateKernel(program, src.entry.c_str(), &status);
  if (status != CL_SUCCESS) {
    std::string names = kernel_names(program);
    clReleaseProgram(program);
    std::string message = detail::cat("OpenCL program for ", label_, " has no kernel '", src.entry, "' (clCreateKernel returned ",
                                      describe(status), "); its kernels are: ", names.empty() ? "(none)" : names,
                                      "\nsource:\n", detail::number_lines(src.source));
    throw CompileError(message, log, src.source);
  }
  std::shared_ptr<Kernel> kernel;
  try {
    kernel = std::make_shared<Kernel>(*this, program, first, src.entry);
  } catch (...) {
    clReleaseKernel(first);
    clReleaseProgram(program);
    throw;
  }
  watch_exit_after_first_build();
  PORTA_LOG(debug, label_, ": built '", src.entry, "' in ",
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), " ms");
  return kernel;
}

}  // namespace porta::opencl
