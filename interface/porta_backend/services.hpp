// What a backend plugin may call in the core (libporta), declared in one place and covered by
// kBackendApiVersion (backend.hpp): a plugin includes this folder (interface/porta_backend/) and
// nothing of src/, so a change to the core's internals cannot break a plugin unseen.
//
//   log.hpp         PORTA_LOG, log_enabled, log
//   strings.hpp     cat, join, split, trim, lower, format_bytes, number_lines, key_cat
//   settings.hpp    porta's settings (PORTA_*): typed getters against one table, bad_setting
//   env.hpp         env: environment variables that are not porta's (HOME, XDG_CACHE_HOME)
//   disk_cache.hpp  DiskCache: the compiled-kernel disk cache (plugins keep tuned parameters there)
//   check.hpp       call_name, failure_message, log_failure_message: the error-checking style
//   below           the kernel cache, freeing the cached memory of a physical GPU, the exit
//                   guard, the block interpreter
//
// Everything here is a function libporta exports or a header-only helper; no class whose layout
// the core may change is reached by a plugin (DiskCache is only ever used through the reference
// DiskCache::get() returns, and has no inline member that reads its state).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>

#include "porta_backend/backend.hpp"
#include "porta_backend/check.hpp"
#include "porta_backend/disk_cache.hpp"
#include "porta_backend/env.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/plan.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {

// The kernel the core's per-device cache (src/runtime/kernel_cache.hpp) holds for `key`, compiled from
// `make_source()` on a miss (memory, then disk cache, then device.compile). A compile error is
// remembered for the key and thrown again on later requests, as for generated kernels.
std::shared_ptr<Kernel> cached_kernel(DeviceImpl& device, const std::string& key,
                                      const std::function<KernelSource()>& make_source);

// Frees what porta caches of the memory of d's physical GPU: the core's cached blocks and the
// backend's pools, of d and of every device that is the same GPU through another API (same PCI
// bus id; cuda:0 and NVIDIA's OpenCL device hold one memory). The core calls it before retrying an
// allocation; a backend whose driver allocates lazily, at the launch (NVIDIA's OpenCL), calls it
// before retrying a launch that failed for memory, with include_self false: a launch is made
// with the queue's launch ring held (launch_thread.hpp), and freeing d's own cached blocks first
// drains that ring, which then waits for itself (seen on an H100: opencl:1 hung once cuda:0 held
// 60 GiB of cached blocks). Never throws.
void release_memory_of_physical_gpu(DeviceImpl& d, bool include_self = true) noexcept;

// The exit guard (src/base/exit_guard.hpp says why it exists). watch_exit() registers its exit handler
// again after a run-time compiler may have registered its own teardown: when a backend's devices
// are made and after the plugin's first build. enter_build() is held around every build so that
// exit waits for it; once exit() began it throws BackendUnavailable ("<where>: kernel '<entry>'
// would be compiled after the program began to exit ...").
void watch_exit();
std::shared_lock<std::shared_mutex> enter_build(const std::string& where, const std::string& entry);

// Whether the core's kernels (generated and interpreted) compute dtype t. A backend declares a
// dtype in DeviceInfo::dtypes where this is true and its hardware has it (float64, float16;
// complex128 needs float64).
bool core_computes(DType t);

// The block interpreter (src/interpreter/), for backends without a run-time compiler: runs a
// plan on the host, the plan's handles being host pointers, with the semantics of plan.hpp.
// Thread-safe: callers split the range across threads, ideally in multiples of kInterpreterBlock.
inline constexpr std::int64_t kInterpreterBlock = 4096;
// Computes out elements [begin, end) of `plan` (row-major linear indices).
void interpret_elementwise(const ElementwisePlan& plan, std::int64_t begin, std::int64_t end);
// Computes outputs [out_begin, out_end) of a reduction (linear indices into [outer, inner]).
void interpret_reduction(const ReductionPlan& plan, std::int64_t out_begin, std::int64_t out_end);

}  // namespace porta::detail
