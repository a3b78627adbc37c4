// porta's tiled GEMM on OpenCL devices (the kernel is kernels/gemm_tiled.cl, its parameters
// gemm/kernel.hpp): which parameters a device uses and the launch. It takes every product the
// tensor-core kernels (gemm/tensor.cpp) do not.
//
// Parameters, per device and dtype (float16 and bfloat16 use float32's), from the first of:
//  PORTA_OPENCL_GEMM_SHAPE=TMxTNxTK:WMxWN[:vV]  a manual override, read at every call;
//  CPU devices                                  one fixed set (their float32/float64 go to the host BLAS),
//                                               unless PORTA_OPENCL_GEMM_SEARCH is set;
//  the disk cache                               the winner of an earlier search on this device and driver;
//  a search                                     the timed, checked search of gemm/search.hpp over
//                                               gemm_gpu_candidates, a few seconds at most; the
//                                               winner goes to the disk cache.
// PORTA_LOG=info prints the choice and every candidate's TFLOP/s.
#include <climits>
#include <map>

#include "porta_backend/services.hpp"
#include "porta_backend/settings.hpp"
#include "porta_backend/log.hpp"
#include "opencl/gemm/kernel.hpp"
#include "opencl/gemm/search.hpp"
#include "opencl/opencl.hpp"

namespace porta::opencl {

Device::GemmTuning& Device::gemm_tuning() {
  std::call_once(gemm_once_, [this] { gemm_ = std::make_shared<GemmTuning>(); });
  return *gemm_;
}

namespace {

// Complex and integer products have parameters of their own; float16 and bfloat16 use float32's.
DType tuned_dtype(DType t) {
  if (t == DType::float64 || is_complex(t) || is_integral(t)) return t;
  return DType::float32;
}
// Local tiles hold float for the half types, the accumulator's type for integers.
std::size_t tile_elem_bytes(DType t) {
  if (is_complex(t)) return itemsize(t);
  if (is_integral(t)) return itemsize(t) == 8 ? 8 : 4;
  return t == DType::float64 ? 8 : 4;
}
// Integer products are not searched (gemm/search.cpp times and checks floating products): the
// first candidate that fits runs.
bool searched(DType t) { return !is_integral(t); }

std::shared_ptr<Kernel> gemm_program(Device& dev, const GemmParams& p, DType t, bool fast, bool ta, bool tb,
                                     bool subtract = false) {
  KernelSource src;
  src.source = kGemmSource;
  src.entry = "porta_gemm";
  src.options = gemm_options(p, t, fast, ta, tb, subtract);
  std::string key = "opencl-gemm|" + detail::join(src.options, " ");
  return std::static_pointer_cast<Kernel>(detail::cached_kernel(dev, key, [&] { return src; }));
}

// The global and local sizes of a product of m x n, batch `batch`.
LaunchDims gemm_dims(const GemmParams& p, std::int64_t m, std::int64_t n, std::int64_t batch) {
  auto groups = [](std::int64_t size, int tile) { return static_cast<std::size_t>((size + tile - 1) / tile); };
  LaunchDims dims;
  dims.global = {groups(n, p.tile_n) * static_cast<std::size_t>(p.group_n()),
                 groups(m, p.tile_m) * static_cast<std::size_t>(p.group_m()), static_cast<std::size_t>(batch)};
  dims.local = {static_cast<std::size_t>(p.group_n()), static_cast<std::size_t>(p.group_m()), 1};
  return dims;
}

void launch_gemm(Device& dev, QueueImpl& q, Kernel& kernel, const GemmParams& p, const MatmulArgs& g) {
  using I32 = std::int32_t;
  using I64 = std::int64_t;
  const KernelArg args[] = {
      KernelArg::scalar<I32>(static_cast<I32>(g.m)), KernelArg::scalar<I32>(static_cast<I32>(g.n)),
      KernelArg::scalar<I32>(static_cast<I32>(g.k)), KernelArg::scalar<I32>(g.trans_a ? 1 : 0),
      KernelArg::scalar<I32>(g.trans_b ? 1 : 0),
      KernelArg::memory(g.a), KernelArg::scalar<I64>(g.a_offset), KernelArg::scalar<I64>(g.lda),
      KernelArg::scalar<I64>(g.stride_a),
      KernelArg::memory(g.b), KernelArg::scalar<I64>(g.b_offset), KernelArg::scalar<I64>(g.ldb),
      KernelArg::scalar<I64>(g.stride_b),
      KernelArg::memory(g.c), KernelArg::scalar<I64>(g.c_offset), KernelArg::scalar<I64>(g.ldc),
      KernelArg::scalar<I64>(g.stride_c),
  };
  dev.launch(q, kernel, gemm_dims(p, g.m, g.n, g.batch), args);
}

// The fast variant needs whole tiles and VW-aligned rows, offsets and batch strides.
bool fits_fast(const GemmParams& p, const MatmulArgs& g) {
  auto aligned = [&](std::int64_t v) { return v % p.vector == 0; };
  return g.m % p.tile_m == 0 && g.n % p.tile_n == 0 && g.k % p.tile_k == 0 && aligned(g.lda) && aligned(g.ldb) &&
         aligned(g.ldc) && aligned(g.a_offset) && aligned(g.b_offset) && aligned(g.c_offset) && aligned(g.stride_a) &&
         aligned(g.stride_b) && aligned(g.stride_c);
}

}  // namespace

// Why `p` cannot run on this device (empty when it can), before compiling.
static std::string unfit_reason(const GemmParams& p, DType t, std::uint64_t local_mem, std::size_t max_group) {
  if (auto r = p.invalid_reason(); !r.empty()) return r;
  if (p.local_bytes(tile_elem_bytes(t)) > local_mem)
    return detail::cat("needs ", detail::format_bytes(p.local_bytes(tile_elem_bytes(t))), " of local memory, the device has ",
                       detail::format_bytes(local_mem));
  if (static_cast<std::size_t>(p.group()) > max_group)
    return detail::cat("needs work-groups of ", p.group(), ", the device allows ", max_group);
  return {};
}

void Device::matmul_tiled(QueueImpl& q, const MatmulArgs& g) {
  if (g.subtract && (is_integral(g.dtype) || g.dtype == DType::float16 || g.dtype == DType::bfloat16))
    throw InvalidArgument(detail::cat("a subtracting matmul of ", name(g.dtype), " on ", label_,
                                      ": porta's tiled GEMM subtracts float32, float64 and complex products only (porta's bug)"));
  if ((g.dtype == DType::float64 || g.dtype == DType::complex128) && !info_.dtypes[static_cast<int>(g.dtype)])
    throw DTypeError(detail::cat("matmul of ", name(g.dtype), " on ", label_,
                                 ": the device has no double precision (cl_khr_fp64); use astype(",
                                 g.dtype == DType::float64 ? "float32" : "complex64", ")"));
  if (g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX)
    throw InvalidArgument(detail::cat("matmul of ", g.m, "x", g.k, " by ", g.k, "x", g.n, " on ", label_,
                                      ": porta's OpenCL GEMM takes sizes below 2^31"));
  const DType tt = tuned_dtype(g.dtype);
  const auto local_mem = device_value<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE);
  const auto max_group = device_value<std::size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  GemmParams p;
  std::optional<GemmParams> forced;
  if (auto v = setting_text("PORTA_OPENCL_GEMM_SHAPE")) {
    forced = parse_gemm_params(*v);
    if (forced && (is_complex(tt) || is_integral(tt))) forced->vector = 1;  // they run with VW 1
    if (!forced)
      detail::bad_setting("PORTA_OPENCL_GEMM_SHAPE", *v,
                          "not TMxTNxTK:WMxWN or TMxTNxTK:WMxWN:vV (such as 128x128x8:8x8:v4) with TM a multiple of WM, "
                          "TN of WN, WM, WN and TK of V, and whole vectors per work-item");
    else if (auto r = unfit_reason(*forced, tt, local_mem, max_group); !r.empty()) {
      detail::bad_setting("PORTA_OPENCL_GEMM_SHAPE", *v, detail::cat("does not fit ", label_, ": it ", r));
      forced.reset();  // a bad value under a warning policy: searched, as unset
    }
  }
  if (forced) {
    p = *forced;
  } else if (!searched(tt) || (info_.kind == DeviceKind::cpu && !setting_text("PORTA_OPENCL_GEMM_SEARCH"))) {
    p = info_.kind == DeviceKind::cpu ? gemm_cpu_params(tt) : gemm_gpu_candidates(tt).front();
    if (!unfit_reason(p, tt, local_mem, max_group).empty()) {
      if (searched(tt)) {
        p = gemm_choose(q, tt, small_gemm(g), local_mem, max_group);
      } else {
        std::string skipped;
        bool found = false;
        for (const GemmParams& c : gemm_gpu_candidates(tt)) {
          if (auto r = unfit_reason(c, tt, local_mem, max_group); !r.empty()) {
            skipped += detail::cat(" ", c.text(), " (", r, ")");
          } else {
            p = c;
            found = true;
            break;
          }
        }
        if (!found)
          throw DeviceError(detail::cat(label_, " cannot run porta's ", name(tt), " GEMM: no parameter set fits:", skipped,
                                        "; set PORTA_OPENCL_GEMM_SHAPE to a smaller shape"));
      }
    }
  } else {
    p = gemm_choose(q, tt, small_gemm(g), local_mem, max_group);
  }
  const bool fast = fits_fast(p, g);
  auto kernel = gemm_program(*this, p, g.dtype, fast, g.trans_a, g.trans_b, g.subtract);
  if (kernel->max_group_size() < static_cast<std::size_t>(p.group()))
    throw DeviceError(detail::cat(label_, ": porta's GEMM with ", p.text(), " needs work-groups of ", p.group(),
                                  ", the compiled kernel allows ", kernel->max_group_size(),
                                  "; set PORTA_OPENCL_GEMM_SHAPE to a smaller shape, or PORTA_OPENCL_GEMM=clblast or host"));
  launch_gemm(*this, q, *kernel, p, g);
}

GemmParams Device::gemm_choose(QueueImpl& q, DType t, bool small, std::uint64_t local_mem, std::size_t max_group) {
  GemmTuning& tuning = gemm_tuning();
  std::lock_guard lock(tuning.m);
  if (auto it = tuning.chosen.find({t, small}); it != tuning.chosen.end()) return it->second;

  std::vector<GemmParams> params;
  std::string skipped;
  for (const GemmParams& p : gemm_gpu_candidates(t)) {
    if (auto r = unfit_reason(p, t, local_mem, max_group); !r.empty())
      skipped += detail::cat(" ", p.text(), " (", r, ")");
    else
      params.push_back(p);
  }
  if (params.empty())
    throw DeviceError(detail::cat(label_, " cannot run porta's GEMM: no parameter set fits:", skipped,
                                  "; set PORTA_OPENCL_GEMM=clblast or host"));
  if (!skipped.empty()) PORTA_LOG(info, label_, ": ", name(t), " GEMM parameters that do not fit the device:", skipped);
  std::vector<GemmCandidate> candidates;
  for (const GemmParams& p : params)
    candidates.push_back({p.text(), [this, &q, p, t](const MatmulArgs& g) -> std::string {
                            auto kernel = gemm_program(*this, p, t, fits_fast(p, g), g.trans_a, g.trans_b);
                            if (kernel->max_group_size() < static_cast<std::size_t>(p.group()))
                              return detail::cat("the compiled kernel allows work-groups of ", kernel->max_group_size());
                            launch_gemm(*this, q, *kernel, p, g);
                            return {};
                          }});
  GemmSearch s;
  s.what = detail::cat(label_, ": ", name(t), " GEMM parameters for ", small ? "small" : "large", " products");
  s.kind = "tiled";
  s.source = kGemmSource;
  s.dtype = t;
  s.round_to = 128;  // a multiple of every candidate's tiles, so each runs its fast variant
  s.small = small;
  const std::vector<std::size_t> order = rank_gemm_candidates(*this, q, s, candidates);
  if (order.empty())
    throw DeviceError(detail::cat(label_, ": every candidate of porta's ", name(t),
                                  " GEMM failed (PORTA_LOG=info shows why); set PORTA_OPENCL_GEMM=clblast"));
  return tuning.chosen[{t, small}] = params[order.front()];
}

}  // namespace porta::opencl
