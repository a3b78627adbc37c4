// The block interpreter's elementwise runner (interpreter/block.hpp): gathering inputs into
// registers, running the instructions, scattering the result; and interpret_elementwise, the
// entry point plugins call (interface/porta_backend/services.hpp).
#include "interpreter/block.hpp"

#include <algorithm>
#include <cstring>

#include "porta_backend/strings.hpp"

namespace porta::detail::interp {

namespace {

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// Calls run(k, pos, len, stride) for each run of the block along the last dimension: block
// elements [k, k + len) are at element offsets pos, pos + stride, ... of the view.
template <class F>
void walk(const std::vector<i64>& shape, const std::vector<i64>& strides, const std::vector<i64>& start_index,
          std::vector<i64>& idx, i64 n, F&& run) {
  const int nd = static_cast<int>(shape.size());
  if (nd == 0) {
    run(i64{0}, i64{0}, n, i64{0});
    return;
  }
  std::copy(start_index.begin(), start_index.end(), idx.begin());
  i64 pos = 0;
  for (int d = 0; d < nd; ++d) pos += idx[d] * strides[d];
  const i64 last = shape[nd - 1], s = strides[nd - 1];
  i64 k = 0;
  while (k < n) {
    i64 len = std::min(n - k, last - idx[nd - 1]);
    run(k, pos, len, s);
    k += len;
    if (k >= n) break;
    pos += len * s;
    idx[nd - 1] += len;
    for (int d = nd - 1; d > 0 && idx[d] == shape[d]; --d) {
      pos -= idx[d] * strides[d];
      idx[d] = 0;
      ++idx[d - 1];
      pos += strides[d - 1];
    }
  }
}

// A 2-D view whose elements are closer down a column than along a row (a transposed view):
// tiles are read and written column by column for it.
bool reads_down_columns(i64 s0, i64 s1) {
  return s0 != 0 && s1 != 0 && std::abs(s0) < std::abs(s1);
}

// Block [start, start + n) of input `v`, converted to registers, into dst; or the tile.
void gather(const Program& p, Scratch& sc, const InputView& v, i64 start, i64 n, void* dst) {
  visit_storage(v.dtype, [&](auto st, auto load) {
    using S = typename decltype(st)::type;
    using C = decltype(load(S{}));
    const S* base = reinterpret_cast<const S*>(v.base);
    C* d = static_cast<C*>(dst);
    if (v.constant) {
      std::fill(d, d + n, load(base[0]));
    } else if (sc.tile) {
      const i64 s0 = (*v.strides)[0], s1 = (*v.strides)[1], tr = sc.tr, tc = sc.tc;
      const S* s = base + sc.r0 * s0 + sc.c0 * s1;
      if (reads_down_columns(s0, s1)) {
        for (i64 c = 0; c < tc; ++c)
          for (i64 r = 0; r < tr; ++r) d[r * tc + c] = load(s[r * s0 + c * s1]);
      } else {
        for (i64 r = 0; r < tr; ++r) {
          const S* row = s + r * s0;
          C* o = d + r * tc;
          if (s1 == 1) {
            for (i64 c = 0; c < tc; ++c) o[c] = load(row[c]);
          } else {
            for (i64 c = 0; c < tc; ++c) o[c] = load(row[c * s1]);
          }
        }
      }
    } else if (v.contiguous) {
      const S* s = base + start;
      for (i64 i = 0; i < n; ++i) d[i] = load(s[i]);
    } else {
      walk(p.plan->shape, *v.strides, sc.start_index, sc.walk_index, n, [&](i64 k, i64 pos, i64 len, i64 stride) {
        const S* s = base + pos;
        C* o = d + k;
        if (stride == 1) {
          for (i64 i = 0; i < len; ++i) o[i] = load(s[i]);
        } else if (stride == 0) {
          std::fill(o, o + len, load(s[0]));
        } else {
          for (i64 i = 0; i < len; ++i) o[i] = load(s[i * stride]);
        }
      });
    }
  });
}

// Registers of the output's dtype -> output elements [start, start + n).
void scatter(const Program& p, Scratch& sc, const void* src, i64 start, i64 n) {
  visit_store(p.out_dtype, [&](auto ct, auto st, auto store) {
    using C = typename decltype(ct)::type;
    using S = typename decltype(st)::type;
    const C* s = static_cast<const C*>(src);
    S* base = reinterpret_cast<S*>(p.out_base);
    if (sc.tile) {
      const auto& shape = p.plan->shape;
      const i64 s0 = p.out_contiguous ? shape[1] : p.plan->output.strides[0];
      const i64 s1 = p.out_contiguous ? 1 : p.plan->output.strides[1], tr = sc.tr, tc = sc.tc;
      S* d = base + sc.r0 * s0 + sc.c0 * s1;
      if (reads_down_columns(s0, s1)) {
        for (i64 c = 0; c < tc; ++c)
          for (i64 r = 0; r < tr; ++r) d[r * s0 + c * s1] = store(s[r * tc + c]);
      } else {
        for (i64 r = 0; r < tr; ++r)
          for (i64 c = 0; c < tc; ++c) d[r * s0 + c * s1] = store(s[r * tc + c]);
      }
      return;
    }
    if (p.out_contiguous) {
      S* d = base + start;
      for (i64 i = 0; i < n; ++i) d[i] = store(s[i]);
      return;
    }
    walk(p.plan->shape, p.plan->output.strides, sc.start_index, sc.walk_index, n, [&](i64 k, i64 pos, i64 len, i64 stride) {
      S* d = base + pos;
      const C* in = s + k;
      if (stride == 1) {
        for (i64 i = 0; i < len; ++i) d[i] = store(in[i]);
      } else {
        for (i64 i = 0; i < len; ++i) d[i * stride] = store(in[i]);
      }
    });
  });
}

void fill_scalar(const ScalarValue& sv, DType t, void* dst, i64 n) {
  // The scalar as a register of its own dtype, cast to the instruction's, then repeated.
  alignas(16) std::byte one[16];
  if (is_complex(sv.dtype)) {
    porta_c128 c{sv.f, sv.imag};
    cast_values(DType::complex128, &c, t, one, 1);
  } else if (is_floating(sv.dtype)) {
    double f = sv.f;
    cast_values(DType::float64, &f, t, one, 1);
  } else if (sv.dtype == DType::boolean) {
    u8 b = sv.i != 0;
    cast_values(DType::boolean, &b, t, one, 1);
  } else {
    i64 i = sv.i;
    cast_values(DType::int64, &i, t, one, 1);
  }
  visit_compute(t, [&](auto ct) {
    using C = typename decltype(ct)::type;
    C v;
    std::memcpy(&v, one, sizeof(C));
    std::fill(static_cast<C*>(dst), static_cast<C*>(dst) + n, v);
  });
}

// Where a strided input's values for a linear block are, when the block lies in one run of
// stride 1 along the last dimension (a row of a matrix plus a row vector, a slice's row) and
// its registers are its storage; null otherwise.
const std::byte* in_place_run(const Program& p, const Scratch& sc, const InputView& v, i64 n) {
  if (sc.tile || !p.needs_index || v.constant || !loaded_as_stored(v.dtype) || p.ndim == 0) return nullptr;
  const auto& shape = p.plan->shape;
  const auto& strides = *v.strides;
  const int last = p.ndim - 1;
  if (strides[last] != 1 || n > shape[last] - sc.start_index[last]) return nullptr;
  i64 pos = 0;
  for (int d = 0; d < p.ndim; ++d) pos += sc.start_index[d] * strides[d];
  return v.base + pos * static_cast<i64>(v.item);
}

void run_instruction(const Program& p, Scratch& sc, int j, void* dst, i64 start, i64 n) {
  const ElementwisePlan& plan = *p.plan;
  const Instr& in = plan.code[j];
  const DType t = in.dtype;
  switch (in.op) {
    case Op::load: {
      const InputView& v = p.inputs[in.arg];
      if (p.in_place[j]) {
        sc.ptr[j] = const_cast<std::byte*>(v.base) + start * static_cast<i64>(v.item);
        return;
      }
      if (const std::byte* at = (j == p.result && p.direct_output) ? nullptr : in_place_run(p, sc, v, n)) {
        sc.ptr[j] = const_cast<std::byte*>(at);
        return;
      }
      gather(p, sc, v, start, n, dst);
      break;
    }
    case Op::scalar: fill_scalar(plan.scalars[in.arg], t, dst, n); break;
    case Op::index: {
      i64* d = static_cast<i64*>(dst);
      if (sc.tile) {
        const i64 cols = plan.shape[1];
        for (i64 r = 0; r < sc.tr; ++r)
          for (i64 c = 0; c < sc.tc; ++c) d[r * sc.tc + c] = (sc.r0 + r) * cols + sc.c0 + c;
        break;
      }
      if (p.counter_only[j]) {  // the random ops reading it take `start` instead
        sc.ptr[j] = nullptr;
        return;
      }
      for (i64 i = 0; i < n; ++i) d[i] = start + i;
      break;
    }
    case Op::cast: cast_values(plan.code[in.a].dtype, sc.ptr[in.a], t, dst, n); break;
    case Op::uniform:
    case Op::normal:
      // A linear block's index is start, start + 1, ... (the index op's values there).
      run_random(in.op, t, dst, static_cast<const i64*>(sc.ptr[in.a]),
                 !sc.tile && plan.code[in.a].op == Op::index ? start : -1, static_cast<u64>(plan.scalars[in.arg].i),
                 static_cast<u64>(plan.scalars[in.arg + 1].i), n);
      break;
    case Op::where:
      visit_compute(t, [&](auto ct) {
        using C = typename decltype(ct)::type;
        run_where(static_cast<C*>(dst), static_cast<const u8*>(sc.ptr[in.a]), static_cast<const C*>(sc.ptr[in.b]),
                  static_cast<const C*>(sc.ptr[in.c]), n);
      });
      break;
    case Op::fma:
      visit_compute(t, [&](auto ct) {
        using C = typename decltype(ct)::type;
        run_fma(static_cast<C*>(dst), static_cast<const C*>(sc.ptr[in.a]), static_cast<const C*>(sc.ptr[in.b]),
                static_cast<const C*>(sc.ptr[in.c]), n);
      });
      break;
    case Op::real:
    case Op::imag: run_part(in.op, plan.code[in.a].dtype, sc.ptr[in.a], dst, n); break;
    case Op::conj:  // of a real value: the value
      visit_compute(t, [&](auto ct) {
        using C = typename decltype(ct)::type;
        const C* a = static_cast<const C*>(sc.ptr[in.a]);
        if constexpr (is_cx_v<C>) run_unary<C>(Op::conj, t, static_cast<C*>(dst), a, n);
        else std::copy(a, a + n, static_cast<C*>(dst));
      });
      break;
    case Op::abs:
      if (is_complex(plan.code[in.a].dtype)) {
        run_part(Op::abs, plan.code[in.a].dtype, sc.ptr[in.a], dst, n);
        break;
      }
      visit_compute(t, [&](auto ct) {
        using C = typename decltype(ct)::type;
        run_unary<C>(Op::abs, t, static_cast<C*>(dst), static_cast<const C*>(sc.ptr[in.a]), n);
      });
      break;
    case Op::logical_not:
      run_unary<u8>(Op::logical_not, t, static_cast<u8*>(dst), static_cast<const u8*>(sc.ptr[in.a]), n);
      break;
    default:
      if (is_compare(in.op)) {
        visit_compute(plan.code[in.a].dtype, [&](auto ct) {
          using C = typename decltype(ct)::type;
          run_compare(in.op, static_cast<u8*>(dst), static_cast<const C*>(sc.ptr[in.a]),
                      static_cast<const C*>(sc.ptr[in.b]), n);
        });
      } else if (is_predicate(in.op)) {
        visit_compute(plan.code[in.a].dtype, [&](auto ct) {
          using C = typename decltype(ct)::type;
          run_predicate(in.op, static_cast<u8*>(dst), static_cast<const C*>(sc.ptr[in.a]), n);
        });
      } else if (is_logical2(in.op)) {
        run_logical(in.op, static_cast<u8*>(dst), static_cast<const u8*>(sc.ptr[in.a]),
                    static_cast<const u8*>(sc.ptr[in.b]), n);
      } else if (is_binary_same(in.op)) {
        visit_compute(t, [&](auto ct) {
          using C = typename decltype(ct)::type;
          run_binary<C>(in.op, t, static_cast<C*>(dst), static_cast<const C*>(sc.ptr[in.a]),
                        static_cast<const C*>(sc.ptr[in.b]), n);
        });
      } else {
        visit_compute(t, [&](auto ct) {
          using C = typename decltype(ct)::type;
          run_unary<C>(in.op, t, static_cast<C*>(dst), static_cast<const C*>(sc.ptr[in.a]), n);
        });
      }
      break;
  }
  // NumPy's rule: each operation's float16/bfloat16 result is rounded to its dtype (plan.hpp).
  if (is_half(t) && rounds_half_result(in.op)) round_register(t, static_cast<float*>(dst), n);
  sc.ptr[j] = dst;
}

}  // namespace

// Sets up the registers for a call covering at most `span` elements: the constants, once.
Scratch& begin_call(const Program& p, i64 span) {
  Scratch& sc = scratch();
  sc.prepare(p);
  i64 n = std::min(span, kBlock);
  for (int j : p.const_steps) {
    const Instr& in = p.plan->code[j];
    void* dst = sc.slot(p.slot[j]);
    if (in.op == Op::load) {
      gather(p, sc, p.inputs[in.arg], 0, n, dst);  // a constant input: one element, repeated
      sc.ptr[j] = dst;
    } else {
      run_instruction(p, sc, j, dst, 0, n);
    }
  }
  return sc;
}

// Computes the result for elements [start, start + n), n <= kBlock; returns where its values
// are (the output itself when the result is written there directly).
const void* eval_block(const Program& p, Scratch& sc, i64 start, i64 n) {
  if (p.needs_index) {
    i64 rest = start;
    for (int d = p.ndim; d-- > 0;) {
      i64 e = p.plan->shape[d];
      sc.start_index[d] = rest % e;
      rest /= e;
    }
  }
  for (int j : p.steps) {
    void* dst = (j == p.result && p.direct_output) ? static_cast<void*>(p.out_base + start * static_cast<i64>(p.out_item))
                : p.slot[j] >= 0 ? sc.slot(p.slot[j])
                                 : nullptr;
    run_instruction(p, sc, j, dst, start, n);
  }
  return sc.ptr[p.result];
}

namespace {

// Computes the result for the tile set in sc (tr * tc <= kBlock elements).
const void* eval_tile(const Program& p, Scratch& sc) {
  const i64 n = sc.tr * sc.tc;
  for (int j : p.steps) {
    void* dst = p.slot[j] >= 0 ? sc.slot(p.slot[j]) : nullptr;
    run_instruction(p, sc, j, dst, 0, n);
  }
  return sc.ptr[p.result];
}

// Whether to run a 2-D plan in tiles: some operand is transposed, so linear blocks would read
// (or write) it one cache line per element.
bool wants_tiles(const ElementwisePlan& plan) {
  if (plan.shape.size() != 2 || plan.shape[0] < 2 || plan.shape[1] < 2) return false;
  for (auto& in : plan.inputs)
    if (reads_down_columns(in.strides[0], in.strides[1])) return true;
  return plan.output.strides.size() == 2 && reads_down_columns(plan.output.strides[0], plan.output.strides[1]);
}

}  // namespace

}  // namespace porta::detail::interp

namespace porta::detail {

using namespace interp;

void interpret_elementwise(const ElementwisePlan& plan, std::int64_t begin, std::int64_t end) {
  if (!plan.output.handle) bad_plan("the output has no memory");
  const bool tiled = wants_tiles(plan);
  Program p = compile(plan, true, tiled);
  begin = std::max<i64>(begin, 0);
  end = std::min(end, p.total);
  if (begin >= end) return;
  Scratch& sc = begin_call(p, end - begin);
  auto finish = [&](const void* values, i64 start, i64 n) {
    if (p.direct_output) return;
    if (p.out_cast_slot >= 0) {
      void* tmp = sc.slot(p.out_cast_slot);
      cast_values(plan.code[p.result].dtype, values, p.out_dtype, tmp, n);
      values = tmp;
    }
    scatter(p, sc, values, start, n);
  };
  // Blocks end at row ends when rows are long: a row of a strided operand with stride 1 is then
  // read in place (in_place_run), a broadcast column is one value.
  const i64 last = p.ndim ? plan.shape[p.ndim - 1] : 1;
  const bool by_rows = p.needs_index && last >= kBlock / 4;
  auto linear = [&](i64 from, i64 to) {
    for (i64 start = from; start < to;) {
      i64 n = std::min(kBlock, to - start);
      if (by_rows) n = std::min(n, last - start % last);
      finish(eval_block(p, sc, start, n), start, n);
      start += n;
    }
  };
  if (!tiled) {
    linear(begin, end);
    return;
  }
  // The whole rows of the range in tiles of kTileRows x (kBlock / kTileRows), each operand read
  // and written along its own closer direction; partial rows at either end as linear blocks.
  constexpr i64 kTileRows = 32, kTileCols = kBlock / kTileRows;
  const i64 cols = plan.shape[1];
  const i64 row_begin = (begin + cols - 1) / cols, row_end = end / cols;
  if (row_begin >= row_end) {
    linear(begin, end);
    return;
  }
  linear(begin, row_begin * cols);
  for (i64 r0 = row_begin; r0 < row_end; r0 += kTileRows) {
    for (i64 c0 = 0; c0 < cols; c0 += kTileCols) {
      sc.tile = true;
      sc.r0 = r0;
      sc.c0 = c0;
      sc.tr = std::min(kTileRows, row_end - r0);
      sc.tc = std::min(kTileCols, cols - c0);
      finish(eval_tile(p, sc), 0, sc.tr * sc.tc);
      sc.tile = false;
    }
  }
  linear(row_end * cols, end);
}

}  // namespace porta::detail
