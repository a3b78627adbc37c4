// Random arrays: lazy Philox leaves scaled with one fused multiply-add, so that uniform draws
// are the same bits on every backend.
#include <porta/random.hpp>
#include <porta/error.hpp>

#include <memory>
#include <mutex>
#include <random>

#include "lazy/expr.hpp"
#include "primitives/primitives.hpp"
#include "porta_backend/strings.hpp"

namespace porta::random {

using detail::cat;
using detail::NodePtr;
using detail::Op;

namespace {

Array draw(Op op, std::uint64_t seed, std::uint64_t stream, Shape shape, double shift, double scale, DType t,
           const Device& d, const char* what) {
  detail::check_valid_dtype(t, what);
  if (!is_floating(t)) throw DTypeError(cat("random::", what, " makes floating arrays; ", name(t), " is not one"));
  (void)element_count(shape);
  detail::check_dtype(d, t);
  DType w = t == DType::float64 ? DType::float64 : DType::float32;  // float16/bfloat16 round from float32
  detail::Expr e;
  e.op = op;
  e.seed = seed;
  e.stream = stream;
  NodePtr u = std::make_shared<detail::ArrayNode>(shape, w, d, std::move(e));
  if (shift != 0.0 || scale != 1.0) {
    NodePtr sc = detail::make_scalar(scale, 0, w, shape, d);
    NodePtr sh = detail::make_scalar(shift, 0, w, shape, d);
    u = detail::make_node(Op::fma, w, u, sc, sh);
  }
  return Array(detail::cast(u, t));
}

struct Global {
  std::mutex m;
  std::shared_ptr<Generator> gen;  // replaced by seed(); draws in flight keep theirs
};

Global& global() {
  static Global g;
  return g;
}

std::shared_ptr<Generator> global_generator() {
  auto& g = global();
  std::lock_guard lock(g.m);
  if (!g.gen) {
    std::random_device rd;
    std::uint64_t s = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    g.gen = std::make_shared<Generator>(s);
  }
  return g.gen;
}

}  // namespace

Array Generator::uniform(Shape shape, double low, double high, DType t, Device d) {
  if (!(high >= low)) throw InvalidArgument(cat("uniform: high ", high, " is below low ", low));
  return draw(Op::uniform, seed_, next_stream_.fetch_add(1), std::move(shape), low, high - low, t, d, "uniform");
}

Array Generator::normal(Shape shape, double mean, double stddev, DType t, Device d) {
  if (!(stddev >= 0)) throw InvalidArgument(cat("normal: the standard deviation ", stddev, " is negative"));
  return draw(Op::normal, seed_, next_stream_.fetch_add(1), std::move(shape), mean, stddev, t, d, "normal");
}

namespace {

// 128-bit integers hold every bound and range (GCC and Clang; an extension in pedantic mode).
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

// A bound as a 128-bit integer.
i128 wide(const Generator::IntegerBound& b) {
  if (b.two_to_64) return static_cast<i128>(1) << 64;
  return b.big_unsigned ? static_cast<i128>(static_cast<std::uint64_t>(b.bits)) : static_cast<i128>(b.bits);
}

std::string text(i128 v) {
  if (v == (static_cast<i128>(1) << 64)) return "2^64";
  return v < 0 ? std::to_string(static_cast<std::int64_t>(v)) : std::to_string(static_cast<std::uint64_t>(v));
}

}  // namespace

Array Generator::integers_in(Shape shape, IntegerBound low, IntegerBound high, DType t, Device d) {
  detail::check_valid_dtype(t, "integers");
  if (!is_integral(t))
    throw DTypeError(cat("random::integers makes integer arrays; ", name(t), " is not an integer dtype (uniform draws floats)"));
  const i128 lo = wide(low), hi = wide(high);
  // NumPy's checks and words: "low >= high", "low is out of bounds for int8", "high is out of bounds".
  if (hi <= lo) throw InvalidArgument(cat("random::integers: low ", text(lo), " >= high ", text(hi), "; the range [low, high) is empty"));
  const IntInfo info = iinfo(t);
  if (lo < info.min)
    throw InvalidArgument(cat("random::integers: low ", text(lo), " is out of bounds for ", name(t), " (its least value is ", info.min, ")"));
  if (hi > static_cast<i128>(info.max) + 1)
    throw InvalidArgument(cat("random::integers: high ", text(hi), " is out of bounds for ", name(t), " (at most ", info.max,
                              " + 1: high is excluded)"));
  (void)element_count(shape);
  detail::check_dtype(d, t);
  const auto r = static_cast<u128>(hi - lo);  // 1 to 2^64
  auto out = detail::make_buffer_node(shape, t, d);
  const std::int64_t n = element_count(shape);
  if (n > 0)
    detail::random_integers(t, out->view(), n, seed_, next_stream_.fetch_add(1), static_cast<std::uint64_t>(lo),
                            static_cast<std::uint64_t>(r), static_cast<std::uint64_t>(r >> 64));
  else
    next_stream_.fetch_add(1);
  return Array(out);
}

void seed(std::uint64_t s) {
  auto& g = global();
  std::lock_guard lock(g.m);
  g.gen = std::make_shared<Generator>(s);
}

Array uniform(Shape shape, double low, double high, DType t, Device d) {
  return global_generator()->uniform(std::move(shape), low, high, t, std::move(d));
}

Array normal(Shape shape, double mean, double stddev, DType t, Device d) {
  return global_generator()->normal(std::move(shape), mean, stddev, t, std::move(d));
}

Array integers_in(Shape shape, Generator::IntegerBound low, Generator::IntegerBound high, DType t, Device d) {
  return global_generator()->integers_in(std::move(shape), low, high, t, std::move(d));
}

}  // namespace porta::random
