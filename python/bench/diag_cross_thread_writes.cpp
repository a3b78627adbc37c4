// The C++ twin of diag_cross_thread_writes.py (not built by CMake; build it against a build tree:
//   g++ -std=c++20 -O1 -Iinclude -Ibuild/include python/bench/diag_cross_thread_writes.cpp \
//       -Lbuild/lib -lporta -Wl,-rpath,$PWD/build/lib -lpthread -o /tmp/diag_writes
//   /tmp/diag_writes opencl:0 [pause_us] [read_before_join] [hold]
// A worker thread writes x[0] = src[k] (sources uploaded on the main thread), then x.T[0] = 7, five
// times; the main thread reads x. With read_before_join=1 it reads once the worker's function has
// returned but before joining it, as Python's Thread.join() allows (it returns before the OS thread
// has run its thread_local destructors); with hold=1 as well the worker stays alive until the read is
// done. x[0, 0] must be 7 every way.
// On the build machine on 2026-12-01 (13:00 UTC), opencl:0 (PoCL 5.0): 0 wrong of 100 after a join
// (and 0 of 300 with pauses of 20-1000 us between writes); 66, 1, 0, 16, 0, 0 and 92 wrong of 100 in seven runs
// reading before the join; 0 of 400 with the worker held alive through the read (so the stale read
// needs the writer's thread to be ending: its thread_local queue torn down while another thread
// reads); kokkos:0: 0 of 100.
#include <porta/porta.hpp>
#include <porta/index.hpp>
#include <cstdio>
#include <random>
#include <thread>
#include <atomic>
#include <chrono>
#include <cstdlib>
int main(int argc, char** argv) {
  porta::Device dev = porta::device(argc > 1 ? argv[1] : "opencl:0");
  std::mt19937 gen(1);
  std::normal_distribution<float> nd;
  int bad = 0, trials = 100;
  const bool detach_read = argc > 3 && std::atoi(argv[3]) != 0;
  const bool hold = argc > 4 && std::atoi(argv[4]) != 0;
  const int pause = argc > 2 ? std::atoi(argv[2]) : 0;
  for (int t = 0; t < trials; ++t) {
    porta::DeviceScope scope(dev);
    porta::Array x = porta::zeros({2, 37}, porta::DType::float32, dev);
    std::vector<std::vector<float>> vals(5, std::vector<float>(37));
    for (auto& v : vals) for (auto& f : v) f = nd(gen);
    std::vector<porta::Array> srcs;
    for (auto& v : vals) srcs.push_back(porta::from_host(v, {37}, dev));
    if (pause) std::this_thread::sleep_for(std::chrono::microseconds(pause));
    std::atomic<bool> done{false}, read{false};
    std::thread th([&] {
      porta::DeviceScope s(dev);
      for (int k = 0; k < 5; ++k) {
        porta::assign(x.slice({porta::Slice{0, 1, 1}}).reshape({37}), srcs[k]);
        if (pause) std::this_thread::sleep_for(std::chrono::microseconds(pause));
        porta::assign(x.transpose().slice({porta::Slice{0, 1, 1}}).reshape({2}), porta::Operand(7.0));
        if (pause) std::this_thread::sleep_for(std::chrono::microseconds(pause));
      }
      done.store(true);
      if (hold) while (!read.load()) std::this_thread::yield();  // the thread stays alive through the read
    });
    // As Python's Thread.join: it returns once the thread's function is done, while the OS
    // thread may still be running its thread_local destructors.
    if (!detach_read) th.join();
    while (!done.load()) std::this_thread::yield();
    auto got = x.to_vector<float>();
    read.store(true);
    if (detach_read) th.join();
    bool ok = got[0] == 7.0f && got[37] == 7.0f;
    for (int j = 1; j < 37; ++j) ok = ok && got[j] == vals[4][j] && got[37 + j] == 0.0f;
    bad += !ok;
  }
  std::printf("%s: wrong reads %d of %d\n", dev.spec().c_str(), bad, trials);
  return bad != 0;
}
