// The array-API rows of the suite (issue 19): scans, gathers, masks, sorts and writes into views.
// register_array_api hands each case to the suite's own registration (porta_bench.cpp), which
// names, times (device events, medians) and reports it like every other row.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <porta/porta.hpp>

namespace porta_bench {

struct ArrayApiCase {
  std::string family;         // "cumsum_f32", "sort_f32", ...
  double bytes_per_element;   // bytes read + written per input element, for GB/s
  double items_per_element;   // counted as "flops" (keys for sorts), for a rate in items/s
  // Makes the inputs of n elements on the device and returns the operation to time.
  std::function<std::function<porta::Array()>(const porta::Device&, std::int64_t n)> setup;
};

// Calls `add` once per case.
void register_array_api(const std::function<void(const ArrayApiCase&)>& add);

}  // namespace porta_bench
