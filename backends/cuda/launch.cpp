// Kernel launches: OpenCL-style NDRange words (global work-items, local group size) become a
// CUDA grid and block, and porta's kernel arguments become cuLaunchKernel's parameter array.
#include <array>
#include <cstring>

#include "cuda/cuda.hpp"
#include "porta_backend/strings.hpp"

namespace porta::cuda {
namespace {

// The same on every GPU CUDA 13 supports.
constexpr std::size_t kMaxBlockThreads = 1024;
constexpr std::array<std::size_t, 3> kMaxBlock{1024, 1024, 64};
constexpr std::array<std::size_t, 3> kMaxGrid{2147483647, 65535, 65535};
constexpr std::size_t kInlineArgs = 32;

std::string dims_text(const std::array<std::size_t, 3>& d) { return detail::cat("(", d[0], ", ", d[1], ", ", d[2], ")"); }

}  // namespace

void Device::launch(detail::QueueImpl& q, detail::Kernel& k, const detail::LaunchDims& dims,
                    std::span<const detail::KernelArg> args) {
  Queue& queue = own(q);
  Kernel& kernel = own(k);
  for (std::size_t g : dims.global)
    if (g == 0) return;  // nothing to run

  std::array<std::size_t, 3> grid{}, block{};
  bool runtime_chooses = dims.local[0] == 0 && dims.local[1] == 0 && dims.local[2] == 0;
  if (runtime_chooses) {
    std::size_t group = info_.launch.group_size;
    block = {group, 1, 1};
    grid = {(dims.global[0] + group - 1) / group, dims.global[1], dims.global[2]};
  } else {
    for (int d = 0; d < 3; ++d) {
      std::size_t local = dims.local[d] ? dims.local[d] : 1;  // {256, 0, 0}: a 1-D block
      if (dims.global[d] % local != 0)
        throw InvalidArgument(detail::cat(label(), ": launching '", kernel.entry(), "' with global size ",
                                          dims_text(dims.global), " and local size ", dims_text(dims.local),
                                          ": each global size must be a multiple of the local size"));
      block[d] = local;
      grid[d] = dims.global[d] / local;
    }
  }
  bool fits = block[0] * block[1] * block[2] <= kMaxBlockThreads;
  for (int d = 0; d < 3; ++d) fits = fits && block[d] <= kMaxBlock[d] && grid[d] <= kMaxGrid[d];
  if (!fits)
    throw InvalidArgument(detail::cat(label(), ": launching '", kernel.entry(), "' with grid ", dims_text(grid),
                                      " and block ", dims_text(block), ": a block holds at most 1024 threads (",
                                      dims_text(kMaxBlock), " per dimension) and a grid at most ", dims_text(kMaxGrid),
                                      " blocks"));

  std::size_t shared = dims.dynamic_local_bytes;
  std::size_t count = 0;
  for (const auto& a : args) {
    if (a.kind == detail::KernelArg::Kind::local_memory) shared += a.size;  // CUDA has one dynamic block, not a parameter
    else ++count;
  }
  if (shared > 48 * 1024) {
    ctx_->make_current();
    kernel.reserve_shared_memory(shared);
  }

  // On the queue's launch thread (launch_thread.hpp): the parameters are copied into the record.
  // Not while the stream records a graph: the capture then sees the launches on this thread.
  if (detail::launch_thread_enabled(info_) && count <= LaunchItem::kMaxParams && !queue.capturing()) {
    if (auto keep = kernel.weak_from_this().lock()) {
      queue.push_launch([&](LaunchItem& item) {
        item.kernel = std::move(keep);
        for (int d = 0; d < 3; ++d) {
          item.grid[d] = static_cast<unsigned>(grid[d]);
          item.block[d] = static_cast<unsigned>(block[d]);
        }
        item.shared = static_cast<unsigned>(shared);
        unsigned i = 0;
        for (const auto& a : args) {
          if (a.kind == detail::KernelArg::Kind::memory) {
            item.params[i++] = device_ptr(a.handle, a.offset_bytes);
          } else if (a.kind == detail::KernelArg::Kind::scalar) {
            item.params[i] = 0;
            std::memcpy(&item.params[i++], a.value.data(), a.size);
          }
        }
        item.count = i;
      });
      return;
    }
  }

  // Each parameter is a pointer to its value; memory arguments need a CUdeviceptr to point at.
  std::array<CUdeviceptr, kInlineArgs> inline_ptrs;
  std::array<void*, kInlineArgs> inline_params;
  std::vector<CUdeviceptr> heap_ptrs;
  std::vector<void*> heap_params;
  CUdeviceptr* ptrs = inline_ptrs.data();
  void** params = inline_params.data();
  if (args.size() > kInlineArgs) {
    heap_ptrs.resize(args.size());
    heap_params.resize(args.size());
    ptrs = heap_ptrs.data();
    params = heap_params.data();
  }
  count = 0;
  for (const auto& a : args) {
    if (a.kind == detail::KernelArg::Kind::memory) {
      ptrs[count] = device_ptr(a.handle, a.offset_bytes);
      params[count] = &ptrs[count];
      ++count;
    } else if (a.kind == detail::KernelArg::Kind::scalar) {
      params[count++] = const_cast<std::uint8_t*>(a.value.data());  // the driver only reads it
    }
  }

  CUstream stream = queue.native();  // after the launches the launch thread still holds
  ctx_->make_current();
  const unsigned g[3] = {static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2])};
  const unsigned b[3] = {static_cast<unsigned>(block[0]), static_cast<unsigned>(block[1]), static_cast<unsigned>(block[2])};
  CUresult r = launch_kernel(kernel, g, b, static_cast<unsigned>(shared), stream, count ? params : nullptr);
  if (r != CUDA_SUCCESS)
    throw_error(r, detail::cat("cuLaunchKernel of '", kernel.entry(), "' with grid ", dims_text(grid), ", block ",
                               dims_text(block), ", ", shared, " bytes of shared memory,"),
                label());
}

CUresult launch_kernel(const Kernel& k, const unsigned grid[3], const unsigned block[3], unsigned shared, CUstream stream,
                       void** params) {
  if (!k.programmatic())
    return cuLaunchKernel(k.native(), grid[0], grid[1], grid[2], block[0], block[1], block[2], shared, stream, params, nullptr);
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attr.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config{};
  config.gridDimX = grid[0];
  config.gridDimY = grid[1];
  config.gridDimZ = grid[2];
  config.blockDimX = block[0];
  config.blockDimY = block[1];
  config.blockDimZ = block[2];
  config.sharedMemBytes = shared;
  config.hStream = stream;
  config.attrs = &attr;
  config.numAttrs = 1;
  return cuLaunchKernelEx(&config, k.native(), params, nullptr);
}

}  // namespace porta::cuda
