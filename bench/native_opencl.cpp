// Plain OpenCL, without porta, on the same device: the hand-written one-element-per-work-item
// kernels launched with local = NULL (the runtime chooses the work-group, as porta's generated
// kernels do on CPU devices; RawKernel always passes one), and the host cost of a bare
// clEnqueueNDRangeKernel loop, the floor for porta's per-op cost; and CLBlast's Gemm where CLBlast
// is built in. Timed with profiling markers around the work, as porta::Event does.
#include "native.hpp"

#include <CL/cl.h>

#include <algorithm>
#include <cstring>
#include <chrono>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference_kernels.hpp"

#ifdef PORTA_BENCH_CLBLAST
#include <clblast.h>
#endif

namespace porta_bench::native {
namespace {

void check(cl_int status, const char* what) {
  if (status != CL_SUCCESS) throw std::runtime_error(std::string("native OpenCL: ") + what + " returned " + std::to_string(status));
}

std::string info_string(cl_device_id d, cl_device_info what) {
  std::size_t size = 0;
  check(clGetDeviceInfo(d, what, 0, nullptr, &size), "clGetDeviceInfo");
  std::string s(size, '\0');
  check(clGetDeviceInfo(d, what, size, s.data(), nullptr), "clGetDeviceInfo");
  return s;
}

std::string platform_name(cl_platform_id p) {
  std::size_t size = 0;
  check(clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, nullptr, &size), "clGetPlatformInfo");
  std::string s(size, '\0');
  check(clGetPlatformInfo(p, CL_PLATFORM_NAME, size, s.data(), nullptr), "clGetPlatformInfo");
  return s;
}

std::string trim(std::string s) {
  s.erase(std::find(s.begin(), s.end(), '\0'), s.end());
  auto b = s.find_first_not_of(" \t\n");
  auto e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// The cl_device_id that porta lists as `target`: the occurrence-th device of that name on a
// platform of that name, in platform and device order (porta's order).
struct Found {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
};

Found find_device(const Target& target) {
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return {};
  std::vector<cl_platform_id> platforms(np);
  check(clGetPlatformIDs(np, platforms.data(), nullptr), "clGetPlatformIDs");
  int seen = 0;
  for (cl_platform_id p : platforms) {
    if (trim(platform_name(p)) != target.platform) continue;
    cl_uint nd = 0;
    if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> ids(nd);
    check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ids.data(), nullptr), "clGetDeviceIDs");
    for (cl_device_id d : ids)
      if (trim(info_string(d, CL_DEVICE_NAME)) == target.name && seen++ == target.occurrence) return {p, d};
  }
  return {};
}

// A context and a profiling queue on `target`'s device, which it returns.
cl_device_id open_queue(const Target& target, cl_context* ctx, cl_command_queue* queue) {
  Found f = find_device(target);
  if (!f.device) throw std::runtime_error("native OpenCL: no device named '" + target.name + "' on platform '" + target.platform + "'");
  cl_int st = CL_SUCCESS;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(f.platform), 0};
  *ctx = clCreateContext(props, 1, &f.device, nullptr, nullptr, &st);
  check(st, "clCreateContext");
  *queue = clCreateCommandQueue(*ctx, f.device, CL_QUEUE_PROFILING_ENABLE, &st);
  check(st, "clCreateCommandQueue");
  return f.device;
}

// Milliseconds between the ends of two markers; releases them.
double elapsed_ms(cl_event a, cl_event b) {
  check(clWaitForEvents(1, &b), "clWaitForEvents");
  cl_ulong t0 = 0, t1 = 0;
  check(clGetEventProfilingInfo(a, CL_PROFILING_COMMAND_END, sizeof t0, &t0, nullptr), "clGetEventProfilingInfo");
  check(clGetEventProfilingInfo(b, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr), "clGetEventProfilingInfo");
  clReleaseEvent(a);
  clReleaseEvent(b);
  return static_cast<double>(t1 - t0) * 1e-6;
}

}  // namespace

struct OpenCLReference::Impl {
  Impl(const Target& target, std::size_t n) : n_(n) {
    cl_device_id device = open_queue(target, &ctx_, &queue_);
    cl_int st = CL_SUCCESS;
    const char* src = reference::kOpenCLScalar;
    program_ = clCreateProgramWithSource(ctx_, 1, &src, nullptr, &st);
    check(st, "clCreateProgramWithSource");
    check(clBuildProgram(program_, 1, &device, "", nullptr, nullptr), "clBuildProgram");
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> host(n);
    for (int b = 0; b < 3; ++b) {
      for (auto& v : host) v = u(rng);
      buffers_[b] = clCreateBuffer(ctx_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), host.data(), &st);
      check(st, "clCreateBuffer");
    }
  }
  ~Impl() {
    for (cl_kernel k : kernels_) clReleaseKernel(k);
    for (cl_mem b : buffers_)
      if (b) clReleaseMemObject(b);
    if (program_) clReleaseProgram(program_);
    if (queue_) clReleaseCommandQueue(queue_);
    if (ctx_) clReleaseContext(ctx_);
  }
  // ref_copy(x, out), ref_add(x, y, out), ref_saxpy(a, x, y, out) over this object's buffers.
  cl_kernel kernel(const std::string& what) {
    for (std::size_t j = 0; j < names_.size(); ++j)
      if (names_[j] == what) return kernels_[j];
    cl_int st = CL_SUCCESS;
    cl_kernel k = clCreateKernel(program_, ("ref_" + what).c_str(), &st);
    check(st, "clCreateKernel");
    kernels_.push_back(k);
    names_.push_back(what);
    cl_uint i = 0;
    if (what == "saxpy") {
      float a = 2.5f;
      check(clSetKernelArg(k, i++, sizeof a, &a), "clSetKernelArg");
    }
    check(clSetKernelArg(k, i++, sizeof(cl_mem), &buffers_[0]), "clSetKernelArg");
    if (what != "copy") check(clSetKernelArg(k, i++, sizeof(cl_mem), &buffers_[1]), "clSetKernelArg");
    check(clSetKernelArg(k, i++, sizeof(cl_mem), &buffers_[2]), "clSetKernelArg");
    return k;
  }
  void launch(cl_kernel k) {
    std::size_t global = n_;
    check(clEnqueueNDRangeKernel(queue_, k, 1, nullptr, &global, nullptr, 0, nullptr, nullptr), "clEnqueueNDRangeKernel");
  }
  cl_event marker() {
    cl_event e = nullptr;
    check(clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &e), "clEnqueueMarkerWithWaitList");
    check(clFlush(queue_), "clFlush");
    return e;
  }
  void finish() { check(clFinish(queue_), "clFinish"); }

  std::size_t n_;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_mem buffers_[3] = {nullptr, nullptr, nullptr};
  std::vector<cl_kernel> kernels_;
  std::vector<std::string> names_;
};

OpenCLReference::OpenCLReference(const Target& target, std::size_t n) : impl_(std::make_unique<Impl>(target, n)) {}
OpenCLReference::~OpenCLReference() = default;

double OpenCLReference::time_ms(const std::string& what) {
  cl_kernel k = impl_->kernel(what);
  cl_event a = impl_->marker();
  impl_->launch(k);
  cl_event b = impl_->marker();
  return elapsed_ms(a, b);
}

double OpenCLReference::launch_loop_seconds(int launches) {
  cl_kernel k = impl_->kernel("add");
  impl_->finish();
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < launches; ++i) impl_->launch(k);
  impl_->finish();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

#ifdef PORTA_BENCH_CLBLAST
struct ClblastGemm::Impl {
  Impl(const Target& target, std::size_t n, bool float64) : n_(n), float64_(float64) {
    open_queue(target, &ctx_, &queue_);
    cl_int st = CL_SUCCESS;
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const std::size_t elem = float64 ? 8 : 4;
    std::vector<unsigned char> host(n * n * elem);
    for (int b = 0; b < 3; ++b) {
      for (std::size_t i = 0; i < n * n; ++i) {
        double v = u(rng);
        float x = static_cast<float>(v);
        if (float64) std::memcpy(host.data() + i * 8, &v, 8);
        else std::memcpy(host.data() + i * 4, &x, 4);
      }
      buffers_[b] = clCreateBuffer(ctx_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size(), host.data(), &st);
      check(st, "clCreateBuffer");
    }
  }
  ~Impl() {
    if (queue_) clFinish(queue_);
    for (cl_mem b : buffers_)
      if (b) clReleaseMemObject(b);
    if (queue_) clReleaseCommandQueue(queue_);
    if (ctx_) clReleaseContext(ctx_);
  }
  void gemm() {
    using clblast::Layout;
    using clblast::Transpose;
    clblast::StatusCode s =
        float64_ ? clblast::Gemm<double>(Layout::kRowMajor, Transpose::kNo, Transpose::kNo, n_, n_, n_, 1.0, buffers_[0], 0, n_,
                                         buffers_[1], 0, n_, 0.0, buffers_[2], 0, n_, &queue_, nullptr)
                 : clblast::Gemm<float>(Layout::kRowMajor, Transpose::kNo, Transpose::kNo, n_, n_, n_, 1.0f, buffers_[0], 0, n_,
                                        buffers_[1], 0, n_, 0.0f, buffers_[2], 0, n_, &queue_, nullptr);
    if (s != clblast::StatusCode::kSuccess)
      throw std::runtime_error("CLBlast Gemm returned status " + std::to_string(static_cast<int>(s)));
  }
  cl_event marker() {
    cl_event e = nullptr;
    check(clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &e), "clEnqueueMarkerWithWaitList");
    check(clFlush(queue_), "clFlush");
    return e;
  }

  std::size_t n_;
  bool float64_;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_mem buffers_[3] = {nullptr, nullptr, nullptr};
};

ClblastGemm::ClblastGemm(const Target& target, std::size_t n, bool float64) : impl_(std::make_unique<Impl>(target, n, float64)) {}
ClblastGemm::~ClblastGemm() = default;

double ClblastGemm::time_ms() {
  cl_event a = impl_->marker();
  impl_->gemm();
  cl_event b = impl_->marker();
  return elapsed_ms(a, b);
}
#endif

}  // namespace porta_bench::native
