// Host data of the dtypes that issue 37 added (int8 ... uint64, complex64, complex128) as raw
// element bytes, for the primitives' tests (sort, scan, index, write, creation, random): random
// elements with each type's edges, NumPy's order (complex: lexicographic, NaNs last in NumPy's
// four classes), and an array's bytes back from the device. test_common's upload() and fetch()
// speak doubles, which cannot hold uint64 or int64 extremes exactly nor complex numbers; these
// move bits and need no elementwise kernel (from_host, to_host), so a primitive is tested alone.
#pragma once

#include <porta/array.hpp>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace porta_test {

inline constexpr porta::DType kNewIntDTypes[] = {porta::DType::int8,   porta::DType::int16,  porta::DType::uint8,
                                                 porta::DType::uint16, porta::DType::uint32, porta::DType::uint64};
inline constexpr porta::DType kNewDTypes[] = {porta::DType::int8,   porta::DType::int16,  porta::DType::uint8,
                                              porta::DType::uint16, porta::DType::uint32, porta::DType::uint64,
                                              porta::DType::complex64, porta::DType::complex128};

using Bytes = std::vector<std::uint8_t>;

// Element i of integer dtype t as int64 / uint64 (its value where it fits; uint64: its bits).
inline std::int64_t int_at(porta::DType t, const Bytes& b, std::int64_t i) {
  const std::uint8_t* p = b.data() + static_cast<std::size_t>(i) * porta::itemsize(t);
  switch (t) {
    case porta::DType::int8: return static_cast<std::int8_t>(*p);
    case porta::DType::uint8: return *p;
    case porta::DType::int16: { std::int16_t x; std::memcpy(&x, p, 2); return x; }
    case porta::DType::uint16: { std::uint16_t x; std::memcpy(&x, p, 2); return x; }
    case porta::DType::int32: { std::int32_t x; std::memcpy(&x, p, 4); return x; }
    case porta::DType::uint32: { std::uint32_t x; std::memcpy(&x, p, 4); return x; }
    default: { std::int64_t x; std::memcpy(&x, p, 8); return x; }
  }
}
inline void set_int(porta::DType t, Bytes& b, std::int64_t i, std::int64_t v) {
  std::memcpy(b.data() + static_cast<std::size_t>(i) * porta::itemsize(t), &v, porta::itemsize(t));  // little-endian
}
// Element i of complex dtype t.
inline std::complex<double> complex_at(porta::DType t, const Bytes& b, std::int64_t i) {
  if (t == porta::DType::complex64) {
    float x[2];
    std::memcpy(x, b.data() + 8 * static_cast<std::size_t>(i), 8);
    return {x[0], x[1]};
  }
  double x[2];
  std::memcpy(x, b.data() + 16 * static_cast<std::size_t>(i), 16);
  return {x[0], x[1]};
}
inline void set_complex(porta::DType t, Bytes& b, std::int64_t i, double re, double im) {
  if (t == porta::DType::complex64) {
    const float x[2] = {static_cast<float>(re), static_cast<float>(im)};
    std::memcpy(b.data() + 8 * static_cast<std::size_t>(i), x, 8);
  } else {
    const double x[2] = {re, im};
    std::memcpy(b.data() + 16 * static_cast<std::size_t>(i), x, 16);
  }
}

// n random elements of t with many ties and the edges: integers take their type's min and max,
// 0, 1 and -1 (signed) among small values; complex numbers take 0, -0.0, +-inf and NaNs (both
// signs, a payload) in either part, and small whole numbers (ties).
inline Bytes random_bytes(porta::DType t, std::int64_t n, std::mt19937_64& rng) {
  Bytes b(static_cast<std::size_t>(n) * porta::itemsize(t));
  std::uniform_int_distribution<int> pick(0, 9);
  if (porta::is_complex(t)) {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    auto part = [&]() -> double {
      switch (pick(rng)) {
        case 0: return 0.0;
        case 1: return -0.0;
        case 2: return pick(rng) < 5 ? inf : -inf;
        case 3: return pick(rng) < 5 ? nan : -nan;
        default: return static_cast<double>(static_cast<int>(pick(rng)) - 5);
      }
    };
    for (std::int64_t i = 0; i < n; ++i) set_complex(t, b, i, part(), part());
    // A NaN with a payload in a real part, where there is room.
    if (n > 3) {
      if (t == porta::DType::complex64) {
        std::uint32_t bits = 0x7fa00001u;
        std::memcpy(b.data() + 8 * 3, &bits, 4);
      } else {
        std::uint64_t bits = 0xfff0000000000123ull;
        std::memcpy(b.data() + 16 * 3, &bits, 8);
      }
    }
    return b;
  }
  const porta::IntInfo info = porta::iinfo(t);
  std::uniform_int_distribution<std::uint64_t> any;
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t v;
    switch (pick(rng)) {
      case 0: v = info.min; break;
      case 1: v = static_cast<std::int64_t>(info.max); break;
      case 2: v = porta::is_signed_integer(t) ? -1 : 1; break;
      case 3: case 4: v = static_cast<std::int64_t>(any(rng)); break;  // any bits of the width
      default: v = static_cast<std::int64_t>(pick(rng)); break;
    }
    set_int(t, b, i, v);
  }
  return b;
}

// NumPy's "a < b" for elements i and j of dtype t (numpy/_core/src/npysort's CFLOAT_LT for complex).
inline bool numpy_less(porta::DType t, const Bytes& a, std::int64_t i, const Bytes& b, std::int64_t j) {
  if (porta::is_complex(t)) {
    const std::complex<double> x = complex_at(t, a, i), y = complex_at(t, b, j);
    const double ar = x.real(), ai = x.imag(), br = y.real(), bi = y.imag();
    if (ar < br) return ai == ai || bi != bi;
    if (ar > br) return bi != bi && ai == ai;
    if (ar == br || (ar != ar && br != br)) return ai < bi || (bi != bi && ai == ai);
    return br != br;
  }
  if (porta::is_unsigned_integer(t)) return static_cast<std::uint64_t>(int_at(t, a, i)) < static_cast<std::uint64_t>(int_at(t, b, j));
  return int_at(t, a, i) < int_at(t, b, j);
}

// The element's bytes, for messages.
inline std::string element_text(porta::DType t, const Bytes& b, std::int64_t i) {
  if (porta::is_complex(t)) {
    const std::complex<double> z = complex_at(t, b, i);
    return "(" + std::to_string(z.real()) + (std::signbit(z.real()) ? "[-]" : "") + ", " + std::to_string(z.imag()) +
           (std::signbit(z.imag()) ? "[-]" : "") + ")";
  }
  return porta::is_unsigned_integer(t) ? std::to_string(static_cast<std::uint64_t>(int_at(t, b, i))) : std::to_string(int_at(t, b, i));
}

inline porta::Array upload_bytes(const Bytes& b, porta::DType t, const porta::Shape& shape, const porta::Device& d) {
  return porta::from_host(b.data(), t, shape, d);
}
inline Bytes bytes_of(const porta::Array& a) {
  Bytes b(a.nbytes());
  a.to_host(a.dtype(), b.data(), b.size());
  return b;
}
inline std::vector<std::int64_t> int64s_of(const porta::Array& a) { return a.to_vector<std::int64_t>(); }

}  // namespace porta_test
