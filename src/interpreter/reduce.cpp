// The block interpreter's reductions (the counterpart of src/codegen/reduce.cpp): the input
// expression computed block by block (interpreter/block.hpp) and reduced in a fixed order that
// does not depend on threads or timing: pairwise sums merged like a binary counter; and
// interpret_reduction, the entry point plugins call (interface/porta_backend/services.hpp).
#include "interpreter/block.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "porta_backend/strings.hpp"

namespace porta::detail::interp {

namespace {

// A leaf of the pairwise sum, 8 <= n <= 128 values: eight lanes in order, then their tree.
template <class T> [[gnu::always_inline]] inline T pairwise_leaf(const T* v, i64 n) {
  T r[8];
  for (int j = 0; j < 8; ++j) r[j] = v[j];
  i64 i = 8;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) r[j] += v[i + j];
  T s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  for (; i < n; ++i) s += v[i];
  return s;
}

// The fixed order of the eight lanes makes the sum the same at any vector width: the clones
// only load more of it at once.
template <class T> PORTA_INTERP_WIDE T pairwise_sum(const T* v, i64 n) {
  if (n < 8) {
    T s{};
    for (i64 i = 0; i < n; ++i) s += v[i];
    return s;
  }
  if (n <= 128) return pairwise_leaf(v, n);
  // 128 times a power of two up to a block (whole blocks of the reductions): the tree the
  // recursion below builds is balanced, with leaves of 128; its leaves in one loop and its
  // levels after, the same additions without a call per leaf.
  constexpr i64 kMaxLeaves = kBlock / 128;
  if (n % 128 == 0 && n / 128 <= kMaxLeaves && ((n / 128) & (n / 128 - 1)) == 0) {
    T s[kMaxLeaves];
    const i64 m = n / 128;
    for (i64 l = 0; l < m; ++l) s[l] = pairwise_leaf(v + 128 * l, 128);
    for (i64 w = m; w > 1; w /= 2)
      for (i64 k = 0; k < w / 2; ++k) s[k] = s[2 * k] + s[2 * k + 1];
    return s[0];
  }
  i64 half_n = n / 2;
  half_n -= half_n % 8;
  return pairwise_sum(v, half_n) + pairwise_sum(v + half_n, n - half_n);
}

// Partial sums of 1, 2, 4, ... chunks, merged like a binary counter: the error of a float sum
// grows with log(n), not n. `width` values per entry (one per output of a tile).
template <class A> class Cascade {
 public:
  explicit Cascade(i64 width) : width_(width) {}
  void push(const A* x) {
    carry_.assign(x, x + width_);
    std::size_t l = 0;
    for (; l < full_.size() && full_[l]; ++l) {
      const A* lv = level_[l].data();
      for (i64 i = 0; i < width_; ++i) carry_[i] = lv[i] + carry_[i];
      full_[l] = 0;
    }
    if (l == level_.size()) {
      level_.emplace_back();
      full_.push_back(0);
    }
    level_[l] = carry_;
    full_[l] = 1;
  }
  void total(A* out) const {
    bool any = false;
    for (std::size_t l = 0; l < level_.size(); ++l) {
      if (!full_[l]) continue;
      const A* lv = level_[l].data();
      if (!any) std::copy(lv, lv + width_, out);
      else for (i64 i = 0; i < width_; ++i) out[i] = lv[i] + out[i];
      any = true;
    }
    if (!any) std::fill(out, out + width_, A{});
  }

 private:
  i64 width_;
  std::vector<std::vector<A>> level_;
  std::vector<u8> full_;
  std::vector<A> carry_;
};

// The extreme value of v (the lowest with kLow) and whether a NaN is present, on vectors of VB
// bytes (GCC/Clang vector extensions), two of them: the compilers keep a scalar loop for a
// select-based max written on arrays of lanes (NaN rules stop them turning it into maxps), and
// split vectors wider than the target's into scalars (32 bytes ran 3x slower than scalar
// without AVX). 16 bytes is SSE2, the baseline of x86-64 builds, and NEON; extreme_wide picks 32
// or 64 where the CPU has AVX2 or AVX-512. The extreme is the same at any width (but which of
// -0 and +0 a max of both gives; arg reductions then look for the first element equal to it).
template <bool kLow, class T, int VB> [[gnu::always_inline]] inline T extreme_lanes(const T* v, i64 n, bool& has_nan) {
  constexpr bool fp = std::is_floating_point_v<T>;
  constexpr int N = static_cast<int>(VB / sizeof(T));
  typedef T Vec __attribute__((vector_size(VB)));
  constexpr T identity = kLow ? (fp ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max())
                              : (fp ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest());
  Vec m0, m1, n0, n1;
  for (int j = 0; j < N; ++j) {
    m0[j] = identity;
    n0[j] = T(0);
  }
  m1 = m0;
  n1 = n0;
  i64 i = 0;
  for (; i + 2 * N <= n; i += 2 * N) {
    Vec x0, x1;
    std::memcpy(&x0, v + i, sizeof x0);
    std::memcpy(&x1, v + i + N, sizeof x1);
    if constexpr (kLow) {
      m0 = x0 < m0 ? x0 : m0;
      m1 = x1 < m1 ? x1 : m1;
    } else {
      m0 = x0 > m0 ? x0 : m0;
      m1 = x1 > m1 ? x1 : m1;
    }
    if constexpr (fp) {
      n0 = x0 != x0 ? x0 : n0;
      n1 = x1 != x1 ? x1 : n1;
    }
  }
  Vec m;
  if constexpr (kLow) m = m1 < m0 ? m1 : m0;
  else m = m1 > m0 ? m1 : m0;
  const Vec nv = n1 != n1 ? n1 : n0;
  T best = m[0];
  has_nan = false;
  for (int j = 0; j < N; ++j) {
    best = (kLow ? m[j] < best : m[j] > best) ? m[j] : best;
    if constexpr (fp) has_nan = has_nan || nv[j] != nv[j];
  }
  for (; i < n; ++i) {
    const T x = v[i];
    best = (kLow ? x < best : x > best) ? x : best;
    if constexpr (fp) has_nan = has_nan || x != x;
  }
  if constexpr (fp)
    if (has_nan) return std::numeric_limits<T>::quiet_NaN();
  return best;
}

#if PORTA_INTERP_X86
template <bool kLow, class T> [[gnu::target("avx512f")]] T extreme_512(const T* v, i64 n, bool& has_nan) {
  return extreme_lanes<kLow, T, 64>(v, n, has_nan);
}
template <bool kLow, class T> [[gnu::target("avx2")]] T extreme_256(const T* v, i64 n, bool& has_nan) {
  return extreme_lanes<kLow, T, 32>(v, n, has_nan);
}
#endif

template <bool kLow, class T> T extreme_wide(const T* v, i64 n, bool& has_nan) {
#if PORTA_INTERP_X86
  switch (simd_level()) {
    case 2: return extreme_512<kLow, T>(v, n, has_nan);
    case 1: return extreme_256<kLow, T>(v, n, has_nan);
    default: break;
  }
#endif
  return extreme_lanes<kLow, T, 16>(v, n, has_nan);
}

template <ReduceOp R, class T> struct Reducer {
  static constexpr bool kArg = R == ReduceOp::argmin || R == ReduceOp::argmax;
  static constexpr bool kLow = R == ReduceOp::argmin || R == ReduceOp::min;  // the extreme is the lowest
  static constexpr bool kPairwise = R == ReduceOp::sum && (std::is_floating_point_v<T> || is_cx_v<T>);
  // u8 values (bool or uint8: the same registers) sum and multiply in int64, right for both.
  using Acc = std::conditional_t<(R == ReduceOp::sum || R == ReduceOp::prod) && std::is_same_v<T, u8>, i64,
                                 std::conditional_t<R == ReduceOp::all || R == ReduceOp::any, u8, T>>;
  static constexpr DType acc_dtype(DType value) {
    if constexpr (std::is_same_v<Acc, i64>) return DType::int64;
    else if constexpr (R == ReduceOp::all || R == ReduceOp::any) return DType::boolean;  // (not min/max of uint8)
    else if constexpr (std::is_same_v<Acc, float>) return DType::float32;
    else return value;
  }

  static Acc identity() {
    constexpr bool fp = std::is_floating_point_v<T>;
    if constexpr (is_cx_v<T> && !(R == ReduceOp::all || R == ReduceOp::any)) {
      // complex: 0, 1, and for the lexicographic extremes both parts infinite
      using F = typename CxReal<T>::type;
      constexpr F inf = std::numeric_limits<F>::infinity();
      if constexpr (R == ReduceOp::sum) return T{0, 0};
      else if constexpr (R == ReduceOp::prod) return T{1, 0};
      else if constexpr (kLow) return T{inf, inf};
      else return T{-inf, -inf};
    } else if constexpr (R == ReduceOp::sum || R == ReduceOp::any) {
      return Acc(0);
    } else if constexpr (R == ReduceOp::prod || R == ReduceOp::all) {
      return Acc(1);
    } else if constexpr (R == ReduceOp::min || R == ReduceOp::argmin) {
      if constexpr (fp) return std::numeric_limits<T>::infinity();
      else return std::numeric_limits<T>::max();
    } else {
      if constexpr (fp) return -std::numeric_limits<T>::infinity();
      else return std::numeric_limits<T>::lowest();
    }
  }
  // acc combined with a later value (or a later partial result).
  template <class V> static Acc combine(Acc acc, V v) {
    if constexpr (R == ReduceOp::sum) {
      if constexpr (std::is_integral_v<Acc>) return wrap_add(acc, static_cast<Acc>(v));
      else return acc + v;
    } else if constexpr (R == ReduceOp::prod) {
      if constexpr (std::is_same_v<Acc, u8>) return static_cast<u8>(acc & v);
      else if constexpr (std::is_integral_v<Acc>) return wrap_mul(acc, static_cast<Acc>(v));
      else return acc * v;
    } else if constexpr (R == ReduceOp::min) {
      return nan_min(acc, static_cast<Acc>(v));
    } else if constexpr (R == ReduceOp::max) {
      return nan_max(acc, static_cast<Acc>(v));
    } else if constexpr (R == ReduceOp::all) {
      return static_cast<u8>(acc & (v != V{}));
    } else if constexpr (R == ReduceOp::any) {
      return static_cast<u8>(acc | (v != V{}));
    } else {
      return acc;  // arg reductions use better()
    }
  }
  // A later value v replaces the arg reduction's best: strictly more extreme, or the first NaN.
  static bool better(T v, T best) {
    if constexpr (is_cx_v<T>) {
      const bool nan = cx_isnan(v) && !cx_isnan(best);
      return (R == ReduceOp::argmin ? v < best : v > best) || nan;
    } else if constexpr (std::is_floating_point_v<T>) {
      bool nan = v != v && best == best;
      return (R == ReduceOp::argmin ? v < best : v > best) || nan;
    } else {
      return R == ReduceOp::argmin ? v < best : v > best;
    }
  }

  // Arg reductions in two steps instead of one loop with a data-dependent branch per element
  // (Kokkos's argmax of 2^24 float32 read 3.3 GB/s that way): the extreme value, on vectors (and
  // whether a NaN is present: lanes that keep the last NaN they saw), then
  // the first position holding it (the first NaN when there is one). Same answer as folding
  // better() in order: the first occurrence of the extreme, or the first NaN; position 0 when
  // every value equals the identity.
  static T extreme(const T* v, i64 n, bool& has_nan) {
    if constexpr (is_cx_v<T>) {  // lexicographic, in order: the first extreme, or the first NaN
      T best = kLow ? T{std::numeric_limits<decltype(best.re)>::infinity(), std::numeric_limits<decltype(best.re)>::infinity()}
                    : T{-std::numeric_limits<decltype(best.re)>::infinity(), -std::numeric_limits<decltype(best.re)>::infinity()};
      has_nan = false;
      for (i64 i = 0; i < n; ++i) {
        if (cx_isnan(v[i])) {
          has_nan = true;
          return v[i];
        }
        if (kLow ? v[i] < best : v[i] > best) best = v[i];
      }
      return best;
    } else {
      return extreme_wide<kLow, T>(v, n, has_nan);
    }
  }
  // The first position of v holding `best` (a NaN: the first NaN); 0 when none does.
  static i64 first_of(const T* v, i64 n, T best) {
    if constexpr (is_cx_v<T>)
      if (cx_isnan(best)) {
        for (i64 i = 0; i < n; ++i)
          if (cx_isnan(v[i])) return i;
        return 0;
      }
    if constexpr (std::is_floating_point_v<T>)
      if (best != best) {
        for (i64 i = 0; i < n; ++i)
          if (v[i] != v[i]) return i;
        return 0;
      }
    for (i64 i = 0; i < n; ++i)
      if (v[i] == best) return i;
    return 0;
  }
  static T arg_segment(const T* v, i64 n, i64& idx) {
    bool has_nan = false;
    const T best = extreme(v, n, has_nan);
    idx = first_of(v, n, best);
    return best;
  }

  // Reduces contiguous values; for arg reductions idx gets the position within v.
  static Acc segment(const T* v, i64 n, i64& idx) {
    if constexpr (kArg) {
      return arg_segment(v, n, idx);
    } else if constexpr (kPairwise) {
      return pairwise_sum(v, n);
    } else if constexpr (R == ReduceOp::max || R == ReduceOp::min) {
      // extreme()'s vectors: NaN tracked apart, not nan_max's test of every element (Kokkos's max
      // of 2^24 float32 read 3.4-4.2 GB/s through the lanes below, argmax 5.8-6.7 through this).
      bool has_nan = false;
      return extreme(v, n, has_nan);
    } else {
      Acc lane[8];
      for (auto& l : lane) l = identity();
      i64 i = 0;
      for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; ++j) lane[j] = combine(lane[j], v[i + j]);
      Acc s = combine(combine(combine(lane[0], lane[1]), combine(lane[2], lane[3])),
                      combine(combine(lane[4], lane[5]), combine(lane[6], lane[7])));
      for (; i < n; ++i) s = combine(s, v[i]);
      return s;
    }
  }
};

// Where the results of a reduction go: converted from the accumulator's dtype to the output's.
class ReductionOutput {
 public:
  ReductionOutput(const ReductionPlan& rp, DType acc_dtype)
      : acc_dtype_(acc_dtype), out_dtype_(rp.out_dtype), item_(itemsize(rp.out_dtype)),
        base_(static_cast<std::byte*>(rp.out) + rp.out_offset * static_cast<i64>(item_)), tmp_(kBlock) {}
  // out[first .. first + n) = values (registers of acc_dtype), n <= kBlock.
  void write(i64 first, const void* values, i64 n) {
    const void* src = values;
    if (acc_dtype_ != out_dtype_) {
      cast_values(acc_dtype_, values, out_dtype_, tmp_.data(), n);
      src = tmp_.data();
    }
    visit_store(out_dtype_, [&](auto ct, auto st, auto store) {
      using C = typename decltype(ct)::type;
      using S = typename decltype(st)::type;
      const C* s = static_cast<const C*>(src);
      S* d = reinterpret_cast<S*>(base_) + first;
      for (i64 i = 0; i < n; ++i) d[i] = store(s[i]);
    });
  }

 private:
  DType acc_dtype_, out_dtype_;
  std::size_t item_;
  std::byte* base_;
  std::vector<double> tmp_;
};

// Buffers results of consecutive outputs and writes them kBlock at a time.
template <class V> class ResultBuffer {
 public:
  explicit ResultBuffer(ReductionOutput& out) : out_(out) { values_.reserve(kBlock); }
  void add(i64 index, V v) {
    if (values_.empty()) first_ = index;
    values_.push_back(v);
    if (static_cast<i64>(values_.size()) == kBlock) flush();
  }
  void flush() {
    if (!values_.empty()) out_.write(first_, values_.data(), static_cast<i64>(values_.size()));
    values_.clear();
  }

 private:
  ReductionOutput& out_;
  i64 first_ = 0;
  std::vector<V> values_;
};

constexpr i64 kPairwiseRows = 16;  // rows summed in order before they join the cascade

// One row of a tile into its accumulators: a[i] = combine(a[i], row[i]); for arg reductions the
// row's index r where it is better. Element-wise, so any vector width gives the same values.
template <class Red, class T, class Acc>
PORTA_INTERP_WIDE void fold_row(Acc* __restrict a, const T* __restrict row, i64 w) {
  for (i64 i = 0; i < w; ++i) a[i] = Red::combine(a[i], row[i]);
}
template <class Red, class T, class Acc>
PORTA_INTERP_WIDE void fold_row_arg(Acc* __restrict a, i64* __restrict ix, const T* __restrict row, i64 w, i64 r) {
  for (i64 i = 0; i < w; ++i) {
    const bool b = Red::better(row[i], a[i]);
    a[i] = b ? row[i] : a[i];
    ix[i] = b ? r : ix[i];
  }
}

template <ReduceOp R, class T>
void reduce(const Program& p, const ReductionPlan& rp, i64 out_begin, i64 out_end) {
  using Red = Reducer<R, T>;
  using Acc = typename Red::Acc;
  const DType value_dtype = p.plan->code[p.result].dtype;
  const DType acc_dtype = Red::kArg ? DType::int64 : Red::acc_dtype(value_dtype);
  ReductionOutput out(rp, acc_dtype);
  const i64 extent = rp.extent, inner = rp.inner;

  if (extent == 0) {
    ResultBuffer<std::conditional_t<Red::kArg, i64, Acc>> buf(out);
    for (i64 o = out_begin; o < out_end; ++o) {
      if constexpr (Red::kArg) buf.add(o, 0);
      else buf.add(o, Red::identity());
    }
    buf.flush();
    return;
  }
  Scratch& sc = begin_call(p, std::min<i64>(p.total, kBlock));

  if (inner == 1) {
    // Each output reduces `extent` consecutive values.
    ResultBuffer<std::conditional_t<Red::kArg, i64, Acc>> buf(out);
    if (extent <= kBlock / 2) {
      const i64 per_block = kBlock / extent;
      for (i64 o = out_begin; o < out_end; o += per_block) {
        i64 m = std::min(per_block, out_end - o);
        const T* v = static_cast<const T*>(eval_block(p, sc, o * extent, m * extent));
        for (i64 q = 0; q < m; ++q) {
          i64 idx = 0;
          Acc a = Red::segment(v + q * extent, extent, idx);
          if constexpr (Red::kArg) buf.add(o + q, idx);
          else buf.add(o + q, a);
        }
      }
    } else {
      for (i64 o = out_begin; o < out_end; ++o) {
        Acc acc = Red::identity();
        i64 best_r0 = 0;
        Cascade<Acc> cascade(1);
        for (i64 r0 = 0; r0 < extent; r0 += kBlock) {
          i64 n = std::min(kBlock, extent - r0);
          const T* v = static_cast<const T*>(eval_block(p, sc, o * extent + r0, n));
          if constexpr (Red::kArg) {
            // Only each block's extreme here; the position is looked for once, in the first
            // block holding the answer (ties keep the earlier block, as NaN does).
            bool has_nan = false;
            const T part = Red::extreme(v, n, has_nan);
            if (Red::better(part, acc)) {
              acc = part;
              best_r0 = r0;
            }
          } else if constexpr (Red::kPairwise) {
            i64 idx = 0;
            Acc part = Red::segment(v, n, idx);
            cascade.push(&part);
          } else {
            i64 idx = 0;
            acc = Red::combine(acc, Red::segment(v, n, idx));
          }
        }
        if constexpr (Red::kArg) {
          const i64 n = std::min(kBlock, extent - best_r0);
          const T* v = static_cast<const T*>(eval_block(p, sc, o * extent + best_r0, n));
          buf.add(o, best_r0 + Red::first_of(v, n, acc));
        }
        else if constexpr (Red::kPairwise) {
          cascade.total(&acc);
          buf.add(o, acc);
        } else {
          buf.add(o, acc);
        }
      }
    }
    buf.flush();
    return;
  }

  // inner > 1: tiles of up to kBlock outputs of one outer index, reduced row by row.
  std::vector<Acc> acc(kBlock);
  std::vector<i64> idx(Red::kArg ? kBlock : 0);
  for (i64 o = out_begin / inner; o * inner < out_end; ++o) {
    const i64 lo = std::max<i64>(out_begin - o * inner, 0), hi = std::min<i64>(out_end - o * inner, inner);
    for (i64 t0 = lo; t0 < hi; t0 += kBlock) {
      const i64 w = std::min(kBlock, hi - t0);
      // Whole rows of a narrow tile are consecutive: several per block.
      const i64 rows_per_block = (w == inner && inner <= kBlock / 2) ? kBlock / inner : 1;
      std::fill(acc.begin(), acc.begin() + w, Red::identity());
      if constexpr (Red::kArg) std::fill(idx.begin(), idx.begin() + w, i64{0});
      Cascade<Acc> cascade(Red::kPairwise ? w : 0);
      i64 rows_in_sum = 0;
      for (i64 r = 0; r < extent; r += rows_per_block) {
        const i64 m = std::min(rows_per_block, extent - r);
        const i64 first = (o * extent + r) * inner + t0;
        const T* v = static_cast<const T*>(eval_block(p, sc, first, m == 1 ? w : m * inner));
        for (i64 q = 0; q < m; ++q) {
          const T* row = v + q * inner;
          Acc* a = acc.data();
          if constexpr (Red::kArg) fold_row_arg<Red>(a, idx.data(), row, w, r + q);
          else fold_row<Red>(a, row, w);
          if constexpr (Red::kPairwise) {
            if (++rows_in_sum == kPairwiseRows) {
              cascade.push(a);
              std::fill(a, a + w, Acc{});
              rows_in_sum = 0;
            }
          }
        }
      }
      if constexpr (Red::kPairwise) {
        if (rows_in_sum > 0) cascade.push(acc.data());
        cascade.total(acc.data());
      }
      if constexpr (Red::kArg) out.write(o * inner + t0, idx.data(), w);
      else out.write(o * inner + t0, acc.data(), w);
    }
  }
}

template <ReduceOp R> void reduce_op(const Program& p, const ReductionPlan& rp, i64 b, i64 e) {
  visit_compute(p.plan->code[p.result].dtype, [&](auto ct) {
    using T = typename decltype(ct)::type;
    reduce<R, T>(p, rp, b, e);
  });
}

}  // namespace

}  // namespace porta::detail::interp

namespace porta::detail {

using namespace interp;

void interpret_reduction(const ReductionPlan& plan, std::int64_t out_begin, std::int64_t out_end) {
  Program p = compile(plan.input, false);
  if (plan.outer < 0 || plan.extent < 0 || plan.inner < 0 || plan.outer * plan.extent * plan.inner != p.total)
    bad_plan(cat("reduction of [", plan.outer, ", ", plan.extent, ", ", plan.inner, "] over ", p.total, " elements"));
  out_begin = std::max<i64>(out_begin, 0);
  out_end = std::min(out_end, plan.outer * plan.inner);
  if (out_begin >= out_end) return;
  if (!plan.out) bad_plan("the reduction's output has no memory");
  switch (plan.op) {
    case ReduceOp::sum: reduce_op<ReduceOp::sum>(p, plan, out_begin, out_end); return;
    case ReduceOp::prod: reduce_op<ReduceOp::prod>(p, plan, out_begin, out_end); return;
    case ReduceOp::min: reduce_op<ReduceOp::min>(p, plan, out_begin, out_end); return;
    case ReduceOp::max: reduce_op<ReduceOp::max>(p, plan, out_begin, out_end); return;
    case ReduceOp::argmin: reduce_op<ReduceOp::argmin>(p, plan, out_begin, out_end); return;
    case ReduceOp::argmax: reduce_op<ReduceOp::argmax>(p, plan, out_begin, out_end); return;
    case ReduceOp::all: reduce_op<ReduceOp::all>(p, plan, out_begin, out_end); return;
    case ReduceOp::any: reduce_op<ReduceOp::any>(p, plan, out_begin, out_end); return;
  }
  bad_plan(cat("unknown reduce op ", static_cast<int>(plan.op)));
}

}  // namespace porta::detail
