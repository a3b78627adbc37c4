// User kernels. ElementwiseKernel (CuPy's): one body in a C subset that every run-time
// compiling backend (CUDA, OpenCL) accepts. RawKernel (PyCUDA's SourceModule): source in the
// backend's own language, launched with an explicit grid and block.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <porta/array.hpp>
#include <porta/ops.hpp>

namespace porta {

// ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * x + y", "square_add")
// Parameters are "dtype name" pairs (dtypes as parse_dtype reads them). Array inputs broadcast
// against each other; number inputs are passed by value in the parameter's dtype. Outputs are
// new arrays of the broadcast shape, on the device of the array inputs. The body sees each
// parameter as a value of its dtype (float16 and bfloat16 as float32) and the element index as
// `i` (int64). Works on devices with compiles_at_runtime(); elsewhere it throws
// BackendUnavailable naming the devices that can run it.
class ElementwiseKernel {
 public:
  ElementwiseKernel(std::string in_params, std::string out_params, std::string body, std::string name = "kernel",
                    std::string preamble = "");
  ~ElementwiseKernel();
  ElementwiseKernel(const ElementwiseKernel&);
  ElementwiseKernel& operator=(const ElementwiseKernel&);

  // One output: the output array. Several: use call().
  Array operator()(const std::vector<Operand>& args) const;
  std::vector<Array> call(const std::vector<Operand>& args) const;

  struct Param {
    DType dtype;
    std::string name;
  };
  const std::vector<Param>& inputs() const;
  const std::vector<Param>& outputs() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// A launch shape in CUDA's words: `grid` blocks of `block` threads (OpenCL: work-groups of
// work-items; global size = grid * block).
struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
};

// An argument of a RawKernel: an array (passed as a pointer / cl_mem to its first element; the
// kernel may read and write it), a number with an exact C type, or local memory (RawArg::local:
// an OpenCL `__local` pointer parameter; on CUDA the bytes join the block's dynamic shared
// memory, which the kernel reaches through `extern __shared__`). Before the driver sees them,
// arguments are checked against the kernel's parameters as far as the backend can list them:
// on OpenCL the kind and size of each (clGetKernelArgInfo), on CUDA the count and each size
// (cuFuncGetParamInfo; a pointer and an 8-byte number cannot be told apart there).
class RawArg {
 public:
  RawArg(const Array& a) : array_(a), empty_array_(!a.valid()) {}  // NOLINT(google-explicit-constructor)
  RawArg(std::int32_t v) : RawArg(DType::int32, &v, 4) {}
  RawArg(std::int64_t v) : RawArg(DType::int64, &v, 8) {}
  RawArg(float v) : RawArg(DType::float32, &v, 4) {}
  RawArg(double v) : RawArg(DType::float64, &v, 8) {}
  RawArg(std::uint32_t v) : RawArg(DType::int32, &v, 4, true) {}
  RawArg(std::uint64_t v) : RawArg(DType::int64, &v, 8, true) {}

  static RawArg local(std::size_t bytes);

  bool is_array() const { return array_.valid(); }
  bool is_empty_array() const { return empty_array_; }  // made from an Array that holds nothing
  bool is_local() const { return local_; }
  const Array& array() const { return array_; }
  const std::array<std::uint8_t, 8>& bytes() const { return bytes_; }
  std::size_t size() const { return size_; }  // a number's bytes, or local memory's
  DType number_dtype() const { return dtype_; }
  bool number_unsigned() const { return unsigned_; }

 private:
  RawArg(DType t, const void* p, std::size_t n, bool is_unsigned = false);
  RawArg() = default;
  Array array_;
  bool empty_array_ = false, local_ = false, unsigned_ = false;
  DType dtype_ = DType::int32;
  std::array<std::uint8_t, 8> bytes_{};
  std::size_t size_ = 0;
};

class RawKernel {
 public:
  // `backend` says which language `source` is in: Backend::cuda (CUDA C++, compiled by NVRTC
  // for the device's architecture; name the kernel extern "C" or give its mangled name) or
  // Backend::opencl (OpenCL C). Compiled on first launch on each device, then cached. A loaded
  // backend that compiles no source (Kokkos: its plugin declares no source language) is refused
  // here with InvalidArgument naming it.
  RawKernel(Backend backend, std::string source, std::string name, std::vector<std::string> options = {});
  ~RawKernel();
  RawKernel(const RawKernel&);
  RawKernel& operator=(const RawKernel&);

  // Queues the kernel on this thread's queue of `d` (default: the device of the first array
  // argument, else the current device). On OpenCL, block (0, 0, 0) lets the runtime choose the
  // work-group (local size NULL) and `grid` counts work-items. Array arguments must be
  // contiguous (use copy() for a strided view); on OpenCL they must also start at the start of
  // their buffer. `shared_bytes` is CUDA's dynamic shared memory; OpenCL kernels take local
  // memory as a parameter instead (RawArg::local). Both are checked against the device's limit
  // per block (porta-info; InvalidArgument naming it). Asynchronous: later porta work on the
  // arrays is ordered after it.
  void launch(Dim3 grid, Dim3 block, const std::vector<RawArg>& args, std::size_t shared_bytes = 0,
              Device d = Device()) const;
  void operator()(Dim3 grid, Dim3 block, const std::vector<RawArg>& args) const { launch(grid, block, args); }

  // Compiles for `d` now (launch does it otherwise); throws CompileError with the log.
  void compile(const Device& d) const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace porta
