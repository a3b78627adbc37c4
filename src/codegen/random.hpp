// Random-number plans in generated elementwise kernels (codegen/random.cpp): how they are laid
// out on each device and the loop shapes that run their Philox blocks; codegen/elementwise.cpp
// builds the rest of the kernel around them. The draws themselves are emit_random_blocks
// (codegen/codegen.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "codegen/codegen.hpp"

namespace porta::detail {

// Plans that draw random numbers on one-vector-per-work-item devices: vectors of 64 bytes (16
// float32), four of them a work-item, so that the work-item's 16 Philox blocks (64 float32, 32
// float64) run once on uint16 vectors (porta_philox_16). 2^24 float32 uniform ran 3.9 GB/s with
// one 64-byte vector (four blocks on uint4) against 2.0 with 8 float32 and two scalar blocks a
// work-item, on the 2-core build machine; see codegen/text.cpp for uint16 against uint4.
inline constexpr std::size_t kCpuRandomVectorBytes = 64;
inline constexpr int kCpuRandomSubVectors = 4;

// CUDA random plans writing float32 (no float64 inside): __launch_bounds__(256, 8), so that 8
// blocks of 256 stay resident on a unit (32 registers a thread: ptxas gave 40 to the uniform
// kernel with two vectors an iteration, so 6 blocks, and spills nothing at 32, nor for normal;
// float64 Box-Muller and normal into float16 with a scale would spill).
bool random_launch_bounded(const ElementwisePlan& plan, const DeviceInfo& info);

// The grid-stride loop of a random plan on GPUs, after `nv` (the count of whole vectors of V
// elements): two vectors an iteration, `body` run at `e` for each.
std::string random_vector_loop(const std::string& idx, int V, const std::string& body);

// The words emit_random_blocks gives each lane, and the code of one vector of a work-item at
// `e`: `tail` for the last, partial vector, `words` null where the vector draws its own.
using RandomWords = std::vector<std::vector<std::string>>;
using VectorBody = std::function<std::string(bool tail, const RandomWords* words)>;

// The body of a one-vector-per-work-item kernel of a random plan, after its parameters: `sub`
// vectors of V lanes a work-item from e0.
std::string random_work_item(const ElementwisePlan& plan, const DialectText& d, const std::string& idx, int V, int sub,
                             const VectorBody& body);

}  // namespace porta::detail
