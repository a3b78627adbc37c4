// porta's settings: every PORTA_* environment variable the library, its plugins, porta_mpi and
// the Python module read, in one table, and the one parser that reads them
// (include/porta/settings.hpp; plugins reach it through interface/porta_backend/settings.hpp).
//
// A bad value takes the setting's policy, one of two:
//   warn   a warning through PORTA_LOG, once for each value, naming the variable, the value and
//          what is used instead (the default); for settings where another value gives the same
//          results, only slower, or less output.
//   error  porta::InvalidArgument naming the variable, the value and what it takes; for settings
//          where going on with the default would give a wrong result: a program on a device or
//          backend it did not ask for, or a test or tuning run that checks or times another kernel
//          than the one it names, under that one's name. `why_error` says which.
// Settings whose text another part of porta parses (PORTA_OPENCL_GEMM's paths, PORTA_BACKEND's
// list) report a bad value through bad_setting(), which applies the same policy.
//
// To add a setting: a row below, read it with the typed getters (never getenv), and regenerate
// docs/guide/settings.md with scripts/dev/settings_doc.sh (porta-info --settings-markdown; CTest's
// settings.check fails until then).
#include "porta_backend/settings.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <set>

#include <porta/error.hpp>

#include "porta_backend/env.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {
namespace {

enum class Type { choice, flag, integer, number, text, path, list };
enum class Audience { user, tuning };
enum class OnBad { warn, error, unchecked };

struct Spec {
  const char* name;
  Type type;
  // choice: the values, separated by spaces (an alias as "alias=value"); integer: unused (lo,
  // hi); number: its unit; text, path, list: the form, in words (Markdown: `code` in backticks).
  const char* values;
  double lo, hi;
  bool power_of_two;
  // The default as a value of the setting ("64", "exact", "on"), or empty when the device decides;
  // then default_words says what holds.
  const char* default_value;
  const char* default_words;
  const char* read;  // when porta reads it
  Audience audience;
  OnBad on_bad;
  const char* why_error;  // for OnBad::error: what would be wrong if porta went on
  const char* meaning;
};

constexpr double kNoLimit = std::numeric_limits<double>::infinity();
constexpr const char* kWrongDevice = "the program would run on a device it did not ask for";
constexpr const char* kWrongKernel =
    "a test or tuning run would check or time another kernel than the one it names";
constexpr const char* kWrongPath =
    "a forced path is asked for its own kernels and rounding: another path's results would pass for its";

// The table. Its order is porta-info's and the page's: what users set first, then the knobs for
// porta's own tests, benchmarks and probes.
constexpr Spec kTable[] = {
    {"PORTA_BACKEND", Type::list, "`cuda`, `opencl`, `kokkos`, separated by commas", 0, 0, false, "",
     "every backend built, in the order `cuda,opencl,kokkos`", "once, when the backends load", Audience::user,
     OnBad::error, "the program would run on a backend it excluded",
     "The backends to load, in order of preference; the others are not loaded. A name that is no backend, or "
     "backends without devices, is an error at first use that lists what exists."},
    {"PORTA_DEVICE", Type::text, "a device (`cuda:0`, `opencl:1`, `kokkos`) or a kind (`gpu`, `cpu`)", 0, 0, false, "",
     "the first GPU in the backends' order, else the first device", "once, at the first use of the default device",
     Audience::user, OnBad::error, kWrongDevice,
     "The default device; a device that does not exist is a `DeviceError` that lists those that do."},
    {"PORTA_PLUGIN_PATH", Type::path, "directories separated by `:`", 0, 0, false, "", "libporta's own directory only",
     "once, when the backends load", Audience::user, OnBad::unchecked, "",
     "Directories searched for the backend plugins before libporta's own; a plugin that is missing or fails to "
     "load is reported with the reason (`porta-info`, `PORTA_LOG=info`)."},
    {"PORTA_LOG", Type::choice, "error warn info debug warning=warn", 0, 0, false, "warn", "",
     "once, at the first message", Audience::user, OnBad::warn, "",
     "What porta writes to stderr: plugin loading, device choice, compiles, cache use."},
    {"PORTA_MATMUL", Type::choice, "exact tf32", 0, 0, false, "exact", "", "once, at the first matmul",
     Audience::user, OnBad::warn, "",
     "Whether float32 matmul may use TF32 tensor cores (cuBLAS, the OpenCL tensor-core kernels)."},
    {"PORTA_FFT_CACHE", Type::integer, "", 0, 4096, false, "16", "", "once, at the first fft", Audience::user,
     OnBad::warn, "",
     "The FFT plans kept per device (least recently used first out, as CuPy's plan cache); 0 keeps none."},
    {"PORTA_CUDA_FFT", Type::choice, "cufft vkfft", 0, 0, false, "cufft", "", "when the CUDA devices are made",
     Audience::user, OnBad::warn, "",
     "The FFT library of CUDA devices: cuFFT, or VkFFT's CUDA backend where porta was built with VkFFT's header."},
    {"PORTA_CUDA_SVD", Type::choice, "auto gesvdj gesvd", 0, 0, false, "auto", "", "at each SVD on a CUDA device",
     Audience::tuning, OnBad::warn, "",
     "cuSOLVER's routine for the SVD of a matrix: gesvdj takes the Jacobi sweeps (PyTorch's default driver), "
     "retrying with gesvd where they did not converge; auto takes gesvd (bidiagonalization, CuPy's) for one "
     "matrix and gesvdjBatched for stacks of matrices up to 32 x 32 (CuPy's too), with the same retry; gesvd takes "
     "gesvd always. While a graph is being recorded, no retry (gesvd for one matrix)."},
    {"PORTA_OPENCL_FFT", Type::choice, "auto vkfft", 0, 0, false, "auto", "", "when the OpenCL devices are made",
     Audience::user, OnBad::warn, "",
     "The FFT library of OpenCL devices: auto is porta's host FFT on CPU devices whose memory is the host's (PoCL), "
     "VkFFT's OpenCL backend on the others; vkfft takes VkFFT on every device, where porta was built with its header."},
    {"PORTA_ALLOC", Type::choice, "cached direct", 0, 0, false, "cached", "",
     "once, at the first allocation (CUDA: when its devices are made)", Audience::user, OnBad::warn, "",
     "direct: no memory caching (porta's pool nor CUDA's), so that sanitizers and leak checkers see every "
     "allocation."},
    {"PORTA_LAUNCH", Type::choice, "auto thread sync", 0, 0, false, "auto", "", "once, at the first launch",
     Audience::user, OnBad::warn, "",
     "Whether launches go through each queue's launch thread; auto: on GPUs of hosts with 4 or more hardware "
     "threads. sync reports a driver's launch error at the launch, as `CUDA_LAUNCH_BLOCKING` does."},
    {"PORTA_CACHE", Type::flag, "", 0, 0, false, "on", "", "once, at the first compile", Audience::user,
     OnBad::warn, "", "off: no compiled-kernel cache on disk."},
    {"PORTA_CACHE_DIR", Type::path, "a directory; created `0700`, refused when others can write it", 0, 0, false, "",
     "`$XDG_CACHE_HOME/porta`, else `~/.cache/porta`", "once, at the first compile", Audience::user, OnBad::warn, "",
     "The compiled-kernel cache on disk (CUDA cubins, OpenCL binaries), checksummed and keyed by device, driver "
     "and source; one it cannot make or trust is off, with a warning."},
    {"PORTA_OPENCL_GEMM", Type::text, "`auto`, `tiled`, `clblast`, `host`, `mma`, `mma:CONFIG`", 0, 0, false, "auto", "",
     "each matmul on an OpenCL device", Audience::user, OnBad::error, kWrongPath,
     "The OpenCL matmul path. auto: tensor cores where the device has them, OpenBLAS on CPU devices, else tiled; "
     "mma forces the tensor-core kernels (emulated where the device lacks them), mma:CONFIG one configuration."},
    {"PORTA_OPENCL_COMMAND_BUFFER", Type::flag, "", 0, 0, false, "on", "", "once a device, at its first graph",
     Audience::user, OnBad::warn, "",
     "off: OpenCL graphs (`porta::record`) replay their recorded launches instead of a `cl_khr_command_buffer`."},
    {"PORTA_GIL_HOLD_US", Type::number, "microseconds", 0, kNoLimit, false, "8", "", "once, when the Python module is imported",
     Audience::user, OnBad::warn, "",
     "Python: how short a repeated evaluation must have been for `eval()` to keep the GIL; 0 "
     "releases it around every call."},
    {"PORTA_MPI_NCCL_SHARED_GPU", Type::flag, "", 0, 0, false, "off", "",
     "once a communicator, at its first NCCL transfer", Audience::tuning, OnBad::warn, "",
     "porta_mpi: on: ranks that share a GPU still use NCCL, each an NCCL host of its own over sockets on the "
     "loopback: the NCCL path end to end on a one-GPU host, at socket speed."},
    {"PORTA_OPENCL_GEMM_SHAPE", Type::text, "`TMxTNxTK:WMxWN[:vV]`, such as `128x128x8:8x8:v4`", 0, 0, false, "",
     "searched per device and dtype", "each matmul on an OpenCL device", Audience::tuning, OnBad::error, kWrongKernel,
     "Forces the OpenCL tiled GEMM's tile, k-slice, registers per work-item and vector width (and keeps auto off "
     "the tensor cores); a shape that does not fit the device is an error."},
    {"PORTA_OPENCL_GEMM_SEARCH", Type::list, "`off`, or square sizes from 64 to 32768 separated by commas (`4096,8192`)", 0, 0,
     false, "", "1024 for products of at most 1536 x 1536 elements of C, 2048 for larger ones",
     "at each search (a device's first matmul of a dtype)", Audience::tuning, OnBad::error, kWrongKernel,
     "The sizes the OpenCL GEMM's search times its candidates at (off: their given order); set, it also "
     "searches on CPU devices. The ranking is kept in the disk cache."},
    {"PORTA_OPENCL_GEMM_CANDIDATES", Type::list,
     "tensor-core configurations separated by commas or spaces: `tcBMxBNxBK:wWMxWN[:ldsm][:xor][:sS][:rR]`, "
     "`wgBMxBNxBK:gG:sS[:o][:m][:rR]`, `mma16x8xK:BMxBNxBK:wWMxWN`",
     0, 0, false, "", "porta's own candidates", "at each search", Audience::tuning, OnBad::error, kWrongKernel,
     "Replaces the tensor-core configurations the OpenCL GEMM's search ranks (`scripts/dev/gemm_sweep.sh`)."},
    {"PORTA_RADIX", Type::choice, "auto serial tiled ballot", 0, 0, false, "auto", "", "each sort",
     Audience::tuning, OnBad::error, kWrongKernel,
     "How sort and argsort rank a tile of keys: serial chunks, local memory (tiled) or the warp votes emulated in "
     "local memory (ballot), on any compiling device; auto: the device's own."},
    {"PORTA_SORT", Type::choice, "auto onesweep twopass", 0, 0, false, "auto", "", "each sort", Audience::tuning,
     OnBad::error, kWrongKernel,
     "How sort and argsort make their radix passes on a compiling device: onesweep (one read and write of the keys a digit, "
     "offsets by a look-back over tiles; sorts of fewer than 2^30 elements) or twopass (count, then scatter); auto: "
     "onesweep on GPUs, twopass on CPU devices."},
    {"PORTA_RADIX_BLOCKS", Type::integer, "", 1, 8, false, "", "4 (3 where a work-item ranks more than 16 keys)",
     "once, at the first sort", Audience::tuning, OnBad::error, kWrongKernel,
     "The blocks an SM is to hold in CUDA's sort passes without indices (their `__launch_bounds__`; NVIDIA's "
     "OpenCL: a .maxnreg in the PTX)."},
    {"PORTA_ONESWEEP", Type::choice, "auto late early", 0, 0, false, "auto", "", "each sort", Audience::tuning,
     OnBad::error, kWrongKernel,
     "The order of a one-sweep pass's steps: late (the tile's counts published after its ranking, the look-back "
     "before the tile goes to local memory, the digit starts scanned by every work-group) or early (CUB's: counts "
     "first with local atomics and published at once, the ranking straight into local memory, then the look-back; "
     "tile 0 alone scans the digit starts); auto: late."},
    {"PORTA_SORT_FLOAT_KEY", Type::choice, "auto both select full", 0, 0, false, "auto", "", "each sort", Audience::tuning,
     OnBad::error, kWrongKernel,
     "How a float sort's one-sweep pass on a GPU takes the plain sign-twiddle key where no key is -0.0 or a non-canonical "
     "NaN: both (the tile's work held twice under one branch), select (a branch in each key's map) or full (never); "
     "auto: both."},
    {"PORTA_SORT_KEYS", Type::choice, "auto mapped own", 0, 0, false, "auto", "", "each sort", Audience::tuning,
     OnBad::error, kWrongKernel,
     "How the one-sweep passes hand the keys on between them: mapped (mapped to their ordered bits by the first pass and "
     "back by the last, where the map is a bijection: integers, floats without -0.0 or a non-canonical NaN) or own (each "
     "pass maps the elements' own bits again); auto: mapped."},
    {"PORTA_SORT_ITEMS", Type::integer, "", 4, 32, false, "",
     "24 for 4-byte keys alone, else 16 (15 with indices; fewer for 8-byte keys)", "each sort", Audience::tuning,
     OnBad::error, kWrongKernel,
     "The elements a work-item ranks in a tile of the one-sweep sort (tiles of 256 work-items), lowered to what "
     "32000 bytes of local memory hold of a tile's elements and indices (31 for 4-byte keys alone, 15 with "
     "indices)."},
    {"PORTA_SCAN", Type::choice, "auto group serial", 0, 0, false, "auto", "", "once, at the first scan",
     Audience::tuning, OnBad::error, kWrongKernel,
     "How a long row is scanned: group (the GPU look-back, a work-group of 256 a tile) or serial (a work-item a "
     "tile) on any compiling device; auto: the device's own."},
    {"PORTA_SCAN_ITEMS", Type::integer, "", 2, 32, true, "",
     "the largest that fits the device's local memory, 32 wherever it fits", "once, at the first scan",
     Audience::tuning, OnBad::error, kWrongKernel,
     "The 4-byte values a GPU work-item scans (8-byte values take half); one that does not fit the device is an "
     "error naming the largest that does."},
    {"PORTA_DENSE_BLOCK", Type::integer, "", 8, 512, false, "",
     "LU: 64 with the tournament panel (GPUs), 16 with a flat one; 128 for QR's R, 16 for Q, 64 for Cholesky",
     "once, at the first blocked factorization", Audience::tuning, OnBad::error, kWrongKernel,
     "The columns of a block of porta's own blocked LU, Cholesky and QR (devices without a vendor solver; the "
     "solves after LU and Cholesky take blocks of 128 through the inverses of their diagonal blocks); the "
     "trailing updates go through GEMM. A flat LU panel and orgqr's blocks are one work-group's work, which grows "
     "with the width; QR's panels (and LU's recursive and tournament ones) are blocked by 16 columns inside."},
    {"PORTA_DENSE_OUTER", Type::integer, "", 8, 4096, false, "256", "", "once, at the first blocked Cholesky",
     Audience::tuning, OnBad::error, kWrongKernel,
     "The columns of an outer block of porta's own blocked Cholesky: the blocks of PORTA_DENSE_BLOCK columns "
     "inside it update only its own columns, and the rest of the matrix is updated once a block through GEMMs "
     "of this depth. Rounded down to a multiple of the inner block; the inner block or less: one level."},
    {"PORTA_DENSE_QR_PANEL", Type::choice, "auto one many", 0, 0, false, "auto", "", "once, at the first blocked QR",
     Audience::tuning, OnBad::error, kWrongKernel,
     "Who factors the 16-column panels inside porta's own blocked QR: one work-group walking the panel (one), or "
     "a launch a column over a work-group for every PORTA_DENSE_GROUP rows (many; a panel with columns past its reflectors stays "
     "one work-group's); auto: many on GPUs where the panel has 2048 rows or more."},
    {"PORTA_DENSE_SPLIT", Type::integer, "", 1, 256, false, "",
     "on GPUs, about two work-groups a compute unit in parts of at least 256 of k; 1 on CPU devices",
     "once, at the first blocked QR", Audience::tuning, OnBad::error, kWrongKernel,
     "The parts along k of the deep products of porta's own blocked QR (V^H V and V^H C, whose output is a block "
     "wide and whose k is the rows below it): a GEMM over the parts, then a kernel that sums them. 1: one GEMM "
     "each; at least 16 of k a part."},
    {"PORTA_DENSE_TOURNAMENT", Type::integer, "", 64, 512, true, "",
     "the most of 512, 256, 128 that fits the device's local memory with 16 columns of the dtype",
     "once, at the first blocked LU", Audience::tuning, OnBad::error, kWrongKernel,
     "The rows of a set of PORTA_DENSE_PANEL=tournament's rounds: a work-group picks 16 candidate pivot rows "
     "from each set; fewer rows, more work-groups in the first round and more rounds. One that does not fit "
     "the device's local memory is an error when the kernel is built."},
    {"PORTA_DENSE_GROUP", Type::integer, "", 64, 1024, true, "", "256 on GPUs, 64 on CPU devices",
     "once, at the first blocked factorization", Audience::tuning, OnBad::error, kWrongKernel,
     "The work-items of the work-group that factors a panel of porta's own blocked LU, Cholesky and QR (and "
     "runs the other one-matrix kernels of large matrices); a CPU device runs the group as a loop. A kernel may "
     "allow fewer than the device (NVIDIA's OpenCL on an H100: 256, by the kernels' registers): more is then a "
     "typed error naming the limit."},
    {"PORTA_SOLVER", Type::choice, "auto vendor porta cusolver=vendor lapack=vendor", 0, 0, false, "auto", "",
     "at each linalg call that factors", Audience::tuning, OnBad::error, kWrongKernel,
     "Who factors and solves on a device that has both a vendor solver (cuSOLVER and cuBLAS on CUDA, LAPACK on "
     "PoCL) and porta's own kernels: auto (porta's one-launch solve and cholesky of float32/float64 matrices up to "
     "16 x 16 on CUDA, which ran faster than cuSOLVER's batched routines there, and porta's QR of stacks of matrices "
     "up to 64 x 64 on CUDA, which cuSOLVER factors one at a time; the vendor's elsewhere), vendor, or "
     "porta (porta's own at every size; eigh and svd: porta's reductions to tridiagonal and bidiagonal form where the "
     "backend solves those small problems, OpenCL's, while CUDA keeps cuSOLVER's). Devices without a vendor solver "
     "always take porta's."},
    {"PORTA_SMALL_SOLVE", Type::choice, "auto warp group", 0, 0, false, "auto", "", "at each one-launch solve of small matrices",
     Audience::tuning, OnBad::error, kWrongKernel,
     "Which of porta's one-launch solves of small matrices runs where porta's kernels solve (see PORTA_SOLVER): auto "
     "(the warp kernel up to order 16 on CUDA, the work-group kernel elsewhere), warp "
     "(the warp kernel up to order 32 on every device: a few lanes a matrix, its rows in registers, exchanged by "
     "warp shuffles, which devices other than CUDA and NVIDIA's OpenCL emulate in local memory), or group (a "
     "work-group a matrix in local memory)."},
    {"PORTA_DENSE_PANEL", Type::choice, "auto flat recursive tournament", 0, 0, false, "auto", "", "once, at the first blocked LU",
     Audience::tuning, OnBad::error, kWrongKernel,
     "How porta's own blocked LU factors a panel: flat (one work-group a matrix, column by column), recursive "
     "(halves down to 16 columns, the updates through GEMM; it recurses only where PORTA_DENSE_BLOCK makes the "
     "panels wider than 16), tournament (the same halves, each 16 columns by CALU's tournament pivoting over many "
     "work-groups: the pivots differ from LAPACK's partial pivoting, the factorization is as stable in practice), "
     "or auto (the tournament on GPUs, flat on CPU devices)."},
    {"PORTA_SCAN_WINDOW", Type::integer, "", 1, 256, false, "64", "", "once, at the first scan", Audience::tuning,
     OnBad::error, kWrongKernel, "The tiles a step of the GPU scan's look-back reads at once."},
    {"PORTA_SCAN_BLOCKS", Type::integer, "", 1, 8, false, "6", "", "once, at the first scan", Audience::tuning,
     OnBad::error, kWrongKernel,
     "The work-groups of 256 an SM that the GPU scan's register bound leaves room for (CUDA's `__launch_bounds__`, "
     "NVIDIA OpenCL's `.maxnreg`), for 4-byte values."},
    {"PORTA_REDUCE_GROUPS", Type::integer, "", 1, 256, false, "32", "", "once, at the first reduction", Audience::tuning,
     OnBad::error, kWrongKernel,
     "The work-groups a compute unit that a GPU reduction along rows aims for (the extent is cut into chunks of whole "
     "tiles until there are this many a unit)."},
    {"PORTA_EW_UNROLL", Type::integer, "", 1, 8, false, "", "2 on OpenCL GPUs, 1 elsewhere", "once, at the first elementwise kernel", Audience::tuning,
     OnBad::error, kWrongKernel,
     "The vectors a work-item of a GPU elementwise kernel loads before it computes and stores them (loads in flight)."},
    {"PORTA_EW_STREAM", Type::choice, "auto off", 0, 0, false, "auto", "", "once, at the first elementwise kernel",
     Audience::tuning, OnBad::error, kWrongKernel,
     "Non-temporal stores on CPU devices (PoCL): auto stores the output of a vector elementwise kernel (float32, "
     "float64, complex) past the caches where it is 32 MiB or more (no read of the line before the write: x + y "
     "1.4x on the build machine); off never."},
    {"PORTA_EW_VECTOR", Type::choice, "widest narrowest", 0, 0, false, "widest", "", "once, at the first elementwise kernel",
     Audience::tuning, OnBad::error, kWrongKernel,
     "The elements a GPU elementwise work-item moves at once: a 16-byte access of the widest operand (widest) or of the "
     "narrowest, the wider ones taking up to 64 bytes (narrowest: uint8 -> float32 loads 16 bytes, stores 64)."},
    {"PORTA_EW_GROUPS", Type::integer, "", 1, 256, false, "", "32 a compute unit on GPUs (CUDA's launch limit; OpenCL GPUs' limit is 16),",
     "once, at the first elementwise kernel", Audience::tuning, OnBad::error, kWrongKernel,
     "The work-groups a compute unit that a GPU elementwise kernel's grid-stride launch takes at most."},
    {"PORTA_REDUCE_UNROLL", Type::integer, "", 1, 16, false, "4", "", "once, at the first reduction", Audience::tuning,
     OnBad::error, kWrongKernel,
     "The loads a work-item of a GPU reduction along rows has in flight (each into its own accumulator)."},
};

const Spec& spec_of(std::string_view name) {
  for (const Spec& s : kTable)
    if (name == s.name) return s;
  throw InvalidArgument(cat("porta has no setting named ", name,
                            " (src/base/settings.cpp lists them): every PORTA_* variable porta reads is in that table"));
}

const char* type_name(Type t) {
  switch (t) {
    case Type::choice: return "choice";
    case Type::flag: return "flag";
    case Type::integer: return "integer";
    case Type::number: return "number";
    case Type::text: return "text";
    case Type::path: return "path";
    case Type::list: return "list";
  }
  return "?";
}

// The choices of a choice setting, without aliases, and the value an alias stands for.
std::vector<std::string> choices(const Spec& s) {
  std::vector<std::string> out;
  for (auto& w : split(s.values, ' '))
    if (!w.empty() && w.find('=') == std::string::npos) out.push_back(w);
  return out;
}
std::optional<std::string> choice_of(const Spec& s, const std::string& v) {
  for (auto& w : split(s.values, ' ')) {
    if (w.empty()) continue;
    auto eq = w.find('=');
    if (eq == std::string::npos ? w == v : w.substr(0, eq) == v)
      return eq == std::string::npos ? w : w.substr(eq + 1);
  }
  return std::nullopt;
}

std::string number_text(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e15) return cat(static_cast<long long>(x));
  return cat(x);
}

std::string values_words(const Spec& s) {
  switch (s.type) {
    case Type::choice: return join(choices(s), ", ");
    case Type::flag: return "on, off (also 1, 0, true, false, yes, no)";
    case Type::integer:
      return cat(s.power_of_two ? "a power of two from " : "", number_text(s.lo), " to ", number_text(s.hi));
    case Type::number:
      return cat(std::isinf(s.hi) ? cat(number_text(s.lo), " or more") : cat(number_text(s.lo), " to ", number_text(s.hi)),
                 *s.values ? cat(" (", s.values, ")") : "");
    default: return s.values;
  }
}

std::string default_words(const Spec& s) { return *s.default_value ? std::string(s.default_value) : s.default_words; }

// The raw value: nullopt when unset or empty (as porta has always treated an empty variable).
std::optional<std::string> raw(const Spec& s) {
  const char* v = std::getenv(s.name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

// Why `v` is not a value of s (empty when it is, or when s's type is checked by its reader).
std::string problem_with(const Spec& s, const std::string& v) {
  std::string t = lower(trim(v));
  switch (s.type) {
    case Type::choice:
      if (!choice_of(s, t)) return cat("not one of ", values_words(s));
      return "";
    case Type::flag:
      if (t == "on" || t == "1" || t == "true" || t == "yes" || t == "off" || t == "0" || t == "false" || t == "no")
        return "";
      return "not on or off (1, 0, true, false, yes, no)";
    case Type::integer: {
      long long x = 0;
      auto r = std::from_chars(t.data(), t.data() + t.size(), x);
      bool ok = r.ec == std::errc() && r.ptr == t.data() + t.size() && x >= s.lo && x <= s.hi &&
                (!s.power_of_two || (x & (x - 1)) == 0);
      return ok ? "" : cat("must be ", values_words(s));
    }
    case Type::number: {
      char* end = nullptr;
      double x = std::strtod(t.c_str(), &end);
      bool ok = !t.empty() && end == t.c_str() + t.size() && std::isfinite(x) && x >= s.lo && x <= s.hi;
      return ok ? "" : cat("must be ", values_words(s));
    }
    default: return "";
  }
}

// The value a getter goes on with: the environment's when it is good, else the default after the
// policy (a warning, or the exception).
std::optional<std::string> checked(const Spec& s) {
  auto v = raw(s);
  if (!v) return std::nullopt;
  if (std::string p = problem_with(s, *v); !p.empty()) {
    bad_setting(s.name, *v, p);
    return std::nullopt;
  }
  return lower(trim(*v));
}

}  // namespace

void bad_setting(std::string_view name, const std::string& value, const std::string& problem) {
  const Spec& s = spec_of(name);
  if (s.on_bad == OnBad::error) throw InvalidArgument(cat(s.name, "=", value, ": ", problem));
  std::string message = cat(s.name, "=", value, ": ", problem, "; using ", default_words(s));
  static std::mutex m;
  static std::set<std::string> warned;
  {
    std::lock_guard lock(m);
    if (!warned.insert(cat(s.name, "=", value)).second) return;
  }
  // PORTA_LOG's own bad value leaves the level at warn, so the warning shows; and its reader
  // cannot ask log_enabled(), which waits for that very read.
  if (name == "PORTA_LOG")
    log(LogLevel::warn, message);
  else
    PORTA_LOG(warn, message);
}

}  // namespace porta::detail

namespace porta {

using detail::Spec;
using detail::Type;

std::vector<SettingInfo> settings() {
  std::vector<SettingInfo> out;
  for (const Spec& s : detail::kTable) {
    SettingInfo i;
    i.name = s.name;
    i.type = detail::type_name(s.type);
    i.values = detail::values_words(s);
    i.default_value = detail::default_words(s);
    i.read = s.read;
    i.audience = s.audience == detail::Audience::user ? "user" : "tuning";
    i.bad_value = s.on_bad == detail::OnBad::warn ? "warn" : s.on_bad == detail::OnBad::error ? "error" : "not checked";
    i.why_error = s.why_error;
    i.meaning = s.meaning;
    if (auto v = detail::raw(s)) {
      i.value = *v;
      i.source = "environment";
      if (std::string p = detail::problem_with(s, *v); !p.empty())
        i.problem = s.on_bad == detail::OnBad::error ? detail::cat(p, "; an error at its first read")
                                                     : detail::cat(p, "; ", detail::default_words(s), " is used");
    } else {
      i.value = detail::default_words(s);
      i.source = "default";
    }
    out.push_back(std::move(i));
  }
  return out;
}

std::optional<std::string> setting_text(std::string_view name) {
  const Spec& s = detail::spec_of(name);
  auto v = detail::raw(s);
  if (!v || s.type == Type::path) return v;  // a path is taken as it is, spaces and all
  std::string t = detail::trim(*v);
  if (t.empty()) return std::nullopt;
  return t;
}

std::string setting_choice(std::string_view name) {
  const Spec& s = detail::spec_of(name);
  if (s.type != Type::choice) throw InvalidArgument(detail::cat(s.name, " is not a choice setting"));
  if (auto v = detail::checked(s)) return *detail::choice_of(s, *v);
  return s.default_value;
}

bool setting_flag(std::string_view name) {
  const Spec& s = detail::spec_of(name);
  if (s.type != Type::flag) throw InvalidArgument(detail::cat(s.name, " is not a flag setting"));
  std::string v = detail::checked(s).value_or(s.default_value);
  return v == "on" || v == "1" || v == "true" || v == "yes";
}

std::optional<int> setting_int(std::string_view name) {
  const Spec& s = detail::spec_of(name);
  if (s.type != Type::integer) throw InvalidArgument(detail::cat(s.name, " is not an integer setting"));
  auto v = detail::checked(s);
  if (!v) {
    if (!*s.default_value) return std::nullopt;
    v = s.default_value;
  }
  return std::stoi(*v);
}

double setting_number(std::string_view name) {
  const Spec& s = detail::spec_of(name);
  if (s.type != Type::number) throw InvalidArgument(detail::cat(s.name, " is not a number setting"));
  return std::strtod(detail::checked(s).value_or(s.default_value).c_str(), nullptr);
}

}  // namespace porta
