// The Kokkos backend's types: the backend (which owns Kokkos' lifetime), its one device on
// Kokkos' default host execution space, and the device's queues and events. Kokkos' headers stay
// in the .cpp files.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "porta_backend/backend.hpp"
#include "porta_backend/graph.hpp"

namespace porta::kokkos {

using detail::Handle;

// Work runs on the calling thread and is finished when the call returns, so every event is
// complete when it is recorded; a timing event keeps the time it was recorded.
class Event final : public detail::EventImpl {
 public:
  explicit Event(bool timing);
  bool done() override { return true; }
  void synchronize() override {}
  double elapsed_ms_since(detail::EventImpl& start) override;

 private:
  bool timing_;
  std::chrono::steady_clock::time_point time_;
};

class Queue final : public detail::QueueImpl {
 public:
  std::shared_ptr<detail::EventImpl> record(bool timing) override;
  void wait(detail::EventImpl& e) override;
  void synchronize() override;
  void* native_handle() override { return nullptr; }

  // Graphs: the calls made while recording become steps of a LaunchReplay (graph.hpp).
  void begin_capture() override { recorder_.begin("kokkos:0"); }
  std::unique_ptr<detail::GraphImpl> end_capture(std::span<const detail::MemoryRange> rebindable) override {
    return recorder_.end(rebindable);
  }
  void abort_capture() noexcept override { recorder_.abort(); }
  bool capturing() const override { return recorder_.active(); }
  detail::QueueRecorder& recorder() { return recorder_; }

 private:
  detail::QueueRecorder recorder_;
};

// The recorder of `q` when it is recording a graph, else null.
detail::QueueRecorder* recording(detail::QueueImpl& q);

class Device final : public detail::DeviceImpl {
 public:
  Device();
  ~Device() override;

  const detail::DeviceInfo& info() const override { return info_; }
  std::shared_ptr<detail::QueueImpl> create_queue() override;

  Handle allocate(std::size_t bytes, detail::QueueImpl& q) override;
  void deallocate(Handle h, std::size_t bytes, detail::QueueImpl* q) noexcept override;
  std::uint64_t free_memory() const override;

  void write(detail::QueueImpl& q, Handle dst, std::size_t dst_offset, const void* src, std::size_t bytes) override;
  void read(detail::QueueImpl& q, Handle src, std::size_t src_offset, void* dst, std::size_t bytes) override;
  void copy(detail::QueueImpl& q, Handle src, std::size_t src_offset, Handle dst, std::size_t dst_offset,
            std::size_t bytes) override;
  void fill(detail::QueueImpl& q, Handle dst, std::size_t offset, const void* pattern, std::size_t pattern_size,
            std::size_t bytes) override;
  void* map(detail::QueueImpl& q, Handle h, std::size_t bytes) override;
  void unmap(detail::QueueImpl& q, Handle h, void* p) override;
  void* host_address(Handle h) override;  // interop.cpp
  Imported import_memory(void* native, MemoryKind kind, std::size_t begin, std::size_t end) override;

  void execute(detail::QueueImpl& q, const detail::ElementwisePlan& plan) override;
  void execute(detail::QueueImpl& q, const detail::ReductionPlan& plan) override;
  void matmul(detail::QueueImpl& q, const detail::MatmulArgs& args) override;
  std::shared_ptr<detail::FftPlanImpl> make_fft_plan(const detail::FftDesc& desc) override;  // fft.cpp
  void solver(detail::QueueImpl& q, const detail::SolverArgs& args) override;

 private:
  detail::DeviceInfo info_;
  std::uint64_t physical_bytes_ = 0;
  // Held around a parallel dispatch when the host execution space cannot take dispatches from
  // several threads at once (execute.cpp says which spaces can).
  std::mutex dispatch_mutex_;
};

class Backend final : public detail::BackendImpl {
 public:
  Backend();
  ~Backend() override;
  porta::Backend kind() const override { return porta::Backend::kokkos; }
  std::string version() const override;
  const std::vector<std::shared_ptr<detail::DeviceImpl>>& devices() const override { return devices_; }

 private:
  bool initialized_here_ = false;  // porta called Kokkos::initialize, so it calls Kokkos::finalize
  std::vector<std::shared_ptr<detail::DeviceImpl>> devices_;
};

// "3.4.1": the Kokkos porta was compiled against.
std::string kokkos_version();
// Throws DeviceError when the program has finalised Kokkos while porta still uses the device.
void require_kokkos();
// The host's physical memory, and what of it is available now (MemAvailable), in bytes.
std::uint64_t physical_memory_bytes();
std::uint64_t available_memory_bytes();

}  // namespace porta::kokkos
