// Building the argument list of a generated kernel: indices are 32- or 64-bit to match the
// kernel's index type; scalars take their compute type (bool as int, float16 as float); a complex
// scalar is two of its real type, the real and the imaginary part (parameters s<k> and si<k>).
#pragma once

#include <cstdint>
#include <vector>

#include "porta_backend/backend.hpp"

namespace porta::detail {

class KernelArgs {
 public:
  explicit KernelArgs(bool wide) : wide_(wide) { args_.reserve(16); }  // a small op's arguments, one allocation
  void memory(Handle h) { args_.push_back(KernelArg::memory(h)); }
  void index(std::int64_t v) {
    if (wide_) args_.push_back(KernelArg::scalar<std::int64_t>(v));
    else args_.push_back(KernelArg::scalar<std::int32_t>(static_cast<std::int32_t>(v)));
  }
  void scalar(const ScalarValue& s) {
    switch (s.dtype) {
      case DType::boolean:
      case DType::int32: args_.push_back(KernelArg::scalar<std::int32_t>(static_cast<std::int32_t>(s.i))); break;
      case DType::int64: args_.push_back(KernelArg::scalar<std::int64_t>(s.i)); break;
      case DType::float16:
      case DType::bfloat16:
      case DType::float32: args_.push_back(KernelArg::scalar<float>(static_cast<float>(s.f))); break;
      case DType::float64: args_.push_back(KernelArg::scalar<double>(s.f)); break;
      case DType::complex64:
        args_.push_back(KernelArg::scalar<float>(static_cast<float>(s.f)));
        args_.push_back(KernelArg::scalar<float>(static_cast<float>(s.imag)));
        break;
      case DType::complex128:
        args_.push_back(KernelArg::scalar<double>(s.f));
        args_.push_back(KernelArg::scalar<double>(s.imag));
        break;
    }
  }
  void push(const KernelArg& a) { args_.push_back(a); }
  const std::vector<KernelArg>& args() const { return args_; }

 private:
  bool wide_;
  std::vector<KernelArg> args_;
};

}  // namespace porta::detail
