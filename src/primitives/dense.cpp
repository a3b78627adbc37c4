// porta's own dense solvers (primitives/dense.hpp): the drivers, which generate the kernels of
// primitives/kernels/dense.cl for a dtype and a dialect and run them (primitives/work.hpp), and
// the blocked algorithms, whose updates go through the device's GEMM.
//
// Blocked LU (right-looking, as LAPACK's getrf and MAGMA's): for each panel of block_size(lu)
// columns, the panel's getf2 by one work-group a matrix (pivots found down the whole column below
// the diagonal; rows swapped within the panel) or LAPACK's recursive getrf2, the same swaps
// applied to the columns left and right of it (laswp), A12 = L11^-1 A12 (a work-item a column),
// then A22 -= A21 A12 by DeviceImpl::matmul subtracting in place (MatmulArgs::subtract).
// Cholesky likewise: potf2 of the diagonal block, A21 = A21 L11^-H (a work-item a row),
// A22 -= A21 A21^H (in column chunks from the diagonal down; a chunk's diagonal block through
// scratch and a kernel that subtracts in the lower triangle only). QR: LAPACK's geqrf and orgqr
// with the block reflector (larft, larfb) through GEMM, a wide panel blocked by kPanelColumns
// inside. The panel of one work-group is what bounds these on
// large GPUs: MAGMA factors the panel on the host or over several work-groups (what remains to
// do for issue 40's opencl:1 targets).
#include "primitives/dense.hpp"

#include <porta/error.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "primitives/work.hpp"
#include "porta_backend/log.hpp"
#include "porta_backend/settings.hpp"
#include "runtime/thread_queues.hpp"
#include "porta_backend/strings.hpp"

namespace porta::detail {
extern const char* const kDenseSource;  // primitives/kernels/dense.cl
}

namespace porta::detail::dense {

using namespace primitives;

namespace {

enum Kind {
  kGetrf = 0, kPotrf, kGetrs, kPotrs, kGeqrf, kOrgqr,  // a work-group a matrix (small: in local memory)
  kLaswp, kTrsmLowerUnit, kTrsmRightLowerH, kSubtract, kConjCopy, kCopyV, kLarft, kTrmm, kZero, kTrsmBlock,  // the blocked drivers' steps
  kGesv, kPotrfRows,  // the fused small solves (gesv_small, potrf_small)
  kGesvWarp,          // gesv_small in registers, a sub-warp a matrix (warp_source)
  kSytrdStep, kSymvParts, kSytrdW, kHer2, kHermitize,  // sytrd's steps
  kLarfgVec, kVhC, kCuParts, kSumParts, kRank1,          // gebrd's
  kTournament, kCaluTrsm,                                 // getrf's tournament panel (PORTA_DENSE_PANEL=tournament)
  kTrtri, kUnpack,                                        // triangular solves as products: inverses of diagonal blocks
  kQrColumn                                               // geqrf's tall panels over many work-groups (PORTA_DENSE_QR_PANEL)
};
bool fused(Kind k) { return k == kGesv || k == kPotrfRows; }
// Kind's names, for set_phase_hook.
constexpr const char* kKindNames[] = {
    "getrf",   "potrf",   "getrs",     "potrs",    "geqrf",    "orgqr",    "laswp",    "trsm_lower_unit", "trsm_right_lower_h",
    "subtract", "conj_copy", "copy_v",  "larft",    "trmm",     "zero",     "trsm_block", "gesv",          "potrf_rows",
    "gesv_warp", "sytrd_step", "symv_parts", "sytrd_w", "her2",   "hermitize", "larfg_vec", "vhc",          "cu_parts",
    "sum_parts", "rank1",     "tournament", "calu_trsm", "trtri",
    "unpack",  "qr_column"};
static_assert(sizeof(kKindNames) / sizeof(kKindNames[0]) == kQrColumn + 1, "a name for every Kind");
std::atomic<PhaseHook> phase_hook{nullptr};
void phase(const char* step) {
  if (PhaseHook h = phase_hook.load(std::memory_order_relaxed)) h(step);
}

// The most the scratch product of a chunk's diagonal block takes (potrf's trailing update).
constexpr std::int64_t kScratchBytes = std::int64_t{256} << 20;

// The columns of a block: PORTA_DENSE_BLOCK where set, else by what the blocks are of (LU's:
// lu_block). Wider blocks give GEMM more work a step, and a one-work-group panel more (its cost
// grows as n^2 times the width): on the H100 through NVIDIA's OpenCL (2026-12-07,
// docs/design/linalg.md) LU and QR of 1024 to 8192 in flat panels ran 1.6-3.3x faster at 16 than
// at 64; Cholesky, whose panel is only the diagonal block, ran fastest at 64; geqrf, whose panel is
// blocked by kPanelColumns inside, 1.16-1.18x faster at 128 than at 16 (8192, float32 and float64).
// orgqr's blocks go through GEMM alone, as geqrf's trailing updates: 128; trtrs's Cholesky's.
enum class Blocks { geqrf, orgqr, cholesky };
std::optional<int> forced_block() {
  static const std::optional<int> b = setting_int("PORTA_DENSE_BLOCK");
  return b;
}
std::int64_t block_size(Blocks what) {
  if (const auto b = forced_block()) return *b;
  switch (what) {
    case Blocks::geqrf:
    case Blocks::orgqr: return 128;
    case Blocks::cholesky: return 64;
    default: return 16;
  }
}

// Cholesky's outer blocks (PORTA_DENSE_OUTER, default 256): a multiple of its inner blocks (nb),
// nb itself where set to nb or less.
std::int64_t outer_block(std::int64_t nb) {
  static const std::optional<int> o = setting_int("PORTA_DENSE_OUTER");
  return std::max<std::int64_t>(nb, o.value_or(256) / nb * nb);
}

// The triangular solves of at least this many columns (or rows) go through GEMM with the inverse
// of the diagonal block (invert_blocks); narrower ones a work-item a column.
constexpr std::int64_t kInverseColumns = 64;
// The blocks of getrs's and potrs's solves by inverses of their diagonal blocks.
constexpr std::int64_t kSolveBlock = 128;

// The columns that one work-group factors at a time inside a wider panel: LU's recursive panel
// stops halving at this width, QR's panel is blocked by it.
constexpr std::int64_t kPanelColumns = 16;

// getrf's panels (PORTA_DENSE_PANEL): getf2 over the whole panel by one work-group (flat); LAPACK's
// recursive getrf2, whose halves' updates go through GEMM, down to kPanelColumns (recursive); or
// the same halves down to panels that CALU's tournament factors over many work-groups
// (tournament). auto: the tournament on GPUs, flat on CPU devices (PoCL: a work-group is a loop
// over one core's work-items, and LAPACK factors there unless PORTA_SOLVER=porta). On the H100
// through NVIDIA's OpenCL (2026-12-07, porta_dense_timing opencl:1 8192, float32) getrf took
// 325 ms flat in blocks of 16, 184 ms with the tournament in blocks of 16, 127 in blocks of 64.
enum class Panel { flat, recursive, tournament };
Panel panel_mode(const DeviceInfo& info) {
  static const std::string c = setting_choice("PORTA_DENSE_PANEL");
  if (c == "recursive") return Panel::recursive;
  if (c == "tournament" || (c == "auto" && info.kind == DeviceKind::gpu)) return Panel::tournament;
  return Panel::flat;
}
// geqrf's inner panels (PORTA_DENSE_QR_PANEL): geqr2 by one work-group (one), or a launch a column
// over a work-group for every GROUP rows (many, k33: the sums of a column's parts in every
// work-group); auto: many on GPUs for panels of kQrManyRows rows or more. A panel with columns past
// its reflectors (the last one, where n > m) stays one work-group's.
constexpr std::int64_t kQrManyRows = 2048;
bool qr_many(const DeviceInfo& info, std::int64_t batch, std::int64_t rows, std::int64_t width, std::int64_t reflectors) {
  static const std::string c = setting_choice("PORTA_DENSE_QR_PANEL");
  if (c == "one" || batch != 1 || width != reflectors || width > kPanelColumns || rows < width) return false;
  return c == "many" || (info.kind == DeviceKind::gpu && rows >= kQrManyRows);
}

// getrf's blocks: PORTA_DENSE_BLOCK where set, else 64 where the panel is the tournament (its
// leaves stay 16 columns; the trailing updates get depth 64), 16 where one work-group walks it.
std::int64_t lu_block(Panel mode) { return forced_block().value_or(mode == Panel::tournament ? 64 : 16); }

// Work-items a work-group of the one-matrix kernels (a power of two: the reductions halve it):
// PORTA_DENSE_GROUP where set (a device that takes fewer work-items a group refuses the launch
// with a typed error). CPU devices (PoCL) run a work-group as a loop between barriers: fewer
// items, fewer trips.
int group_of(const DeviceInfo& info) {
  static const std::optional<int> g = setting_int("PORTA_DENSE_GROUP");
  return g ? *g : info.kind == DeviceKind::cpu ? 64 : 256;
}
// The small kernels' work-group on GPUs, by the order of the local matrix (16, 32, 64): about 16
// elements of the trailing update a work-item at the first step, at least a warp. A 16 x 16
// matrix in a work-group of 256 spent most of its time in the pivot search's eight halving steps
// and barriers of eight warps for one element each; a warp a matrix keeps barriers cheap and lets
// more matrices share an SM.
int small_group(const DeviceInfo& info, std::int64_t order) {
  if (info.kind == DeviceKind::cpu) return 64;  // as group_of on a CPU device, PORTA_DENSE_GROUP aside
  return static_cast<int>(std::clamp<std::int64_t>(order * order / 16, 32, 256));
}

// The scalar arithmetic dense.cl's functions are written in (its head lists the macros).
std::string scalar_defs(const DialectText& d, DType t) {
  const bool cx = is_complex(t);
  const DType r = cx ? real_dtype(t) : t;
  const std::string rt = r == DType::float64 ? "double" : "float";
  const std::string fabs = d.math("fabs", r), sqrt = d.math("sqrt", r);
  std::string s = cat("typedef ", d.storage_type(t), " T;\ntypedef ", rt, " R;\n");
  if (cx) {
    const std::string f = t == DType::complex64 ? "_c64" : "_c128", z = cat("(", rt, ")0");
    s += cat("#define ADD(a, b) porta_add", f, "(a, b)\n#define SUB(a, b) porta_sub", f, "(a, b)\n#define MUL(a, b) porta_mul", f,
             "(a, b)\n#define DIV(a, b) porta_div", f, "(a, b)\n#define CONJ(a) porta_conj", f, "(a)\n#define NEG(a) porta_neg", f,
             "(a)\n#define SCALE(a, s) porta_scale", f, "(a, s)\n#define RE(a) ((a).re)\n#define IM(a) ((a).im)\n#define MKR(r) porta_c", f,
             "((R)(r), ", z, ")\n#define MKC(r, i) porta_c", f, "((R)(r), (R)(i))\n#define NONZERO(a) porta_nonzero", f,
             "(a)\n#define ABS1(a) (", fabs, "((a).re) + ", fabs, "((a).im))\n#define ABSV(a) porta_abs", f, "(a)\n");
  } else {
    s += cat("#define ADD(a, b) ((a) + (b))\n#define SUB(a, b) ((a) - (b))\n#define MUL(a, b) ((a) * (b))\n#define DIV(a, b) ((a) / (b))\n"
             "#define CONJ(a) (a)\n#define NEG(a) (-(a))\n#define SCALE(a, s) ((a) * (s))\n#define RE(a) (a)\n#define IM(a) ((R)0)\n"
             "#define MKR(r) ((T)(r))\n#define MKC(r, i) ((T)(r))\n#define NONZERO(a) ((a) != (R)0)\n#define ABS1(a) ",
             fabs, "(a)\n#define ABSV(a) ", fabs, "(a)\n");
  }
  // LAPACK's dlapy3: sqrt(a^2 + b^2 + c^2) scaled by the largest, without overflow.
  s += cat("#define SQRTR(x) ", sqrt, "(x)\n", d.cuda() ? "__device__ inline" : "static inline",
           " R porta_hypot3(R a, R b, R c) {\n  R x = ", fabs, "(a), y = ", fabs, "(b), z = ", fabs,
           "(c), w = x > y ? x : y;\n  w = w > z ? w : z;\n  if (w == (R)0) return x + y + z;\n"
           "  x /= w; y /= w; z /= w;\n  return w * SQRTR(x * x + y * y + z * z);\n}\n#define HYPOT3(a, b, c) porta_hypot3(a, b, c)\n");
  return s;
}

// The largest order the small kernels take: 64 where a 64 x 64 matrix of t is at most 32 KiB and
// fits the device's local memory beside the reductions' arrays (float32, float64, complex64;
// batches of 64 x 64 matrices are one launch), else kDenseSmall.
std::int64_t small_order(DType t, const DeviceInfo& info) {
  constexpr std::uint64_t kCudaStatic = 48 * 1024;  // a block's static __shared__ memory (scan.cpp's scan_local_limit)
  std::uint64_t limit = info.max_local_bytes ? info.max_local_bytes : 32 * 1024;
  if (info.dialect == Dialect::cuda) limit = std::min(limit, kCudaStatic);
  const std::uint64_t item = itemsize(t), need = 64 * 64 * item + static_cast<std::uint64_t>(group_of(info)) * (2 * item + 4) + 256;
  return item <= 8 && need <= limit ? 64 : kDenseSmall;
}
std::int64_t small_order(DType t, const View& a) { return small_order(t, a.buffer->device().impl().info()); }

// The local memory a kernel may take (CUDA: a block's static __shared__ memory).
std::uint64_t local_limit(const DeviceInfo& info) {
  constexpr std::uint64_t kCudaStatic = 48 * 1024;
  std::uint64_t limit = info.max_local_bytes ? info.max_local_bytes : 32 * 1024;
  return info.dialect == Dialect::cuda ? std::min(limit, kCudaStatic) : limit;
}
// The rows of a set of getrf's tournament (kernels/dense.cl's k29): PORTA_DENSE_TOURNAMENT, else a
// power of two from 64 to 512 whose kPanelColumns columns, indices and the pivot search's arrays
// fit the local memory. At least 2 (kPanelColumns + 1): every set of round 0 then holds
// kPanelColumns rows or more.
std::int64_t tournament_rows(DType t, const DeviceInfo& info) {
  static const std::optional<int> forced = setting_int("PORTA_DENSE_TOURNAMENT");
  if (forced) return *forced;
  const std::uint64_t item = itemsize(t), fixed = static_cast<std::uint64_t>(group_of(info)) * (item + 4) + 256;
  const std::uint64_t limit = std::min<std::uint64_t>(local_limit(info), 48 * 1024);
  std::int64_t rows = 512;
  while (rows > 64 && fixed + static_cast<std::uint64_t>(rows) * (kPanelColumns * item + 4) > limit) rows /= 2;
  return rows;
}
// The fused kernels' local memory besides the right-hand sides: the matrix (odd leading
// dimension), the pivot search's arrays, pivots and info.
std::uint64_t fused_bytes(DType t, std::int64_t order, int group) {
  const std::uint64_t item = itemsize(t), o = static_cast<std::uint64_t>(order);
  return o * (o + 1) * item + static_cast<std::uint64_t>(group) * (item + 4) + o * 4 + 64;
}
// The largest order the fused kernels take: 64 where the matrix and one right-hand side fit, else 32.
std::int64_t fused_order_of(DType t, const DeviceInfo& info) {
  const std::int64_t o = std::min<std::int64_t>(small_order(t, info), 64);
  if (o == 64 && fused_bytes(t, 64, small_group(info, 64)) + 64 * itemsize(t) <= local_limit(info)) return 64;
  return kDenseSmall;
}
// The right-hand sides the fused solve holds in local memory at a time (at most 16).
std::int64_t fused_rhs(DType t, std::int64_t order, int group, std::uint64_t limit) {
  const std::uint64_t base = fused_bytes(t, order, group), col = static_cast<std::uint64_t>(order) * itemsize(t);
  return base + col >= limit ? 1 : std::min<std::int64_t>(16, static_cast<std::int64_t>((limit - base) / col));
}

// The local matrix's order the small kernels are compiled for, for matrices of order n: on GPUs the
// least of 16, 32, 64 that holds n (a 16 x 16 matrix in a 64 x 64 array took four times the local
// memory, and so fewer matrices an SM); on CPU devices the largest (one program, one compile).
std::int64_t order_for(DType t, const DeviceInfo& info, Kind kind, std::int64_t n) {
  const std::int64_t most = fused(kind) ? fused_order_of(t, info) : small_order(t, info);
  if (info.kind == DeviceKind::cpu) return most;
  for (std::int64_t o : {16, 32, 64})
    if (n <= o && o <= most) return o;
  return most;
}

// What every dense kernel's text starts with (after common_prelude): the dialect's prelude, the
// scalar arithmetic of t, GROUP, LID, GROUP_ID and FN.
std::string kernel_head(const DialectText& d, DType t, int group) {
  const bool fp64 = t == DType::float64 || t == DType::complex128;
  return cat(d.prelude(fp64, false, is_complex(t)), scalar_defs(d, t), "#define GROUP ", group, "\n#define LID ((int)", d.local_id(),
             ")\n#define GROUP_ID ((i64)", d.group_id(), ")\n#define FN ", d.cuda() ? "__device__ inline" : "static inline", "\n");
}

// A kernel's whole text (after common_prelude): with `small` (an order) it holds the matrix in
// local memory.
std::string dense_source(const DialectText& d, DType t, Kind kind, int group, std::int64_t small, std::int64_t rhs = 1) {
  const std::string local = d.cuda() ? "__shared__" : "__local";
  std::string s = cat(kernel_head(d, t, group), "#define SMALL ", std::max<std::int64_t>(small, 1), "\n#define KIND ",
                      static_cast<int>(kind), "\n#define LP ", d.cuda() ? "" : "__local", "\n#define RHS ", rhs, "\n");
  // The address space of the pivots and info and of getrs2's right-hand sides: global memory, or
  // local memory in the fused kernels.
  // (The tournament's sets, up to 512 rows by 16 columns in local memory, take the rows-and-columns
  // loop too: the flat one divided once an element.)
  s += cat("#define FLAT ", small && kind != kTournament ? 1 : 0, "\n");
  const bool local_pivots = fused(kind) || kind == kTournament;
  s += cat("#define PS ", local_pivots ? (d.cuda() ? "" : "__local") : "GLOBAL", "\n#define BS ", fused(kind) ? (d.cuda() ? "" : "__local") : "GLOBAL", "\n");
  s += cat("#define COLS ", kPanelColumns, "\n");
  // OpenCL: the functions' barriers order global memory too (the large matrices live there).
  s += cat("#define BARRIER ", d.cuda() ? "__syncthreads();" : "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);", "\n");
  if (small && !local_pivots) {
    // The m x n matrix at g (leading dimension lda: a whole matrix, or potrf's diagonal block inside
    // a large one) into s with leading dimension m (MLD), and back.
    s += cat("#define AS ", d.cuda() ? "" : "__local", "\n#define MAT s\n#define MLD m\n#define LOAD ", local,
             " T s[SMALL * SMALL]; GLOBAL T* g = a + a_off + GROUP_ID * stride; "
             "for (int e = LID; e < m * n; e += GROUP) { const int j_ = e / m; s[e] = g[e - j_ * m + (i64)j_ * lda]; } BARRIER\n"
             "#define STORE BARRIER for (int e = LID; e < m * n; e += GROUP) { const int j_ = e / m; g[e - j_ * m + (i64)j_ * lda] = s[e]; }\n");
  } else if (local_pivots) {
    s += cat("#define AS ", d.cuda() ? "" : "__local", "\n");
  } else {
    s += cat("#define AS ", d.cuda() ? "" : "__global", "\n#define MAT g\n#define MLD lda\n#define LOAD GLOBAL T* g = a + a_off + GROUP_ID * stride;\n"
             "#define STORE\n");
  }
  // The functions this kind calls (each section is compiled only into the kernels that need it),
  // then its kernel: one definition of porta_k a program (kernels/dense.cl's k0 says why).
  static constexpr const char* kSections[] = {"lu", "cholesky", "lu_solve", "cholesky_solve", "qr", "qr"};
  if (kind == kGeqrf || kind == kOrgqr || kind == kSytrdStep || kind == kLarfgVec || kind == kQrColumn)
    s += kernel_text(d, kDenseSource, "householder");
  if (kind <= kOrgqr) s += cat(kernel_text(d, kDenseSource, "access"), kernel_text(d, kDenseSource, kSections[kind]));
  if (kind == kTournament) s += cat(kernel_text(d, kDenseSource, "access"), kernel_text(d, kDenseSource, "lu"));
  if (kind == kGesv) s += cat(kernel_text(d, kDenseSource, "access"), kernel_text(d, kDenseSource, "lu"), kernel_text(d, kDenseSource, "lu_solve"));
  if (kind == kPotrfRows) s += cat(kernel_text(d, kDenseSource, "access"), kernel_text(d, kDenseSource, "cholesky"));
  if (kind == kSytrdStep || kind == kLarfgVec) s += kernel_text(d, kDenseSource, "larfg");
  return cat(s, kernel_text(d, kDenseSource, cat("k", static_cast<int>(kind))));
}

// How the warp solve's lanes exchange values: CUDA's shuffles, NVIDIA OpenCL's through inline
// PTX, or an emulation in local memory with barriers (any OpenCL device); none: the work-group
// kernel (k16) solves.
enum class Shuffle { none, cuda, ptx, local };
const char* shuffle_section(Shuffle s) { return s == Shuffle::cuda ? "warp_cuda" : s == Shuffle::ptx ? "warp_ptx" : "warp_local"; }

// The lanes a matrix of order n takes in the warp solve: the least power of two that holds its
// rows, 4 at least (8 matrices a warp).
int warp_width(std::int64_t n) {
  int w = 4;
  while (w < n) w <<= 1;
  return w;
}
// The right-hand sides a lane holds at a time: nrhs rounded up to a power of two (a solve of one
// right-hand side, NumPy's usual call, carries no unused columns), at most 8, and fewer where they
// and the row of A would pass 144 32-bit registers (complex128 at 32 x 32: 4; its row alone is 128
// registers, and ptxas for sm_90 spills a few bytes there at any chunk).
std::int64_t warp_rhs(DType t, std::int64_t n, std::int64_t nrhs) {
  const std::int64_t words = static_cast<std::int64_t>(itemsize(t)) / 4;
  std::int64_t c = 1;
  while (c < nrhs && c < 8 && (n + 2 * c) * words <= 144) c <<= 1;
  return c;
}
std::uint64_t warp_local_bytes(DType t, std::int64_t n, std::int64_t rhs, int group) {
  const std::uint64_t xs = static_cast<std::uint64_t>(std::max(n, rhs + 1)), item = itemsize(t);
  return static_cast<std::uint64_t>(group) * (xs * item + item / (is_complex(t) ? 2 : 1) + 4);
}
// Its work-group: 128 work-items (4 warps; 8 matrices of 16 x 16) where lanes shuffle; with the
// emulation, 64 (a CPU runs a work-group as a loop between barriers) or fewer where its
// local-memory rows would not fit.
int warp_group(const DeviceInfo& info, DType t, std::int64_t n, std::int64_t rhs, Shuffle s) {
  if (s != Shuffle::local) return 128;
  const int w = warp_width(n);
  int group = std::max(64, w);
  while (group > w && warp_local_bytes(t, n, rhs, group) > local_limit(info)) group /= 2;
  return group;
}

// The warp solve's text for order n, rhs columns of B at a time (after common_prelude).
std::string warp_source(const DialectText& d, DType t, std::int64_t n, int group, std::int64_t rhs, Shuffle s) {
  const bool fp64 = t == DType::float64 || t == DType::complex128;
  std::string text = cat(kernel_head(d, t, group), "#define N ", n, "\n#define W ", warp_width(n), "\n#define CH ", rhs,
                         "\n#define RBITS ", fp64 ? 64 : 32, "\n#define IS_COMPLEX ", is_complex(t) ? 1 : 0,
                         "\n#define EMU 0\n#define BARRIER ", d.cuda() ? "__syncthreads();" : "barrier(CLK_LOCAL_MEM_FENCE);", "\n");
  if (s == Shuffle::local) text += "#undef EMU\n";
  return cat(text, kernel_text(d, kDenseSource, shuffle_section(s)), kernel_text(d, kDenseSource, "k18"));
}

void check(DType t, const View& a, const char* what) {
  if (t != DType::float32 && t != DType::float64 && t != DType::complex64 && t != DType::complex128)
    throw DTypeError(cat(what, ": porta's solvers take float32, float64, complex64 and complex128, not ", name(t), " (cast first)"));
  const Device& device = a.buffer->device();
  if (!available(device))
    throw BackendUnavailable(cat(what, ": porta's own solvers run on devices that compile kernels (CUDA, OpenCL), not ",
                                 device.spec(), " (porta::linalg solves there through LAPACK)"));
  if (!device.supports(t)) throw DTypeError(cat(what, ": ", device.spec(), " has no ", name(t)));
}

void check_order(std::int64_t batch, std::int64_t m, std::int64_t n, const char* what) {
  if (batch < 0 || m < 0 || n < 0 || m > (std::int64_t{1} << 30) || n > (std::int64_t{1} << 30))
    throw InvalidArgument(cat(what, ": ", batch, " matrices of ", m, " x ", n, " (each order from 0 to 2^30, the batch not negative)"));
}

// Runs a kernel of `kind`: `groups` work-groups of the one-matrix kernels (group > 0) or `items`
// work-items; `writes` past the first two are ordered by hand (Work has two). small: the order of
// the matrices a small kernel holds in local memory (0: the matrix stays in global memory).
void launch(DType t, Kind kind, std::int64_t small, const std::vector<const View*>& reads, const std::vector<const View*>& writes,
            std::int64_t groups, std::int64_t items, const std::function<void(std::vector<KernelArg>&)>& args) {
  const Device& device = writes[0]->buffer->device();
  const DeviceInfo& info = device.impl().info();
  // The tournament's `small` is its rows a set (tournament_rows), trtri's the order of its blocks in
  // local memory, in a work-group of the panels' size.
  const bool as_is = kind == kTournament || kind == kTrtri;
  const std::int64_t order = as_is ? small : small ? order_for(t, info, kind, small) : 0;
  const int group = small && !as_is ? small_group(info, order) : group_of(info);
  const std::int64_t rhs = kind == kGesv ? fused_rhs(t, order, group, local_limit(info)) : 1;
  const auto& q = thread_queue_shared(device);
  for (std::size_t i = 2; i < writes.size(); ++i) writes[i]->buffer->before_write(q);
  Work w;
  w.reads = reads;
  w.write = writes[0];
  w.write2 = writes.size() > 1 ? writes[1] : nullptr;
  w.key = cat("dense|", static_cast<int>(kind), "|", static_cast<int>(t), "|", group, "|", order, "|", rhs);
  w.source = [t, kind, group, order, rhs](const DialectText& d) { return dense_source(d, t, kind, group, order, rhs); };
  w.args = args;
  if (groups > 0) {
    w.groups = static_cast<std::size_t>(groups);
    w.group = static_cast<std::size_t>(group);
    w.items = groups * group;
  } else {
    w.items = items;
  }
  phase(kKindNames[kind]);
  run(w, t);
  for (std::size_t i = 2; i < writes.size(); ++i) writes[i]->buffer->after_write(q);
}

KernelArg i32(std::int64_t x) { return KernelArg::scalar<std::int32_t>(static_cast<std::int32_t>(x)); }

// A column-major operand of gemm: at `off` of v's buffer, leading dimension ld, matrices `stride`
// apart; trans: its transpose is the operand.
struct Operand {
  const View* v;
  std::int64_t off, ld, stride;
  bool trans;
};

// The block of c (mc x nc at c_off, leading dimension ldc, matrices c_stride apart) = op(x) op(y)
// over k, or (subtract) minus it, through the device's GEMM: column-major C is the row-major
// C^T = op(y)^T op(x)^T that MatmulArgs describes (an operand stored column-major is its transpose
// stored row-major). Subtracting in the GEMM (MatmulArgs::subtract) reads and writes the block
// once; a product into scratch and a pass that subtracts it moved twice the bytes. step: the
// product's name for --phases where its shape does not tell it.
void gemm(DType t, const Operand& x, const Operand& y, const View& c, std::int64_t c_off, std::int64_t ldc,
          std::int64_t c_stride, std::int64_t batch, std::int64_t mc, std::int64_t nc, std::int64_t k, bool subtract,
          const char* step = nullptr) {
  const Device& device = c.buffer->device();
  const auto& q = thread_queue_shared(device);
  MatmulArgs g;
  g.dtype = t;
  g.batch = batch;
  g.m = nc;
  g.n = mc;
  g.k = k;
  g.a = y.v->buffer->handle();
  g.a_offset = y.off;
  g.lda = y.ld;
  g.trans_a = y.trans;
  g.stride_a = y.stride;
  g.b = x.v->buffer->handle();
  g.b_offset = x.off;
  g.ldb = x.ld;
  g.trans_b = x.trans;
  g.stride_b = x.stride;
  g.c = c.buffer->handle();
  g.c_offset = c_off;
  g.ldc = ldc;
  g.stride_c = c_stride;
  g.subtract = subtract;
  x.v->buffer->before_read(q);
  y.v->buffer->before_read(q);
  c.buffer->before_write(q);
  // For --phases: deep products with a thin output (V^H V, V^H C: few output tiles, k the rows),
  // shallow ones (the trailing updates), the rest.
  phase(step ? step : k >= 1024 && std::min(mc, nc) <= 256 ? "gemm_deep" : k <= 256 ? "gemm_update" : "gemm");
  device.impl().matmul(*q, g);
  c.buffer->after_write(q);
}
// c (mc x nc, packed, a matrix after another) = op(x) op(y).
void gemm(DType t, const Operand& x, const Operand& y, const View& c, std::int64_t batch, std::int64_t mc, std::int64_t nc,
          std::int64_t k) {
  gemm(t, x, y, c, c.offset, mc, mc * nc, batch, mc, nc, k, false);
}

// A block of a (rows x cols at a_off, leading dimension lda, matrices astride apart) -= the
// packed product in scratch (lower: on and below the block's diagonal only).
void subtract(DType t, const View& a, std::int64_t a_off, std::int64_t lda, std::int64_t astride, const View& scratch, std::int64_t batch,
              std::int64_t rows, std::int64_t cols, bool lower) {
  launch(t, kSubtract, 0, {&scratch}, {&a}, 0, batch * rows * cols, [&](std::vector<KernelArg>& g) {
    g = {mem(a), mem(scratch), i64(a_off), i64(lda), i64(astride), i64(rows), i64(cols), i64(batch), i32(lower)};
  });
}

// The inverses of nblk diagonal blocks of order jb (the last one min(jb, n - k jb)) from f_off (leading
// dimension lda, matrices astride apart), of their lower or upper triangle (unit: ones on the
// diagonal), into w (jb x jb each, matrix b's block k at (b nblk + k) jb jb), conjugate-transposed
// where herm. A triangular solve by a block is then a product through GEMM. Blocks whose inverse
// fits 32 KiB grow it in local memory, a barrier a row (64 x 64 of float32, float64, complex64);
// larger ones (complex128's, getrs's blocks of 128) a work-item a column in global memory: on the
// H100 through NVIDIA's OpenCL that took 61 us a 64 x 64 block (2026-12-07).
void invert_blocks(DType t, const View& f, std::int64_t f_off, std::int64_t lda, std::int64_t astride, std::int64_t n, std::int64_t jb,
                   std::int64_t nblk, std::int64_t batch, bool upper, bool unit, bool herm, const View& w) {
  const std::int64_t local = jb > 1 && jb * jb * static_cast<std::int64_t>(itemsize(t)) <= 32768 ? jb : 0;
  launch(t, kTrtri, local, {&f}, {&w}, batch * nblk, 0, [&](std::vector<KernelArg>& g) {
    g = {mem(f), mem(w), i64(f_off), i64(lda), i64(astride), i64(n), i32(jb), i32(nblk), i32(upper), i32(unit), i32(herm)};
  });
}
// A block of a (rows x cols at a_off, leading dimension lda, matrices astride apart) = w, packed.
void unpack(DType t, const View& a, std::int64_t a_off, std::int64_t lda, std::int64_t astride, const View& w, std::int64_t batch,
            std::int64_t rows, std::int64_t cols) {
  launch(t, kUnpack, 0, {&w}, {&a}, 0, batch * rows * cols, [&](std::vector<KernelArg>& g) {
    g = {mem(a), mem(w), i64(a_off), i64(lda), i64(astride), i64(rows), i64(cols), i64(batch)};
  });
}

// A scratch buffer that every step of a blocked factorization reuses, grown where a step needs
// more (the steps' needs shrink as the factorization goes on): the steps run in order on one
// queue, so a step's kernels overwrite it only after the last step's have read it. A buffer a step
// instead stays taken until the device has passed that step, and the host enqueues far ahead of
// the device: an LU of 8192 x 8192 in panels of 16 on the H100 through NVIDIA's OpenCL held 50 GB
// of scratch at once (2026-12-07), and float64 ran out of memory.
class Scratch {
 public:
  Scratch(DType t, const Device& device) : t_(t), device_(device) {}
  const View& get(std::int64_t elements) {
    if (!node_ || node_->size() < elements) {
      node_.reset();  // the old buffer back to the allocator before the larger one is asked for
      node_ = make_buffer_node({elements}, t_, device_);
    }
    return node_->view();
  }

 private:
  DType t_;
  Device device_;
  NodePtr node_;
};

// The parts along k of a deep product with few output tiles (split_gemm): PORTA_DENSE_SPLIT where
// set (1: none; at least 16 of k a part), else on GPUs about two work-groups a compute unit
// counting tiles of 128 x 128, in parts of at least 256 of k (one matrix: split_gemm's).
std::int64_t k_parts(const DeviceInfo& info, std::int64_t mc, std::int64_t nc, std::int64_t k) {
  static const std::optional<int> forced = setting_int("PORTA_DENSE_SPLIT");
  if (forced) return std::max<std::int64_t>(1, std::min<std::int64_t>(*forced, k / 16));
  if (info.kind != DeviceKind::gpu || k < 1024) return 1;
  const std::int64_t tiles = ((mc + 127) / 128) * ((nc + 127) / 128);
  return std::max<std::int64_t>(1, std::min<std::int64_t>(2 * std::max(info.compute_units, 1) / tiles, k / 256));
}

// c (mc x nc, packed, offset 0) = op(x) op(y) where k is deep and the output small (QR's V^H V and
// V^H C: k the rows under a block, the output a block's width tall). One GEMM gives such a product
// a few tiles, each walking all of k on one work-group: on the H100 through NVIDIA's OpenCL
// (2026-12-07, porta_dense_timing opencl:1 8192 --phases) they took 396 of geqrf's 747 ms. Split
// along k (k_parts): a GEMM batched over the parts (kc of k each, the operands' batch strides
// stepping along k), one more for the k left over, then a kernel that sums the parts (k27).
void split_gemm(DType t, const Operand& x, const Operand& y, const View& c, std::int64_t mc, std::int64_t nc, std::int64_t k,
                Scratch& parts_scratch) {
  const std::int64_t parts = c.offset == 0 ? k_parts(c.buffer->device().impl().info(), mc, nc, k) : 1;
  if (parts <= 1) return gemm(t, x, y, c, 1, mc, nc, k);
  const std::int64_t kc = k / parts, rest = k - kc * parts, slots = parts + (rest > 0), size = mc * nc;
  const View& p = parts_scratch.get(slots * size);
  // op(x) is mc x k: k runs down a transposed operand's stored rows, along an untransposed one's
  // columns; op(y) is k x nc, the other way round.
  Operand xs = x, ys = y;
  xs.stride = x.trans ? kc : kc * x.ld;
  ys.stride = y.trans ? kc * y.ld : kc;
  gemm(t, xs, ys, p, p.offset, mc, size, parts, mc, nc, kc, false, "gemm_split");
  if (rest > 0) {
    Operand xr = x, yr = y;
    xr.off += parts * xs.stride;
    yr.off += parts * ys.stride;
    gemm(t, xr, yr, p, p.offset + parts * size, mc, size, 1, mc, nc, rest, false, "gemm_split");
  }
  launch(t, kSumParts, 0, {&p}, {&c}, 0, size, [&](std::vector<KernelArg>& g) {
    g = {mem(p), mem(c), i32(size), i32(slots), i64(1)};
  });
}

// The block of dst (mc x nc at dst_off, leading dimension ld, matrices stride apart) = op(x) op(y)
// over k, where the block is one of the operands (a triangular solve through an inverse; GEMM
// does not write over what it reads): the product into scratch, put back (k32).
void product_in_place(DType t, const Operand& x, const Operand& y, const View& dst, std::int64_t dst_off, std::int64_t ld,
                      std::int64_t stride, std::int64_t batch, std::int64_t mc, std::int64_t nc, std::int64_t k, Scratch& scratch) {
  const View& w = scratch.get(batch * mc * nc);
  gemm(t, x, y, w, batch, mc, nc, k);
  unpack(t, dst, dst_off, ld, stride, w, batch, mc, nc);
}

// apply_block's scratch, kept across the steps of geqrf and orgqr, sized at once for the largest
// step (rows m, columns n - jb; orgqr's steps grow from the last block to the first).
struct ReflectorScratch {
  ReflectorScratch(DType t, const Device& d, std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t jb)
      : v(t, d), vc(t, d), g(t, d), tm(t, d), w1(t, d), w2(t, d), parts(t, d) {
    v.get(batch * m * jb);
    if (is_complex(t)) vc.get(batch * m * jb);
    g.get(batch * jb * jb);
    tm.get(batch * jb * jb);
    w1.get(batch * jb * n);
    w2.get(batch * jb * n);
  }
  Scratch v, vc, g, tm, w1, w2, parts;  // parts: split_gemm's, grown at the first split
};

// Zeros over rows [r0, r0 + rows) of columns [c0, c0 + cols) of a (m x n matrices), ones where
// the row is the column (eye).
void fill_block(DType t, const View& a, std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t r0, std::int64_t rows,
                std::int64_t c0, std::int64_t cols, bool eye) {
  if (batch * rows * cols == 0) return;
  launch(t, kZero, 0, {}, {&a}, 0, batch * rows * cols, [&](std::vector<KernelArg>& g) {
    g = {mem(a), i64(a.offset + r0 + c0 * m), i64(m), i64(m * n), i64(rows), i64(cols), i64(batch), i32(eye && r0 == c0)};
  });
}

// Applies the block reflector of jb reflectors stored below the diagonal of a at (j0, j0) (m x n
// matrices, tau at tau_off, tau_stride apart) to columns [j0 + jb, c_end) of rows [j0, m): H^H C
// (geqrf: herm) or H C (orgqr), H = I - V T V^H (larft, larfb): V packed (and conjugated), T from
// V^H V, then C -= V (op(T) (V^H C)), each product a GEMM (the last one subtracting in place).
// eye_cols > 0 (orgqr): once V is packed, rows [j0, m) of columns [j0, j0 + eye_cols) become the
// identity's, and C starts at column j0.
void apply_block(DType t, const View& a, const View& tau, std::int64_t tau_off, std::int64_t tau_stride, std::int64_t batch,
                 std::int64_t m, std::int64_t n, std::int64_t j0, std::int64_t jb, std::int64_t c_end, bool herm,
                 ReflectorScratch& s, std::int64_t eye_cols = 0) {
  const std::int64_t rows = m - j0, c0 = eye_cols > 0 ? j0 : j0 + jb, cols = c_end - c0, panel = a.offset + j0 + j0 * m;
  const View& v = s.v.get(batch * rows * jb);
  auto pack = [&](const View& out, bool conj) {
    launch(t, kCopyV, 0, {&a}, {&out}, 0, batch * rows * jb, [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(out), i64(panel), i64(m), i64(m * n), i64(rows), i32(jb), i64(batch), i32(conj)};
    });
  };
  pack(v, false);
  const View& vc = is_complex(t) ? s.vc.get(batch * rows * jb) : v;
  if (is_complex(t)) pack(vc, true);
  const Operand V{&v, v.offset, rows, rows * jb, false}, VcT{&vc, vc.offset, rows, rows * jb, true};
  const View &gv = s.g.get(batch * jb * jb), &tv = s.tm.get(batch * jb * jb);
  auto deep = [&](const Operand& y, const View& out, std::int64_t width) {  // out = V^H y, rows deep
    if (batch == 1) split_gemm(t, VcT, y, out, jb, width, rows, s.parts);
    else gemm(t, VcT, y, out, batch, jb, width, rows);
  };
  if (eye_cols > 0) fill_block(t, a, batch, m, n, j0, rows, j0, eye_cols, true);
  deep(V, gv, jb);  // V^H V
  launch(t, kLarft, 0, {&gv, &tau}, {&tv}, batch, 0, [&](std::vector<KernelArg>& g) {
    g = {mem(gv), mem(tau), mem(tv), i64(tau_off), i64(tau_stride), i32(jb)};
  });
  const View &w1v = s.w1.get(batch * jb * cols), &w2v = s.w2.get(batch * jb * cols);
  const std::int64_t c_at = a.offset + j0 + c0 * m;
  deep(Operand{&a, c_at, m, m * n, false}, w1v, cols);  // V^H C
  launch(t, kTrmm, 0, {&tv, &w1v}, {&w2v}, 0, batch * jb * cols, [&](std::vector<KernelArg>& g) {
    g = {mem(tv), mem(w1v), mem(w2v), i32(jb), i64(cols), i64(batch), i32(herm)};
  });
  gemm(t, V, Operand{&w2v, w2v.offset, jb, jb * cols, false}, a, c_at, m, m * n, batch, rows, cols, jb, true);
}

}  // namespace

// Every device that compiles kernels. On CUDA the blocked sizes once factored wrongly (an H100,
// 2026-12-06, while OpenCL on the same GPU was right): the kernel file held every kind under
// `#if KIND`, and CUDA's backend (sm_90+) put its programmatic-launch wait only into the first
// definition of porta_k in the text, kind 0's, while launching every kind as one that waits for
// itself; the laswp, trsm and subtract kernels then started before the panel or cuBLAS's product
// they read had finished. Each kind is now a section of its own (kernels/dense.cl's k0).
bool available(const Device& device) { return device.impl().info().dialect != Dialect::none; }

void set_phase_hook(PhaseHook hook) { phase_hook.store(hook); }

namespace {
// PORTA_SOLVER's forced answer (porta: true, vendor: false), none under auto.
std::optional<bool> forced_solver() {
  const std::string& how = setting_choice("PORTA_SOLVER");
  if (how == "porta") return true;
  if (how == "vendor") return false;
  return std::nullopt;
}
}  // namespace

bool chosen(const Device& device, DType t, std::int64_t batch, std::int64_t order, bool fused) {
  if (!available(device)) return false;
  if (const auto forced = forced_solver()) return *forced;
  // auto: porta's one-launch solve and Cholesky of small real matrices on CUDA, where a whole batch
  // is one launch (cuSOLVER's batched routines take several beside the core's copies and pointer
  // arrays). On an H100 (2026-12-06, 10,000 matrices) they ran 1.03x-1.09x cuSOLVER's solve and
  // 1.6x its Cholesky at 16 x 16, 0.50x-0.96x at 64 x 64 (docs/design/linalg.md); the vendor's
  // elsewhere, and for complex dtypes, which no GPU has timed.
  (void)batch;
  return fused && device.impl().info().dialect == Dialect::cuda && (t == DType::float32 || t == DType::float64) &&
         order <= kAutoFusedOrder;
}

bool chosen_for_batched_qr(const Device& device, std::int64_t batch, std::int64_t order) {
  if (!available(device) || batch < 2) return false;
  if (const auto forced = forced_solver()) return *forced;
  // auto: cuSOLVER has no batched geqrf/orgqr, and one call a matrix took 0.24 ms for 64 x 64
  // float64 on an H100 (2026-12-07: 10,000 of them 2.4 s, 0.0029 TFLOP/s), where porta's kernels,
  // a work-group a matrix, ran the same stack at 0.67 TFLOP/s on the same GPU through OpenCL.
  return device.impl().info().dialect == Dialect::cuda && order <= kAutoBatchedQrOrder;
}

std::int64_t fused_order(DType t, const Device& device) { return fused_order_of(t, device.impl().info()); }

namespace {
// The element strides of a 3-D view (batch, rows, columns), checked.
std::array<std::int64_t, 3> strides3(const View& v, const char* what) {
  if (v.strides.size() != 3) throw InvalidArgument(cat(what, ": a view of ", v.strides.size(), " dimensions where 3 were expected (porta's bug)"));
  return {v.strides[0], v.strides[1], v.strides[2]};
}
void check_fused(DType t, const View& a, std::int64_t batch, std::int64_t n, const char* what) {
  check(t, a, what);
  check_order(batch, n, n, what);
  if (n > fused_order(t, a.buffer->device()))
    throw InvalidArgument(cat(what, ": order ", n, " is above the ", fused_order(t, a.buffer->device()), " the fused kernels hold for ", name(t), " on ",
                              a.buffer->device().spec(), " (use getrf and getrs)"));
}
}  // namespace

namespace {
// Set once NVIDIA's OpenCL failed to build the warp solve's inline PTX: from then on the warp solve
// takes the local-memory emulation there.
std::atomic<bool> g_warp_ptx_failed{false};

// The warp solve's exchanges for order n on this device, or none where the work-group kernel solves
// (PORTA_SMALL_SOLVE: warp takes the warp kernel up to kWarpOrder on any device, group never; auto
// takes it on CUDA up to kAutoWarpOrder). On an H100 (2026-12-07) its dense_test and linalg_test
// cases passed on cuda:0; on opencl:1 one failed (complex64, order 2: the solution of a matrix with
// a NaN had none), so NVIDIA's OpenCL keeps the work-group kernel under auto. On an H200 the warp
// kernel solved 10,000 16 x 16 matrices at 2.0x CuPy's float32 and 2.5x its float64 on cuda:0
// (docs/design/linalg.md); orders 17 to 32 are untimed.
Shuffle warp_shuffle(const DeviceInfo& info, std::int64_t n) {
  if (n > kWarpOrder) return Shuffle::none;
  const std::string& how = setting_choice("PORTA_SMALL_SOLVE");
  if (how == "group") return Shuffle::none;
  if (how != "warp") return info.dialect == Dialect::cuda && n <= kAutoWarpOrder ? Shuffle::cuda : Shuffle::none;
  const bool nvidia_cl = info.dialect == Dialect::opencl && info.kind == DeviceKind::gpu &&
                         info.platform.find("NVIDIA") != std::string::npos && !g_warp_ptx_failed.load();
  return info.dialect == Dialect::cuda ? Shuffle::cuda : nvidia_cl ? Shuffle::ptx : Shuffle::local;
}

void gesv_warp(DType t, const View& a, const View& b, const View& x, const View& info, std::int64_t batch, std::int64_t n,
               std::int64_t nrhs, Shuffle s) {
  const DeviceInfo& di = a.buffer->device().impl().info();
  const auto as = strides3(a, "gesv"), bs = strides3(b, "gesv");
  const std::int64_t rhs = warp_rhs(t, n, nrhs);
  const int group = warp_group(di, t, n, rhs, s), per_group = group / warp_width(n);
  Work w;
  w.reads = {&a, &b};
  w.write = &x;
  w.write2 = &info;
  w.key = cat("dense|", static_cast<int>(kGesvWarp), "|", static_cast<int>(t), "|", group, "|", n, "|", rhs, "|", shuffle_section(s));
  w.source = [t, n, group, rhs, s](const DialectText& d) { return warp_source(d, t, n, group, rhs, s); };
  w.args = [&](std::vector<KernelArg>& g) {
    g = {mem(a),         mem(b),     mem(x),     mem(info),  i64(a.offset), i64(as[0]),       i64(as[1]), i64(as[2]),
         i64(b.offset),  i64(bs[0]), i64(bs[1]), i64(bs[2]), i64(x.offset), i64(info.offset), i64(batch), i64(nrhs), i32(n)};
  };
  w.groups = static_cast<std::size_t>((batch + per_group - 1) / per_group);
  w.group = static_cast<std::size_t>(group);
  w.items = static_cast<std::int64_t>(w.groups) * group;
  run(w, t);
}
}  // namespace

void gesv_small(DType t, const View& a, const View& b, const View& x, const View& info, std::int64_t batch, std::int64_t n,
                std::int64_t nrhs) {
  check_fused(t, a, batch, n, "gesv");
  if (batch == 0) return;
  if (n == 0) return zero_fill(info, 4, static_cast<std::size_t>(batch));
  const DeviceInfo& di = a.buffer->device().impl().info();
  const Shuffle s = warp_shuffle(di, n);
  if (s == Shuffle::ptx) {
    try {
      return gesv_warp(t, a, b, x, info, batch, n, nrhs, s);
    } catch (const CompileError& e) {
      // This NVIDIA OpenCL did not take the inline PTX (nothing was launched): the emulated
      // exchanges from now on.
      PORTA_LOG(warn, di.name, ": the warp solve's shuffles (inline PTX) did not build, so it exchanges through local memory"
                " from now on: ", e.what());
      g_warp_ptx_failed.store(true);
      return gesv_small(t, a, b, x, info, batch, n, nrhs);
    }
  }
  if (s != Shuffle::none) return gesv_warp(t, a, b, x, info, batch, n, nrhs, s);
  const auto as = strides3(a, "gesv"), bs = strides3(b, "gesv");
  launch(t, kGesv, n, {&a, &b}, {&x, &info}, batch, 0, [&](std::vector<KernelArg>& g) {
    g = {mem(a),         mem(b),         mem(x),          mem(info),   i64(a.offset), i64(as[0]),      i64(as[1]), i64(as[2]),
         i64(b.offset),  i64(bs[0]),     i64(bs[1]),      i64(bs[2]),  i64(x.offset), i64(info.offset), i32(n),     i64(nrhs)};
  });
}

void potrf_small(DType t, const View& a, const View& l, const View& info, std::int64_t batch, std::int64_t n) {
  check_fused(t, a, batch, n, "potrf");
  if (batch == 0) return;
  if (n == 0) return zero_fill(info, 4, static_cast<std::size_t>(batch));
  const auto as = strides3(a, "potrf");
  launch(t, kPotrfRows, n, {&a}, {&l, &info}, batch, 0, [&](std::vector<KernelArg>& g) {
    g = {mem(a), mem(l), mem(info), i64(a.offset), i64(as[0]), i64(as[1]), i64(as[2]), i64(l.offset), i64(info.offset), i32(n)};
  });
}

void getrf(DType t, const View& a, const View& ipiv, const View& info, std::int64_t batch, std::int64_t n) {
  check(t, a, "getrf");
  check_order(batch, n, n, "getrf");
  if (batch == 0) return;
  zero_fill(info, 4, static_cast<std::size_t>(batch));
  if (n == 0) return;
  auto panel = [&](bool small, std::int64_t j0, std::int64_t jb) {
    launch(t, kGetrf, small ? n : 0, {}, {&a, &ipiv, &info}, batch, 0, [&](std::vector<KernelArg>& g) {
      g = {mem(a),    mem(ipiv),          mem(info), i64(a.offset + j0 + j0 * n), i64(ipiv.offset + j0), i64(info.offset), i32(n - j0),
           i32(jb),   i64(n),             i64(n * n), i64(n),                     i32(j0)};
    });
  };
  if (n <= small_order(t, a)) return panel(true, 0, n);
  // The row swaps of pivots [j0, j0 + jb) in columns [c_lo, c_lo + cols) but [skip_lo, skip_hi).
  auto laswp = [&](std::int64_t j0, std::int64_t jb, std::int64_t c_lo, std::int64_t cols, std::int64_t skip_lo, std::int64_t skip_hi) {
    if (cols <= 0) return;
    launch(t, kLaswp, 0, {&ipiv}, {&a}, 0, batch * cols, [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(ipiv), i64(a.offset), i64(ipiv.offset), i64(n), i64(c_lo), i64(cols), i64(n * n), i64(batch), i32(j0), i32(jb),
           i64(skip_lo), i64(skip_hi)};
    });
  };
  // Rows [j0, j0 + jb) of columns [c_lo, c_lo + cols) = L11^-1 times them, then the rows below
  // minus L21 times them (A22 -= A21 A12, in the GEMM). L11^-1 A12 of many columns is a product
  // through GEMM with L11's inverse (k31) into scratch, put back (k32); of a recursive panel's
  // few, a work-item a column (k7).
  Scratch inv_s(t, a.buffer->device()), w_s(t, a.buffer->device());
  auto update = [&](std::int64_t j0, std::int64_t jb, std::int64_t c_lo, std::int64_t cols) {
    if (cols >= kInverseColumns) {
      const View& inv = inv_s.get(batch * jb * jb);
      invert_blocks(t, a, a.offset + j0 + j0 * n, n, n * n, jb, jb, 1, batch, false, true, false, inv);
      product_in_place(t, Operand{&inv, inv.offset, jb, jb * jb, false}, Operand{&a, a.offset + j0 + c_lo * n, n, n * n, false}, a,
                       a.offset + j0 + c_lo * n, n, n * n, batch, jb, cols, jb, w_s);
    } else {
      launch(t, kTrsmLowerUnit, 0, {}, {&a}, 0, batch * cols, [&](std::vector<KernelArg>& g) {
        g = {mem(a), i64(a.offset), i64(n), i64(batch), i32(j0), i32(jb), i64(c_lo), i64(cols)};
      });
    }
    const std::int64_t rows = n - j0 - jb;
    if (rows == 0) return;
    gemm(t, Operand{&a, a.offset + j0 + jb + j0 * n, n, n * n, false}, Operand{&a, a.offset + j0 + c_lo * n, n, n * n, false}, a,
         a.offset + j0 + jb + c_lo * n, n, n * n, batch, rows, cols, jb, true);
  };
  // The tournament panel of columns [c0, c0 + w), w <= kPanelColumns, rows [c0, n): rounds of
  // k29 until one set is left (each set's w candidates from up to `rows` rows), whose round also
  // exchanges the chosen rows to the top and writes L11\U11 there, then L21 (k30).
  const Device& device = a.buffer->device();
  const std::int64_t rows = tournament_rows(t, device.impl().info());
  Scratch idx_a(DType::int32, device), idx_b(DType::int32, device);
  const Panel mode = panel_mode(device.impl().info());
  if (mode == Panel::tournament) {  // sized once for the first panel's round 0, the most any round takes
    idx_a.get(batch * ((n + rows - 1) / rows) * kPanelColumns);
    idx_b.get(batch * ((n + rows - 1) / rows) * kPanelColumns);
  }
  auto tournament = [&](std::int64_t c0, std::int64_t w) {
    const std::int64_t m = n - c0, p_off = a.offset + c0 + c0 * n;
    std::int64_t groups = (m + rows - 1) / rows, count = m;
    const View* in = nullptr;
    for (bool first = true, into_a = true;; first = false, into_a = !into_a) {
      const bool last = groups == 1;
      const View& out = (into_a ? idx_a : idx_b).get(batch * groups * w);
      const View& from = in ? *in : (into_a ? idx_b : idx_a).get(1);
      launch(t, kTournament, rows, {&from}, {&out, &a, &ipiv, &info}, batch * groups, 0, [&](std::vector<KernelArg>& g) {
        g = {mem(a),         mem(from),  mem(out),        mem(ipiv),  mem(info), i64(p_off),  i64(n),     i64(n * n),
             i64(ipiv.offset + c0), i64(n), i32(m), i32(w), i32(count), i32(groups), i64(info.offset), i32(c0), i32(first), i32(last)};
      });
      if (last) break;
      in = &out;
      count = groups * w;
      groups = (count + rows - 1) / rows;
    }
    if (m > w)
      launch(t, kCaluTrsm, 0, {}, {&a}, 0, batch * (m - w), [&](std::vector<KernelArg>& g) {
        g = {mem(a), i64(p_off), i64(n), i64(n * n), i32(m), i32(w), i64(batch)};
      });
  };
  // The panel of columns [c0, c0 + w), rows [c0, n): getf2 (flat), or (recursive, tournament:
  // LAPACK's getrf2) its left half, then the right half updated through GEMM and factored, each
  // half's swaps applied to the other, down to kPanelColumns, where getf2 or the tournament
  // factors it.
  std::function<void(std::int64_t, std::int64_t)> factor = [&](std::int64_t c0, std::int64_t w) {
    if (mode == Panel::tournament && w <= kPanelColumns) return tournament(c0, w);
    if (mode == Panel::flat || w <= kPanelColumns) return panel(false, c0, w);
    const std::int64_t n1 = w / 2, n2 = w - n1;
    factor(c0, n1);
    laswp(c0, n1, c0 + n1, n2, 0, 0);
    update(c0, n1, c0 + n1, n2);
    factor(c0 + n1, n2);
    laswp(c0 + n1, n2, c0, n1, 0, 0);
  };
  const std::int64_t nb = lu_block(mode);
  for (std::int64_t j0 = 0; j0 < n; j0 += nb) {
    const std::int64_t jb = std::min(nb, n - j0), i0 = j0 + jb;
    factor(j0, jb);
    laswp(j0, jb, 0, n, j0, i0);
    if (i0 < n) update(j0, jb, i0, n - i0);
  }
}

// The blocked triangular solves of getrs and potrs over b (n x nrhs a matrix) with the factor f
// (n x n): for each block of nb rows, forward (lower) or backward (upper), the block's
// own solve (a work-item a right-hand side) and the update of the rows still to solve through
// GEMM. mode as kernels/dense.cl's kind 15.
enum Tri { kLowerUnit = 0, kLowerRealDiagonal, kUpper, kLowerConjTrans, kLower, kUpperUnit };
bool forward(int mode) { return mode == kLowerUnit || mode == kLowerRealDiagonal || mode == kLower; }
void solve_blocked(DType t, const View& f, const View& b, std::int64_t batch, std::int64_t n, std::int64_t nrhs, int mode,
                   std::int64_t block, bool by_inverse) {
  const Device& device = b.buffer->device();
  // No block wider than the matrix: the inverses' scratch is a block's square for each block of
  // each matrix (a batch of 100 x 100 matrices takes 100 x 100 a matrix, not 128 x 128).
  const std::int64_t nb = std::min(block, n), blocks = (n + nb - 1) / nb;
  Scratch conj_f(t, device), inv_s(t, device), w_s(t, device);
  // by_inverse: every diagonal block's inverse at once (one launch), then each block's solve a
  // product through GEMM into scratch, put back; else a work-item a right-hand side (k15).
  if (by_inverse)
    invert_blocks(t, f, f.offset, n, n * n, n, nb, blocks, batch, mode == kUpper || mode == kUpperUnit,
                  mode == kLowerUnit || mode == kUpperUnit, mode == kLowerConjTrans, inv_s.get(batch * blocks * nb * nb));
  for (std::int64_t s = 0; s < blocks; ++s) {
    const std::int64_t j0 = forward(mode) ? s * nb : (blocks - 1 - s) * nb, jb = std::min(nb, n - j0);
    if (by_inverse) {
      const View& inv = inv_s.get(batch * blocks * nb * nb);
      product_in_place(t, Operand{&inv, inv.offset + j0 / nb * nb * nb, nb, blocks * nb * nb, false},
                       Operand{&b, b.offset + j0, n, n * nrhs, false}, b, b.offset + j0, n, n * nrhs, batch, jb, nrhs, jb, w_s);
    } else {
      launch(t, kTrsmBlock, 0, {&f}, {&b}, 0, batch * nrhs, [&](std::vector<KernelArg>& g) {
        g = {mem(f), mem(b), i64(f.offset + j0 + j0 * n), i64(n), i64(n * n), i64(b.offset + j0), i64(n), i64(n * nrhs), i32(jb), i64(nrhs),
             i64(batch), i32(mode)};
      });
    }
    // The rows left: below the block (forward) or above it (backward), minus their factor block
    // times the block's solution (in the GEMM).
    const std::int64_t r0 = forward(mode) ? j0 + jb : 0, rows = forward(mode) ? n - j0 - jb : j0;
    if (rows == 0) continue;
    const Operand x1{&b, b.offset + j0, n, n * nrhs, false};
    Operand fx{&f, f.offset + r0 + j0 * n, n, n * n, false};  // L21 or U01
    if (mode == kLowerConjTrans) {
      // L^H's block above the diagonal block is L10^H, L10 = L(j0:j0+jb, 0:j0): its transpose,
      // conjugated first for complex dtypes.
      fx = Operand{&f, f.offset + j0, n, n * n, true};
      if (is_complex(t)) {
        const View& wv = conj_f.get(batch * jb * j0);
        launch(t, kConjCopy, 0, {&f}, {&wv}, 0, batch * jb * j0, [&](std::vector<KernelArg>& g) {
          g = {mem(f), mem(wv), i64(f.offset + j0), i64(n), i64(n * n), i64(jb), i64(j0), i64(batch)};
        });
        fx = Operand{&wv, wv.offset, jb, jb * j0, true};
      }
    }
    gemm(t, fx, x1, b, b.offset + r0, n, n * nrhs, batch, rows, nrhs, jb, true);
  }
}

void getrs(DType t, const View& lu, const View& ipiv, const View& b, std::int64_t batch, std::int64_t n, std::int64_t nrhs) {
  check(t, lu, "getrs");
  check_order(batch, n, nrhs, "getrs");
  if (batch * n * nrhs == 0) return;
  if (n <= small_order(t, lu)) {
    launch(t, kGetrs, n, {&lu, &ipiv}, {&b}, batch, 0, [&](std::vector<KernelArg>& g) {
      g = {mem(lu), mem(ipiv), mem(b), i64(lu.offset), i64(ipiv.offset), i64(b.offset), i32(n), i32(n), i64(n), i64(n * n), i32(nrhs)};
    });
    return;
  }
  // P B (every pivot, in order, down each right-hand side), then L and U.
  launch(t, kLaswp, 0, {&ipiv}, {&b}, 0, batch * nrhs, [&](std::vector<KernelArg>& g) {
    g = {mem(b), mem(ipiv), i64(b.offset), i64(ipiv.offset), i64(n), i64(0), i64(nrhs), i64(n * nrhs), i64(batch), i32(0), i32(n), i64(0),
         i64(0)};
  });
  solve_blocked(t, lu, b, batch, n, nrhs, kLowerUnit, kSolveBlock, true);
  solve_blocked(t, lu, b, batch, n, nrhs, kUpper, kSolveBlock, true);
}

void trtrs(DType t, const View& a, const View& b, std::int64_t batch, std::int64_t n, std::int64_t nrhs, bool upper, bool unit) {
  check(t, a, "trtrs");
  check_order(batch, n, nrhs, "trtrs");
  if (batch * n * nrhs == 0) return;
  // Not by inverses: QR's R may be singular or ill-conditioned (lstsq), where LAPACK's trsm
  // gives its infinities and NaNs by substitution.
  solve_blocked(t, a, b, batch, n, nrhs, upper ? (unit ? kUpperUnit : kUpper) : (unit ? kLowerUnit : kLower),
                block_size(Blocks::cholesky), false);
}

void potrf(DType t, const View& a, const View& info, std::int64_t batch, std::int64_t n) {
  check(t, a, "potrf");
  check_order(batch, n, n, "potrf");
  if (batch == 0) return;
  zero_fill(info, 4, static_cast<std::size_t>(batch));
  if (n == 0) return;
  // potf2 of the diagonal block at (j0, j0), jb x jb: in local memory where it fits (small = jb: the
  // block copied in and back), else in global memory (small = 0).
  auto diagonal = [&](std::int64_t small, std::int64_t j0, std::int64_t jb) {
    launch(t, kPotrf, small, {}, {&a, &info}, batch, 0, [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(info), i64(a.offset + j0 + j0 * n), i64(info.offset), i32(jb), i32(jb), i64(n), i64(n * n), i32(j0)};
    });
  };
  const std::int64_t local_order = small_order(t, a);
  if (n <= local_order) return diagonal(n, 0, n);
  const Device& device = a.buffer->device();
  const std::int64_t nb = block_size(Blocks::cholesky), outer = outer_block(nb);
  Scratch scratch(t, device), conj_a21(t, device), inv_s(t, device), w_s(t, device);
  // A22 -= A21 A21^H on and below the diagonal of columns [i0, c_end), A21 = A(i0:n, j0:j0+jb): in
  // column chunks, each the product of the rows from its diagonal down (A21 from row c0) with its
  // columns' rows of A21^H, so that the products skip most of the upper triangle (the trailing
  // matrix in four chunks: 5/8 of the whole product's work; an outer block's own columns in one)
  // and the scratch of a chunk's diagonal block stays within kScratchBytes. B = A21^H is GEMM's
  // transpose of conj(A21) (real dtypes: of A21 itself).
  auto update = [&](std::int64_t j0, std::int64_t jb, std::int64_t i0, std::int64_t c_end) {
    const std::int64_t r = n - i0, span = c_end - i0;
    const Operand a21{&a, a.offset + i0 + j0 * n, n, n * n, false};
    Operand a21h{&a, a21.off, n, n * n, true};
    if (is_complex(t)) {
      const View& wv = conj_a21.get(batch * span * jb);
      launch(t, kConjCopy, 0, {&a}, {&wv}, 0, batch * span * jb, [&](std::vector<KernelArg>& g) {
        g = {mem(a), mem(wv), i64(a.offset + i0 + j0 * n), i64(n), i64(n * n), i64(span), i64(jb), i64(batch)};
      });
      a21h = Operand{&wv, wv.offset, span, span * jb, true};
    }
    const auto by_memory = static_cast<std::int64_t>(
        std::sqrt(static_cast<double>(kScratchBytes) / static_cast<double>(batch * static_cast<std::int64_t>(itemsize(t)))));
    const std::int64_t width =
        span < r ? std::min(span, std::max(nb, by_memory / nb * nb)) : std::max(nb, std::min((r + 3) / 4, by_memory) / nb * nb);
    for (std::int64_t c0 = 0; c0 < span; c0 += width) {
      const std::int64_t cols = std::min(width, span - c0), rows = r - c0;
      // The chunk's diagonal block through scratch, subtracted on and below its diagonal only; the
      // rows below it subtracted in the GEMM.
      const View& c = scratch.get(batch * cols * cols);
      Operand x = a21, y = a21h;
      x.off += c0;
      y.off += c0;  // rows c0.. of A21 (or of its conjugate): columns c0.. of A21^H
      gemm(t, x, y, c, batch, cols, cols, jb);
      subtract(t, a, a.offset + (i0 + c0) + (i0 + c0) * n, n, n * n, c, batch, cols, cols, true);
      if (rows == cols) continue;
      x.off += cols;
      gemm(t, x, y, a, a.offset + (i0 + c0 + cols) + (i0 + c0) * n, n, n * n, batch, rows - cols, cols, jb, true);
    }
  };
  // Outer blocks of `outer` columns; inside each, blocks of nb: potf2 of the diagonal block,
  // A21 = A21 L11^-H for every row below it, and the update of the outer block's own columns right
  // of it; then the rest of the matrix once, from the whole outer block (k = outer).
  for (std::int64_t o0 = 0; o0 < n; o0 += outer) {
    const std::int64_t oe = std::min(n, o0 + outer);
    for (std::int64_t j0 = o0; j0 < oe; j0 += nb) {
      const std::int64_t jb = std::min(nb, oe - j0), i0 = j0 + jb;
      diagonal(jb <= local_order ? jb : 0, j0, jb);
      if (i0 == n) break;
      // A21 = A21 L11^-H: through GEMM with L11^-H (k31) into scratch, put back (k32), where the
      // rows are many; a work-item a row (k8) where they are few.
      const std::int64_t r = n - i0;
      if (r >= kInverseColumns) {
        const View& inv = inv_s.get(batch * jb * jb);
        invert_blocks(t, a, a.offset + j0 + j0 * n, n, n * n, jb, jb, 1, batch, false, false, true, inv);
        product_in_place(t, Operand{&a, a.offset + i0 + j0 * n, n, n * n, false}, Operand{&inv, inv.offset, jb, jb * jb, false}, a,
                         a.offset + i0 + j0 * n, n, n * n, batch, r, jb, jb, w_s);
      } else {
        launch(t, kTrsmRightLowerH, 0, {}, {&a}, 0, batch * r, [&](std::vector<KernelArg>& g) {
          g = {mem(a), i64(a.offset), i64(n), i64(batch), i32(j0), i32(jb)};
        });
      }
      if (i0 < oe) update(j0, jb, i0, oe);
    }
    if (oe < n) update(o0, oe - o0, oe, n);
  }
}

void potrs(DType t, const View& l, const View& b, std::int64_t batch, std::int64_t n, std::int64_t nrhs) {
  check(t, l, "potrs");
  check_order(batch, n, nrhs, "potrs");
  if (batch * n * nrhs == 0) return;
  if (n <= small_order(t, l)) {
    launch(t, kPotrs, n, {&l}, {&b}, batch, 0, [&](std::vector<KernelArg>& g) {
      g = {mem(l), mem(b), i64(l.offset), i64(b.offset), i32(n), i32(n), i64(n), i64(n * n), i32(nrhs)};
    });
    return;
  }
  solve_blocked(t, l, b, batch, n, nrhs, kLowerRealDiagonal, kSolveBlock, true);
  solve_blocked(t, l, b, batch, n, nrhs, kLowerConjTrans, kSolveBlock, true);
}

void geqrf(DType t, const View& a, const View& tau, std::int64_t batch, std::int64_t m, std::int64_t n) {
  check(t, a, "geqrf");
  check_order(batch, m, n, "geqrf");
  if (batch * m * n == 0) return;
  const std::int64_t k = std::min(m, n);
  // geqr2 of the m - j0 x jb block at (j0, j0), its tau at j0.
  auto panel = [&](bool small, std::int64_t j0, std::int64_t jb) {
    launch(t, kGeqrf, small ? std::max(m, n) : 0, {}, {&a, &tau}, batch, 0, [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(tau), i64(a.offset + j0 + j0 * m), i64(tau.offset + j0), i32(m - j0), i32(jb), i64(m), i64(m * n), i64(k)};
    });
  };
  if (std::max(m, n) <= small_order(t, a)) return panel(true, 0, n);
  // Blocked (LAPACK's geqrf): each panel's reflectors, then H^H of the block applied to the
  // columns right of it. The last panel takes the columns past k too. A panel wider than
  // kPanelColumns is itself blocked: geqr2 over kPanelColumns at a time, each block's H^H applied
  // to the panel's columns right of it only.
  const std::int64_t nb = block_size(Blocks::geqrf);
  // Sized for the widest block's apply; a panel's inner blocks (narrower) reuse it, and where
  // k <= nb they are all there is (Scratch grows as a step asks).
  ReflectorScratch scratch(t, a.buffer->device(), batch, m, k > nb ? n - nb : 0, nb);
  // geqr2 of the m - i0 x width block at (i0, i0) with ib reflectors: one work-group's, or k33's
  // launch a column over many.
  const DeviceInfo& info = a.buffer->device().impl().info();
  Scratch column_sums(t, a.buffer->device());
  auto tall_panel = [&](std::int64_t i0, std::int64_t width, std::int64_t ib) {
    const std::int64_t rows = m - i0;
    if (!qr_many(info, batch, rows, width, ib)) return panel(false, i0, width);
    const std::int64_t group = group_of(info), groups = (rows + group - 1) / group;
    const View& work = column_sums.get(2 * groups * (kPanelColumns + 2) + 2 * kPanelColumns);
    for (std::int64_t j = -1; j < ib; ++j)
      launch(t, kQrColumn, 0, {}, {&a, &tau, &work}, groups, 0, [&](std::vector<KernelArg>& g) {
        g = {mem(a), mem(tau), mem(work), i64(a.offset + i0 + i0 * m), i64(m), i32(rows), i32(ib), i32(j), i64(tau.offset + i0),
             i32(groups)};
      });
  };
  // The panel of columns [j0, j0 + w), whose reflectors are those of [j0, min(j0 + w, k)).
  auto factor = [&](std::int64_t j0, std::int64_t w) {
    const std::int64_t end = std::min(j0 + w, k);
    for (std::int64_t i0 = j0; i0 < end; i0 += kPanelColumns) {
      const std::int64_t ib = std::min(kPanelColumns, end - i0);
      const bool last = i0 + ib == end;
      tall_panel(i0, last ? j0 + w - i0 : ib, ib);
      if (!last) apply_block(t, a, tau, tau.offset + i0, k, batch, m, n, i0, ib, j0 + w, true, scratch);
    }
  };
  for (std::int64_t j0 = 0; j0 < k; j0 += nb) {
    const std::int64_t jb = std::min(nb, k - j0);
    const bool last = j0 + jb == k;
    factor(j0, last ? n - j0 : jb);
    if (!last) apply_block(t, a, tau, tau.offset + j0, k, batch, m, n, j0, jb, n, true, scratch);
  }
}

void orgqr(DType t, const View& a, const View& tau, std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k) {
  check(t, a, "orgqr");
  check_order(batch, m, n, "orgqr");
  if (!(m >= n && n >= k && k >= 0))
    throw InvalidArgument(cat("orgqr: ", m, " x ", n, " with ", k, " reflectors: it needs m >= n >= k >= 0"));
  if (batch * m * n == 0) return;
  if (std::max(m, n) <= small_order(t, a))  // org2r in local memory, a work-group a matrix
    return launch(t, kOrgqr, std::max(m, n), {&tau}, {&a}, batch, 0, [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(tau), i64(a.offset), i64(tau.offset), i32(m), i32(n), i64(m), i64(m * n), i32(k), i64(k)};
    });
  // Blocked, as MAGMA's orgqr: the blocks of reflectors last to first, each applied (larfb,
  // through GEMM) to the identity's columns where its own reflectors were (packed first) and to
  // the columns right of them, which the blocks after it made; the last block's own columns run to
  // n. Rows above a block are zero in its columns. LAPACK's org2r of each block's own columns was
  // one work-group's work.
  const std::int64_t nb = block_size(Blocks::orgqr);
  if (k == 0) return fill_block(t, a, batch, m, n, 0, m, 0, n, true);
  const std::int64_t last = (k - 1) / nb * nb;
  ReflectorScratch scratch(t, a.buffer->device(), batch, m, n - last, std::min(nb, k));
  for (std::int64_t j0 = last; j0 >= 0; j0 -= nb) {
    const std::int64_t own = j0 == last ? n - last : nb;
    apply_block(t, a, tau, tau.offset + j0, k, batch, m, n, j0, std::min(nb, k - j0), n, false, scratch, own);
    fill_block(t, a, batch, m, n, 0, j0, j0, own, false);
  }
}

namespace {
// The parts k20 and k26 split a product of `rows` x `len` with a vector into: enough work-items to
// fill a large GPU (about 2^18) for one matrix, each part at least 32 columns long; one where a
// batch fills it already.
std::int64_t gemv_parts(std::int64_t batch, std::int64_t rows, std::int64_t len) {
  const std::int64_t want = (std::int64_t{1} << 18) / std::max<std::int64_t>(1, batch * rows);
  return std::clamp<std::int64_t>(std::min(want, len / 32), 1, 32);
}
std::int64_t symv_parts(std::int64_t batch, std::int64_t rows) { return gemv_parts(batch, rows, rows); }
}  // namespace

void sytrd(DType t, const View& a, const View& d, const View& e, const View& tau, std::int64_t batch, std::int64_t n, bool lower) {
  check(t, a, "sytrd");
  check_order(batch, n, n, "sytrd");
  if (batch * n == 0) return;
  const Device& device = a.buffer->device();
  launch(t, kHermitize, 0, {}, {&a}, 0, batch * n * n, [&](std::vector<KernelArg>& g) {
    g = {mem(a), i64(a.offset), i32(n), i64(batch), i32(lower)};
  });
  auto step = [&](std::int64_t k) {
    launch(t, kSytrdStep, 0, {}, {&a, &d, &e, &tau}, batch, 0, [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(d), mem(e), mem(tau), i64(a.offset), i64(d.offset), i64(e.offset), i64(tau.offset), i32(n), i32(k)};
    });
  };
  std::int64_t most = 1;
  for (std::int64_t rows = 1; rows < n; ++rows) most = std::max(most, symv_parts(batch, rows));
  auto pn = make_buffer_node({batch * most * n}, t, device), wn = make_buffer_node({batch * n}, t, device);
  const View &p = pn->view(), &w = wn->view();
  for (std::int64_t k = 0; k + 1 < n; ++k) {
    const std::int64_t rows = n - k - 1, parts = symv_parts(batch, rows);
    step(k);
    launch(t, kSymvParts, 0, {&a}, {&p}, 0, batch * parts * rows, [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(p), i64(a.offset), i32(n), i32(k), i32(parts), i64(batch)};
    });
    launch(t, kSytrdW, 0, {&a, &p, &tau}, {&w}, batch, 0, [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(p), mem(tau), mem(w), i64(a.offset), i64(tau.offset), i32(n), i32(k), i32(parts)};
    });
    launch(t, kHer2, 0, {&w}, {&a}, 0, batch * rows * rows, [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(w), i64(a.offset), i32(n), i32(k), i64(batch)};
    });
  }
  step(n - 1);
}

void gebrd(DType t, const View& a, const View& d, const View& e, const View& tauq, const View& taup, std::int64_t batch, std::int64_t m,
           std::int64_t n) {
  check(t, a, "gebrd");
  check_order(batch, m, n, "gebrd");
  if (m < n) throw InvalidArgument(cat("gebrd: ", m, " x ", n, " matrices: it takes m >= n (reduce the conjugate transpose)"));
  if (batch * n == 0) return;
  const Device& device = a.buffer->device();
  const std::int64_t stride = m * n;
  // larfg of the vector at x_off (inc apart, len long) into out[k] and tau[k] (conj: of its conjugate).
  auto larfg = [&](std::int64_t x_off, std::int64_t inc, std::int64_t len, const View& out, const View& tau, std::int64_t k, bool conj) {
    launch(t, kLarfgVec, 0, {}, {&a, &out, &tau}, batch, 0, [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(out), mem(tau), i64(a.offset + x_off), i64(stride), i64(inc), i32(len), i64(out.offset + k), i64(n),
           i64(tau.offset + k), i64(n), i32(conj)};
    });
  };
  // C (rows x cols at c_off) -= s x y', s = tau[k] (ct: conjugated), y' = y (cy: conjugated).
  struct Vec {
    const View* v;
    std::int64_t off, inc, stride;
  };
  auto update = [&](std::int64_t c_off, std::int64_t rows, std::int64_t cols, Vec x, Vec y, const View& tau, std::int64_t k, bool cy, bool ct) {
    launch(t, kRank1, 0, {x.v, y.v, &tau}, {&a}, 0, batch * rows * cols, [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(*x.v), mem(*y.v), mem(tau), i64(c_off), i64(m), i64(stride), i64(rows), i64(cols), i64(x.off),
           i64(x.inc), i64(x.stride), i64(y.off), i64(y.inc), i64(y.stride), i64(tau.offset + k), i64(n), i32(cy), i32(ct),
           i64(batch)};
    });
  };
  std::int64_t most = 1;
  for (std::int64_t k = 0; k + 1 < n && k + 1 < m; ++k) most = std::max(most, gemv_parts(batch, m - k - 1, n - k - 1));
  auto yn = make_buffer_node({batch * n}, t, device), pn = make_buffer_node({batch * most * m}, t, device),
       zn = make_buffer_node({batch * m}, t, device);
  const View &y = yn->view(), &p = pn->view(), &z = zn->view();
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t col = a.offset + k + k * m;  // A(k, k)
    larfg(k + k * m, 1, m - k, d, tauq, k, false);  // H(k): column k from row k
    if (k + 1 == n) break;
    // H(k)^H from the left on C = A(k:m, k+1:n): y = v^H C, then C -= conj(tauq) v y.
    const std::int64_t cols = n - k - 1, right = a.offset + k + (k + 1) * m;  // A(k, k+1)
    launch(t, kVhC, 0, {&a}, {&y}, batch * cols, 0, [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(y), i64(right), i64(col), i64(m), i64(stride), i32(m - k), i32(cols)};
    });
    update(right, m - k, cols, {&a, col, 1, stride}, {&y, y.offset, 1, cols}, tauq, k, false, true);
    // G(k) from the right on A(k+1:m, k+1:n), from row k's columns k+1..n (taken conjugated): z = C u, C -= taup z u^H.
    larfg(k + (k + 1) * m, m, cols, e, taup, k, true);
    const std::int64_t rows = m - k - 1;
    if (rows == 0) continue;
    const std::int64_t parts = gemv_parts(batch, rows, cols), below = right + 1;  // A(k+1, k+1)
    launch(t, kCuParts, 0, {&a}, {&p}, 0, batch * parts * rows, [&](std::vector<KernelArg>& g) {
      g = {mem(a), mem(p), i64(below), i64(right), i64(m), i64(m), i64(stride), i32(rows), i32(cols), i32(parts), i64(batch)};
    });
    launch(t, kSumParts, 0, {&p}, {&z}, 0, batch * rows, [&](std::vector<KernelArg>& g) {
      g = {mem(p), mem(z), i32(rows), i32(parts), i64(batch)};
    });
    update(below, rows, cols, {&z, z.offset, 1, rows}, {&a, right, m, stride}, taup, k, true, false);
  }
}

}  // namespace porta::detail::dense

namespace porta::detail::primitives {
std::vector<std::pair<std::string, std::string>> dense_kernel_sources(const DialectText& d) {
  std::vector<std::pair<std::string, std::string>> out;
  // complex128, every variant (complex arithmetic, float64, local memory for 32 x 32), and
  // float32's small kernels (the real spelling, local memory for 64 x 64): float64 and complex64
  // are the same text with other typedefs, and each compile takes NVRTC about a second.
  for (DType t : {DType::complex128, DType::float32})
    for (int kind = dense::kGetrf; kind <= dense::kPotrfRows; ++kind)
      for (bool small : {false, true}) {
        const auto k = static_cast<dense::Kind>(kind);
        // the variants the drivers run: small kernels 0-5 and the fused ones, global-memory ones but the solves and org2r
        if (small ? (kind >= dense::kLaswp && !dense::fused(k))
                  : (kind == dense::kGetrs || kind == dense::kPotrs || kind == dense::kOrgqr || dense::fused(k)))
          continue;
        if (t == DType::float32 && !small) continue;
        // float32: the GPU's smallest variant (16 x 16, a warp); complex128: its largest (32 x 32 beside 16 right-hand sides).
        const std::int64_t order = !small ? 0 : t == DType::float32 ? 16 : 32;
        const int group = !small ? 256 : t == DType::float32 ? 32 : 64;
        out.emplace_back(cat("dense ", name(t), " kind ", kind, small ? " small" : ""),
                         common_prelude(d) + dense::dense_source(d, t, k, group, order, dense::fused(k) ? 16 : 1));
      }
  // getrf's tournament panel (the round's largest sets in local memory, L21's solve), the inverses
  // of diagonal blocks and the scratch put back.
  for (DType t : {DType::complex128, DType::float32}) {
    out.emplace_back(cat("dense ", name(t), " tournament"),
                     common_prelude(d) + dense::dense_source(d, t, dense::kTournament, 256, t == DType::float32 ? 512 : 128));
    for (dense::Kind k : {dense::kCaluTrsm, dense::kTrtri, dense::kUnpack, dense::kQrColumn})
      out.emplace_back(cat("dense ", name(t), " kind ", static_cast<int>(k)), common_prelude(d) + dense::dense_source(d, t, k, 256, 0));
    const int inverse = t == DType::float32 ? 64 : 32;  // trtri's blocks in local memory (32 KiB)
    out.emplace_back(cat("dense ", name(t), " trtri ", inverse), common_prelude(d) + dense::dense_source(d, t, dense::kTrtri, 256, inverse));
  }
  // sytrd's and gebrd's steps (global memory): complex128's text and float32's.
  for (DType t : {DType::complex128, DType::float32})
    for (int kind = dense::kSytrdStep; kind <= dense::kRank1; ++kind)
      out.emplace_back(cat("dense ", name(t), " kind ", kind), common_prelude(d) + dense::dense_source(d, t, static_cast<dense::Kind>(kind), 256, 0));
  // float64's fused kernels at 64 x 64 (the most local memory: 33 KiB of matrix, 8 KiB of right-hand sides).
  for (int kind : {dense::kGesv, dense::kPotrfRows})
    out.emplace_back(cat("dense float64 kind ", kind, " 64"),
                     common_prelude(d) + dense::dense_source(d, DType::float64, static_cast<dense::Kind>(kind), 256, 64, 16));
  // The warp solve (CUDA's shuffles; OpenCL: NVIDIA's inline PTX) at each sub-warp width (4 to 32
  // lanes, orders that fill it and that do not), each dtype's shuffles (float64's and complex's
  // parts), one and several right-hand sides a lane: six programs (NVRTC takes seconds for each
  // fully unrolled one; the CI's test command is near its 30 minutes).
  const dense::Shuffle s = d.cuda() ? dense::Shuffle::cuda : dense::Shuffle::ptx;
  const std::tuple<DType, std::int64_t, std::int64_t> warp[] = {
      {DType::float32, 1, 1},   {DType::float32, 8, 8},     {DType::float32, 17, 4},
      {DType::float64, 32, 8}, {DType::complex64, 15, 2}, {DType::complex128, 16, 2}};
  for (const auto& [t, n, rhs] : warp)
    out.emplace_back(cat("dense ", name(t), " warp solve ", n, " x ", n, ", ", rhs, " right-hand sides"),
                     common_prelude(d) + dense::warp_source(d, t, n, 128, dense::warp_rhs(t, n, rhs), s));
  return out;
}
}  // namespace porta::detail::primitives
