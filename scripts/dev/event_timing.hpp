// Device-event timing for the probes of scripts/dev that run through porta's API (uniform_probe,
// normal_probe): the median over 12 rounds of the mean of 5 back-to-back runs, after one warm-up
// run a round.
#pragma once

#include <porta/porta.hpp>

#include <algorithm>
#include <vector>

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F> double time_ms(const porta::Device& d, F&& f) {
  std::vector<double> ms;
  for (int r = 0; r < 12; ++r) {
    f();
    porta::Event a = porta::Event::record(d);
    for (int i = 0; i < 5; ++i) f();
    porta::Event b = porta::Event::record(d);
    b.synchronize();
    ms.push_back(b.elapsed_ms(a) / 5);
  }
  return median(ms);
}
