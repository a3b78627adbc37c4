// What the pool tests share (pool_test.cpp, pool_devices_test.cpp): a task that squares numbers on
// its device and checks it is the current one, its host reference, and counts for messages.
#pragma once

#include "test_common.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace porta_test {

// Squares 0..n-1 on the task's device and checks the values; returns the sum.
inline double square_sum(const Device& d, int n, int shift) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<float>(i + shift);
  Array a = porta::from_host(v, {n});  // the current device, which the worker set
  if (a.device() != d) throw std::runtime_error("the task's arrays are not on its device " + d.spec());
  return fetch(porta::sum((a * a).astype(DType::int64))).value(0);
}

inline double square_sum_ref(int n, int shift) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += static_cast<double>(i + shift) * (i + shift);
  return s;
}

inline std::string counts(const std::vector<std::int64_t>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return "{" + s + "}";
}

}  // namespace porta_test
