// Run-time compilation: clCreateProgramWithSource + clBuildProgram for the device, a CompileError
// with the build log and the numbered source on failure, and the per-kernel pool of cl_kernel
// objects that makes concurrent launches of one Kernel safe.
#include <chrono>

#include "log.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {
namespace {

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

}  // namespace

OpenCLKernel::OpenCLKernel(const OpenCLDevice& device, cl_program program, cl_kernel first, std::string entry)
    : device_(device), program_(program), entry_(std::move(entry)) {
  free_.push_back(first);
  PORTA_CL_CHECK(clGetKernelInfo(first, CL_KERNEL_NUM_ARGS, sizeof arg_count_, &arg_count_, nullptr));
  PORTA_CL_CHECK(clGetKernelWorkGroupInfo(first, device.id(), CL_KERNEL_WORK_GROUP_SIZE, sizeof max_group_size_,
                                          &max_group_size_, nullptr));
}

OpenCLKernel::~OpenCLKernel() {
  for (cl_kernel k : free_)
    if (cl_int s = clReleaseKernel(k); s != CL_SUCCESS) PORTA_LOG(error, "clReleaseKernel failed: ", describe_status(s));
  if (cl_int s = clReleaseProgram(program_); s != CL_SUCCESS)
    PORTA_LOG(error, "clReleaseProgram failed: ", describe_status(s));
}

OpenCLKernel::Lease OpenCLKernel::take() {
  {
    std::lock_guard lock(m_);
    if (!free_.empty()) {
      cl_kernel k = free_.back();
      free_.pop_back();
      return Lease(*this, k);
    }
  }
  // Every cl_kernel in use by another thread: make one more (the pool grows to the number of
  // threads launching this kernel at once).
  cl_int status = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program_, entry_.c_str(), &status);
  if (status != CL_SUCCESS) throw_status(status, "clCreateKernel", detail::cat("making kernel '", entry_, "' on ", device_.label()));
  return Lease(*this, k);
}

void OpenCLKernel::give_back(cl_kernel k) noexcept {
  try {
    std::lock_guard lock(m_);
    free_.push_back(k);
  } catch (...) {
    clReleaseKernel(k);
  }
}

std::shared_ptr<Kernel> OpenCLDevice::compile(const KernelSource& src) {
  auto t0 = std::chrono::steady_clock::now();
  const char* text = src.source.c_str();
  std::size_t length = src.source.size();
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context_, 1, &text, &length, &status);
  if (status != CL_SUCCESS)
    throw_status(status, "clCreateProgramWithSource", detail::cat("compiling '", src.entry, "' for ", label_));

  std::string options = detail::join(src.options, " ");
  status = clBuildProgram(program, 1, &device_, options.c_str(), nullptr, nullptr);
  std::string log = build_log(program, device_);
  if (status != CL_SUCCESS) {
    clReleaseProgram(program);
    std::string message = detail::cat(
        "OpenCL kernel '", src.entry, "' failed to compile for opencl:", index(), " (", info_.name, "; platform ",
        info_.platform, ", driver ", info_.driver_version, ", ", info_.arch, ")", options.empty() ? std::string() : " with options '" + options + "'",
        ": clBuildProgram returned ", describe_status(status), "\nbuild log:\n", log.empty() ? "(empty)" : log,
        "\nsource:\n", detail::number_lines(src.source));
    throw CompileError(message, log, src.source);
  }
  if (!log.empty()) PORTA_LOG(debug, "build log of '", src.entry, "' on ", label_, ":\n", log);

  cl_kernel first = clCreateKernel(program, src.entry.c_str(), &status);
  if (status != CL_SUCCESS) {
    std::string names = kernel_names(program);
    clReleaseProgram(program);
    std::string message = detail::cat("OpenCL program for ", label_, " has no kernel '", src.entry, "' (clCreateKernel returned ",
                                      describe_status(status), "); its kernels are: ", names.empty() ? "(none)" : names,
                                      "\nsource:\n", detail::number_lines(src.source));
    throw CompileError(message, log, src.source);
  }
  std::shared_ptr<OpenCLKernel> kernel;
  try {
    kernel = std::make_shared<OpenCLKernel>(*this, program, first, src.entry);
  } catch (...) {
    clReleaseKernel(first);
    clReleaseProgram(program);
    throw;
  }
  PORTA_LOG(debug, label_, ": built '", src.entry, "' in ",
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), " ms");
  return kernel;
}

}  // namespace porta::opencl
