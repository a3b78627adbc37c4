// What the device primitives of indexing, scans and sorting share (primitives/indexing.cpp: gathers,
// scatters, compaction, search; primitives/scan.cpp: scans;
// primitives/radix_sort.cpp: the radix sort): a primitive's
// description (Work) and the one function that runs it, as a generated kernel on compiling devices
// or as a host loop on devices whose memory the host addresses (Kokkos), and host-side helpers.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "codegen/codegen.hpp"
#include "primitives/primitives.hpp"
#include "porta_backend/backend.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {
// The primitives' kernel files, embedded at build time (src/CMakeLists.txt).
extern const char* const kPrimitivesCommonSource;  // primitives/kernels/common.h
extern const char* const kScanSource;      // primitives/kernels/scan.cl
extern const char* const kScanCudaSource;  // primitives/kernels/scan_cuda.cuh
extern const char* const kRadixSortSource;  // primitives/kernels/radix_sort.cl
extern const char* const kIndexingSource;   // primitives/kernels/indexing.cl
}  // namespace porta::detail

namespace porta::detail::primitives {

// The definitions every generated primitive starts with (i64, KERNEL, GLOBAL, GID, GSIZE).
std::string common_prelude(const DialectText& d);
// Section `section` of a kernel file of primitives/kernels/ (OpenCL C, with the macros above and
// each kernel's own), spelled for the dialect: CUDA's text has __local spelled __shared__,
// __global dropped, get_local_id(0) and get_group_id(0) spelled threadIdx.x and blockIdx.x, and
// uchar unsigned char, as DialectText spells them; the rest is the same in both.
std::string kernel_text(const DialectText& d, std::string_view file, std::string_view section);
// The unsigned type of `bytes` bytes: gathers and scatters move elements without looking at them.
std::string bits_type(const DialectText& d, std::size_t bytes);

// The primitives' kernels in the variants their plans take, each whole (common_prelude first), as
// (what it is, its text) for dialect d: codegen_cuda_text_test compiles CUDA's with NVRTC, which
// no device here runs. Gathers and the scatter only, of indexing.cpp's.
using NamedSources = std::vector<std::pair<std::string, std::string>>;
NamedSources scan_kernel_sources(const DialectText& d);
NamedSources radix_sort_kernel_sources(const DialectText& d);
NamedSources indexing_kernel_sources(const DialectText& d);
NamedSources random_integers_kernel_sources(const DialectText& d);

// What one primitive needs to run: its buffers (reads and the one write), kernel source and
// arguments for compiling devices, and a host loop for the others.
struct Work {
  std::vector<const View*> reads;
  const View* write = nullptr;
  const View* write2 = nullptr;  // a second output (radix passes: keys and indices)
  std::string key;
  std::function<std::string(const DialectText&)> source;  // defines the kernel "porta_k"
  std::vector<std::string> options;                       // build options (KernelSource::options)
  std::function<void(std::vector<KernelArg>&)> args;       // after the pointers, in order
  std::int64_t items = 0;                                  // loop length
  std::size_t groups = 0, group = 0;                       // an exact launch of `groups` x `group` (scans)
  std::function<void(const std::vector<std::uint8_t*>&)> host;  // pointers: reads..., write
};

// NVIDIA's OpenCL: the build option that bounds a kernel's registers (a .maxnreg directive in its
// PTX, ignored elsewhere) so that `work_items` work-items share an SM's 65536, as CUDA's
// __launch_bounds__ does.
inline std::vector<std::string> ptx_maxnreg_option(int work_items) {
  return {cat("-DPORTA_PTX_MAXNREG=", std::min(255, 65536 / work_items / 8 * 8))};
}

// Runs w on its write's device, on this thread's queue, ordered after the pending writes of what it
// reads (and before later reads of what it writes).
void run(const Work& w, DType t_write);
std::uint8_t* host_pointer(DeviceImpl& dev, const View& v);
// Zeroes the first `count` elements of `item` bytes of v (the driver's fill, on this thread's
// queue, ordered as a write).
void zero_fill(const View& v, std::size_t item, std::size_t count);
KernelArg mem(const View& v);
KernelArg i64(std::int64_t x);

// Host values of dtype t as double / int64, for the loops that compute.
double host_load(DType t, const std::uint8_t* p, std::int64_t i);
std::int64_t host_load_int(const std::uint8_t* p, std::int64_t i);
std::int64_t wrap(std::int64_t k, std::int64_t len);

// Scans, radix passes and compaction work in tiles of GROUP x ITEMS elements, one work-group each.
inline constexpr int kScanGroup = 256, kScanItems = 8, kScanTile = kScanGroup * kScanItems;

// The order-preserving unsigned key of one element's bits, on the host (primitives/radix_sort.cpp).
// Not for complex dtypes: their keys are three words, host_sort_key's.
std::uint64_t host_radix_key(DType t, const std::uint8_t* p, std::int64_t e, bool descending);
// Any dtype's key as (class, high, low), compared lexicographically: complex numbers in NumPy's
// order (NaN class, the real part's key, the imaginary part's), others (0, 0, host_radix_key).
using SortKey = std::array<std::uint64_t, 3>;
SortKey host_sort_key(DType t, const std::uint8_t* p, std::int64_t e, bool descending);
// KEY3(raw, c, hi, lo) as device text (radix_sort.cpp), after typedefs RT (the element's bits)
// and KT (a key part's: 4 bytes for keys of up to 32 bits and complex64, 8 otherwise).
std::string key3_text(const DialectText& d, DType t);
int part_bits(DType t);

// "x < y" as device text, with NaNs last.
std::string compute_lt(DType t);

}  // namespace porta::detail::primitives
