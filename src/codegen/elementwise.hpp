// What the elementwise generator's two files share: codegen/elementwise.cpp (a plan's layout on
// the device, its 1-D kernels and launches) and codegen/elementwise_2d.cpp (the 2-D kernels of
// plans with strided or broadcast operands, and their launches).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "codegen/codegen.hpp"
#include "codegen/layout.hpp"

namespace porta::detail::elementwise {

// How one plan runs on one device (analyse() in codegen/elementwise.cpp).
struct Layout {
  InputLayout in;
  Access output = Access::contiguous;
  bool grid_stride = true;
  int vec = 1;
  // One-vector-per-work-item devices: vectors a work-item writes (random plans: their Philox
  // blocks run on one set of uint16 vectors, kCpuRandomSubVectors).
  int sub = 1;
  int unroll = 1;  // grid-stride vector loops: vectors loaded before any is stored (PORTA_EW_UNROLL)
  bool bounded = false;  // __launch_bounds__(256, 8): random_launch_bounded
  // CPU devices' vector kernels with a large output: whole vectors stored non-temporally
  // (PORTA_EW_STREAM, kCpuStreamBytes in codegen/elementwise.cpp).
  bool stream = false;
  // Grid-stride devices, where the launch has a work-item for every vector (or element): each
  // does its one without the grid-stride loops (see analyse()).
  bool once = false;
  // 2-D plans with a strided or broadcast operand: row and column indices without a division
  // per element; `tiled`: the transposed inputs come through a local-memory tile.
  bool two_d = false;
  bool tiled = false;
  Terms2 out_terms;
  std::string key;
  bool any_strided() const { return output == Access::strided || in.any_strided(); }
};

// Tiles of the 2-D path: kTile x kTile elements, work-groups of kTile x kTileRows work-items.
inline constexpr int kTile = 32;
inline constexpr int kTileRows = 8;
// Work-items a group on one-element-per-work-item devices (PoCL), vectors or not: PoCL compiles
// a kernel once per local size.
inline constexpr std::int64_t kCpuGroup = 256;

// Runs a plan with `two_d` set: the 2-D kernels through the device's kernel cache.
void run_2d(DeviceImpl& device, const std::shared_ptr<QueueImpl>& q, const ElementwisePlan& plan, const Layout& l,
            const DialectText& d);

}  // namespace porta::detail::elementwise
