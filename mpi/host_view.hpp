// Host access to porta arrays for MPI without copies where the device allows: Kokkos arrays are
// host memory already, and PoCL's OpenCL buffers are mapped (clEnqueueMapBuffer on porta's own
// queue of this thread, which is free on a CPU device); a CUDA-aware MPI gets CUDA device pointers
// as they are. Other devices (CUDA without NCCL or a CUDA-aware MPI, OpenCL GPUs) go through a
// staging buffer and a copy.
#pragma once

#include "mpi_impl.hpp"

namespace porta::mpi::detail {

// The elements of an array in row-major order, readable on the host while this object lives.
// Waits for porta's pending writes of the array (from any thread) first.
class HostInput {
 public:
  explicit HostInput(const Array& x);
  ~HostInput();
  HostInput(const HostInput&) = delete;
  HostInput& operator=(const HostInput&) = delete;
  const std::byte* data() const { return data_; }
  bool zero_copy() const { return mapped_ != nullptr || direct_; }

 private:
  Array array_;  // contiguous
  const std::byte* data_ = nullptr;
  void* mapped_ = nullptr;  // the cl_mem mapped, when on OpenCL
  void* queue_ = nullptr;
  bool direct_ = false;
};

// A new array of (dtype, shape) on a device, written on the host, then finished: later porta work
// on it (from any thread) starts after the host's writes.
class HostOutput {
 public:
  HostOutput(DType t, Shape shape, const Device& d);
  ~HostOutput();
  HostOutput(const HostOutput&) = delete;
  HostOutput& operator=(const HostOutput&) = delete;
  std::byte* data() { return data_; }
  Array finish();

 private:
  DType dtype_;
  Shape shape_;
  Device device_;
  Array array_;  // the device array written in place, when zero-copy
  std::byte* data_ = nullptr;
  void* mapped_ = nullptr;
  void* queue_ = nullptr;
  bool finished_ = false;
};

}  // namespace porta::mpi::detail
