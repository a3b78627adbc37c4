// Which MPI datatype and op carry each porta dtype, and the float16/bfloat16 widening that
// reductions of those need (MPI has no 16-bit float type).
#include "mpi_impl.hpp"

#include <porta/dtype.hpp>

#include <cstring>

namespace porta::mpi::detail {

MPI_Datatype transfer_type(DType t) {
  switch (t) {
    case DType::boolean: return MPI_UINT8_T;
    case DType::int32: return MPI_INT32_T;
    case DType::int64: return MPI_INT64_T;
    case DType::float16:
    case DType::bfloat16: return MPI_UINT16_T;
    case DType::float32: return MPI_FLOAT;
    case DType::float64: return MPI_DOUBLE;
    case DType::int8: return MPI_INT8_T;
    case DType::int16: return MPI_INT16_T;
    case DType::uint8: return MPI_UINT8_T;
    case DType::uint16: return MPI_UINT16_T;
    case DType::uint32: return MPI_UINT32_T;
    case DType::uint64: return MPI_UINT64_T;
    case DType::complex64: return MPI_C_FLOAT_COMPLEX;
    case DType::complex128: return MPI_C_DOUBLE_COMPLEX;
  }
  throw DTypeError("porta::mpi: dtype value " + std::to_string(static_cast<int>(t)) + " is not a porta dtype");
}

bool reduces_widened(DType t) { return t == DType::float16 || t == DType::bfloat16; }

MPI_Datatype reduce_type(DType t) { return reduces_widened(t) ? MPI_FLOAT : transfer_type(t); }

MPI_Op mpi_op(Op op, DType t) {
  if (t == DType::boolean) return (op == Op::sum || op == Op::max) ? MPI_LOR : MPI_LAND;
  // MPI's MIN and MAX order no complex numbers (the standard defines them for reals only).
  if (is_complex(t) && (op == Op::min || op == Op::max))
    throw DTypeError(std::string("porta::mpi: ") + (op == Op::min ? "min" : "max") + " of " + std::string(name(t)) +
                     " arrays: MPI orders no complex numbers; reduce with sum or prod, or reduce the real and imaginary"
                     " parts (porta::real, porta::imag) apart");
  switch (op) {
    case Op::sum: return MPI_SUM;
    case Op::prod: return MPI_PROD;
    case Op::min: return MPI_MIN;
    case Op::max: return MPI_MAX;
  }
  throw InvalidArgument("porta::mpi: op value " + std::to_string(static_cast<int>(op)) +
                        " is not one of sum, prod, min, max");
}

void widen(DType t, const void* src, float* dst, std::size_t n) {
  const auto* bits = static_cast<const std::uint16_t*>(src);
  if (t == DType::bfloat16) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t w = static_cast<std::uint32_t>(bits[i]) << 16;
      std::memcpy(&dst[i], &w, sizeof w);
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<float>(half::from_bits(bits[i]));
  }
}

void narrow(DType t, const float* src, void* dst, std::size_t n) {
  auto* bits = static_cast<std::uint16_t*>(dst);
  if (t == DType::bfloat16) {
    for (std::size_t i = 0; i < n; ++i) bits[i] = bfloat16(src[i]).bits;
  } else {
    for (std::size_t i = 0; i < n; ++i) bits[i] = half(src[i]).bits;
  }
}

std::int32_t checked_count(std::size_t n, const char* what) {
  if (n > kMaxCount)
    throw InvalidArgument(std::string("porta::mpi ") + what + ": " + std::to_string(n) +
                          " elements in one message is more than MPI's int counts allow here (" +
                          std::to_string(kMaxCount) + "); split the array");
  return static_cast<std::int32_t>(n);
}

}  // namespace porta::mpi::detail
