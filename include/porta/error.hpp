// The exceptions porta throws. Every message says what was wrong, with the values, and what to do.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace porta {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A backend that was asked for is not built, its plugin did not load, or its driver is missing.
class BackendUnavailable : public Error { using Error::Error; };
// A device call failed, or a device that was named does not exist.
class DeviceError : public Error { using Error::Error; };
class ShapeError : public Error { using Error::Error; };
class DTypeError : public Error { using Error::Error; };
class InvalidArgument : public Error { using Error::Error; };
// A decomposition that does not exist for a matrix of the input (porta::linalg): singular (solve,
// inv), not positive definite (cholesky), no convergence (eigh, svd); NumPy's LinAlgError.
// batch_index() is the flat index of the first such matrix among the leading dimensions.
class LinAlgError : public Error {
 public:
  LinAlgError(const std::string& message, std::int64_t batch_index) : Error(message), batch_index_(batch_index) {}
  std::int64_t batch_index() const { return batch_index_; }

 private:
  std::int64_t batch_index_;
};
// A DevicePool task that was cancelled before it started.
class Cancelled : public Error { using Error::Error; };

// Kernel source failed to compile: what() holds the build log and the numbered source.
class CompileError : public Error {
 public:
  CompileError(const std::string& message, std::string log, std::string source)
      : Error(message), log_(std::move(log)), source_(std::move(source)) {}
  const std::string& log() const { return log_; }
  const std::string& source() const { return source_; }

 private:
  std::string log_;
  std::string source_;
};

class OutOfMemory : public Error {
 public:
  OutOfMemory(const std::string& message, std::uint64_t requested, std::uint64_t available)
      : Error(message), requested_(requested), available_(available) {}
  std::uint64_t requested_bytes() const { return requested_; }
  // What the device reported as free, or its total memory when it cannot report free memory.
  std::uint64_t available_bytes() const { return available_; }

 private:
  std::uint64_t requested_;
  std::uint64_t available_;
};

}  // namespace porta
