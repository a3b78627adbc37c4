// Building the argument list of a generated kernel: indices are 32- or 64-bit to match the
// kernel's index type; scalars take their compute type (bool as int, float16 as float, the
// integers as their own C types); a complex scalar is two of its real type, the real and the
// imaginary part (parameters s<k> and si<k>).
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
      case DType::int64:
      case DType::uint64: args_.push_back(KernelArg::scalar<std::int64_t>(s.i)); break;  // uint64: its bits
      // The narrow integers take their own C types in the kernel (DialectText::scalar_param_type).
      case DType::int8: args_.push_back(KernelArg::scalar<std::int8_t>(static_cast<std::int8_t>(s.i))); break;
      case DType::uint8: args_.push_back(KernelArg::scalar<std::uint8_t>(static_cast<std::uint8_t>(s.i))); break;
      case DType::int16: args_.push_back(KernelArg::scalar<std::int16_t>(static_cast<std::int16_t>(s.i))); break;
      case DType::uint16: args_.push_back(KernelArg::scalar<std::uint16_t>(static_cast<std::uint16_t>(s.i))); break;
      case DType::uint32: args_.push_back(KernelArg::scalar<std::uint32_t>(static_cast<std::uint32_t>(s.i))); break;
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
