// References in a backend's own API, without porta: what a user writing plain OpenCL gets on
// the same device. Built when the OpenCL headers and loader are found (PORTA_BENCH_NATIVE_OPENCL).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace porta_bench::native {

// An OpenCL device named as porta names it: the occurrence-th device called `name` on a
// platform called `platform`, in platform and device order.
struct Target {
  std::string name, platform;
  int occurrence = 0;
};

// A context, a profiling queue, the one-element-per-work-item reference kernels and three
// random float32 buffers of n elements on `target`.
class OpenCLReference {
 public:
  OpenCLReference(const Target& target, std::size_t n);  // throws std::runtime_error
  ~OpenCLReference();
  OpenCLReference(const OpenCLReference&) = delete;
  OpenCLReference& operator=(const OpenCLReference&) = delete;

  // Device milliseconds of one launch of ref_<what> ("copy", "add", "saxpy") over n elements,
  // global = n, local = NULL, between two profiling markers.
  double time_ms(const std::string& what);
  // Host seconds of `launches` bare clEnqueueNDRangeKernel calls of ref_add (arguments set once),
  // then clFinish.
  double launch_loop_seconds(int launches);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

#ifdef PORTA_BENCH_CLBLAST
// CLBlast's Gemm (row-major, no transposes) on its own context, queue and random n x n buffers
// of float32 or float64 on `target`: what a program calling CLBlast directly gets, beside
// porta's own OpenCL GEMM. Built when CLBlast is found (PORTA_BENCH_CLBLAST).
class ClblastGemm {
 public:
  ClblastGemm(const Target& target, std::size_t n, bool float64);  // throws std::runtime_error
  ~ClblastGemm();
  ClblastGemm(const ClblastGemm&) = delete;
  ClblastGemm& operator=(const ClblastGemm&) = delete;

  // Device milliseconds of one Gemm between two profiling markers.
  double time_ms();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};
#endif

}  // namespace porta_bench::native

namespace porta_bench::native {

// The CUDA driver API without porta (libcuda.so.1 opened at run time, so the benchmarks still
// start where there is no driver): a bare cuLaunchKernel loop of the float4 reference add over
// 1024 floats on one stream, the floor for porta's per-op cost on CUDA. Built with the CUDA
// backend (PORTA_BENCH_NATIVE_CUDA).
class CudaLaunchLoop {
 public:
  // The device with this PCI bus id, else the CUDA device of this ordinal. Throws std::runtime_error.
  CudaLaunchLoop(const std::string& pci_bus_id, int ordinal);
  ~CudaLaunchLoop();
  CudaLaunchLoop(const CudaLaunchLoop&) = delete;
  CudaLaunchLoop& operator=(const CudaLaunchLoop&) = delete;

  // Host seconds of `launches` cuLaunchKernel calls, then cuStreamSynchronize.
  double seconds(int launches);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace porta_bench::native
